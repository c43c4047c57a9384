//! The producers waiting for room in a full mailbox.
//!
//! WaitingProducers is the rare path (a mailbox is full only under bursts), so the
//! wakers sit in a plain locked list; the consumer's hot path only reads an
//! atomic count, after a fence that pairs with the one a producer issues
//! between registering and trying again. That pairing (the store-buffer,
//! or Dekker, pattern) guarantees that either the producer's retry sees the
//! slot the consumer freed, or the consumer sees the producer's waker. On
//! the single-threaded executor the consumer skips its fence
//! ([`WaitList::wake_all_local`]): a producer on another thread then wakes
//! the consumer after registering, which orders the two instead.
//!
//! The list, its count and its lock are allocated by the first producer
//! that waits, so a mailbox that never fills up holds one null pointer
//! (8 bytes instead of 24 for a count and an empty lock beside it: a
//! bench of a million idle models holds 16 MB less). The consumer's hot
//! path reads that pointer, which is null unless a producer ever waited;
//! the fence pairing covers the pointer as it covers the count (both are
//! stored before the producer's fence).
//!
//! The consumer wakes every waiting producer when it frees a slot: a woken
//! producer that no longer needs the slot (its future was dropped) can then
//! never strand another one.
//!
//! WaitingProducers must not allocate either (a burst into a small mailbox waits
//! once per freed slot): the woken wakers are swapped out for a spare,
//! empty buffer that keeps its capacity, and the drained buffer becomes the
//! next spare. After the first few waits, registering never grows a vector.

use std::ptr;
use std::task::Waker;

use crate::sync::atomic::{fence, AtomicPtr, AtomicUsize, Ordering};
use crate::sync::{lock, Mutex};

/// Wakers of producers waiting for a free slot.
#[derive(Debug)]
pub(crate) struct WaitList {
    /// The waiting producers (a leaked `Box<WaitingProducers>`), or null until the
    /// first producer waits.
    waiting: AtomicPtr<WaitingProducers>,
}

/// The waiting producers of a mailbox that has been full at least once.
#[derive(Debug, Default)]
struct WaitingProducers {
    /// Number of registered wakers, readable without the lock.
    count: AtomicUsize,
    /// The wakers and their spare buffer.
    lists: Mutex<Lists>,
}

/// The registered wakers and a spare buffer.
#[derive(Debug, Default)]
struct Lists {
    /// The wakers, one per waiting task.
    wakers: Vec<Waker>,
    /// An empty buffer with the capacity `wakers` had, swapped in when
    /// they are woken so that the next producers to wait do not allocate.
    spare: Vec<Waker>,
}

// SAFETY: `WaitList` owns the `WaitingProducers` behind its pointer (freed only in
// `drop`, with `&mut self`) and only hands out shared references to it;
// `WaitingProducers` is `Send + Sync` (atomics and a mutex over `Send` wakers).
unsafe impl Send for WaitList {}
// SAFETY: as above.
unsafe impl Sync for WaitList {}

impl WaitList {
    /// An empty list.
    pub(crate) fn new() -> Self {
        WaitList {
            waiting: AtomicPtr::new(ptr::null_mut()),
        }
    }

    /// The waiting producers, if one ever waited.
    #[inline]
    fn get(&self) -> Option<&WaitingProducers> {
        let waiting = self.waiting.load(Ordering::Acquire);
        // SAFETY: a non-null pointer was installed by `get_or_allocate`
        // from a leaked `Box<WaitingProducers>` (the Acquire load pairs with its
        // Release exchange, so the contents are initialised), and it is
        // freed only in `drop`, which has `&mut self`.
        (!waiting.is_null()).then(|| unsafe { &*waiting })
    }

    /// The waiting producers, allocated by the first one.
    fn get_or_allocate(&self) -> &WaitingProducers {
        if let Some(waiting) = self.get() {
            return waiting;
        }
        let fresh = Box::into_raw(Box::<WaitingProducers>::default());
        match self.waiting.compare_exchange(
            ptr::null_mut(),
            fresh,
            Ordering::AcqRel,
            Ordering::Acquire,
        ) {
            // SAFETY: we just installed `fresh`, a leaked box freed only
            // in `drop` (`&mut self`).
            Ok(_) => unsafe { &*fresh },
            Err(installed) => {
                // SAFETY: `fresh` lost the race and was never shared: it
                // is still ours to free.
                drop(unsafe { Box::from_raw(fresh) });
                // SAFETY: `installed` is the winner's leaked box (see
                // `get`), initialised before its Release exchange.
                unsafe { &*installed }
            }
        }
    }

    /// Adds `waker` (once per task); the caller must try again afterwards.
    pub(crate) fn register(&self, waker: &Waker) {
        let waiting = self.get_or_allocate();
        {
            let mut lists = lock(&waiting.lists);
            if !lists.wakers.iter().any(|w| w.will_wake(waker)) {
                lists.wakers.push(waker.clone());
            }
            waiting.count.store(lists.wakers.len(), Ordering::Relaxed);
        }
        // Pairs with the fence in `wake_all`.
        fence(Ordering::SeqCst);
    }

    /// Wakes and forgets every registered waker; the caller has just freed
    /// a slot.
    #[inline]
    pub(crate) fn wake_all(&self) {
        // Pairs with the fence in `register`.
        fence(Ordering::SeqCst);
        self.wake_all_local();
    }

    /// [`wake_all`](WaitList::wake_all) for a consumer on the
    /// single-threaded executor: no fence. A producer on the executor's
    /// thread registered before this call in program order; one on another
    /// thread wakes the consumer through the executor's shared queue after
    /// registering (`Channel::claim_or_wait`), so the consumer's next poll
    /// is synchronised with its registration.
    #[inline]
    pub(crate) fn wake_all_local(&self) {
        if let Some(waiting) = self.get() {
            if waiting.count.load(Ordering::Relaxed) != 0 {
                waiting.wake_registered();
            }
        }
    }
}

impl WaitingProducers {
    /// Wakes and forgets every registered waker.
    #[cold]
    fn wake_registered(&self) {
        // Swap the waiting wakers for the spare buffer rather than taking
        // them (`mem::take` would leave a capacity-less vector behind, and
        // the next `register` would allocate).
        let mut woken = {
            let mut lists = lock(&self.lists);
            self.count.store(0, Ordering::Relaxed);
            let spare = std::mem::take(&mut lists.spare);
            std::mem::replace(&mut lists.wakers, spare)
        };
        // Wake outside the lock; the emptied buffer is the next spare.
        woken.drain(..).for_each(Waker::wake);
        lock(&self.lists).spare = woken;
    }
}

impl Drop for WaitList {
    fn drop(&mut self) {
        let waiting = self.waiting.load(Ordering::Relaxed);
        if !waiting.is_null() {
            // SAFETY: a leaked `Box<WaitingProducers>` installed by
            // `get_or_allocate`; `&mut self` means nobody can reach it
            // any more.
            drop(unsafe { Box::from_raw(waiting) });
        }
    }
}
