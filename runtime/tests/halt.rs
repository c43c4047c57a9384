//! Halting: `Context::halt` (from a model) and `Scheduler::halt` (from the
//! bench) make the running call return `SimulationError::Halted` once the
//! current time step is complete; the simulation can then be resumed.

mod common;
use common::*;

/// Records ticks; halts the simulation when it receives `halt_at`.
#[model]
struct Halter {
    log: Log<u32>,
    out: Output<u32>,
    halt_on: u32,
}

#[model]
impl Halter {
    #[input]
    async fn tick(&mut self, n: u32, cx: &mut Context<Self>) {
        self.log.push(cx.name(), cx.time(), n);
        if n == self.halt_on {
            cx.halt();
        }
        // Messages caused in the halting step are still processed in it.
        self.out.send(n).await;
    }
}

struct Bench {
    simu: Simulation,
    halter: Address<Halter>,
    log: Log<u32>,
    echoes: Log<u32>,
}

fn bench(halt_on: u32) -> Bench {
    let log = Log::new();
    let echoes = Log::new();
    let mut halter = Halter {
        log: log.clone(),
        out: Output::new(),
        halt_on,
    };
    let echo = Mailbox::new();
    halter.out.connect(Recorder::ports().input, &echo);
    let mbox = Mailbox::new();
    let addr = mbox.address();
    let simu = start(sim_init().add_model(halter, mbox, "halter").add_model(
        Recorder::new(&echoes),
        echo,
        "echo",
    ));
    let scheduler = simu.scheduler();
    for s in 1..=5u32 {
        scheduler
            .schedule(t(u64::from(s)), Halter::ports().tick, s, &addr)
            .unwrap();
    }
    Bench {
        simu,
        halter: addr,
        log,
        echoes,
    }
}

#[test]
fn model_halt_stops_run_after_the_step_and_run_resumes() {
    let mut b = bench(2);
    // A second event at t=2, scheduled after the halting one: same step.
    b.simu
        .scheduler()
        .schedule(t(2), Halter::ports().tick, 20, &b.halter)
        .unwrap();

    let error = b.simu.run().unwrap_err();
    assert_eq!(error, SimulationError::Halted { time: t(2) });
    assert!(!error.is_fatal());
    assert_eq!(b.simu.time(), t(2));
    // The whole t=2 step was processed, including the messages it caused.
    assert_eq!(b.log.timed(), vec![(t(1), 1), (t(2), 2), (t(2), 20)]);
    assert_eq!(b.echoes.values_of("echo"), vec![1, 2, 20]);
    assert_eq!(b.simu.next_event_time(), Some(t(3)));

    // Resume: the halt request was consumed.
    b.simu.run().unwrap();
    assert_eq!(b.log.values_of("halter"), vec![1, 2, 20, 3, 4, 5]);
    assert_eq!(b.simu.time(), t(5));
}

#[test]
fn model_halt_stops_step_until_which_can_resume() {
    let mut b = bench(3);
    let error = b.simu.step_until(t(10)).unwrap_err();
    assert_eq!(error, SimulationError::Halted { time: t(3) });
    assert_eq!(b.simu.time(), t(3));
    b.simu.step_until(t(10)).unwrap();
    assert_eq!(b.simu.time(), t(10));
    assert_eq!(b.log.values_of("halter"), vec![1, 2, 3, 4, 5]);
}

#[test]
fn model_halt_during_process_event() {
    let mut b = bench(99);
    let error = b
        .simu
        .process_event(Halter::ports().tick, 99, &b.halter)
        .unwrap_err();
    assert_eq!(
        error,
        SimulationError::Halted {
            time: SimTime::ZERO
        }
    );
    assert_eq!(b.echoes.values_of("echo"), vec![99]);
    // Usable again.
    b.simu
        .process_event(Halter::ports().tick, 7, &b.halter)
        .unwrap();
    b.simu.step().unwrap();
    assert_eq!(b.log.values_of("halter"), vec![99, 7, 1]);
}

#[test]
fn scheduler_halt_stops_after_one_step_and_run_resumes() {
    let mut b = bench(0);
    let scheduler = b.simu.scheduler();
    scheduler.halt();
    let error = b.simu.run().unwrap_err();
    assert_eq!(error, SimulationError::Halted { time: t(1) });
    assert_eq!(b.log.values_of("halter"), vec![1]);

    // A clone of the handle halts the same simulation.
    scheduler.clone().halt();
    assert_eq!(
        b.simu.step_until(t(4)),
        Err(SimulationError::Halted { time: t(2) })
    );
    b.simu.run().unwrap();
    assert_eq!(b.log.values_of("halter"), vec![1, 2, 3, 4, 5]);
}

