//! Bench endpoints: event sources (processed now or scheduled), query
//! sources, direct `process_event` / `process_query`, the two sinks
//! (`EventSlot` keeps the latest value, `EventQueue` all of them in order),
//! and messages to a mailbox that was never added to the bench.

mod common;
use common::*;

use causim::model::PortKind;
use causim::SchedulingError;

#[test]
fn event_source_processed_now_and_scheduled() {
    let log = Log::new();
    let (a, b) = (Mailbox::new(), Mailbox::new());
    let mut source = EventSource::<u32>::new();
    assert!(!source.is_connected());
    source.connect(Recorder::ports().input, &a);
    source.connect(Recorder::ports().input, &b);
    assert!(source.is_connected());
    let mut simu = start(sim_init().add_model(Recorder::new(&log), a, "a").add_model(
        Recorder::new(&log),
        b,
        "b",
    ));
    simu.process(source.event(1)).unwrap();
    simu.scheduler()
        .schedule_event(t(3), source.event(3))
        .unwrap();
    simu.scheduler()
        .schedule_event(t(2), source.event(2))
        .unwrap();
    simu.run().unwrap();
    let expected = vec![(SimTime::ZERO, 1), (t(2), 2), (t(3), 3)];
    for model in ["a", "b"] {
        let timed: Vec<_> = log
            .entries()
            .into_iter()
            .filter(|e| e.model == model)
            .map(|e| (e.time, e.value))
            .collect();
        assert_eq!(timed, expected, "{model}");
    }
}

#[test]
fn event_built_before_a_later_connection_keeps_its_connections() {
    // An event captures the source's connections when it is made.
    let log = Log::new();
    let (a, b) = (Mailbox::new(), Mailbox::new());
    let mut source = EventSource::<u32>::new();
    source.connect(Recorder::ports().input, &a);
    let early = source.event(1);
    source.connect(Recorder::ports().input, &b);
    let mut simu = start(sim_init().add_model(Recorder::new(&log), a, "a").add_model(
        Recorder::new(&log),
        b,
        "b",
    ));
    simu.process(early).unwrap();
    simu.process(source.event(2)).unwrap();
    assert_eq!(log.values_of("a"), vec![1, 2]);
    assert_eq!(log.values_of("b"), vec![2]);
}

#[test]
fn query_source_collects_replies_in_connection_order_and_is_reusable() {
    let (r1, r2) = (Mailbox::new(), Mailbox::new());
    let mut query = QuerySource::<u32, u32>::new();
    assert!(!query.is_connected());
    query.connect(Replier::ports().reply, &r1);
    query.connect(Replier::ports().reply, &r2);
    assert!(query.is_connected());
    let mut simu = start(
        sim_init()
            .add_model(Replier::new(|x: u32| x + 1), r1, "plus")
            .add_model(Replier::new(|x: u32| x * 2), r2, "times"),
    );
    assert_eq!(
        simu.process_query_from(&mut query, 10).unwrap(),
        vec![11, 20]
    );
    assert_eq!(simu.process_query_from(&mut query, 3).unwrap(), vec![4, 6]);
    let mut empty = QuerySource::<u32, u32>::new();
    assert_eq!(
        simu.process_query_from(&mut empty, 3).unwrap(),
        Vec::<u32>::new()
    );
}

/// Counts what it receives, answers with the running total.
#[model]
struct Counter {
    total: u64,
    out: Output<u64>,
}

#[model]
impl Counter {
    #[input]
    async fn add(&mut self, n: u64, _cx: &mut Context<Self>) {
        self.total += n;
        self.out.send(self.total).await;
    }

    #[replier]
    async fn read(&mut self, _: (), _cx: &mut Context<Self>) -> u64 {
        self.total
    }
}

