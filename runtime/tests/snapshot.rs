//! Save and restore (feature `save`): a restored bench continues exactly
//! where the saved one was, on 1, 2 and 4 threads and across thread
//! counts; every mismatch and every malformed snapshot is an error naming
//! what is wrong, never a panic.
//!
//! Not in the executor matrix: each test runs its benches on the thread
//! counts it needs itself (saving on one count and restoring on another).

mod common;

use causim::snapshot::{PayloadError, RestoreError, SaveError};
use common::*;

// ---------------------------------------------------------------------
// A randomised bench.
// ---------------------------------------------------------------------

/// splitmix64: a tiny deterministic generator.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// A record: (time in ns, node, value).
type Sample = (u64, u32, u64);

/// A node of the randomised bench. Its ticks mix its state and what it was
/// fed (fed values add up, so the order in which same-time feeds arrive
/// from several senders does not matter, on any number of threads), send
/// the result, and schedule what comes next: a one-shot tick, a keyed
/// timeout it may cancel later, or a periodic beat it may stop.
#[model(save)]
#[derive(Debug)]
pub struct Node {
    pub out: Output<Sample>,
    pub fed: Output<u64>,
    id: u32,
    state: u64,
    acc: u64,
    timeout: Option<EventKey>,
    beat: Option<EventKey>,
    ticks: u64,
    last_tick: SimTime,
}

#[model(save)]
impl Node {
    #[init]
    fn start(&mut self, cx: &mut Context<Self>) {
        let first = Duration::from_millis(1 + self.state % 7);
        cx.schedule(first, Self::ports().tick, self.state).unwrap();
    }

    #[input]
    pub async fn tick(&mut self, x: u64, cx: &mut Context<Self>) {
        self.ticks += 1;
        self.last_tick = cx.time();
        self.state = mix(self.state ^ x ^ self.acc);
        let now = cx.time().as_nanos();
        self.out.send((now, self.id, self.state)).await;
        self.fed.send(self.state & 0xFFFF).await;
        let r = self.state;
        let delay = Duration::from_millis(1 + r % 9);
        cx.schedule(delay, Self::ports().tick, r >> 8).unwrap();
        match (r >> 4) % 6 {
            0 => {
                let key = cx
                    .schedule_keyed(
                        Duration::from_millis(3 + r % 11),
                        Self::ports().expire,
                        r as u32,
                    )
                    .unwrap();
                if let Some(old) = self.timeout.replace(key) {
                    old.cancel();
                }
            }
            1 => {
                if let Some(key) = self.timeout.take() {
                    key.cancel();
                }
            }
            2 if self.beat.is_none() => {
                let period = Duration::from_millis(2 + r % 5);
                self.beat = Some(
                    cx.schedule_periodic(period, period, Self::ports().beat, (self.id, r % 100))
                        .unwrap(),
                );
            }
            3 => {
                if let Some(key) = self.beat.take() {
                    key.cancel();
                }
            }
            // Same-time events of this origin: the order must survive.
            4 => {
                let at = Duration::from_millis(4);
                cx.schedule(at, Self::ports().tick, 1).unwrap();
                cx.schedule(at, Self::ports().tick, 2).unwrap();
            }
            _ => {}
        }
    }

    #[input]
    pub fn feed(&mut self, x: u64) {
        self.acc = self.acc.wrapping_add(x);
    }

    #[input]
    pub async fn expire(&mut self, x: u32, cx: &mut Context<Self>) {
        self.timeout = None;
        let now = cx.time().as_nanos();
        let since = now - self.last_tick.as_nanos();
        self.out
            .send((now, self.id, 1 << 40 | u64::from(x) ^ since))
            .await;
    }

    #[input]
    pub async fn beat(&mut self, (id, n): (u32, u64), cx: &mut Context<Self>) {
        let now = cx.time().as_nanos();
        self.out
            .send((now, id, 2 << 40 | n | self.ticks << 8))
            .await;
    }
}

/// A randomised bench of `nodes` nodes wired by `seed`, with the bench's
/// own events on some of them.
struct RandomBench {
    init: SimInit,
    samples: EventQueue<Sample>,
    addresses: Vec<Address<Node>>,
}

fn random_bench(seed: u64, nodes: usize, threads: usize) -> RandomBench {
    random_bench_in(MessageOrder::Causal, seed, nodes, threads)
}

/// [`random_bench`] in the message order `order`.
fn random_bench_in(order: MessageOrder, seed: u64, nodes: usize, threads: usize) -> RandomBench {
    let mailboxes: Vec<Mailbox<Node>> = (0..nodes).map(|_| Mailbox::with_capacity(4)).collect();
    let addresses: Vec<Address<Node>> = mailboxes.iter().map(Mailbox::address).collect();
    let samples = EventQueue::new();
    let mut init = SimInit::new()
        .with_threads(threads)
        .with_message_order(order);
    let mut r = mix(seed);
    for (i, mailbox) in mailboxes.into_iter().enumerate() {
        let mut node = Node {
            out: Output::new(),
            fed: Output::new(),
            id: i as u32,
            state: mix(seed ^ i as u64),
            acc: 0,
            timeout: None,
            beat: None,
            ticks: 0,
            last_tick: SimTime::ZERO,
        };
        node.out.connect_sink(&samples);
        for _ in 0..2 {
            r = mix(r);
            // Forward only (a cycle of full 4-slot mailboxes could
            // deadlock, as it would without snapshots).
            let to = (r % nodes as u64) as usize;
            if to > i {
                node.fed.connect(Node::ports().feed, &addresses[to]);
            }
        }
        init = init.add_model(node, mailbox, format!("node{i}"));
    }
    RandomBench {
        init,
        samples,
        addresses,
    }
}

/// Bench events at the same times as the nodes' own: the bench's come
/// first at each time, then each node's in add order.
fn schedule_bench_events(simu: &Simulation, addresses: &[Address<Node>], seed: u64) {
    let scheduler = simu.scheduler();
    let now = simu.time();
    for (i, address) in addresses.iter().enumerate().step_by(3) {
        let at = now + Duration::from_millis(2 + (mix(seed ^ i as u64) % 20));
        scheduler
            .schedule(at, Node::ports().tick, 7, address)
            .unwrap();
        scheduler
            .schedule(at, Node::ports().feed, 3, address)
            .unwrap();
    }
}

/// Sorted, so that benches on several threads compare (each node's
/// samples are in order on any executor; their interleaving is not).
fn sorted(mut samples: Vec<Sample>) -> Vec<Sample> {
    samples.sort_unstable();
    samples
}

/// Runs the random bench of `seed` to `end` without interruption.
fn uninterrupted(seed: u64, threads: usize, mid: SimTime, end: SimTime) -> Vec<Sample> {
    uninterrupted_in(MessageOrder::Causal, seed, threads, mid, end)
}

/// [`uninterrupted`] in the message order `order`.
fn uninterrupted_in(
    order: MessageOrder,
    seed: u64,
    threads: usize,
    mid: SimTime,
    end: SimTime,
) -> Vec<Sample> {
    let bench = random_bench_in(order, seed, 12, threads);
    let mut simu = bench.init.init(SimTime::ZERO).unwrap();
    simu.step_until(mid).unwrap();
    schedule_bench_events(&simu, &bench.addresses, seed);
    simu.step_until(end).unwrap();
    bench.samples.take_all()
}

/// Runs it to `save_at`, saves on `save_threads`, restores on
/// `restore_threads`, runs on to `end`; returns the samples of both parts
/// and the snapshot.
fn interrupted(
    seed: u64,
    threads: (usize, usize),
    save_at: SimTime,
    mid: SimTime,
    end: SimTime,
) -> (Vec<Sample>, Vec<u8>) {
    interrupted_in(MessageOrder::Causal, seed, threads, save_at, mid, end)
}

/// [`interrupted`] in the message order `order`.
fn interrupted_in(
    order: MessageOrder,
    seed: u64,
    (save_threads, restore_threads): (usize, usize),
    save_at: SimTime,
    mid: SimTime,
    end: SimTime,
) -> (Vec<Sample>, Vec<u8>) {
    let bench = random_bench_in(order, seed, 12, save_threads);
    let mut simu = bench.init.init(SimTime::ZERO).unwrap();
    simu.step_until(mid).unwrap();
    schedule_bench_events(&simu, &bench.addresses, seed);
    simu.step_until(save_at).unwrap();
    let mut snapshot = Vec::new();
    simu.save(&mut snapshot).unwrap();
    let mut samples = bench.samples.take_all();
    drop(simu);

    let bench = random_bench_in(order, seed, 12, restore_threads);
    let mut simu = bench.init.restore(snapshot.as_slice()).unwrap();
    assert_eq!(simu.time(), save_at);
    simu.step_until(end).unwrap();
    samples.extend(bench.samples.take_all());
    (samples, snapshot)
}

