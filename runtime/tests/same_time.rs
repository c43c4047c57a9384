//! The documented order of events due at the same time
//! (`runtime/src/scheduler.rs`): events scheduled from the bench first,
//! then those of each model in the order the models were added, and those
//! of one origin in the order it scheduled them; a periodic event keeps its
//! place among its origin's events at every occurrence.

mod common;
use common::*;

/// Schedules labelled ticks on itself and records the ticks it receives.
#[model]
struct Stamper {
    log: Log<&'static str>,
    on_init: Vec<(SimTime, &'static str)>,
}

#[model]
impl Stamper {
    fn new(log: &Log<&'static str>) -> Self {
        Stamper {
            log: log.clone(),
            on_init: Vec::new(),
        }
    }

    #[input]
    async fn tick(&mut self, label: &'static str, cx: &mut Context<Self>) {
        self.log.push(cx.name(), cx.time(), label);
    }

    #[input]
    async fn plan(&mut self, plan: Vec<(SimTime, &'static str)>, cx: &mut Context<Self>) {
        for (time, label) in plan {
            cx.schedule(time, Self::ports().tick, label).unwrap();
        }
    }

    #[init]
    async fn setup(&mut self, cx: &mut Context<Self>) {
        let plan = std::mem::take(&mut self.on_init);
        self.plan(plan, cx).await;
    }
}

/// At one model: bench events come before the model's own, even when the
/// model scheduled its own first (during init); each origin keeps its
/// scheduling order, not its time-stamp order of scheduling calls.
#[test]
fn bench_events_come_before_a_models_own_events_at_the_same_time() {
    let log = Log::new();
    let mut stamper = Stamper::new(&log);
    stamper.on_init = vec![(t(1), "own-1"), (t(1), "own-2")];
    let mbox = Mailbox::new();
    let addr = mbox.address();
    let mut simu = start(
        sim_init()
            .add_model(Stamper::new(&log), Mailbox::new(), "other")
            .add_model(stamper, mbox, "m"),
    );
    // Scheduled later in wall-clock time than the model's own events.
    let scheduler = simu.scheduler();
    scheduler
        .schedule(t(1), Stamper::ports().tick, "bench-1", &addr)
        .unwrap();
    // The model schedules more at t=1 from a message (after init).
    simu.process_event(Stamper::ports().plan, vec![(t(1), "own-3")], &addr)
        .unwrap();
    scheduler
        .schedule(t(1), Stamper::ports().tick, "bench-2", &addr)
        .unwrap();
    // Something earlier and later, to show time still comes first.
    scheduler
        .schedule(t(2), Stamper::ports().tick, "bench-late", &addr)
        .unwrap();
    simu.process_event(
        Stamper::ports().plan,
        vec![(SimTime::from_nanos(1), "own-early")],
        &addr,
    )
    .unwrap();

    simu.run().unwrap();
    assert_eq!(
        log.values_of("m"),
        vec![
            "own-early",
            "bench-1",
            "bench-2",
            "own-1",
            "own-2",
            "own-3",
            "bench-late"
        ]
    );
}

/// A periodic event keeps the place its scheduling gave it among its
/// origin's events, at every occurrence: here the bench's periodic event
/// was scheduled first, so it precedes the bench's one-shot events at the
/// times they share, even at its later occurrences.
#[test]
fn periodic_event_keeps_its_place_among_its_origins_events() {
    let log = Log::new();
    let mut stamper = Stamper::new(&log);
    stamper.on_init = vec![(t(2), "own")];
    let mbox = Mailbox::new();
    let addr = mbox.address();
    let mut simu = start(sim_init().add_model(stamper, mbox, "m"));
    let scheduler = simu.scheduler();
    let tick = Stamper::ports().tick;
    scheduler
        .schedule_periodic(t(1), secs(1), tick, "periodic", &addr)
        .unwrap();
    scheduler.schedule(t(2), tick, "once-2", &addr).unwrap();
    scheduler.schedule(t(3), tick, "once-3", &addr).unwrap();

    simu.step_until(t(3)).unwrap();
    assert_eq!(
        log.timed(),
        vec![
            (t(1), "periodic"),
            (t(2), "periodic"),
            (t(2), "once-2"),
            (t(2), "own"),
            (t(3), "periodic"),
            (t(3), "once-3"),
        ]
    );
}

/// Across models: same-time events of different models are delivered in
/// the order the models were added, whatever the order in which they were
/// scheduled. With the deterministic executor, models are then polled in
/// delivery order, so the shared trace shows the add order.
#[test]
fn models_events_are_delivered_in_model_add_order() {
    if !deterministic() {
        return;
    }
    let log = Log::new();
    let names = ["a", "b", "c", "d"];
    let mboxes: Vec<Mailbox<Stamper>> = names.iter().map(|_| Mailbox::new()).collect();
    let addrs: Vec<Address<Stamper>> = mboxes.iter().map(Mailbox::address).collect();
    let mut init = sim_init();
    for (name, mbox) in names.iter().zip(mboxes) {
        init = init.add_model(Stamper::new(&log), mbox, *name);
    }
    let mut simu = start(init);
    // Scheduled in reverse add order: d first, a last.
    for (name, addr) in names.iter().zip(&addrs).rev() {
        simu.process_event(Stamper::ports().plan, vec![(t(5), *name)], addr)
            .unwrap();
    }
    simu.step().unwrap();
    assert_eq!(
        log.pairs()
            .iter()
            .map(|(m, _)| m.as_str())
            .collect::<Vec<_>>(),
        names
    );
}

/// A bench of a relay (`Forwarder`) that forwards to a recording
/// `receiver` of the given mailbox; the address of the relay.
fn relay_to(
    receiver: Mailbox<Recorder<String>>,
    log: &Log<String>,
) -> (SimInit, Address<Forwarder<String>>) {
    let relay = Mailbox::new();
    let to_relay = relay.address();
    let mut forwarder = Forwarder::<String>::new();
    forwarder
        .out
        .connect(Recorder::<String>::ports().input, &receiver);
    let init = sim_init().add_model(forwarder, relay, "relay").add_model(
        Recorder::<String>::new(log),
        receiver,
        "receiver",
    );
    (init, to_relay)
}

/// Twenty events due at one time for a `receiver`, plus one for a relay
/// that is delivered first and forwards a message to the receiver: the
/// message is caused at that time, so it comes after all twenty, whatever
/// the receiver's mailbox capacity and the thread count.
fn relayed_after_due_events(capacity: usize) -> Vec<String> {
    let log = Log::new();
    let receiver = Mailbox::with_capacity(capacity);
    let to_receiver = receiver.address();
    let (init, to_relay) = relay_to(receiver, &log);
    let mut simu = start(init);
    let scheduler = simu.scheduler();
    // Scheduled first, so delivered first: the relay could run before the
    // receiver's events are all in.
    scheduler
        .schedule(
            t(1),
            Forwarder::<String>::ports().input,
            "relayed".to_string(),
            &to_relay,
        )
        .unwrap();
    for i in 0..20 {
        scheduler
            .schedule(
                t(1),
                Recorder::<String>::ports().input,
                format!("D{i}"),
                &to_receiver,
            )
            .unwrap();
    }
    simu.step().unwrap();
    assert_eq!(simu.time(), t(1));
    log.values_of("receiver")
}

/// The twenty due events, then the relayed message.
fn due_then_relayed() -> Vec<String> {
    let mut expected: Vec<String> = (0..20).map(|i| format!("D{i}")).collect();
    expected.push("relayed".to_string());
    expected
}

#[test]
fn due_events_come_before_a_message_caused_at_their_time_in_a_small_mailbox() {
    for capacity in [1, 4] {
        assert_eq!(
            relayed_after_due_events(capacity),
            due_then_relayed(),
            "capacity {capacity}"
        );
    }
}

#[test]
fn due_events_come_before_a_message_caused_at_their_time_in_a_large_mailbox() {
    for capacity in [64, 1024] {
        // Many runs: on several threads the relay would win a race, not
        // every time (a few under Miri, which is slow).
        for _ in 0..if cfg!(miri) { 2 } else { 50 } {
            assert_eq!(
                relayed_after_due_events(capacity),
                due_then_relayed(),
                "capacity {capacity}"
            );
        }
    }
}

/// The same rule for the events of an `EventSource` (a mapped connection)
/// and for a periodic event: the bench's delivery never waits for room.
#[test]
fn source_and_periodic_events_all_arrive_before_messages_caused_then() {
    let log = Log::new();
    let receiver = Mailbox::with_capacity(2);
    let to_receiver = receiver.address();
    let mut source = EventSource::<u32>::new();
    source.map_connect(
        |n: u32| format!("S{n}"),
        Recorder::<String>::ports().input,
        &to_receiver,
    );
    let (init, to_relay) = relay_to(receiver, &log);
    let mut simu = start(init);
    let scheduler = simu.scheduler();
    let relay_input = Forwarder::<String>::ports().input;
    scheduler
        .schedule_periodic(t(1), secs(1), relay_input, "relayed".to_string(), &to_relay)
        .unwrap();
    scheduler
        .schedule_periodic(
            t(1),
            secs(1),
            Recorder::<String>::ports().input,
            "P".to_string(),
            &to_receiver,
        )
        .unwrap();
    for n in 0..6 {
        scheduler.schedule_event(t(2), source.event(n)).unwrap();
    }
    simu.step_until(t(2)).unwrap();
    let expected: Vec<&str> = vec![
        "P", "relayed", // t = 1
        "P", "S0", "S1", "S2", "S3", "S4", "S5", "relayed", // t = 2
    ];
    assert_eq!(log.values_of("receiver"), expected);
}

/// Records what it gets and, on the first value, sends one more to itself
/// through its output.
#[model]
struct Selfie {
    again: Output<String>,
    log: Log<String>,
    sent: bool,
}

#[model]
impl Selfie {
    #[input]
    async fn input(&mut self, value: String, cx: &mut Context<Self>) {
        self.log.push(cx.name(), cx.time(), value);
        if !std::mem::replace(&mut self.sent, true) {
            self.again.send("again".to_string()).await;
        }
    }
}

/// A model whose mailbox holds more due events than its capacity can
/// still send to itself: its message queues behind the events, within the
/// capacity, instead of waiting for a mailbox only it can drain.
#[test]
fn a_model_sends_to_its_own_mailbox_while_it_holds_overflowed_events() {
    let log = Log::new();
    let mailbox = Mailbox::with_capacity(4);
    let address = mailbox.address();
    let mut selfie = Selfie {
        again: Output::new(),
        log: log.clone(),
        sent: false,
    };
    selfie.again.connect(Selfie::ports().input, &address);
    let mut simu = start(sim_init().add_model(selfie, mailbox, "selfie"));
    let scheduler = simu.scheduler();
    for i in 0..6 {
        scheduler
            .schedule(t(1), Selfie::ports().input, format!("D{i}"), &address)
            .unwrap();
    }
    simu.step().unwrap();
    assert_eq!(
        log.values_of("selfie"),
        ["D0", "D1", "D2", "D3", "D4", "D5", "again"]
    );
}
