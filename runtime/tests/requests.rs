//! Requestors and repliers: a request returns the replies of every
//! connected replier, in connection order (zero or more); a `UniRequestor`
//! returns exactly one; repliers may be async; `map_connect` adapts the
//! request and the reply.

mod common;
use common::*;

/// A bench with one `Requester<u32, u32>` connected by `connect` to
/// repliers `f0, f1, …` added in order; returns the simulation, the
/// requester's address and its log.
fn bench_with_repliers(
    repliers: &[fn(u32) -> u32],
) -> (Simulation, Address<Requester<u32, u32>>, Log<Vec<u32>>) {
    let log = Log::new();
    let mut requester = Requester::new(&log);
    let mboxes: Vec<Mailbox<Replier<u32, u32>>> = repliers.iter().map(|_| Mailbox::new()).collect();
    for mbox in &mboxes {
        requester.req.connect(Replier::ports().reply, mbox);
    }
    let requester_mbox = Mailbox::new();
    let addr = requester_mbox.address();
    let mut init = sim_init().add_model(requester, requester_mbox, "requester");
    for (i, (f, mbox)) in repliers.iter().zip(mboxes).enumerate() {
        init = init.add_model(Replier::new(*f), mbox, format!("replier{i}"));
    }
    (start(init), addr, log)
}

#[test]
fn request_with_no_replier_returns_no_reply() {
    let (mut simu, addr, log) = bench_with_repliers(&[]);
    simu.process_event(Requester::ports().ask, 5, &addr)
        .unwrap();
    assert_eq!(log.values_of("requester"), vec![Vec::<u32>::new()]);
}

#[test]
fn request_with_one_replier_returns_its_reply() {
    let (mut simu, addr, log) = bench_with_repliers(&[|x| x * 2]);
    simu.process_event(Requester::ports().ask, 5, &addr)
        .unwrap();
    simu.process_event(Requester::ports().ask, 6, &addr)
        .unwrap();
    assert_eq!(log.values_of("requester"), vec![vec![10], vec![12]]);
}

#[test]
fn request_with_three_repliers_returns_replies_in_connection_order() {
    let (mut simu, addr, log) = bench_with_repliers(&[|x| x + 1, |x| x * 10, |x| x.pow(2)]);
    simu.process_event(Requester::ports().ask, 3, &addr)
        .unwrap();
    simu.process_event(Requester::ports().ask, 4, &addr)
        .unwrap();
    assert_eq!(
        log.values_of("requester"),
        vec![vec![4, 30, 9], vec![5, 40, 16]]
    );
}

// ---------------------------------------------------------------------------
// Async repliers: the replier awaits (a request of its own, and an output
// send) before answering. With three of them, replies still come back in
// connection order, even though the first one to be connected is the slowest.
// ---------------------------------------------------------------------------

/// Replies `request + offset`, after asking `depth` levels of `Slow`
/// models below it (each level adds one round trip of latency).
#[model]
struct Slow {
    below: Requestor<u32, u32>,
    seen: Output<u32>,
    offset: u32,
}

#[model]
impl Slow {
    #[replier]
    async fn answer(&mut self, request: u32, _cx: &mut Context<Self>) -> u32 {
        self.seen.send(request).await;
        let below: u32 = self.below.send(request).await.sum();
        request + self.offset + below
    }
}

