//! The deterministic message order (`MessageOrder::Deterministic`): every
//! observable output of a bench is bit-identical on 1, 2 and 4 threads.
//!
//! The property test builds random benches — random topologies with
//! fan-in, self-loops and cycles (bounded by a hop budget), requests
//! through `Requestor` and `UniRequestor`, bench events at random and
//! shared times, periodic events, zero-delay and delayed self-scheduling,
//! sinks of every kind — whose models fold every message into their
//! state, so that any change of order at any model changes what it sends
//! next. Each bench runs in the deterministic order on 1, 2 and 4 threads,
//! and everything it shows (what every model received, with times, in
//! order; every sink's contents) must be equal.
//!
//! The other tests check the documented order on small hand-checked
//! benches, and that requests, self-sends, long same-time chains,
//! zero-delay events, panics and deadlocks behave as documented.
//!
//! This file picks its thread counts itself, so it is not part of the
//! executor matrix (`tests/matrix/suite.rs`).

mod common;
use common::*;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use causim::{CallbackSink, EventQueue, MessageOrder, WaitingFor, ZeroDelay};
use proptest::prelude::*;

/// A bench builder in the deterministic order on `threads` threads, where
/// a worker is woken whenever two models are ready (the schedule in which
/// threads interleave most).
fn ordered(threads: usize) -> SimInit {
    SimInit::new()
        .with_threads(threads)
        .with_wake_threshold(1)
        .with_message_order(MessageOrder::Deterministic)
}

/// Mixes `value` into `state` (order-sensitive).
fn mix(state: u64, value: u64) -> u64 {
    (state ^ value)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .rotate_left(23)
}

/// xorshift64*: small and seedable.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// What a node records: `(hops, value, state after)`; `hops ==
/// u32::MAX` marks a request answered.
type Seen = (u32, u64, u64);

/// A node of the random bench.
#[model]
struct Node {
    /// Outputs to other nodes (or itself).
    outs: Vec<Output<(u32, u64)>>,
    /// Requests to higher-numbered nodes.
    req: Requestor<u64, u64>,
    /// At most one single-replier request, to a higher-numbered node.
    uni: Vec<UniRequestor<u64, u64>>,
    /// Its state after each message, to the sinks.
    report: Output<u64>,
    /// Everything it received.
    state: u64,
    /// Where it records.
    log: Log<Seen>,
}

#[model]
impl Node {
    #[input]
    async fn input(&mut self, (hops, value): (u32, u64), cx: &mut Context<Self>) {
        self.state = mix(self.state, value);
        if hops > 0 {
            match self.state % 8 {
                0 => {
                    let delay = Duration::from_millis(1 + self.state % 700);
                    cx.schedule(delay, Self::ports().input, (hops - 1, self.state))
                        .unwrap();
                }
                1 => cx
                    .schedule(ZeroDelay, Self::ports().input, (hops - 1, self.state))
                    .unwrap(),
                2 | 3 => {
                    let folded = self.req.send(self.state).await.fold(0, mix);
                    self.state = mix(self.state, folded);
                }
                4 => {
                    if let Some(uni) = self.uni.first_mut() {
                        let reply = uni.send(self.state).await;
                        self.state = mix(self.state, reply);
                    }
                }
                _ => {}
            }
            for (i, out) in self.outs.iter_mut().enumerate() {
                out.send((hops - 1, mix(self.state, i as u64))).await;
            }
        }
        self.log
            .push(cx.name(), cx.time(), (hops, value, self.state));
        self.report.send(self.state).await;
    }

    #[replier]
    async fn peek(&mut self, x: u64, cx: &mut Context<Self>) -> u64 {
        self.state = mix(self.state, x);
        self.log
            .push(cx.name(), cx.time(), (u32::MAX, x, self.state));
        self.report.send(self.state).await;
        self.state
    }
}

/// Everything a run shows.
#[derive(Debug, PartialEq, Eq)]
struct Observed {
    /// Per model, what it received, in order, with times.
    models: BTreeMap<String, Vec<(SimTime, Seen)>>,
    /// The queue sink's contents.
    queue: Vec<u64>,
    /// What the callback sink was called with, in order.
    callback: Vec<u64>,
    /// The clock at the end.
    end: SimTime,
}

