//! Messages to a mailbox that is not in the sender's bench: never added to
//! a bench (`NoRecipient`), or added to another bench (`ForeignAddress`).
//! Both are reported, not fatal: the message is dropped, the step
//! completes, and the bench goes on. A `UniRequestor`, which has no reply
//! to return, abandons the model method awaiting it.
//!
//! (The basic `NoRecipient` cases of events, event sources and requestors
//! are in `sources_sinks.rs`.)

mod common;
use common::*;

use causim::model::PortKind;
use causim::SchedulingError;

// ---------------------------------------------------------------------------
// Models
// ---------------------------------------------------------------------------

/// Asks its one replier on `ask` and logs the reply; logs `note` directly.
#[model]
struct UniAsker {
    req: UniRequestor<u32, u32>,
    log: Log<u32>,
}

#[model]
impl UniAsker {
    #[input]
    async fn ask(&mut self, x: u32, cx: &mut Context<Self>) {
        self.log.push(cx.name(), cx.time(), 1000 + x);
        let reply = self.req.send(x).await;
        self.log.push(cx.name(), cx.time(), reply);
    }

    #[input]
    fn note(&mut self, x: u32, cx: &mut Context<Self>) {
        self.log.push(cx.name(), cx.time(), x);
    }
}

/// A bench with a `UniAsker` called `asker` asking the replier at
/// `replier`, and a recorder `fine` logging into the same log.
fn uni_bench(
    replier: &Address<Replier<u32, u32>>,
    log: &Log<u32>,
) -> (Simulation, Address<UniAsker>, Address<Recorder<u32>>) {
    let asker = UniAsker {
        req: UniRequestor::new(Replier::ports().reply, replier),
        log: log.clone(),
    };
    let (asker_mbox, fine_mbox) = (Mailbox::new(), Mailbox::new());
    let (asker_addr, fine_addr) = (asker_mbox.address(), fine_mbox.address());
    let simu = start(sim_init().add_model(asker, asker_mbox, "asker").add_model(
        Recorder::new(log),
        fine_mbox,
        "fine",
    ));
    (simu, asker_addr, fine_addr)
}

/// A bench of one `Recorder<u32>` called `name` (and its mailbox address).
fn recorder_bench(name: &str, log: &Log<u32>) -> (Simulation, Address<Recorder<u32>>) {
    let mbox = Mailbox::new();
    let addr = mbox.address();
    (
        start(sim_init().add_model(Recorder::new(log), mbox, name)),
        addr,
    )
}

/// A bench of one `Replier<u32, u32>` (adding 100) called `name`.
fn replier_bench(name: &str) -> (Simulation, Address<Replier<u32, u32>>) {
    let mbox = Mailbox::new();
    let addr = mbox.address();
    let simu = start(sim_init().add_model(Replier::new(|x: u32| x + 100), mbox, name));
    (simu, addr)
}

// ---------------------------------------------------------------------------
// A UniRequestor to a mailbox never added
// ---------------------------------------------------------------------------

#[test]
fn uni_requestor_to_a_mailbox_never_added_reports_no_recipient_not_a_deadlock() {
    let log = Log::new();
    let orphan: Mailbox<Replier<u32, u32>> = Mailbox::new();
    let (mut simu, asker, fine) = uni_bench(&orphan.address(), &log);
    simu.scheduler()
        .schedule(t(1), UniAsker::ports().ask, 7, &asker)
        .unwrap();
    simu.scheduler()
        .schedule(t(1), Recorder::ports().input, 5, &fine)
        .unwrap();

    let error = simu.step().unwrap_err();
    assert_eq!(
        error,
        SimulationError::NoRecipient {
            sender: Some("asker".into()),
            model_type: "Replier<u32, u32>",
            port: "reply",
            kind: PortKind::Replier,
        }
    );
    assert!(!error.is_fatal());
    assert_eq!(
        error.to_string(),
        "model `asker` sent a request to replier `reply` of a `Replier<u32, u32>` whose \
         mailbox was never added to the bench; the request was dropped"
    );
    // The step completed: the other event was delivered, and the asker's
    // method stopped at the request (no reply was logged).
    assert_eq!(simu.time(), t(1));
    assert_eq!(log.values_of("fine"), vec![5]);
    assert_eq!(log.values_of("asker"), vec![1007]);

    // The asker lost no state: it takes its next messages.
    simu.process_event(UniAsker::ports().note, 3, &asker)
        .unwrap();
    assert_eq!(log.values_of("asker"), vec![1007, 3]);
    assert!(matches!(
        simu.process_event(UniAsker::ports().ask, 8, &asker),
        Err(SimulationError::NoRecipient { .. })
    ));
    assert_eq!(log.values_of("asker"), vec![1007, 3, 1008]);
    simu.run().unwrap();
}

