//! Shared pieces of the runtime's integration tests.
//!
//! - [`sim_init`]: the ONE place every test builds its bench. The suite
//!   runs unchanged on every executor: this function picks the thread
//!   count ([`threads`]) and every test follows.
//! - [`deterministic`]: whether the executor in use promises a global,
//!   repeatable order across models (only the single-threaded one does);
//!   tests that compare the interleaving of *different* models check it.
//! - Hand-written generic models: [`Recorder`], [`Forwarder`], [`Emitter`],
//!   [`Requester`], [`Replier`].
//! - [`hand_model!`]: the boilerplate of a hand-written `Model` impl (the
//!   message enum, the port descriptors, dispatch and metadata) for
//!   test-local models, since `#[model]` is not available to these tests.
//!
//! Each test binary uses a different subset of this module.
// The models below implement `Model::dispatch` in the explicit
// `-> impl Future + Send + 'a` form of the trait and of its documented
// hand-written example, on purpose.
#![allow(dead_code, unused_macros, unused_imports, clippy::manual_async_fn)]

use std::fmt;
use std::future::Future;
use std::sync::{Arc, Mutex};

pub use causim::model::{ModelMetadata, PortKind, PortMetadata};
pub use causim::ports::ReplySender;
pub use causim::prelude::*;

/// The bench builder every test uses, on [`threads`] threads.
pub fn sim_init() -> SimInit {
    SimInit::new().with_threads(threads())
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
// hand_model!
// ---------------------------------------------------------------------------

/// Implements [`Model`] by hand for a non-generic test model.
///
/// ```ignore
/// struct Echo { out: Output<u32> }
/// impl Echo {
///     async fn ping(&mut self, x: u32, _cx: &mut Context<Self>) { self.out.send(x).await }
///     async fn ask(&mut self, x: u32, _cx: &mut Context<Self>) -> u32 { x + 1 }
///     async fn setup(&mut self, _cx: &mut Context<Self>) {}
/// }
/// hand_model! {
///     Echo, EchoMessage, EchoPorts;
///     inputs { ping: u32 }
///     repliers { ask: u32 => u32 }
///     init setup;                       // optional
/// }
/// // Echo::ports().ping : InputPort<Echo, u32>
/// // Echo::ports().ask  : ReplierPort<Echo, u32, u32>
/// ```
///
/// Every listed method is `async`, takes `&mut self`, the payload and the
/// context (so dispatch is uniform), exactly the shape `#[model]` targets.
macro_rules! hand_model {
    (
        $model:ident, $message:ident, $ports:ident;
        inputs { $( $input:ident : $in_ty:ty ),* $(,)? }
        repliers { $( $replier:ident : $rq_ty:ty => $rp_ty:ty ),* $(,)? }
        $( init $init:ident ; )?
    ) => {
        #[allow(non_camel_case_types, dead_code)]
        enum $message {
            $( $input($in_ty), )*
            $( $replier($rq_ty, ::causim::ports::ReplySender<$rp_ty>), )*
        }

        #[allow(dead_code)]
        struct $ports {
            $( pub $input: ::causim::InputPort<$model, $in_ty>, )*
            $( pub $replier: ::causim::ReplierPort<$model, $rq_ty, $rp_ty>, )*
        }

        #[allow(dead_code)]
        impl $model {
            fn ports() -> $ports {
                $ports {
                    $( $input: ::causim::InputPort::new(stringify!($input), $message::$input), )*
                    $( $replier: ::causim::ReplierPort::new(stringify!($replier), $message::$replier), )*
                }
            }
        }

        impl ::causim::Model for $model {
            type Message = $message;

            fn dispatch<'a>(
                &'a mut self,
                message: $message,
                cx: &'a mut ::causim::Context<Self>,
            ) -> impl ::std::future::Future<Output = ()> + Send + 'a {
                let _ = &cx;
                async move {
                    match message {
                        $( $message::$input(payload) => self.$input(payload, cx).await, )*
                        $( $message::$replier(request, reply) => {
                            let answer = self.$replier(request, cx).await;
                            reply.send(answer);
                        } )*
                    }
                }
            }

            $(
                fn init<'a>(
                    &'a mut self,
                    cx: &'a mut ::causim::Context<Self>,
                ) -> impl ::std::future::Future<Output = ()> + Send + 'a {
                    self.$init(cx)
                }
            )?

            fn metadata() -> ::causim::model::ModelMetadata {
                ::causim::model::ModelMetadata {
                    type_name: stringify!($model),
                    inputs: &[
                        $( ::causim::model::PortMetadata {
                            name: stringify!($input),
                            kind: ::causim::model::PortKind::Input,
                            payload: stringify!($in_ty),
                            reply: None,
                            required: false,
                        }, )*
                        $( ::causim::model::PortMetadata {
                            name: stringify!($replier),
                            kind: ::causim::model::PortKind::Replier,
                            payload: stringify!($rq_ty),
                            reply: Some(stringify!($rp_ty)),
                            required: false,
                        }, )*
                    ],
                    outputs: &[],
                }
            }
        }
    };
}

