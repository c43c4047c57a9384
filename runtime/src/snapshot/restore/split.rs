//! How a restore shares its work between the calling thread and a helper.
//!
//! Once the models are matched, a restore has four steps that touch
//! different memory: the wiring's check (the topology's records), the
//! event list (the pending events, each for a recipient's input), the
//! states read back (each model's cell), and the bench's tasks spawned
//! (the executor's records, the mailboxes). No task is polled before every
//! state is back, so the steps may run at once, in any order. The helper
//! checks the wiring, then takes chunks of events, then chunks of states;
//! the calling thread spawns the tasks (their many small allocations came
//! from an allocator arena of the helper's own, and took as long again
//! there), then takes chunks of states, then chunks of events: each thread
//! takes what is left when it is free, so that neither waits long for the
//! other whatever the bench's shape.
//!
//! The errors keep their order: each is ranked by its step and by the
//! index of its event or model ([`Rank`]), and of two parts that failed,
//! the error of the earlier rank is reported, the one a restore on one
//! thread meets first; a panic of the user's code (a payload's or a
//! state's `Deserialize`) is caught and ranked the same way, and goes on
//! only if nothing failed before it. A part that fails says so
//! ([`Failed`]), so that the other stops, at its next chunk, work whose
//! errors could no longer be the one reported.

use std::any::Any;
use std::panic::AssertUnwindSafe;
use std::sync::{Mutex as StdMutex, PoisonError};

use crate::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use crate::sync::{lock, Mutex};

use crate::snapshot::error::RestoreError;

/// The helper thread's stack: a program's main thread's usual size, so
/// that a payload's `Deserialize` code (postcard sets no depth limit)
/// recurses as deep there as on the thread that would run it otherwise.
const HELPER_STACK: usize = 8 << 20;

/// The chunks of a list that one or two threads share: each chunk is
/// taken by one thread, in increasing order across both.
pub(super) struct Chunks {
    /// The index of the next chunk not taken yet.
    next: AtomicUsize,
}

impl Chunks {
    /// No chunk taken yet.
    pub(super) fn new() -> Self {
        Chunks {
            next: AtomicUsize::new(0),
        }
    }

    /// Takes the next chunk: its index (past the list's end once every
    /// chunk is taken).
    pub(super) fn take(&self) -> usize {
        // Relaxed: the counter only shares the chunks out. What they read
        // was written before either thread started, and what each thread
        // made comes back through the join.
        self.next.fetch_add(1, Ordering::Relaxed)
    }
}

/// A step of a restore that can fail, in the order a restore on one
/// thread meets them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub(super) enum Step {
    Wiring,
    Events,
    States,
    /// Not a failure: a step stopped early because an earlier one failed,
    /// whose error is the one reported.
    Stopped,
}

/// Where an error lies in the order a restore on one thread meets them:
/// its step, then the index of its event or model in that step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Rank {
    step: Step,
    index: u64,
}

impl Rank {
    /// The rank of `step`'s errors (of the events', the first event's).
    pub(super) fn of(step: Step) -> Self {
        Rank { step, index: 0 }
    }

    /// The rank of the error of item `index` (pending event, model) of
    /// `step`.
    pub(super) fn at(step: Step, index: usize) -> Self {
        Rank {
            step,
            index: index as u64,
        }
    }

    /// The rank of pending event `index`'s error.
    pub(super) fn event(index: usize) -> Self {
        Rank::at(Step::Events, index)
    }

    /// The rank as one number: the step in the top byte, the index below
    /// (an index that does not fit, past 2⁵⁶ events, is taken as the
    /// largest that does).
    fn code(self) -> u64 {
        (self.step as u64) << 56 | self.index.min(INDEX_MASK)
    }
}

/// The bits of [`Rank::code`] that hold the index.
const INDEX_MASK: u64 = (1 << 56) - 1;

/// An error, with its rank.
pub(super) type Staged<T> = Result<T, (Rank, RestoreError)>;

/// The earliest rank of the errors met so far, on either thread, and the
/// earliest panic of the user's code caught.
pub(super) struct Failed {
    /// The earliest rank's [`Rank::code`].
    earliest: AtomicU64,
    /// The earliest panic caught, with its rank: it goes on once the
    /// restore knows that no error comes before it (see [`Failed::finish`]).
    panic: Mutex<Option<(Rank, Box<dyn Any + Send>)>>,
}

impl Failed {
    /// No step failed yet.
    pub(super) fn new() -> Self {
        Failed {
            earliest: AtomicU64::new(u64::MAX),
            panic: Mutex::new(None),
        }
    }