/// Builds the random bench of `seed` and runs it on `threads` threads in
/// `order` until 4 s.
fn run_random(seed: u64, threads: usize, order: MessageOrder) -> Observed {
    let mut rng = Rng::new(seed);
    let n = 3 + rng.below(10) as usize;
    let log = Log::new();
    let queue = EventQueue::new();
    let called = Arc::new(Mutex::new(Vec::new()));
    let seen = called.clone();
    let callback = CallbackSink::new(move |v: u64| seen.lock().unwrap().push(v));
    let mailboxes: Vec<Mailbox<Node>> = (0..n)
        .map(|_| {
            // Small mailboxes, which the deterministic order overflows;
            // the causal one would wait for room, which can deadlock in a
            // cycle, so it gets room enough.
            let capacity = 1 + rng.below(4) as usize;
            match order {
                MessageOrder::Deterministic => Mailbox::with_capacity(capacity),
                MessageOrder::Causal => Mailbox::with_capacity(1 << 16),
            }
        })
        .collect();
    let addresses: Vec<Address<Node>> = mailboxes.iter().map(Mailbox::address).collect();
    // A few hubs receive most messages: fan-in.
    let hubs = 1 + rng.below(2) as usize;
    let mut nodes = Vec::new();
    for i in 0..n {
        let mut node = Node {
            outs: Vec::new(),
            req: Requestor::new(),
            uni: Vec::new(),
            report: Output::new(),
            state: i as u64,
            log: log.clone(),
        };
        for _ in 0..1 + rng.below(3) {
            let to = if rng.below(3) == 0 {
                rng.below(n as u64) as usize
            } else {
                rng.below(hubs as u64) as usize
            };
            let mut out = Output::new();
            if rng.below(4) == 0 {
                let k = rng.next();
                out.map_connect(
                    move |(h, v): (u32, u64)| (h, v ^ k),
                    Node::ports().input,
                    &addresses[to],
                );
            } else {
                out.connect(Node::ports().input, &addresses[to]);
            }
            node.outs.push(out);
        }
        // Requests only to higher-numbered nodes, whose repliers never
        // request: no wait cycle.
        let later = (n - i - 1) as u64;
        if later > 0 {
            for _ in 0..rng.below(3) {
                let to = i + 1 + rng.below(later) as usize;
                node.req.connect(Node::ports().peek, &addresses[to]);
            }
            if rng.below(2) == 0 {
                let to = i + 1 + rng.below(later) as usize;
                node.uni
                    .push(UniRequestor::new(Node::ports().peek, &addresses[to]));
            }
        }
        match rng.below(3) {
            0 => node.report.connect_sink(&queue),
            1 => node.report.connect_sink(&callback),
            _ => {}
        }
        nodes.push(node);
    }
    let mut init = SimInit::new()
        .with_threads(threads)
        .with_message_order(order);
    for (i, (node, mailbox)) in nodes.into_iter().zip(mailboxes).enumerate() {
        init = init.add_model(node, mailbox, format!("n{i}"));
    }
    let mut simu = init.init(SimTime::ZERO).expect("init");
    let scheduler = simu.scheduler();
    // Bench events, a third of them at one shared time.
    let shared = SimTime::from_millis(1 + rng.below(2999));
    for _ in 0..1 + rng.below(12) {
        let time = if rng.below(3) == 0 {
            shared
        } else {
            SimTime::from_millis(1 + rng.below(2999))
        };
        let to = rng.below(n as u64) as usize;
        let payload = (1 + rng.below(6) as u32, rng.next());
        scheduler
            .schedule(time, Node::ports().input, payload, &addresses[to])
            .unwrap();
    }
    // Periodic events.
    for _ in 0..rng.below(3) {
        let to = rng.below(n as u64) as usize;
        let first = SimTime::from_millis(1 + rng.below(999));
        let period = Duration::from_millis(250 * (1 + rng.below(4)));
        let payload = (1 + rng.below(2) as u32, rng.next());
        scheduler
            .schedule_periodic(first, period, Node::ports().input, payload, &addresses[to])
            .unwrap();
    }
    simu.step_until(SimTime::from_secs(4)).expect("run");
    let mut models: BTreeMap<String, Vec<(SimTime, Seen)>> = BTreeMap::new();
    for entry in log.entries() {
        models
            .entry(entry.model)
            .or_default()
            .push((entry.time, entry.value));
    }
    let callback = called.lock().unwrap().clone();
    Observed {
        models,
        queue: queue.take_all(),
        callback,
        end: simu.time(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Every observable output of a random bench is identical on 1, 2
    /// and 4 threads.
    #[test]
    #[cfg_attr(miri, ignore = "hundreds of benches: hours under Miri")]
    fn random_benches_are_identical_on_one_two_and_four_threads(seed in any::<u64>()) {
        let one = run_random(seed, 1, MessageOrder::Deterministic);
        prop_assert!(!one.models.is_empty(), "the bench did something");
        for threads in [2, 4] {
            let many = run_random(seed, threads, MessageOrder::Deterministic);
            prop_assert_eq!(&one, &many, "seed {} on {} threads", seed, threads);
        }
    }
}

/// The random benches are sensitive to order: in the causal order on one
/// thread, where a model's message reaches its recipient at once, at
/// least one of them shows something else than in the deterministic
/// order (else the property above would prove little).
#[test]
#[cfg_attr(miri, ignore = "eighty benches: too slow under Miri")]
fn the_random_benches_see_the_order() {
    let differs = (0..40).any(|seed| {
        run_random(seed, 1, MessageOrder::Causal)
            != run_random(seed, 1, MessageOrder::Deterministic)
    });
    assert!(differs);
}

// ---------------------------------------------------------------------------
// The documented order, by hand
// ---------------------------------------------------------------------------

/// Sends its name on `out` when told to.
#[model]
struct Talker {
    out: Output<String>,
}

#[model]
impl Talker {
    #[input]
    async fn go(&mut self, count: u32, cx: &mut Context<Self>) {
        for i in 0..count {
            self.out.send(format!("{}{i}", cx.name())).await;
        }
    }
}

/// Sends what it is told, then replaces its output, dropping the
/// connections its staged sends go through.
#[model]
struct Forgetful {
    out: Output<u32>,
}

#[model]
impl Forgetful {
    #[input]
    async fn go(&mut self, count: u32) {
        for i in 0..count {
            self.out.send(i).await;
        }
        self.out = Output::new();
    }
}

/// A staged send's connection lives until the round delivers it: a model
/// that drops its output before the round still has its messages
/// delivered, through the connections it let go of, which the bench keeps
/// for them (Miri checks that nothing freed is read: a staged send that
/// only pointed at its connection, with nothing keeping it, read it after
/// it was freed); later sends go nowhere.
#[test]
fn staged_sends_outlive_the_output_they_went_through() {
    for threads in [1, 2, 4] {
        let log = Log::new();
        let queue = EventQueue::new();
        let recorder = Mailbox::new();
        let mut sender = Forgetful { out: Output::new() };
        sender.out.connect(Recorder::ports().input, &recorder);
        sender.out.connect_sink(&queue);
        let sender_box = Mailbox::new();
        let sender_addr = sender_box.address();
        let mut simu = ordered(threads)
            .add_model(sender, sender_box, "sender")
            .add_model(Recorder::<u32>::new(&log), recorder, "recorder")
            .init(SimTime::ZERO)
            .unwrap();
        let scheduler = simu.scheduler();
        for time in [1, 2] {
            scheduler
                .schedule(t(time), Forgetful::ports().go, 3, &sender_addr)
                .unwrap();
        }
        simu.step().unwrap();
        simu.step().unwrap();
        assert_eq!(log.values_of("recorder"), [0, 1, 2], "{threads} threads");
        assert_eq!(queue.take_all(), [0, 1, 2], "{threads} threads");
    }
}

/// Counts its drops.
struct DropCount(Arc<AtomicUsize>);

impl Drop for DropCount {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// Wires a new output to a new callback sink at each event, sends on it
/// and lets both go: only the connection holds the sink's function.
#[model]
struct Rewiring {
    /// The callbacks' runs.
    calls: Arc<AtomicUsize>,
    /// The callbacks' drops (their functions' captures).
    drops: Arc<AtomicUsize>,
    out: Output<u32>,
}

#[model]
impl Rewiring {
    #[input]
    async fn go(&mut self, value: u32) {
        let (calls, dropped) = (self.calls.clone(), DropCount(self.drops.clone()));
        let sink = CallbackSink::new(move |_: u32| {
            let _keep = &dropped;
            calls.fetch_add(1, Ordering::SeqCst);
        });
        self.out = Output::new();
        self.out.connect_sink(&sink);
        self.out.send(value).await;
        self.out.send(value + 1).await;
        self.out = Output::new();
    }
}

/// A connection let go of while its sends were staged is freed once the
/// step's rounds have delivered them, not kept until the bench goes: a
/// model that wires a new output at each event holds no more memory for
/// it after a thousand events than after one.
#[test]
fn a_connection_let_go_of_is_freed_once_its_staged_sends_are_delivered() {
    for threads in [1, 2, 4] {
        let (calls, drops) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let model = Rewiring {
            calls: calls.clone(),
            drops: drops.clone(),
            out: Output::new(),
        };
        let mailbox = Mailbox::new();
        let address = mailbox.address();
        let mut simu = ordered(threads)
            .add_model(model, mailbox, "rewiring")
            .init(SimTime::ZERO)
            .unwrap();
        let scheduler = simu.scheduler();
        let steps = if cfg!(miri) { 8 } else { 50 };
        for step in 1..=steps {
            scheduler
                .schedule(t(u64::from(step)), Rewiring::ports().go, step, &address)
                .unwrap();
            simu.step().unwrap();
            let step = step as usize;
            assert_eq!(calls.load(Ordering::SeqCst), 2 * step, "{threads} threads");
            assert_eq!(drops.load(Ordering::SeqCst), step, "{threads} threads");
        }
    }
}

/// Two senders `a` (added first) and `b` send to one recorder at one
/// time, `b`'s event first: `b` runs first, yet the recorder and a sink
/// see `a`'s messages first, on every thread count; in the causal order on
/// one thread, they see `b`'s first.
#[test]
fn same_time_messages_arrive_by_sender_add_order() {
    let run = |init: SimInit| {
        let log = Log::new();
        let queue = EventQueue::new();
        let recorder = Mailbox::new();
        let mut a = Talker { out: Output::new() };
        let mut b = Talker { out: Output::new() };
        for talker in [&mut a, &mut b] {
            talker.out.connect(Recorder::ports().input, &recorder);
            talker.out.connect_sink(&queue);
        }
        let (a_box, b_box) = (Mailbox::new(), Mailbox::new());
        let (a_addr, b_addr) = (a_box.address(), b_box.address());
        let mut simu = init
            .add_model(a, a_box, "a")
            .add_model(b, b_box, "b")
            .add_model(Recorder::<String>::new(&log), recorder, "c")
            .init(SimTime::ZERO)
            .unwrap();
        let scheduler = simu.scheduler();
        scheduler
            .schedule(t(1), Talker::ports().go, 2, &b_addr)
            .unwrap();
        scheduler
            .schedule(t(1), Talker::ports().go, 2, &a_addr)
            .unwrap();
        simu.step().unwrap();
        (log.values_of("c"), queue.take_all())
    };
    let expected = vec!["a0", "a1", "b0", "b1"];
    for threads in [1, 2, 4] {
        let (seen, sunk) = run(ordered(threads));
        assert_eq!(seen, expected, "{threads} threads");
        assert_eq!(sunk, expected, "{threads} threads");
    }
    let (causal, _) = run(SimInit::new().with_threads(1));
    assert_eq!(causal, ["b0", "b1", "a0", "a1"]);
}

// ---------------------------------------------------------------------------
// Requests, self-sends, chains, zero-delay events
// ---------------------------------------------------------------------------

/// Asks its repliers, then its single replier, and records the answers.
#[model]
struct Asker {
    many: Requestor<u64, u64>,
    one: UniRequestor<u64, u64>,
    log: Log<u64>,
}

#[model]
impl Asker {
    #[input]
    async fn ask(&mut self, x: u64, cx: &mut Context<Self>) {
        let replies: Vec<u64> = self.many.send(x).await.collect();
        for reply in replies {
            self.log.push(cx.name(), cx.time(), reply);
        }
        let reply = self.one.send(x).await;
        self.log.push(cx.name(), cx.time(), reply);
    }
}

/// Answers `x` with `x * factor`, after asking its own replier if it has
/// one (a request made while answering one).
#[model]
struct Answerer {
    factor: u64,
    deeper: Requestor<u64, u64>,
}

#[model]
impl Answerer {
    #[replier]
    async fn answer(&mut self, x: u64) -> u64 {
        let deeper: u64 = self.deeper.send(x).await.sum();
        x * self.factor + deeper
    }
}

/// Requests cross rounds: each request, and each request made while
/// answering one, is delivered in a round of its own; the replies come
/// back in connection order, the same on every thread count, and a bench
/// query reaches through them too.
#[test]
fn requests_across_rounds() {
    for threads in [1, 2, 4] {
        let log = Log::new();
        let (x_box, y_box, z_box) = (Mailbox::new(), Mailbox::new(), Mailbox::new());
        let mut x = Answerer {
            factor: 10,
            deeper: Requestor::new(),
        };
        x.deeper.connect(Answerer::ports().answer, &z_box);
        let y = Answerer {
            factor: 100,
            deeper: Requestor::new(),
        };
        let z = Answerer {
            factor: 1000,
            deeper: Requestor::new(),
        };
        let mut asker = Asker {
            many: Requestor::new(),
            one: UniRequestor::new(Answerer::ports().answer, &y_box),
            log: log.clone(),
        };
        asker.many.connect(Answerer::ports().answer, &x_box);
        asker.many.connect(Answerer::ports().answer, &y_box);
        let asker_box = Mailbox::new();
        let asker_addr = asker_box.address();
        let x_addr = x_box.address();
        let mut simu = ordered(threads)
            .add_model(asker, asker_box, "asker")
            .add_model(x, x_box, "x")
            .add_model(y, y_box, "y")
            .add_model(z, z_box, "z")
            .init(SimTime::ZERO)
            .unwrap();
        simu.process_event(Asker::ports().ask, 2, &asker_addr)
            .unwrap();
        // x: 2*10 + z's 2*1000; y: 2*100; then y alone.
        assert_eq!(
            log.values_of("asker"),
            [2020, 200, 200],
            "{threads} threads"
        );
        let answer = simu
            .process_query(Answerer::ports().answer, 3, &x_addr)
            .unwrap();
        assert_eq!(answer, 3030, "{threads} threads");
    }
}

/// Sends to itself until its budget runs out, recording each step.
#[model]
struct Looper {
    again: Output<u32>,
    log: Log<u32>,
}

#[model]
impl Looper {
    #[input]
    async fn tick(&mut self, left: u32, cx: &mut Context<Self>) {
        self.log.push(cx.name(), cx.time(), left);
        if left > 0 {
            self.again.send(left - 1).await;
        }
    }
}

/// A model sending to itself: each message is delivered in the next
/// round, all at the same time, 1 000 rounds in a row.
#[test]
#[cfg_attr(miri, ignore = "3 000 rounds: too slow under Miri")]
fn a_model_sending_to_itself_over_many_rounds() {
    for threads in [1, 2, 4] {
        let log = Log::new();
        let mailbox = Mailbox::new();
        let mut looper = Looper {
            again: Output::new(),
            log: log.clone(),
        };
        looper.again.connect(Looper::ports().tick, &mailbox);
        let address = mailbox.address();
        let mut simu = ordered(threads)
            .add_model(looper, mailbox, "looper")
            .init(SimTime::ZERO)
            .unwrap();
        simu.scheduler()
            .schedule(t(3), Looper::ports().tick, 999, &address)
            .unwrap();
        simu.step().unwrap();
        let timed = log.timed();
        assert_eq!(timed.len(), 1000, "{threads} threads");
        assert!(timed.iter().all(|(time, _)| *time == t(3)));
        let values: Vec<u32> = timed.into_iter().map(|(_, v)| v).collect();
        assert_eq!(values, (0..1000).rev().collect::<Vec<_>>());
    }
}

/// A chain of same-time messages through many models, with a second
/// chain started later at the same time: each hop is a round, and both
/// chains interleave by round, the same on every thread count.
#[test]
fn a_chain_of_same_time_messages_over_many_rounds() {
    // Models in the chain (fewer under Miri, where each round is slow).
    const CHAIN: usize = if cfg!(miri) { 20 } else { 60 };
    let run_bounded = |threads: usize| {
        let log = Log::new();
        let count = CHAIN;
        let mailboxes: Vec<Mailbox<Recorder<(u8, u32)>>> =
            (0..count).map(|_| Mailbox::new()).collect();
        let addresses: Vec<_> = mailboxes.iter().map(Mailbox::address).collect();
        let mut init = ordered(threads);
        for (i, mailbox) in mailboxes.into_iter().enumerate() {
            let mut recorder = Recorder::new(&log);
            if i + 1 < count {
                recorder.out.map_connect(
                    |(chain, hop): (u8, u32)| (chain, hop + 1),
                    Recorder::ports().input,
                    &addresses[i + 1],
                );
            }
            init = init.add_model(recorder, mailbox, format!("r{i:02}"));
        }
        let mut simu = init.init(SimTime::ZERO).unwrap();
        let scheduler = simu.scheduler();
        scheduler
            .schedule(t(1), Recorder::ports().input, (0u8, 0u32), &addresses[0])
            .unwrap();
        scheduler
            .schedule(
                t(1),
                Recorder::ports().input,
                (1u8, 0u32),
                &addresses[CHAIN / 2],
            )
            .unwrap();
        simu.step().unwrap();
        log.entries()
            .into_iter()
            .map(|e| (e.model, e.time, e.value))
            .collect::<Vec<_>>()
    };
    let one = run_bounded(1);
    assert_eq!(one.len(), CHAIN + CHAIN / 2);
    assert!(one.iter().all(|(_, time, _)| *time == t(1)));
    for threads in [2, 4] {
        let many = run_bounded(threads);
        // Each round runs the two chains' models in parallel: compare
        // what each model got.
        let per_model = |run: &[(String, SimTime, (u8, u32))]| {
            let mut map: BTreeMap<String, Vec<(u8, u32)>> = BTreeMap::new();
            for (model, _, value) in run {
                map.entry(model.clone()).or_default().push(*value);
            }
            map
        };
        assert_eq!(per_model(&one), per_model(&many), "{threads} threads");
    }
    // Where the chains meet, the model in the middle onwards sees chain 1
    // first (it started there, round 0) and chain 0 as many rounds later
    // as chain 1 is long.
    let (met, late) = (CHAIN * 3 / 4, CHAIN / 2);
    let name = format!("r{met:02}");
    let seen: Vec<(u8, u32)> = one
        .iter()
        .filter(|(m, _, _)| *m == name)
        .map(|(_, _, v)| *v)
        .collect();
    assert_eq!(seen, [(1, (met - late) as u32), (0, met as u32)]);
}

/// Schedules a zero-delay event and sends a message at once.
#[model]
struct Both {
    out: Output<&'static str>,
    log: Log<&'static str>,
}

#[model]
impl Both {
    #[input]
    async fn start(&mut self, (): (), cx: &mut Context<Self>) {
        cx.schedule(ZeroDelay, Self::ports().later, ()).unwrap();
        self.out.send("message").await;
    }

    #[input]
    async fn later(&mut self, (): (), cx: &mut Context<Self>) {
        self.log.push(cx.name(), cx.time(), "zero-delay event");
        self.out.send("message after the event").await;
    }
}

/// Zero-delay events come after every round of messages caused so far:
/// the message sent with the event is processed first, then the event,
/// then what the event caused, all at one time.
#[test]
fn zero_delay_events_follow_the_message_rounds() {
    for threads in [1, 2, 4] {
        let log = Log::new();
        let (both_box, rec_box) = (Mailbox::new(), Mailbox::new());
        let mut both = Both {
            out: Output::new(),
            log: log.clone(),
        };
        both.out.connect(Recorder::ports().input, &rec_box);
        let address = both_box.address();
        let mut simu = ordered(threads)
            .add_model(both, both_box, "both")
            .add_model(Recorder::<&'static str>::new(&log), rec_box, "rec")
            .init(SimTime::ZERO)
            .unwrap();
        simu.process_event(Both::ports().start, (), &address)
            .unwrap();
        let order: Vec<_> = log.pairs().into_iter().map(|(_, v)| v).collect();
        assert_eq!(
            order,
            ["message", "zero-delay event", "message after the event"],
            "{threads} threads"
        );
    }
}

/// A full mailbox does not hold a sender back in the deterministic order:
/// a burst far past a mailbox's capacity arrives whole and in order.
#[test]
fn staged_sends_overflow_a_full_mailbox() {
    for threads in [1, 2, 4] {
        let log = Log::new();
        let rec_box = Mailbox::with_capacity(2);
        let mut talker = Talker { out: Output::new() };
        talker.out.connect(Recorder::ports().input, &rec_box);
        let talker_box = Mailbox::new();
        let address = talker_box.address();
        let mut simu = ordered(threads)
            .add_model(talker, talker_box, "t")
            .add_model(Recorder::<String>::new(&log), rec_box, "rec")
            .init(SimTime::ZERO)
            .unwrap();
        // Far past the capacity (less far under Miri, where it is slow).
        let burst = if cfg!(miri) { 24 } else { 100 };
        simu.process_event(Talker::ports().go, burst, &address)
            .unwrap();
        let expected: Vec<String> = (0..burst).map(|i| format!("t{i}")).collect();
        assert_eq!(log.values_of("rec"), expected, "{threads} threads");
    }
}

// ---------------------------------------------------------------------------
// Failures
// ---------------------------------------------------------------------------

/// Panics on any value.
#[model]
struct Panicker;

#[model]
impl Panicker {
    #[input]
    async fn input(&mut self, _: String) {
        panic!("refused");
    }
}

/// A model panic in the deterministic order is reported as in the causal
/// one, naming the model, and is fatal.
#[test]
fn a_model_panic_is_reported() {
    for threads in [1, 2, 4] {
        let (talker_box, panicker_box) = (Mailbox::new(), Mailbox::new());
        let mut talker = Talker { out: Output::new() };
        talker.out.connect(Panicker::ports().input, &panicker_box);
        let address = talker_box.address();
        let mut simu = ordered(threads)
            .add_model(talker, talker_box, "talker")
            .add_model(Panicker, panicker_box, "panicker")
            .init(SimTime::ZERO)
            .unwrap();
        let error = simu
            .process_event(Talker::ports().go, 1, &address)
            .unwrap_err();
        match &error {
            SimulationError::ModelPanic { model, message, .. } => {
                assert_eq!(model, "panicker");
                assert!(message.contains("refused"), "{message}");
            }
            other => panic!("not a model panic: {other:?}"),
        }
        // Fatal: the next call reports it again.
        assert_eq!(simu.step(), Err(error));
    }
}

/// A panic in a connection's mapping closure, which runs when the bench
/// delivers the round, is the sending model's panic.
#[test]
fn a_panicking_map_is_the_senders_panic() {
    for threads in [1, 2, 4] {
        let (talker_box, rec_box) = (Mailbox::new(), Mailbox::new());
        let log = Log::new();
        let mut talker = Talker { out: Output::new() };
        talker.out.map_connect(
            |s: String| -> String { panic!("cannot map {s}") },
            Recorder::ports().input,
            &rec_box,
        );
        let address = talker_box.address();
        let mut simu = ordered(threads)
            .add_model(talker, talker_box, "talker")
            .add_model(Recorder::<String>::new(&log), rec_box, "rec")
            .init(SimTime::ZERO)
            .unwrap();
        let error = simu
            .process_event(Talker::ports().go, 1, &address)
            .unwrap_err();
        match error {
            SimulationError::ModelPanic { model, message, .. } => {
                assert_eq!(model, "talker");
                assert!(message.contains("cannot map talker0"), "{message}");
            }
            other => panic!("not a model panic: {other:?}"),
        }
    }
}

/// Asks its peer when told to, and answers its peer by asking back.
#[model]
struct Stubborn {
    peer: Requestor<u32, u32>,
}

#[model]
impl Stubborn {
    #[input]
    async fn start(&mut self, x: u32) {
        let _ = self.peer.send(x).await.count();
    }

    #[replier]
    async fn answer(&mut self, x: u32) -> u32 {
        self.peer.send(x).await.sum()
    }
}

/// Two models that wait for each other's reply: a deadlock, reported with
/// what each waits for, once no round can deliver anything more.
#[test]
fn a_deadlock_is_reported() {
    for threads in [1, 2, 4] {
        let (a_box, b_box) = (Mailbox::new(), Mailbox::new());
        let mut a = Stubborn {
            peer: Requestor::new(),
        };
        let mut b = Stubborn {
            peer: Requestor::new(),
        };
        a.peer.connect(Stubborn::ports().answer, &b_box);
        b.peer.connect(Stubborn::ports().answer, &a_box);
        let address = a_box.address();
        let mut simu = ordered(threads)
            .add_model(a, a_box, "a")
            .add_model(b, b_box, "b")
            .init(SimTime::ZERO)
            .unwrap();
        let error = simu
            .process_event(Stubborn::ports().start, 1, &address)
            .unwrap_err();
        let SimulationError::Deadlock { models, .. } = error else {
            panic!("not a deadlock: {error:?}");
        };
        let mut waits: Vec<_> = models
            .iter()
            .map(|m| (m.model.clone(), m.waiting_for.clone()))
            .collect();
        waits.sort_by(|x, y| x.0.cmp(&y.0));
        assert_eq!(
            waits,
            [
                (
                    "a".to_string(),
                    WaitingFor::Reply {
                        from: "b".to_string()
                    }
                ),
                (
                    "b".to_string(),
                    WaitingFor::Reply {
                        from: "a".to_string()
                    }
                ),
            ],
            "{threads} threads"
        );
    }
}

/// The builder says which order it will use.
#[test]
fn the_order_is_causal_by_default() {
    assert_eq!(SimInit::new().message_order(), MessageOrder::Causal);
    assert_eq!(ordered(1).message_order(), MessageOrder::Deterministic);
}

/// A message to a mailbox never added to the bench is reported as in the
/// causal order, naming its sender, and is not fatal.
#[test]
fn a_message_to_a_mailbox_never_added_is_reported_with_its_sender() {
    for threads in [1, 2, 4] {
        let log = Log::new();
        let (talker_box, rec_box) = (Mailbox::new(), Mailbox::new());
        let stray: Mailbox<Recorder<String>> = Mailbox::new();
        let mut talker = Talker { out: Output::new() };
        talker.out.connect(Recorder::ports().input, &rec_box);
        talker.out.connect(Recorder::ports().input, &stray);
        let address = talker_box.address();
        let mut simu = ordered(threads)
            .add_model(talker, talker_box, "talker")
            .add_model(Recorder::<String>::new(&log), rec_box, "rec")
            .init(SimTime::ZERO)
            .unwrap();
        let error = simu
            .process_event(Talker::ports().go, 1, &address)
            .unwrap_err();
        match &error {
            SimulationError::NoRecipient { sender, .. } => {
                assert_eq!(sender.as_deref(), Some("talker"), "{threads} threads");
            }
            other => panic!("not NoRecipient: {other:?}"),
        }
        assert!(!error.is_fatal());
        // The bound recipient got its message, staged.
        assert_eq!(log.values_of("rec"), ["talker0"]);
    }
}

/// A same-time exchange that never ends is stopped by the call's timeout,
/// round after round, as in the causal order.
#[test]
#[cfg_attr(miri, ignore = "a wall-clock timeout: meaningless under Miri")]
fn an_endless_same_time_exchange_times_out() {
    for threads in [1, 2, 4] {
        let log = Log::new();
        let mailbox = Mailbox::new();
        let mut looper = Looper {
            again: Output::new(),
            log: log.clone(),
        };
        looper.again.connect(Looper::ports().tick, &mailbox);
        let address = mailbox.address();
        let mut simu = ordered(threads)
            .with_timeout(Duration::from_millis(200))
            .add_model(looper, mailbox, "looper")
            .init(SimTime::ZERO)
            .unwrap();
        simu.scheduler()
            .schedule(t(1), Looper::ports().tick, u32::MAX, &address)
            .unwrap();
        let error = simu.step().unwrap_err();
        assert!(
            matches!(error, SimulationError::Timeout { .. }),
            "{threads} threads: {error:?}"
        );
        assert!(log.len() > 10, "{threads} threads: it ran");
    }
}

/// Greets its peer from its `#[init]` hook.
#[model]
struct Greeter {
    out: Output<String>,
}

#[model]
impl Greeter {
    #[init]
    async fn hello(&mut self, cx: &mut Context<Self>) {
        self.out.send(format!("hello from {}", cx.name())).await;
    }
}

/// Messages sent by `#[init]` hooks are delivered in rounds, by sender.
#[test]
fn init_hooks_send_in_rounds() {
    for threads in [1, 2, 4] {
        let log = Log::new();
        let rec_box = Mailbox::new();
        let mut init =
            ordered(threads).add_model(Recorder::<String>::new(&log), Mailbox::new(), "idle");
        for name in ["g1", "g2", "g3"] {
            let mut greeter = Greeter { out: Output::new() };
            greeter.out.connect(Recorder::ports().input, &rec_box);
            init = init.add_model(greeter, Mailbox::new(), name);
        }
        let _simu = init
            .add_model(Recorder::<String>::new(&log), rec_box, "rec")
            .init(SimTime::ZERO)
            .unwrap();
        assert_eq!(
            log.values_of("rec"),
            ["hello from g1", "hello from g2", "hello from g3"],
            "{threads} threads"
        );
    }
}

// ---------------------------------------------------------------------
// A bench run from inside a model's method.
// ---------------------------------------------------------------------

/// Passes what it gets on.
#[model]
#[derive(Debug)]
pub struct Passer {
    pub out: Output<u64>,
}

#[model]
impl Passer {
    #[input]
    pub async fn go(&mut self, n: u64) {
        self.out.send(n).await;
    }
}

/// Adds up what it gets.
#[model]
#[derive(Debug)]
pub struct Adder {
    sum: u64,
}

#[model]
impl Adder {
    #[input]
    pub fn take(&mut self, n: u64) {
        self.sum += n;
    }

    #[replier]
    pub fn read(&mut self) -> u64 {
        self.sum
    }
}

/// A bench of its own, in `order`: a passer sends 5 to an adder, which is
/// then read.
fn inner_bench(order: MessageOrder) -> Result<u64, SimulationError> {
    let (passer_box, adder_box) = (Mailbox::new(), Mailbox::new());
    let (passer, adder) = (passer_box.address(), adder_box.address());
    let mut model = Passer { out: Output::new() };
    model.out.connect(Adder::ports().take, &adder);
    let mut simu = SimInit::new()
        .with_threads(1)
        .with_message_order(order)
        .add_model(model, passer_box, "passer")
        .add_model(Adder { sum: 0 }, adder_box, "adder")
        .init(SimTime::ZERO)?;
    simu.process_event(Passer::ports().go, 5, &passer)?;
    simu.process_query(Adder::ports().read, (), &adder)
}

/// Runs an inner bench in a method and reports what it read.
#[model]
#[derive(Debug)]
pub struct Nester {
    pub result: Output<String>,
    inner: MessageOrder,
}

#[model]
impl Nester {
    #[input]
    pub async fn run(&mut self) {
        let read = format!("{:?}", inner_bench(self.inner));
        self.result.send(read).await;
    }
}

/// A bench run from inside a model's method, on the thread polling that
/// model, neither stages its sends into the outer bench's rounds nor sees
/// its own delivery waiting for them: it runs as it would alone, in either
/// order, inside an outer bench in either order, on 1 and 2 threads.
#[test]
fn a_bench_run_inside_a_model_keeps_to_itself() {
    let orders = [MessageOrder::Causal, MessageOrder::Deterministic];
    for outer in orders {
        for inner in orders {
            for threads in [1, 2] {
                let mut nester = Nester {
                    result: Output::new(),
                    inner,
                };
                let results = EventQueue::new();
                nester.result.connect_sink(&results);
                let mailbox = Mailbox::new();
                let address = mailbox.address();
                let mut simu = SimInit::new()
                    .with_threads(threads)
                    .with_message_order(outer)
                    .add_model(nester, mailbox, "nester")
                    .add_sink(&results, "results")
                    .init(SimTime::ZERO)
                    .unwrap();
                simu.process_event(Nester::ports().run, (), &address)
                    .unwrap();
                let case = format!("outer {outer:?}, inner {inner:?}, {threads} threads");
                assert_eq!(results.take_all(), ["Ok(5)"], "{case}");
            }
        }
    }
}

/// In the deterministic order, a connection to a model of another bench
/// is reported with its sender on every send, also while the connection
/// list stays unchecked (another of its recipients is in no bench yet).
#[test]
fn a_foreign_recipient_is_reported_with_its_sender() {
    for threads in [1, 2] {
        // A bench holding the adder that the passer must not reach.
        let foreign_box = Mailbox::new();
        let foreign = foreign_box.address();
        let _other = SimInit::new()
            .add_model(Adder { sum: 0 }, foreign_box, "adder")
            .init(SimTime::ZERO)
            .unwrap();
        let never_added: Mailbox<Adder> = Mailbox::new();
        let mut passer = Passer { out: Output::new() };
        passer.out.connect(Adder::ports().take, &foreign);
        passer
            .out
            .connect(Adder::ports().take, never_added.address());
        let mailbox = Mailbox::new();
        let address = mailbox.address();
        let mut simu = SimInit::new()
            .with_threads(threads)
            .with_message_order(MessageOrder::Deterministic)
            .add_model(passer, mailbox, "passer")
            .init(SimTime::ZERO)
            .unwrap();
        for send in 0..2 {
            let error = simu
                .process_event(Passer::ports().go, 1, &address)
                .unwrap_err();
            let sender = match &error {
                SimulationError::ForeignAddress { sender, .. }
                | SimulationError::NoRecipient { sender, .. } => sender.clone(),
                other => panic!("{other}"),
            };
            assert_eq!(
                sender.as_deref(),
                Some("passer"),
                "send {send}, {threads} threads: {error}"
            );
        }
    }
}
