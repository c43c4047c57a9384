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

/// This thread drives the structure at one address until dropped.
pub(crate) struct ThreadMark {
    /// The slot set.
    slot: &'static MarkSlot,
    /// What the slot held before, restored on drop.
    previous: usize,
    /// Not `Send`: the mark must be dropped on the thread that set it.
    thread: PhantomData<*const ()>,
}

impl ThreadMark {
    /// Marks this thread in `slot` as driving the structure at `key`.
    #[inline]
    pub(crate) fn set(slot: &'static MarkSlot, key: usize) -> Self {
        ThreadMark {
            slot,
            previous: slot.with(|s| s.replace(key)),
            thread: PhantomData,
        }
    }
}

impl Drop for ThreadMark {
    #[inline]
    fn drop(&mut self) {
        self.slot.with(|s| s.set(self.previous));
    }
}

/// True if this thread drives the structure at `key` according to `slot`.
#[inline]
pub(crate) fn is_marked(slot: &'static MarkSlot, key: usize) -> bool {
    slot.with(Cell::get) == key
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
