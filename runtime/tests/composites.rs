//! Composites: subsystems added as one, under a path.
//!
//! A three-level bench (`sys` holds `pipe`, which holds stages `a` and
//! `b`) checks that every model gets its path, that exposed inputs,
//! outputs, repliers and requestors connect the bench to the inner models
//! through every kind of connection, and that a bench built with
//! composites behaves exactly as the same bench built flat. Then names
//! (unique per level, no `/`), generic composites, and the path in every
//! error that names a model.

mod common;
use common::*;

use causim::ports::{InputRef, ReplierRef};
use causim::{MissingConnection, WaitingFor};

// ---------------------------------------------------------------------------
// A three-level bench
// ---------------------------------------------------------------------------

/// Level 3: a forwarder feeding a recorder. Exposes the forwarder's input
/// and the recorder's output.
struct Stage {
    fwd: Forwarder<u32>,
    fwd_mailbox: Mailbox<Forwarder<u32>>,
    rec: Recorder<u32>,
    rec_mailbox: Mailbox<Recorder<u32>>,
}

impl Stage {
    fn new(log: &Log<u32>) -> Self {
        let mut fwd = Forwarder::new();
        let rec_mailbox = Mailbox::new();
        fwd.out.connect(Recorder::ports().input, &rec_mailbox);
        Stage {
            fwd,
            fwd_mailbox: Mailbox::new(),
            rec: Recorder::new(log),
            rec_mailbox,
        }
    }

    fn input(&self) -> InputRef<Forwarder<u32>, u32> {
        InputRef::new(Forwarder::ports().input, &self.fwd_mailbox)
    }

    fn out(&mut self) -> &mut Output<u32> {
        &mut self.rec.out
    }
}

impl Composite for Stage {
    fn build(self, cx: &mut BuildContext<'_>) {
        cx.add_model(self.fwd, self.fwd_mailbox, "fwd").add_model(
            self.rec,
            self.rec_mailbox,
            "rec",
        );
    }
}

/// Level 2: stage `a` feeding stage `b` through a map (+100), and a
/// replier that doubles. Exposes `a`'s input, `b`'s output and the
/// replier.
struct Pipeline {
    a: Stage,
    b: Stage,
    doubler: Replier<u32, u32>,
    doubler_mailbox: Mailbox<Replier<u32, u32>>,
}

impl Pipeline {
    fn new(log: &Log<u32>) -> Self {
        let mut a = Stage::new(log);
        let b = Stage::new(log);
        a.out().map_connect_to(|x| x + 100, &b.input());
        Pipeline {
            a,
            b,
            doubler: Replier::new(|x| 2 * x),
            doubler_mailbox: Mailbox::new(),
        }
    }

    fn input(&self) -> InputRef<Forwarder<u32>, u32> {
        self.a.input()
    }

    fn out(&mut self) -> &mut Output<u32> {
        self.b.out()
    }

    fn doubler(&self) -> ReplierRef<Replier<u32, u32>, u32, u32> {
        ReplierRef::new(Replier::ports().reply, &self.doubler_mailbox)
    }
}

impl Composite for Pipeline {
    fn build(self, cx: &mut BuildContext<'_>) {
        cx.add_composite(self.a, "a")
            .add_composite(self.b, "b")
            .add_model(self.doubler, self.doubler_mailbox, "doubler");
    }
}

/// Level 1: a pipeline and a requester asking the pipeline's replier.
/// Exposes the pipeline's input and output, the requester's input, and
/// the requester's requestor (which the bench may connect further).
struct System {
    pipe: Pipeline,
    asker: Requester<u32, u32>,
    asker_mailbox: Mailbox<Requester<u32, u32>>,
}

impl System {
    fn new(log: &Log<u32>, replies: &Log<Vec<u32>>) -> Self {
        let pipe = Pipeline::new(log);
        let mut asker = Requester::new(replies);
        asker.req.connect_to(&pipe.doubler());
        System {
            pipe,
            asker,
            asker_mailbox: Mailbox::new(),
        }
    }

