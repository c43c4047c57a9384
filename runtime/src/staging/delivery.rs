//! A staged delivery stored in place: the closure that hands one message
//! over, without a heap allocation when it is small.
//!
//! Every send of a model in the deterministic order is staged as a
//! closure (the connection and the message). Boxing it cost an allocation
//! on the sender's thread and a free on the simulation's for each message:
//! 30 % of the instructions of the pinball workload on one thread (see
//! `docs/benchmarks.md`, "Deterministic message order"). A [`Delivery`]
//! keeps a closure of up to [`WORDS`] machine words in its own storage,
//! next to one function pointer that runs or drops it; a larger one (a
//! request with its reply slot, a large message) is boxed as before, and
//! the box is what is stored in place.

use std::cell::Cell;
use std::marker::PhantomData;
use std::mem::{align_of, size_of, ManuallyDrop, MaybeUninit};

/// Machine words a closure may take to be stored in place: a connection
/// (a fat `Arc`, two words) and a message of up to two words.
const WORDS: usize = 4;

/// The storage of a closure kept in place.
type Storage = [MaybeUninit<usize>; WORDS];

/// What [`Delivery::consume`] does with the closure it reads out.
#[derive(Clone, Copy)]
enum Use {
    /// Calls it.
    Run,
    /// Drops it.
    Drop,
}

/// A closure that hands one staged message over, run once by the bench.
pub(crate) struct Delivery {
    /// The closure's bytes (the closure itself, or a box of it).
    storage: Storage,
    /// Reads the closure of the type stored out of `storage` and runs or
    /// drops it: `storage` holds a valid closure of that type until then.
    consume: unsafe fn(*mut Storage, Use),
    /// Not `Sync`: the closure need not be (the fields alone would make
    /// it so).
    not_sync: PhantomData<Cell<()>>,
}

// SAFETY: a `Delivery` is only made from an `F: Send` (see `new`), and
// moving it moves that closure. It is not `Sync` (`not_sync`).
unsafe impl Send for Delivery {}

/// True if an `F` can be kept in a [`Storage`].
const fn fits<F>() -> bool {
    size_of::<F>() <= size_of::<Storage>() && align_of::<F>() <= align_of::<Storage>()
}

/// Reads the `F` in `storage` out and uses it.
///
/// # Safety
///
/// `storage` holds a valid `F` (written by [`Delivery::in_place`]) that is
/// not used again after this call.
unsafe fn consume<F: FnOnce()>(storage: *mut Storage, action: Use) {
    // SAFETY: by this function's contract; `in_place` checked that an `F`
    // fits the storage's size and alignment.
    let f = unsafe { storage.cast::<F>().read() };
    match action {
        Use::Run => f(),
        Use::Drop => drop(f),
    }
}

impl Delivery {
    /// The delivery that runs `f`: in place if it fits, boxed otherwise.
    #[inline(always)]
    pub(crate) fn new<F: FnOnce() + Send + 'static>(f: F) -> Self {
        if fits::<F>() {
            Self::in_place(f)
        } else {
            Self::in_place(Box::new(f))
        }
    }

    /// `f` stored in place; it must fit (`new` boxes what does not).
    #[inline(always)]
    fn in_place<F: FnOnce() + Send + 'static>(f: F) -> Self {
        assert!(fits::<F>(), "a boxed closure always fits");
        let mut storage: Storage = [MaybeUninit::uninit(); WORDS];
        // SAFETY: `F` fits the storage (asserted above; the test folds
        // away), which is valid for writes; `consume::<F>` is the only
        // reader, once.
        unsafe { storage.as_mut_ptr().cast::<F>().write(f) };
        Delivery {
            storage,
            consume: consume::<F>,
            not_sync: PhantomData,
        }
    }

    /// Runs the closure (hands the message over).
    #[inline]
    pub(crate) fn run(self) {
        let mut this = ManuallyDrop::new(self);
        // SAFETY: the storage holds the closure `consume` was made for,
        // and `ManuallyDrop` keeps `Drop` from using it again. A panic in
        // the closure unwinds through `consume`, which owns it by then.
        unsafe { (this.consume)(&mut this.storage, Use::Run) }
    }
}

impl Drop for Delivery {
    fn drop(&mut self) {
        // SAFETY: as in `run`: the closure is still in the storage, and
        // this is its last use.
        unsafe { (self.consume)(&mut self.storage, Use::Drop) }
    }
}