#[test]
fn async_repliers_reply_in_connection_order() {
    let log = Log::new();
    let seen = EventQueue::new();
    let mut requester = Requester::<u32, u32>::new(&log);
    // Replier 0 is slow (it itself requests from a leaf), 1 and 2 are not.
    let leaf_mbox = Mailbox::new();
    let mboxes: Vec<Mailbox<Slow>> = (0..3).map(|_| Mailbox::new()).collect();
    let mut slows: Vec<Slow> = (0..3u32)
        .map(|i| Slow {
            below: Requestor::new(),
            seen: Output::new(),
            offset: 100 * (i + 1),
        })
        .collect();
    slows[0].below.connect(Replier::ports().reply, &leaf_mbox);
    for (slow, mbox) in slows.iter_mut().zip(&mboxes) {
        slow.seen.connect_sink(&seen);
        requester.req.connect(Slow::ports().answer, mbox);
    }
    let requester_mbox = Mailbox::new();
    let addr = requester_mbox.address();

    let mut init = sim_init()
        .add_model(requester, requester_mbox, "requester")
        .add_model(Replier::new(|x: u32| x * 1000), leaf_mbox, "leaf");
    for (i, (slow, mbox)) in slows.into_iter().zip(mboxes).enumerate() {
        init = init.add_model(slow, mbox, format!("slow{i}"));
    }
    let mut simu = start(init);

    simu.process_event(Requester::ports().ask, 1, &addr)
        .unwrap();
    // slow0: 1 + 100 + 1000; slow1: 1 + 200; slow2: 1 + 300.
    assert_eq!(log.values_of("requester"), vec![vec![1101, 201, 301]]);
    assert_eq!(seen.take_all(), vec![1, 1, 1]);
}

// ---------------------------------------------------------------------------
// UniRequestor
// ---------------------------------------------------------------------------

#[model]
struct UniAsker {
    req: UniRequestor<u32, String>,
    log: Log<String>,
}

#[model]
impl UniAsker {
    #[input]
    async fn ask(&mut self, x: u32, cx: &mut Context<Self>) {
        let reply = self.req.send(x).await;
        self.log.push(cx.name(), cx.time(), reply);
    }
}

#[test]
fn uni_requestor_returns_exactly_one_reply() {
    let log = Log::new();
    let replier_mbox = Mailbox::new();
    let asker = UniAsker {
        req: UniRequestor::new(Replier::ports().reply, &replier_mbox),
        log: log.clone(),
    };
    let asker_mbox = Mailbox::new();
    let addr = asker_mbox.address();
    let mut simu = start(sim_init().add_model(asker, asker_mbox, "asker").add_model(
        Replier::new(|x: u32| format!("#{x}")),
        replier_mbox,
        "replier",
    ));
    simu.process_event(UniAsker::ports().ask, 4, &addr).unwrap();
    simu.process_event(UniAsker::ports().ask, 2, &addr).unwrap();
    assert_eq!(
        log.values_of("asker"),
        vec!["#4".to_string(), "#2".to_string()]
    );
}

#[test]
fn uni_requestor_with_map_adapts_request_and_reply() {
    let log = Log::new();
    let replier_mbox = Mailbox::new();
    // The replier takes and returns u64; the asker speaks u32 -> String.
    let asker = UniAsker {
        req: UniRequestor::with_map(
            |x: u32| u64::from(x) + 1,
            Replier::ports().reply,
            |r: u64| format!("<{r}>"),
            &replier_mbox,
        ),
        log: log.clone(),
    };
    let asker_mbox = Mailbox::new();
    let addr = asker_mbox.address();
    let mut simu = start(sim_init().add_model(asker, asker_mbox, "asker").add_model(
        Replier::new(|x: u64| x * 3),
        replier_mbox,
        "replier",
    ));
    simu.process_event(UniAsker::ports().ask, 4, &addr).unwrap();
    assert_eq!(log.values_of("asker"), vec!["<15>".to_string()]);
}

// ---------------------------------------------------------------------------
// map_connect on a requestor
// ---------------------------------------------------------------------------

#[test]
fn requestor_map_connect_adapts_request_and_reply_per_connection() {
    let log = Log::new();
    let mut requester = Requester::<u32, String>::new(&log);
    let plain_mbox = Mailbox::new();
    let mapped_mbox = Mailbox::new();
    requester.req.connect(Replier::ports().reply, &plain_mbox);
    requester.req.map_connect(
        |x: u32| i64::from(x) - 10,
        Replier::ports().reply,
        |r: i64| format!("mapped {r}"),
        &mapped_mbox,
    );
    assert_eq!(requester.req.connection_count(), 2);
    let requester_mbox = Mailbox::new();
    let addr = requester_mbox.address();
    let mut simu = start(
        sim_init()
            .add_model(requester, requester_mbox, "requester")
            .add_model(
                Replier::new(|x: u32| format!("plain {x}")),
                plain_mbox,
                "plain",
            )
            .add_model(Replier::new(|x: i64| x * 2), mapped_mbox, "mapped"),
    );
    simu.process_event(Requester::ports().ask, 3, &addr)
        .unwrap();
    assert_eq!(
        log.values_of("requester"),
        vec![vec!["plain 3".to_string(), "mapped -14".to_string()]]
    );
}