    fn input(&self) -> InputRef<Forwarder<u32>, u32> {
        self.pipe.input()
    }

    fn out(&mut self) -> &mut Output<u32> {
        self.pipe.out()
    }

    fn ask(&self) -> InputRef<Requester<u32, u32>, u32> {
        InputRef::new(Requester::ports().ask, &self.asker_mailbox)
    }

    fn requests(&mut self) -> &mut Requestor<u32, u32> {
        &mut self.asker.req
    }

    fn doubler(&self) -> ReplierRef<Replier<u32, u32>, u32, u32> {
        self.pipe.doubler()
    }
}

impl Composite for System {
    fn build(self, cx: &mut BuildContext<'_>) {
        assert_eq!(cx.path(), "sys");
        cx.add_composite(self.pipe, "pipe")
            .add_model(self.asker, self.asker_mailbox, "asker");
    }
}

#[test]
fn models_in_nested_composites_have_paths_and_exposed_ports_connect_through() {
    let log = Log::new();
    let replies = Log::new();
    let mut sys = System::new(&log, &replies);

    // The bench connects to exposed ports only.
    let outputs = EventQueue::new();
    sys.out().connect_sink(&outputs);
    let mut source = EventSource::new();
    source.connect_to(&sys.input());
    let mut filtered = EventSource::new();
    filtered.filter_map_connect_to(|x: u32| x.is_multiple_of(2).then_some(x), &sys.input());
    let mut query = QuerySource::new();
    query.connect_to(&sys.doubler());
    query.map_connect_to(|x: u32| x + 1, &sys.doubler(), |r| r * 10);
    // A bench-side replier also answers the system's exposed requestor.
    let extra = Mailbox::new();
    sys.requests()
        .connect(Replier::<u32, u32>::ports().reply, &extra);
    let ask = sys.ask();
    let input = sys.input();

    let mut simu = start(sim_init().add_composite(sys, "sys").add_model(
        Replier::new(|x: u32| x + 1),
        extra,
        "extra",
    ));

    simu.process(source.event(1)).unwrap();
    simu.process(filtered.event(3)).unwrap(); // filtered out
    simu.process(filtered.event(4)).unwrap();
    simu.process(input.event(5)).unwrap();
    assert_eq!(outputs.take_all(), vec![101, 104, 105]);
    let mut pairs = log.pairs();
    pairs.sort();
    assert_eq!(
        pairs,
        vec![
            ("sys/pipe/a/rec".to_string(), 1),
            ("sys/pipe/a/rec".to_string(), 4),
            ("sys/pipe/a/rec".to_string(), 5),
            ("sys/pipe/b/rec".to_string(), 101),
            ("sys/pipe/b/rec".to_string(), 104),
            ("sys/pipe/b/rec".to_string(), 105),
        ]
    );

    simu.process(ask.event(7)).unwrap();
    assert_eq!(
        replies.pairs(),
        vec![("sys/asker".to_string(), vec![14, 8])]
    );
    assert_eq!(simu.process_query_from(&mut query, 2).unwrap(), vec![4, 60]);
    assert_eq!(input.address().name(), Some("sys/pipe/a/fwd"));
    assert_eq!(ask.address().name(), Some("sys/asker"));
}

