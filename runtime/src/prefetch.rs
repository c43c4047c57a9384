//! A hint to the processor to start loading a cache line.
//!
//! Used where the executor knows, several polls ahead, which task it will
//! poll: the loads of that task's record and future then overlap with the
//! work in between instead of stalling the poll.

/// Starts loading the cache line at `p` into every cache level. A hint
/// only: it never faults, whatever `p` is, and does nothing off x86-64.
#[inline(always)]
pub(crate) fn prefetch<T: ?Sized>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: `sse` is part of every x86-64 target, and a prefetch
        // neither reads nor writes memory as the program sees it: it is
        // defined for any address, valid or not.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
