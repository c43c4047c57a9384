//! The line of producers waiting for room in one mailbox, in the order
//! they first waited.
//!
//! Each producer holds a number, given when it joins and kept until it
//! leaves; its place is `places[number - first]`, so finding it again (to
//! update its waker, or to leave) costs one subtraction. A producer that
//! leaves from the middle leaves a `Left` mark behind, removed once it
//! reaches the front: every operation is O(1) amortised, and the buffer
//! keeps its capacity, so a mailbox that fills up again and again stops
//! allocating after the first few waits.
//!
//! Woken producers keep their place until they claim a slot (or give up):
//! one that finds the mailbox full again, because a sender that was not
//! waiting took the slot first, is waiting again at the same place, ahead
//! of everyone who came after it.

use std::collections::VecDeque;
use std::task::Waker;

/// The waiting producers, first come first served.
#[derive(Debug, Default)]
pub(super) struct Line {
    /// One place per number from `first` on.
    places: VecDeque<Place>,
    /// The number of `places[0]`.
    first: u64,
    /// No place before this index is `Waiting` (where `wake_next` starts
    /// looking).
    scan: usize,
    /// Number of `Waiting` places.
    waiting: usize,
    /// Number of `Woken` places: producers woken for a slot that have not
    /// yet claimed it, waited again or left.
    woken: usize,
}

/// What a producer's place holds.
#[derive(Debug)]
enum Place {
    /// Waiting to be woken, with the waker to use.
    Waiting(Waker),
    /// Woken for a freed slot; not yet back.
    Woken,
    /// Gone; removed when it reaches the front.
    Left,
}

impl Line {
    /// Number of producers waiting to be woken.
    pub(super) fn waiting(&self) -> usize {
        self.waiting
    }

    /// Number of producers woken that have not come back yet.
    pub(super) fn woken(&self) -> usize {
        self.woken
    }

    /// Puts a new producer at the back; returns its number.
    pub(super) fn join(&mut self, waker: &Waker) -> u64 {
        self.places.push_back(Place::Waiting(waker.clone()));
        self.waiting += 1;
        self.first + (self.places.len() - 1) as u64
    }

    /// The producer holding `number` waits (again) with `waker`, at its
    /// place. Returns the waker it replaces, to be dropped out of the lock.
    pub(super) fn wait_again(&mut self, number: u64, waker: &Waker) -> Option<Waker> {
        let index = self.index(number);
        let place = &mut self.places[index];
        match place {
            Place::Waiting(old) if old.will_wake(waker) => None,
            Place::Waiting(old) => Some(std::mem::replace(old, waker.clone())),
            Place::Woken => {
                *place = Place::Waiting(waker.clone());
                self.woken -= 1;
                self.waiting += 1;
                // It keeps its place: the next wake-up looks here first.
                self.scan = self.scan.min(index);
                None
            }
            Place::Left => unreachable!("a producer that left has no number"),
        }
    }

    /// The producer holding `number` leaves. Returns whether it had been
    /// woken (and not come back), and its waker if it was still waiting.
    pub(super) fn leave(&mut self, number: u64) -> (bool, Option<Waker>) {
        let index = self.index(number);
        let left = match std::mem::replace(&mut self.places[index], Place::Left) {
            Place::Waiting(waker) => {
                self.waiting -= 1;
                (false, Some(waker))
            }
            Place::Woken => {
                self.woken -= 1;
                (true, None)
            }
            Place::Left => unreachable!("a producer leaves once"),
        };
        self.trim();
        left
    }

    /// Wakes the first waiting producer: returns its waker, its place now
    /// `Woken`. `None` if nobody waits.
    pub(super) fn wake_next(&mut self) -> Option<Waker> {
        while let Some(place) = self.places.get_mut(self.scan) {
            self.scan += 1;
            if let Place::Waiting(_) = place {
                let Place::Waiting(waker) = std::mem::replace(place, Place::Woken) else {
                    unreachable!()
                };
                self.waiting -= 1;
                self.woken += 1;
                return Some(waker);
            }
        }
        None
    }

    /// Wakes every waiting producer (the mailbox is closing), adding their
    /// wakers to `wakers`.
    pub(super) fn wake_all(&mut self, wakers: &mut Vec<Waker>) {
        while let Some(waker) = self.wake_next() {
            wakers.push(waker);
        }
    }

    /// The index of the place of `number`.
    fn index(&self, number: u64) -> usize {
        let index = number
            .checked_sub(self.first)
            .expect("a number is never below the front") as usize;
        debug_assert!(index < self.places.len(), "a number was given out");
        index
    }

    /// Removes the places of producers that left, from the front.
    fn trim(&mut self) {
        while let Some(Place::Left) = self.places.front() {
            self.places.pop_front();
            self.first += 1;
            self.scan = self.scan.saturating_sub(1);
        }
    }
}

#[cfg(all(test, not(causim_loom)))]
mod tests;
