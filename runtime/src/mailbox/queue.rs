//! The lock-free bounded queue inside a mailbox.
//!
//! A Vyukov-style array queue: a fixed ring of slots, each with a *stamp*
//! that says whose turn the slot is. Producers claim a position with one
//! compare-and-swap on `tail`, write their message, then publish it by
//! moving the slot's stamp; the consumer reads a slot once its stamp says
//! "written" and hands it back to the next lap. A slot is never read and
//! written at the same time, so no lock is needed, and the storage is
//! allocated once, so a push never allocates.
//!
//! It is specialised for the mailbox's one consumer: `head` is written by
//! the consumer alone, so popping is a load, a read and two stores, with
//! no read-modify-write.
//!
//! Positions encode `(lap, index)` as `lap * one_lap + index`, with
//! `one_lap` a power of two above the capacity, so any capacity works (not
//! only powers of two). The bit just above the index bits of `tail` marks
//! the queue closed: once it is set, every claim fails.
//!
//! A claim is published even when it carries no message (the producer's
//! constructor filtered the value out, or panicked): the consumer skips such
//! *holes*. Without that, a claimed slot that is never written would hide
//! every later message.

use std::mem::MaybeUninit;

use crate::sync::atomic::{fence, AtomicUsize, Ordering};
use crate::sync::cell::UnsafeCell;

/// Why a slot could not be claimed.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ClaimError {
    /// Every slot holds a message (or is being written).
    Full,
    /// The consumer is gone.
    Closed,
}

/// A value on its own cache line, so that producers bumping `tail` do not
/// slow down the consumer reading `head`.
#[repr(align(64))]
struct Padded<T>(T);

/// One slot of the ring.
struct Slot<T> {
    /// The position this slot is free for (`pos`), or written at
    /// (`pos + 1`).
    stamp: AtomicUsize,
    /// The message; `None` is a hole. Initialised iff the stamp says
    /// "written".
    value: UnsafeCell<MaybeUninit<Option<T>>>,
}

/// A bounded multi-producer, single-consumer queue.
pub(crate) struct ArrayQueue<T> {
    /// Next position to claim, plus the closed mark.
    tail: Padded<AtomicUsize>,
    /// Next position to read; written by the consumer only.
    head: Padded<AtomicUsize>,
    /// The ring.
    slots: Box<[Slot<T>]>,
    /// The closed mark in `tail`; also one more than the largest index.
    mark_bit: usize,
    /// The distance between the same index in two consecutive laps.
    one_lap: usize,
}

// SAFETY: the queue hands each `T` from one thread to another exactly once
// (a slot's value is written by the one producer that claimed it and read by
// the consumer after the stamp publishes it), so it is `Send`/`Sync` when
// `T` is `Send`.
unsafe impl<T: Send> Send for ArrayQueue<T> {}
// SAFETY: as above: shared access never gives two threads the same `T`.
unsafe impl<T: Send> Sync for ArrayQueue<T> {}

impl<T> ArrayQueue<T> {
    /// A queue of `capacity` slots (at least one).
    pub(crate) fn new(capacity: usize) -> Self {
        let capacity = capacity.max(1);
        let mark_bit = (capacity + 1).next_power_of_two();
        let slots = (0..capacity)
            .map(|i| Slot {
                stamp: AtomicUsize::new(i),
                value: UnsafeCell::new(MaybeUninit::uninit()),
            })
            .collect();
        ArrayQueue {
            tail: Padded(AtomicUsize::new(0)),
            head: Padded(AtomicUsize::new(0)),
            slots,
            mark_bit,
            one_lap: mark_bit * 2,
        }
    }

    /// The number of slots.
    pub(crate) fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// The position after `pos`.
    fn next(&self, pos: usize) -> usize {
        let index = pos & (self.mark_bit - 1);
        if index + 1 < self.slots.len() {
            pos + 1
        } else {
            (pos & !(self.one_lap - 1)).wrapping_add(self.one_lap)
        }
    }