#[test]
fn random_benches_continue_exactly_after_a_restore_on_any_thread_count() {
    let (mid, end) = (SimTime::from_millis(10), SimTime::from_millis(120));
    for seed in 0..12u64 {
        let save_at = SimTime::from_millis(11 + mix(seed) % 90);
        let reference = uninterrupted(seed, 1, mid, end);
        assert!(
            reference.len() > 100,
            "seed {seed}: the bench does something"
        );
        // One thread: identical, in order.
        let (same, _) = interrupted(seed, (1, 1), save_at, mid, end);
        assert_eq!(same, reference, "seed {seed}, 1 → 1 thread");
        for threads in [(2, 2), (4, 4), (4, 1), (1, 2)] {
            let (samples, _) = interrupted(seed, threads, save_at, mid, end);
            assert_eq!(
                sorted(samples),
                sorted(reference.clone()),
                "seed {seed}, {threads:?} threads"
            );
        }
    }
}

/// In the deterministic message order, a restored bench continues with
/// the very same outputs, in the same order (the sink's, not sorted), on
/// any thread count on either side of the snapshot.
#[test]
fn deterministic_benches_continue_identically_after_a_restore() {
    let order = MessageOrder::Deterministic;
    let (mid, end) = (SimTime::from_millis(10), SimTime::from_millis(120));
    for seed in 0..6u64 {
        let save_at = SimTime::from_millis(11 + mix(seed) % 90);
        let reference = uninterrupted_in(order, seed, 1, mid, end);
        assert!(
            reference.len() > 100,
            "seed {seed}: the bench does something"
        );
        assert_eq!(
            uninterrupted_in(order, seed, 4, mid, end),
            reference,
            "seed {seed}, 4 threads"
        );
        for threads in [(1, 1), (2, 2), (4, 1), (1, 4)] {
            let (samples, _) = interrupted_in(order, seed, threads, save_at, mid, end);
            assert_eq!(samples, reference, "seed {seed}, {threads:?} threads");
        }
    }
}

#[test]
fn a_restored_bench_saves_the_same_snapshot_again() {
    for threads in [1, 2, 4] {
        let bench = random_bench(5, 12, threads);
        let mut simu = bench.init.init(SimTime::ZERO).unwrap();
        schedule_bench_events(&simu, &bench.addresses, 5);
        simu.step_until(SimTime::from_millis(37)).unwrap();
        let mut first = Vec::new();
        simu.save(&mut first).unwrap();
        // Saving changes nothing: a second save is identical.
        let mut again = Vec::new();
        simu.save(&mut again).unwrap();
        assert!(first == again, "{threads} threads: a second save differs");

        let bench = random_bench(5, 12, 1);
        let mut restored = bench.init.restore(first.as_slice()).unwrap();
        let mut second = Vec::new();
        restored.save(&mut second).unwrap();
        assert!(
            first == second,
            "saved on {threads} threads, restored on 1: the restored bench saves other bytes"
        );
    }
}

// ---------------------------------------------------------------------
// Keys, periodic, cancelled and same-time events.
// ---------------------------------------------------------------------

/// Logs what it receives, with the time.
#[model(save)]
#[derive(Debug)]
pub struct Log {
    pub seen: Output<(u64, String)>,
    timeout: Option<EventKey>,
    periodic: Option<EventKey>,
}

#[model(save)]
impl Log {
    #[input]
    pub async fn note(&mut self, what: String, cx: &mut Context<Self>) {
        self.seen.send((cx.time().as_nanos(), what)).await;
    }

    #[input]
    pub fn arm(&mut self, (at_ms, period_ms): (u64, u64), cx: &mut Context<Self>) {
        self.timeout = Some(
            cx.schedule_keyed(
                Duration::from_millis(at_ms),
                Self::ports().note,
                "timeout".into(),
            )
            .unwrap(),
        );
        self.periodic = Some(
            cx.schedule_periodic(
                Duration::from_millis(period_ms),
                Duration::from_millis(period_ms),
                Self::ports().note,
                "beat".into(),
            )
            .unwrap(),
        );
        // Two same-time events of this origin, and one cancelled.
        cx.schedule(
            Duration::from_millis(at_ms),
            Self::ports().note,
            "own 1".into(),
        )
        .unwrap();
        cx.schedule(
            Duration::from_millis(at_ms),
            Self::ports().note,
            "own 2".into(),
        )
        .unwrap();
        let dropped = cx
            .schedule_keyed(
                Duration::from_millis(at_ms),
                Self::ports().note,
                "cancelled".into(),
            )
            .unwrap();
        dropped.cancel();
    }

    #[input]
    pub fn disarm(&mut self) {
        if let Some(key) = self.timeout.take() {
            key.cancel();
        }
    }

    #[input]
    pub fn stop(&mut self) {
        if let Some(key) = self.periodic.take() {
            key.cancel();
        }
    }
}

fn log_bench(threads: usize) -> (SimInit, EventQueue<(u64, String)>, Address<Log>) {
    let mut log = Log {
        seen: Output::new(),
        timeout: None,
        periodic: None,
    };
    let seen = EventQueue::new();
    log.seen.connect_sink(&seen);
    let mailbox = Mailbox::new();
    let address = mailbox.address();
    let init = SimInit::new()
        .with_threads(threads)
        .add_model(log, mailbox, "log");
    (init, seen, address)
}

/// Arms the log at time 0, adds bench events at the timeout's time, and
/// saves at 1 ms.
fn armed_snapshot(threads: usize) -> (Vec<u8>, Vec<(u64, String)>) {
    armed_snapshot_of(log_bench(threads))
}

/// [`armed_snapshot`] of a bench made by [`log_bench`], perhaps with more
/// models.
fn armed_snapshot_of(
    (init, seen, log): (SimInit, EventQueue<(u64, String)>, Address<Log>),
) -> (Vec<u8>, Vec<(u64, String)>) {
    let mut simu = init.init(SimTime::ZERO).unwrap();
    simu.process_event(Log::ports().arm, (10, 3), &log).unwrap();
    let at = SimTime::from_millis(10);
    let scheduler = simu.scheduler();
    scheduler
        .schedule(at, Log::ports().note, "bench 1".into(), &log)
        .unwrap();
    scheduler
        .schedule(at, Log::ports().note, "bench 2".into(), &log)
        .unwrap();
    simu.step_until(SimTime::from_millis(1)).unwrap();
    let mut snapshot = Vec::new();
    simu.save(&mut snapshot).unwrap();
    (snapshot, seen.take_all())
}

fn texts(seen: &[(u64, String)]) -> Vec<String> {
    seen.iter()
        .map(|(t, what)| format!("{}ms {what}", t / 1_000_000))
        .collect()
}

#[test]
fn keyed_periodic_and_same_time_events_keep_their_order_across_a_restore() {
    for (save_threads, restore_threads) in [(1, 1), (2, 2), (4, 4), (4, 1)] {
        let (snapshot, before) = armed_snapshot(save_threads);
        assert!(before.is_empty());
        let (init, seen, _) = log_bench(restore_threads);
        let mut simu = init.restore(snapshot.as_slice()).unwrap();
        simu.step_until(SimTime::from_millis(12)).unwrap();
        assert_eq!(
            texts(&seen.take_all()),
            [
                "3ms beat",
                "6ms beat",
                "9ms beat",
                // The bench's events first, then the model's in the order
                // it scheduled them; the cancelled one stays cancelled.
                "10ms bench 1",
                "10ms bench 2",
                "10ms timeout",
                "10ms own 1",
                "10ms own 2",
                "12ms beat",
            ],
            "{save_threads} → {restore_threads} threads"
        );
    }
}

#[test]
fn keys_held_in_a_models_state_still_cancel_their_restored_events() {
    for threads in [1, 2, 4] {
        let (snapshot, _) = armed_snapshot(threads);
        let (init, seen, log) = log_bench(threads);
        let mut simu = init.restore(snapshot.as_slice()).unwrap();
        // The keys the model saved cancel the restored timeout and beat.
        simu.process_event(Log::ports().disarm, (), &log).unwrap();
        simu.step_until(SimTime::from_millis(4)).unwrap();
        simu.process_event(Log::ports().stop, (), &log).unwrap();
        simu.step_until(SimTime::from_millis(30)).unwrap();
        assert_eq!(
            texts(&seen.take_all()),
            [
                "3ms beat",
                "10ms bench 1",
                "10ms bench 2",
                "10ms own 1",
                "10ms own 2"
            ],
            "{threads} threads"
        );
        assert_eq!(simu.next_event_time(), None);
    }
}

