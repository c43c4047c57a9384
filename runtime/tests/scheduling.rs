//! Scheduling events in simulated time, from a model's `Context` (on its
//! own inputs) and from the bench `Scheduler` (on any input): absolute and
//! relative times, keyed events and cancellation, periodic events, and the
//! errors — a time that is not in the future, a zero period, an
//! overflowing delay — which are values, never panics, and schedule nothing.

mod common;
use common::*;

use causim::SchedulingError;

/// A scheduling command a `Planner` runs on itself.
#[derive(Clone, Debug)]
enum Cmd {
    At(SimTime, u32),
    In(Duration, u32),
    KeyedAt(SimTime, u32),
    KeyedIn(Duration, u32),
    PeriodicAt(SimTime, Duration, u32),
    PeriodicIn(Duration, Duration, u32),
    CancelKeys,
}

/// Runs scheduling commands on its own `tick` input, records every tick
/// (with its time) and the outcome of every command.
#[model]
struct Planner {
    ticks: Log<u32>,
    outcomes: Log<Result<(), SchedulingError>>,
    keys: Vec<EventKey>,
    on_init: Vec<Cmd>,
}

#[model]
impl Planner {
    fn new(ticks: &Log<u32>, outcomes: &Log<Result<(), SchedulingError>>) -> Self {
        Planner {
            ticks: ticks.clone(),
            outcomes: outcomes.clone(),
            keys: Vec::new(),
            on_init: Vec::new(),
        }
    }

    fn run(&mut self, cmd: Cmd, cx: &mut Context<Self>) {
        let tick = Self::ports().tick;
        let outcome = match cmd {
            Cmd::At(time, v) => cx.schedule(time, tick, v),
            Cmd::In(delay, v) => cx.schedule(delay, tick, v),
            Cmd::KeyedAt(time, v) => cx.schedule_keyed(time, tick, v).map(|k| self.keys.push(k)),
            Cmd::KeyedIn(delay, v) => cx.schedule_keyed(delay, tick, v).map(|k| self.keys.push(k)),
            Cmd::PeriodicAt(time, period, v) => cx
                .schedule_periodic(time, period, tick, v)
                .map(|k| self.keys.push(k)),
            Cmd::PeriodicIn(delay, period, v) => cx
                .schedule_periodic(delay, period, tick, v)
                .map(|k| self.keys.push(k)),
            Cmd::CancelKeys => {
                self.keys.iter().for_each(EventKey::cancel);
                Ok(())
            }
        };
        self.outcomes.push(cx.name(), cx.time(), outcome);
    }

    #[input]
    async fn tick(&mut self, v: u32, cx: &mut Context<Self>) {
        self.ticks.push(cx.name(), cx.time(), v);
    }

    #[input]
    async fn plan(&mut self, cmds: Vec<Cmd>, cx: &mut Context<Self>) {
        for cmd in cmds {
            self.run(cmd, cx);
        }
    }

    #[init]
    async fn setup(&mut self, cx: &mut Context<Self>) {
        for cmd in std::mem::take(&mut self.on_init) {
            self.run(cmd, cx);
        }
    }
}

struct Bench {
    simu: Simulation,
    planner: Address<Planner>,
    ticks: Log<u32>,
    outcomes: Log<Result<(), SchedulingError>>,
}

fn bench(on_init: Vec<Cmd>, start_time: SimTime) -> Bench {
    let ticks = Log::new();
    let outcomes = Log::new();
    let mut planner = Planner::new(&ticks, &outcomes);
    planner.on_init = on_init;
    let mbox = Mailbox::new();
    let addr = mbox.address();
    let simu = sim_init()
        .add_model(planner, mbox, "planner")
        .init(start_time)
        .unwrap();
    Bench {
        simu,
        planner: addr,
        ticks,
        outcomes,
    }
}

impl Bench {
    fn plan(&mut self, cmds: Vec<Cmd>) {
        self.simu
            .process_event(Planner::ports().plan, cmds, &self.planner)
            .unwrap();
    }

    fn ticks(&self) -> Vec<(SimTime, u32)> {
        self.ticks.timed()
    }

    fn outcomes(&self) -> Vec<Result<(), SchedulingError>> {
        self.outcomes.values_of("planner")
    }
}

// ---------------------------------------------------------------------------
// Absolute and relative
// ---------------------------------------------------------------------------