    /// Claims the next free slot; the message goes in with
    /// [`Claim::write`].
    pub(crate) fn claim(&self) -> Result<Claim<'_, T>, ClaimError> {
        let mut tail = self.tail.0.load(Ordering::Relaxed);
        loop {
            if tail & self.mark_bit != 0 {
                return Err(ClaimError::Closed);
            }
            let slot = &self.slots[tail & (self.mark_bit - 1)];
            let stamp = slot.stamp.load(Ordering::Acquire);
            if stamp == tail {
                // The slot is free for this position: try to take it.
                match self.tail.0.compare_exchange_weak(
                    tail,
                    self.next(tail),
                    Ordering::SeqCst,
                    Ordering::Relaxed,
                ) {
                    Ok(_) => return Ok(Claim { slot, pos: tail }),
                    Err(current) => tail = current,
                }
            } else {
                // The slot is still in use: full, unless `tail` moved on.
                fence(Ordering::SeqCst);
                let head = self.head.0.load(Ordering::Acquire);
                if head.wrapping_add(self.one_lap) == tail {
                    return Err(ClaimError::Full);
                }
                let current = self.tail.0.load(Ordering::Relaxed);
                if current == tail {
                    // A producer of the previous lap is still writing the
                    // slot the consumer waits on: as good as full.
                    return Err(ClaimError::Full);
                }
                tail = current;
            }
        }
    }

    /// Takes the oldest message, skipping holes; `None` if none is
    /// published yet.
    ///
    /// # Safety
    ///
    /// Only one thread at a time may pop: the queue's single consumer.
    pub(crate) unsafe fn pop(&self) -> Option<T> {
        loop {
            let head = self.head.0.load(Ordering::Relaxed);
            let slot = &self.slots[head & (self.mark_bit - 1)];
            if slot.stamp.load(Ordering::Acquire) != head.wrapping_add(1) {
                return None;
            }
            // SAFETY: the stamp says the slot was written for `head` (the
            // Acquire load synchronises with the producer's Release store),
            // and as the only consumer we read it once before handing the
            // slot back below.
            let value = slot.value.with(|p| unsafe { (*p).assume_init_read() });
            slot.stamp
                .store(head.wrapping_add(self.one_lap), Ordering::Release);
            self.head.0.store(self.next(head), Ordering::Release);
            if value.is_some() {
                return value;
            }
        }
    }

    /// Marks the queue closed: every later claim fails. True if it was
    /// open.
    pub(crate) fn close(&self) -> bool {
        self.tail.0.fetch_or(self.mark_bit, Ordering::SeqCst) & self.mark_bit == 0
    }

    /// Drops every message of a closed queue, waiting for producers that
    /// claimed a slot before the close to publish it.
    ///
    /// # Safety
    ///
    /// As for [`pop`](ArrayQueue::pop): only the consumer may call this.
    pub(crate) unsafe fn drain_closed(&self) {
        let tail = self.tail.0.load(Ordering::SeqCst) & !self.mark_bit;
        loop {
            // SAFETY: forwarded from the caller: we are the only consumer.
            while unsafe { self.pop() }.is_some() {}
            if self.head.0.load(Ordering::Relaxed) == tail {
                return;
            }
            // A producer claimed a slot before the close and is writing it.
            crate::sync::thread::yield_now();
        }
    }

    /// Number of claimed slots not yet popped (holes included).
    pub(crate) fn len(&self) -> usize {
        loop {
            let tail = self.tail.0.load(Ordering::SeqCst) & !self.mark_bit;
            let head = self.head.0.load(Ordering::SeqCst);
            if self.tail.0.load(Ordering::SeqCst) & !self.mark_bit != tail {
                continue;
            }
            let hix = head & (self.mark_bit - 1);
            let tix = tail & (self.mark_bit - 1);
            return if hix < tix {
                tix - hix
            } else if hix > tix {
                self.slots.len() - hix + tix
            } else if tail == head {
                0
            } else {
                self.slots.len()
            };
        }
    }
}

impl<T> Drop for ArrayQueue<T> {
    fn drop(&mut self) {
        // `&mut self`: no producer or consumer is left; drop what is
        // published.
        let tail = self.tail.0.load(Ordering::Relaxed) & !self.mark_bit;
        let mut pos = self.head.0.load(Ordering::Relaxed);
        while pos != tail {
            let slot = &self.slots[pos & (self.mark_bit - 1)];
            if slot.stamp.load(Ordering::Relaxed) == pos.wrapping_add(1) {
                // SAFETY: the stamp says the slot is initialised, and it is
                // dropped once: we move past it right after.
                slot.value.with_mut(|p| unsafe { (*p).assume_init_drop() });
            }
            pos = self.next(pos);
        }
    }
}

/// A claimed slot, to be filled exactly once.
///
/// Dropping it unfilled (the producer's constructor panicked) publishes a
/// hole, so the consumer is never stuck behind it.
pub(crate) struct Claim<'a, T> {
    /// The claimed slot.
    slot: &'a Slot<T>,
    /// The position it was claimed for.
    pos: usize,
}

impl<T> Claim<'_, T> {
    /// Publishes `value` (`None`: a hole that the consumer skips).
    pub(crate) fn write(self, value: Option<T>) {
        self.publish(value);
        std::mem::forget(self);
    }

    /// Writes the slot and moves its stamp to "written".
    fn publish(&self, value: Option<T>) {
        // SAFETY: this claim won the compare-and-swap for `pos`, so no other
        // producer writes the slot, and the consumer does not read it until
        // the stamp below says it is written.
        self.slot.value.with_mut(|p| unsafe { (*p).write(value) });
        self.slot
            .stamp
            .store(self.pos.wrapping_add(1), Ordering::Release);
    }
}