#[test]
// `Greeter` has no input: its (empty) ports struct is never built.
#[allow(dead_code)]
fn uni_requestor_in_an_init_hook_to_a_mailbox_never_added_fails_init() {
    /// Asks its replier from its init hook.
    #[model]
    struct Greeter {
        req: UniRequestor<u32, u32>,
    }

    #[model]
    impl Greeter {
        #[init]
        async fn setup(&mut self) {
            self.req.send(1).await;
        }
    }

    let orphan: Mailbox<Replier<u32, u32>> = Mailbox::new();
    let greeter = Greeter {
        req: UniRequestor::new(Replier::ports().reply, &orphan),
    };
    let error = sim_init()
        .add_model(greeter, Mailbox::new(), "greeter")
        .init(SimTime::ZERO)
        .unwrap_err();
    assert_eq!(
        error,
        SimulationError::NoRecipient {
            sender: Some("greeter".into()),
            model_type: "Replier<u32, u32>",
            port: "reply",
            kind: PortKind::Replier,
        }
    );
}

// ---------------------------------------------------------------------------
// What a NoRecipient says
// ---------------------------------------------------------------------------

#[test]
fn no_recipient_calls_an_input_an_input_and_a_replier_a_replier() {
    let log = Log::new();
    let orphan_input: Mailbox<Recorder<u32>> = Mailbox::new();
    let orphan_replier: Mailbox<Replier<u32, u32>> = Mailbox::new();
    let mut requester = Requester::<u32, u32>::new(&log);
    requester
        .req
        .connect(Replier::ports().reply, &orphan_replier);
    let mbox = Mailbox::new();
    let addr = mbox.address();
    let mut simu = start(sim_init().add_model(requester, mbox, "requester"));

    let input = simu
        .process_event(Recorder::ports().input, 1, &orphan_input)
        .unwrap_err();
    assert_eq!(
        input.to_string(),
        "the bench sent a message to input `input` of a `Recorder<u32>` whose mailbox \
         was never added to the bench; the message was dropped"
    );
    let replier = simu
        .process_event(Requester::ports().ask, 1, &addr)
        .unwrap_err();
    assert_eq!(
        replier,
        SimulationError::NoRecipient {
            sender: Some("requester".into()),
            model_type: "Replier<u32, u32>",
            port: "reply",
            kind: PortKind::Replier,
        }
    );
    assert!(
        replier.to_string().contains("a request to replier `reply`"),
        "{replier}"
    );
    // The requestor got the replies there were: none.
    assert_eq!(log.values_of("requester"), vec![Vec::<u32>::new()]);
}

#[test]
fn query_source_to_a_mailbox_never_added_names_the_bench_as_the_sender() {
    let orphan: Mailbox<Replier<u32, u32>> = Mailbox::new();
    let fine = Mailbox::new();
    let fine_addr = fine.address();
    let mut source = QuerySource::<u32, u32>::new();
    source.connect(Replier::ports().reply, &orphan);
    source.connect(Replier::ports().reply, &fine);
    let mut simu = start(sim_init().add_model(Replier::new(|x: u32| x * 2), fine, "fine"));

    let error = simu.process_query_from(&mut source, 4).unwrap_err();
    assert_eq!(
        error,
        SimulationError::NoRecipient {
            sender: None,
            model_type: "Replier<u32, u32>",
            port: "reply",
            kind: PortKind::Replier,
        }
    );
    assert!(
        error.to_string().starts_with("the bench sent a request"),
        "{error}"
    );
    assert!(!error.to_string().contains("`bench`"), "{error}");
    // The source keeps its connections: the next query is refused the same
    // way, not answered silently by nobody.
    assert!(source.is_connected());
    assert_eq!(simu.process_query_from(&mut source, 4), Err(error));
    // Still usable.
    assert_eq!(
        simu.process_query(Replier::ports().reply, 5, &fine_addr),
        Ok(10)
    );
}

// ---------------------------------------------------------------------------
// An address used in a second bench
// ---------------------------------------------------------------------------

