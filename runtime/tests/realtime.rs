//! Real time: pacing on a clock (tested with the manual clock, which never
//! sleeps), lateness policies, the ticker, and input injected from other
//! threads.

mod common;
use common::*;

use std::time::Duration;

use causim::model::PortKind;
use causim::ports::{InputRef, ReplierRef};
use causim::realtime::{
    Clock, InjectError, InvalidSpeed, Lateness, ManualClock, ReplyError, SystemClock,
};
use causim::realtime::{Injector, PendingReply};
use causim::{TimeView, ZeroDelay};

// The handles documented as usable from any thread, while another runs
// the simulation: a field that is not `Send` or `Sync` fails this build.
const _: () = {
    const fn for_any_thread<T: Clone + Send + Sync>() {}
    const fn movable<T: Send>() {}
    for_any_thread::<Injector>();
    for_any_thread::<Scheduler>();
    for_any_thread::<TimeView>();
    for_any_thread::<ManualClock>();
    for_any_thread::<SystemClock>();
    movable::<PendingReply<u32>>();
};

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// A recorder bench: the recorder's input, its log, and the builder.
fn recorder_bench(log: &Log<u32>) -> (InputRef<Recorder<u32>, u32>, SimInit) {
    let mailbox = Mailbox::new();
    let input = InputRef::new(Recorder::ports().input, &mailbox);
    let init = sim_init().add_model(Recorder::new(log), mailbox, "rec");
    (input, init)
}

/// Schedules `value` for the recorder at each of `times` (seconds).
fn schedule_at(simu: &Simulation, input: &InputRef<Recorder<u32>, u32>, times: &[u64]) {
    for (i, &at) in times.iter().enumerate() {
        simu.scheduler()
            .schedule_event(t(at), input.event(u32::try_from(i).unwrap()))
            .unwrap();
    }
}

#[test]
fn steps_wait_for_their_wall_time_at_the_clock_speed() {
    let log = Log::new();
    let (input, init) = recorder_bench(&log);
    let clock = ManualClock::with_speed(2.0).unwrap();
    let mut simu = start(init.with_clock(clock.clone()));
    schedule_at(&simu, &input, &[1, 2, 4]);
    simu.run().unwrap();
    assert_eq!(log.timed(), vec![(t(1), 0), (t(2), 1), (t(4), 2)]);
    // Twice real time: half a second of wall time per simulated second,
    // from the first paced step's start (wall 0).
    assert_eq!(
        clock.sleeps(),
        vec![(ms(0), ms(500)), (ms(500), ms(1000)), (ms(1000), ms(2000))]
    );
    // step_until moves the clock to its end on time too.
    simu.step_until(t(6)).unwrap();
    assert_eq!(clock.sleeps().last(), Some(&(ms(2000), ms(3000))));
}

/// Advances a manual clock by the milliseconds it receives: a model whose
/// work takes wall time.
#[model]
struct Worker {
    clock: ManualClock,
}

#[model]
impl Worker {
    #[input]
    fn work(&mut self, millis: u64) {
        self.clock.advance(ms(millis));
    }
}

fn worker_bench(clock: &ManualClock, lateness: Lateness) -> (Simulation, InputRef<Worker, u64>) {
    let mailbox = Mailbox::new();
    let work = InputRef::new(Worker::ports().work, &mailbox);
    let worker = Worker {
        clock: clock.clone(),
    };
    let simu = start(
        sim_init()
            .with_clock(clock.clone())
            .with_lateness(lateness)
            .add_model(worker, mailbox, "worker"),
    );
    (simu, work)
}