#[test]
fn process_event_and_process_query() {
    let mbox = Mailbox::new();
    let addr = mbox.address();
    let mut simu = start(sim_init().add_model(
        Counter {
            total: 0,
            out: Output::new(),
        },
        mbox,
        "counter",
    ));
    simu.process_event(Counter::ports().add, 2, &addr).unwrap();
    simu.process_event(Counter::ports().add, 5, &addr).unwrap();
    assert_eq!(simu.process_query(Counter::ports().read, (), &addr), Ok(7));
    assert_eq!(simu.time(), SimTime::ZERO);
}

#[test]
fn event_slot_keeps_the_latest_value_and_event_queue_keeps_all() {
    let slot = EventSlot::new();
    let queue = EventQueue::new();
    let mut counter = Counter {
        total: 0,
        out: Output::new(),
    };
    counter.out.connect_sink(&slot);
    counter.out.connect_sink(&queue.clone());
    let mbox = Mailbox::new();
    let addr = mbox.address();
    let mut simu = start(sim_init().add_model(counter, mbox, "counter"));

    assert_eq!(slot.take(), None);
    assert!(queue.is_empty());
    for n in [1, 2, 3] {
        simu.process_event(Counter::ports().add, n, &addr).unwrap();
    }
    assert_eq!(slot.peek(), Some(6));
    assert_eq!(slot.clone().take(), Some(6));
    assert_eq!(slot.take(), None);
    assert_eq!(queue.len(), 3);
    assert_eq!(queue.pop(), Some(1));
    assert_eq!(queue.take_all(), vec![3, 6]);
    assert!(queue.is_empty());

    simu.process_event(Counter::ports().add, 4, &addr).unwrap();
    assert_eq!(slot.take(), Some(10));
    assert_eq!(queue.take_all(), vec![10]);
}

// ---------------------------------------------------------------------------
// A mailbox that was never added to the bench
// ---------------------------------------------------------------------------

#[test]
fn bench_message_to_a_mailbox_never_added_is_reported_immediately() {
    let orphan: Mailbox<Counter> = Mailbox::new();
    let log = Log::new();
    let fine = Mailbox::new();
    let fine_addr = fine.address();
    let mut simu = start(sim_init().add_model(Recorder::new(&log), fine, "fine"));

    let expected = SimulationError::NoRecipient {
        sender: None,
        model_type: "Counter",
        port: "add",
        kind: PortKind::Input,
    };
    assert_eq!(
        simu.process_event(Counter::ports().add, 1, &orphan),
        Err(expected.clone())
    );
    assert!(!expected.is_fatal());
    assert_eq!(
        simu.process_query(Counter::ports().read, (), &orphan),
        Err(SimulationError::NoRecipient {
            sender: None,
            model_type: "Counter",
            port: "read",
            kind: PortKind::Replier,
        })
    );
    assert_eq!(
        simu.scheduler()
            .schedule(t(1), Counter::ports().add, 1, &orphan),
        Err(SchedulingError::NoRecipient {
            model_type: "Counter",
            port: "add",
        })
    );
    assert_eq!(simu.next_event_time(), None);

    // Still usable.
    simu.process_event(Recorder::ports().input, 5u32, &fine_addr)
        .unwrap();
    assert_eq!(log.values_of("fine"), vec![5]);
}

#[test]
fn event_source_connected_to_a_mailbox_never_added() {
    let orphan: Mailbox<Recorder<u32>> = Mailbox::new();
    let log = Log::new();
    let fine = Mailbox::new();
    let mut source = EventSource::<u32>::new();
    source.connect(Recorder::ports().input, &orphan);
    source.connect(Recorder::ports().input, &fine);
    let mut simu = start(sim_init().add_model(Recorder::new(&log), fine, "fine"));
    let error = simu.process(source.event(1)).unwrap_err();
    assert_eq!(
        error,
        SimulationError::NoRecipient {
            sender: None,
            model_type: "Recorder<u32>",
            port: "input",
            kind: PortKind::Input,
        }
    );
    // The other connection was served, and the simulation goes on.
    assert_eq!(log.values_of("fine"), vec![1]);
    simu.process(source.event(2)).unwrap_err();
    assert_eq!(log.values_of("fine"), vec![1, 2]);
}