#[test]
fn model_output_to_a_model_of_another_bench_is_refused_and_reported() {
    let log = Log::new();
    let (mut first, first_rec) = recorder_bench("first_rec", &log);

    // The second bench's emitter sends to its own recorder and to the
    // first bench's recorder.
    let mut emitter = Emitter::<u32>::new(1);
    emitter.outs[0].connect(Recorder::ports().input, &first_rec);
    let own = Mailbox::new();
    emitter.outs[0].connect(Recorder::ports().input, &own);
    let emitter_mbox = Mailbox::new();
    let emitter_addr = emitter_mbox.address();
    let mut second = start(
        sim_init()
            .add_model(emitter, emitter_mbox, "emitter")
            .add_model(Recorder::new(&log), own, "own_rec"),
    );
    second
        .scheduler()
        .schedule(
            t(5),
            Emitter::ports().emit,
            vec![(0, 1), (0, 2)],
            &emitter_addr,
        )
        .unwrap();

    let error = second.step().unwrap_err();
    assert_eq!(
        error,
        SimulationError::ForeignAddress {
            sender: Some("emitter".into()),
            model: "first_rec".into(),
            model_type: "Recorder<u32>",
            port: "input",
            kind: PortKind::Input,
        }
    );
    assert!(!error.is_fatal());
    assert_eq!(
        error.to_string(),
        "model `emitter` sent a message to input `input` of model `first_rec` \
         (Recorder<u32>), which was added to another bench; a mailbox belongs to the \
         bench it was added to, so the message was dropped"
    );
    // The step completed in the second bench; nothing reached the first.
    assert_eq!(second.time(), t(5));
    assert_eq!(log.values_of("own_rec"), vec![1, 2]);
    first.step_until(t(10)).unwrap();
    assert_eq!(log.values_of("first_rec"), Vec::<u32>::new());

    // Both go on: the next send is refused again, the first bench's own
    // messages are delivered.
    assert!(matches!(
        second.process_event(Emitter::ports().emit, vec![(0, 3)], &emitter_addr),
        Err(SimulationError::ForeignAddress { .. })
    ));
    assert_eq!(log.values_of("own_rec"), vec![1, 2, 3]);
    first
        .process_event(Recorder::ports().input, 9, &first_rec)
        .unwrap();
    assert_eq!(log.values_of("first_rec"), vec![9]);
}

#[test]
fn bench_calls_with_an_address_of_another_bench_are_refused_before_anything_runs() {
    let log = Log::new();
    let (_first, first_rec) = recorder_bench("first_rec", &log);
    let (_replier_bench, first_replier) = replier_bench("first_replier");
    let (mut second, second_rec) = recorder_bench("second_rec", &log);
    let foreign_input = |sender: Option<String>| SimulationError::ForeignAddress {
        sender,
        model: "first_rec".into(),
        model_type: "Recorder<u32>",
        port: "input",
        kind: PortKind::Input,
    };

    assert_eq!(
        second.process_event(Recorder::ports().input, 1, &first_rec),
        Err(foreign_input(None))
    );
    let scheduled = second
        .scheduler()
        .schedule(t(1), Recorder::ports().input, 1, &first_rec)
        .unwrap_err();
    assert_eq!(
        scheduled,
        SchedulingError::ForeignAddress {
            model: "first_rec".into(),
            model_type: "Recorder<u32>",
            port: "input",
        }
    );
    assert!(
        scheduled.to_string().contains("added to another bench"),
        "{scheduled}"
    );
    assert_eq!(second.next_event_time(), None);

    // An event source with one connection in each bench: refused whole.
    let mut source = EventSource::<u32>::new();
    source.connect(Recorder::ports().input, &second_rec);
    source.connect(Recorder::ports().input, &first_rec);
    assert_eq!(second.process(source.event(2)), Err(foreign_input(None)));
    assert!(matches!(
        second.scheduler().schedule_event(t(1), source.event(2)),
        Err(SchedulingError::ForeignAddress { .. })
    ));

    let foreign_replier = SimulationError::ForeignAddress {
        sender: None,
        model: "first_replier".into(),
        model_type: "Replier<u32, u32>",
        port: "reply",
        kind: PortKind::Replier,
    };
    assert_eq!(
        second.process_query(Replier::ports().reply, 3, &first_replier),
        Err(foreign_replier.clone())
    );
    let mut query = QuerySource::<u32, u32>::new();
    query.connect(Replier::ports().reply, &first_replier);
    assert_eq!(
        second.process_query_from(&mut query, 3),
        Err(foreign_replier)
    );

    // Nothing was delivered, and the second bench is still usable.
    assert_eq!(log.len(), 0);
    second
        .process_event(Recorder::ports().input, 4, &second_rec)
        .unwrap();
    assert_eq!(log.values_of("second_rec"), vec![4]);
}