#[test]
fn a_uni_requestor_connects_to_an_exposed_replier() {
    /// Asks once per input through a uni-requestor and records the reply.
    #[model]
    struct Asker {
        req: UniRequestor<u32, u32>,
        log: Log<u32>,
    }
    #[model]
    impl Asker {
        #[input]
        async fn ask(&mut self, x: u32, cx: &mut Context<Self>) {
            let reply = self.req.send(x).await;
            self.log.push(cx.name(), cx.time(), reply);
        }
    }

    let log = Log::new();
    let pipe = Pipeline::new(&Log::new());
    let asker = Asker {
        req: UniRequestor::to(&pipe.doubler()),
        log: log.clone(),
    };
    let mapped = Asker {
        req: UniRequestor::with_map_to(|x: u32| x * 3, &pipe.doubler(), |r| r + 1),
        log: log.clone(),
    };
    let (asker_mailbox, mapped_mailbox) = (Mailbox::new(), Mailbox::new());
    let (asker_addr, mapped_addr) = (asker_mailbox.address(), mapped_mailbox.address());
    let mut simu = start(
        sim_init()
            .add_composite(pipe, "pipe")
            .add_model(asker, asker_mailbox, "asker")
            .add_model(mapped, mapped_mailbox, "mapped"),
    );
    simu.process_event(Asker::ports().ask, 5, &asker_addr)
        .unwrap();
    simu.process_event(Asker::ports().ask, 5, &mapped_addr)
        .unwrap();
    assert_eq!(
        log.pairs(),
        vec![("asker".to_string(), 10), ("mapped".to_string(), 31)]
    );
}

#[test]
fn a_bench_built_with_composites_behaves_as_the_same_bench_built_flat() {
    // Flat: the same five models and connections, added one by one.
    let flat_log = Log::new();
    let flat_out = EventQueue::new();
    let (a_fwd, a_rec, b_fwd, b_rec) = (
        Mailbox::new(),
        Mailbox::new(),
        Mailbox::new(),
        Mailbox::new(),
    );
    let mut fwd_a = Forwarder::new();
    fwd_a.out.connect(Recorder::ports().input, &a_rec);
    let mut rec_a = Recorder::new(&flat_log);
    rec_a
        .out
        .map_connect(|x: u32| x + 100, Forwarder::ports().input, &b_fwd);
    let mut fwd_b = Forwarder::new();
    fwd_b.out.connect(Recorder::ports().input, &b_rec);
    let mut rec_b = Recorder::new(&flat_log);
    rec_b.out.connect_sink(&flat_out);
    let flat_input = a_fwd.address();
    let mut flat = start(
        sim_init()
            .add_model(fwd_a, a_fwd, "a_fwd")
            .add_model(rec_a, a_rec, "a_rec")
            .add_model(fwd_b, b_fwd, "b_fwd")
            .add_model(rec_b, b_rec, "b_rec"),
    );

    let log = Log::new();
    let out = EventQueue::new();
    let mut pipe = Pipeline::new(&log);
    pipe.out().connect_sink(&out);
    let input = pipe.input();
    let mut nested = start(sim_init().add_composite(pipe, "pipe"));

    let scheduler = flat.scheduler();
    let nested_scheduler = nested.scheduler();
    for (i, at) in [3, 1, 2, 2, 5].into_iter().enumerate() {
        let value = u32::try_from(i).unwrap();
        scheduler
            .schedule_event(
                t(at),
                Event::new(Forwarder::ports().input, value, &flat_input),
            )
            .unwrap();
        nested_scheduler
            .schedule_event(t(at), input.event(value))
            .unwrap();
    }
    flat.run().unwrap();
    nested.run().unwrap();
    assert_eq!(out.take_all(), flat_out.take_all());
    assert_eq!(log.timed(), flat_log.timed());
    assert_eq!(nested.time(), flat.time());
}

// ---------------------------------------------------------------------------
// Names
// ---------------------------------------------------------------------------

