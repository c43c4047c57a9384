//! Loom-instrumented stand-ins for the two lock-free crates we build on.
//!
//! `st3` and `diatomic-waker` use `std` atomics, which loom cannot see: a
//! value handed from one thread to another through them looks
//! unsynchronised to loom, which then reports violations that cannot
//! happen. Under `cfg(causim_loom)` these small lock-based versions, with
//! the same API subset, take their place; both crates are checked with
//! loom by their own authors. What the loom tests explore is this crate's
//! own protocol on top of them.

use std::collections::VecDeque;
use std::task::Waker;

use loom::sync::{Arc, Mutex};

/// Stand-in for `diatomic_waker::DiatomicWaker`.
#[derive(Debug, Default)]
pub(crate) struct DiatomicWaker {
    /// The registered waker.
    waker: Mutex<Option<Waker>>,
}

impl DiatomicWaker {
    /// No waker registered.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Wakes and unregisters the registered waker, if any.
    pub(crate) fn notify(&self) {
        let waker = self.waker.lock().unwrap().take();
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Registers `waker`.
    ///
    /// # Safety
    ///
    /// None here; `unsafe` to match the real API.
    pub(crate) unsafe fn register(&self, waker: &Waker) {
        *self.waker.lock().unwrap() = Some(waker.clone());
    }

    /// Unregisters the waker.
    ///
    /// # Safety
    ///
    /// None here; `unsafe` to match the real API.
    pub(crate) unsafe fn unregister(&self) {
        *self.waker.lock().unwrap() = None;
    }
}

/// Stand-in for `st3::StealError`.
#[derive(Debug)]
pub(crate) enum StealError {
    /// Nothing to steal.
    Empty,
    /// Never returned by the stand-in.
    #[allow(dead_code)]
    Busy,
}

/// Stand-in for `st3::fifo::Worker`.
#[derive(Debug)]
pub(crate) struct Worker<T> {
    /// The queue, shared with the stealers.
    queue: Arc<Mutex<VecDeque<T>>>,
    /// Maximum length.
    capacity: usize,
}

/// Stand-in for `st3::fifo::Stealer`.
#[derive(Debug)]
pub(crate) struct Stealer<T> {
    /// The worker's queue.
    queue: Arc<Mutex<VecDeque<T>>>,
}

impl<T> Worker<T> {
    /// An empty queue of `capacity` items.
    pub(crate) fn new(capacity: usize) -> Self {
        Worker {
            queue: Arc::new(Mutex::new(VecDeque::new())),
            capacity,
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

    /// Free room.
    pub(crate) fn spare_capacity(&self) -> usize {
        self.capacity - self.queue.lock().unwrap().len()
    }

    /// True if empty.
    pub(crate) fn is_empty(&self) -> bool {
        self.queue.lock().unwrap().is_empty()
    }

    /// Appends `item`, or hands it back when full.
    pub(crate) fn push(&self, item: T) -> Result<(), T> {
        let mut queue = self.queue.lock().unwrap();
        if queue.len() >= self.capacity {
            return Err(item);
        }
        queue.push_back(item);
        Ok(())
    }

    /// Takes the oldest item.
    pub(crate) fn pop(&self) -> Option<T> {
        self.queue.lock().unwrap().pop_front()
    }
}

impl<T> Stealer<T> {
    /// Moves `count(len)` items to `dest` and returns the last one, with
    /// the number moved besides it.
    pub(crate) fn steal_and_pop(
        &self,
        dest: &Worker<T>,
        count: impl FnOnce(usize) -> usize,
    ) -> Result<(T, usize), StealError> {
        let mut stolen: VecDeque<T> = {
            let mut queue = self.queue.lock().unwrap();
            let n = count(queue.len()).min(queue.len());
            queue.drain(..n).collect()
        };
        let Some(last) = stolen.pop_back() else {
            return Err(StealError::Empty);
        };
        let moved = stolen.len();
        dest.queue.lock().unwrap().extend(stolen);
        Ok((last, moved))
    }
}
