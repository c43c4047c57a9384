//! Loom models of the queue's claim, publish and pop protocol.

use super::*;
use loom::sync::atomic::AtomicUsize as LoomCounter;
use loom::sync::Arc;
use loom::thread;

/// An opened queue of `capacity` slots.
fn opened<T>(capacity: usize) -> ArrayQueue<T> {
    let queue = ArrayQueue::new(capacity);
    queue.open();
    queue
}

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
            Err(error) => unreachable!("opened, never closed here: {error:?}"),
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
        let queue = Arc::new(opened(1));
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
        let queue = Arc::new(opened(2));
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
        let queue = Arc::new(opened(2));
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

#[test]
fn loom_queue_open_races_with_a_producer() {
    check(|| {
        // Unopened, as a mailbox's queue starts.
        let queue = Arc::new(ArrayQueue::new(1));
        let producer = {
            let queue = queue.clone();
            thread::spawn(move || match queue.claim() {
                Ok(claim) => {
                    claim.write(Some((0, 7)));
                    true
                }
                Err(error) => {
                    assert_eq!(error, ClaimError::Unopened);
                    false
                }
            })
        };
        queue.open();
        let sent = producer.join().unwrap();
        // SAFETY: this thread is the only consumer.
        let received = unsafe { queue.pop() };
        assert_eq!(received.is_some(), sent, "a claim was half-refused");
        // Once opened, the queue stays open.
        queue.claim().unwrap().write(Some((0, 8)));
        // SAFETY: as above.
        assert_eq!(unsafe { queue.pop() }, Some((0, 8)));
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
        let queue = Arc::new(opened(2));
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
                        Err(error) => unreachable!("two slots, opened: {error:?}"),
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
