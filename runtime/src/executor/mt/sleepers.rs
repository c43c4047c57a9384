//! Which workers are parked, so that new work wakes one of them.
//!
//! Parking must never lose a wake-up: a worker that finds no work and goes
//! to sleep just as another thread queues a task would otherwise sleep with
//! work pending. The protocol is the store-buffer (Dekker) pattern:
//!
//! - a worker going to sleep first *registers* here (a store, then a
//!   `SeqCst` fence) and only then looks at every queue one last time;
//! - a thread that queued a task issues a `SeqCst` fence, then reads the
//!   number of registered sleepers.
//!
//! Of the two fences one comes first, so either the sleeper's last look
//! sees the task or the queuing thread sees the sleeper and unparks it.
//! Unparking is `std::thread`'s token, so an unpark that lands before the
//! park is not lost either. The list itself is behind a lock: it is only
//! touched on the slow path, when a thread actually sleeps or wakes one.

use crate::sync::atomic::{fence, AtomicUsize, Ordering};
use crate::sync::{lock, Mutex};

/// The registered sleepers.
#[derive(Debug)]
pub(crate) struct Sleepers {
    /// Length of `list`, readable without the lock.
    count: AtomicUsize,
    /// Indices of the registered workers, latest last.
    list: Mutex<Vec<usize>>,
}

impl Sleepers {
    /// No sleeper.
    pub(crate) fn new() -> Self {
        Sleepers {
            count: AtomicUsize::new(0),
            list: Mutex::new(Vec::new()),
        }
    }

    /// Registers worker `index` as about to sleep; the caller must look for
    /// work once more before parking.
    pub(crate) fn register(&self, index: usize) {
        {
            let mut list = lock(&self.list);
            if !list.contains(&index) {
                list.push(index);
            }
            self.count.store(list.len(), Ordering::Relaxed);
        }
        fence(Ordering::SeqCst);
    }

    /// Removes worker `index` (if a waker did not already).
    pub(crate) fn unregister(&self, index: usize) {
        let mut list = lock(&self.list);
        list.retain(|&i| i != index);
        self.count.store(list.len(), Ordering::Relaxed);
    }

    /// After queuing work: takes one registered sleeper to unpark, if any.
    pub(crate) fn pop(&self) -> Option<usize> {
        fence(Ordering::SeqCst);
        self.pop_seen()
    }

    /// After a worker queued work for others: takes one registered sleeper
    /// other than worker `worker` to unpark, if any. A worker takes work
    /// in its last look before it sleeps, registered already (see
    /// `worker::park`): it must not take its own wake-up, which would
    /// leave the others asleep and its next park a spurious one.
    pub(crate) fn pop_other(&self, worker: usize) -> Option<usize> {
        fence(Ordering::SeqCst);
        self.pop_seen_except(worker)
    }

    /// Takes one registered sleeper to unpark if this thread sees one
    /// registered, without the fence that makes [`pop`](Sleepers::pop)
    /// see every registration that came before (a hint only).
    pub(crate) fn pop_seen(&self) -> Option<usize> {
        self.pop_seen_except(usize::MAX)
    }

    /// The latest registered sleeper other than worker `worker`, taken
    /// from the list if this thread sees one registered.
    fn pop_seen_except(&self, worker: usize) -> Option<usize> {
        if self.count.load(Ordering::Relaxed) == 0 {
            return None;
        }
        let mut list = lock(&self.list);
        let at = list.iter().rposition(|&index| index != worker)?;
        let index = list.remove(at);
        self.count.store(list.len(), Ordering::Relaxed);
        Some(index)
    }
}

#[cfg(all(test, not(causim_loom)))]
mod tests {
    use super::*;

    #[test]
    fn a_worker_never_takes_its_own_wake_up() {
        let sleepers = Sleepers::new();
        sleepers.register(2);
        sleepers.register(1);
        assert_eq!(sleepers.pop_other(1), Some(2), "the other sleeper");
        assert_eq!(sleepers.pop_other(1), None, "only itself is left");
        assert_eq!(sleepers.pop(), Some(1), "and still registered");
        assert_eq!(sleepers.pop_other(0), None);
    }
}
