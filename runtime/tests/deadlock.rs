//! Real deadlocks are reported, by model name, with what each blocked
//! model waits for; the simulation then refuses every later call with the
//! same error, at once, instead of hanging.

mod common;
use common::*;

use causim::simulation::{BlockedModel, WaitingFor};

/// Asks its own replier: a reply that can never come.
#[model]
struct Narcissus {
    req: Requestor<(), u32>,
}

#[model]
impl Narcissus {
    #[input]
    async fn go(&mut self, _: (), _cx: &mut Context<Self>) {
        let _ = self.req.send(()).await.count();
    }

    #[replier]
    async fn value(&mut self, _: (), _cx: &mut Context<Self>) -> u32 {
        1
    }
}

fn narcissus_bench() -> (Simulation, Address<Narcissus>) {
    let mbox = Mailbox::new();
    let addr = mbox.address();
    let mut model = Narcissus {
        req: Requestor::new(),
    };
    model.req.connect(Narcissus::ports().value, &mbox);
    let simu = start(sim_init().add_model(model, mbox, "narcissus"));
    (simu, addr)
}

fn models_of(error: &SimulationError) -> Vec<BlockedModel> {
    match error {
        SimulationError::Deadlock { models, .. } => models.clone(),
        other => panic!("expected a deadlock, got {other:?}"),
    }
}