#[test]
fn query_source_map_connect_adapts_request_and_reply() {
    let replier_mbox = Mailbox::new();
    let mut query = QuerySource::<u8, String>::new();
    query.map_connect(
        |x: u8| u32::from(x) * 2,
        Replier::ports().reply,
        |r: u32| r.to_string(),
        &replier_mbox,
    );
    let mut simu =
        start(sim_init().add_model(Replier::new(|x: u32| x + 1), replier_mbox, "replier"));
    assert_eq!(simu.process_query_from(&mut query, 20).unwrap(), vec!["41"]);
}

// ---------------------------------------------------------------------------
// Hand-written repliers that do not answer at once
// ---------------------------------------------------------------------------

/// Never replies to odd requests (drops the reply sender); keeps the reply
/// sender of a `Deferred` request and answers it from a later message.
struct Moody {
    out: Output<u32>,
    stash: Option<(u32, ReplySender<u32>)>,
}

enum MoodyMessage {
    Ask(u32, ReplySender<u32>),
    Deferred(u32, ReplySender<u32>),
    Release(()),
}

/// Ports of [`Moody`].
struct MoodyPorts {
    ask: ReplierPort<Moody, u32, u32>,
    deferred: ReplierPort<Moody, u32, u32>,
    release: InputPort<Moody, ()>,
}

impl Moody {
    fn ports() -> MoodyPorts {
        MoodyPorts {
            ask: ReplierPort::new("ask", MoodyMessage::Ask),
            deferred: ReplierPort::new("deferred", MoodyMessage::Deferred),
            release: InputPort::new("release", MoodyMessage::Release),
        }
    }
}

impl Model for Moody {
    type Message = MoodyMessage;

    async fn dispatch(&mut self, message: MoodyMessage, _cx: &mut Context<Self>) {
        match message {
            MoodyMessage::Ask(x, reply) if x % 2 == 0 => reply.send(x),
            MoodyMessage::Ask(_, reply) => drop(reply),
            MoodyMessage::Deferred(x, reply) => {
                self.stash = Some((x, reply));
                // Ask the bench loop (a forwarder) to call us back.
                self.out.send(0).await;
            }
            MoodyMessage::Release(()) => {
                if let Some((x, reply)) = self.stash.take() {
                    reply.send(x * 100);
                }
            }
        }
    }

    fn metadata() -> ModelMetadata {
        ModelMetadata {
            type_name: "Moody",
            inputs: &[],
            outputs: &[],
        }
    }
}

#[test]
fn replier_dropping_its_reply_sender_gives_no_reply_from_it() {
    let log = Log::new();
    let (moody_mbox, other_mbox) = (Mailbox::new(), Mailbox::new());
    let mut requester = Requester::<u32, u32>::new(&log);
    requester.req.connect(Moody::ports().ask, &moody_mbox);
    requester.req.connect(Replier::ports().reply, &other_mbox);
    let addr_mbox = Mailbox::new();
    let addr = addr_mbox.address();
    let mut simu = start(
        sim_init()
            .add_model(requester, addr_mbox, "requester")
            .add_model(
                Moody {
                    out: Output::new(),
                    stash: None,
                },
                moody_mbox,
                "moody",
            )
            .add_model(Replier::new(|x: u32| x + 1000), other_mbox, "other"),
    );
    simu.process_event(Requester::ports().ask, 2, &addr)
        .unwrap();
    simu.process_event(Requester::ports().ask, 3, &addr)
        .unwrap();
    simu.process_event(Requester::ports().ask, 4, &addr)
        .unwrap();
    assert_eq!(
        log.values_of("requester"),
        vec![vec![2, 1002], vec![1003], vec![4, 1004]]
    );
}

