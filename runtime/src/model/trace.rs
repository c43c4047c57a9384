//! Tracing spans of a model's task (feature `tracing`).
//!
//! A `model` span per model, with its path in the bench and its type, is
//! the parent of a `message` span per handled message, with the port's
//! name and the simulation time; the `init` hook runs in an `init` span.
//! Any event a model method logs with `tracing` is then shown inside
//! both, so a log reads "which model, which port, at what simulated time".
//!
//! The model span is made once, when the task starts, and the message
//! spans at `debug` level: with no subscriber, or one that filters `debug`
//! out, a message costs one check of the subscriber's interest. With the
//! feature off none of this is compiled (`model/run.rs` holds the only
//! hooks, under `#[cfg(feature = "tracing")]`).

use std::future::Future;

use tracing::{Instrument, Span};

use crate::context::Context;
use crate::model::Model;

/// The span of the model that `cx` belongs to.
pub(super) fn model_span<M: Model>(cx: &Context<M>) -> Span {
    tracing::info_span!("model", path = cx.name(), r#type = M::metadata().type_name)
}

/// The span of the `init` hook, under the model's.
pub(super) fn init_span<M: Model>(model: &Span, cx: &Context<M>) -> Span {
    tracing::debug_span!(parent: model, "init", time = %cx.time())
}

/// The span of handling `message`, under the model's.
#[inline]
pub(super) fn message_span<M: Model>(model: &Span, message: &M::Message, cx: &Context<M>) -> Span {
    tracing::debug_span!(
        parent: model,
        "message",
        port = M::port_name(message),
        time = %cx.time()
    )
}

/// `future` run inside `span`.
#[inline]
pub(super) fn in_span<F: Future>(span: Span, future: F) -> impl Future<Output = F::Output> {
    future.instrument(span)
}
