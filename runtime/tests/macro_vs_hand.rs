//! The same model written by hand (the shape of the `model` module docs)
//! and with `#[model]`, run on the same bench: their traces, and the
//! bench's topologies, must be equal.
//!
//! The model exercises every kind of generated dispatch: a sync and an
//! async input, an input with no payload, inputs and repliers that take the
//! context, a sync and an async replier, the init hook, and self-scheduling.

use causim::model::{ConnectionList, ModelMetadata, PortKind, PortMetadata};
use causim::ports::ReplySender;
use causim::prelude::*;

/// The macro version.
mod generated {
    use causim::prelude::*;

    #[model]
    pub struct Counter {
        pub total: Output<u64>,
        pub trace: Output<String>,
        count: u64,
    }

    #[model]
    impl Counter {
        pub fn new() -> Self {
            Counter {
                total: Output::new(),
                trace: Output::new(),
                count: 0,
            }
        }

        #[init]
        async fn start(&mut self, cx: &mut Context<Self>) {
            self.trace.send(format!("init at {}", cx.time())).await;
            cx.schedule(Duration::from_secs(2), Self::ports().tick, ())
                .unwrap();
        }

        #[input]
        pub async fn add(&mut self, n: u64) {
            self.count += n;
            self.total.send(self.count).await;
            self.trace.send(format!("add {n} -> {}", self.count)).await;
        }

        #[input]
        pub fn reset(&mut self) {
            self.count = 0;
        }

        #[input]
        pub async fn tick(&mut self, cx: &mut Context<Self>) {
            self.trace
                .send(format!("tick at {} with {}", cx.time(), self.count))
                .await;
            if cx.time() < SimTime::from_secs(6) {
                cx.schedule(Duration::from_secs(2), Self::ports().tick, ())
                    .unwrap();
            }
        }

        #[input]
        pub fn scale_later(&mut self, factor: u64, cx: &mut Context<Self>) {
            self.count *= factor;
            cx.schedule(Duration::from_secs(1), Self::ports().add, 0)
                .unwrap();
        }

        #[replier]
        pub fn read(&mut self, _: ()) -> u64 {
            self.count
        }

        #[replier]
        pub async fn stamped(&mut self, label: String, cx: &mut Context<Self>) -> String {
            self.trace.send(format!("stamped {label}")).await;
            format!("{label}@{}={}", cx.time(), self.count)
        }
    }
}

/// The hand-written version: the same methods, and the `Model` impl that
/// `#[model]` generates, written out.
mod hand {
    use super::*;

    pub struct Counter {
        pub total: Output<u64>,
        pub trace: Output<String>,
        count: u64,
    }

    pub enum CounterMessage {
        Add(u64),
        Reset(()),
        Tick(()),
        ScaleLater(u64),
        Read((), ReplySender<u64>),
        Stamped(String, ReplySender<String>),
    }

    pub struct CounterPorts {
        pub add: InputPort<Counter, u64>,
        pub reset: InputPort<Counter, ()>,
        pub tick: InputPort<Counter, ()>,
        pub scale_later: InputPort<Counter, u64>,
        pub read: ReplierPort<Counter, (), u64>,
        pub stamped: ReplierPort<Counter, String, String>,
    }

    impl Counter {
        pub fn new() -> Self {
            Counter {
                total: Output::new(),
                trace: Output::new(),
                count: 0,
            }
        }

        pub fn ports() -> CounterPorts {
            CounterPorts {
                add: InputPort::new("add", CounterMessage::Add),
                reset: InputPort::new("reset", CounterMessage::Reset),
                tick: InputPort::new("tick", CounterMessage::Tick),
                scale_later: InputPort::new("scale_later", CounterMessage::ScaleLater),
                read: ReplierPort::new("read", CounterMessage::Read),
                stamped: ReplierPort::new("stamped", CounterMessage::Stamped),
            }
        }

        async fn start(&mut self, cx: &mut Context<Self>) {
            self.trace.send(format!("init at {}", cx.time())).await;
            cx.schedule(Duration::from_secs(2), Self::ports().tick, ())
                .unwrap();
        }

        async fn add(&mut self, n: u64) {
            self.count += n;
            self.total.send(self.count).await;
            self.trace.send(format!("add {n} -> {}", self.count)).await;
        }

        fn reset(&mut self) {
            self.count = 0;
        }

