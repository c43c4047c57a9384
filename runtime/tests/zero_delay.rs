//! Zero-delay events (`ZeroDelay`): an event for the current time,
//! delivered once every message caused so far at that time has been
//! processed, in rounds bounded by `SimInit::with_zero_delay_rounds`.

mod common;
use common::*;

/// Relays what it gets on `out`, logs it, and on `plan` schedules a
/// zero-delay `act` on itself (`keyed`: cancellable by `cancel`).
#[model]
struct Actor {
    out: Output<String>,
    log: Log<String>,
    /// Zero-delay rounds it still chains after each `act` (`u32::MAX`:
    /// forever).
    chain: u32,
    /// Schedules a zero-delay `act` from its init hook.
    act_on_init: bool,
    key: Option<EventKey>,
}

#[model]
impl Actor {
    fn new(log: &Log<String>) -> Self {
        Actor {
            out: Output::new(),
            log: log.clone(),
            chain: 0,
            act_on_init: false,
            key: None,
        }
    }

    #[input]
    async fn relay(&mut self, value: String, cx: &mut Context<Self>) {
        self.log.push(cx.name(), cx.time(), value.clone());
        self.out.send(value).await;
    }

    #[input]
    fn plan(&mut self, label: String, cx: &mut Context<Self>) {
        cx.schedule(ZeroDelay, Self::ports().act, label).unwrap();
    }

    #[input]
    fn plan_keyed(&mut self, label: String, cx: &mut Context<Self>) {
        self.key = Some(
            cx.schedule_keyed(ZeroDelay, Self::ports().act, label)
                .unwrap(),
        );
    }

    #[input]
    fn cancel(&mut self, _: ()) {
        if let Some(key) = self.key.take() {
            key.cancel();
        }
    }

    #[input]
    async fn act(&mut self, label: String, cx: &mut Context<Self>) {
        self.log.push(cx.name(), cx.time(), label.clone());
        if self.chain > 0 {
            if self.chain != u32::MAX {
                self.chain -= 1;
            }
            cx.schedule(ZeroDelay, Self::ports().act, label).unwrap();
        }
    }

    /// Answers 7 and plans a zero-delay `act`.
    #[replier]
    fn ask(&mut self, label: String, cx: &mut Context<Self>) -> u32 {
        cx.schedule(ZeroDelay, Self::ports().act, label).unwrap();
        7
    }

    #[init]
    fn start(&mut self, cx: &mut Context<Self>) {
        if self.act_on_init {
            cx.schedule(ZeroDelay, Self::ports().act, "from init".to_string())
                .unwrap();
        }
    }
}

/// A bench of `actor` alone, named `name`, and its address.
fn alone(init: SimInit, actor: Actor, name: &str) -> (Simulation, Address<Actor>) {
    let mailbox = Mailbox::new();
    let address = mailbox.address();
    (start(init.add_model(actor, mailbox, name)), address)
}

/// A chain `a` → `b` → `c` of relays, each logging.
fn chain(log: &Log<String>) -> (Simulation, [Address<Actor>; 3]) {
    let mailboxes: [Mailbox<Actor>; 3] = [Mailbox::new(), Mailbox::new(), Mailbox::new()];
    let addresses = [0, 1, 2].map(|i| mailboxes[i].address());
    let mut actors = [Actor::new(log), Actor::new(log), Actor::new(log)];
    actors[0].out.connect(Actor::ports().relay, &addresses[1]);
    actors[1].out.connect(Actor::ports().relay, &addresses[2]);
    let mut init = sim_init();
    for ((actor, mailbox), name) in actors.into_iter().zip(mailboxes).zip(["a", "b", "c"]) {
        init = init.add_model(actor, mailbox, name);
    }
    (start(init), addresses)
}

#[test]
fn a_zero_delay_event_comes_after_every_message_caused_at_its_time() {
    let log = Log::new();
    let (mut simu, [a, _, _]) = chain(&log);
    let scheduler = simu.scheduler();
    scheduler
        .schedule(t(1), Actor::ports().plan, "after".to_string(), &a)
        .unwrap();
    scheduler
        .schedule(t(1), Actor::ports().relay, "hop".to_string(), &a)
        .unwrap();
    simu.step().unwrap();
    assert_eq!(simu.time(), t(1), "the same time step");
    assert_eq!(
        log.pairs(),
        vec![
            ("a".to_string(), "hop".to_string()),
            ("b".to_string(), "hop".to_string()),
            ("c".to_string(), "hop".to_string()),
            ("a".to_string(), "after".to_string()),
        ]
    );
    assert!(log.timed().iter().all(|(time, _)| *time == t(1)));
}

