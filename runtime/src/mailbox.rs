//! Mailboxes and addresses.
//!
//! Every model has exactly one [`Mailbox`]: a bounded queue of its
//! [`Model::Message`]s, consumed by the model's own task one message at a
//! time. An [`Address`] is a cheap, cloneable handle for sending to it.
//!
//! - A full mailbox makes the sender wait (async back-pressure) until the
//!   model takes a message. Waiting senders are served first come first
//!   served, one woken per freed slot (see `wait_list`).
//! - The bench's own deliveries (due events, `process_event`) never wait:
//!   what does not fit goes to the mailbox's overflow, and models' messages
//!   queue behind it within the capacity (see `overflow`).
//! - A send to a model that no longer exists is a no-op.
//! - A send to a mailbox that was never added to the bench is reported as
//!   [`SimulationError::NoRecipient`](crate::SimulationError::NoRecipient).
//! - A mailbox belongs to the bench it was added to: a send from another
//!   bench is refused and reported as
//!   [`SimulationError::ForeignAddress`](crate::SimulationError::ForeignAddress).

pub(crate) mod bound;
pub(crate) mod channel;
pub(crate) mod overflow;
pub(crate) mod queue;
mod wait_list;

use std::fmt;
use std::sync::Arc;
use std::task::{Context, Poll};

use crate::model::Model;
use channel::Channel;
pub(crate) use wait_list::WaitTicket;

/// Number of messages a mailbox holds unless told otherwise.
///
/// Large enough that fan-in bursts rarely make senders wait, small enough
/// that an idle model costs a few hundred bytes.
pub const DEFAULT_CAPACITY: usize = 16;

/// The receiving end of a model's message queue.
///
/// Create it before the model is added to the bench so that other models
/// can be connected to it, then hand it to
/// [`SimInit::add_model`](crate::SimInit::add_model).
pub struct Mailbox<M: Model> {
    /// The address of its queue, which it alone consumes; held as an
    /// address so that a model's context, which owns its mailbox, can lend
    /// it out.
    address: Address<M>,
}

impl<M: Model> Mailbox<M> {
    /// A mailbox with the [default capacity](DEFAULT_CAPACITY).
    pub fn new() -> Self {
        Self::with_capacity(DEFAULT_CAPACITY)
    }

    /// A mailbox holding at most `capacity` messages (at least one).
    ///
    /// A `capacity` of zero is taken as one. The mailbox's ring of slots
    /// is allocated in one piece by its first message and is at most
    /// 64 MiB: a larger `capacity` (such as `usize::MAX`, meant as "no
    /// limit") is clamped to what fits, 64 MiB divided by the size of a
    /// slot (the model's message type plus 8 bytes, rounded up to its
    /// alignment; 4 Mi messages of up to 8 bytes), and never above
    /// `2^31 - 1`. [`capacity`](Mailbox::capacity) says what was granted.
    pub fn with_capacity(capacity: usize) -> Self {
        Mailbox {
            address: Address {
                channel: Arc::new(Channel::new(capacity)),
            },
        }
    }

    /// An address for sending to this mailbox.
    pub fn address(&self) -> Address<M> {
        self.address.clone()
    }

    /// The maximum number of queued messages.
    pub fn capacity(&self) -> usize {
        self.channel().capacity()
    }

    /// The shared queue, for the model's task.
    pub(crate) fn channel(&self) -> &Arc<Channel<M::Message>> {
        &self.address.channel
    }

    /// Its own address, borrowed.
    pub(crate) fn address_ref(&self) -> &Address<M> {
        &self.address
    }

    /// Takes the oldest message, or registers the model task's waker.
    pub(crate) fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<M::Message> {
        // SAFETY: a `Mailbox` is the only consumer of its channel: it is
        // made with a fresh channel, is not `Clone`, and `&mut self` rules
        // out two concurrent calls.
        unsafe { self.address.channel.poll_pop(cx) }
    }
}

impl<M: Model> Default for Mailbox<M> {
    fn default() -> Self {
        Self::new()
    }
}

impl<M: Model> Drop for Mailbox<M> {
    /// The model is gone: later sends are no-ops.
    fn drop(&mut self) {
        // SAFETY: the mailbox is its channel's only consumer (see
        // `poll_recv`), and `&mut self` rules out a concurrent pop.
        unsafe { self.address.channel.close() };
    }
}

impl<M: Model> fmt::Debug for Mailbox<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Mailbox")
            .field("model", &M::metadata().type_name)
            .field("name", &self.channel().name())
            .field("capacity", &self.capacity())
            .finish()
    }
}

/// A handle for sending messages to a model's mailbox.
pub struct Address<M: Model> {
    /// The queue of the model this address points to.
    channel: Arc<Channel<M::Message>>,
}

impl<M: Model> Address<M> {
    /// The model instance's name, once its mailbox was added to a bench.
    pub fn name(&self) -> Option<&str> {
        self.channel.name()
    }

    /// True if both addresses point to the same mailbox.
    pub fn same_mailbox(&self, other: &Address<M>) -> bool {
        Arc::ptr_eq(&self.channel, &other.channel)
    }

    /// The shared queue.
    pub(crate) fn channel(&self) -> &Arc<Channel<M::Message>> {
        &self.channel
    }

    /// The type name of the model it points to, for error messages.
    pub(crate) fn model_type(&self) -> &'static str {
        M::metadata().type_name
    }
}

impl<M: Model> Clone for Address<M> {
    fn clone(&self) -> Self {
        Address {
            channel: self.channel.clone(),
        }
    }
}

impl<M: Model> fmt::Debug for Address<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Address")
            .field("model", &M::metadata().type_name)
            .field("name", &self.channel.name())
            .finish()
    }
}

/// Something that designates the mailbox of a model of type `M`.
///
/// Implemented by `&Mailbox<M>`, `&Address<M>` and `Address<M>`, so every
/// `connect` call can take whichever the bench has at hand. A port of one
/// model type with the mailbox of another is a compile error.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not the mailbox or address of a `{M}` model",
    label = "expected the mailbox or address of a `{M}`",
    note = "the port belongs to `{M}`: pass `&Mailbox<{M}>` or `Address<{M}>` of the model that owns the port"
)]
pub trait IntoAddress<M: Model> {
    /// The address designated.
    fn into_address(self) -> Address<M>;
}

impl<M: Model> IntoAddress<M> for &Mailbox<M> {
    fn into_address(self) -> Address<M> {
        self.address()
    }
}

impl<M: Model> IntoAddress<M> for &Address<M> {
    fn into_address(self) -> Address<M> {
        self.clone()
    }
}

impl<M: Model> IntoAddress<M> for Address<M> {
    fn into_address(self) -> Address<M> {
        self
    }
}
