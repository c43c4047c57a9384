//! Stepping through simulated time: `step`, `step_until`, `step_by`, `run`
//! and `next_event_time`.

mod common;
use common::*;

fn bench(start_time: SimTime, event_times: &[u64]) -> (Simulation, Log<u32>) {
    let log = Log::new();
    let mbox = Mailbox::new();
    let addr = mbox.address();
    let simu = sim_init()
        .add_model(Recorder::new(&log), mbox, "r")
        .init(start_time)
        .unwrap();
    for (i, &secs) in event_times.iter().enumerate() {
        simu.scheduler()
            .schedule(t(secs), Recorder::ports().input, i as u32, &addr)
            .unwrap();
    }
    (simu, log)
}

#[test]
fn init_sets_the_start_time() {
    let (simu, _) = bench(t(42), &[]);
    assert_eq!(simu.time(), t(42));
    assert_eq!(simu.scheduler().time(), t(42));
    assert_eq!(simu.next_event_time(), None);
}

#[test]
fn step_processes_exactly_the_next_time() {
    let (mut simu, log) = bench(SimTime::ZERO, &[3, 1, 3, 7]);
    assert_eq!(simu.next_event_time(), Some(t(1)));
    simu.step().unwrap();
    assert_eq!(simu.time(), t(1));
    assert_eq!(log.values_of("r"), vec![1]);
    simu.step().unwrap();
    assert_eq!(simu.time(), t(3));
    assert_eq!(log.values_of("r"), vec![1, 0, 2]);
    assert_eq!(simu.next_event_time(), Some(t(7)));
    simu.step().unwrap();
    assert_eq!(simu.time(), t(7));
    // Nothing left: step does nothing.
    assert_eq!(simu.next_event_time(), None);
    simu.step().unwrap();
    assert_eq!(simu.time(), t(7));
    assert_eq!(log.len(), 4);
}

#[test]
fn step_until_processes_up_to_and_including_the_target_and_sets_the_clock() {
    let (mut simu, log) = bench(SimTime::ZERO, &[1, 2, 5, 6]);
    simu.step_until(t(5)).unwrap();
    assert_eq!(simu.time(), t(5));
    assert_eq!(log.timed(), vec![(t(1), 0), (t(2), 1), (t(5), 2)]);
    // A target with no event: the clock still moves there.
    simu.step_until(t(5) + Duration::from_millis(500)).unwrap();
    assert_eq!(simu.time(), t(5) + Duration::from_millis(500));
    assert_eq!(log.len(), 3);
    // The current time is a valid (empty) target.
    let now = simu.time();
    simu.step_until(now).unwrap();
    assert_eq!(simu.time(), now);
    simu.step_until(t(100)).unwrap();
    assert_eq!(simu.time(), t(100));
    assert_eq!(log.len(), 4);
}

#[test]
fn step_until_the_past_is_invalid_time_and_changes_nothing() {
    let (mut simu, log) = bench(t(10), &[11]);
    assert_eq!(
        simu.step_until(t(9)),
        Err(SimulationError::InvalidTime {
            now: t(10),
            requested: t(9)
        })
    );
    assert_eq!(simu.time(), t(10));
    assert_eq!(simu.next_event_time(), Some(t(11)));
    assert_eq!(log.len(), 0);
    // Not fatal.
    simu.run().unwrap();
    assert_eq!(log.len(), 1);
}

#[test]
fn step_by_moves_the_clock_by_the_duration() {
    let (mut simu, log) = bench(t(1), &[2, 4]);
    simu.step_by(secs(2)).unwrap();
    assert_eq!(simu.time(), t(3));
    assert_eq!(log.values_of("r"), vec![0]);
    simu.step_by(secs(1)).unwrap();
    assert_eq!(simu.time(), t(4));
    assert_eq!(log.values_of("r"), vec![0, 1]);
    simu.step_by(Duration::ZERO).unwrap();
    assert_eq!(simu.time(), t(4));
    assert!(matches!(
        simu.step_by(Duration::MAX),
        Err(SimulationError::Scheduling(
            causim::SchedulingError::TimeOverflow { .. }
        ))
    ));
    assert_eq!(simu.time(), t(4));
}

#[test]
fn run_processes_until_nothing_is_scheduled() {
    let (mut simu, log) = bench(SimTime::ZERO, &[5, 1, 9, 3]);
    simu.run().unwrap();
    assert_eq!(simu.time(), t(9));
    assert_eq!(
        log.timed(),
        vec![(t(1), 1), (t(3), 3), (t(5), 0), (t(9), 2)]
    );
    assert_eq!(simu.next_event_time(), None);
    // Nothing to do: run returns at once, the clock stays.
    simu.run().unwrap();
    assert_eq!(simu.time(), t(9));
}

#[test]
fn events_caused_during_a_run_are_run_too() {
    /// Reschedules itself `remaining` more times, one second apart.
    #[model]
    struct Chain {
        log: Log<u32>,
    }
    #[model]
    impl Chain {
        #[input]
        async fn tick(&mut self, remaining: u32, cx: &mut Context<Self>) {
            self.log.push(cx.name(), cx.time(), remaining);
            if remaining > 0 {
                cx.schedule(secs(1), Self::ports().tick, remaining - 1)
                    .unwrap();
            }
        }
    }

    let log = Log::new();
    let mbox = Mailbox::new();
    let addr = mbox.address();
    let mut simu = start(sim_init().add_model(Chain { log: log.clone() }, mbox, "chain"));
    simu.process_event(Chain::ports().tick, 5, &addr).unwrap();
    assert_eq!(simu.next_event_time(), Some(t(1)));
    simu.run().unwrap();
    assert_eq!(simu.time(), t(5));
    assert_eq!(log.values_of("chain"), vec![5, 4, 3, 2, 1, 0]);
}

#[test]
fn process_delivers_at_the_current_time_without_moving_the_clock() {
    let log = Log::new();
    let mbox = Mailbox::new();
    let mut source = EventSource::<u32>::new();
    source.connect(Recorder::ports().input, &mbox);
    let mut simu = sim_init()
        .add_model(Recorder::new(&log), mbox, "r")
        .init(t(3))
        .unwrap();
    simu.scheduler()
        .schedule_event(t(4), source.event(4))
        .unwrap();
    simu.process(source.event(3)).unwrap();
    assert_eq!(simu.time(), t(3));
    assert_eq!(simu.next_event_time(), Some(t(4)));
    simu.step_by(secs(2)).unwrap();
    assert_eq!(simu.time(), t(5));
    assert_eq!(log.timed(), vec![(t(3), 3), (t(4), 4)]);
}