impl<T> Drop for Claim<'_, T> {
    fn drop(&mut self) {
        self.publish(None);
    }
}

#[cfg(all(test, causim_loom))]
mod loom_tests {
    use super::*;
    use loom::sync::atomic::AtomicUsize as LoomCounter;
    use loom::sync::Arc;
    use loom::thread;

    /// A model run with a bound on preemptions, to keep it tractable.
    fn check(f: impl Fn() + Sync + Send + 'static) {
        crate::sync::loom_check(3, f);
    }

    /// Pushes `value`, yielding while the queue is full.
    fn push(queue: &ArrayQueue<(usize, usize)>, value: (usize, usize)) {
        loop {
            match queue.claim() {
                Ok(claim) => return claim.write(Some(value)),
                Err(ClaimError::Full) => thread::yield_now(),
                Err(ClaimError::Closed) => unreachable!("never closed here"),
            }
        }
    }

    /// Pops `count` messages, yielding while none is published.
    fn pop_all(queue: &ArrayQueue<(usize, usize)>, count: usize) -> Vec<(usize, usize)> {
        let mut received = Vec::new();
        while received.len() < count {
            // SAFETY: the caller's thread is the only consumer.
            match unsafe { queue.pop() } {
                Some(message) => received.push(message),
                None => thread::yield_now(),
            }
        }
        received
    }

    #[test]
    fn loom_queue_two_producers_contend_for_one_slot() {
        check(|| {
            let queue = Arc::new(ArrayQueue::new(1));
            let producers: Vec<_> = (0..2)
                .map(|p| {
                    let queue = queue.clone();
                    thread::spawn(move || match queue.claim() {
                        Ok(claim) => {
                            claim.write(Some((p, 0)));
                            true
                        }
                        Err(error) => {
                            assert_eq!(error, ClaimError::Full);
                            false
                        }
                    })
                })
                .collect();
            // Meanwhile, take whatever gets published first.
            // SAFETY: this thread is the only consumer.
            let early = unsafe { queue.pop() };
            let sent = producers
                .into_iter()
                .map(|p| p.join().unwrap())
                .filter(|&ok| ok)
                .count();
            // SAFETY: as above.
            let late: Vec<_> = std::iter::from_fn(|| unsafe { queue.pop() }).collect();
            let received = usize::from(early.is_some()) + late.len();
            assert!(sent >= 1, "an empty one-slot queue refused both");
            assert_eq!(received, sent, "a claimed message was lost");
        });
    }

    #[test]
    fn loom_queue_keeps_order_across_laps() {
        check(|| {
            let queue = Arc::new(ArrayQueue::new(2));
            let producer = {
                let queue = queue.clone();
                thread::spawn(move || (0..3).for_each(|i| push(&queue, (0, i))))
            };
            assert_eq!(pop_all(&queue, 3), [(0, 0), (0, 1), (0, 2)]);
            producer.join().unwrap();
        });
    }

    #[test]
    fn loom_queue_skips_holes() {
        check(|| {
            let queue = Arc::new(ArrayQueue::new(2));
            let producer = {
                let queue = queue.clone();
                thread::spawn(move || {
                    let claim = || loop {
                        match queue.claim() {
                            Ok(claim) => return claim,
                            Err(_) => thread::yield_now(),
                        }
                    };
                    claim().write(None);
                    drop(claim());
                    claim().write(Some(7));
                })
            };
            loop {
                // SAFETY: this thread is the only consumer.
                match unsafe { queue.pop() } {
                    Some(value) => {
                        assert_eq!(value, 7);
                        break;
                    }
                    None => thread::yield_now(),
                }
            }
            producer.join().unwrap();
        });
    }

    /// Counts its drops.
    struct Tracked(Arc<LoomCounter>);

    impl Drop for Tracked {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    #[test]
    fn loom_queue_close_drops_each_message_once() {
        check(|| {
            let queue = Arc::new(ArrayQueue::new(2));
            let drops = Arc::new(LoomCounter::new(0));
            let producer = {
                let (queue, drops) = (queue.clone(), drops.clone());
                thread::spawn(move || {
                    for _ in 0..2 {
                        match queue.claim() {
                            Ok(claim) => claim.write(Some(Tracked(drops.clone()))),
                            Err(ClaimError::Closed) => {
                                drop(Tracked(drops.clone()));
                            }
                            Err(ClaimError::Full) => unreachable!("two slots"),
                        }
                    }
                })
            };
            assert!(queue.close());
            // SAFETY: this thread is the only consumer.
            unsafe { queue.drain_closed() };
            producer.join().unwrap();
            assert_eq!(queue.len(), 0);
            assert!(queue.claim().is_err());
            drop(queue);
            assert_eq!(drops.load(Ordering::Relaxed), 2);
        });
    }
}