// Exported by path (not `#[macro_export]`) so that `use common::*` brings
// it in scope both in a test file's own target and in the executor-matrix
// targets, where the file is a module (see `tests/matrix/suite.rs`).
pub(crate) use hand_model;

// ---------------------------------------------------------------------------
// Generic models, written out in full (the macro above does not do generics)
// ---------------------------------------------------------------------------

/// Static metadata with one input called `input`.
const INPUT_ONLY: &[PortMetadata] = &[PortMetadata {
    name: "input",
    kind: PortKind::Input,
    payload: "T",
    reply: None,
    required: false,
}];

/// Records every value it receives into a [`Log`], then forwards it on
/// `out` (usually left unconnected).
pub struct Recorder<T: Clone + Send + 'static> {
    /// Re-emits each recorded value.
    pub out: Output<T>,
    log: Log<T>,
}

/// Messages of [`Recorder`].
pub enum RecorderMessage<T> {
    Input(T),
}

/// Ports of [`Recorder`].
pub struct RecorderPorts<T: Clone + Send + 'static> {
    pub input: InputPort<Recorder<T>, T>,
}

impl<T: Clone + Send + 'static> Recorder<T> {
    pub fn new(log: &Log<T>) -> Self {
        Recorder {
            out: Output::new(),
            log: log.clone(),
        }
    }

    pub fn ports() -> RecorderPorts<T> {
        RecorderPorts {
            input: InputPort::new("input", RecorderMessage::Input),
        }
    }
}

impl<T: Clone + Send + 'static> Model for Recorder<T> {
    type Message = RecorderMessage<T>;

    fn dispatch<'a>(
        &'a mut self,
        message: RecorderMessage<T>,
        cx: &'a mut Context<Self>,
    ) -> impl Future<Output = ()> + Send + 'a {
        async move {
            let RecorderMessage::Input(value) = message;
            self.log.push(cx.name(), cx.time(), value.clone());
            self.out.send(value).await;
        }
    }

    fn metadata() -> ModelMetadata {
        ModelMetadata {
            type_name: "Recorder",
            inputs: INPUT_ONLY,
            outputs: &[],
        }
    }
}

/// Forwards every value it receives on `out`, unchanged (no recording).
pub struct Forwarder<T: Clone + Send + 'static> {
    pub out: Output<T>,
}

/// Messages of [`Forwarder`].
pub enum ForwarderMessage<T> {
    Input(T),
}

/// Ports of [`Forwarder`].
pub struct ForwarderPorts<T: Clone + Send + 'static> {
    pub input: InputPort<Forwarder<T>, T>,
}

impl<T: Clone + Send + 'static> Forwarder<T> {
    pub fn new() -> Self {
        Forwarder { out: Output::new() }
    }

    pub fn ports() -> ForwarderPorts<T> {
        ForwarderPorts {
            input: InputPort::new("input", ForwarderMessage::Input),
        }
    }
}

impl<T: Clone + Send + 'static> Model for Forwarder<T> {
    type Message = ForwarderMessage<T>;

    fn dispatch<'a>(
        &'a mut self,
        message: ForwarderMessage<T>,
        _cx: &'a mut Context<Self>,
    ) -> impl Future<Output = ()> + Send + 'a {
        async move {
            let ForwarderMessage::Input(value) = message;
            self.out.send(value).await;
        }
    }

    fn metadata() -> ModelMetadata {
        ModelMetadata {
            type_name: "Forwarder",
            inputs: INPUT_ONLY,
            outputs: &[],
        }
    }
}

/// Sends a script of values through its outputs: input `emit` takes
/// `(output index, value)` pairs and sends them one after the other.
pub struct Emitter<T: Clone + Send + 'static> {
    pub outs: Vec<Output<T>>,
}

/// Messages of [`Emitter`].
pub enum EmitterMessage<T> {
    Emit(Vec<(usize, T)>),
}

/// Ports of [`Emitter`].
pub struct EmitterPorts<T: Clone + Send + 'static> {
    pub emit: InputPort<Emitter<T>, Vec<(usize, T)>>,
}

