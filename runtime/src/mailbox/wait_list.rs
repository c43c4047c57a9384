//! The producers waiting for room in a full mailbox.
//!
//! A mailbox is full only under bursts, so this is the cold path: the
//! waiting producers stand in a plain locked [`Line`], first come first
//! served. The consumer's hot path only reads an atomic count of the
//! producers still waiting to be woken.
//!
//! # One wake-up per freed slot, in order
//!
//! Each slot the consumer frees (a message taken, or a hole left by a
//! filtered message skipped) wakes the first producer still waiting, and
//! only that one; a consumer that parks on its empty queue makes sure at
//! least `capacity` producers (or all of them) are woken. A burst of `n`
//! senders into a mailbox of any capacity thus costs O(n) wake-ups and
//! O(n) work in the list, where waking every waiter on every slot cost
//! O(n²).
//!
//! A producer knows its place through its [`WaitTicket`], which its send
//! future keeps across polls: waiting again is O(1) (no search for its
//! waker), and a woken producer that finds the slot already taken (by a
//! sender that never waited) waits again at the same place, ahead of the
//! producers that came after it.
//!
//! Waking one producer instead of all must not strand the others when the
//! woken one never claims its slot: a send future dropped while holding a
//! wake-up (its task gave up on it, or the bench was dropped) passes the
//! wake-up on to the next waiting producer when its ticket is dropped.
//! A woken producer that claims a slot, or finds the model gone, leaves
//! without passing anything on: it used its wake-up (and a closing
//! mailbox wakes everyone).
//!
//! # Lost wake-ups
//!
//! A producer registers (under the lock, which also stores the count),
//! then issues a fence and tries again; the consumer frees a slot, issues
//! a fence and reads the count. That pairing (the store-buffer, or
//! Dekker, pattern) guarantees that either the producer's retry sees the
//! slot the consumer freed, or the consumer sees the producer's
//! registration and wakes the first waiting producer, this one or an
//! earlier one, which will claim the slot or wait again (and be covered
//! by the next freed slot in the same way). Every freed slot is thus
//! either claimed by a retry or turned into one wake-up.
//!
//! On the single-threaded executor both sides skip their fence
//! ([`WaitList::wake_one_local`], [`WaitList::top_up_local`], `register`
//! with `local`). A producer on the executor's thread registered before
//! the consumer's next poll, in program order. One on another thread,
//! whose retry failed, wakes the consumer through the executor's shared
//! queue (`Channel::try_push_slow`), so the consumer's next poll is
//! synchronised with the registration: the pops of that poll each wake
//! one producer, and when the queue is empty again the consumer tops the
//! woken producers up to the capacity, which covers the slots freed
//! before it could see the registration.
//!
//! # Memory
//!
//! The line, its count and its lock are allocated by the first producer
//! that waits, so a mailbox that never fills up holds one null pointer
//! (8 bytes instead of a count and an empty lock beside it: a bench of a
//! million idle models holds 16 MB less). The consumer's hot path reads
//! that pointer, which is null unless a producer ever waited; the fence
//! pairing covers the pointer as it covers the count (both are stored
//! before the producer's fence). The line's buffer keeps its capacity, so
//! after the first few waits, waiting allocates nothing.

mod line;

use std::fmt;
use std::ptr;
use std::task::Waker;

use crate::sync::atomic::{fence, AtomicUsize, Ordering};
use crate::sync::{lock, LazyBox, Mutex};
use line::Line;

/// Producers waiting for a free slot.
#[derive(Debug)]
pub(crate) struct WaitList {
    /// The waiting producers, allocated by the first producer that waits
    /// (one null pointer until then).
    waiting: LazyBox<WaitingProducers>,
}

/// The waiting producers of a mailbox that has been full at least once.
#[derive(Debug, Default)]
pub(crate) struct WaitingProducers {
    /// Number of producers waiting to be woken, readable without the lock.
    count: AtomicUsize,
    /// The producers, in the order they first waited.
    line: Mutex<Line>,
}