/// Zero-delay events of several models reach one mailbox in the same-time
/// order: the models' add order, each in its scheduling order.
#[test]
fn zero_delay_events_are_delivered_in_the_same_time_order() {
    let log = Log::new();
    let (mut simu, addresses) = chain(&log);
    let scheduler = simu.scheduler();
    // Planned in reverse add order, each twice.
    for (i, address) in addresses.iter().enumerate().rev() {
        for n in 0..2 {
            scheduler
                .schedule(t(1), Actor::ports().plan, format!("{i}.{n}"), address)
                .unwrap();
        }
    }
    simu.step().unwrap();
    let acts: Vec<String> = log
        .values_of("a")
        .into_iter()
        .chain(log.values_of("b"))
        .chain(log.values_of("c"))
        .collect();
    assert_eq!(acts, ["0.0", "0.1", "1.0", "1.1", "2.0", "2.1"]);
}

#[test]
fn rounds_chain_within_one_step_without_moving_the_clock() {
    let log = Log::new();
    let mut actor = Actor::new(&log);
    actor.chain = 4;
    let (mut simu, address) = alone(sim_init(), actor, "x");
    simu.scheduler()
        .schedule(t(2), Actor::ports().plan, "r".to_string(), &address)
        .unwrap();
    simu.scheduler()
        .schedule(t(3), Actor::ports().relay, "later".to_string(), &address)
        .unwrap();
    simu.step().unwrap();
    assert_eq!(simu.time(), t(2));
    assert_eq!(log.values_of("x"), vec!["r"; 5]);
    simu.step().unwrap();
    assert_eq!(log.timed().last(), Some(&(t(3), "later".to_string())));
}

#[test]
fn a_zero_delay_limit_names_the_models_by_path() {
    let log = Log::new();
    let mut actor = Actor::new(&log);
    actor.chain = u32::MAX;
    let looper = Wrap::new(actor, "looper");
    let address = looper.address();
    let mut simu = start(
        sim_init()
            .with_zero_delay_rounds(10)
            .add_composite(Nest::new(looper, "ctl"), "sys"),
    );
    simu.scheduler()
        .schedule(t(1), Actor::ports().plan, "spin".to_string(), &address)
        .unwrap();
    let error = simu.step().unwrap_err();
    let SimulationError::ZeroDelayLimit { pending, .. } = &error else {
        panic!("expected ZeroDelayLimit, got {error:?}");
    };
    assert_eq!(pending.len(), 1);
    assert!(
        pending[0].contains("model `sys/ctl/looper`"),
        "{}",
        pending[0]
    );
    assert!(error.to_string().contains("`sys/ctl/looper`"), "{error}");
}

#[test]
fn a_zero_delay_loop_stops_at_the_limit_and_loses_nothing() {
    let log = Log::new();
    let mut actor = Actor::new(&log);
    actor.chain = u32::MAX;
    let (mut simu, address) = alone(sim_init().with_zero_delay_rounds(10), actor, "looper");
    simu.scheduler()
        .schedule(t(1), Actor::ports().plan, "spin".to_string(), &address)
        .unwrap();
    let error = simu.step().unwrap_err();
    let SimulationError::ZeroDelayLimit {
        time,
        rounds,
        pending,
    } = &error
    else {
        panic!("expected ZeroDelayLimit, got {error:?}");
    };
    assert_eq!((*time, *rounds), (t(1), 10));
    assert_eq!(pending.len(), 1);
    assert!(
        pending[0].contains("`looper`") && pending[0].contains("`act`"),
        "{}",
        pending[0]
    );
    assert!(error.to_string().contains("zero-delay"), "{error}");
    // Ten rounds ran; the event still due is queued, at the same time.
    assert_eq!(log.len(), 10);
    assert_eq!(simu.next_event_time(), Some(t(1)));
    // Not fatal: the next call resumes, with a fresh count.
    assert!(matches!(
        simu.step(),
        Err(SimulationError::ZeroDelayLimit { .. })
    ));
    assert_eq!(log.len(), 21, "the one left over, then ten more rounds");
    assert_eq!(simu.time(), t(1));
}

