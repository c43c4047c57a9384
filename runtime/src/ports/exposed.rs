//! A port of one model instance: what a composite exposes.
//!
//! An [`InputPort`] names a method of a model *type*; connecting to it also
//! takes the *instance*'s mailbox. A composite that shows the bench one of
//! its submodels' inputs hands out both at once, as an [`InputRef`] (or a
//! [`ReplierRef`] for a replier), and keeps the rest of the submodel
//! private. A connection made through a reference is the same connection
//! as one made with the port and address directly: nothing stands between
//! the sender and the inner model when the bench runs.

use std::fmt;

use super::event::Event;
use super::input::{InputFor, InputPort, ReplierFor, ReplierPort};
use crate::mailbox::{Address, IntoAddress};
use crate::model::Model;

/// Input `port` of the model at `address`: an input a composite exposes.
///
/// Outputs and event sources connect to it with `connect_to` (and the
/// `map_`/`filter_map_` forms); the bench sends to it with
/// [`event`](InputRef::event).
pub struct InputRef<M: Model, T> {
    /// The input.
    port: InputPort<M, T>,
    /// The mailbox of the model instance that owns it.
    address: Address<M>,
}

impl<M: Model, T> InputRef<M, T> {
    /// Input `port` of the model whose mailbox `address` designates.
    pub fn new<P>(port: P, address: impl IntoAddress<M>) -> Self
    where
        P: InputFor<T, Model = M>,
    {
        InputRef {
            port: port.into_input_port(),
            address: address.into_address(),
        }
    }

    /// The input port.
    pub fn port(&self) -> InputPort<M, T> {
        self.port
    }

    /// The address of the model instance.
    pub fn address(&self) -> &Address<M> {
        &self.address
    }

    /// An event delivering `payload` to this input, for
    /// `Simulation::process` or `Scheduler::schedule_event`.
    pub fn event(&self, payload: T) -> Event
    where
        T: Send + 'static,
    {
        Event::new(self.port, payload, &self.address)
    }
}

impl<M: Model, T> Clone for InputRef<M, T> {
    fn clone(&self) -> Self {
        InputRef {
            port: self.port,
            address: self.address.clone(),
        }
    }
}

impl<M: Model, T> fmt::Debug for InputRef<M, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InputRef")
            .field("port", &self.port)
            .field("model", &self.address.name())
            .finish()
    }
}

/// Replier `port` of the model at `address`: a replier a composite
/// exposes.
///
/// Requestors and query sources connect to it with `connect_to`;
/// [`UniRequestor::to`](crate::UniRequestor::to) builds a requestor
/// connected to it.
pub struct ReplierRef<M: Model, T, R> {
    /// The replier.
    port: ReplierPort<M, T, R>,
    /// The mailbox of the model instance that owns it.
    address: Address<M>,
}

impl<M: Model, T, R> ReplierRef<M, T, R> {
    /// Replier `port` of the model whose mailbox `address` designates.
    pub fn new<P>(port: P, address: impl IntoAddress<M>) -> Self
    where
        P: ReplierFor<T, R, Model = M>,
    {
        ReplierRef {
            port: port.into_replier_port(),
            address: address.into_address(),
        }
    }

    /// The replier port.
    pub fn port(&self) -> ReplierPort<M, T, R> {
        self.port
    }

    /// The address of the model instance.
    pub fn address(&self) -> &Address<M> {
        &self.address
    }
}

impl<M: Model, T, R> Clone for ReplierRef<M, T, R> {
    fn clone(&self) -> Self {
        ReplierRef {
            port: self.port,
            address: self.address.clone(),
        }
    }
}

impl<M: Model, T, R> fmt::Debug for ReplierRef<M, T, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReplierRef")
            .field("port", &self.port)
            .field("model", &self.address.name())
            .finish()
    }
}
