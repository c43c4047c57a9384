//! What the Tokio versions share: the runtime, a completion countdown and a
//! minimal discrete-event driver.
//!
//! Tokio has no simulation time, so a Tokio user who needs it writes what
//! is here: a priority queue of `(time, seq)` events, a loop that pops the
//! events due at the next time, sends each to its model's task over an
//! `mpsc` channel, and waits for every model to acknowledge before moving
//! time on. Models schedule events by sending them back to the driver with
//! their acknowledgement. This is the fair baseline for the scheduler and
//! scale workloads: the same work, done the obvious way on Tokio.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::runtime::{Builder, Runtime};
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};
use tokio::sync::Notify;

/// A current-thread runtime for 1 thread, a multi-thread one otherwise.
pub fn runtime(threads: usize) -> Runtime {
    let mut builder = if threads <= 1 {
        Builder::new_current_thread()
    } else {
        let mut b = Builder::new_multi_thread();
        b.worker_threads(threads);
        b
    };
    builder.build().expect("tokio runtime")
}

/// Counts down to zero, then wakes the one waiter.
#[derive(Debug)]
pub struct Countdown {
    left: AtomicUsize,
    zero: Notify,
}

impl Countdown {
    /// A countdown from `n`.
    pub fn new(n: usize) -> Self {
        Countdown {
            left: AtomicUsize::new(n),
            zero: Notify::new(),
        }
    }

    /// Counts one down.
    pub fn done(&self) {
        if self.left.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.zero.notify_one();
        }
    }

    /// Waits until the count reaches zero.
    pub async fn wait(&self) {
        if self.left.load(Ordering::Acquire) != 0 {
            self.zero.notified().await;
        }
    }
}

/// An event for a model: its index and a payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Delivery {
    /// The simulation time, in nanoseconds.
    pub time: u64,
    /// The model it is for.
    pub model: usize,
    /// What it carries.
    pub payload: u64,
}

/// What a model tells the driver after handling a delivery.
#[derive(Debug)]
pub enum Reply {
    /// Schedule this event (at a later time).
    Schedule(Delivery),
    /// The delivery is handled.
    Done,
}

/// The model side of the driver: receive deliveries, answer on `replies`.
#[derive(Debug)]
pub struct Port {
    /// Deliveries for this model.
    pub inbox: UnboundedReceiver<Delivery>,
    /// Where to send schedules and acknowledgements.
    pub replies: UnboundedSender<Reply>,
}

/// A queued event: `(time, seq)` order, then what to deliver and its
/// period.
type Queued = Reverse<(u64, u64, usize, u64, u64)>;

/// The driver: the event queue and a channel to every model's task.
#[derive(Debug)]
pub struct Driver {
    queue: BinaryHeap<Queued>,
    seq: u64,
    models: Vec<UnboundedSender<Delivery>>,
    replies: UnboundedReceiver<Reply>,
    reply_sender: UnboundedSender<Reply>,
    now: u64,
}

impl Driver {
    /// A driver with no models.
    pub fn new() -> Self {
        let (reply_sender, replies) = unbounded_channel();
        Driver {
            queue: BinaryHeap::new(),
            seq: 0,
            models: Vec::new(),
            replies,
            reply_sender,
            now: 0,
        }
    }

    /// Adds a model and returns its port, for its task.
    pub fn add_model(&mut self) -> Port {
        let (sender, inbox) = unbounded_channel();
        self.models.push(sender);
        Port {
            inbox,
            replies: self.reply_sender.clone(),
        }
    }

    /// Schedules `delivery`, repeating every `period` ns if non-zero.
    pub fn schedule(&mut self, delivery: Delivery, period: u64) {
        self.seq += 1;
        self.queue.push(Reverse((
            delivery.time,
            self.seq,
            delivery.model,
            delivery.payload,
            period,
        )));
    }

    /// The time of the next event, if any.
    pub fn next_time(&self) -> Option<u64> {
        self.queue.peek().map(|Reverse(e)| e.0)
    }

    /// The current time.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// Delivers every event due at the next time and waits until each
    /// model has acknowledged, taking in what they schedule. Returns the
    /// number of deliveries.
    pub async fn step(&mut self) -> u64 {
        let Some(now) = self.next_time() else {
            return 0;
        };
        self.now = now;
        let mut outstanding = 0u64;
        let mut delivered = 0;
        while let Some(&Reverse((time, _, model, payload, period))) = self.queue.peek() {
            if time != now {
                break;
            }
            self.queue.pop();
            let delivery = Delivery {
                time,
                model,
                payload,
            };
            let _ = self.models[model].send(delivery);
            outstanding += 1;
            delivered += 1;
            if period > 0 {
                self.schedule(
                    Delivery {
                        time: time + period,
                        ..delivery
                    },
                    period,
                );
            }
        }
        while outstanding > 0 {
            match self.replies.recv().await {
                Some(Reply::Schedule(d)) => self.schedule(d, 0),
                Some(Reply::Done) => outstanding -= 1,
                None => break,
            }
        }
        delivered
    }

    /// Steps until no event is due at or before `until`; returns the
    /// deliveries.
    pub async fn run_until(&mut self, until: u64) -> u64 {
        let mut delivered = 0;
        while self.next_time().is_some_and(|t| t <= until) {
            delivered += self.step().await;
        }
        delivered
    }
}

impl Default for Driver {
    fn default() -> Self {
        Self::new()
    }
}
