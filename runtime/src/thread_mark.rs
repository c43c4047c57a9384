//! Marking the thread that drives a structure, for lock-free access.
//!
//! Two structures of a single-threaded simulation are touched without a
//! lock, but only by the thread that runs the simulation: the executor's
//! local run queue and the schedule's staging buffer. Each has a
//! thread-local slot holding the address of the structure this thread
//! drives now (0 for none). A [`ThreadMark`] sets the slot and restores the
//! previous value when dropped, on the same thread (it is not `Send`), so
//! nested simulations on one thread restore the outer one; [`is_marked`]
//! tells code on any thread whether it may take the lock-free path.
//!
//! What each structure's `unsafe impl Sync` relies on — that only its
//! owner sets the mark, and only inside its own `&mut self` methods — is
//! argued where that structure is defined.

use std::cell::Cell;
use std::marker::PhantomData;
use std::thread::LocalKey;

/// A thread-local slot holding the address of the driven structure, or 0.
pub(crate) type MarkSlot = LocalKey<Cell<usize>>;

/// A thread-local slot of either kind: `std`'s, or loom's for a structure
/// whose cross-thread use a loom model checks (loom runs its threads on
/// one OS thread, so a `std` thread-local would be shared between them).
pub(crate) trait Slot: 'static {
    /// Puts `key` in this thread's slot and returns what it held.
    fn replace(&'static self, key: usize) -> usize;
    /// What this thread's slot holds.
    fn get(&'static self) -> usize;
}

impl Slot for MarkSlot {
    #[inline]
    fn replace(&'static self, key: usize) -> usize {
        self.with(|s| s.replace(key))
    }

    // Always inlined: the single-threaded wake-up asks it once per message
    // sent, and the compiler otherwise called the thread-local's accessor
    // out of line when the send grew a little (see `docs/benchmarks.md`,
    // "Measurements behind code decisions").
    #[inline(always)]
    fn get(&'static self) -> usize {
        self.with(|slot| slot.get())
    }
}

#[cfg(causim_loom)]
impl Slot for loom::thread::LocalKey<Cell<usize>> {
    fn replace(&'static self, key: usize) -> usize {
        self.with(|s| s.replace(key))
    }

    fn get(&'static self) -> usize {
        self.with(Cell::get)
    }
}

/// The slot of a structure whose cross-thread use a loom model checks:
/// `std`'s thread-local, and loom's under loom (declared by each such
/// structure with `std::thread_local!` or `loom::thread_local!`).
#[cfg(not(causim_loom))]
pub(crate) type CheckedSlot = MarkSlot;
#[cfg(causim_loom)]
pub(crate) type CheckedSlot = loom::thread::LocalKey<Cell<usize>>;

/// This thread drives the structure at one address until dropped.
pub(crate) struct ThreadMark<S: Slot = MarkSlot> {
    /// The slot set.
    slot: &'static S,
    /// What the slot held before, restored on drop.
    previous: usize,
    /// Not `Send`: the mark must be dropped on the thread that set it.
    thread: PhantomData<*const ()>,
}

impl<S: Slot> ThreadMark<S> {
    /// Marks this thread in `slot` as driving the structure at `key`.
    #[inline]
    pub(crate) fn set(slot: &'static S, key: usize) -> Self {
        ThreadMark {
            slot,
            previous: slot.replace(key),
            thread: PhantomData,
        }
    }
}

impl<S: Slot> Drop for ThreadMark<S> {
    #[inline]
    fn drop(&mut self) {
        self.slot.replace(self.previous);
    }
}

/// True if this thread drives the structure at `key` according to `slot`.
#[inline(always)]
pub(crate) fn is_marked<S: Slot>(slot: &'static S, key: usize) -> bool {
    slot.get() == key
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        static SLOT: Cell<usize> = const { Cell::new(0) };
    }

    #[test]
    fn a_mark_holds_on_its_thread_only_and_nested_marks_restore() {
        assert!(!is_marked(&SLOT, 1));
        let outer = ThreadMark::set(&SLOT, 1);
        assert!(is_marked(&SLOT, 1));
        std::thread::scope(|s| {
            s.spawn(|| assert!(!is_marked(&SLOT, 1), "another thread"));
        });
        {
            let _inner = ThreadMark::set(&SLOT, 2);
            assert!(is_marked(&SLOT, 2) && !is_marked(&SLOT, 1));
        }
        assert!(is_marked(&SLOT, 1));
        drop(outer);
        assert!(!is_marked(&SLOT, 1));
    }
}
