//! Sinks: read a model's outputs from the bench.
//!
//! A sink is connected to an output like an input is, and read from outside
//! the simulation between steps. [`EventSlot`] keeps the latest value;
//! [`EventQueue`] keeps every value in arrival order. Both are cheap
//! cloneable handles: keep one, connect the other. [`CallbackSink`] calls
//! a function with each value as it is sent, on the sending model's
//! thread: the narrow interface on which recorders (crate
//! `causim-record`) are built without reaching into the ports.

use std::collections::VecDeque;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::task::Context;

use super::link::{Recipient, SinkKey};
use super::target::Target;
use crate::mailbox::WaitTicket;
use crate::sync::lock;

/// Something an output can be connected to from the bench.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a sink for `{T}`",
    label = "expected `EventSlot<{T}>`, `EventQueue<{T}>` or `CallbackSink<{T}>`"
)]
pub trait Sink<T: Send + 'static> {
    /// The connection an output pushes into.
    #[doc(hidden)]
    #[allow(private_interfaces)]
    fn target(&self) -> Arc<dyn Target<T>>;
}

/// The identity of `sink`, as its connections name it (cold: a sink
/// registered for the topology export).
pub(crate) fn sink_key<T: Send + 'static>(sink: &impl Sink<T>) -> SinkKey {
    SinkKey::of(&*sink.target())
}

/// A sink that keeps only the latest value.
pub struct EventSlot<T> {
    /// The latest value not yet taken.
    latest: Arc<Mutex<Option<T>>>,
}

impl<T: Send + 'static> EventSlot<T> {
    /// An empty slot.
    pub fn new() -> Self {
        EventSlot {
            latest: Arc::new(Mutex::new(None)),
        }
    }

    /// Takes the latest value, leaving the slot empty.
    pub fn take(&self) -> Option<T> {
        lock(&self.latest).take()
    }

    /// A copy of the latest value, leaving it in place.
    pub fn peek(&self) -> Option<T>
    where
        T: Clone,
    {
        lock(&self.latest).clone()
    }
}

impl<T: Send + 'static> Target<T> for Mutex<Option<T>> {
    fn try_send(
        &self,
        value: T,
        _: &mut Context<'_>,
        _: Option<&mut WaitTicket<'_>>,
    ) -> Result<(), T> {
        self.send_from_bench(value);
        Ok(())
    }

    fn send_from_bench(&self, value: T) {
        *lock(self) = Some(value);
    }

    fn link(&self) -> Recipient {
        Recipient::Sink(SinkKey::of(self))
    }
}

impl<T: Send + 'static> Sink<T> for EventSlot<T> {
    #[allow(private_interfaces)]
    fn target(&self) -> Arc<dyn Target<T>> {
        self.latest.clone()
    }
}

impl<T> Clone for EventSlot<T> {
    fn clone(&self) -> Self {
        EventSlot {
            latest: self.latest.clone(),
        }
    }
}

impl<T: Send + 'static> Default for EventSlot<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> fmt::Debug for EventSlot<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventSlot")
            .field("payload", &std::any::type_name::<T>())
            .finish()
    }
}

/// A sink that keeps every value, oldest first.
pub struct EventQueue<T> {
    /// Values not yet taken.
    values: Arc<Mutex<VecDeque<T>>>,
}

impl<T: Send + 'static> EventQueue<T> {
    /// An empty queue.
    pub fn new() -> Self {
        EventQueue {
            values: Arc::new(Mutex::new(VecDeque::new())),
        }
    }

    /// Takes the oldest value.
    pub fn pop(&self) -> Option<T> {
        lock(&self.values).pop_front()
    }

    /// Takes every value, oldest first.
    pub fn take_all(&self) -> Vec<T> {
        lock(&self.values).drain(..).collect()
    }

    /// Number of values waiting.
    pub fn len(&self) -> usize {
        lock(&self.values).len()
    }

    /// True if no value waits.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T: Send + 'static> Target<T> for Mutex<VecDeque<T>> {
    fn try_send(
        &self,
        value: T,
        _: &mut Context<'_>,
        _: Option<&mut WaitTicket<'_>>,
    ) -> Result<(), T> {
        self.send_from_bench(value);
        Ok(())
    }

    fn send_from_bench(&self, value: T) {
        lock(self).push_back(value);
    }

    fn link(&self) -> Recipient {
        Recipient::Sink(SinkKey::of(self))
    }
}

impl<T: Send + 'static> Sink<T> for EventQueue<T> {
    #[allow(private_interfaces)]
    fn target(&self) -> Arc<dyn Target<T>> {
        self.values.clone()
    }
}

impl<T> Clone for EventQueue<T> {
    fn clone(&self) -> Self {
        EventQueue {
            values: self.values.clone(),
        }
    }
}

impl<T: Send + 'static> Default for EventQueue<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> fmt::Debug for EventQueue<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventQueue")
            .field("payload", &std::any::type_name::<T>())
            .finish()
    }
}

/// A sink that calls a function with each value, at the moment it is sent
/// (on the thread of the sending model, within its time step).
///
/// The function must be quick and must not block: the sender waits for it.
/// It is shared by every clone of the sink and by every output connected
/// to it, so with several threads it may be called concurrently (hence
/// `Fn + Send + Sync`).
///
/// ```
/// # use causim::prelude::*;
/// # use causim::CallbackSink;
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use std::sync::Arc;
///
/// let total = Arc::new(AtomicU64::new(0));
/// let seen = total.clone();
/// let sink = CallbackSink::new(move |v: u64| {
///     seen.fetch_add(v, Ordering::Relaxed);
/// });
/// let mut out = Output::<u64>::new();
/// out.connect_sink(&sink);
/// ```
pub struct CallbackSink<T> {
    /// The connection: the function, behind one pointer.
    target: Arc<dyn Target<T>>,
}

/// The connection of a [`CallbackSink`]: the function itself, so that a
/// send costs one dynamic call, as for the other sinks.
struct CallbackTarget<F>(F);

impl<T, F> Target<T> for CallbackTarget<F>
where
    T: Send + 'static,
    F: Fn(T) + Send + Sync + 'static,
{
    #[inline]
    fn try_send(
        &self,
        value: T,
        _: &mut Context<'_>,
        _: Option<&mut WaitTicket<'_>>,
    ) -> Result<(), T> {
        (self.0)(value);
        Ok(())
    }

    fn send_from_bench(&self, value: T) {
        (self.0)(value);
    }

    fn link(&self) -> Recipient {
        Recipient::Sink(SinkKey::of(self))
    }
}

impl<T: Send + 'static> CallbackSink<T> {
    /// A sink that calls `callback` with each value.
    pub fn new(callback: impl Fn(T) + Send + Sync + 'static) -> Self {
        CallbackSink {
            target: Arc::new(CallbackTarget(callback)),
        }
    }
}

impl<T: Send + 'static> Sink<T> for CallbackSink<T> {
    #[allow(private_interfaces)]
    fn target(&self) -> Arc<dyn Target<T>> {
        self.target.clone()
    }
}

impl<T> Clone for CallbackSink<T> {
    fn clone(&self) -> Self {
        CallbackSink {
            target: self.target.clone(),
        }
    }
}

impl<T> fmt::Debug for CallbackSink<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallbackSink")
            .field("payload", &std::any::type_name::<T>())
            .finish()
    }
}