#[test]
fn model_schedules_absolute_and_relative_events_on_itself() {
    let mut b = bench(vec![Cmd::At(t(5), 50), Cmd::In(secs(2), 20)], t(1));
    // Scheduled during init, at t=1: the delay counts from there.
    assert_eq!(b.outcomes(), vec![Ok(()), Ok(())]);
    assert_eq!(b.simu.next_event_time(), Some(t(3)));
    b.simu.step().unwrap();
    assert_eq!(b.simu.time(), t(3));
    // From a message at t=3: relative to t=3.
    b.plan(vec![Cmd::In(secs(1), 40)]);
    b.simu.run().unwrap();
    assert_eq!(b.ticks(), vec![(t(3), 20), (t(4), 40), (t(5), 50)]);
}

#[test]
fn bench_schedules_absolute_and_relative_events() {
    let mut b = bench(vec![], SimTime::ZERO);
    let scheduler = b.simu.scheduler();
    scheduler
        .schedule(t(4), Planner::ports().tick, 4, &b.planner)
        .unwrap();
    scheduler
        .schedule(secs(2), Planner::ports().tick, 2, &b.planner)
        .unwrap();
    b.simu.step().unwrap();
    // Relative to the current time, now t=2.
    scheduler
        .schedule(secs(1), Planner::ports().tick, 3, &b.planner)
        .unwrap();
    b.simu.run().unwrap();
    assert_eq!(b.ticks(), vec![(t(2), 2), (t(3), 3), (t(4), 4)]);
    assert_eq!(b.simu.time(), t(4));
}

// ---------------------------------------------------------------------------
// Events a model polled by the calling thread schedules wait outside the
// heap until the next step, or a batch of 64 (`scheduler::local`): nothing
// may tell.
// ---------------------------------------------------------------------------

/// More events than the driving thread stages at once (they then move to
/// the heap in batches during the call): the order is still time, then
/// the order they were scheduled in; keyed ones cancelled in the same call
/// never fire.
#[test]
fn a_model_scheduling_hundreds_of_events_in_one_call_keeps_their_order() {
    let mut b = bench(vec![], SimTime::ZERO);
    let mut cmds = Vec::new();
    let mut expected = Vec::new();
    for i in 0..300u32 {
        let time = t(1 + u64::from(i * 37 % 100));
        if i % 7 == 3 {
            cmds.push(Cmd::KeyedAt(time, i));
        } else {
            cmds.push(Cmd::At(time, i));
            expected.push((time, i));
        }
    }
    cmds.push(Cmd::CancelKeys);
    b.plan(cmds);
    b.simu.run().unwrap();
    // Stable: same-time events stay in the order they were scheduled.
    expected.sort_by_key(|&(time, _)| time);
    assert_eq!(b.ticks(), expected);
}

#[test]
fn an_event_scheduled_during_a_call_is_the_next_event() {
    let mut b = bench(vec![], SimTime::ZERO);
    b.plan(vec![Cmd::In(secs(2), 2)]);
    assert_eq!(b.simu.next_event_time(), Some(t(2)));
    b.simu.step().unwrap();
    assert_eq!(b.ticks(), vec![(t(2), 2)]);
    assert_eq!(b.simu.next_event_time(), None);
}

#[test]
fn a_bench_event_earlier_than_a_model_event_comes_first() {
    let mut b = bench(vec![], SimTime::ZERO);
    b.plan(vec![Cmd::In(secs(3), 3)]);
    let scheduler = b.simu.scheduler();
    scheduler
        .schedule(t(2), Planner::ports().tick, 2, &b.planner)
        .unwrap();
    b.simu.run().unwrap();
    assert_eq!(b.ticks(), vec![(t(2), 2), (t(3), 3)]);
}

/// Ticks every second up to `until`: after its first tick, its next event
/// is always the lone event staged on the driving thread, which a step
/// takes without the queue's lock when nothing in the heap is earlier.
#[model]
struct Chain {
    ticks: Log<u32>,
    until: u32,
    handshake: Handshake,
}

/// Where a [`Chain`] says it staged its next tick, and hears back.
struct Handshake(
    Option<(
        std::sync::mpsc::Sender<SimTime>,
        std::sync::mpsc::Receiver<()>,
    )>,
);

#[model]
impl Chain {
    #[input]
    async fn tick(&mut self, v: u32, cx: &mut Context<Self>) {
        self.ticks.push(cx.name(), cx.time(), v);
        if v < self.until && v < 1000 {
            cx.schedule(secs(1), Self::ports().tick, v + 1).unwrap();
            if let Some((to_bench, from_bench)) = &self.handshake.0 {
                to_bench.send(cx.time()).unwrap();
                from_bench.recv().unwrap();
            }
        }
    }