#[test]
fn uni_requestor_whose_replier_drops_the_sender_is_reported_as_waiting_for_it() {
    let log = Log::new();
    let moody_mbox = Mailbox::new();
    let asker = UniAsker {
        req: UniRequestor::with_map(
            |x| x,
            Moody::ports().ask,
            |r: u32| r.to_string(),
            &moody_mbox,
        ),
        log: log.clone(),
    };
    let asker_mbox = Mailbox::new();
    let addr = asker_mbox.address();
    let mut simu = start(sim_init().add_model(asker, asker_mbox, "asker").add_model(
        Moody {
            out: Output::new(),
            stash: None,
        },
        moody_mbox,
        "moody",
    ));
    simu.process_event(UniAsker::ports().ask, 2, &addr).unwrap();
    let error = simu
        .process_event(UniAsker::ports().ask, 1, &addr)
        .unwrap_err();
    let SimulationError::Deadlock { models, .. } = &error else {
        panic!("expected a deadlock, got {error:?}");
    };
    let asker = models.iter().find(|m| m.model == "asker").unwrap();
    assert_eq!(
        asker.waiting_for,
        causim::simulation::WaitingFor::Reply {
            from: "moody".into()
        }
    );
    assert_eq!(log.values_of("asker"), vec!["2".to_string()]);
}

#[test]
fn replier_may_answer_later_from_another_message() {
    let log = Log::new();
    let (moody_mbox, loop_mbox) = (Mailbox::new(), Mailbox::new());
    let mut moody = Moody {
        out: Output::new(),
        stash: None,
    };
    moody.out.connect(Forwarder::ports().input, &loop_mbox);
    let mut back = Forwarder::<u32>::new();
    back.out
        .map_connect(|_| (), Moody::ports().release, &moody_mbox);
    let mut requester = Requester::<u32, u32>::new(&log);
    requester.req.connect(Moody::ports().deferred, &moody_mbox);
    let requester_mbox = Mailbox::new();
    let addr = requester_mbox.address();
    let mut simu = start(
        sim_init()
            .add_model(requester, requester_mbox, "requester")
            .add_model(moody, moody_mbox, "moody")
            .add_model(back, loop_mbox, "loop"),
    );
    simu.process_event(Requester::ports().ask, 7, &addr)
        .unwrap();
    simu.process_event(Requester::ports().ask, 8, &addr)
        .unwrap();
    assert_eq!(log.values_of("requester"), vec![vec![700], vec![800]]);
}

#[test]
fn no_reply_names_the_replier_by_path() {
    let moody = Wrap::new(
        Moody {
            out: Output::new(),
            stash: None,
        },
        "moody",
    );
    let address = moody.address();
    let mut simu = start(sim_init().add_composite(Nest::new(moody, "crew"), "sat"));
    let error = simu
        .process_query(Moody::ports().ask, 5, &address)
        .unwrap_err();
    assert_eq!(
        error,
        SimulationError::NoReply {
            model: "sat/crew/moody".to_string(),
            model_type: "Moody",
            port: "ask",
        }
    );
    assert!(
        error
            .to_string()
            .contains("replier `ask` of model `sat/crew/moody` (Moody)"),
        "{error}"
    );
}

#[test]
fn bench_query_to_a_replier_that_drops_its_reply_sender_is_no_reply() {
    let moody_mbox = Mailbox::new();
    let moody = moody_mbox.address();
    let mut simu = start(sim_init().add_model(
        Moody {
            out: Output::new(),
            stash: None,
        },
        moody_mbox,
        "moody",
    ));
    assert_eq!(simu.process_query(Moody::ports().ask, 4, &moody), Ok(4));
    let error = simu
        .process_query(Moody::ports().ask, 5, &moody)
        .unwrap_err();
    assert_eq!(
        error,
        SimulationError::NoReply {
            model: "moody".to_string(),
            model_type: "Moody",
            port: "ask",
        }
    );
    assert!(!error.is_fatal());
    assert!(error
        .to_string()
        .contains("replier `ask` of model `moody` (Moody)"));
    // The simulation goes on.
    assert_eq!(simu.process_query(Moody::ports().ask, 6, &moody), Ok(6));
}