#[test]
fn a_step_later_than_the_tolerance_is_out_of_sync_and_the_next_call_starts_afresh() {
    let clock = ManualClock::new();
    let (mut simu, work) = worker_bench(&clock, Lateness::Error { tolerance: ms(100) });
    let scheduler = simu.scheduler();
    // Pacing is anchored when the first paced call starts (wall 50 ms
    // here). At 1 s the work takes 2.5 s of wall time: the step at 2 s
    // comes 1.5 s after its wall deadline.
    scheduler.schedule_event(t(1), work.event(2_500)).unwrap();
    scheduler.schedule_event(t(2), work.event(0)).unwrap();
    scheduler.schedule_event(t(3), work.event(0)).unwrap();
    clock.advance(ms(50)); // the first step's anchor is wall 50 ms
    let error = simu.run().unwrap_err();
    assert_eq!(
        error,
        SimulationError::OutOfSync {
            time: t(2),
            lag: ms(1_500),
        }
    );
    assert!(!error.is_fatal());
    assert_eq!(simu.time(), t(1), "the late step did not run");
    assert!(
        error
            .to_string()
            .contains("the step at 2.000000000s started 1.5s after"),
        "{error}"
    );
    // The next call re-anchors at its start (1 s, wall 3.55 s): on time
    // again.
    simu.run().unwrap();
    assert_eq!(simu.time(), t(3));
    let sleeps = clock.sleeps();
    assert_eq!(
        sleeps,
        vec![
            (ms(50), ms(1_050)),
            (ms(3_550), ms(4_550)),
            (ms(4_550), ms(5_550))
        ]
    );
}

#[test]
fn catch_up_runs_late_steps_at_once_until_back_on_time() {
    let clock = ManualClock::new();
    let (mut simu, work) = worker_bench(&clock, Lateness::CatchUp);
    let scheduler = simu.scheduler();
    scheduler.schedule_event(t(1), work.event(2_500)).unwrap();
    for at in 2..=5 {
        scheduler.schedule_event(t(at), work.event(0)).unwrap();
    }
    simu.run().unwrap();
    assert_eq!(simu.time(), t(5));
    // 1 s: on time; 2 s and 3 s: late (wall 3.5 s), no wait; 4 s and 5 s:
    // waited for.
    assert_eq!(
        clock.sleeps(),
        vec![
            (ms(0), ms(1_000)),
            (ms(3_500), ms(4_000)),
            (ms(4_000), ms(5_000))
        ]
    );
}

#[test]
fn speed_factors_must_be_positive_and_finite() {
    for speed in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let refused = SystemClock::with_speed(speed).unwrap_err();
        assert!(refused.0.to_bits() == speed.to_bits());
        assert!(ManualClock::with_speed(speed).is_err());
    }
    assert_eq!(
        InvalidSpeed(0.0).to_string(),
        "a clock's speed factor must be a positive, finite number of simulated seconds per wall \
         second (1.0 is real time), not 0"
    );
    assert!(SystemClock::with_speed(1e-3).is_ok());
}

#[test]
fn the_ticker_steps_when_nothing_is_scheduled_and_run_goes_on_until_halted() {
    let log = Log::new();
    let (input, init) = recorder_bench(&log);
    let clock = ManualClock::new();
    let mut simu = start(init.with_clock(clock.clone()).with_tick(ms(1_000)));
    simu.step().unwrap();
    assert_eq!(simu.time(), t(1), "a tick with nothing scheduled");
    simu.scheduler()
        .schedule_event(SimTime::from_millis(2_500), input.event(7))
        .unwrap();
    simu.step_until(SimTime::from_millis(3_200)).unwrap();
    assert_eq!(log.timed(), vec![(SimTime::from_millis(2_500), 7)]);
    let walls: Vec<Duration> = clock.sleeps().into_iter().map(|(_, to)| to).collect();
    assert_eq!(
        walls,
        vec![ms(1_000), ms(2_000), ms(2_500), ms(3_000), ms(3_200)]
    );

    // `run` goes on until a halt.
    let scheduler = simu.scheduler();
    let halter = std::thread::spawn({
        let clock = clock.clone();
        move || {
            while Clock::now(&clock) < ms(10_000) {
                std::thread::yield_now();
            }
            scheduler.halt();
        }
    });
    let error = simu.run().unwrap_err();
    halter.join().unwrap();
    assert!(matches!(error, SimulationError::Halted { .. }), "{error:?}");
    assert!(simu.time() >= t(10));
}

#[test]
fn a_zero_tick_is_refused() {
    let error = sim_init()
        .with_tick(Duration::ZERO)
        .init(SimTime::ZERO)
        .unwrap_err();
    assert_eq!(error, SimulationError::InvalidTick);
}

