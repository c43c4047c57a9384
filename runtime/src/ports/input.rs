//! Typed descriptors of a model's receiving ports.
//!
//! An [`InputPort<M, T>`] names an input of model `M` taking payload `T`; a
//! [`ReplierPort<M, T, R>`] names a replier of `M` taking request `T` and
//! answering `R`. They are plain data — a port name and the constructor of
//! the message variant — so they are `Copy` and free to pass around.
//! `#[model]` generates one per port, reachable as `Model::ports().name`.
//!
//! Every API that accepts a port is generic over the traits below rather
//! than over the concrete descriptor, so that a wrong connection fails with a
//! message that names both types (`#[diagnostic::on_unimplemented]`) at the
//! user's `connect` line.

use std::fmt;

use super::reply::ReplySender;
use crate::model::Model;

/// Describes input `name` of model `M`, which receives payloads of type `T`.
pub struct InputPort<M: Model, T> {
    /// The port's name (the method name).
    name: &'static str,
    /// Builds the message variant that carries the payload.
    wrap: fn(T) -> M::Message,
}

impl<M: Model, T> InputPort<M, T> {
    /// A descriptor for input `name`, whose messages `wrap` builds.
    pub const fn new(name: &'static str, wrap: fn(T) -> M::Message) -> Self {
        InputPort { name, wrap }
    }

    /// The port's name.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The message that delivers `payload` to this port.
    pub fn message(&self, payload: T) -> M::Message {
        (self.wrap)(payload)
    }
}

impl<M: Model, T> Clone for InputPort<M, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<M: Model, T> Copy for InputPort<M, T> {}

impl<M: Model, T> fmt::Debug for InputPort<M, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "InputPort<{}, {}>({})",
            M::metadata().type_name,
            std::any::type_name::<T>(),
            self.name
        )
    }
}

/// Describes replier `name` of model `M`: requests of type `T`, replies `R`.
pub struct ReplierPort<M: Model, T, R> {
    /// The port's name (the method name).
    name: &'static str,
    /// Builds the message variant that carries the request and reply slot.
    wrap: fn(T, ReplySender<R>) -> M::Message,
}

impl<M: Model, T, R> ReplierPort<M, T, R> {
    /// A descriptor for replier `name`, whose messages `wrap` builds.
    pub const fn new(name: &'static str, wrap: fn(T, ReplySender<R>) -> M::Message) -> Self {
        ReplierPort { name, wrap }
    }

    /// The port's name.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The message that delivers `request` to this port, replying to `reply`.
    pub fn message(&self, request: T, reply: ReplySender<R>) -> M::Message {
        (self.wrap)(request, reply)
    }
}

impl<M: Model, T, R> Clone for ReplierPort<M, T, R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<M: Model, T, R> Copy for ReplierPort<M, T, R> {}

impl<M: Model, T, R> fmt::Debug for ReplierPort<M, T, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ReplierPort<{}, {}, {}>({})",
            M::metadata().type_name,
            std::any::type_name::<T>(),
            std::any::type_name::<R>(),
            self.name
        )
    }
}

/// An input port that accepts payloads of type `T`.
///
/// Outputs, event sources and the bench scheduler accept any `InputFor<T>`;
/// only `InputPort<_, T>` implements it, so a payload mismatch or a plain
/// method passed instead of a port is rejected at compile time.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an input port that accepts `{T}`",
    label = "expected an input port for `{T}`",
    note = "events here are `{T}`: pass an `InputPort<_, {T}>`, e.g. `MyModel::ports().my_input` for a method marked `#[input]`",
    note = "to adapt the payload, use `map_connect` or `filter_map_connect`"
)]
pub trait InputFor<T> {
    /// The model owning the port.
    type Model: Model;

    /// The concrete descriptor.
    fn into_input_port(self) -> InputPort<Self::Model, T>;
}

impl<M: Model, T> InputFor<T> for InputPort<M, T> {
    type Model = M;