#[test]
fn model_message_to_a_mailbox_never_added_is_reported_after_the_step() {
    let log = Log::new();
    let orphan: Mailbox<Recorder<u32>> = Mailbox::new();
    let fine = Mailbox::new();
    let mut emitter = Emitter::<u32>::new(1);
    emitter.outs[0].connect(Recorder::ports().input, &orphan);
    emitter.outs[0].connect(Recorder::ports().input, &fine);
    let mbox = Mailbox::new();
    let addr = mbox.address();
    let mut simu = start(sim_init().add_model(emitter, mbox, "emitter").add_model(
        Recorder::new(&log),
        fine,
        "fine",
    ));
    simu.scheduler()
        .schedule(t(1), Emitter::ports().emit, vec![(0, 1), (0, 2)], &addr)
        .unwrap();
    simu.scheduler()
        .schedule(t(2), Emitter::ports().emit, vec![(0, 3)], &addr)
        .unwrap();

    let error = simu.step().unwrap_err();
    assert_eq!(
        error,
        SimulationError::NoRecipient {
            sender: Some("emitter".into()),
            model_type: "Recorder<u32>",
            port: "input",
            kind: PortKind::Input,
        }
    );
    assert!(error.to_string().contains("emitter"), "{error}");
    // The step completed: every other delivery happened.
    assert_eq!(simu.time(), t(1));
    assert_eq!(log.values_of("fine"), vec![1, 2]);

    // Still usable: the next step runs (and reports again).
    assert!(matches!(
        simu.step(),
        Err(SimulationError::NoRecipient { .. })
    ));
    assert_eq!(log.values_of("fine"), vec![1, 2, 3]);
    assert_eq!(simu.time(), t(2));
    simu.run().unwrap();
}

#[test]
fn model_request_to_a_mailbox_never_added_gets_no_reply() {
    let log = Log::new();
    let orphan: Mailbox<Replier<u32, u32>> = Mailbox::new();
    let fine = Mailbox::new();
    let mut requester = Requester::<u32, u32>::new(&log);
    requester.req.connect(Replier::ports().reply, &orphan);
    requester.req.connect(Replier::ports().reply, &fine);
    let mbox = Mailbox::new();
    let addr = mbox.address();
    let mut simu = start(
        sim_init()
            .add_model(requester, mbox, "requester")
            .add_model(Replier::new(|x: u32| x + 1), fine, "fine"),
    );
    let error = simu
        .process_event(Requester::ports().ask, 1, &addr)
        .unwrap_err();
    assert!(
        matches!(&error, SimulationError::NoRecipient { sender: Some(s), port: "reply", .. } if s == "requester"),
        "{error:?}"
    );
    assert_eq!(log.values_of("requester"), vec![vec![2]]);
}

#[test]
// `Announcer` has no input: its (empty) ports struct is never built.
#[allow(dead_code)]
fn init_hook_message_to_a_mailbox_never_added_fails_init() {
    /// Sends to its output from its init hook.
    #[model]
    struct Announcer {
        out: Output<u32>,
    }

    #[model]
    impl Announcer {
        #[init]
        async fn setup(&mut self, _cx: &mut Context<Self>) {
            self.out.send(1).await;
        }
    }

    // Never silently dropped: a bench with nothing scheduled would never
    // report it later.
    let orphan: Mailbox<Recorder<u32>> = Mailbox::new();
    let mut announcer = Announcer { out: Output::new() };
    announcer.out.connect(Recorder::ports().input, &orphan);
    let error = sim_init()
        .add_model(announcer, Mailbox::new(), "announcer")
        .init(SimTime::ZERO)
        .unwrap_err();
    assert_eq!(
        error,
        SimulationError::NoRecipient {
            sender: Some("announcer".into()),
            model_type: "Recorder<u32>",
            port: "input",
            kind: PortKind::Input,
        }
    );
}