/// Re-arms a far-future timeout at every tick: the old one is cancelled.
#[model(save)]
#[derive(Debug)]
pub struct Rearm {
    timeout: Option<EventKey>,
}

#[model(save)]
impl Rearm {
    #[input]
    pub fn tick(&mut self, cx: &mut Context<Self>) {
        if let Some(key) = self.timeout.take() {
            key.cancel();
        }
        let far = Duration::from_secs(1_000_000);
        self.timeout = Some(cx.schedule_keyed(far, Self::ports().tick, ()).unwrap());
    }
}

/// A save leaves the cancelled timeouts in the event list: saving often
/// must not put their reclaiming off for good. The queue stays within
/// twice its live events (or the 1 024 below which it is never compacted).
#[test]
fn frequent_saves_do_not_keep_cancelled_events_queued() {
    for threads in [1, 2, 4] {
        let mailbox = Mailbox::new();
        let address = mailbox.address();
        let init = SimInit::new().with_threads(threads).add_model(
            Rearm { timeout: None },
            mailbox,
            "rearm",
        );
        let mut simu = init.init(SimTime::ZERO).unwrap();
        let tick = Duration::from_secs(1);
        simu.scheduler()
            .schedule_periodic(tick, tick, Rearm::ports().tick, (), &address)
            .unwrap();
        let mut most = 0;
        for step in 0..20_000 {
            simu.step().unwrap();
            if step % 3 == 0 {
                simu.save(&mut Vec::new()).unwrap();
            }
            most = most.max(simu.queued_events());
        }
        assert!(most <= 2 * 1024, "{threads} threads: {most} events queued");
    }
}

#[test]
fn events_scheduled_after_a_restore_are_ordered_as_they_would_have_been() {
    // The bench's sequence counter is restored: its new events at a time
    // of already pending bench events come after them.
    let (snapshot, _) = armed_snapshot(1);
    let (init, seen, log) = log_bench(1);
    let mut simu = init.restore(snapshot.as_slice()).unwrap();
    let at = SimTime::from_millis(10);
    simu.scheduler()
        .schedule(at, Log::ports().note, "bench 3".into(), &log)
        .unwrap();
    simu.step_until(at).unwrap();
    let seen = texts(&seen.take_all());
    assert_eq!(
        &seen[3..6],
        ["10ms bench 1", "10ms bench 2", "10ms bench 3"]
    );
}

// ---------------------------------------------------------------------
// What cannot be saved.
// ---------------------------------------------------------------------

#[model]
#[derive(Debug)]
pub struct Plain {
    n: u32,
}

#[model]
impl Plain {
    #[input]
    pub fn poke(&mut self) {
        self.n += 1;
    }
}

#[test]
fn a_bench_with_a_model_that_cannot_be_saved_is_refused_naming_it() {
    let (init, _, _) = log_bench(1);
    let init = init.add_model(Plain { n: 0 }, Mailbox::new(), "plain");
    let mut simu = init.init(SimTime::ZERO).unwrap();
    let mut out = Vec::new();
    let error = simu.save(&mut out).unwrap_err();
    assert_eq!(
        error,
        SaveError::NotSaveable {
            model: "plain".into(),
            model_type: "Plain"
        }
    );
    assert!(error.to_string().contains("#[model(save)]"), "{error}");
    assert!(out.is_empty(), "nothing written");
    // The simulation goes on.
    simu.step().unwrap();
}

/// Takes a payload that cannot be serialised.
#[model(save)]
#[derive(Debug)]
pub struct Holder {
    count: u32,
}