    #[input]
    async fn handshake(&mut self, handshake: Handshake, _cx: &mut Context<Self>) {
        self.handshake = handshake;
    }

    #[init]
    async fn setup(&mut self, cx: &mut Context<Self>) {
        cx.schedule(secs(1), Self::ports().tick, 1).unwrap();
    }
}

fn chain(until: u32) -> (Simulation, Address<Chain>, Log<u32>) {
    let ticks = Log::new();
    let mbox = Mailbox::new();
    let addr = mbox.address();
    let model = Chain {
        ticks: ticks.clone(),
        until,
        handshake: Handshake(None),
    };
    let simu = sim_init()
        .add_model(model, mbox, "chain")
        .init(SimTime::ZERO)
        .unwrap();
    (simu, addr, ticks)
}

#[test]
fn bench_events_from_another_thread_come_before_a_later_lone_staged_event() {
    let (mut simu, addr, ticks) = chain(3);
    simu.step().unwrap();
    // The chain's tick 2 (t=2) is staged; the bench, on another thread,
    // schedules one event before it and one at the same time.
    let scheduler = simu.scheduler();
    std::thread::scope(|s| {
        s.spawn(|| {
            let half = t(1).checked_add(Duration::from_millis(500)).unwrap();
            let tick = Chain::ports().tick;
            scheduler.schedule(half, tick, 100, &addr).unwrap();
            scheduler.schedule(t(2), tick, 200, &addr).unwrap();
        });
    });
    simu.run().unwrap();
    let half = t(1).checked_add(Duration::from_millis(500)).unwrap();
    assert_eq!(
        ticks.timed(),
        vec![(t(1), 1), (half, 100), (t(2), 200), (t(2), 2), (t(3), 3)]
    );
}

#[test]
fn bench_events_from_another_thread_during_a_step_come_first() {
    // At every tick, once the chain has staged its next tick, the bench
    // schedules an event half a second later from another thread while the
    // step is still running: each must fire before the staged tick.
    let (to_bench, ticked) = std::sync::mpsc::channel::<SimTime>();
    let (done, from_bench) = std::sync::mpsc::channel::<()>();
    let (mut simu, addr, ticks) = chain(50);
    simu.process_event(
        Chain::ports().handshake,
        Handshake(Some((to_bench, from_bench))),
        &addr,
    )
    .unwrap();
    let scheduler = simu.scheduler();
    std::thread::scope(|s| {
        s.spawn(|| {
            for now in ticked {
                let half = now.checked_add(Duration::from_millis(500)).unwrap();
                let tick = Chain::ports().tick;
                scheduler.schedule(half, tick, 1000, &addr).unwrap();
                done.send(()).unwrap();
            }
        });
        simu.run().unwrap();
        // Ends the bench thread's loop.
        simu.process_event(Chain::ports().handshake, Handshake(None), &addr)
            .unwrap();
    });
    let half = Duration::from_millis(500);
    let expected: Vec<_> = (1..=50u32)
        .flat_map(|v| {
            let time = t(u64::from(v));
            let bench = (v < 50).then(|| (time.checked_add(half).unwrap(), 1000));
            std::iter::once((time, v)).chain(bench)
        })
        .collect();
    assert_eq!(ticks.timed(), expected);
}

#[test]
fn same_time_model_and_bench_events_keep_the_key_order() {
    let mut b = bench(vec![], SimTime::ZERO);
    b.plan(vec![Cmd::At(t(2), 10)]);
    b.simu
        .scheduler()
        .schedule(t(2), Planner::ports().tick, 20, &b.planner)
        .unwrap();
    b.simu.run().unwrap();
    // The bench's origin comes first.
    assert_eq!(b.ticks(), vec![(t(2), 20), (t(2), 10)]);
}

#[test]
fn a_model_event_cancelled_before_its_step_never_fires() {
    let mut b = bench(vec![], SimTime::ZERO);
    b.plan(vec![Cmd::KeyedIn(secs(1), 1)]);
    b.plan(vec![Cmd::CancelKeys]);
    assert_eq!(b.simu.next_event_time(), None);
    b.simu.step().unwrap();
    assert!(b.ticks().is_empty());
    assert_eq!(b.simu.time(), SimTime::ZERO);
}

