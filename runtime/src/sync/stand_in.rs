//! Loom-instrumented stand-ins for the two lock-free crates we build on.
//!
//! `st3` and `diatomic-waker` use `std` atomics, which loom cannot see: a
//! value handed from one thread to another through them looks
//! unsynchronised to loom, which then reports violations that cannot
//! happen. Under `cfg(causim_loom)` these small lock-based versions, with
//! the same API subset, take their place; both crates are checked with
//! loom by their own authors. What the loom tests explore is this crate's
//! own protocol on top of them.
//!
//! A stand-in is only worth its name if it keeps what the real crate keeps
//! and refuses what it refuses: a stand-in that drops a waker the real
//! crate caches hid a reference cycle (and the leak of every mailbox on
//! several threads) from loom. So each method below follows its original
//! (`diatomic-waker` 0.2.3, `st3` 0.4.1), and its docs say where that
//! matters: which wakers stay cached, the queue's power-of-two capacity,
//! the items a steal or a drain holds in flight, and the `Busy` refusal
//! while one is under way.
//!
//! What a lock cannot keep is a weaker ordering: `st3` books the tasks a
//! steal takes with an acquire-only exchange, so a worker that finds its
//! queue emptied by a steal learns nothing else the stealer did, while the
//! lock here publishes everything. The executor's protocol must not lean
//! on it (the stealer fences before it steals, see `worker::steal`), and
//! its tests on real threads run under Miri, which runs `st3` itself, with
//! several seeds (`executor::mt::tests`, `.ci/miri`).

use std::collections::VecDeque;
use std::task::Waker;

use super::lock;
use loom::sync::{Arc, Mutex};

/// The state of a [`DiatomicWaker`]: the real crate's two waker slots and
/// its `INDEX`, `UPDATE` and `REGISTERED` bits, under a lock instead of in
/// one atomic word.
#[derive(Debug, Default)]
struct WakerSlots {
    /// The two slots; both keep their waker until overwritten or dropped.
    slots: [Option<Waker>; 2],
    /// The slot of the current waker, the one `notify` wakes.
    index: usize,
    /// True when a newer waker waits in the other slot: the next `notify`
    /// switches to it.
    update: bool,
    /// True while a waker is registered: `notify` wakes only then.
    registered: bool,
}

/// Stand-in for `diatomic_waker::DiatomicWaker`.
///
/// As in the real crate, nothing but `register` (overwriting the slot not
/// in use) and the drop of the whole value ever drops a waker: `notify`
/// wakes by reference and `unregister` only clears the flag, so the last
/// registered waker stays cached (up to two, while an update is pending).
#[derive(Debug, Default)]
pub(crate) struct DiatomicWaker {
    /// The slots and flags.
    state: Mutex<WakerSlots>,
}

impl DiatomicWaker {
    /// No waker registered.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Wakes the registered waker, if any, and unregisters it (it stays
    /// cached).
    pub(crate) fn notify(&self) {
        let mut state = lock(&self.state);
        if !state.registered {
            return;
        }
        // Taking the notifier lock switches to an updated waker.
        if state.update {
            state.index = 1 - state.index;
            state.update = false;
        }
        state.registered = false;
        if let Some(waker) = &state.slots[state.index] {
            waker.wake_by_ref();
        }
    }

    /// Registers `waker`: cloned into the slot not in use unless it wakes
    /// the same task as the most recent one.
    ///
    /// # Safety
    ///
    /// None here; `unsafe` to match the real API (one registering thread
    /// at a time).
    pub(crate) unsafe fn register(&self, waker: &Waker) {
        let replaced = {
            let mut state = lock(&self.state);
            let recent = if state.update {
                1 - state.index
            } else {
                state.index
            };
            if state.slots[recent]
                .as_ref()
                .is_some_and(|w| w.will_wake(waker))
            {
                state.registered = true;
                return;
            }
            let redundant = 1 - state.index;
            let replaced = state.slots[redundant].replace(waker.clone());
            state.update = true;
            state.registered = true;
            replaced
        };
        // Dropped outside the lock: it may be the last reference to a task.
        drop(replaced);
    }

    /// Unregisters the waker: later notifications are ignored. The waker
    /// is not dropped (the real crate caches it for the next `register`).
    ///
    /// # Safety
    ///
    /// None here; `unsafe` to match the real API (one registering thread
    /// at a time).
    pub(crate) unsafe fn unregister(&self) {
        lock(&self.state).registered = false;
    }
}

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
