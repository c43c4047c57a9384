//! The synchronisation primitives of the concurrent parts, from `std` or
//! from `loom`.
//!
//! The mailbox queue and the multi-threaded executor name their atomics,
//! cells, locks and thread operations through this module only. A normal
//! build gets `std`'s; a build with `RUSTFLAGS="--cfg causim_loom"` gets
//! `loom`'s, so that the loom tests explore every interleaving of exactly
//! the code that ships.
//!
//! `Arc` is here too, for what the executor shares between threads: loom
//! must see the reference counts to know when a drop is synchronised.
//! Under loom, `st3`'s queues are replaced by an instrumented stand-in
//! (see `stand_in`), so that loom sees every hand-over between threads.

#[cfg_attr(not(feature = "save"), allow(dead_code))]
mod gate;
mod lazy_box;
#[cfg(causim_loom)]
mod stand_in;

#[cfg(feature = "save")]
pub(crate) use gate::Gate;
pub(crate) use lazy_box::LazyBox;

use std::sync::{LockResult, PoisonError};

#[cfg(not(causim_loom))]
pub(crate) use std::sync::{Arc, Mutex, MutexGuard};

#[cfg(causim_loom)]
pub(crate) use loom::sync::{Arc, Mutex, MutexGuard};

/// The work-stealing run queues of the multi-threaded executor.
pub(crate) mod work_queue {
    #[cfg(not(causim_loom))]
    pub(crate) use st3::fifo::{Stealer, Worker};
    #[cfg(not(causim_loom))]
    pub(crate) use st3::StealError;

    #[cfg(causim_loom)]
    pub(crate) use super::stand_in::{StealError, Stealer, Worker};
}

/// Atomic types and fences.
pub(crate) mod atomic {
    #[cfg(not(causim_loom))]
    pub(crate) use std::sync::atomic::{
        fence, AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering,
    };

    #[cfg(causim_loom)]
    pub(crate) use loom::sync::atomic::{
        fence, AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering,
    };
}

/// Thread spawning and yielding.
pub(crate) mod thread {
    #[cfg(not(causim_loom))]
    pub(crate) use std::thread::{yield_now, JoinHandle};

    #[cfg(causim_loom)]
    pub(crate) use loom::thread::{yield_now, JoinHandle};

    /// Spawns a named thread.
    #[cfg(not(causim_loom))]
    pub(crate) fn spawn_named<F>(name: String, f: F) -> std::io::Result<JoinHandle<()>>
    where
        F: FnOnce() + Send + 'static,
    {
        std::thread::Builder::new().name(name).spawn(f)
    }

    /// Spawns a (named) loom thread.
    #[cfg(causim_loom)]
    pub(crate) fn spawn_named<F>(name: String, f: F) -> std::io::Result<JoinHandle<()>>
    where
        F: FnOnce() + Send + 'static,
    {
        loom::thread::Builder::new().name(name).spawn(f)
    }