#[derive(Debug)]
pub struct Opaque(#[allow(dead_code)] std::sync::Arc<u8>);

#[model(save)]
impl Holder {
    #[input]
    pub fn take(&mut self, _: Opaque) {
        self.count += 1;
    }
}

#[test]
fn a_pending_event_that_cannot_be_saved_is_refused_naming_it() {
    let mailbox = Mailbox::new();
    let holder = mailbox.address();
    let mut simu = SimInit::new()
        .add_model(Holder { count: 0 }, mailbox, "holder")
        .init(SimTime::ZERO)
        .unwrap();
    // Without the event, the bench saves.
    simu.save(&mut Vec::new()).unwrap();
    let opaque = Opaque(std::sync::Arc::new(1));
    simu.scheduler()
        .schedule(SimTime::from_secs(1), Holder::ports().take, opaque, &holder)
        .unwrap();
    let error = simu.save(&mut Vec::new()).unwrap_err();
    let SaveError::Event { event, reason } = &error else {
        panic!("{error:?}")
    };
    assert!(
        event.contains("`take`") && event.contains("holder"),
        "{event}"
    );
    assert!(
        reason.contains("Opaque") && reason.contains("Serialize"),
        "{reason}"
    );
}

#[test]
fn an_event_sources_pending_event_is_refused_with_the_way_out() {
    let (init, _, log) = log_bench(1);
    let mut source = EventSource::new();
    source.connect(Log::ports().note, &log);
    let mut simu = init.init(SimTime::ZERO).unwrap();
    simu.scheduler()
        .schedule_event(SimTime::from_secs(1), source.event("x".to_string()))
        .unwrap();
    let error = simu.save(&mut Vec::new()).unwrap_err();
    assert!(
        matches!(&error, SaveError::Event { reason, .. } if reason.contains("Scheduler::schedule")),
        "{error}"
    );
}

// ---------------------------------------------------------------------
// Restore errors.
// ---------------------------------------------------------------------

/// A second model type with the same fields as `Log`.
#[model(save)]
#[derive(Debug)]
pub struct OtherLog {
    pub seen: Output<(u64, String)>,
    timeout: Option<EventKey>,
    periodic: Option<EventKey>,
}

#[model(save)]
impl OtherLog {
    #[input]
    pub fn other(&mut self) {}
}

fn saved_log() -> Vec<u8> {
    armed_snapshot(1).0
}

fn restore_into(init: SimInit, snapshot: &[u8]) -> RestoreError {
    init.restore(snapshot).map(drop).unwrap_err()
}

#[test]
fn a_model_missing_from_the_snapshot_or_extra_in_it_is_named() {
    let snapshot = saved_log();
    let (init, _, _) = log_bench(1);
    let init = init.add_model(Holder { count: 0 }, Mailbox::new(), "extra");
    assert_eq!(
        restore_into(init, &snapshot),
        RestoreError::MissingModel {
            model: "extra".into(),
            model_type: "Holder"
        }
    );
    let empty = SimInit::new();
    assert_eq!(
        restore_into(empty, &snapshot),
        RestoreError::UnknownModel {
            model: "log".into(),
            model_type: "Log".into()
        }
    );
}

#[test]
fn a_saved_path_that_is_not_utf8_names_no_model_of_the_bench() {
    let mut snapshot = saved_log();
    // The body's one model path, `log`, with its `o` made a byte that is
    // not UTF-8.
    let at = find(&snapshot, b"\x03log").expect("the path's length and bytes");
    snapshot[at + 2] = 0xff;
    fix_checksum(&mut snapshot);
    let (init, _, _) = log_bench(1);
    assert_eq!(
        restore_into(init, &snapshot),
        RestoreError::MissingModel {
            model: "log".into(),
            model_type: "Log"
        }
    );
    // Read by a bench without models: the saved model is named as it can
    // be shown.
    assert_eq!(
        restore_into(SimInit::new(), &snapshot),
        RestoreError::UnknownModel {
            model: "l\u{fffd}g".into(),
            model_type: "Log".into()
        }
    );
}

/// A bench of one `Holder` at `sat/{level}/battery`, or of one `OtherLog`
/// there.
fn battery_bench(level: &'static str, holder: bool) -> SimInit {
    let init = SimInit::new();
    if holder {
        let battery = Wrap::new(Holder { count: 0 }, "battery");
        init.add_composite(Nest::new(battery, level), "sat")
    } else {
        let other = OtherLog {
            seen: Output::new(),
            timeout: None,
            periodic: None,
        };
        init.add_composite(Nest::new(Wrap::new(other, "battery"), level), "sat")
    }
}

#[test]
fn restore_errors_name_models_inside_composites_by_path() {
    let mut simu = battery_bench("power", true).init(SimTime::ZERO).unwrap();
    let mut snapshot = Vec::new();
    simu.save(&mut snapshot).unwrap();

    // A composite renamed: the saved model is not in the bench.
    let error = restore_into(battery_bench("pwr", true), &snapshot);
    assert!(
        matches!(&error, RestoreError::UnknownModel { model, .. } if model == "sat/power/battery")
            || matches!(&error, RestoreError::MissingModel { model, .. } if model == "sat/pwr/battery"),
        "{error:?}"
    );
    // Another type at the same path.
    let error = restore_into(battery_bench("power", false), &snapshot);
    assert!(
        matches!(&error, RestoreError::TypeMismatch { model, .. } if model == "sat/power/battery"),
        "{error:?}"
    );
    assert!(error.to_string().contains("`sat/power/battery`"), "{error}");
    // The same bench restores.
    assert!(battery_bench("power", true)
        .restore(snapshot.as_slice())
        .is_ok());
}

/// `Log` as a later version of the code might have it (its ports are
/// never used here).
#[allow(dead_code)]
mod later {
    use super::*;

    /// Its state's meaning changed: version 2.
    pub mod v2 {
        use super::*;

        #[model(save(version = 2))]
        #[derive(Debug)]
        pub struct Log {
            pub seen: Output<(u64, String)>,
            timeout: Option<EventKey>,
            periodic: Option<EventKey>,
        }

        #[model(save)]
        impl Log {
            #[input]
            pub fn note(&mut self, _: String) {}
        }

        pub fn new() -> Log {
            Log {
                seen: Output::new(),
                timeout: None,
                periodic: None,
            }
        }
    }

    /// A field renamed, the version forgotten.
    pub mod renamed {
        use super::*;

        #[model(save)]
        #[derive(Debug)]
        pub struct Log {
            pub seen: Output<(u64, String)>,
            deadline: Option<EventKey>,
            periodic: Option<EventKey>,
        }

        #[model(save)]
        impl Log {
            #[input]
            pub fn note(&mut self, _: String) {}
        }

        pub fn new() -> Log {
            Log {
                seen: Output::new(),
                deadline: None,
                periodic: None,
            }
        }
    }

    /// A field's type changed, its name and the version kept.
    pub mod retyped {
        use super::*;

        #[model(save)]
        #[derive(Debug)]
        pub struct Log {
            pub seen: Output<(u64, String)>,
            timeout: Option<EventKey>,
            periodic: Option<(String, String)>,
        }

        #[model(save)]
        impl Log {
            #[input]
            pub fn note(&mut self, _: String) {}
        }

        pub fn new() -> Log {
            Log {
                seen: Output::new(),
                timeout: None,
                periodic: None,
            }
        }
    }
}

/// A bench of one `log` wired like `log_bench`'s.
fn later_bench<M: Model>(
    mut model: M,
    seen: impl FnOnce(&mut M, &EventQueue<(u64, String)>),
) -> SimInit {
    let queue = EventQueue::new();
    seen(&mut model, &queue);
    SimInit::new().add_model(model, Mailbox::new(), "log")
}

#[test]
fn a_models_state_saved_in_another_version_or_shape_is_named() {
    let snapshot = saved_log();
    let init = later_bench(later::v2::new(), |m, q| m.seen.connect_sink(q));
    assert_eq!(
        restore_into(init, &snapshot),
        RestoreError::VersionMismatch {
            model: "log".into(),
            model_type: "Log",
            saved: 1,
            bench: 2
        }
    );
    let init = later_bench(later::renamed::new(), |m, q| m.seen.connect_sink(q));
    assert_eq!(
        restore_into(init, &snapshot),
        RestoreError::FieldMismatch {
            model: "log".into(),
            model_type: "Log",
            saved: vec!["timeout".into(), "periodic".into()],
            bench: vec!["deadline", "periodic"]
        }
    );
    let init = later_bench(later::retyped::new(), |m, q| m.seen.connect_sink(q));
    let error = restore_into(init, &snapshot);
    let RestoreError::State {
        model,
        error: state,
    } = &error
    else {
        panic!("{error:?}")
    };
    assert_eq!(model, "log");
    assert_eq!(state.field, Some("periodic"), "{error}");
}

#[test]
fn a_model_of_another_type_version_or_fields_is_named() {
    let snapshot = saved_log();
    let other = OtherLog {
        seen: Output::new(),
        timeout: None,
        periodic: None,
    };
    let init = SimInit::new().add_model(other, Mailbox::new(), "log");
    assert_eq!(
        restore_into(init, &snapshot),
        RestoreError::TypeMismatch {
            model: "log".into(),
            saved: "Log".into(),
            bench: "OtherLog"
        }
    );

    // A model that cannot be saved is named by the bench's record of it.
    let plain = Plain { n: 0 };
    let error = restore_into(
        SimInit::new().add_model(plain, Mailbox::new(), "log"),
        &snapshot,
    );
    assert_eq!(
        error,
        RestoreError::TypeMismatch {
            model: "log".into(),
            saved: "Log".into(),
            bench: "Plain"
        }
    );
    let (init, _, _) = log_bench(1);
    let init = init.add_model(Plain { n: 0 }, Mailbox::new(), "plain");
    assert_eq!(
        restore_into(init, &snapshot),
        RestoreError::MissingModel {
            model: "plain".into(),
            model_type: "Plain"
        }
    );
    // Of the saved type, but not saveable.
    let impostor = unsaveable::Log { n: 0 };
    assert_eq!(
        restore_into(
            SimInit::new().add_model(impostor, Mailbox::new(), "log"),
            &snapshot
        ),
        RestoreError::NotSaveable {
            model: "log".into(),
            model_type: "Log"
        }
    );
}

// Its generated ports are unused.
#[allow(dead_code)]
mod unsaveable {
    use causim::prelude::*;

    /// A model named like the saved one, not marked `save`.
    #[model]
    pub struct Log {
        pub n: u64,
    }

    #[model]
    impl Log {
        #[input]
        pub fn poke(&mut self) {
            self.n += 1;
        }
    }
}

#[test]
fn models_added_in_another_order_are_refused() {
    let build = |swap: bool| {
        let a = Holder { count: 1 };
        let b = Holder { count: 2 };
        let init = SimInit::new();
        if swap {
            init.add_model(b, Mailbox::new(), "b")
                .add_model(a, Mailbox::new(), "a")
        } else {
            init.add_model(a, Mailbox::new(), "a")
                .add_model(b, Mailbox::new(), "b")
        }
    };
    let mut simu = build(false).init(SimTime::ZERO).unwrap();
    let mut snapshot = Vec::new();
    simu.save(&mut snapshot).unwrap();
    assert_eq!(
        restore_into(build(true), &snapshot),
        RestoreError::ModelOrder {
            model: "b".into(),
            saved: 1,
            bench: 0
        }
    );
    build(false).restore(snapshot.as_slice()).unwrap();
}

#[test]
fn a_bench_wired_differently_is_refused_naming_the_model() {
    let snapshot = saved_log();
    // The same model without its output's connection.
    let log = Log {
        seen: Output::new(),
        timeout: None,
        periodic: None,
    };
    let init = SimInit::new().add_model(log, Mailbox::new(), "log");
    assert_eq!(
        restore_into(init, &snapshot),
        RestoreError::ConnectionMismatch {
            model: "log".into()
        }
    );
}

/// [`saved_log`] with its first pending event's input, `note`, rewritten
/// as `nope` (same length), checksum fixed. (`LogV2` under the old type
/// name would read `Log`'s fields; the snapshot is edited instead.)
fn saved_log_with_a_lost_input() -> Vec<u8> {
    with_a_lost_input(saved_log())
}

/// A saved log bench's `snapshot` whose pending events are for an input
/// `nope`, which the log does not have.
fn with_a_lost_input(mut snapshot: Vec<u8>) -> Vec<u8> {
    let at = find(&snapshot, b"note").expect("the event names its input");
    snapshot[at..at + 4].copy_from_slice(b"nope");
    fix_checksum(&mut snapshot);
    snapshot
}

#[test]
fn a_pending_event_for_an_input_that_no_longer_exists_is_named() {
    let snapshot = saved_log_with_a_lost_input();
    let (init, _, _) = log_bench(1);
    assert_eq!(
        restore_into(init, &snapshot),
        RestoreError::Event {
            model: "log".into(),
            port: "nope".into(),
            error: PayloadError::UnknownPort
        }
    );
}

/// `init` with `n` idle models added after its own.
fn with_holders(mut init: SimInit, n: usize) -> SimInit {
    for i in 0..n {
        init = init.add_model(Holder { count: 0 }, Mailbox::new(), format!("holder{i}"));
    }
    init
}

/// A restore that shares its work with a helper thread meets the errors
/// a restore on one thread does, in the same order: the wiring, then the
/// events (first listed, then decoded), then the states; for the log
/// alone on two threads, and with 59 idle models beside it on one.
#[test]
fn a_parallel_restore_reports_what_a_serial_one_does() {
    for (threads, holders) in [(2, 0), (1, 59)] {
        let holding = |init: SimInit| with_holders(init.with_threads(threads), holders);
        let log = || {
            let (init, seen, log) = log_bench(threads);
            (holding(init), seen, log)
        };
        let intact = armed_snapshot_of(log()).0;
        let lost_input = with_a_lost_input(intact.clone());
        // The periodic event's key number (the byte before its payload's
        // two length prefixes, of the bytes and of the string `beat`) made
        // 127: out of the keys' order, found when the events are first
        // listed.
        let mut bad_key = intact.clone();
        let at = find(&bad_key, b"beat").expect("the periodic event's payload") - 3;
        assert_eq!(bad_key[at], 1, "the first key number");
        bad_key[at] = 127;
        fix_checksum(&mut bad_key);
        let unwired = || {
            let log = Log {
                seen: Output::new(),
                timeout: None,
                periodic: None,
            };
            holding(SimInit::new().add_model(log, Mailbox::new(), "log"))
        };
        let retyped = || {
            holding(later_bench(later::retyped::new(), |m, q| {
                m.seen.connect_sink(q)
            }))
        };
        let wired = || log().0;
        type Build<'a> = &'a dyn Fn() -> SimInit;
        let cases: [(&str, Build, &[u8]); 6] = [
            ("wiring and listing", &unwired, &bad_key),
            ("listing", &wired, &bad_key),
            ("wiring and event", &unwired, &lost_input),
            ("event", &wired, &lost_input),
            ("event and state", &retyped, &lost_input),
            ("state", &retyped, &intact),
        ];
        for (case, build, snapshot) in cases {
            let serial = restore_into(build().with_parallel_restore(false), snapshot);
            let parallel = restore_into(build().with_parallel_restore(true), snapshot);
            let case = format!("{case}, {holders} idle models, {threads} threads");
            assert_eq!(parallel, serial, "{case}");
            let expected = match case.split(',').next() {
                Some("wiring and listing" | "wiring and event") => {
                    matches!(serial, RestoreError::ConnectionMismatch { .. })
                }
                Some("listing") => {
                    matches!(&serial, RestoreError::Malformed(why) if why.contains("key number 127"))
                }
                Some("state") => matches!(serial, RestoreError::State { .. }),
                _ => matches!(serial, RestoreError::Event { .. }),
            };
            assert!(expected, "{case}: {serial}");
        }
    }
}

#[test]
fn a_snapshot_of_another_format_or_damaged_bytes_is_refused() {
    let snapshot = saved_log();
    let restore = |bytes: &[u8]| restore_into(log_bench(1).0, bytes);

    assert_eq!(restore(b"not a snapshot"), RestoreError::NotASnapshot);
    assert_eq!(restore(&[]), RestoreError::NotASnapshot);

    let mut newer = snapshot.clone();
    newer[16..20].copy_from_slice(&7u32.to_le_bytes());
    assert_eq!(
        restore(&newer),
        RestoreError::NewerFormat {
            found: 7,
            supported: 1
        }
    );

    for cut in [17, 24, 30, snapshot.len() / 2, snapshot.len() - 1] {
        assert_eq!(
            restore(&snapshot[..cut]),
            RestoreError::Truncated,
            "cut at {cut}"
        );
    }

    let mut flipped = snapshot.clone();
    let middle = snapshot.len() / 2;
    flipped[middle] ^= 0x40;
    assert_eq!(restore(&flipped), RestoreError::Corrupted);

    let mut longer = snapshot.clone();
    longer.push(0);
    assert!(matches!(restore(&longer), RestoreError::Malformed(_)));

    // And the untouched snapshot restores, from a reader and from bytes.
    log_bench(1).0.restore(snapshot.as_slice()).unwrap();
    log_bench(1).0.restore_bytes(&snapshot).unwrap();
    // From bytes, the same errors.
    let restore_bytes = |bytes: &[u8]| log_bench(1).0.restore_bytes(bytes).map(drop).unwrap_err();
    for bytes in [
        &b"not a snapshot"[..],
        &newer,
        &snapshot[..30],
        &flipped,
        &longer,
    ] {
        assert_eq!(restore_bytes(bytes), restore(bytes));
    }
}

#[test]
fn a_body_cut_short_or_too_long_with_its_length_and_checksum_fixed_is_malformed() {
    let snapshot = saved_log();
    let body = snapshot.len() - 28 - 4;
    // Every cut of the body: the decoder itself finds each one.
    for cut in 0..body {
        let mut bytes = snapshot[..28 + cut].to_vec();
        bytes[20..28].copy_from_slice(&(cut as u64).to_le_bytes());
        bytes.extend([0; 4]);
        fix_checksum(&mut bytes);
        let error = log_bench(1).0.restore_bytes(&bytes).map(drop).unwrap_err();
        assert!(
            matches!(error, RestoreError::Malformed(_)),
            "cut at {cut}: {error:?}"
        );
    }
    // A byte after the last event, inside the body.
    let mut longer = snapshot[..snapshot.len() - 4].to_vec();
    longer.push(0);
    longer[20..28].copy_from_slice(&(body as u64 + 1).to_le_bytes());
    longer.extend([0; 4]);
    fix_checksum(&mut longer);
    for restored in [
        log_bench(1).0.restore_bytes(&longer),
        log_bench(1).0.restore(longer.as_slice()),
    ] {
        let error = restored.map(drop).unwrap_err();
        let expected = RestoreError::Malformed("1 bytes left after the body".to_string());
        assert_eq!(error, expected);
    }
}

#[test]
fn random_and_damaged_bytes_give_errors_never_panics() {
    let snapshot = saved_log();
    let mut r = 1u64;
    let mut next = || {
        r = mix(r);
        r
    };
    for round in 0..400 {
        let bytes: Vec<u8> = match round % 4 {
            // Random bytes, some with the right magic and format.
            0 => (0..next() % 200).map(|_| next() as u8).collect(),
            1 => {
                let mut b = snapshot[..20].to_vec();
                b.extend((0..next() % 300).map(|_| next() as u8));
                b
            }
            // Flipped bytes, with the checksum fixed so that decoding runs.
            2 => {
                let mut b = snapshot.clone();
                for _ in 0..1 + next() % 4 {
                    let at = 28 + (next() as usize % (b.len() - 32));
                    b[at] ^= 1 << (next() % 8);
                }
                fix_checksum(&mut b);
                b
            }
            // Truncated.
            _ => snapshot[..next() as usize % snapshot.len()].to_vec(),
        };
        let (init, _, _) = log_bench(1);
        // Decoding may succeed on a flip that lands in a payload; any
        // outcome but a panic is fine.
        let outcome = if (round / 4) % 2 == 0 {
            init.restore(bytes.as_slice())
        } else {
            init.restore_bytes(&bytes)
        };
        // The same outcome with the events read on a helper thread.
        if round % 4 == 2 {
            let (init, _, _) = log_bench(1);
            let parallel = init.with_parallel_restore(true).restore_bytes(&bytes);
            assert_eq!(parallel.map(drop), outcome.map(drop), "round {round}");
        }
    }
}

/// Rewrites the checksum of an edited snapshot.
fn fix_checksum(bytes: &mut [u8]) {
    let end = bytes.len() - 4;
    let checksum = crc32(&bytes[28..end]);
    bytes[end..].copy_from_slice(&checksum.to_le_bytes());
}

/// CRC-32 (IEEE), bit by bit: the snapshot's checksum, computed here
/// independently of the crate.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[test]
fn a_failed_simulation_is_not_saved() {
    #[model(save)]
    pub struct Fragile {
        n: u32,
    }
    #[model(save)]
    impl Fragile {
        #[input]
        pub fn boom(&mut self) {
            panic!("boom");
        }
    }
    let mailbox = Mailbox::new();
    let fragile = mailbox.address();
    let mut simu = SimInit::new()
        .add_model(Fragile { n: 0 }, mailbox, "fragile")
        .init(SimTime::ZERO)
        .unwrap();
    simu.process_event(Fragile::ports().boom, (), &fragile)
        .unwrap_err();
    let error = simu.save(&mut Vec::new()).unwrap_err();
    assert!(matches!(error, SaveError::Simulation(_)), "{error}");
}

/// A value that notes, when it is read back, what it is (its text) and the
/// name of the thread reading it.
#[derive(Clone, Debug)]
pub struct ReadWhere(String);

/// What [`ReadWhere`] values were read back, and on which threads.
static READ_ON: std::sync::Mutex<Vec<(String, String)>> = std::sync::Mutex::new(Vec::new());

impl serde::Serialize for ReadWhere {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> serde::Deserialize<'de> for ReadWhere {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let what = String::deserialize(deserializer)?;
        let thread = std::thread::current();
        let thread = thread.name().unwrap_or_default().to_string();
        READ_ON.lock().unwrap().push((what.clone(), thread));
        Ok(ReadWhere(what))
    }
}