impl<T: Clone + Send + 'static> Emitter<T> {
    /// An emitter with `outputs` unconnected outputs.
    pub fn new(outputs: usize) -> Self {
        Emitter {
            outs: (0..outputs).map(|_| Output::new()).collect(),
        }
    }

    pub fn ports() -> EmitterPorts<T> {
        EmitterPorts {
            emit: InputPort::new("emit", EmitterMessage::Emit),
        }
    }
}

impl<T: Clone + Send + 'static> Model for Emitter<T> {
    type Message = EmitterMessage<T>;

    fn dispatch<'a>(
        &'a mut self,
        message: EmitterMessage<T>,
        _cx: &'a mut Context<Self>,
    ) -> impl Future<Output = ()> + Send + 'a {
        async move {
            let EmitterMessage::Emit(script) = message;
            for (output, value) in script {
                self.outs[output].send(value).await;
            }
        }
    }

    fn metadata() -> ModelMetadata {
        ModelMetadata {
            type_name: "Emitter",
            inputs: &[PortMetadata {
                name: "emit",
                kind: PortKind::Input,
                payload: "Vec<(usize, T)>",
                reply: None,
                required: false,
            }],
            outputs: &[],
        }
    }
}

/// Sends a request on `req` for each value received on `ask`, and records
/// the replies (all of them, in the order returned) into a [`Log`].
pub struct Requester<T: Clone + Send + 'static, R: Clone + Send + 'static> {
    pub req: Requestor<T, R>,
    log: Log<Vec<R>>,
}

/// Messages of [`Requester`].
pub enum RequesterMessage<T> {
    Ask(T),
}

/// Ports of [`Requester`].
pub struct RequesterPorts<T: Clone + Send + 'static, R: Clone + Send + 'static> {
    pub ask: InputPort<Requester<T, R>, T>,
}

impl<T: Clone + Send + 'static, R: Clone + Send + 'static> Requester<T, R> {
    pub fn new(log: &Log<Vec<R>>) -> Self {
        Requester {
            req: Requestor::new(),
            log: log.clone(),
        }
    }

    pub fn ports() -> RequesterPorts<T, R> {
        RequesterPorts {
            ask: InputPort::new("ask", RequesterMessage::Ask),
        }
    }
}

impl<T: Clone + Send + 'static, R: Clone + Send + 'static> Model for Requester<T, R> {
    type Message = RequesterMessage<T>;

    fn dispatch<'a>(
        &'a mut self,
        message: RequesterMessage<T>,
        cx: &'a mut Context<Self>,
    ) -> impl Future<Output = ()> + Send + 'a {
        async move {
            let RequesterMessage::Ask(request) = message;
            let replies: Vec<R> = self.req.send(request).await.collect();
            self.log.push(cx.name(), cx.time(), replies);
        }
    }

    fn metadata() -> ModelMetadata {
        ModelMetadata {
            type_name: "Requester",
            inputs: &[PortMetadata {
                name: "ask",
                kind: PortKind::Input,
                payload: "T",
                reply: None,
                required: false,
            }],
            outputs: &[],
        }
    }
}

/// Answers each request with `f(request)` (a plain function, so the model
/// stays `Send` without boxing).
pub struct Replier<T: Send + 'static, R: Send + 'static> {
    f: fn(T) -> R,
}

/// Messages of [`Replier`].
pub enum ReplierMessage<T, R> {
    Reply(T, ReplySender<R>),
}

/// Ports of [`Replier`].
pub struct ReplierPorts<T: Send + 'static, R: Send + 'static> {
    pub reply: ReplierPort<Replier<T, R>, T, R>,
}

impl<T: Send + 'static, R: Send + 'static> Replier<T, R> {
    pub fn new(f: fn(T) -> R) -> Self {
        Replier { f }
    }

    pub fn ports() -> ReplierPorts<T, R> {
        ReplierPorts {
            reply: ReplierPort::new("reply", ReplierMessage::Reply),
        }
    }
}

impl<T: Send + 'static, R: Send + 'static> Model for Replier<T, R> {
    type Message = ReplierMessage<T, R>;

    fn dispatch<'a>(
        &'a mut self,
        message: ReplierMessage<T, R>,
        _cx: &'a mut Context<Self>,
    ) -> impl Future<Output = ()> + Send + 'a {
        async move {
            let ReplierMessage::Reply(request, reply) = message;
            reply.send((self.f)(request));
        }
    }

    fn metadata() -> ModelMetadata {
        ModelMetadata {
            type_name: "Replier",
            inputs: &[PortMetadata {
                name: "reply",
                kind: PortKind::Replier,
                payload: "T",
                reply: Some("R"),
                required: false,
            }],
            outputs: &[],
        }
    }
}