#[cfg(test)]
mod tests {
    use super::super::drop_count::DropCount;
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    /// Whether `f`'s type is stored in place.
    fn fits_of<F>(_: &F) -> bool {
        fits::<F>()
    }

    /// A closure that counts its runs in `runs`, its drops in `drops`,
    /// and carries `padding` along.
    fn counting<const N: usize>(
        runs: &Arc<AtomicUsize>,
        drops: &Arc<AtomicUsize>,
        padding: [u64; N],
    ) -> impl FnOnce() + Send + 'static {
        let counted = DropCount(drops.clone());
        let runs = runs.clone();
        move || {
            let _keep = (&counted, padding);
            runs.fetch_add(1, Ordering::Relaxed);
        }
    }

    #[test]
    fn small_and_large_closures_run_once_and_drop_once() {
        let runs = Arc::new(AtomicUsize::new(0));
        let drops = Arc::new(AtomicUsize::new(0));
        let small = counting(&runs, &drops, []);
        let large = counting(&runs, &drops, [7; 8]);
        assert!(fits_of(&small));
        assert!(!fits_of(&large));
        Delivery::new(small).run();
        Delivery::new(large).run();
        assert_eq!(runs.load(Ordering::Relaxed), 2);
        assert_eq!(drops.load(Ordering::Relaxed), 2);
    }

    #[test]
    fn a_dropped_delivery_drops_its_closure_without_running_it() {
        let runs = Arc::new(AtomicUsize::new(0));
        let drops = Arc::new(AtomicUsize::new(0));
        drop(Delivery::new(counting(&runs, &drops, [])));
        drop(Delivery::new(counting(&runs, &drops, [1; 8])));
        assert_eq!(runs.load(Ordering::Relaxed), 0);
        assert_eq!(drops.load(Ordering::Relaxed), 2);
    }

    #[test]
    fn a_panicking_delivery_drops_its_closure_once() {
        let drops = Arc::new(AtomicUsize::new(0));
        let counted = DropCount(drops.clone());
        let delivery = Delivery::new(move || {
            let _keep = &counted;
            panic!("boom");
        });
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| delivery.run()));
        assert!(outcome.is_err());
        assert_eq!(drops.load(Ordering::Relaxed), 1);
    }

    /// A value aligned beyond a word, which must be boxed (and stay
    /// aligned) even though it is small.
    #[repr(align(64))]
    struct Aligned(u8);

    #[test]
    fn zero_sized_and_over_aligned_closures_run_where_they_belong() {
        let runs = Arc::new(AtomicUsize::new(0));
        // Zero-sized: in place.
        fn nothing() {}
        assert!(fits_of(&nothing));
        Delivery::new(nothing).run();
        // Over-aligned: boxed, read at its alignment.
        let aligned = Aligned(7);
        let counter = runs.clone();
        let over = move || {
            assert_eq!(std::ptr::from_ref(&aligned) as usize % 64, 0);
            assert_eq!(aligned.0, 7);
            counter.fetch_add(1, Ordering::Relaxed);
        };
        assert!(!fits_of(&over));
        Delivery::new(over).run();
        assert_eq!(runs.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn a_panicking_boxed_delivery_drops_its_closure_once() {
        let drops = Arc::new(AtomicUsize::new(0));
        let counted = DropCount(drops.clone());
        let padding = [3u64; 8];
        let delivery = Delivery::new(move || {
            let _keep = (&counted, padding);
            panic!("boom");
        });
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| delivery.run()));
        assert!(outcome.is_err());
        assert_eq!(drops.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn deliveries_moved_in_a_growing_vec_run_on_another_thread() {
        let runs = Arc::new(AtomicUsize::new(0));
        let drops = Arc::new(AtomicUsize::new(0));
        let mut deliveries = Vec::new();
        for i in 0..64 {
            // Half small, half large; the vector moves them as it grows.
            let delivery = if i % 2 == 0 {
                Delivery::new(counting(&runs, &drops, []))
            } else {
                Delivery::new(counting(&runs, &drops, [i; 8]))
            };
            deliveries.push(delivery);
        }
        deliveries.reverse();
        std::thread::spawn(move || deliveries.into_iter().for_each(Delivery::run))
            .join()
            .unwrap();
        assert_eq!(runs.load(Ordering::Relaxed), 64);
        assert_eq!(drops.load(Ordering::Relaxed), 64);
    }
}
