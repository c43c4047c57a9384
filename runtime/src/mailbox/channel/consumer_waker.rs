//! The consumer's waker on the multi-threaded executor: registered by the
//! consumer when it waits on its empty queue (or for it, by the executor
//! that spawns a restored bench's task without polling it), woken by the
//! producer that finds it waiting.
//!
//! **Who wakes it.** The channel's `parked` flag says so. The consumer
//! registers its waker, then sets the flag with a swap, then looks at its
//! queue once more; a producer, once its message is in, clears the flag
//! with a swap and wakes the waker only if the flag was set. The two swaps
//! are read-modify-writes of one word, so one of them comes first: if the
//! producer's, the consumer's swap reads what it wrote and its last look
//! sees the message; if the consumer's, the producer finds the flag set and
//! wakes it. Only the producer whose swap found the flag set wakes the
//! waker, after an acquire that sees the registration made before the
//! consumer's swap. (Reading a waker is safe at any time: see below.)
//!
//! **Never freed while the channel lives.** A model's task is always polled
//! with the same waker, so the first one registered is almost always the
//! only one: it is kept inline, written once, before any producer may read
//! it. A consumer polled with a waker that wakes another task (a test's
//! `block_on` per receive, say) registers it in a node of its own, and the
//! one before stays in a list until the channel is dropped: a producer may
//! still be reading it, and nothing tells the consumer when it is done.
//! That costs a few bytes per change of waker, which no executor makes.
//!
//! **Why not `diatomic-waker`**, which the channel used before: it allows
//! the waker to change at every registration, and pays for it with a
//! notifier lock — two compare-and-swaps at every push to a registered
//! consumer and one otherwise, a read-modify-write at every registration,
//! and 40 bytes per channel. Here a push pays one swap, a
//! registration an equality test of two words, and the state is 24 bytes
//! (see `docs/benchmarks.md`, "The consumer's waker without a notifier
//! lock").

use std::ptr;
use std::task::Waker;

use crate::sync::atomic::{AtomicPtr, Ordering};
use crate::sync::cell::UnsafeCell;

/// A waker registered after the first one, and the one before it.
struct Node {
    /// The waker.
    waker: Waker,
    /// The waker registered before ([`inline`] for the first one).
    previous: *mut Node,
}

/// A static whose address marks the inline first waker.
static INLINE_MARK: u8 = 0;

/// The value of [`ConsumerWaker::current`] that stands for the inline
/// first waker: the address of a static, which no node can have.
fn inline() -> *mut Node {
    ptr::addr_of!(INLINE_MARK).cast_mut().cast()
}

/// The waker a producer wakes the channel's consumer with.
pub(crate) struct ConsumerWaker {
    /// The current waker: null before the first registration,
    /// [`inline`] for `first`, else a node from `Box::into_raw`, owned.
    current: AtomicPtr<Node>,
    /// The first waker registered; written once, before `current` says
    /// [`inline`].
    first: UnsafeCell<Option<Waker>>,
}

// SAFETY: `first` is written once, by the consumer, before `current`
// publishes it (release), and only read after that by threads that
// acquired `current`; the nodes are written before they are published the
// same way and never written after. Everything else is atomic.
unsafe impl Sync for ConsumerWaker {}

impl ConsumerWaker {
    /// No waker registered.
    pub(crate) fn new() -> Self {
        ConsumerWaker {
            current: AtomicPtr::new(ptr::null_mut()),
            first: UnsafeCell::new(None),
        }
    }

    /// Makes `waker` the one producers wake, unless the current one wakes
    /// the same task.
    ///
    /// # Safety
    ///
    /// Only the channel's single consumer may call this, and each call
    /// happens-before the next (as an executor's hand-over of the task
    /// between polls provides): `current` is read relaxed.
    #[inline]
    pub(crate) unsafe fn register(&self, waker: &Waker) {
        // Relaxed: only the consumer writes `current`.
        let current = self.current.load(Ordering::Relaxed);
        if current.is_null() {
            // SAFETY: nobody reads `first` before `current` publishes it
            // (below), and only the consumer writes it, this once.
            self.first
                .with_mut(|first| unsafe { *first = Some(waker.clone()) });
            self.current.store(inline(), Ordering::Release);
            return;
        }
        // SAFETY: `current` is not null, and we wrote it.
        if !unsafe { self.wakes_same(current, waker) } {
            self.replace(current, waker);
        }
    }

    /// True if the waker at `current` wakes the same task as `waker`.
    ///
    /// # Safety
    ///
    /// `current` is a non-null value of `self.current`.
    #[inline]
    unsafe fn wakes_same(&self, current: *mut Node, waker: &Waker) -> bool {
        if current == inline() {
            return self.first.with(|first| {
                // SAFETY: published, so written and never written again.
                unsafe { &*first }
                    .as_ref()
                    .is_some_and(|first| first.will_wake(waker))
            });
        }
        // SAFETY: a node stays allocated until `self` is dropped.
        unsafe { (*current).waker.will_wake(waker) }
    }