#[model(save)]
#[derive(Debug)]
pub struct Witness {
    notes: u32,
    /// Notes where the state is read back.
    mark: ReadWhere,
}

#[model(save)]
impl Witness {
    #[input]
    pub fn note(&mut self, _: ReadWhere) {
        self.notes += 1;
    }

    #[replier]
    pub fn notes(&mut self, (): ()) -> u32 {
        self.notes
    }
}

/// With its helper thread, a restore reads the models' states and the
/// pending events on whichever of its two threads is free (see the next
/// tests for many of them); without it, everything on the calling thread.
/// Either way the event comes back.
#[test]
fn a_parallel_restore_reads_states_and_events_on_its_two_threads() {
    let bench = |models: usize| {
        let mut init = SimInit::new().with_threads(1);
        let mut addresses = Vec::new();
        for i in 0..models {
            let mailbox = Mailbox::new();
            addresses.push(mailbox.address());
            let witness = Witness {
                notes: 0,
                mark: ReadWhere("state".into()),
            };
            init = init.add_model(witness, mailbox, format!("witness{i}"));
        }
        (init, addresses)
    };
    let caller = std::thread::current();
    let caller = caller.name().unwrap_or_default();
    const MODELS: usize = 20;
    let (init, witnesses) = bench(MODELS);
    let mut simu = init.init(SimTime::ZERO).unwrap();
    let at = Duration::from_secs(1);
    let event = ReadWhere("event".into());
    simu.scheduler()
        .schedule(at, Witness::ports().note, event, &witnesses[0])
        .unwrap();
    let mut snapshot = Vec::new();
    simu.save(&mut snapshot).unwrap();
    for parallel in [false, true] {
        READ_ON.lock().unwrap().clear();
        let (init, witnesses) = bench(MODELS);
        let init = init.with_parallel_restore(parallel);
        let mut restored = init.restore_bytes(&snapshot).unwrap();
        let read = std::mem::take(&mut *READ_ON.lock().unwrap());
        let count = |what: &str| read.iter().filter(|(w, _)| w == what).count();
        assert_eq!(
            (count("state"), count("event")),
            (MODELS, 1),
            "parallel {parallel}"
        );
        let threads: &[&str] = if parallel {
            &[caller, "causim-restore"]
        } else {
            &[caller]
        };
        for (what, thread) in &read {
            assert!(
                threads.contains(&thread.as_str()),
                "parallel {parallel}: {what} on {thread}"
            );
        }
        restored.step().unwrap();
        let notes = restored.process_query(Witness::ports().notes, (), &witnesses[0]);
        assert_eq!(notes.unwrap(), 1, "parallel {parallel}: the event fired");
    }
}