/// A producer's place in a mailbox's wait list, kept by its send future
/// across polls.
///
/// Dropping a ticket that still holds a place leaves the line; if the
/// producer had been woken and never came back, its wake-up goes to the
/// next waiting producer. The lifetime is that of the mailbox's channel,
/// which the send future borrows through its connection.
#[derive(Debug, Default)]
pub(crate) struct WaitTicket<'a> {
    /// The list it waits in and its number there, while it has a place.
    place: Option<Place<'a>>,
}

/// A place in a wait list.
struct Place<'a> {
    /// The list.
    producers: &'a WaitingProducers,
    /// The producer's number in the list's line.
    number: u64,
}

impl WaitList {
    /// An empty list.
    pub(crate) fn new() -> Self {
        WaitList {
            waiting: LazyBox::new(),
        }
    }

    /// The waiting producers, if one ever waited (an Acquire load of the
    /// pointer, which the fence pairing covers as it covers the count).
    #[inline]
    fn get(&self) -> Option<&WaitingProducers> {
        self.waiting.get()
    }

    /// The waiting producers, allocated by the first one.
    fn get_or_allocate(&self) -> &WaitingProducers {
        self.waiting.get_or_default()
    }

    /// Puts the producer holding `ticket` in line with `waker` (at its
    /// old place if it has one); the caller must try again afterwards.
    /// `local`: the consumer runs on the single-threaded executor, which
    /// does without the fence pairing (see the module docs).
    pub(crate) fn register<'a>(&'a self, ticket: &mut WaitTicket<'a>, waker: &Waker, local: bool) {
        let producers = self.get_or_allocate();
        let replaced = match &ticket.place {
            Some(place) if ptr::eq(place.producers, producers) => {
                producers.wait_again(place.number, waker)
            }
            _ => {
                // A ticket from another mailbox's line (not used by the
                // send futures, which leave after each delivery) gives up
                // its place there first.
                if let Some(old) = ticket.place.take() {
                    old.producers.leave(old.number, true);
                }
                let number = producers.join(waker);
                ticket.place = Some(Place { producers, number });
                None
            }
        };
        drop(replaced);
        if !local {
            // Pairs with the fence in `wake_one` and `top_up`.
            fence(Ordering::SeqCst);
        }
    }

    /// Wakes the first waiting producer; the caller (the consumer) has
    /// just freed a slot.
    #[inline]
    pub(crate) fn wake_one(&self) {
        // Pairs with the fence in `register`.
        fence(Ordering::SeqCst);
        self.wake_one_local();
    }

    /// [`wake_one`](WaitList::wake_one) for a consumer on the
    /// single-threaded executor: no fence (see the module docs).
    #[inline]
    pub(crate) fn wake_one_local(&self) {
        if let Some(producers) = self.waiting_producers() {
            producers.wake_next();
        }
    }

    /// Makes sure `capacity()` producers, or every waiting one, are woken;
    /// the caller (the consumer) found its queue empty.
    #[inline]
    pub(crate) fn top_up(&self, capacity: impl FnOnce() -> usize) {
        // Pairs with the fence in `register`.
        fence(Ordering::SeqCst);
        self.top_up_local(capacity);
    }

    /// [`top_up`](WaitList::top_up) for a consumer on the single-threaded
    /// executor: no fence (see the module docs). `capacity` is asked only
    /// when a producer waits.
    #[inline]
    pub(crate) fn top_up_local(&self, capacity: impl FnOnce() -> usize) {
        if let Some(producers) = self.waiting_producers() {
            producers.top_up(capacity());
        }
    }

    /// Wakes every waiting producer: the mailbox is closing.
    pub(crate) fn wake_all(&self) {
        // Pairs with the fence in `register`.
        fence(Ordering::SeqCst);
        if let Some(producers) = self.waiting_producers() {
            producers.wake_all();
        }
    }

    /// The waiting producers, if any producer waits to be woken.
    #[inline]
    fn waiting_producers(&self) -> Option<&WaitingProducers> {
        self.get()
            .filter(|producers| producers.count.load(Ordering::Relaxed) != 0)
    }
}