/// A recorder to add under a name.
type Part = (&'static str, Recorder<u32>, Mailbox<Recorder<u32>>);

/// A composite holding the recorders it is given, under the names given.
struct Group {
    parts: Vec<Part>,
    groups: Vec<(&'static str, Group)>,
}

impl Group {
    fn of(names: &[&'static str]) -> Self {
        let log = Log::new();
        Group {
            parts: names
                .iter()
                .map(|&name| (name, Recorder::new(&log), Mailbox::new()))
                .collect(),
            groups: Vec::new(),
        }
    }

    fn with_group(mut self, name: &'static str, group: Group) -> Self {
        self.groups.push((name, group));
        self
    }
}

impl Composite for Group {
    fn build(self, cx: &mut BuildContext<'_>) {
        for (name, model, mailbox) in self.parts {
            cx.add_model(model, mailbox, name);
        }
        for (name, group) in self.groups {
            cx.add_composite(group, name);
        }
    }
}

fn init_error(init: SimInit) -> SimulationError {
    init.init(SimTime::ZERO)
        .expect_err("the bench should be refused")
}

#[test]
fn names_are_unique_per_level_and_the_error_names_the_parent() {
    // The same leaf name at different levels is fine.
    let sys = Group::of(&["x", "y"]).with_group("inner", Group::of(&["x"]));
    start(sim_init().add_composite(sys, "x"));

    let twice_inside = Group::of(&["y"]).with_group("inner", Group::of(&["z", "z"]));
    let error = init_error(sim_init().add_composite(twice_inside, "sys"));
    assert_eq!(
        error,
        SimulationError::DuplicateName {
            parent: Some("sys/inner".into()),
            name: "z".into(),
        }
    );
    assert_eq!(
        error.to_string(),
        "two parts of composite `sys/inner` were added under the name `z`; names must be \
         unique at each level"
    );

    // A model and a composite collide too, at the top level …
    let log = Log::<u32>::new();
    let error = init_error(
        sim_init()
            .add_model(Recorder::new(&log), Mailbox::new(), "sys")
            .add_composite(Group::of(&[]), "sys"),
    );
    assert_eq!(
        error,
        SimulationError::DuplicateName {
            parent: None,
            name: "sys".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "two parts of the bench's top level were added under the name `sys`; names must be \
         unique at each level"
    );

    // … and inside a composite.
    let clash = Group::of(&["inner"]).with_group("inner", Group::of(&[]));
    assert_eq!(
        init_error(sim_init().add_composite(clash, "sys")),
        SimulationError::DuplicateName {
            parent: Some("sys".into()),
            name: "inner".into()
        }
    );
}

#[test]
fn empty_names_and_names_with_a_slash_are_refused() {
    let error = init_error(sim_init().add_composite(Group::of(&["a/b"]), "sys"));
    assert_eq!(
        error,
        SimulationError::InvalidName {
            parent: Some("sys".into()),
            name: "a/b".into(),
            reason: "it contains `/`, which separates the levels of a path",
        }
    );
    assert_eq!(
        error.to_string(),
        "a part of composite `sys` was added under the name `a/b`, which cannot name a model \
         or composite: it contains `/`, which separates the levels of a path"
    );
    let log = Log::<u32>::new();
    assert_eq!(
        init_error(sim_init().add_model(Recorder::new(&log), Mailbox::new(), "")),
        SimulationError::InvalidName {
            parent: None,
            name: String::new(),
            reason: "it is empty",
        }
    );
    // A flat name with a slash would forge a path.
    assert!(matches!(
        init_error(sim_init().add_model(Recorder::new(&log), Mailbox::new(), "sys/a")),
        SimulationError::InvalidName { .. }
    ));
}

// ---------------------------------------------------------------------------
// Generic composites
// ---------------------------------------------------------------------------

/// `n` recorders of `T` behind one splitter: generic over the payload.
struct Bank<T: Clone + Send + 'static> {
    split: Forwarder<T>,
    split_mailbox: Mailbox<Forwarder<T>>,
    cells: Vec<(Recorder<T>, Mailbox<Recorder<T>>)>,
}

impl<T: Clone + Send + 'static> Bank<T> {
    fn new(n: usize, log: &Log<T>) -> Self {
        let mut split = Forwarder::new();
        let cells: Vec<_> = (0..n)
            .map(|_| (Recorder::new(log), Mailbox::new()))
            .collect();
        for (_, mailbox) in &cells {
            split.out.connect(Recorder::ports().input, mailbox);
        }
        Bank {
            split,
            split_mailbox: Mailbox::new(),
            cells,
        }
    }

    fn input(&self) -> InputRef<Forwarder<T>, T> {
        InputRef::new(Forwarder::ports().input, &self.split_mailbox)
    }
}

impl<T: Clone + Send + 'static> Composite for Bank<T> {
    fn build(self, cx: &mut BuildContext<'_>) {
        cx.add_model(self.split, self.split_mailbox, "split");
        for (i, (model, mailbox)) in self.cells.into_iter().enumerate() {
            cx.add_model(model, mailbox, format!("cell{i}"));
        }
    }
}

#[test]
fn generic_composites_nest_and_name_their_type_with_parameters() {
    assert_eq!(Bank::<u8>::type_name(), "Bank<u8>");
    assert_eq!(Bank::<String>::type_name(), "Bank<String>");

    let bytes = Log::new();
    let words = Log::new();
    let byte_bank = Bank::new(2, &bytes);
    let word_bank = Bank::new(3, &words);
    let (byte_in, word_in) = (byte_bank.input(), word_bank.input());
    let banks = BankPair {
        bytes: byte_bank,
        words: word_bank,
    };
    let mut simu = start(sim_init().add_composite(banks, "banks"));
    simu.process(byte_in.event(7u8)).unwrap();
    simu.process(word_in.event("hi".to_string())).unwrap();

    let mut byte_pairs = bytes.pairs();
    byte_pairs.sort();
    assert_eq!(
        byte_pairs,
        vec![
            ("banks/bytes/cell0".to_string(), 7),
            ("banks/bytes/cell1".to_string(), 7)
        ]
    );
    let mut word_models: Vec<String> = words.pairs().into_iter().map(|(m, _)| m).collect();
    word_models.sort();
    assert_eq!(
        word_models,
        [
            "banks/words/cell0",
            "banks/words/cell1",
            "banks/words/cell2"
        ]
    );
}

/// Two banks of different payloads in one composite.
struct BankPair {
    bytes: Bank<u8>,
    words: Bank<String>,
}

impl Composite for BankPair {
    fn build(self, cx: &mut BuildContext<'_>) {
        cx.add_composite(self.bytes, "bytes")
            .add_composite(self.words, "words");
    }
}

// ---------------------------------------------------------------------------
// Errors name models by path
// ---------------------------------------------------------------------------

/// Panics on every input.
#[model]
struct Fuse {}

#[model]
impl Fuse {
    #[input]
    fn blow(&mut self, _: ()) {
        panic!("fuse blown");
    }
}

#[test]
fn a_panic_names_the_model_by_path() {
    let fuse = Wrap::new(Fuse {}, "fuse");
    let address = fuse.address();
    let sys = Nest {
        inner: fuse,
        name: "inner",
    };
    let mut simu = start(sim_init().add_composite(sys, "sys"));
    let error = simu
        .process_event(Fuse::ports().blow, (), &address)
        .unwrap_err();
    assert!(
        matches!(&error, SimulationError::ModelPanic { model, .. } if model == "sys/inner/fuse"),
        "{error:?}"
    );
    assert!(error.to_string().contains("`sys/inner/fuse`"), "{error}");
}

/// Two models that ask each other: a deadlock waiting to happen.
struct Pair {
    ping: Mutual,
    ping_mailbox: Mailbox<Mutual>,
    pong: Mutual,
    pong_mailbox: Mailbox<Mutual>,
}

impl Composite for Pair {
    fn build(self, cx: &mut BuildContext<'_>) {
        cx.add_model(self.ping, self.ping_mailbox, "ping")
            .add_model(self.pong, self.pong_mailbox, "pong");
    }
}

#[test]
fn a_deadlock_names_the_blocked_models_by_path() {
    let (ping_mailbox, pong_mailbox) = (Mailbox::new(), Mailbox::new());
    let mut ping = Mutual {
        req: Requestor::new(),
    };
    let mut pong = Mutual {
        req: Requestor::new(),
    };
    ping.req.connect(Mutual::ports().ask, &pong_mailbox);
    pong.req.connect(Mutual::ports().ask, &ping_mailbox);
    let go = InputRef::new(Mutual::ports().go, &ping_mailbox);
    let pair = Pair {
        ping,
        ping_mailbox,
        pong,
        pong_mailbox,
    };
    let mut simu = start(sim_init().add_composite(pair, "pair"));
    let error = simu.process(go.event(0)).unwrap_err();
    let SimulationError::Deadlock { models, .. } = &error else {
        panic!("expected a deadlock, got {error:?}");
    };
    let mut blocked: Vec<_> = models
        .iter()
        .map(|m| (m.model.clone(), m.waiting_for.clone()))
        .collect();
    blocked.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        blocked,
        vec![
            (
                "pair/ping".to_string(),
                WaitingFor::Reply {
                    from: "pair/pong".into()
                }
            ),
            (
                "pair/pong".to_string(),
                WaitingFor::Reply {
                    from: "pair/ping".into()
                }
            ),
        ]
    );
}