#[model(save)]
#[derive(Debug)]
pub struct Sequence {
    seen: Vec<u64>,
}

#[model(save)]
impl Sequence {
    #[input]
    pub fn push(&mut self, n: u64) {
        self.seen.push(n);
    }

    #[replier]
    pub fn seen(&mut self, (): ()) -> Vec<u64> {
        self.seen.clone()
    }
}

/// Events enough for several of the chunks a restore shares between its
/// threads: every one fires, in the order of the run that was not
/// interrupted, on 1, 2 and 4 threads; and of two events that fail, in two
/// chunks, the first one's error is reported, with the helper or without.
#[test]
fn a_restore_shares_many_events_between_its_threads_and_keeps_their_order() {
    const EVENTS: u64 = 5000;
    for threads in [1, 2, 4] {
        let bench = || {
            let mailbox = Mailbox::new();
            let address = mailbox.address();
            let sequence = Sequence { seen: Vec::new() };
            let init = SimInit::new().with_threads(threads);
            (init.add_model(sequence, mailbox, "sequence"), address)
        };
        let (init, sequence) = bench();
        let mut simu = init.init(SimTime::ZERO).unwrap();
        for n in 0..EVENTS {
            let at = Duration::from_millis(1 + n % 97);
            simu.scheduler()
                .schedule(at, Sequence::ports().push, n, &sequence)
                .unwrap();
        }
        let mut snapshot = Vec::new();
        simu.save(&mut snapshot).unwrap();
        simu.step_until(SimTime::from_millis(100)).unwrap();
        let expected = simu.process_query(Sequence::ports().seen, (), &sequence);
        let expected = expected.unwrap();
        assert_eq!(expected.len(), EVENTS as usize);
        // Two events, far apart, for inputs the model does not have.
        let mut damaged = snapshot.clone();
        let names: Vec<usize> = (0..damaged.len() - 4)
            .filter(|&at| &damaged[at..at + 4] == b"push")
            .collect();
        damaged[names[3000]..names[3000] + 4].copy_from_slice(b"nop2");
        damaged[names[1500]..names[1500] + 4].copy_from_slice(b"nop1");
        fix_checksum(&mut damaged);
        for parallel in [false, true] {
            let case = format!("{threads} threads, parallel {parallel}");
            let (init, sequence) = bench();
            let init = init.with_parallel_restore(parallel);
            let mut restored = init.restore_bytes(&snapshot).unwrap();
            restored.step_until(SimTime::from_millis(100)).unwrap();
            let seen = restored.process_query(Sequence::ports().seen, (), &sequence);
            assert_eq!(seen.unwrap(), expected, "{case}");
            let init = bench().0.with_parallel_restore(parallel);
            let error = init.restore_bytes(&damaged).map(drop).unwrap_err();
            assert!(
                matches!(&error, RestoreError::Event { port, .. } if port == "nop1"),
                "{case}: {error}"
            );
        }
    }
}

/// A number that refuses to be read back while it is listed in
/// [`REFUSED`].
#[derive(Clone, Debug)]
pub struct Picky(u32);

/// The numbers [`Picky`] refuses.
static REFUSED: std::sync::Mutex<Vec<u32>> = std::sync::Mutex::new(Vec::new());

impl serde::Serialize for Picky {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> serde::Deserialize<'de> for Picky {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let number = u32::deserialize(deserializer)?;
        if REFUSED.lock().unwrap().contains(&number) {
            return Err(serde::de::Error::custom(format!("{number} refused")));
        }
        Ok(Picky(number))
    }
}

#[model(save)]
#[derive(Debug)]
pub struct Numbered {
    number: Picky,
}

#[model(save)]
impl Numbered {
    #[replier]
    pub fn number(&mut self, (): ()) -> u32 {
        self.number.0
    }
}

/// Models enough for several of the chunks a restore shares between its
/// threads: every state comes back, on 1, 2 and 4 threads; and of two
/// states that fail, in two chunks, the first one's error is reported,
/// with the helper or without.
#[test]
fn a_restore_shares_many_states_between_its_threads_and_reports_the_first_failure() {
    const MODELS: u32 = 3000;
    let bench = |threads: usize| {
        let mut init = SimInit::new().with_threads(threads);
        let mut addresses = Vec::new();
        for n in 0..MODELS {
            let mailbox = Mailbox::new();
            addresses.push(mailbox.address());
            let model = Numbered { number: Picky(n) };
            init = init.add_model(model, mailbox, format!("numbered{n}"));
        }
        (init, addresses)
    };
    for threads in [1, 2, 4] {
        let mut snapshot = Vec::new();
        let mut simu = bench(threads).0.init(SimTime::ZERO).unwrap();
        simu.save(&mut snapshot).unwrap();
        for parallel in [false, true] {
            let case = format!("{threads} threads, parallel {parallel}");
            let (init, numbered) = bench(threads);
            let init = init.with_parallel_restore(parallel);
            let mut restored = init.restore_bytes(&snapshot).unwrap();
            for (n, address) in (0..MODELS).zip(&numbered) {
                let number = restored.process_query(Numbered::ports().number, (), address);
                assert_eq!(number.unwrap(), n, "{case}");
            }
            *REFUSED.lock().unwrap() = vec![2500, 1200];
            let init = bench(threads).0.with_parallel_restore(parallel);
            let error = init.restore_bytes(&snapshot).map(drop).unwrap_err();
            REFUSED.lock().unwrap().clear();
            assert!(
                matches!(&error, RestoreError::State { model, .. } if model == "numbered1200"),
                "{case}: {error}"
            );
        }
    }
}