        async fn tick(&mut self, cx: &mut Context<Self>) {
            self.trace
                .send(format!("tick at {} with {}", cx.time(), self.count))
                .await;
            if cx.time() < SimTime::from_secs(6) {
                cx.schedule(Duration::from_secs(2), Self::ports().tick, ())
                    .unwrap();
            }
        }

        fn scale_later(&mut self, factor: u64, cx: &mut Context<Self>) {
            self.count *= factor;
            cx.schedule(Duration::from_secs(1), Self::ports().add, 0)
                .unwrap();
        }

        fn read(&mut self, _: ()) -> u64 {
            self.count
        }

        async fn stamped(&mut self, label: String, cx: &mut Context<Self>) -> String {
            self.trace.send(format!("stamped {label}")).await;
            format!("{label}@{}={}", cx.time(), self.count)
        }
    }

    // The same shape as the generated impl, written out (with `async fn`,
    // which the trait's `impl Future + Send` signature accepts).
    impl Model for Counter {
        type Message = CounterMessage;

        async fn dispatch(&mut self, message: CounterMessage, cx: &mut Context<Self>) {
            match message {
                CounterMessage::Add(n) => self.add(n).await,
                CounterMessage::Reset(()) => self.reset(),
                CounterMessage::Tick(()) => self.tick(cx).await,
                CounterMessage::ScaleLater(k) => self.scale_later(k, cx),
                CounterMessage::Read(arg, reply) => reply.send(self.read(arg)),
                CounterMessage::Stamped(arg, reply) => reply.send(self.stamped(arg, cx).await),
            }
        }

        async fn init(&mut self, cx: &mut Context<Self>) {
            self.start(cx).await
        }

        fn list_connections(&self, list: &mut ConnectionList) {
            list.port("total", &self.total);
            list.port("trace", &self.trace);
        }

        fn metadata() -> ModelMetadata {
            const fn port(
                name: &'static str,
                kind: PortKind,
                payload: &'static str,
                reply: Option<&'static str>,
            ) -> PortMetadata {
                PortMetadata {
                    name,
                    kind,
                    payload,
                    reply,
                    required: false,
                }
            }
            const INPUTS: &[PortMetadata] = &[
                port("add", PortKind::Input, "u64", None),
                port("reset", PortKind::Input, "()", None),
                port("tick", PortKind::Input, "()", None),
                port("scale_later", PortKind::Input, "u64", None),
                port("read", PortKind::Replier, "()", Some("u64")),
                port("stamped", PortKind::Replier, "String", Some("String")),
            ];
            const OUTPUTS: &[PortMetadata] = &[
                port("total", PortKind::Output, "u64", None),
                port("trace", PortKind::Output, "String", None),
            ];
            ModelMetadata {
                type_name: "Counter",
                inputs: INPUTS,
                outputs: OUTPUTS,
            }
        }
    }
}

/// Asks a counter for its count when told to, and reports the answers.
#[model]
struct Probe {
    #[required]
    read: Requestor<(), u64>,
    report: Output<String>,
}

#[model]
impl Probe {
    #[input]
    async fn probe(&mut self, label: &'static str) {
        let counts: Vec<u64> = self.read.send(()).await.collect();
        self.report.send(format!("probe {label}: {counts:?}")).await;
    }
}

/// The ports of one counter implementation, as the bench needs them.
struct CounterPorts<M: Model> {
    add: InputPort<M, u64>,
    reset: InputPort<M, ()>,
    scale_later: InputPort<M, u64>,
    read: ReplierPort<M, (), u64>,
    stamped: ReplierPort<M, String, String>,
}