    fn into_input_port(self) -> InputPort<M, T> {
        self
    }
}

/// A replier port that takes requests of type `T` and replies with `R`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a replier port taking `{T}` and returning `{R}`",
    label = "expected a replier port taking `{T}` and returning `{R}`",
    note = "requests here are `{T}` and replies `{R}`: pass a `ReplierPort<_, {T}, {R}>`, e.g. `MyModel::ports().my_replier` for a method marked `#[replier]`",
    note = "to adapt the request or the reply, use `map_connect`"
)]
pub trait ReplierFor<T, R> {
    /// The model owning the port.
    type Model: Model;

    /// The concrete descriptor.
    fn into_replier_port(self) -> ReplierPort<Self::Model, T, R>;
}

impl<M: Model, T, R> ReplierFor<T, R> for ReplierPort<M, T, R> {
    type Model = M;

    fn into_replier_port(self) -> ReplierPort<M, T, R> {
        self
    }
}

/// Never implemented: the bound that makes an [`InputPort`] passed where a
/// replier is expected fail with this message, which says what the port is,
/// rather than with [`ReplierFor`]'s, which can only say what it is not
/// (and, when the request and reply types are still being inferred, shows
/// them as `_`).
///
/// Not nameable outside the crate, and not implementable (both the trait
/// and `InputPort` are foreign to a user crate).
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is an input port: it takes events, not requests",
    label = "an input port, where a replier port is expected",
    note = "a request (from a `Requestor`, a `QuerySource` or `process_query`) goes to a method marked `#[replier]`, which returns the reply: pass its descriptor, e.g. `MyModel::ports().my_replier`",
    note = "to send an event to this input instead, use an `Output`, an `EventSource` or `process_event`"
)]
pub trait NotAReplier {
    /// Cannot be called: no type implements this trait.
    fn never<P>(self) -> P;
}

/// Never implemented: makes a [`ReplierPort`] passed where an input is
/// expected fail with this message (see [`NotAReplier`]).
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is a replier port: it answers requests, not events",
    label = "a replier port, where an input port is expected",
    note = "an event (from an `Output`, an `EventSource`, a scheduler or `process_event`) goes to a method marked `#[input]`: pass its descriptor, e.g. `MyModel::ports().my_input`",
    note = "to send a request to this replier instead, use a `Requestor`, a `QuerySource` or `process_query`"
)]
pub trait NotAnInput {
    /// Cannot be called: no type implements this trait.
    fn never<P>(self) -> P;
}

/// Only so that the error is [`NotAReplier`]'s: its bound never holds.
impl<M: Model, T, U, R> ReplierFor<U, R> for InputPort<M, T>
where
    InputPort<M, T>: NotAReplier,
{
    type Model = M;

    fn into_replier_port(self) -> ReplierPort<M, U, R> {
        self.never()
    }
}

/// Only so that the error is [`NotAnInput`]'s: its bound never holds.
impl<M: Model, T, R, U> InputFor<U> for ReplierPort<M, T, R>
where
    ReplierPort<M, T, R>: NotAnInput,
{
    type Model = M;

    fn into_input_port(self) -> InputPort<M, U> {
        self.never()
    }
}

/// An input port of model `M` taking `T`: what a model may schedule on
/// itself through its [`Context`](crate::Context).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an input port of `{M}`",
    label = "a model can only schedule events on its own input ports",
    note = "this context belongs to `{M}`: use one of its inputs, `{M}::ports().<input>`, with a payload of the input's type",
    note = "to act on another model, send through an output, or schedule from the bench with `Scheduler`"
)]
pub trait OwnInput<M: Model, T> {
    /// The concrete descriptor.
    fn into_own_port(self) -> InputPort<M, T>;
}

impl<M: Model, T> OwnInput<M, T> for InputPort<M, T> {
    fn into_own_port(self) -> InputPort<M, T> {
        self
    }
}