#[test]
fn injected_input_comes_after_the_steps_events_in_injection_order() {
    let log = Log::new();
    let (input, init) = recorder_bench(&log);
    let mut simu = start(init);
    let injector = simu.injector();
    schedule_at(&simu, &input, &[1, 2]); // 0 at 1 s, 1 at 2 s
    injector.send(&input, 10).unwrap();
    injector.send(&input, 11).unwrap();
    simu.step().unwrap();
    injector.send(&input, 12).unwrap();
    simu.step().unwrap();
    assert_eq!(
        log.timed(),
        vec![(t(1), 0), (t(1), 10), (t(1), 11), (t(2), 1), (t(2), 12)]
    );
    // With nothing scheduled, `step_until` applies input at its end.
    injector.send(&input, 13).unwrap();
    simu.step_until(t(5)).unwrap();
    assert_eq!(log.timed().last(), Some(&(t(5), 13)));
}

#[test]
fn input_from_many_threads_is_all_applied_each_threads_in_its_order() {
    let log = Log::new();
    let (input, init) = recorder_bench(&log);
    let mut simu = start(init.with_tick(ms(1)));
    let injector = simu.injector();
    let senders: Vec<_> = (0..4u32)
        .map(|thread| {
            let injector = injector.clone();
            let input = input.clone();
            std::thread::spawn(move || {
                for i in 0..250 {
                    injector.send(&input, thread * 1_000 + i).unwrap();
                }
            })
        })
        .collect();
    // Tick until every input has been applied (bounded: 10 simulated
    // seconds of 1 ms ticks).
    let mut steps = 0;
    while log.len() < 1_000 && steps < 10_000 {
        simu.step().unwrap();
        steps += 1;
    }
    for sender in senders {
        sender.join().unwrap();
    }
    simu.step().unwrap();
    assert_each_threads_input_in_order(&log.values_of("rec"), 4, 250);
}

/// Checks that `values` holds the `per_thread` values of each of `threads`
/// injecting threads (thread `n` sent `n * 1000 + i`, `i` from 0), each
/// thread's in the order it sent them.
fn assert_each_threads_input_in_order(values: &[u32], threads: u32, per_thread: u32) {
    assert_eq!(values.len(), (threads * per_thread) as usize, "input lost");
    for thread in 0..threads {
        let own: Vec<u32> = values
            .iter()
            .copied()
            .filter(|v| v / 1_000 == thread)
            .collect();
        let expected: Vec<u32> = (0..per_thread).map(|i| thread * 1_000 + i).collect();
        assert_eq!(own, expected, "thread {thread}'s input out of order");
    }
}

#[test]
fn threads_sharing_one_injector_by_reference_have_all_input_applied_each_in_its_order() {
    let log = Log::new();
    let (input, init) = recorder_bench(&log);
    let mut simu = start(init.with_tick(ms(1)));
    // One injector and one port, borrowed by every thread: no clones.
    let injector = simu.injector();
    let (injector, input) = (&injector, &input);
    std::thread::scope(|scope| {
        let senders: Vec<_> = (0..4u32)
            .map(|thread| {
                scope.spawn(move || {
                    for i in 0..250 {
                        injector.send(input, thread * 1_000 + i).unwrap();
                    }
                })
            })
            .collect();
        // Step while they inject.
        while senders.iter().any(|sender| !sender.is_finished()) {
            simu.step().unwrap();
        }
    });
    simu.step().unwrap();
    assert_each_threads_input_in_order(&log.values_of("rec"), 4, 250);
}

#[test]
fn injected_queries_get_their_reply() {
    let mailbox = Mailbox::new();
    let square = ReplierRef::new(Replier::<u32, u32>::ports().reply, &mailbox);
    let mut simu = start(sim_init().add_model(Replier::new(|x: u32| x * x), mailbox, "square"));
    let injector = simu.injector();
    let mut pending = injector.query(&square, 12).unwrap();
    assert_eq!(pending.try_take(), None, "not applied before a step");
    let asker = std::thread::spawn(move || pending.wait_timeout(Duration::from_secs(10)));
    simu.step_until(t(1)).unwrap();
    assert_eq!(asker.join().unwrap(), Ok(144));
}

