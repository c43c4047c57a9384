//! Which bench a mailbox belongs to, and which bench this thread runs.
//!
//! A mailbox is added to one bench, but its [`Address`](crate::Address)
//! is a plain handle that can be copied into the wiring of another bench.
//! A message sent through it would then be queued in the first bench and
//! processed there, at that bench's time, whenever that bench next runs:
//! silently wrong. So every bench gets a [`BenchId`] when it is created,
//! the mailbox's binding records it (`Channel::bind`), and the code that
//! runs a bench's models marks the thread with it: the simulation's calls
//! on the calling thread (a [`BenchGuard`], restored when the call returns,
//! so that a bench run from inside a model of another restores the outer
//! one), the workers of the multi-threaded executor once at their start.
//!
//! The comparison is made where it costs nothing on the path of a
//! delivered message: a sending port checks its connections once, on its
//! first send in a bench, and a bench call checks its event before firing
//! it (see "Errors" in `docs/architecture.md`).
//!
//! It sits on the crate's ground floor, importing nothing of the crate: the
//! mailbox records the identity, the ports compare it, the executors and
//! the simulation set it.

use std::cell::Cell;
use std::marker::PhantomData;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU32, Ordering};

/// The identity of one bench.
///
/// 32 bits: every mailbox's channel stores it in padding it had anyway
/// (the channel of an idle model does not grow). Identities are unique among the first 2^32 - 1 benches of a
/// process; after that they wrap, and two benches far apart in time may
/// share one, which only lets a message through to a bench that would
/// otherwise be refused, and shows a connection to the other bench's
/// model at the same place as one to this bench's in its topology (and
/// its connections' checksums).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct BenchId(NonZeroU32);

/// The last identity handed out.
static LAST: AtomicU32 = AtomicU32::new(0);

thread_local! {
    /// The bench whose models this thread runs now (0: none).
    static CURRENT: Cell<u32> = const { Cell::new(0) };
}

impl BenchId {
    /// A new identity (see the type's doc for when one repeats).
    pub(crate) fn new() -> Self {
        // Relaxed: only uniqueness matters. Skips 0 when it wraps.
        loop {
            let id = LAST.fetch_add(1, Ordering::Relaxed).wrapping_add(1);
            if let Some(id) = NonZeroU32::new(id) {
                return BenchId(id);
            }
        }
    }
}

impl BenchId {
    /// The identity as stored in a mailbox's channel (never 0).
    pub(crate) fn to_raw(self) -> u32 {
        self.0.get()
    }

    /// The identity stored as `raw` (`None` for 0: no bench).
    pub(crate) fn from_raw(raw: u32) -> Option<Self> {
        NonZeroU32::new(raw).map(BenchId)
    }
}

/// The bench whose models this thread runs now, if any.
pub(crate) fn current() -> Option<BenchId> {
    BenchId::from_raw(CURRENT.with(Cell::get))
}

/// Marks this thread as running the models of `bench` for good: for the
/// dedicated threads of one executor.
pub(crate) fn set_for_thread(bench: BenchId) {
    CURRENT.with(|c| c.set(bench.0.get()));
}

/// This thread runs the models of one bench until dropped; the previous
/// mark is then restored.
#[derive(Debug)]
pub(crate) struct BenchGuard {
    /// The mark before this guard.
    previous: u32,
    /// Not `Send`: it must be dropped on the thread that set it.
    thread: PhantomData<*const ()>,
}

impl BenchGuard {
    /// Marks this thread as running the models of `bench`.
    pub(crate) fn enter(bench: BenchId) -> Self {
        BenchGuard {
            previous: CURRENT.with(|c| c.replace(bench.0.get())),
            thread: PhantomData,
        }
    }
}

impl Drop for BenchGuard {
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(self.previous));
    }
}

#[cfg(all(test, not(causim_loom)))]
mod tests {
    use super::*;

    #[test]
    fn identities_are_unique_and_guards_nest() {
        let (a, b) = (BenchId::new(), BenchId::new());
        assert_ne!(a, b);
        assert_eq!(current(), None);
        let outer = BenchGuard::enter(a);
        {
            let _inner = BenchGuard::enter(b);
            assert_eq!(current(), Some(b));
        }
        assert_eq!(current(), Some(a));
        drop(outer);
        assert_eq!(current(), None);
    }
}