/// Runs the bench on one counter implementation and returns its trace.
fn run<M: Model>(
    mut counter: M,
    ports: CounterPorts<M>,
    outputs: impl FnOnce(&mut M) -> (&mut Output<u64>, &mut Output<String>),
) -> Vec<String> {
    let trace = EventQueue::new();
    let totals = EventQueue::new();
    let (total, counter_trace) = outputs(&mut counter);
    total.connect_sink(&totals);
    counter_trace.connect_sink(&trace);
    let counter_mailbox = Mailbox::new();
    let counter_address = counter_mailbox.address();

    let mut probe = Probe {
        read: Requestor::new(),
        report: Output::new(),
    };
    probe.read.connect(ports.read, &counter_address);
    probe.report.connect_sink(&trace);
    let probe_mailbox = Mailbox::new();
    let probe_address = probe_mailbox.address();

    let mut adder = EventSource::new();
    adder.connect(ports.add, &counter_address);

    let mut simu = SimInit::new()
        .add_model(counter, counter_mailbox, "counter")
        .add_model(probe, probe_mailbox, "probe")
        .add_event_source(&adder, "adder")
        .init(SimTime::ZERO)
        .unwrap();
    let topology = simu.topology().to_json();
    let scheduler = simu.scheduler();
    for (secs, n) in [(1, 5), (3, 7), (4, 1)] {
        scheduler
            .schedule_event(SimTime::from_secs(secs), adder.event(n))
            .unwrap();
    }
    scheduler
        .schedule(
            SimTime::from_secs(3),
            Probe::ports().probe,
            "t3",
            &probe_address,
        )
        .unwrap();
    scheduler
        .schedule(
            SimTime::from_secs(5),
            ports.scale_later,
            3,
            &counter_address,
        )
        .unwrap();
    scheduler
        .schedule(SimTime::from_secs(7), ports.reset, (), &counter_address)
        .unwrap();

    let mut log = Vec::new();
    let drain = |log: &mut Vec<String>, simu: &Simulation| {
        log.extend(
            trace
                .take_all()
                .into_iter()
                .map(|line| format!("[{}] {line}", simu.time())),
        );
        log.extend(
            totals
                .take_all()
                .into_iter()
                .map(|n| format!("[{}] total {n}", simu.time())),
        );
    };
    drain(&mut log, &simu);
    while simu.next_event_time().is_some() {
        simu.step().unwrap();
        drain(&mut log, &simu);
    }
    let stamp = simu
        .process_query(ports.stamped, "end".to_owned(), &counter_address)
        .unwrap();
    log.push(format!("stamp {stamp}"));
    simu.process_event(Probe::ports().probe, "end", &probe_address)
        .unwrap();
    drain(&mut log, &simu);
    log.push(format!(
        "read {}",
        simu.process_query(ports.read, (), &counter_address)
            .unwrap()
    ));
    log.push(topology);
    log
}

#[test]
fn hand_written_and_generated_models_have_equal_traces() {
    let hand = run(
        hand::Counter::new(),
        CounterPorts {
            add: hand::Counter::ports().add,
            reset: hand::Counter::ports().reset,
            scale_later: hand::Counter::ports().scale_later,
            read: hand::Counter::ports().read,
            stamped: hand::Counter::ports().stamped,
        },
        |c| (&mut c.total, &mut c.trace),
    );
    let generated = run(
        generated::Counter::new(),
        CounterPorts {
            add: generated::Counter::ports().add,
            reset: generated::Counter::ports().reset,
            scale_later: generated::Counter::ports().scale_later,
            read: generated::Counter::ports().read,
            stamped: generated::Counter::ports().stamped,
        },
        |c| (&mut c.total, &mut c.trace),
    );
    // The trace is not trivial: every kind of port and the init hook ran.
    for expected in [
        "init at",
        "add 5 -> 5",
        "tick at",
        "probe t3",
        "stamped end",
        "read 0",
        // The topology: the counter's outputs to their sinks.
        r#"{"from": {"model": "counter", "port": "total"}, "to": {"sink": "counter.total"}"#,
        r#"{"from": {"model": "counter", "port": "trace"}, "to": {"sink": "counter.trace"}"#,
    ] {
        assert!(
            hand.iter().any(|line| line.contains(expected)),
            "{expected:?} missing from {hand:#?}"
        );
    }
    assert_eq!(hand, generated);
}

#[test]
fn hand_written_and_generated_models_have_equal_metadata() {
    let hand = <hand::Counter as Model>::metadata();
    let generated = <generated::Counter as Model>::metadata();
    assert_eq!(hand.type_name, generated.type_name);
    assert_eq!(hand.inputs, generated.inputs);
    assert_eq!(hand.outputs, generated.outputs);
}

#[test]
fn an_unconnected_required_port_is_named_at_init() {
    let probe = Probe {
        read: Requestor::new(),
        report: Output::new(),
    };
    let error = SimInit::new()
        .add_model(probe, Mailbox::new(), "the probe")
        .init(SimTime::ZERO)
        .unwrap_err();
    let SimulationError::MissingConnections(missing) = &error else {
        panic!("unexpected error {error:?}");
    };
    assert_eq!(missing.len(), 1);
    assert_eq!(missing[0].model, "the probe");
    assert_eq!(missing[0].model_type, "Probe");
    assert_eq!(missing[0].port, "read: Requestor<(), u64>");
    let message = error.to_string();
    assert!(message.contains("the probe"), "{message}");
    assert!(message.contains("read: Requestor<(), u64>"), "{message}");
}
