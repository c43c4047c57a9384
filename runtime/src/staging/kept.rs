//! Connections a stage keeps alive, so that a staged send borrows its
//! connection instead of counting a reference to it.
//!
//! A staged delivery must reach its connection when the round delivers
//! it, after the sender's poll has ended. Cloning the connection's `Arc`
//! into each delivery did that at the price of two locked
//! read-modify-writes per message (the clone, and the drop after the
//! delivery): a sixth of an ordered hop (see `docs/benchmarks.md`,
//! "Deterministic message order"). A bare pointer is not enough, because
//! the sender's output owns the connection and a model may replace its
//! output while its sends wait for the round.
//!
//! So each stage holds a [`Keeper`]: the connections its senders have
//! staged through, each registered once (its staged connection remembers
//! the keeper's id) and kept until the stage goes. A delivery holds a
//! [`Kept`] pointer, made only for the stage that keeps the connection;
//! the stage's bench runs its deliveries while it holds the stage, and a
//! delivery dropped unrun never reads its pointer.
//!
//! The ids are drawn from one counter for the process, never reused: a
//! connection whose output moved to a model of another bench (through a
//! message of the user's own) is registered again there, never taken for
//! kept by a stage that happens to sit where a dropped one was.

use std::ptr::NonNull;

use crate::sync::atomic::{AtomicU64, Ordering};
use crate::sync::{lock, Mutex};

/// The next keeper's id (0 is no keeper).
static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// Something kept alive, of any type.
trait Anything: Send + Sync {}

impl<T: Send + Sync> Anything for T {}

/// The connections one stage keeps alive.
pub(crate) struct Keeper {
    /// This keeper's id, unique in the process.
    id: u64,
    /// What it keeps (each a connection's `Arc`), until it is dropped.
    kept: Mutex<Vec<Box<dyn Anything>>>,
}

impl Keeper {
    /// A keeper with a fresh id, keeping nothing.
    pub(crate) fn new() -> Self {
        Keeper {
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            kept: Mutex::new(Vec::new()),
        }
    }

    /// This keeper's id (tests).
    #[cfg(test)]
    fn id(&self) -> u64 {
        self.id
    }

    /// A pointer to the connection of `connection` (a staged connection's
    /// own `Arc`), for a delivery of this keeper's stage: keeps the
    /// connection first unless `kept_by` says this keeper does already,
    /// and notes that it does.
    #[inline(always)]
    pub(crate) fn borrow<C>(&self, connection: &std::sync::Arc<C>, kept_by: &AtomicU64) -> Kept<C>
    where
        C: ?Sized + Send + Sync + 'static,
    {
        if kept_by.load(Ordering::Relaxed) != self.id {
            self.keep(connection, kept_by);
        }
        // From the `Arc`'s own pointer, which may reach the whole
        // allocation, not from a reference to its contents.
        let pointer = std::sync::Arc::as_ptr(connection).cast_mut();
        // SAFETY: the pointer of a live `Arc` is never null.
        Kept(unsafe { NonNull::new_unchecked(pointer) })
    }

    /// Keeps `connection` until this keeper is dropped (cold: once per
    /// connection and stage).
    #[cold]
    #[inline(never)]
    fn keep<C>(&self, connection: &std::sync::Arc<C>, kept_by: &AtomicU64)
    where
        C: ?Sized + Send + Sync + 'static,
    {
        lock(&self.kept).push(Box::new(connection.clone()));
        kept_by.store(self.id, Ordering::Relaxed);
    }

    /// How many connections it keeps (tests).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        lock(&self.kept).len()
    }
}

/// A connection borrowed by a staged delivery from the stage that keeps
/// it alive (see the module docs).
pub(crate) struct Kept<C: ?Sized>(NonNull<C>);

// SAFETY: a `Kept` is a shared reference to a `Sync` connection, kept
// alive by its stage (see `get`); moving it to another thread (a delivery
// handed over by a worker) moves only that reference.
unsafe impl<C: ?Sized + Sync> Send for Kept<C> {}

impl<C: ?Sized> Kept<C> {
    /// The connection.
    ///
    /// # Safety
    ///
    /// The stage whose keeper made this `Kept` still exists: the caller is
    /// the delivery the keeper's stage runs (a `Kept` is made only by
    /// [`Keeper::borrow`] for a delivery staged on the keeper's own stage,
    /// which its bench runs while it holds the stage).
    #[inline(always)]
    pub(crate) unsafe fn get(&self) -> &C {
        // SAFETY: the keeper holds an `Arc` of the connection (registered
        // by `borrow` before this pointer was made, or earlier), and per
        // the contract the keeper, a field of the stage, still exists.
        unsafe { self.0.as_ref() }
    }
}

#[cfg(all(test, not(causim_loom)))]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_connection_is_kept_once_per_keeper_and_lives_as_long() {
        let connection = Arc::new(7u32);
        let kept_by = AtomicU64::new(0);
        let (first, second) = (Keeper::new(), Keeper::new());
        assert_ne!(first.id(), second.id());
        let borrowed = first.borrow(&connection, &kept_by);
        let _again = first.borrow(&connection, &kept_by);
        assert_eq!(first.len(), 1, "kept once");
        assert_eq!(kept_by.load(Ordering::Relaxed), first.id());
        // Another keeper (the output moved to another bench) keeps it too.
        let _there = second.borrow(&connection, &kept_by);
        assert_eq!((first.len(), second.len()), (1, 1));
        assert_eq!(kept_by.load(Ordering::Relaxed), second.id());
        // The output lets go: the keepers hold the connection.
        let weak = Arc::downgrade(&connection);
        drop(connection);
        // SAFETY: `first`, whose keeper made `borrowed`, still exists.
        assert_eq!(unsafe { *borrowed.get() }, 7);
        drop(first);
        assert!(weak.upgrade().is_some(), "the second keeper still holds it");
        drop(second);
        assert!(weak.upgrade().is_none(), "freed with the last keeper");
    }
}
