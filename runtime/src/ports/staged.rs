//! Connections of a bench in the deterministic message order: they stage
//! what they are sent instead of delivering it (see `crate::staging`).
//!
//! A connection list is checked once, on its first send in a bench (see
//! `fanout.rs` and `requestor.rs`). When that send comes from a model task
//! of a bench in the deterministic order, the check also wraps each
//! connection in a [`StagedTarget`] or a [`StagedReplier`]: from then on,
//! a send through the list stages a delivery, and the bench delivers it at
//! the end of the round through the wrapped connection's own bench path.
//! The choice is made once per list, on the cold path: the send path of a
//! bench in the causal order is the same code as before the ordered mode
//! existed, not even a test of a flag (the callgrind counts are in
//! `docs/benchmarks.md`, "Deterministic message order").

use std::ptr::NonNull;
use std::sync::{Arc, Weak};
use std::task::{Context, Poll};

use super::link::Recipient;
use super::target::{Check, ReplierTarget, Target};
use crate::bench::BenchId;
use crate::mailbox::WaitTicket;
use crate::name::Name;
use crate::staging::{Delivery, Stage};

/// A connection of an output whose sends are staged.
///
/// A staged send borrows the connection rather than take a counted handle
/// on it: the handle's increment and decrement were two locked
/// read-modify-writes per message (figures in `docs/benchmarks.md`,
/// "Deterministic message order"). The borrow outlives the send, so the
/// connection must outlive every staged send through it, even when the
/// model drops its output (`self.out = Output::new()`) while they wait
/// for the round: when the last handle on this connection goes, the
/// stage it stages on keeps the connection until no staged send is left
/// ([`Stage::retire`]).
pub(crate) struct StagedTarget<T: 'static> {
    /// The connection itself.
    target: Arc<dyn Target<T>>,
    /// The stage of the bench whose models send through it, which keeps
    /// `target` for them when this goes. Not a strong handle: an output
    /// that outlives its bench (moved elsewhere) must not keep the stage,
    /// and every connection retired into it, alive; once the stage is
    /// gone, no delivery that borrows `target` is left (they all live in
    /// the stage's lists or in its senders' buffers, and each sender holds
    /// the stage).
    stage: Weak<Stage>,
}

impl<T: Send + 'static> StagedTarget<T> {
    /// `target`, staged on `stage`.
    pub(crate) fn new(target: Arc<dyn Target<T>>, stage: &Arc<Stage>) -> Self {
        StagedTarget {
            target,
            stage: Arc::downgrade(stage),
        }
    }
}

impl<T: 'static> Drop for StagedTarget<T> {
    fn drop(&mut self) {
        // Staged sends may still borrow the connection: the stage, if
        // still there, keeps a handle until none can (this one goes with
        // `self`). A delivery used only to own it: dropped, never run.
        if let Some(stage) = self.stage.upgrade() {
            let target = Arc::clone(&self.target);
            stage.retire(Delivery::new(move || drop(target)));
        }
    }
}

/// A staged send's borrow of its connection: a pointer, sent to the thread
/// that delivers the round.
struct Borrowed<T: 'static>(NonNull<dyn Target<T>>);

// SAFETY: it stands for a `&dyn Target<T>`, and `Target` is `Sync`: the
// connection may be used from the thread delivering the round.
unsafe impl<T: 'static> Send for Borrowed<T> {}

impl<T: 'static> Borrowed<T> {
    /// The connection `target` points to.
    fn of(target: &Arc<dyn Target<T>>) -> Self {
        Borrowed(NonNull::from(&**target))
    }

    /// The connection.
    ///
    /// # Safety
    ///
    /// The connection is alive: the delivery holding this borrow runs in
    /// a round of the stage that keeps it (see [`Stage::retire`]).
    unsafe fn get(&self) -> &dyn Target<T> {
        // SAFETY: by this function's contract.
        unsafe { self.0.as_ref() }
    }
}

impl<T: Send + 'static> Target<T> for StagedTarget<T> {
    fn try_send<'a>(
        &'a self,
        value: T,
        cx: &mut Context<'_>,
        ticket: Option<&mut WaitTicket<'a>>,
    ) -> Result<(), T> {
        // Only model tasks of a bench in the deterministic order check a
        // list into staged connections; anything else delivers as before.
        let staged = crate::staging::try_stage_through(
            value,
            self.stage.as_ptr(),
            |value| {
                let target = Borrowed::of(&self.target);
                move || {
                    // SAFETY: staged on `self.stage` (checked by
                    // `try_stage_through`), which delivers it in one of its
                    // rounds and keeps the connection until then once
                    // `self` goes (see `Stage::retire`).
                    unsafe { target.get() }.send_from_bench(value)
                }
            },
            |value| {
                let target = Arc::clone(&self.target);
                move || target.send_from_bench(value)
            },
        );
        match staged {
            Ok(()) => Ok(()),
            Err(value) => self.target.try_send(value, cx, ticket),
        }
    }

    fn send_from_bench(&self, value: T) {
        self.target.send_from_bench(value);
    }

    fn is_staged(&self) -> bool {
        true
    }

    fn describe(&self) -> String {
        self.target.describe()
    }

    fn check(&self, bench: BenchId) -> Check {
        self.target.check(bench)
    }

    fn link(&self) -> Recipient {
        self.target.link()
    }
}

