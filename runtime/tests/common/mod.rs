//! Shared pieces of the runtime's integration tests.
//!
//! - [`sim_init`]: the ONE place every test builds its bench. The suite
//!   runs unchanged on every executor: this function picks the thread
//!   count ([`threads`]) and every test follows.
//! - [`deterministic`]: whether the executor in use promises a global,
//!   repeatable order across models (only the single-threaded one does);
//!   tests that compare the interleaving of *different* models check it.
//! - Generic models shared by the tests: [`Recorder`], [`Forwarder`],
//!   [`Emitter`], [`Requester`], [`Replier`], written with `#[model]` like
//!   the tests' own models. (The hand-written `Model` path is covered by
//!   `macro_vs_hand.rs` and the `model` module's doctest.)
//!
//! - [`Wrap`] and [`Nest`]: composites that put any model, or any
//!   composite, under a name, for the tests that check an error names a
//!   model by its path.
//!
//! Each test binary uses a different subset of this module.
#![allow(dead_code, unused_imports)]

use std::fmt;
use std::sync::{Arc, Mutex};

pub use causim::model::ModelMetadata;
pub use causim::ports::ReplySender;
pub use causim::prelude::*;

/// The bench builder every test uses, on [`threads`] threads.
///
/// On 4 threads a worker is woken whenever two models are ready (a wake
/// threshold of 1, the schedule where threads interleave most); on 2, the
/// default threshold, which leaves a step of a few light models to the
/// calling thread: the matrix covers both.
pub fn sim_init() -> SimInit {
    let init = SimInit::new().with_threads(threads());
    if threads() >= 4 {
        init.with_wake_threshold(1)
    } else {
        init
    }
}

/// The number of threads the suite runs on.
///
/// Every test file is its own target, run on the deterministic
/// single-threaded executor; the targets `mt2` and `mt4` compile the same
/// files again as modules (see `tests/matrix/suite.rs`) and run them on 2
/// and 4 threads, so `cargo test` covers all three without copying a test.
/// `CAUSIM_TEST_THREADS=n` moves the single-file targets to `n` threads.
pub fn threads() -> usize {
    match env!("CARGO_CRATE_NAME") {
        "mt2" => 2,
        "mt4" => 4,
        _ => std::env::var("CAUSIM_TEST_THREADS")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(1),
    }
}

/// True if the executor in use polls models in one repeatable global order
/// (the single-threaded executor). Per-model guarantees (causal ordering,
/// same-time order at one model, replies in connection order) hold on every
/// executor; the interleaving of different models is only fixed here.
pub fn deterministic() -> bool {
    threads() == 1
}

/// Starts a bench at time zero, panicking with the error if it fails.
pub fn start(init: SimInit) -> Simulation {
    init.init(SimTime::ZERO)
        .expect("bench initialisation failed")
}

// ---------------------------------------------------------------------------
// Traces
// ---------------------------------------------------------------------------

/// One recorded delivery: which model got what, when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry<T> {
    /// The receiving model instance.
    pub model: String,
    /// The simulation time of the delivery.
    pub time: SimTime,
    /// The payload.
    pub value: T,
}

/// A shared, ordered trace of deliveries (cheap to clone).
pub struct Log<T>(Arc<Mutex<Vec<Entry<T>>>>);

impl<T> Log<T> {
    pub fn new() -> Self {
        Log(Arc::new(Mutex::new(Vec::new())))
    }

    pub fn push(&self, model: &str, time: SimTime, value: T) {
        self.0.lock().unwrap().push(Entry {
            model: model.to_string(),
            time,
            value,
        });
    }

    /// Every entry so far, in recording order.
    pub fn entries(&self) -> Vec<Entry<T>>
    where
        T: Clone,
    {
        self.0.lock().unwrap().clone()
    }

    /// The values received by `model`, in order.
    pub fn values_of(&self, model: &str) -> Vec<T>
    where
        T: Clone,
    {
        let entries = self.0.lock().unwrap();
        entries
            .iter()
            .filter(|e| e.model == model)
            .map(|e| e.value.clone())
            .collect()
    }

    /// `(model, value)` pairs, in recording order.
    pub fn pairs(&self) -> Vec<(String, T)>
    where
        T: Clone,
    {
        let entries = self.0.lock().unwrap();
        entries
            .iter()
            .map(|e| (e.model.clone(), e.value.clone()))
            .collect()
    }

    /// `(time, value)` pairs, in recording order.
    pub fn timed(&self) -> Vec<(SimTime, T)>
    where
        T: Clone,
    {
        let entries = self.0.lock().unwrap();
        entries.iter().map(|e| (e.time, e.value.clone())).collect()
    }

    pub fn len(&self) -> usize {
        self.0.lock().unwrap().len()
    }

    pub fn clear(&self) {
        self.0.lock().unwrap().clear();
    }
}

impl<T> Clone for Log<T> {
    fn clone(&self) -> Self {
        Log(self.0.clone())
    }
}

impl<T> Default for Log<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> fmt::Debug for Log<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Log").finish_non_exhaustive()
    }
}

/// Seconds as a [`SimTime`], for short test code.
pub fn t(secs: u64) -> SimTime {
    SimTime::from_secs(secs)
}

/// Seconds as a [`Duration`].
pub fn secs(secs: u64) -> Duration {
    Duration::from_secs(secs)
}

// ---------------------------------------------------------------------------
// Generic models
// ---------------------------------------------------------------------------