/// A payload whose reading back panics when it is listed in
/// [`PANICKING`], and fails when listed in [`TOUCHY_REFUSED`].
#[derive(Clone, Debug)]
pub struct Touchy(u32);

/// The numbers [`Touchy`] panics on.
static PANICKING: std::sync::Mutex<Vec<u32>> = std::sync::Mutex::new(Vec::new());

/// The numbers [`Touchy`] refuses (a list of its own: the tests run at
/// once).
static TOUCHY_REFUSED: std::sync::Mutex<Vec<u32>> = std::sync::Mutex::new(Vec::new());

impl serde::Serialize for Touchy {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> serde::Deserialize<'de> for Touchy {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let number = u32::deserialize(deserializer)?;
        if PANICKING.lock().unwrap().contains(&number) {
            panic!("touched {number}");
        }
        if TOUCHY_REFUSED.lock().unwrap().contains(&number) {
            return Err(serde::de::Error::custom(format!("{number} refused")));
        }
        Ok(Touchy(number))
    }
}

#[model(save)]
#[derive(Debug)]
pub struct Toucher {
    touched: u32,
}

#[model(save)]
impl Toucher {
    #[input]
    pub fn touch(&mut self, _: Touchy) {
        self.touched += 1;
    }
}

/// A payload that panics when read back, after one that fails, in the
/// next chunk: the error is reported, as on one thread, however the
/// chunks fell between the two threads; alone, the panic goes on to the
/// caller, with the helper or without.
#[test]
fn a_panic_reading_an_event_after_a_failed_one_gives_the_failure() {
    const EVENTS: u32 = 3000;
    let bench = || {
        let mailbox = Mailbox::new();
        let address = mailbox.address();
        let init = SimInit::new().with_threads(2);
        (
            init.add_model(Toucher { touched: 0 }, mailbox, "toucher"),
            address,
        )
    };
    let (init, toucher) = bench();
    let mut simu = init.init(SimTime::ZERO).unwrap();
    for n in 0..EVENTS {
        let at = Duration::from_millis(1 + u64::from(n));
        simu.scheduler()
            .schedule(at, Toucher::ports().touch, Touchy(10_000 + n), &toucher)
            .unwrap();
    }
    let mut snapshot = Vec::new();
    simu.save(&mut snapshot).unwrap();
    // In time order: event 1023 fails, 1024 (the next chunk) panics.
    *TOUCHY_REFUSED.lock().unwrap() = vec![11_023];
    *PANICKING.lock().unwrap() = vec![11_024];
    for round in 0..20 {
        for parallel in [false, true] {
            let init = bench().0.with_parallel_restore(parallel);
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                init.restore_bytes(&snapshot).map(drop)
            }));
            let case = format!("round {round}, parallel {parallel}");
            let error = outcome.unwrap_or_else(|_| panic!("{case}: a panic, not the error"));
            assert!(
                matches!(&error, Err(RestoreError::Event { .. })),
                "{case}: {error:?}"
            );
        }
    }
    TOUCHY_REFUSED.lock().unwrap().clear();
    for parallel in [false, true] {
        let init = bench().0.with_parallel_restore(parallel);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            init.restore_bytes(&snapshot).map(drop)
        }));
        let payload = outcome.expect_err("the panic goes on");
        let message = payload.downcast_ref::<String>().map(String::as_str);
        assert_eq!(message, Some("touched 11024"), "parallel {parallel}");
    }
    PANICKING.lock().unwrap().clear();
}

/// A value whose serialisation panics.
#[derive(Debug, Default)]
pub struct Explosive;

impl serde::Serialize for Explosive {
    fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        panic!("cannot serialise this")
    }
}

impl<'de> serde::Deserialize<'de> for Explosive {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        <()>::deserialize(deserializer).map(|()| Explosive)
    }
}

#[model(save)]
#[derive(Debug)]
pub struct Bomb {
    count: u32,
    charge: Explosive,
}

#[model(save)]
impl Bomb {
    #[input]
    pub fn poke(&mut self, _: Explosive) {
        self.count += 1;
    }
}

#[test]
fn a_panicking_serialisation_fails_the_save_not_the_simulation() {
    for threads in [1, 4] {
        let mailbox = Mailbox::new();
        let bomb = mailbox.address();
        let mut simu = SimInit::new()
            .with_threads(threads)
            .add_model(
                Bomb {
                    count: 0,
                    charge: Explosive,
                },
                mailbox,
                "bomb",
            )
            .init(SimTime::ZERO)
            .unwrap();
        let error = simu.save(&mut Vec::new()).unwrap_err();
        assert!(
            matches!(&error, SaveError::State { model, error } if model == "bomb" && error.message.contains("cannot serialise this")),
            "{error}"
        );
        // A pending event whose payload panics: the same.
        simu.scheduler()
            .schedule(SimTime::from_secs(1), Bomb::ports().poke, Explosive, &bomb)
            .unwrap();
        let error = simu.save(&mut Vec::new()).unwrap_err();
        assert!(
            matches!(&error, SaveError::Event { reason, .. } if reason.contains("cannot serialise this")),
            "{error}"
        );
        // The simulation goes on.
        simu.step().unwrap();
        assert_eq!(simu.time(), SimTime::from_secs(1));
    }
}

// ---------------------------------------------------------------------
// Regressions found in review.
// ---------------------------------------------------------------------

/// Ticks every millisecond from its `init` hook; can arm a keyed alarm
/// and hand a key to itself in a payload.
#[model(save)]
#[derive(Debug)]
pub struct Ticker {
    pub ticks: Output<u64>,
    alarm: Option<EventKey>,
    fired: Option<EventKey>,
}

#[model(save)]
impl Ticker {
    #[init]
    fn start(&mut self, cx: &mut Context<Self>) {
        cx.schedule(Duration::from_millis(1), Self::ports().tick, ())
            .unwrap();
    }

    #[input]
    pub async fn tick(&mut self, cx: &mut Context<Self>) {
        self.ticks.send(cx.time().as_nanos()).await;
        cx.schedule(Duration::from_millis(1), Self::ports().tick, ())
            .unwrap();
    }

    #[input]
    pub fn arm(&mut self, ms: u64, cx: &mut Context<Self>) {
        let key = cx
            .schedule_keyed(Duration::from_millis(ms), Self::ports().ring, ())
            .unwrap();
        // A second event carries the alarm's key in its payload.
        cx.schedule(
            Duration::from_millis(1),
            Self::ports().remember,
            Some(key.clone()),
        )
        .unwrap();
        self.alarm = Some(key);
    }

    #[input]
    pub fn remember(&mut self, key: Option<EventKey>) {
        self.fired = key;
    }

    #[input]
    pub async fn ring(&mut self) {
        self.ticks.send(u64::MAX).await;
    }

    #[input]
    pub fn cancel_remembered(&mut self) {
        if let Some(key) = &self.fired {
            key.cancel();
        }
    }

    #[replier]
    pub fn alarm_cancelled(&mut self) -> Option<bool> {
        self.alarm.as_ref().map(EventKey::is_cancelled)
    }
}

fn ticker_bench(threads: usize) -> (SimInit, EventQueue<u64>, Address<Ticker>) {
    let mut ticker = Ticker {
        ticks: Output::new(),
        alarm: None,
        fired: None,
    };
    let ticks = EventQueue::new();
    ticker.ticks.connect_sink(&ticks);
    let mailbox = Mailbox::new();
    let address = mailbox.address();
    (
        SimInit::new()
            .with_threads(threads)
            .add_model(ticker, mailbox, "ticker"),
        ticks,
        address,
    )
}

