//! A loom-instrumented stand-in for the lock-free crate we build on.
//!
//! `st3` uses `std` atomics, which loom cannot see: a value handed from one
//! thread to another through it looks unsynchronised to loom, which then
//! reports violations that cannot happen. Under `cfg(causim_loom)` this
//! small lock-based version, with the same API subset, takes its place;
//! the crate is checked with loom by its own authors. What the loom tests
//! explore is this crate's own protocol on top of it. (The channel's
//! consumer waker, which once came from `diatomic-waker` and had a
//! stand-in here, is now this crate's own code, built on `crate::sync`'s
//! atomics: loom explores it as it ships.)
//!
//! A stand-in is only worth its name if it keeps what the real crate keeps
//! and refuses what it refuses: a stand-in of the waker crate that dropped
//! a waker the real crate cached once hid a reference cycle (and the leak
//! of every mailbox on several threads) from loom. So each method below
//! follows its original (`st3` 0.4.1), and its docs say where that
//! matters: the queue's power-of-two capacity, the items a steal or a drain
//! holds in flight, and the `Busy` refusal while one is under way.
//!
//! What a lock cannot keep is a weaker ordering: `st3` books the tasks a
//! steal takes with an acquire-only exchange, so a worker that finds its
//! queue emptied by a steal learns nothing else the stealer did, while the
//! lock here publishes everything. The executor's protocol must not lean
//! on it (the stealer fences before it steals, see `worker::steal`), and
//! its tests on real threads run under Miri, which runs `st3` itself, with
//! several seeds (`executor::mt::tests`, `.ci/miri`).

use std::collections::VecDeque;

use super::lock;
use loom::sync::{Arc, Mutex};

/// Stand-in for `st3::StealError`.
#[derive(Debug)]
pub(crate) enum StealError {
    /// Nothing to steal (or a count of zero asked).
    Empty,
    /// Another steal from the same queue is under way.
    Busy,
}

/// A work-stealing queue's contents.
#[derive(Debug)]
struct Queue<T> {
    /// The items the owner can pop, oldest first.
    items: VecDeque<T>,
    /// Items booked by a steal under way and not yet moved: they still
    /// take room (as between `st3`'s stealer head and worker head), and
    /// other steals fail with `Busy` meanwhile.
    in_flight: usize,
}

impl<T> Queue<T> {
    /// Items and booked items: what `st3` counts against the capacity.
    fn occupied(&self) -> usize {
        self.items.len() + self.in_flight
    }
}

/// Stand-in for `st3::fifo::Worker`.
#[derive(Debug)]
pub(crate) struct Worker<T> {
    /// The queue, shared with the stealers.
    queue: Arc<Mutex<Queue<T>>>,
    /// Maximum length: a power of two.
    capacity: usize,
}

/// Stand-in for `st3::fifo::Drain`: the items a [`Worker::drain`] booked,
/// released (no longer taking room, steals allowed again) once the last
/// one is yielded or the iterator dropped.
#[derive(Debug)]
pub(crate) struct Drain<T> {
    /// The worker's queue, whose booking this ends.
    queue: Arc<Mutex<Queue<T>>>,
    /// The booked items not yet yielded.
    items: VecDeque<T>,
    /// True once the booking ended (a steal may have booked items since).
    released: bool,
}

impl<T> Drain<T> {
    /// Ends the booking, once.
    fn release(&mut self) {
        if !std::mem::replace(&mut self.released, true) {
            lock(&self.queue).in_flight = 0;
        }
    }
}

impl<T> Iterator for Drain<T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        let item = self.items.pop_front()?;
        // As in `st3`, the booking ends as the last item is yielded.
        if self.items.is_empty() {
            self.release();
        }
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.items.len(), Some(self.items.len()))
    }
}

impl<T> ExactSizeIterator for Drain<T> {}

impl<T> Drop for Drain<T> {
    fn drop(&mut self) {
        self.items.clear();
        self.release();
    }
}

/// Stand-in for `st3::fifo::Stealer`.
#[derive(Debug)]
pub(crate) struct Stealer<T> {
    /// The worker's queue.
    queue: Arc<Mutex<Queue<T>>>,
}