    /// Registers `waker` in a node of its own, keeping `current` (a
    /// producer may be about to wake it).
    ///
    /// The list grows by one node per change of waker, without bound: no
    /// executor changes it (a model task's waker is made from its task and
    /// one static table of functions, and the wrappers around a model's
    /// poll pass its context through); a test that receives through a
    /// `block_on` per message makes one node per message.
    #[cold]
    #[inline(never)]
    fn replace(&self, current: *mut Node, waker: &Waker) {
        let node = Box::into_raw(Box::new(Node {
            waker: waker.clone(),
            previous: current,
        }));
        // Release: whoever acquires the node sees it written.
        self.current.store(node, Ordering::Release);
    }

    /// Wakes the registered waker, if any. Called by the producer whose
    /// swap of `parked` found it set (see the module docs).
    #[inline]
    pub(crate) fn wake(&self) {
        // Acquire: pairs with the release that published the waker.
        let current = self.current.load(Ordering::Acquire);
        if current.is_null() {
            return;
        }
        if current == inline() {
            self.first.with(|first| {
                // SAFETY: published (acquired above), so written once and
                // never written again while `self` lives.
                if let Some(waker) = unsafe { &*first } {
                    waker.wake_by_ref();
                }
            });
            return;
        }
        // SAFETY: a published node stays allocated, unchanged, until
        // `self` is dropped.
        unsafe { (*current).waker.wake_by_ref() };
    }
}

impl Drop for ConsumerWaker {
    /// Frees the nodes; the inline waker goes with `first`.
    fn drop(&mut self) {
        // A load, not `get_mut` (which loom's atomics lack); `&mut self`
        // orders it after every other access.
        let mut node = self.current.load(Ordering::Relaxed);
        while !node.is_null() && node != inline() {
            // SAFETY: every node came from `Box::into_raw` in `replace`
            // and is owned by this list, which `&mut self` now owns alone.
            let owned = unsafe { Box::from_raw(node) };
            node = owned.previous;
        }
    }
}

impl Default for ConsumerWaker {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(all(test, not(causim_loom)))]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::sync::Arc;
    use std::task::Wake;

    /// A waker that counts its wake-ups.
    #[derive(Default)]
    struct Counter(AtomicUsize);

    impl Wake for Counter {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// A counter and a waker of it.
    fn counter() -> (Arc<Counter>, Waker) {
        let counter = Arc::new(Counter::default());
        (counter.clone(), Waker::from(counter))
    }

    /// Wake-ups counted so far.
    fn count(counter: &Counter) -> usize {
        counter.0.load(std::sync::atomic::Ordering::Relaxed)
    }

    #[test]
    fn a_wake_before_any_registration_is_lost_to_no_later_waker() {
        let consumer = ConsumerWaker::new();
        consumer.wake();
        let (counter, waker) = counter();
        // SAFETY: one consumer, this thread.
        unsafe { consumer.register(&waker) };
        assert_eq!(count(&counter), 0, "nothing held over");
        consumer.wake();
        assert_eq!(count(&counter), 1);
    }

    #[test]
    fn the_same_task_registered_again_keeps_its_first_waker() {
        let (counter, waker) = counter();
        let consumer = ConsumerWaker::new();
        // SAFETY: one consumer, this thread.
        unsafe { consumer.register(&waker) };
        // SAFETY: one consumer, this thread.
        unsafe { consumer.register(&waker.clone()) };
        assert_eq!(consumer.current.load(Ordering::Relaxed), inline());
        consumer.wake();
        assert_eq!(count(&counter), 1);
        // The waker, a clone kept inline, and the counter's own.
        drop(waker);
        assert_eq!(Arc::strong_count(&counter), 2);
        drop(consumer);
        assert_eq!(Arc::strong_count(&counter), 1, "freed with the channel");
    }

    #[test]
    fn another_task_replaces_the_waker_and_every_one_is_freed_at_the_end() {
        let (first, first_waker) = counter();
        let (second, second_waker) = counter();
        let (third, third_waker) = counter();
        let consumer = ConsumerWaker::new();
        // SAFETY: one consumer, this thread.
        unsafe { consumer.register(&first_waker) };
        // SAFETY: one consumer, this thread.
        unsafe { consumer.register(&second_waker) };
        consumer.wake();
        // SAFETY: one consumer, this thread.
        unsafe { consumer.register(&third_waker) };
        consumer.wake();
        consumer.wake();
        assert_eq!([count(&first), count(&second), count(&third)], [0, 1, 2]);
        // Replaced wakers are kept (a producer may still read them).
        assert_eq!(Arc::strong_count(&first), 3);
        assert_eq!(Arc::strong_count(&second), 3);
        drop(consumer);
        for counter in [&first, &second, &third] {
            assert_eq!(Arc::strong_count(counter), 2, "the test's two");
        }
    }
}