#[test]
fn injection_errors_name_the_port_and_a_dropped_simulation_refuses_input() {
    let log = Log::<u32>::new();
    let (input, init) = recorder_bench(&log);
    let mut simu = start(init);
    let injector = simu.injector();

    let never_added = Mailbox::<Recorder<u32>>::new();
    let stray = InputRef::new(Recorder::ports().input, &never_added);
    let error = injector.send(&stray, 1).unwrap_err();
    assert_eq!(
        error,
        InjectError::NoRecipient {
            model_type: "Recorder<u32>",
            port: "input",
            kind: PortKind::Input,
        }
    );
    assert_eq!(
        error.to_string(),
        "cannot inject into input `input` of a `Recorder<u32>` whose mailbox was never added to \
         the bench"
    );

    let (other_input, other_init) = recorder_bench(&log);
    let _other = start(other_init.add_model(Forwarder::<u32>::new(), Mailbox::new(), "x"));
    assert!(matches!(
        injector.send(&other_input, 1),
        Err(InjectError::ForeignAddress { model, .. }) if model == "rec"
    ));

    // A query waiting when the simulation goes gets no reply.
    let replier_mailbox = Mailbox::new();
    let replier = ReplierRef::new(Replier::<u32, u32>::ports().reply, &replier_mailbox);
    drop(simu);
    assert_eq!(injector.send(&input, 1), Err(InjectError::SimulationGone));
    let mut simu = start(sim_init().add_model(Replier::new(|x: u32| x), replier_mailbox, "r"));
    let mut pending = simu.injector().query(&replier, 1).unwrap();
    drop(simu);
    assert_eq!(
        pending.wait_timeout(Duration::from_secs(10)),
        Err(ReplyError::NoReply)
    );
}

#[test]
fn a_query_to_a_replier_never_added_is_refused_naming_the_port_and_model_type() {
    let (_, init) = recorder_bench(&Log::new());
    let mut simu = start(init);
    let injector = simu.injector();
    let never_added = Mailbox::<Replier<u32, u32>>::new();
    let stray = ReplierRef::new(Replier::<u32, u32>::ports().reply, &never_added);
    let error = injector.query(&stray, 1).unwrap_err();
    assert_eq!(
        error,
        InjectError::NoRecipient {
            model_type: "Replier<u32, u32>",
            port: "reply",
            kind: PortKind::Replier,
        }
    );
    assert_eq!(
        error.to_string(),
        "cannot inject into replier `reply` of a `Replier<u32, u32>` whose mailbox was never \
         added to the bench"
    );
    // Refused, not queued: the simulation goes on.
    simu.step_until(t(1)).unwrap();
}

#[test]
fn a_query_to_another_benchs_replier_is_refused_naming_its_path() {
    let (_, init) = recorder_bench(&Log::new());
    let mut simu = start(init);
    let injector = simu.injector();
    let other_mailbox = Mailbox::new();
    let other = ReplierRef::new(Replier::<u32, u32>::ports().reply, &other_mailbox);
    let _other = start(sim_init().add_model(Replier::new(|x: u32| x), other_mailbox, "elsewhere"));
    let error = injector.query(&other, 1).unwrap_err();
    assert_eq!(
        error,
        InjectError::ForeignAddress {
            model: "elsewhere".into(),
            model_type: "Replier<u32, u32>",
            port: "reply",
            kind: PortKind::Replier,
        }
    );
    assert_eq!(
        error.to_string(),
        "cannot inject into replier `reply` of model `elsewhere` (Replier<u32, u32>): it belongs \
         to another bench"
    );
}

#[test]
fn a_query_after_the_simulation_is_dropped_is_refused() {
    let mailbox = Mailbox::new();
    let replier = ReplierRef::new(Replier::<u32, u32>::ports().reply, &mailbox);
    let mut simu = start(sim_init().add_model(Replier::new(|x: u32| x), mailbox, "r"));
    let injector = simu.injector();
    drop(simu);
    let error = injector.query(&replier, 1).unwrap_err();
    assert_eq!(error, InjectError::SimulationGone);
    assert_eq!(
        error.to_string(),
        "the simulation was dropped: nothing can be injected into it any more"
    );
}

#[test]
fn real_time_pacing_on_the_system_clock_keeps_time_loosely() {
    // A smoke test with generous bounds: 20 steps of 10 ms at real time
    // take at least 200 ms of wall time, and not ten times more.
    let log = Log::new();
    let (input, init) = recorder_bench(&log);
    let mut simu = start(
        init.with_clock(SystemClock::real_time())
            .with_lateness(Lateness::CatchUp),
    );
    for i in 1..=20u32 {
        simu.scheduler()
            .schedule_event(SimTime::from_millis(u64::from(i) * 10), input.event(i))
            .unwrap();
    }
    let started = std::time::Instant::now();
    simu.run().unwrap();
    let took = started.elapsed();
    assert_eq!(log.len(), 20);
    assert!(took >= ms(195), "{took:?}");
    assert!(took < ms(2_000), "{took:?}");
}