impl<T> Worker<T> {
    /// An empty queue of at least `min_capacity` items: the next power of
    /// two, as `st3` does; panics above 2³¹, as it does on 64-bit targets.
    pub(crate) fn new(min_capacity: usize) -> Self {
        assert!(
            min_capacity <= 1 << 31,
            "the capacity of the queue cannot exceed 2^31"
        );
        Worker {
            queue: Arc::new(Mutex::new(Queue {
                items: VecDeque::new(),
                in_flight: 0,
            })),
            capacity: min_capacity.next_power_of_two(),
        }
    }

    /// A stealer of this queue.
    pub(crate) fn stealer(&self) -> Stealer<T> {
        Stealer {
            queue: self.queue.clone(),
        }
    }

    /// The maximum length.
    pub(crate) fn capacity(&self) -> usize {
        self.capacity
    }

    /// Free room; items a steal has booked still take theirs.
    pub(crate) fn spare_capacity(&self) -> usize {
        self.capacity - lock(&self.queue).occupied()
    }

    /// Appends `item`, or hands it back when full (booked items included).
    pub(crate) fn push(&self, item: T) -> Result<(), T> {
        let mut queue = lock(&self.queue);
        if queue.occupied() >= self.capacity {
            return Err(item);
        }
        queue.items.push_back(item);
        Ok(())
    }

    /// Appends the items of `items` while there is room; as in `st3`, the
    /// items in excess are dropped (the caller makes room for them first).
    pub(crate) fn extend(&self, items: impl IntoIterator<Item = T>) {
        let mut queue = lock(&self.queue);
        for item in items {
            if queue.occupied() >= self.capacity {
                break;
            }
            queue.items.push_back(item);
        }
    }

    /// Takes the oldest item.
    pub(crate) fn pop(&self) -> Option<T> {
        lock(&self.queue).items.pop_front()
    }

    /// Books `count(len)` of the oldest items (at most `len`) and returns
    /// them, oldest first, through an iterator. As in `st3`: `Empty` if
    /// that is none, `Busy` while a steal from this queue is under way;
    /// and until the iterator has yielded its last item (or is dropped),
    /// the booked items still take room and steals fail with `Busy`.
    pub(crate) fn drain(
        &self,
        mut count: impl FnMut(usize) -> usize,
    ) -> Result<Drain<T>, StealError> {
        let mut queue = lock(&self.queue);
        if queue.in_flight > 0 {
            return Err(StealError::Busy);
        }
        let n = count(queue.items.len()).min(queue.items.len());
        if n == 0 {
            return Err(StealError::Empty);
        }
        queue.in_flight = n;
        let items: VecDeque<T> = queue.items.drain(..n).collect();
        Ok(Drain {
            queue: self.queue.clone(),
            items,
            released: false,
        })
    }
}

impl<T> Stealer<T> {
    /// Books `count(len)` of the oldest items (at most `len`, and at most
    /// one more than `dest` has room for), moves all but the newest of
    /// them to `dest` and returns that newest one, with the number moved.
    ///
    /// As in `st3`: `Empty` if there is nothing to take or `count` says 0;
    /// `Busy` while another steal from this queue is under way, whose
    /// booked items are in flight, out of the owner's reach but still
    /// taking room, until they are in `dest`.
    pub(crate) fn steal_and_pop(
        &self,
        dest: &Worker<T>,
        mut count: impl FnMut(usize) -> usize,
    ) -> Result<(T, usize), StealError> {
        // Only `dest`'s owner (the caller) pushes to it: its room can only
        // grow until the transfer.
        let dest_free = dest.spare_capacity();
        let mut stolen: VecDeque<T> = {
            let mut queue = lock(&self.queue);
            if queue.in_flight > 0 {
                return Err(StealError::Busy);
            }
            let available = queue.items.len();
            if available == 0 {
                return Err(StealError::Empty);
            }
            let n = count(available).min(dest_free + 1).min(available);
            if n == 0 {
                return Err(StealError::Empty);
            }
            queue.in_flight = n;
            queue.items.drain(..n).collect()
        };
        let last = stolen.pop_back().expect("at least one item was booked");
        let moved = stolen.len();
        lock(&dest.queue).items.extend(stolen);
        // The steal is over: the booked room is free again.
        lock(&self.queue).in_flight = 0;
        Ok((last, moved))
    }
}