    /// Waits up to `grace` for every thread of `handles` to return, then
    /// joins them; true if they all did. Otherwise they are detached (each
    /// exits on its own when its work returns), and false.
    #[cfg(not(causim_loom))]
    pub(crate) fn join_within(handles: Vec<JoinHandle<()>>, grace: std::time::Duration) -> bool {
        let started = std::time::Instant::now();
        while !handles.iter().all(JoinHandle::is_finished) {
            if started.elapsed() >= grace {
                return false;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        handles.into_iter().for_each(|h| drop(h.join()));
        true
    }

    /// Loom has no clock: joins every thread (a loom model never runs a
    /// task that does not return), and true.
    #[cfg(causim_loom)]
    pub(crate) fn join_within(handles: Vec<JoinHandle<()>>, _grace: std::time::Duration) -> bool {
        handles.into_iter().for_each(|h| drop(h.join()));
        true
    }
}

/// Parks one worker's thread until another thread unparks it.
///
/// With `std`, the thread's own park token: an unpark that comes before the
/// park makes the park return at once; parks may return spuriously. Loom's
/// `unpark` would also wake a thread blocked on a lock or a join (which
/// `std`'s never does), so under loom a flag under a lock with a condition
/// variable gives the same token semantics instead.
#[derive(Debug)]
pub(crate) struct Parker {
    /// The thread that parks here (the latest to call `set_owner`).
    #[cfg(not(causim_loom))]
    thread: Mutex<Option<std::thread::Thread>>,
    /// The token.
    #[cfg(causim_loom)]
    token: Mutex<bool>,
    /// Signalled when the token is set.
    #[cfg(causim_loom)]
    condvar: loom::sync::Condvar,
}

impl Parker {
    /// A parker with no owner and no token.
    pub(crate) fn new() -> Self {
        Parker {
            #[cfg(not(causim_loom))]
            thread: Mutex::new(None),
            #[cfg(causim_loom)]
            token: Mutex::new(false),
            #[cfg(causim_loom)]
            condvar: loom::sync::Condvar::new(),
        }
    }

    /// Makes the current thread the one that parks here.
    pub(crate) fn set_owner(&self) {
        #[cfg(not(causim_loom))]
        {
            let current = std::thread::current();
            let mut thread = lock(&self.thread);
            if thread.as_ref().map(std::thread::Thread::id) != Some(current.id()) {
                *thread = Some(current);
            }
        }
    }

    /// Wakes the owner, or makes its next park return at once.
    pub(crate) fn unpark(&self) {
        #[cfg(not(causim_loom))]
        if let Some(thread) = lock(&self.thread).as_ref() {
            thread.unpark();
        }
        #[cfg(causim_loom)]
        {
            *lock(&self.token) = true;
            self.condvar.notify_one();
        }
    }

    /// Parks the owner (the calling thread) until unparked or `timeout`
    /// passes; may return spuriously.
    pub(crate) fn park(&self, timeout: Option<std::time::Duration>) {
        #[cfg(not(causim_loom))]
        match timeout {
            Some(timeout) => std::thread::park_timeout(timeout),
            None => std::thread::park(),
        }
        #[cfg(causim_loom)]
        {
            // Loom has no clock: a timeout is never reached.
            let _ = timeout;
            let mut token = lock(&self.token);
            while !*token {
                token = self.condvar.wait(token).unwrap();
            }
            *token = false;
        }
    }
}

/// A cell whose accesses loom can check.
pub(crate) mod cell {
    #[cfg(causim_loom)]
    pub(crate) use loom::cell::UnsafeCell;

    /// `std`'s `UnsafeCell` with loom's closure-based access API.
    #[cfg(not(causim_loom))]
    #[derive(Debug)]
    pub(crate) struct UnsafeCell<T>(std::cell::UnsafeCell<T>);

    #[cfg(not(causim_loom))]
    impl<T> UnsafeCell<T> {
        /// A cell holding `data`.
        pub(crate) const fn new(data: T) -> Self {
            UnsafeCell(std::cell::UnsafeCell::new(data))
        }

        /// Runs `f` with a shared pointer to the contents.
        #[inline(always)]
        pub(crate) fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
            f(self.0.get())
        }

        /// Runs `f` with an exclusive pointer to the contents.
        #[inline(always)]
        pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
            f(self.0.get())
        }
    }
}

/// Locks `mutex`, ignoring poisoning: every critical section in this crate
/// leaves its data consistent even if a panic unwinds through it. The one
/// place that says so, for every mutex of the crate: this module's (loom's
/// under loom) and the plain `std` ones of the ports and the bench.
pub(crate) fn lock<L: Lock + ?Sized>(mutex: &L) -> L::Guard<'_> {
    mutex
        .lock_or_poisoned()
        .unwrap_or_else(PoisonError::into_inner)
}

/// A mutex [`lock`] takes: `std`'s, and loom's under loom.
pub(crate) trait Lock {
    /// What locking it gives.
    type Guard<'a>
    where
        Self: 'a;

    /// Locks it, saying whether it was poisoned.
    fn lock_or_poisoned(&self) -> LockResult<Self::Guard<'_>>;
}

impl<T: ?Sized> Lock for std::sync::Mutex<T> {
    type Guard<'a>
        = std::sync::MutexGuard<'a, T>
    where
        T: 'a;

    #[inline(always)]
    fn lock_or_poisoned(&self) -> LockResult<Self::Guard<'_>> {
        self.lock()
    }
}

/// A shared mutex locks as the mutex (what deref coercion would do for a
/// function that is not generic).
impl<L: Lock + ?Sized> Lock for std::sync::Arc<L> {
    type Guard<'a>
        = L::Guard<'a>
    where
        L: 'a;

    #[inline(always)]
    fn lock_or_poisoned(&self) -> LockResult<Self::Guard<'_>> {
        (**self).lock_or_poisoned()
    }
}

#[cfg(causim_loom)]
impl<L: Lock + ?Sized> Lock for loom::sync::Arc<L> {
    type Guard<'a>
        = L::Guard<'a>
    where
        L: 'a;

    #[inline(always)]
    fn lock_or_poisoned(&self) -> LockResult<Self::Guard<'_>> {
        (**self).lock_or_poisoned()
    }
}

#[cfg(causim_loom)]
impl<T: ?Sized> Lock for loom::sync::Mutex<T> {
    type Guard<'a>
        = loom::sync::MutexGuard<'a, T>
    where
        T: 'a;

    #[inline(always)]
    fn lock_or_poisoned(&self) -> LockResult<Self::Guard<'_>> {
        self.lock()
    }
}

/// Runs a loom model, with at most `preemptions` preemptions per execution
/// unless `LOOM_MAX_PREEMPTIONS` says otherwise: bounded runs keep the
/// models tractable, and the bound is the one knob worth turning by hand.
#[cfg(all(test, causim_loom))]
pub(crate) fn loom_check(preemptions: usize, model: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    if std::env::var_os("LOOM_MAX_PREEMPTIONS").is_none() {
        builder.preemption_bound = Some(preemptions);
    }
    builder.check(model);
}