/// A clock of the user's own with a speed that makes no sense.
struct Broken(f64);

impl Clock for Broken {
    fn now(&self) -> Duration {
        Duration::ZERO
    }

    fn sleep_until(&self, _: Duration) {}

    fn speed(&self) -> f64 {
        self.0
    }
}

#[test]
fn a_clock_of_the_users_own_with_an_invalid_speed_is_refused_at_init() {
    for speed in [0.0, f64::NAN, -2.0, f64::INFINITY, f64::NEG_INFINITY] {
        let error = sim_init()
            .with_clock(Broken(speed))
            .init(SimTime::ZERO)
            .unwrap_err();
        assert_eq!(error, SimulationError::InvalidSpeed(InvalidSpeed(speed)));
    }
    // A valid but tiny speed puts the next step at the end of time, without
    // a panic: the pacing saturates.
    let log = Log::new();
    let (input, init) = recorder_bench(&log);
    let mut simu = start(init.with_clock(ManualClock::with_speed(1e-12).unwrap()));
    schedule_at(&simu, &input, &[1]);
    simu.step().unwrap();
    assert_eq!(log.len(), 1);
}

#[test]
fn a_time_applies_its_injected_input_once_even_when_a_call_stops_inside_its_step() {
    /// Keeps scheduling itself with zero delay, a set number of times.
    #[model]
    struct Looper {
        left: u32,
    }
    #[model]
    impl Looper {
        #[input]
        fn again(&mut self, _: (), cx: &mut Context<Self>) {
            if self.left > 0 {
                self.left -= 1;
                cx.schedule(ZeroDelay, Self::ports().again, ()).unwrap();
            }
        }
    }
    let applied = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = Log::new();
    let (input, init) = recorder_bench(&log);
    let looper_mailbox = Mailbox::new();
    let again = InputRef::new(Looper::ports().again, &looper_mailbox);
    let mut simu = start(
        init.add_model(Looper { left: 5 }, looper_mailbox, "looper")
            .with_zero_delay_rounds(2)
            .with_input_log({
                let applied = applied.clone();
                move |input| applied.lock().unwrap().push((input.time, input.order))
            }),
    );
    simu.scheduler()
        .schedule_event(t(1), again.event(()))
        .unwrap();
    let injector = simu.injector();
    injector.send(&input, 1).unwrap();
    // The step at 1 s applies the first input, then stops at the limit
    // of zero-delay rounds (not fatal).
    assert!(matches!(
        simu.step(),
        Err(SimulationError::ZeroDelayLimit { .. })
    ));
    injector.send(&input, 2).unwrap();
    // Resuming the step at 1 s applies nothing new: the second input waits
    // for the next time.
    while simu.step().is_err() {}
    simu.step_until(t(2)).unwrap();
    assert_eq!(log.timed(), vec![(t(1), 1), (t(2), 2)]);
    assert_eq!(*applied.lock().unwrap(), vec![(t(1), 0), (t(2), 0)]);
}

#[test]
fn a_failed_simulation_refuses_input_and_its_waiting_queries_get_no_reply() {
    /// Panics on its input, answers its replier.
    #[model]
    struct Fragile {}
    #[model]
    impl Fragile {
        #[input]
        fn hit(&mut self, _: ()) {
            panic!("broken");
        }
        #[replier]
        fn ask(&mut self, x: u32) -> u32 {
            x
        }
    }
    let mailbox = Mailbox::new();
    let hit = InputRef::new(Fragile::ports().hit, &mailbox);
    let ask = ReplierRef::new(Fragile::ports().ask, &mailbox);
    let mut simu = start(sim_init().add_model(Fragile {}, mailbox, "fragile"));
    let injector = simu.injector();
    injector.send(&hit, ()).unwrap();
    let mut waiting = injector.query(&ask, 1).unwrap();
    let error = simu.step_until(t(1)).unwrap_err();
    assert!(error.is_fatal(), "{error:?}");
    assert_eq!(injector.send(&hit, ()), Err(InjectError::SimulationFailed));
    assert_eq!(
        injector.query(&ask, 2).unwrap_err(),
        InjectError::SimulationFailed
    );
    // The query was delivered with the panicking input, in the same step:
    // the step failed, so it gets no reply.
    assert_eq!(
        waiting.wait_timeout(Duration::from_secs(10)),
        Err(ReplyError::NoReply)
    );
    assert_eq!(waiting.try_take(), Some(Err(ReplyError::AlreadyTaken)));
    drop(simu);
    assert_eq!(injector.send(&hit, ()), Err(InjectError::SimulationFailed));
}