#[test]
fn the_bench_can_schedule_a_zero_delay_event_but_not_now_otherwise() {
    let log = Log::new();
    let (mut simu, address) = alone(sim_init(), Actor::new(&log), "x");
    simu.step_until(t(5)).unwrap();
    let scheduler = simu.scheduler();
    let relay = Actor::ports().relay;
    assert!(matches!(
        scheduler.schedule(t(5), relay, "now".to_string(), &address),
        Err(SchedulingError::NotInFuture { .. })
    ));
    assert!(matches!(
        scheduler.schedule(Duration::ZERO, relay, "now".to_string(), &address),
        Err(SchedulingError::NotInFuture { .. })
    ));
    scheduler
        .schedule(ZeroDelay, relay, "now".to_string(), &address)
        .unwrap();
    assert_eq!(simu.next_event_time(), Some(t(5)));
    simu.step().unwrap();
    assert_eq!(log.timed(), vec![(t(5), "now".to_string())]);
}

#[test]
fn a_cancelled_zero_delay_event_is_not_delivered() {
    let log = Log::new();
    let (mut simu, address) = alone(sim_init(), Actor::new(&log), "x");
    let scheduler = simu.scheduler();
    scheduler
        .schedule(
            t(1),
            Actor::ports().plan_keyed,
            "cancelled".to_string(),
            &address,
        )
        .unwrap();
    scheduler
        .schedule(t(1), Actor::ports().cancel, (), &address)
        .unwrap();
    simu.step().unwrap();
    assert!(log.values_of("x").is_empty());
    assert_eq!(simu.next_event_time(), None);
}

#[test]
fn process_event_and_init_run_the_zero_delay_rounds_they_cause() {
    let log = Log::new();
    let mut actor = Actor::new(&log);
    actor.act_on_init = true;
    let (mut simu, address) = alone(sim_init(), actor, "x");
    assert_eq!(log.values_of("x"), vec!["from init"]);
    simu.process_event(Actor::ports().plan, "processed".to_string(), &address)
        .unwrap();
    assert_eq!(log.values_of("x"), vec!["from init", "processed"]);
    assert_eq!(simu.time(), SimTime::ZERO);
}

#[test]
fn a_query_runs_the_rounds_it_causes_and_keeps_its_reply_past_the_limit() {
    let log = Log::new();
    let mut actor = Actor::new(&log);
    actor.chain = 2;
    let (mut simu, address) = alone(sim_init(), actor, "x");
    let reply = simu.process_query(Actor::ports().ask, "q".to_string(), &address);
    assert_eq!(reply, Ok(7));
    assert_eq!(
        log.values_of("x"),
        vec!["q"; 3],
        "the act and its two rounds"
    );

    let log = Log::new();
    let mut actor = Actor::new(&log);
    actor.chain = u32::MAX;
    let (mut simu, address) = alone(sim_init().with_zero_delay_rounds(3), actor, "y");
    let reply = simu.process_query(Actor::ports().ask, "spin".to_string(), &address);
    assert_eq!(reply, Ok(7), "the reply is not lost to the limit");
    assert_eq!(log.len(), 3);
    assert_eq!(
        simu.next_event_time(),
        Some(SimTime::ZERO),
        "the rest stays queued"
    );
    assert!(matches!(
        simu.step(),
        Err(SimulationError::ZeroDelayLimit { .. })
    ));
}

#[test]
fn a_periodic_event_can_start_with_zero_delay() {
    let log = Log::new();
    let (mut simu, address) = alone(sim_init(), Actor::new(&log), "x");
    simu.step_until(t(5)).unwrap();
    simu.scheduler()
        .schedule_periodic(
            ZeroDelay,
            secs(1),
            Actor::ports().relay,
            "tick".to_string(),
            &address,
        )
        .unwrap();
    simu.step_until(t(7)).unwrap();
    let times: Vec<SimTime> = log.timed().into_iter().map(|(time, _)| time).collect();
    assert_eq!(times, [t(5), t(6), t(7)]);
}