impl WaitingProducers {
    /// Locks the line; `count` is kept equal to its waiting producers.
    fn with_line<R>(&self, f: impl FnOnce(&mut Line) -> R) -> R {
        let mut line = lock(&self.line);
        let result = f(&mut line);
        self.count.store(line.waiting(), Ordering::Relaxed);
        result
    }

    /// A new producer at the back of the line; returns its number.
    #[cold]
    fn join(&self, waker: &Waker) -> u64 {
        self.with_line(|line| line.join(waker))
    }

    /// The producer holding `number` waits again at its place; returns the
    /// waker it replaces.
    #[cold]
    fn wait_again(&self, number: u64, waker: &Waker) -> Option<Waker> {
        self.with_line(|line| line.wait_again(number, waker))
    }

    /// The producer holding `number` leaves the line; if it had been woken
    /// and `pass_on`, its wake-up goes to the next waiting producer.
    #[cold]
    fn leave(&self, number: u64, pass_on: bool) {
        let (next, waker) = self.with_line(|line| {
            let (was_woken, waker) = line.leave(number);
            let next = if was_woken && pass_on {
                line.wake_next()
            } else {
                None
            };
            (next, waker)
        });
        // Outside the lock: dropping or waking a waker may run code that
        // waits in this line again.
        drop(waker);
        if let Some(next) = next {
            next.wake();
        }
    }

    /// Wakes the first waiting producer.
    #[cold]
    fn wake_next(&self) {
        if let Some(waker) = self.with_line(Line::wake_next) {
            waker.wake();
        }
    }

    /// Wakes waiting producers until `capacity` of them are woken.
    #[cold]
    fn top_up(&self, capacity: usize) {
        while let Some(waker) = self.with_line(|line| {
            if line.woken() < capacity {
                line.wake_next()
            } else {
                None
            }
        }) {
            waker.wake();
        }
    }

    /// Wakes every waiting producer.
    #[cold]
    fn wake_all(&self) {
        let mut wakers = Vec::new();
        self.with_line(|line| line.wake_all(&mut wakers));
        wakers.into_iter().for_each(Waker::wake);
    }
}

impl fmt::Debug for Place<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Place")
            .field("number", &self.number)
            .finish()
    }
}

impl WaitTicket<'_> {
    /// A ticket without a place.
    pub(crate) const fn new() -> Self {
        WaitTicket { place: None }
    }

    /// The producer no longer waits: it claimed a slot, or found the
    /// model gone. Any wake-up it held was used.
    #[inline]
    pub(crate) fn leave_served(&mut self) {
        if self.place.is_some() {
            self.leave_served_cold();
        }
    }

    /// [`leave_served`](WaitTicket::leave_served) with a place to leave.
    #[cold]
    #[inline(never)]
    fn leave_served_cold(&mut self) {
        if let Some(place) = self.place.take() {
            place.producers.leave(place.number, false);
        }
    }

    /// True while it holds a place in a line.
    #[cfg(all(test, not(causim_loom)))]
    pub(crate) fn is_placed(&self) -> bool {
        self.place.is_some()
    }
}

impl Drop for WaitTicket<'_> {
    /// Leaves the line without having been served: a wake-up it held goes
    /// to the next waiting producer. Inlined into every send future's drop
    /// as one test: a send that never waited has no place to leave.
    #[inline]
    fn drop(&mut self) {
        if self.place.is_some() {
            self.abandon();
        }
    }
}

impl WaitTicket<'_> {
    /// [`drop`](WaitTicket::drop) with a place to leave.
    #[cold]
    #[inline(never)]
    fn abandon(&mut self) {
        if let Some(place) = self.place.take() {
            place.producers.leave(place.number, true);
        }
    }
}

#[cfg(all(test, not(causim_loom)))]
mod tests;