/// Every later call returns `expected` again, immediately.
fn assert_stays_failed(simu: &mut Simulation, expected: &SimulationError) {
    let started = std::time::Instant::now();
    assert_eq!(simu.step().as_ref(), Err(expected));
    assert_eq!(simu.run().as_ref(), Err(expected));
    assert_eq!(simu.step_until(t(100)).as_ref(), Err(expected));
    assert_eq!(simu.step_by(secs(1)).as_ref(), Err(expected));
    let source = EventSource::<u32>::new();
    assert_eq!(simu.process(source.event(1)).as_ref(), Err(expected));
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn model_requesting_from_itself_is_a_deadlock() {
    let (mut simu, addr) = narcissus_bench();
    let error = simu
        .process_event(Narcissus::ports().go, (), &addr)
        .unwrap_err();
    assert!(error.is_fatal());
    assert_eq!(
        models_of(&error),
        vec![BlockedModel {
            model: "narcissus".into(),
            model_type: "Narcissus",
            pending_messages: 1, // its own request, never taken
            waiting_for: WaitingFor::Reply {
                from: "narcissus".into()
            },
        }]
    );
    let text = error.to_string();
    assert!(text.contains("narcissus"), "{text}");
    assert!(text.contains("reply"), "{text}");

    assert_stays_failed(&mut simu, &error);
    assert_eq!(
        simu.process_event(Narcissus::ports().go, (), &addr)
            .as_ref(),
        Err(&error)
    );
    assert_eq!(
        simu.process_query(Narcissus::ports().value, (), &addr),
        Err(error)
    );
}

#[test]
fn scheduled_self_request_is_a_deadlock_at_its_time() {
    let (mut simu, addr) = narcissus_bench();
    simu.scheduler()
        .schedule(t(3), Narcissus::ports().go, (), &addr)
        .unwrap();
    let error = simu.run().unwrap_err();
    assert!(matches!(error, SimulationError::Deadlock { time, .. } if time == t(3)));
    assert_stays_failed(&mut simu, &error);
}

#[test]
fn two_models_requesting_each_other_is_a_deadlock() {
    let (ping_mbox, pong_mbox) = (Mailbox::new(), Mailbox::new());
    let mut ping = Mutual {
        req: Requestor::new(),
    };
    let mut pong = Mutual {
        req: Requestor::new(),
    };
    ping.req.connect(Mutual::ports().ask, &pong_mbox);
    pong.req.connect(Mutual::ports().ask, &ping_mbox);
    let addr = ping_mbox.address();
    let mut simu = start(
        sim_init()
            .add_model(ping, ping_mbox, "ping")
            .add_model(pong, pong_mbox, "pong"),
    );

    let error = simu
        .process_event(Mutual::ports().go, 0, &addr)
        .unwrap_err();
    let mut blocked = models_of(&error);
    blocked.sort_by(|a, b| a.model.cmp(&b.model));
    assert_eq!(blocked.len(), 2, "{blocked:?}");
    assert_eq!(blocked[0].model, "ping");
    assert_eq!(blocked[0].model_type, "Mutual");
    assert_eq!(
        blocked[0].waiting_for,
        WaitingFor::Reply {
            from: "pong".into()
        }
    );
    assert_eq!(blocked[0].pending_messages, 1); // pong's request
    assert_eq!(blocked[1].model, "pong");
    assert_eq!(
        blocked[1].waiting_for,
        WaitingFor::Reply {
            from: "ping".into()
        }
    );
    assert_eq!(blocked[1].pending_messages, 0);
    assert_stays_failed(&mut simu, &error);
}

#[test]
fn bench_query_into_a_self_requesting_replier_is_a_deadlock() {
    /// A replier that asks itself before answering.
    #[model]
    struct Loop {
        req: Requestor<(), u32>,
    }
    #[model]
    impl Loop {
        #[replier]
        async fn value(&mut self, _: (), _cx: &mut Context<Self>) -> u32 {
            self.req.send(()).await.sum()
        }
    }

    let mbox = Mailbox::new();
    let addr = mbox.address();
    let mut model = Loop {
        req: Requestor::new(),
    };
    model.req.connect(Loop::ports().value, &mbox);
    let mut simu = start(sim_init().add_model(model, mbox, "loop"));
    let error = simu
        .process_query(Loop::ports().value, (), &addr)
        .unwrap_err();
    let blocked = models_of(&error);
    let of_loop = blocked.iter().find(|b| b.model == "loop").unwrap();
    assert_eq!(
        of_loop.waiting_for,
        WaitingFor::Reply {
            from: "loop".into()
        }
    );
    // The bench's own query is blocked too, waiting for `loop`.
    let of_bench = blocked.iter().find(|b| b.model == "bench").unwrap();
    assert_eq!(
        of_bench.waiting_for,
        WaitingFor::Reply {
            from: "loop".into()
        }
    );
    assert_stays_failed(&mut simu, &error);
}

/// On each message, sends three to its peer: with capacity-1 mailboxes the
/// two soon wait on each other's full mailbox.
#[model]
struct Burst {
    out: Output<u32>,
}

#[model]
impl Burst {
    #[input]
    async fn input(&mut self, n: u32, _cx: &mut Context<Self>) {
        for i in 0..3 {
            self.out.send(n * 3 + i).await;
        }
    }
}

/// Two bursts sending to each other's capacity-1 mailbox: `(a, a's
/// mailbox, b, b's mailbox)`.
fn burst_pair() -> (Burst, Mailbox<Burst>, Burst, Mailbox<Burst>) {
    let (a_mbox, b_mbox) = (Mailbox::with_capacity(1), Mailbox::with_capacity(1));
    assert_eq!(a_mbox.capacity(), 1);
    let mut a = Burst { out: Output::new() };
    let mut b = Burst { out: Output::new() };
    a.out.connect(Burst::ports().input, &b_mbox);
    b.out.connect(Burst::ports().input, &a_mbox);
    (a, a_mbox, b, b_mbox)
}

#[test]
fn full_mailboxes_in_a_cycle_are_a_deadlock() {
    let (a, a_mbox, b, b_mbox) = burst_pair();
    let addr = a_mbox.address();
    let mut simu = start(
        sim_init()
            .add_model(a, a_mbox, "a")
            .add_model(b, b_mbox, "b"),
    );

    let error = simu
        .process_event(Burst::ports().input, 0, &addr)
        .unwrap_err();
    let mut blocked = models_of(&error);
    blocked.sort_by(|x, y| x.model.cmp(&y.model));
    assert_eq!(blocked.len(), 2, "{blocked:?}");
    assert_eq!(blocked[0].model, "a");
    assert_eq!(
        blocked[0].waiting_for,
        WaitingFor::MailboxSpace { of: "b".into() }
    );
    assert_eq!(blocked[0].pending_messages, 1);
    assert_eq!(blocked[1].model, "b");
    assert_eq!(
        blocked[1].waiting_for,
        WaitingFor::MailboxSpace { of: "a".into() }
    );
    assert_eq!(blocked[1].pending_messages, 1);
    assert!(error.to_string().contains("full mailbox"), "{error}");
    assert_stays_failed(&mut simu, &error);
}

#[test]
fn a_deadlock_on_mailbox_space_names_the_models_by_path() {
    let (a, a_mbox, b, b_mbox) = burst_pair();
    let addr = a_mbox.address();
    let mut simu = start(
        sim_init()
            .add_composite(Nest::new(Wrap::with_mailbox(a, a_mbox, "a"), "in"), "left")
            .add_composite(Wrap::with_mailbox(b, b_mbox, "b"), "right"),
    );

    let error = simu
        .process_event(Burst::ports().input, 0, &addr)
        .unwrap_err();
    let mut blocked: Vec<_> = models_of(&error)
        .into_iter()
        .map(|m| (m.model, m.waiting_for))
        .collect();
    blocked.sort_by(|x, y| x.0.cmp(&y.0));
    assert_eq!(
        blocked,
        [
            (
                "left/in/a".to_string(),
                WaitingFor::MailboxSpace {
                    of: "right/b".into()
                }
            ),
            (
                "right/b".to_string(),
                WaitingFor::MailboxSpace {
                    of: "left/in/a".into()
                }
            ),
        ]
    );
    assert!(
        error
            .to_string()
            .contains("`left/in/a` (Burst) waits for room in the full mailbox of `right/b`"),
        "{error}"
    );
}

#[test]
fn zero_capacity_mailbox_holds_one_message() {
    // `with_capacity(0)` is documented as "at least one": a chain through
    // such mailboxes still works.
    let log = Log::new();
    let mut source = EventSource::<u32>::new();
    let mbox = Mailbox::with_capacity(0);
    assert_eq!(mbox.capacity(), 1);
    source.connect(Recorder::ports().input, &mbox);
    let mut simu = start(sim_init().add_model(Recorder::new(&log), mbox, "r"));
    for i in 0..3 {
        simu.process(source.event(i)).unwrap();
    }
    assert_eq!(log.values_of("r"), vec![0, 1, 2]);
}

/// Sends `n` messages to itself while handling one.
#[model]
struct SelfFeeder {
    out: Output<u32>,
}

#[model]
impl SelfFeeder {
    #[input]
    async fn input(&mut self, n: u32, _cx: &mut Context<Self>) {
        for _ in 0..n {
            self.out.send(0).await;
        }
    }
}

#[test]
fn model_waiting_on_its_own_full_mailbox_is_a_deadlock() {
    let mbox = Mailbox::with_capacity(2);
    let addr = mbox.address();
    let mut model = SelfFeeder { out: Output::new() };
    model.out.connect(SelfFeeder::ports().input, &mbox);
    let mut simu = start(sim_init().add_model(model, mbox, "feeder"));
    // Two fit in its own mailbox; the third can never.
    let error = simu
        .process_event(SelfFeeder::ports().input, 3, &addr)
        .unwrap_err();
    assert_eq!(
        models_of(&error),
        vec![BlockedModel {
            model: "feeder".into(),
            model_type: "SelfFeeder",
            pending_messages: 2,
            waiting_for: WaitingFor::MailboxSpace {
                of: "feeder".into()
            },
        }]
    );
    assert_stays_failed(&mut simu, &error);
}