#[test]
fn step_until_short_of_a_model_event_keeps_it() {
    let mut b = bench(vec![], SimTime::ZERO);
    b.plan(vec![Cmd::In(secs(5), 5)]);
    b.simu.step_until(t(3)).unwrap();
    assert!(b.ticks().is_empty());
    assert_eq!(b.simu.time(), t(3));
    assert_eq!(b.simu.next_event_time(), Some(t(5)));
    b.simu.run().unwrap();
    assert_eq!(b.ticks(), vec![(t(5), 5)]);
}

// ---------------------------------------------------------------------------
// Keyed events and cancellation
// ---------------------------------------------------------------------------

#[test]
fn bench_cancelled_event_never_fires_and_late_cancel_is_a_no_op() {
    let mut b = bench(vec![], SimTime::ZERO);
    let scheduler = b.simu.scheduler();
    let early = scheduler
        .schedule_keyed(t(1), Planner::ports().tick, 1, &b.planner)
        .unwrap();
    let cancelled = scheduler
        .schedule_keyed(t(2), Planner::ports().tick, 2, &b.planner)
        .unwrap();
    scheduler
        .schedule(t(3), Planner::ports().tick, 3, &b.planner)
        .unwrap();

    cancelled.cancel();
    assert!(cancelled.is_cancelled());
    b.simu.step().unwrap();
    assert_eq!(b.ticks(), vec![(t(1), 1)]);
    // Cancelling an event that already fired: nothing happens.
    early.cancel();
    early.cancel();
    // The cancelled event is skipped: the next step is t=3.
    assert_eq!(b.simu.next_event_time(), Some(t(3)));
    b.simu.run().unwrap();
    assert_eq!(b.ticks(), vec![(t(1), 1), (t(3), 3)]);
    assert_eq!(b.simu.next_event_time(), None);
}

#[test]
fn only_cancelled_events_left_means_nothing_scheduled() {
    let mut b = bench(vec![], SimTime::ZERO);
    let key = b
        .simu
        .scheduler()
        .schedule_keyed(t(1), Planner::ports().tick, 1, &b.planner)
        .unwrap();
    let clone = key.clone();
    clone.cancel();
    assert!(key.is_cancelled());
    assert_eq!(b.simu.next_event_time(), None);
    b.simu.step().unwrap();
    assert_eq!(b.simu.time(), SimTime::ZERO);
    assert!(b.ticks().is_empty());
}

#[test]
fn model_cancels_its_own_keyed_events() {
    let mut b = bench(
        vec![
            Cmd::KeyedAt(t(2), 2),
            Cmd::KeyedIn(secs(3), 3),
            Cmd::At(t(4), 4),
        ],
        SimTime::ZERO,
    );
    b.plan(vec![Cmd::CancelKeys]);
    b.simu.run().unwrap();
    assert_eq!(b.ticks(), vec![(t(4), 4)]);
    // Cancel again after everything ran: a no-op.
    b.plan(vec![Cmd::CancelKeys]);
    assert!(b.outcomes().iter().all(Result::is_ok));
}

#[test]
fn model_cancel_after_fire_is_a_no_op() {
    let mut b = bench(vec![Cmd::KeyedAt(t(1), 1), Cmd::At(t(2), 2)], SimTime::ZERO);
    b.simu.step().unwrap();
    b.plan(vec![Cmd::CancelKeys]);
    b.simu.run().unwrap();
    assert_eq!(b.ticks(), vec![(t(1), 1), (t(2), 2)]);
}

// ---------------------------------------------------------------------------
// Periodic events
// ---------------------------------------------------------------------------

#[test]
fn bench_periodic_event_fires_every_period_until_cancelled() {
    let mut b = bench(vec![], SimTime::ZERO);
    let key = b
        .simu
        .scheduler()
        .schedule_periodic(t(1), secs(2), Planner::ports().tick, 7, &b.planner)
        .unwrap();
    b.simu.step_until(t(8)).unwrap();
    assert_eq!(b.ticks(), vec![(t(1), 7), (t(3), 7), (t(5), 7), (t(7), 7)]);
    assert_eq!(b.simu.next_event_time(), Some(t(9)));
    key.cancel();
    assert_eq!(b.simu.next_event_time(), None);
    b.simu.step_until(t(20)).unwrap();
    assert_eq!(b.ticks().len(), 4);
}