#[test]
fn requests_to_a_replier_of_another_bench_get_no_reply_and_are_reported() {
    let log = Log::new();
    let (_first, first_replier) = replier_bench("first_replier");

    let mut requester = Requester::<u32, u32>::new(&log);
    requester
        .req
        .connect(Replier::ports().reply, &first_replier);
    let own = Mailbox::new();
    requester.req.connect(Replier::ports().reply, &own);
    let mbox = Mailbox::new();
    let addr = mbox.address();
    let mut second = start(
        sim_init()
            .add_model(requester, mbox, "requester")
            .add_model(Replier::new(|x: u32| x + 1), own, "own_replier"),
    );
    let error = second
        .process_event(Requester::ports().ask, 1, &addr)
        .unwrap_err();
    assert_eq!(
        error,
        SimulationError::ForeignAddress {
            sender: Some("requester".into()),
            model: "first_replier".into(),
            model_type: "Replier<u32, u32>",
            port: "reply",
            kind: PortKind::Replier,
        }
    );
    assert!(
        error.to_string().contains("a request to replier `reply`"),
        "{error}"
    );
    // Only the replier of this bench answered.
    assert_eq!(log.values_of("requester"), vec![vec![2]]);
}

#[test]
fn uni_requestor_to_a_replier_of_another_bench_abandons_the_method() {
    let log = Log::new();
    let (mut first, first_replier) = replier_bench("first_replier");
    let (mut second, asker, fine) = uni_bench(&first_replier, &log);

    let error = second
        .process_event(UniAsker::ports().ask, 7, &asker)
        .unwrap_err();
    assert_eq!(
        error,
        SimulationError::ForeignAddress {
            sender: Some("asker".into()),
            model: "first_replier".into(),
            model_type: "Replier<u32, u32>",
            port: "reply",
            kind: PortKind::Replier,
        }
    );
    assert_eq!(log.values_of("asker"), vec![1007]);
    // The asker goes on with its next message; both benches are usable.
    second
        .process_event(UniAsker::ports().note, 3, &asker)
        .unwrap();
    second
        .process_event(Recorder::ports().input, 4, &fine)
        .unwrap();
    assert_eq!(log.values_of("asker"), vec![1007, 3]);
    assert_eq!(log.values_of("fine"), vec![4]);
    assert_eq!(
        first.process_query(Replier::ports().reply, 1, &first_replier),
        Ok(101)
    );
}

#[test]
fn a_mailbox_added_to_another_bench_after_this_one_started_is_refused_from_then_on() {
    let log = Log::new();
    let late: Mailbox<Recorder<u32>> = Mailbox::new();
    let mut emitter = Emitter::<u32>::new(1);
    emitter.outs[0].connect(Recorder::ports().input, &late);
    let mbox = Mailbox::new();
    let addr = mbox.address();
    let mut second = start(sim_init().add_model(emitter, mbox, "emitter"));

    // Not in any bench yet.
    assert!(matches!(
        second.process_event(Emitter::ports().emit, vec![(0, 1)], &addr),
        Err(SimulationError::NoRecipient { sender: Some(s), .. }) if s == "emitter"
    ));
    // Then added to another bench: refused, named.
    let mut first = start(sim_init().add_model(Recorder::new(&log), late, "late_rec"));
    assert_eq!(
        second.process_event(Emitter::ports().emit, vec![(0, 2)], &addr),
        Err(SimulationError::ForeignAddress {
            sender: Some("emitter".into()),
            model: "late_rec".into(),
            model_type: "Recorder<u32>",
            port: "input",
            kind: PortKind::Input,
        })
    );
    first.step_until(t(1)).unwrap();
    assert_eq!(log.len(), 0);
}

/// Logs a note on `log_to`, then answers twice the request.
#[model]
struct NotingReplier {
    log_to: Output<u32>,
}

#[model]
impl NotingReplier {
    #[replier]
    async fn double(&mut self, x: u32) -> u32 {
        self.log_to.send(x).await;
        2 * x
    }
}

#[test]
fn a_query_source_keeps_its_connections_when_its_replier_sends_to_a_mailbox_never_added() {
    let orphan: Mailbox<Recorder<u32>> = Mailbox::new();
    let mut replier = NotingReplier {
        log_to: Output::new(),
    };
    replier.log_to.connect(Recorder::ports().input, &orphan);
    let mailbox = Mailbox::new();
    let mut source = QuerySource::<u32, u32>::new();
    source.connect(NotingReplier::ports().double, &mailbox);
    let mut simu = start(sim_init().add_model(replier, mailbox, "noter"));
    let unbound = Err(SimulationError::NoRecipient {
        sender: Some("noter".into()),
        model_type: "Recorder<u32>",
        port: "input",
        kind: PortKind::Input,
    });
    assert_eq!(simu.process_query_from(&mut source, 3), unbound);
    assert!(source.is_connected());
    // Asked again, the replier is asked again (it sends again).
    assert_eq!(simu.process_query_from(&mut source, 4), unbound);
}