#[test]
fn scheduler_halt_from_another_thread() {
    let mut b = bench(0);
    let scheduler = b.simu.scheduler();
    std::thread::spawn(move || scheduler.halt()).join().unwrap();
    assert_eq!(b.simu.step(), Err(SimulationError::Halted { time: t(1) }));
    b.simu.step().unwrap();
    assert_eq!(b.simu.time(), t(2));
}

/// Answers each query with how many it has answered; halts the simulation
/// on the queries whose count is in `halt_on`.
#[model]
struct Counter {
    count: u32,
    halt_on: Vec<u32>,
}

#[model]
impl Counter {
    #[replier]
    fn next(&mut self, _: (), cx: &mut Context<Self>) -> u32 {
        self.count += 1;
        if self.halt_on.contains(&self.count) {
            cx.halt();
        }
        self.count
    }

    #[input]
    fn tick(&mut self) {}
}

#[test]
fn a_query_that_halts_returns_its_reply_and_the_next_call_reports_the_halt() {
    let mailbox = Mailbox::new();
    let address = mailbox.address();
    let mut source = QuerySource::<(), u32>::new();
    source.connect(Counter::ports().next, &mailbox);
    let counter = Counter {
        count: 0,
        halt_on: vec![2, 4],
    };
    let mut simu = start(sim_init().add_model(counter, mailbox, "counter"));
    let halted = SimulationError::Halted { time: t(0) };

    assert_eq!(simu.process_query_from(&mut source, ()), Ok(vec![1]));
    // The query during which the model halts gets its reply, and the
    // source keeps its connection.
    assert_eq!(simu.process_query_from(&mut source, ()), Ok(vec![2]));
    assert!(source.is_connected());
    // The next call reports the halt before running anything (the replier
    // is not asked), once.
    assert_eq!(
        simu.process_query_from(&mut source, ()),
        Err(halted.clone())
    );
    assert_eq!(simu.process_query_from(&mut source, ()), Ok(vec![3]));

    // The same through `process_query`; a step reports the halt without
    // moving the clock to the scheduled event.
    simu.scheduler()
        .schedule(t(5), Counter::ports().tick, (), &address)
        .unwrap();
    assert_eq!(
        simu.process_query(Counter::ports().next, (), &address),
        Ok(4)
    );
    assert_eq!(simu.step(), Err(halted));
    assert_eq!(simu.time(), t(0));
    assert_eq!(
        simu.process_query(Counter::ports().next, (), &address),
        Ok(5)
    );
    simu.step().unwrap();
    assert_eq!(simu.time(), t(5));
}

/// Halts at every query and notes it on an output.
#[model]
struct NotingHalter {
    note: Output<u32>,
}

#[model]
impl NotingHalter {
    #[replier]
    async fn ask(&mut self, x: u32, cx: &mut Context<Self>) -> u32 {
        cx.halt();
        self.note.send(x).await;
        x
    }

    #[input]
    fn tick(&mut self) {}
}

#[test]
fn a_query_that_halts_and_fails_leaves_the_halt_to_the_next_call() {
    // The note goes to a mailbox never added: the query's call fails.
    let orphan: Mailbox<Recorder<u32>> = Mailbox::new();
    let mut halter = NotingHalter {
        note: Output::new(),
    };
    halter.note.connect(Recorder::ports().input, &orphan);
    let mailbox = Mailbox::new();
    let address = mailbox.address();
    let mut simu = start(sim_init().add_model(halter, mailbox, "halter"));
    simu.scheduler()
        .schedule(t(5), NotingHalter::ports().tick, (), &address)
        .unwrap();
    let error = simu.process_query(NotingHalter::ports().ask, 1, &address);
    assert!(
        matches!(error, Err(SimulationError::NoRecipient { .. })),
        "{error:?}"
    );
    // The halt is reported before the next step runs.
    assert_eq!(simu.step(), Err(SimulationError::Halted { time: t(0) }));
    assert_eq!(simu.time(), t(0));
    simu.step().unwrap();
    assert_eq!(simu.time(), t(5));
}

#[test]
fn a_cleared_halt_is_not_reported() {
    let mailbox = Mailbox::new();
    let address = mailbox.address();
    let counter = Counter {
        count: 0,
        halt_on: vec![1],
    };
    let mut simu = start(sim_init().add_model(counter, mailbox, "counter"));
    simu.scheduler()
        .schedule(t(5), Counter::ports().tick, (), &address)
        .unwrap();
    // Deferred by a query, or asked from the bench: cleared either way.
    assert_eq!(
        simu.process_query(Counter::ports().next, (), &address),
        Ok(1)
    );
    assert!(simu.clear_halt());
    assert!(!simu.clear_halt(), "cleared once");
    simu.scheduler().halt();
    assert!(simu.clear_halt());
    simu.step().unwrap();
    assert_eq!(simu.time(), t(5));
}
