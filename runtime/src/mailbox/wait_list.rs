//! The producers waiting for room in a full mailbox.
//!
//! Waiting is the rare path (a mailbox is full only under bursts), so the
//! wakers sit in a plain locked list; the consumer's hot path only reads an
//! atomic count, after a fence that pairs with the one a producer issues
//! between registering and trying again. That pairing (the store-buffer,
//! or Dekker, pattern) guarantees that either the producer's retry sees the
//! slot the consumer freed, or the consumer sees the producer's waker. On
//! the single-threaded executor the consumer skips its fence
//! ([`WaitList::wake_all_local`]): a producer on another thread then wakes
//! the consumer after registering, which orders the two instead.
//!
//! The list itself is allocated by the first producer that waits, so a
//! mailbox that never fills up holds only the count and an empty lock.
//!
//! The consumer wakes every waiting producer when it frees a slot: a woken
//! producer that no longer needs the slot (its future was dropped) can then
//! never strand another one.
//!
//! Waiting must not allocate either (a burst into a small mailbox waits
//! once per freed slot): the woken wakers are swapped out for a spare,
//! empty buffer that keeps its capacity, and the drained buffer becomes the
//! next spare. After the first few waits, registering never grows a vector.

use std::task::Waker;

use crate::sync::atomic::{fence, AtomicUsize, Ordering};
use crate::sync::{lock, Mutex};

/// Wakers of producers waiting for a free slot.
#[derive(Debug)]
pub(crate) struct WaitList {
    /// Number of registered wakers, readable without the lock.
    count: AtomicUsize,
    /// The wakers, allocated by the first producer that waits: most
    /// mailboxes never fill up, and this keeps an idle mailbox small.
    lists: Mutex<Option<Box<Lists>>>,
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

impl WaitList {
    /// An empty list.
    pub(crate) fn new() -> Self {
        WaitList {
            count: AtomicUsize::new(0),
            lists: Mutex::new(None),
        }
    }

    /// Adds `waker` (once per task); the caller must try again afterwards.
    pub(crate) fn register(&self, waker: &Waker) {
        {
            let mut lists = lock(&self.lists);
            let wakers = &mut lists.get_or_insert_with(Box::default).wakers;
            if !wakers.iter().any(|w| w.will_wake(waker)) {
                wakers.push(waker.clone());
            }
            self.count.store(wakers.len(), Ordering::Relaxed);
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
        if self.count.load(Ordering::Relaxed) != 0 {
            self.wake_registered();
        }
    }

    /// [`wake_all`](WaitList::wake_all) for a consumer on the
    /// single-threaded executor: no fence. A producer on the executor's
    /// thread registered before this call in program order; one on another
    /// thread wakes the consumer through the executor's shared queue after
    /// registering (`Channel::claim_or_wait`), so the consumer's next poll
    /// is synchronised with its registration.
    #[inline]
    pub(crate) fn wake_all_local(&self) {
        if self.count.load(Ordering::Relaxed) != 0 {
            self.wake_registered();
        }
    }

    /// Wakes and forgets every registered waker.
    #[cold]
    fn wake_registered(&self) {
        // Swap the waiting wakers for the spare buffer rather than taking
        // them (`mem::take` would leave a capacity-less vector behind, and
        // the next `register` would allocate).
        let mut woken = {
            let mut guard = lock(&self.lists);
            let Some(lists) = guard.as_mut() else {
                return;
            };
            self.count.store(0, Ordering::Relaxed);
            let spare = std::mem::take(&mut lists.spare);
            std::mem::replace(&mut lists.wakers, spare)
        };
        // Wake outside the lock; the emptied buffer is the next spare.
        woken.drain(..).for_each(Waker::wake);
        if let Some(lists) = lock(&self.lists).as_mut() {
            lists.spare = woken;
        }
    }
}