    /// Runs `run`, which reads items of the user's types (payloads,
    /// states) and says through `at` which one it reads: a panic there is
    /// caught and ranked at that item, like an error, rather than left to
    /// unwind this thread before the other thread's earlier error is
    /// known. On one thread it would have unwound only if nothing failed
    /// before it, and so it does here.
    pub(super) fn catching<T>(
        &self,
        at: impl Fn() -> Rank,
        run: impl FnOnce() -> Staged<T>,
    ) -> Staged<T> {
        match std::panic::catch_unwind(AssertUnwindSafe(run)) {
            Ok(result) => result,
            Err(payload) => {
                let rank = at();
                let mut panic = lock(&self.panic);
                if panic.as_ref().is_none_or(|(earliest, _)| rank < *earliest) {
                    *panic = Some((rank, payload));
                }
                let why = "a `Deserialize` implementation panicked".to_string();
                Err(self.failure(rank, RestoreError::Malformed(why)))
            }
        }
    }

    /// The restore's outcome from `result`: its error without its rank,
    /// or, if that error is a panic's, the panic, resumed on this thread.
    pub(super) fn finish<T>(&self, result: Staged<T>) -> Result<T, RestoreError> {
        result.map_err(|(rank, error)| {
            let panic = lock(&self.panic).take();
            match panic {
                Some((at, payload)) if at == rank => std::panic::resume_unwind(payload),
                _ => error,
            }
        })
    }

    /// Runs a step (or an event) of rank `rank`, noting its failure.
    pub(super) fn noting<T>(
        &self,
        rank: Rank,
        run: impl FnOnce() -> Result<T, RestoreError>,
    ) -> Staged<T> {
        run().map_err(|error| self.failure(rank, error))
    }

    /// Notes the failure `error` of rank `rank`, and returns it ranked.
    #[cold]
    pub(super) fn failure(&self, rank: Rank, error: RestoreError) -> (Rank, RestoreError) {
        // Relaxed: a hint to stop early; the join orders the results.
        self.earliest.fetch_min(rank.code(), Ordering::Relaxed);
        (rank, error)
    }

    /// Stops the work of rank `rank` and after if an error of an earlier
    /// rank was met (an error of this work would not be the one
    /// reported).
    pub(super) fn stop_before(&self, rank: Rank) -> Staged<()> {
        if self.earliest.load(Ordering::Relaxed) < rank.code() {
            let why = "stopped after an earlier step failed".to_string();
            return Err((Rank::of(Step::Stopped), RestoreError::Malformed(why)));
        }
        Ok(())
    }
}

/// Runs `helper` on a helper thread and `main` on this one, and returns
/// both results, or the error of the earlier rank if either failed.
pub(super) fn both<H: Send, M>(
    helper: impl FnOnce() -> Staged<H> + Send,
    main: impl FnOnce() -> Staged<M>,
) -> Staged<(H, M)> {
    match on_two_threads(helper, main) {
        (Ok(helped), Ok(main)) => Ok((helped, main)),
        (Err(error), Ok(_)) | (Ok(_), Err(error)) => Err(error),
        (Err(helped), Err(main)) => Err(if helped.0 <= main.0 { helped } else { main }),
    }
}

/// Runs `helper` on a helper thread and `main` on this one, and returns
/// both results; runs `helper` here after `main` if the system refuses
/// the thread. A panic on the helper thread (in a payload's `Deserialize`
/// code) goes on here, as it would have on one thread.
fn on_two_threads<H: Send, M>(
    helper: impl FnOnce() -> H + Send,
    main: impl FnOnce() -> M,
) -> (H, M) {
    // Taken by whichever thread runs it: the helper, or this thread if
    // no helper could be started.
    let helper = StdMutex::new(Some(helper));
    let take = || helper.lock().unwrap_or_else(PoisonError::into_inner).take();
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .name("causim-restore".into())
            .stack_size(HELPER_STACK)
            .spawn_scoped(scope, || take().map(|helper| helper()));
        let main = main();
        let helped = match spawned.map(|thread| thread.join()) {
            Ok(Ok(Some(helped))) => helped,
            Ok(Err(payload)) => std::panic::resume_unwind(payload),
            Ok(Ok(None)) => unreachable!(
                "the helper's work is left for this thread only if the helper did not start"
            ),
            // Not started (the system refused the thread): run it here,
            // after `main`.
            Err(_) => match take() {
                Some(helper) => helper(),
                None => unreachable!("a thread that did not start took its work"),
            },
        };
        (helped, main)
    })
}

#[cfg(all(test, not(causim_loom)))]
mod tests;

#[cfg(all(test, causim_loom))]
mod loom_tests;