/// Records every value it receives into a [`Log`], then forwards it on
/// `out` (usually left unconnected).
#[model]
pub struct Recorder<T: Clone + Send + 'static> {
    /// Re-emits each recorded value.
    pub out: Output<T>,
    /// Where the values are recorded.
    log: Log<T>,
}

#[model]
impl<T: Clone + Send + 'static> Recorder<T> {
    pub fn new(log: &Log<T>) -> Self {
        Recorder {
            out: Output::new(),
            log: log.clone(),
        }
    }

    /// Records `value`, then sends it on `out`.
    #[input]
    pub async fn input(&mut self, value: T, cx: &mut Context<Self>) {
        self.log.push(cx.name(), cx.time(), value.clone());
        self.out.send(value).await;
    }
}

/// Forwards every value it receives on `out`, unchanged (no recording).
#[model]
pub struct Forwarder<T: Clone + Send + 'static> {
    /// Re-emits each value received.
    pub out: Output<T>,
}

#[model]
impl<T: Clone + Send + 'static> Forwarder<T> {
    pub fn new() -> Self {
        Forwarder { out: Output::new() }
    }

    /// Sends `value` on `out`.
    #[input]
    pub async fn input(&mut self, value: T) {
        self.out.send(value).await;
    }
}

/// Sends a script of values through its outputs: input `emit` takes
/// `(output index, value)` pairs and sends them one after the other.
#[model]
pub struct Emitter<T: Clone + Send + 'static> {
    /// The outputs a script names by index.
    pub outs: Vec<Output<T>>,
}

#[model]
impl<T: Clone + Send + 'static> Emitter<T> {
    /// An emitter with `outputs` unconnected outputs.
    pub fn new(outputs: usize) -> Self {
        Emitter {
            outs: (0..outputs).map(|_| Output::new()).collect(),
        }
    }

    /// Sends each value of `script` on the output it names, in order.
    #[input]
    pub async fn emit(&mut self, script: Vec<(usize, T)>) {
        for (output, value) in script {
            self.outs[output].send(value).await;
        }
    }
}

/// Sends a request on `req` for each value received on `ask`, and records
/// the replies (all of them, in the order returned) into a [`Log`].
#[model]
pub struct Requester<T: Clone + Send + 'static, R: Clone + Send + 'static> {
    /// Where each request goes.
    pub req: Requestor<T, R>,
    /// Where the replies to each request are recorded.
    log: Log<Vec<R>>,
}

#[model]
impl<T: Clone + Send + 'static, R: Clone + Send + 'static> Requester<T, R> {
    pub fn new(log: &Log<Vec<R>>) -> Self {
        Requester {
            req: Requestor::new(),
            log: log.clone(),
        }
    }

    /// Sends `request` on `req` and records every reply.
    #[input]
    pub async fn ask(&mut self, request: T, cx: &mut Context<Self>) {
        let replies: Vec<R> = self.req.send(request).await.collect();
        self.log.push(cx.name(), cx.time(), replies);
    }
}

/// Answers each request with `f(request)` (a plain function, so the model
/// stays `Send` without boxing).
#[model]
pub struct Replier<T: Send + 'static, R: Send + 'static> {
    /// The answer to a request.
    f: fn(T) -> R,
}

#[model]
impl<T: Send + 'static, R: Send + 'static> Replier<T, R> {
    pub fn new(f: fn(T) -> R) -> Self {
        Replier { f }
    }

    /// Answers `request` with `f(request)`.
    #[replier]
    pub fn reply(&mut self, request: T) -> R {
        (self.f)(request)
    }
}

/// Asks every connected replier on `go`; as a replier, asks them again
/// before answering: two `Mutual`s connected to each other deadlock.
#[model]
pub struct Mutual {
    /// The other models' `ask`.
    pub req: Requestor<u32, u32>,
}

#[model]
impl Mutual {
    /// Sends a request and waits for the replies.
    #[input]
    pub async fn go(&mut self, n: u32) {
        let _ = self.req.send(n).await.count();
    }

    /// Asks the others before answering.
    #[replier]
    pub async fn ask(&mut self, n: u32) -> u32 {
        self.req.send(n + 1).await.sum()
    }
}

// ---------------------------------------------------------------------------
// Composites, for paths
// ---------------------------------------------------------------------------

/// A one-model composite: whatever model it is given, under `name`.
pub struct Wrap<M: Model> {
    model: M,
    mailbox: Mailbox<M>,
    name: &'static str,
}

impl<M: Model> Wrap<M> {
    pub fn new(model: M, name: &'static str) -> Self {
        Wrap {
            model,
            mailbox: Mailbox::new(),
            name,
        }
    }

    /// The same, with the mailbox given (to choose its capacity).
    pub fn with_mailbox(model: M, mailbox: Mailbox<M>, name: &'static str) -> Self {
        Wrap {
            model,
            mailbox,
            name,
        }
    }

    pub fn address(&self) -> Address<M> {
        self.mailbox.address()
    }
}

impl<M: Model> Composite for Wrap<M> {
    fn build(self, cx: &mut BuildContext<'_>) {
        cx.add_model(self.model, self.mailbox, self.name);
    }
}

/// A composite holding one composite under a name (to nest [`Wrap`]).
pub struct Nest<C: Composite> {
    pub inner: C,
    pub name: &'static str,
}

impl<C: Composite> Nest<C> {
    pub fn new(inner: C, name: &'static str) -> Self {
        Nest { inner, name }
    }
}

impl<C: Composite> Composite for Nest<C> {
    fn build(self, cx: &mut BuildContext<'_>) {
        cx.add_composite(self.inner, self.name);
    }
}
