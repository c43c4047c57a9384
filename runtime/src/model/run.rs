//! How a model runs: its task, which runs the model's init hook and then
//! its message loop, one message at a time.
//!
//! Beside the [`Model`] trait, where a reader looks for "how does a model
//! run"; `SimInit::add_model` boxes this future and spawns it.
//!
//! A model method can await something that will never come for a reason
//! that is the bench's wiring, not a deadlock: a `UniRequestor` whose
//! replier's mailbox is not in the bench has dropped its request, and has
//! no reply to return. It reports the error and asks, through the poll
//! report, that the method be abandoned; [`Abandonable`] then drops the
//! method's future (as any Rust future is cancelled) and the model goes on
//! with its next message. The request is only looked at when the method
//! returns `Pending`: a method that completes pays nothing.

use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};

use crate::context::Context;
use crate::model::Model;

/// A model's task: the init hook, then one message at a time, forever.
///
/// Written as a function returning an `async` block over one tuple rather
/// than as an `async fn`: an `async fn` keeps its arguments and the locals
/// it moves them into as separate fields of the future, so the model and
/// the context would be stored twice. The context owns the model's
/// mailbox, so the channel is pointed to once. Every idle model holds this
/// future, so each word counts.
pub(crate) fn run_model<M: Model>(model: M, cx: Context<M>) -> impl Future<Output = ()> + Send {
    let mut parts = (model, cx);
    async move {
        let (model, cx) = &mut parts;
        // With the feature `tracing`, the same steps inside spans (see
        // `model/trace.rs`); without it, exactly the plain loop.
        #[cfg(feature = "tracing")]
        let span = super::trace::model_span(cx);
        // A bench restored from a snapshot ran its hooks before it was
        // saved.
        if !cx.skips_init() {
            #[cfg(not(feature = "tracing"))]
            Abandonable(model.init(cx)).await;
            #[cfg(feature = "tracing")]
            super::trace::in_span(
                super::trace::init_span(&span, cx),
                Abandonable(model.init(cx)),
            )
            .await;
        }
        loop {
            let message = poll_fn(|task_cx| cx.poll_recv(task_cx)).await;
            #[cfg(not(feature = "tracing"))]
            Abandonable(model.dispatch(message, cx)).await;
            #[cfg(feature = "tracing")]
            {
                let message_span = super::trace::message_span(&span, &message, cx);
                super::trace::in_span(message_span, Abandonable(model.dispatch(message, cx))).await;
            }
        }
    }
}

/// A model method's future that completes early when a port asks for the
/// method to be abandoned (see the module docs). A plain wrapper, no
/// state of its own: the task's future does not grow.
pub(super) struct Abandonable<F>(pub(super) F);

impl<F: Future<Output = ()>> Future for Abandonable<F> {
    type Output = ();

    #[inline]
    fn poll(self: Pin<&mut Self>, task_cx: &mut TaskContext<'_>) -> Poll<()> {
        // SAFETY: the method's future is pinned with its wrapper: it is
        // never moved out of it, and the wrapper has no `Drop` or `Unpin`
        // impl of its own that could move it.
        let method = unsafe { self.map_unchecked_mut(|wrapper| &mut wrapper.0) };
        match method.poll(task_cx) {
            Poll::Ready(()) => Poll::Ready(()),
            // The method's future is dropped with the wrapper when the
            // `await` completes.
            Poll::Pending if crate::poll_report::take_abandon() => Poll::Ready(()),
            Poll::Pending => Poll::Pending,
        }
    }
}

// With tracing on, the task also holds the model's span.
#[cfg(all(test, not(causim_loom), not(feature = "tracing")))]
// The test model's generated ports are unused here.
#[allow(dead_code)]
mod size_tests {
    use super::*;
    use crate::mailbox::Mailbox;
    use crate::prelude::*;
    use crate::scheduler::SchedulerCore;
    use std::sync::Arc;

    /// A model with one word of state and one input, like the cells of a
    /// bench of 10⁶ idle models.
    #[model]
    struct Cell {
        pokes: u64,
    }

    #[model]
    impl Cell {
        #[input]
        fn poke(&mut self) {
            self.pokes += 1;
        }
    }

    /// Every idle model holds its task's future in a box of its own.
    #[test]
    fn a_small_models_task_stays_small() {
        let core = Arc::new(SchedulerCore::new(SimTime::ZERO));
        let cx = Context::new(Mailbox::<Cell>::new(), 1, core);
        let task = run_model(Cell { pokes: 0 }, cx);
        // The model, its context (which points to the channel once, through
        // the mailbox it owns) and the state of a dispatch: 96 bytes, a
        // 112-byte malloc chunk (request + 8, rounded up to 16). With a
        // separate mailbox next to the context it took 104.
        assert!(std::mem::size_of_val(&task) <= 96);
    }
}