#[test]
fn model_periodic_event_fires_every_period_until_cancelled() {
    let mut b = bench(
        vec![Cmd::PeriodicIn(secs(1), Duration::from_millis(500), 9)],
        SimTime::ZERO,
    );
    b.simu.step_until(t(2)).unwrap();
    let ms = |m: u64| SimTime::from_nanos(m * 1_000_000);
    assert_eq!(b.ticks(), vec![(ms(1000), 9), (ms(1500), 9), (ms(2000), 9)]);
    // Cancelled from the model itself, between occurrences.
    b.plan(vec![Cmd::CancelKeys]);
    b.simu.step_until(t(10)).unwrap();
    assert_eq!(b.ticks().len(), 3);
}

#[test]
fn model_periodic_event_at_absolute_time() {
    let mut b = bench(vec![Cmd::PeriodicAt(t(10), secs(10), 1)], SimTime::ZERO);
    b.simu.step_until(t(45)).unwrap();
    assert_eq!(
        b.ticks(),
        vec![(t(10), 1), (t(20), 1), (t(30), 1), (t(40), 1)]
    );
}

/// A periodic event can be cancelled by the very occurrence it delivers:
/// the model cancels while handling it, no further occurrence fires.
#[test]
fn periodic_event_cancelled_while_it_is_being_handled() {
    #[model]
    struct SelfStopping {
        key: Option<EventKey>,
        ticks: Log<u32>,
    }
    #[model]
    impl SelfStopping {
        #[input]
        async fn tick(&mut self, n: u32, cx: &mut Context<Self>) {
            self.ticks.push(cx.name(), cx.time(), n);
            if self.ticks.len() == 3 {
                self.key.as_ref().unwrap().cancel();
            }
        }
        #[init]
        async fn setup(&mut self, cx: &mut Context<Self>) {
            let key = cx
                .schedule_periodic(secs(1), secs(1), Self::ports().tick, 0)
                .unwrap();
            self.key = Some(key);
        }
    }

    let ticks = Log::new();
    let mut simu = start(sim_init().add_model(
        SelfStopping {
            key: None,
            ticks: ticks.clone(),
        },
        Mailbox::new(),
        "stopper",
    ));
    simu.run().unwrap(); // ends: nothing is scheduled once cancelled
    assert_eq!(ticks.timed(), vec![(t(1), 0), (t(2), 0), (t(3), 0)]);
    assert_eq!(simu.time(), t(3));
}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

#[test]
fn bench_scheduling_in_the_past_or_present_is_an_error_and_schedules_nothing() {
    let b = bench(vec![], t(10));
    let scheduler = b.simu.scheduler();
    let tick = Planner::ports().tick;
    assert_eq!(
        scheduler.schedule(t(3), tick, 1, &b.planner),
        Err(SchedulingError::NotInFuture {
            now: t(10),
            requested: t(3)
        })
    );
    assert_eq!(
        scheduler.schedule(t(10), tick, 1, &b.planner),
        Err(SchedulingError::NotInFuture {
            now: t(10),
            requested: t(10)
        })
    );
    assert_eq!(
        scheduler.schedule(Duration::ZERO, tick, 1, &b.planner),
        Err(SchedulingError::NotInFuture {
            now: t(10),
            requested: t(10)
        })
    );
    assert!(matches!(
        scheduler.schedule_keyed(t(1), tick, 1, &b.planner),
        Err(SchedulingError::NotInFuture { .. })
    ));
    assert!(matches!(
        scheduler.schedule_periodic(t(1), secs(1), tick, 1, &b.planner),
        Err(SchedulingError::NotInFuture { .. })
    ));
    let source = EventSource::<u32>::new();
    assert!(matches!(
        scheduler.schedule_event(t(9), source.event(1)),
        Err(SchedulingError::NotInFuture { .. })
    ));
    assert_eq!(b.simu.next_event_time(), None);
}

#[test]
fn bench_zero_period_and_overflow_are_errors() {
    let mut b = bench(vec![], t(1));
    let scheduler = b.simu.scheduler();
    let tick = Planner::ports().tick;
    assert!(matches!(
        scheduler.schedule_periodic(t(2), Duration::ZERO, tick, 1, &b.planner),
        Err(SchedulingError::ZeroPeriod)
    ));
    assert_eq!(
        scheduler.schedule(Duration::MAX, tick, 1, &b.planner),
        Err(SchedulingError::TimeOverflow {
            now: t(1),
            delay: Duration::MAX
        })
    );
    // Just fits / just overflows.
    let room = SimTime::MAX - t(1);
    assert_eq!(
        scheduler.schedule(room + Duration::from_nanos(1), tick, 1, &b.planner),
        Err(SchedulingError::TimeOverflow {
            now: t(1),
            delay: room + Duration::from_nanos(1)
        })
    );
    assert_eq!(b.simu.next_event_time(), None);
    scheduler.schedule(room, tick, 1, &b.planner).unwrap();
    assert_eq!(b.simu.next_event_time(), Some(SimTime::MAX));
    b.simu.run().unwrap();
    assert_eq!(b.ticks(), vec![(SimTime::MAX, 1)]);
}