/// An output that must be connected.
#[model]
struct Sensor {
    #[required]
    reading: Output<f64>,
}

#[model]
impl Sensor {}

#[test]
fn a_required_port_left_open_inside_a_composite_is_named_by_its_path() {
    let sensor = Wrap::new(
        Sensor {
            reading: Output::new(),
        },
        "sensor",
    );
    let sys = Nest {
        inner: sensor,
        name: "thermal",
    };
    let error = init_error(sim_init().add_composite(sys, "sat"));
    let _no_inputs = Sensor::ports();
    assert_eq!(
        error,
        SimulationError::MissingConnections(vec![MissingConnection {
            model: "sat/thermal/sensor".into(),
            model_type: "Sensor",
            port: "reading: Output<f64>".into(),
        }])
    );
    assert_eq!(
        error.to_string(),
        "required ports left unconnected: `sat/thermal/sensor.reading: Output<f64>` (Sensor)"
    );
}

#[test]
fn misaddressed_messages_name_the_sender_and_recipient_by_path() {
    let log = Log::new();
    // A recorder in a first bench, inside a composite.
    let recorder = Wrap::new(Recorder::new(&log), "rec");
    let foreign = recorder.address();
    let _first = start(sim_init().add_composite(recorder, "first"));

    // An emitter in a second bench, inside a composite, sending to it and
    // to a recorder never added.
    let never_added = Mailbox::<Recorder<u32>>::new();
    let mut emitter = Emitter::new(2);
    emitter.outs[0].connect(Recorder::ports().input, &foreign);
    emitter.outs[1].connect(Recorder::ports().input, &never_added);
    let emitter = Wrap::new(emitter, "emitter");
    let emit = InputRef::new(Emitter::ports().emit, emitter.address());
    let mut second = start(sim_init().add_composite(emitter, "second"));

    let error = second.process(emit.event(vec![(0, 1)])).unwrap_err();
    assert!(
        matches!(&error, SimulationError::ForeignAddress { sender: Some(sender), model, .. }
            if sender == "second/emitter" && model == "first/rec"),
        "{error:?}"
    );
    let error = second.process(emit.event(vec![(1, 1)])).unwrap_err();
    assert!(
        matches!(&error, SimulationError::NoRecipient { sender: Some(sender), .. }
            if sender == "second/emitter"),
        "{error:?}"
    );

    // Scheduled into the second bench for the first bench's model.
    let scheduled = second
        .scheduler()
        .schedule(t(1), Recorder::ports().input, 1, &foreign)
        .unwrap_err();
    assert!(
        matches!(&scheduled, SchedulingError::ForeignAddress { model, .. } if model == "first/rec"),
        "{scheduled:?}"
    );
    assert!(scheduled.to_string().contains("`first/rec`"), "{scheduled}");
}