#[test]
fn a_timeout_limits_each_paced_step_not_the_waits() {
    let log = Log::new();
    let (input, init) = recorder_bench(&log);
    // A limit of 1 s: far above what a step of a recorder takes, even on
    // a loaded machine, and below each wait.
    let mut simu = start(
        init.with_clock(SystemClock::real_time())
            .with_lateness(Lateness::CatchUp)
            .with_timeout(ms(1_000)),
    );
    simu.scheduler()
        .schedule_event(SimTime::from_millis(1_100), input.event(1))
        .unwrap();
    simu.scheduler()
        .schedule_event(SimTime::from_millis(2_200), input.event(2))
        .unwrap();
    // Two waits of 1.1 s each, longer than the limit, and 2.25 s in all:
    // neither counts, each step is quick.
    let started = std::time::Instant::now();
    simu.step_until(SimTime::from_millis(2_250)).unwrap();
    assert!(started.elapsed() >= ms(2_200), "{:?}", started.elapsed());
    assert_eq!(log.len(), 2);
}

#[test]
fn resync_forgets_the_time_spent_between_calls() {
    let clock = ManualClock::new();
    let (mut simu, work) = worker_bench(&clock, Lateness::Error { tolerance: ms(10) });
    simu.scheduler()
        .schedule_event(t(1), work.event(0))
        .unwrap();
    simu.scheduler()
        .schedule_event(t(2), work.event(0))
        .unwrap();
    simu.step().unwrap();
    // A pause of 5 s between calls: late, unless forgotten.
    clock.advance(Duration::from_secs(5));
    simu.resync_clock();
    simu.step().unwrap();
    assert_eq!(simu.time(), t(2));
    assert_eq!(clock.sleeps().last(), Some(&(ms(6_000), ms(7_000))));
}

#[test]
fn waiting_for_a_reply_without_limit_by_duration_max_does_not_panic() {
    let mailbox = Mailbox::new();
    let square = ReplierRef::new(Replier::<u32, u32>::ports().reply, &mailbox);
    let mut simu = start(sim_init().add_model(Replier::new(|x: u32| x * x), mailbox, "square"));
    let mut pending = simu.injector().query(&square, 3).unwrap();
    let asker = std::thread::spawn(move || pending.wait_timeout(Duration::MAX));
    simu.step_until(t(1)).unwrap();
    assert_eq!(asker.join().unwrap(), Ok(9));
}

#[test]
fn a_system_clock_deadline_too_far_to_be_a_point_in_time_is_never() {
    // A very slow clock's next step: waited for, never reached, no panic.
    let sleeper = std::thread::spawn(|| SystemClock::real_time().sleep_until(Duration::MAX));
    std::thread::sleep(Duration::from_millis(50));
    assert!(!sleeper.is_finished(), "the wait returned or panicked");
    // A slow clock accepted by `with_speed` paces a step to a far
    // deadline the same way.
    let mailbox = Mailbox::new();
    let address = mailbox.address();
    let log = Log::new();
    let mut simu = start(
        sim_init()
            .with_clock(SystemClock::with_speed(1e-20).unwrap())
            .add_model(Recorder::new(&log), mailbox, "lamp"),
    );
    let scheduler = simu.scheduler();
    scheduler
        .schedule(t(1), Recorder::ports().input, 7u32, &address)
        .unwrap();
    let stepper = std::thread::spawn(move || {
        let _ = simu.step();
    });
    std::thread::sleep(Duration::from_millis(50));
    assert!(
        !stepper.is_finished(),
        "the paced step returned or panicked"
    );
    assert!(
        log.entries().is_empty(),
        "the event is not due yet in wall time"
    );
}
