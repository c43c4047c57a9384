//! A model that the bench can reach between steps, without a message:
//! how a saveable model runs.
//!
//! Saving a bench reads every model's state, and restoring one writes it.
//! Reaching a model through its mailbox (a message its own task runs)
//! costs a message per model — making it, queueing it, waking and polling
//! the task, collecting its report — and the first message an idle model
//! gets makes its mailbox allocate its ring, which stays. For a bench of
//! 10⁶ models that was most of a save. A saveable model's task therefore
//! keeps the model and its context in a [`SharedModel`], a cell that the
//! snapshot code also holds, and that it reads or writes directly, on the
//! driving thread, at the two moments when no task can be running:
//!
//! - between two steps of a simulation (`Simulation::save`, which takes
//!   the simulation by `&mut`): every executor has finished polling, and
//!   the step's end is ordered before the call by the executor's own
//!   synchronisation (its run returns only once every worker is idle);
//! - before the bench starts (`SimInit::restore`): no task was ever
//!   polled.
//!
//! Even then a model may be in the middle of a method — blocked on a reply
//! that a failed step left unanswered — and that method's future holds
//! `&mut` borrows of the model and its context. And a thread outside the
//! simulation can send to a mailbox between steps, which on several
//! threads has a worker poll the task while the bench is being saved. So
//! the cell has a [`Gate`]: the task holds it from the moment it polls for
//! a message until it waits for the next one with its mailbox empty (then
//! it holds no borrow of the model or its context: it re-borrows them from
//! the cell for each use); the snapshot code reaches a model only through
//! the gate, and refuses one whose task holds it.
//!
//! A model that is not saveable runs as before ([`run_model`](super::run_model)),
//! inline in its task's future: it pays for none of this.

use std::cell::UnsafeCell;
use std::future::poll_fn;
use std::sync::Arc;
use std::task::Poll;

use super::run::Abandonable;
use crate::context::Context;
use crate::model::Model;
use crate::prefetch::prefetch;
use crate::sync::Gate;

/// A saveable model and its context, shared by the model's task and the
/// bench's snapshot code (see the module docs for who may touch it when).
pub(crate) struct SharedModel<M: Model> {
    /// The cell, one allocation per model.
    cell: Arc<Cell<M>>,
}

/// What a [`SharedModel`] points to.
struct Cell<M: Model> {
    /// The model and its context.
    parts: UnsafeCell<(M, Context<M>)>,
    /// Held by the task from its poll for a message until it waits with
    /// its mailbox empty, or by the snapshot code while it reaches the
    /// parts.
    gate: Gate,
}

// SAFETY: the parts are reached only by whoever holds the gate: the task
// (polled by one thread at a time) or the snapshot code. What crosses
// threads is `M` and `Context<M>`, which are `Send`.
unsafe impl<M: Model> Sync for Cell<M> {}

impl<M: Model> Clone for SharedModel<M> {
    fn clone(&self) -> Self {
        SharedModel {
            cell: self.cell.clone(),
        }
    }
}

impl<M: Model> SharedModel<M> {
    /// The cell of `model` and its context.
    pub(crate) fn new(model: M, cx: Context<M>) -> Self {
        SharedModel {
            cell: Arc::new(Cell {
                parts: UnsafeCell::new((model, cx)),
                gate: Gate::new(),
            }),
        }
    }

    /// Starts loading the cell's gate and the start of its parts, which
    /// [`with_idle`](Self::with_idle) reads first.
    #[inline]
    pub(crate) fn prefetch(&self) {
        prefetch(&self.cell.gate);
        prefetch(self.cell.parts.get());
    }

    /// Runs `f` on the model and its context, if its task is idle (waiting
    /// for a message with its mailbox empty, or not started); `None` if it
    /// holds the gate: in the middle of a method, or (after a send from
    /// outside the simulation) being polled.
    pub(crate) fn with_idle<R>(&self, f: impl FnOnce(&mut M, &mut Context<M>) -> R) -> Option<R> {
        if !self.cell.gate.try_enter_outside() {
            return None;
        }
        /// Gives the gate back, even if `f` panics.
        struct Leave<'a>(&'a Gate);
        impl Drop for Leave<'_> {
            fn drop(&mut self) {
                self.0.leave_outside();
            }
        }
        let _leave = Leave(&self.cell.gate);
        // SAFETY: the gate is held, and a task that does not hold it holds
        // no borrow of the parts (see `run`): this is the only reference.
        let (model, cx) = unsafe { &mut *self.cell.parts.get() };
        Some(f(model, cx))
    }

    /// The model's task: `run_model`'s steps, with the parts borrowed from
    /// the cell under the gate, never across a wait with the mailbox empty.
    pub(crate) async fn run(self) {
        let cell = &*self.cell;
        cell.gate.enter();
        #[cfg(feature = "tracing")]
        // SAFETY: the gate is held; the borrow ends with the statement.
        let span = super::trace::model_span(unsafe { &(*cell.parts.get()).1 });
        {
            // SAFETY: the gate is held until the task waits for a
            // message with its mailbox empty, after these borrows end.
            let (model, cx) = unsafe { &mut *cell.parts.get() };
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
        }
        loop {
            // Held since the last message (or the start).
            let mut held = true;
            let message = poll_fn(|task_cx| next_message(cell, &mut held, task_cx)).await;
            // SAFETY: `next_message` returned holding the gate, held
            // until the next wait with the mailbox empty (as above).
            let (model, cx) = unsafe { &mut *cell.parts.get() };
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

/// One poll of the task for its next message: takes the gate unless
/// `held`, and gives it back if the mailbox is empty.
#[inline]
fn next_message<M: Model>(
    cell: &Cell<M>,
    held: &mut bool,
    task_cx: &mut std::task::Context<'_>,
) -> Poll<M::Message> {
    if !*held {
        cell.gate.enter();
        *held = true;
    }
    // SAFETY: the gate is held; the borrow ends with the call.
    let polled = unsafe { (*cell.parts.get()).1.poll_recv(task_cx) };
    if polled.is_pending() {
        cell.gate.leave();
        *held = false;
    }
    polled
}