/// Saves `simu` and restores it into a new ticker bench on `threads`.
fn fork_ticker(
    simu: &mut Simulation,
    threads: usize,
) -> (Simulation, EventQueue<u64>, Address<Ticker>) {
    let mut snapshot = Vec::new();
    simu.save(&mut snapshot).unwrap();
    let (init, ticks, address) = ticker_bench(threads);
    (init.restore(snapshot.as_slice()).unwrap(), ticks, address)
}

#[test]
fn events_scheduled_in_the_last_call_are_saved_on_every_executor() {
    for threads in [1, 2, 4] {
        // After `init`, `step` and `process_event`: each leaves the events
        // it caused staged on one thread.
        let (init, _, ticker) = ticker_bench(threads);
        let mut simu = init.init(SimTime::ZERO).unwrap();
        for call in 0..3 {
            match call {
                1 => simu.step().unwrap(),
                2 => simu.process_event(Ticker::ports().arm, 5, &ticker).unwrap(),
                _ => {}
            }
            let (mut restored, ticks, _) = fork_ticker(&mut simu, threads);
            assert_eq!(
                restored.next_event_time(),
                simu.next_event_time(),
                "{threads} threads, after call {call}"
            );
            assert_eq!(restored.queued_events(), simu.queued_events());
            restored.step_until(SimTime::from_millis(4)).unwrap();
            assert!(
                !ticks.take_all().is_empty(),
                "{threads} threads, call {call}"
            );
        }
    }
}

#[test]
fn a_key_carried_in_a_pending_payload_still_cancels_its_event() {
    for threads in [1, 4] {
        let (init, _, ticker) = ticker_bench(threads);
        let mut simu = init.init(SimTime::ZERO).unwrap();
        simu.process_event(Ticker::ports().arm, 3, &ticker).unwrap();
        let (mut restored, ticks, ticker) = fork_ticker(&mut simu, threads);
        // `remember` (at 1 ms) hands the model the alarm's key, which it
        // cancels before the alarm rings at 3 ms.
        restored.step_until(SimTime::from_millis(1)).unwrap();
        restored
            .process_event(Ticker::ports().cancel_remembered, (), &ticker)
            .unwrap();
        restored.step_until(SimTime::from_millis(5)).unwrap();
        assert!(
            !ticks.take_all().contains(&u64::MAX),
            "{threads} threads: the alarm was cancelled"
        );
        let cancelled = restored
            .process_query(Ticker::ports().alarm_cancelled, (), &ticker)
            .unwrap();
        assert_eq!(cancelled, Some(true), "the model's own clone sees it");
    }
}

#[test]
fn a_key_whose_event_fired_or_was_cancelled_answers_as_before() {
    let (init, _, ticker) = ticker_bench(1);
    let mut simu = init.init(SimTime::ZERO).unwrap();
    simu.process_event(Ticker::ports().arm, 2, &ticker).unwrap();
    simu.step_until(SimTime::from_millis(3)).unwrap();
    // The alarm fired: its key is not cancelled.
    let (mut restored, _, restored_ticker) = fork_ticker(&mut simu, 1);
    let query = Ticker::ports().alarm_cancelled;
    assert_eq!(simu.process_query(query, (), &ticker).unwrap(), Some(false));
    assert_eq!(
        restored.process_query(query, (), &restored_ticker).unwrap(),
        Some(false)
    );
    // Cancelled after it fired: cancelled after a restore too.
    simu.process_event(Ticker::ports().cancel_remembered, (), &ticker)
        .unwrap();
    let (mut restored, _, restored_ticker) = fork_ticker(&mut simu, 1);
    assert_eq!(
        restored.process_query(query, (), &restored_ticker).unwrap(),
        Some(true)
    );
}

/// Its state takes time to serialise.
#[derive(Debug, Default)]
pub struct Slow;

impl serde::Serialize for Slow {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        std::thread::sleep(Duration::from_millis(30));
        serializer.serialize_unit()
    }
}

impl<'de> serde::Deserialize<'de> for Slow {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        <()>::deserialize(deserializer).map(|()| Slow)
    }
}

#[model(save)]
#[derive(Debug)]
pub struct Sluggish {
    state: Slow,
}

#[model(save)]
impl Sluggish {
    #[input]
    pub fn poke(&mut self) {}
}

#[test]
fn a_save_is_not_cut_by_the_calls_wall_clock_limit() {
    for threads in [1, 2] {
        let build = || {
            SimInit::new()
                .with_threads(threads)
                .with_timeout(Duration::from_millis(10))
                .add_model(Sluggish { state: Slow }, Mailbox::new(), "sluggish")
        };
        let mut simu = build().init(SimTime::ZERO).unwrap();
        let mut snapshot = Vec::new();
        simu.save(&mut snapshot).unwrap();
        simu.step().unwrap();
        build().restore(snapshot.as_slice()).unwrap();
    }
}

#[test]
fn input_injected_and_not_applied_yet_stops_the_save() {
    use causim::ports::InputRef;
    for threads in [1, 2] {
        let (init, seen, log) = log_bench(threads);
        let mut simu = init.init(SimTime::ZERO).unwrap();
        let injector = simu.injector();
        injector
            .send(
                &InputRef::new(Log::ports().note, &log),
                "injected".to_string(),
            )
            .unwrap();
        let error = simu.save(&mut Vec::new()).unwrap_err();
        assert_eq!(error, SaveError::PendingInput { inputs: 1 });
        // A step applies it; then the bench saves.
        simu.step_until(SimTime::from_millis(1)).unwrap();
        assert_eq!(texts(&seen.take_all()), ["1ms injected"]);
        simu.save(&mut Vec::new()).unwrap();
    }
}

// ---------------------------------------------------------------------
// A restored model's task, first polled on its first message.
// ---------------------------------------------------------------------

/// Notes its `init` hook and every message it gets, with its count of
/// messages so far.
#[model(save)]
#[derive(Debug)]
pub struct Hooked {
    pub noted: Output<String>,
    messages: u32,
}

#[model(save)]
impl Hooked {
    #[init]
    async fn hello(&mut self) {
        self.noted.send("init".into()).await;
    }

    #[input]
    pub async fn poke(&mut self, what: String) {
        self.messages += 1;
        self.noted.send(format!("{what} {}", self.messages)).await;
    }

    #[replier]
    pub fn messages(&mut self) -> u32 {
        self.messages
    }
}

/// Two hooked models; the first forwards what it notes to the second.
fn hooked_bench(threads: usize) -> (SimInit, EventQueue<String>, [Address<Hooked>; 2]) {
    let noted = EventQueue::new();
    let (first_box, second_box) = (Mailbox::new(), Mailbox::new());
    let addresses = [first_box.address(), second_box.address()];
    let mut first = Hooked {
        noted: Output::new(),
        messages: 0,
    };
    let mut second = Hooked {
        noted: Output::new(),
        messages: 0,
    };
    first.noted.connect(Hooked::ports().poke, &addresses[1]);
    second.noted.connect_sink(&noted);
    let init = SimInit::new()
        .with_threads(threads)
        .add_model(first, first_box, "first")
        .add_model(second, second_box, "second");
    (init, noted, addresses)
}

/// A restored bench runs no `init` hook, neither at its start nor when a
/// model's first message comes later (the single-threaded executor first
/// polls a restored model's task then); the model answers a request first,
/// and its first message after that finds its restored state.
#[test]
fn a_restored_models_first_message_finds_its_state_and_runs_no_init_hook() {
    for threads in [1, 2, 4] {
        let (init, noted, [first, _]) = hooked_bench(threads);
        let mut simu = init.init(SimTime::ZERO).unwrap();
        simu.process_event(Hooked::ports().poke, "a".into(), &first)
            .unwrap();
        let mut started = noted.take_all();
        started.sort();
        assert_eq!(started, ["a 1 2", "init", "init 1"], "{threads} threads");
        let mut snapshot = Vec::new();
        simu.save(&mut snapshot).unwrap();
        drop(simu);

        let (init, noted, [first, second]) = hooked_bench(threads);
        let mut simu = init.restore(snapshot.as_slice()).unwrap();
        simu.step_until(SimTime::from_millis(5)).unwrap();
        assert!(
            noted.take_all().is_empty(),
            "{threads} threads: no hook ran"
        );
        let count: u32 = simu
            .process_query(Hooked::ports().messages, (), &second)
            .unwrap();
        assert_eq!(count, 2, "{threads} threads");
        simu.process_event(Hooked::ports().poke, "b".into(), &first)
            .unwrap();
        assert_eq!(noted.take_all(), ["b 2 3"], "{threads} threads");
    }
}
