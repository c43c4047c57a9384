//! The bounded multi-producer, single-consumer queue behind a mailbox.
//!
//! Capacity is fixed when the mailbox is made and the storage is allocated
//! once, so a send never allocates. A producer that finds the queue full
//! registers its waker and is woken when the consumer frees a slot; a
//! consumer that finds it empty registers its waker and is woken by the next
//! push.
//!
//! Producers hand in a *constructor* rather than a message
//! ([`Channel::try_push_with`]): the message is only built once a slot is
//! known to be free, so a full queue hands the argument back intact and
//! mapping closures run exactly once per delivered message.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::task::{Context, Poll, Waker};

use crate::executor::current;

/// What a mailbox knows about the model that owns it once it is added to a
/// bench.
#[derive(Debug)]
pub(crate) struct Binding {
    /// The model instance's name, as given to `SimInit::add_model`.
    pub(crate) name: Arc<str>,
}

/// A bounded MPSC queue with async wake-ups on both sides.
pub(crate) struct Channel<T> {
    /// Queue, wakers and liveness, under one lock.
    state: Mutex<State<T>>,
    /// Maximum number of queued messages.
    capacity: usize,
    /// Set once, when the owning model is added to a bench.
    binding: OnceLock<Binding>,
    /// The model type, for error messages.
    model_type: &'static str,
}

/// The lock-protected part of a channel.
struct State<T> {
    /// Queued messages, oldest first.
    queue: VecDeque<T>,
    /// The consumer's waker, while it waits on an empty queue.
    consumer: Option<Waker>,
    /// Producers waiting for a free slot.
    producers: Vec<Waker>,
    /// False once the consumer (the model) is gone: sends become no-ops.
    open: bool,
}

/// Outcome of a push attempt that did not need to wait.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Pushed {
    /// The message is queued (or was filtered out by the constructor).
    Delivered,
    /// The model no longer exists; the message was dropped.
    Closed,
    /// The mailbox was never added to a bench; the message was dropped.
    Unbound,
}

impl<T> Channel<T> {
    /// A channel holding at most `capacity` messages (at least one).
    pub(crate) fn new(capacity: usize, model_type: &'static str) -> Self {
        let capacity = capacity.max(1);
        Channel {
            state: Mutex::new(State {
                queue: VecDeque::with_capacity(capacity),
                consumer: None,
                producers: Vec::new(),
                open: true,
            }),
            capacity,
            binding: OnceLock::new(),
            model_type,
        }
    }

    /// Locks the state; a panic elsewhere never leaves it inconsistent
    /// because every critical section is panic-free, so poisoning is ignored.
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The capacity given at construction.
    pub(crate) fn capacity(&self) -> usize {
        self.capacity
    }

    /// The model type this channel feeds.
    pub(crate) fn model_type(&self) -> &'static str {
        self.model_type
    }

    /// Records the model instance that owns this channel; false if it was
    /// already added to a bench.
    pub(crate) fn bind(&self, name: Arc<str>) -> bool {
        self.binding.set(Binding { name }).is_ok()
    }

    /// The owning model instance's name, once added to a bench.
    pub(crate) fn name(&self) -> Option<&Arc<str>> {
        self.binding.get().map(|b| &b.name)
    }

    /// Pushes `make(arg)` if a slot is free.
    ///
    /// When the queue is full, registers `cx`'s waker and returns `arg`
    /// untouched. When the model is gone or was never added, drops `arg` and
    /// says so. `make` returning `None` delivers nothing (filtered out).
    pub(crate) fn try_push_with<A>(
        &self,
        arg: A,
        make: impl FnOnce(A) -> Option<T>,
        cx: &mut Context<'_>,
    ) -> Result<Pushed, A> {
        // Messages to a mailbox that was never added are a user error.
        if self.binding.get().is_none() {
            return Ok(Pushed::Unbound);
        }
        let mut state = self.lock();
        // A model that no longer exists swallows messages.
        if !state.open {
            return Ok(Pushed::Closed);
        }
        // Full: wait for the consumer to free a slot.
        if state.queue.len() >= self.capacity {
            let waker = cx.waker();
            if !state.producers.iter().any(|w| w.will_wake(waker)) {
                state.producers.push(waker.clone());
            }
            return Err(arg);
        }
        // Free slot: build the message and wake the consumer.
        if let Some(message) = make(arg) {
            state.queue.push_back(message);
            let consumer = state.consumer.take();
            drop(state);
            if let Some(waker) = consumer {
                waker.wake();
            }
        }
        Ok(Pushed::Delivered)
    }

    /// Pops the oldest message, or registers the consumer's waker.
    pub(crate) fn poll_pop(&self, cx: &mut Context<'_>) -> Poll<T> {
        let mut state = self.lock();
        match state.queue.pop_front() {
            Some(message) => {
                // Leaving a full queue: every waiting producer may retry.
                let producers = if state.producers.is_empty() {
                    Vec::new()
                } else {
                    std::mem::take(&mut state.producers)
                };
                drop(state);
                producers.into_iter().for_each(Waker::wake);
                Poll::Ready(message)
            }
            None => {
                match &mut state.consumer {
                    Some(w) if w.will_wake(cx.waker()) => {}
                    slot => *slot = Some(cx.waker().clone()),
                }
                Poll::Pending
            }
        }
    }

    /// True when the consumer waits on an empty queue: the model is idle.
    pub(crate) fn is_idle(&self) -> bool {
        let state = self.lock();
        state.queue.is_empty() && state.consumer.is_some()
    }

    /// Number of queued messages.
    pub(crate) fn len(&self) -> usize {
        self.lock().queue.len()
    }

    /// Closes the channel when the model goes away: queued messages are
    /// dropped (abandoning their reply slots) and waiting producers released.
    pub(crate) fn close(&self) {
        let mut state = self.lock();
        state.open = false;
        let queue = std::mem::take(&mut state.queue);
        let producers = std::mem::take(&mut state.producers);
        state.consumer = None;
        drop(state);
        drop(queue);
        producers.into_iter().for_each(Waker::wake);
    }
}

/// Reports an undeliverable message from inside a model to the running
/// simulation. Sends from the bench are checked before they start.
pub(crate) fn report_unbound(model_type: &'static str, port: &'static str) {
    current::report_unbound_recipient(model_type, port);
}