/// A connection of a requestor whose requests are staged; the reply still
/// comes through the wrapped connection's reply slot.
pub(crate) struct StagedReplier<T, R>(pub(crate) Box<dyn ReplierTarget<T, R>>);

impl<T: Send + 'static, R: Send + 'static> ReplierTarget<T, R> for StagedReplier<T, R> {
    fn try_send<'a>(
        &'a self,
        request: T,
        cx: &mut Context<'_>,
        ticket: &mut WaitTicket<'a>,
    ) -> Result<(), T> {
        if !crate::staging::active() {
            return self.0.try_send(request, cx, ticket);
        }
        self.0.stage(request);
        Ok(())
    }

    fn stage(&self, request: T) {
        self.0.stage(request);
    }

    fn is_staged(&self) -> bool {
        true
    }

    fn poll_reply(&self, cx: &mut Context<'_>) -> Poll<Option<R>> {
        self.0.poll_reply(cx)
    }

    fn recipient(&self) -> Name {
        self.0.recipient()
    }

    fn check(&self, bench: BenchId) -> Check {
        self.0.check(bench)
    }

    fn is_misaddressed(&self) -> bool {
        self.0.is_misaddressed()
    }

    fn link(&self) -> Recipient {
        self.0.link()
    }
}

#[cfg(all(test, not(causim_loom)))]
mod tests {
    use super::*;
    use crate::ports::sink::{CallbackSink, Sink};
    use crate::staging::drop_count::DropCount;
    use crate::staging::{Keyed, Round};
    use std::future::Future;
    use std::pin::Pin;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::Waker;

    /// Polls, once, a model task of origin 1 staging on `stage` that sends
    /// `value` through `connection` and then lets it go.
    fn send_once_and_let_go(stage: &Arc<Stage>, connection: StagedTarget<u32>, value: u32) {
        let mut connection = Some(connection);
        let task = std::future::poll_fn(move |cx| {
            let connection = connection.take().expect("polled once");
            assert!(connection.try_send(value, cx, None).is_ok(), "staged");
            Poll::<()>::Pending
        });
        let mut keyed = Keyed::new(task, 1, stage.clone());
        let mut cx = Context::from_waker(Waker::noop());
        assert!(Pin::new(&mut keyed).poll(&mut cx).is_pending());
    }

    /// Delivers `stage`'s round, then sweeps it, as its settle does.
    fn settle(stage: &Stage) {
        let _settling = stage.drive();
        let mut round = Round::default();
        while stage.take_sorted(&mut round) {
            round.deliver(&mut 0);
            round.clear();
        }
        stage.sweep();
    }

    /// A connection whose only handle is the returned staged one, to a
    /// sink that adds what it gets to `sum`; its function's drop counts
    /// in `drops`.
    fn connection(
        stage: &Arc<Stage>,
        sum: &Arc<AtomicUsize>,
        drops: &Arc<AtomicUsize>,
    ) -> StagedTarget<u32> {
        let (sum, dropped) = (sum.clone(), DropCount(drops.clone()));
        let sink = CallbackSink::new(move |value: u32| {
            let _keep = &dropped;
            sum.fetch_add(value as usize, Ordering::SeqCst);
        });
        StagedTarget::new(sink.target(), stage)
    }

    #[test]
    fn a_connection_let_go_of_stays_until_its_stage_delivers_and_sweeps() {
        let stage = Arc::new(Stage::default());
        let (sum, drops) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        send_once_and_let_go(&stage, connection(&stage, &sum, &drops), 7);
        assert_eq!(drops.load(Ordering::SeqCst), 0, "kept by the stage");
        settle(&stage);
        assert_eq!(sum.load(Ordering::SeqCst), 7, "delivered");
        assert_eq!(drops.load(Ordering::SeqCst), 1, "then freed");
    }

    #[test]
    fn a_send_staged_on_another_stage_owns_its_connection() {
        // The connection was checked for `first`'s bench; a model of
        // `second`'s sends through it (an output moved between benches).
        let (first, second) = (Arc::new(Stage::default()), Arc::new(Stage::default()));
        let (sum, drops) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        send_once_and_let_go(&second, connection(&first, &sum, &drops), 5);
        // `first` knows nothing of the send and frees what it was given.
        settle(&first);
        assert_eq!(drops.load(Ordering::SeqCst), 0, "the staged send holds it");
        settle(&second);
        assert_eq!(sum.load(Ordering::SeqCst), 5, "delivered");
        assert_eq!(drops.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_connection_outliving_its_stage_is_freed_at_once() {
        let stage = Arc::new(Stage::default());
        let (sum, drops) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let connection = connection(&stage, &sum, &drops);
        drop(stage);
        drop(connection);
        assert_eq!(drops.load(Ordering::SeqCst), 1);
    }
}