#[test]
fn model_scheduling_errors_are_values_and_schedule_nothing() {
    let mut b = bench(
        vec![
            Cmd::At(t(5), 1),           // present (init runs at t=5)
            Cmd::At(t(1), 1),           // past
            Cmd::In(Duration::ZERO, 1), // present
            Cmd::KeyedAt(t(2), 1),
            Cmd::PeriodicAt(t(6), Duration::ZERO, 1),
            Cmd::PeriodicIn(secs(1), Duration::ZERO, 1),
            Cmd::In(Duration::MAX, 1),
            Cmd::KeyedIn(Duration::MAX, 1),
            Cmd::PeriodicIn(Duration::MAX, secs(1), 1),
        ],
        t(5),
    );
    let now = t(5);
    assert_eq!(
        b.outcomes(),
        vec![
            Err(SchedulingError::NotInFuture {
                now,
                requested: t(5)
            }),
            Err(SchedulingError::NotInFuture {
                now,
                requested: t(1)
            }),
            Err(SchedulingError::NotInFuture {
                now,
                requested: t(5)
            }),
            Err(SchedulingError::NotInFuture {
                now,
                requested: t(2)
            }),
            Err(SchedulingError::ZeroPeriod),
            Err(SchedulingError::ZeroPeriod),
            Err(SchedulingError::TimeOverflow {
                now,
                delay: Duration::MAX
            }),
            Err(SchedulingError::TimeOverflow {
                now,
                delay: Duration::MAX
            }),
            Err(SchedulingError::TimeOverflow {
                now,
                delay: Duration::MAX
            }),
        ]
    );
    assert_eq!(b.simu.next_event_time(), None);
    // The model and the simulation are fine.
    b.plan(vec![Cmd::In(secs(1), 6)]);
    b.simu.run().unwrap();
    assert_eq!(b.ticks(), vec![(t(6), 6)]);
}

#[test]
fn scheduling_errors_convert_into_simulation_errors() {
    let err: SimulationError = SchedulingError::ZeroPeriod.into();
    assert_eq!(
        err,
        SimulationError::Scheduling(SchedulingError::ZeroPeriod)
    );
    assert!(!err.is_fatal());
    assert!(!err.to_string().is_empty());
}

#[test]
fn bench_keyed_and_periodic_relative_forms() {
    let mut b = bench(vec![], SimTime::ZERO);
    let scheduler = b.simu.scheduler();
    b.simu.step_until(t(1)).unwrap();
    let keyed = scheduler
        .schedule_keyed(secs(2), Planner::ports().tick, 30, &b.planner)
        .unwrap();
    let periodic = scheduler
        .schedule_periodic(secs(1), secs(2), Planner::ports().tick, 7, &b.planner)
        .unwrap();
    b.simu.step_until(t(6)).unwrap();
    // Keyed at t=3; periodic at t=2, 4, 6.
    assert_eq!(b.ticks(), vec![(t(2), 7), (t(3), 30), (t(4), 7), (t(6), 7)]);
    periodic.cancel();
    keyed.cancel(); // already fired: no-op
    b.simu.run().unwrap();
    assert_eq!(b.ticks().len(), 4);
    let zero = scheduler.schedule_periodic(
        secs(1),
        Duration::ZERO,
        Planner::ports().tick,
        1,
        &b.planner,
    );
    assert_eq!(zero.unwrap_err(), SchedulingError::ZeroPeriod);
}

#[test]
fn bench_keyed_source_event_can_be_cancelled() {
    let mut b = bench(vec![], SimTime::ZERO);
    let mut source = EventSource::new();
    source.connect(Planner::ports().tick, &b.planner);
    let scheduler = b.simu.scheduler();
    let key = scheduler
        .schedule_keyed_event(t(1), source.event(1))
        .unwrap();
    scheduler
        .schedule_keyed_event(t(2), source.event(2))
        .unwrap();
    key.cancel();
    b.simu.run().unwrap();
    assert_eq!(b.ticks(), vec![(t(2), 2)]);
}
