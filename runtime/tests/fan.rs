//! Fan-out (one output, several inputs), fan-in (several outputs, one
//! input) and many-to-many connections.
//!
//! Fan-out clones the value for every connection but the last, which gets
//! the original: checked with a payload that counts its own clones.

mod common;
use common::*;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// A payload that counts how many times it (or its ancestor) was cloned,
/// and remembers whether it is the original.
#[derive(Debug)]
struct Tracked {
    id: u32,
    clones: Arc<AtomicUsize>,
    original: bool,
}

impl Tracked {
    fn new(id: u32) -> Self {
        Tracked {
            id,
            clones: Arc::new(AtomicUsize::new(0)),
            original: true,
        }
    }
}

impl Clone for Tracked {
    fn clone(&self) -> Self {
        self.clones.fetch_add(1, Ordering::SeqCst);
        Tracked {
            id: self.id,
            clones: self.clones.clone(),
            original: false,
        }
    }
}

/// Records `(id, is original)` of what it receives.
#[model]
struct TrackedSink {
    log: Log<(u32, bool)>,
}

#[model]
impl TrackedSink {
    #[input]
    async fn input(&mut self, value: Tracked, cx: &mut Context<Self>) {
        self.log
            .push(cx.name(), cx.time(), (value.id, value.original));
    }
}

#[test]
fn fan_out_reaches_every_input_in_connection_order_and_clones_all_but_last() {
    let log = Log::new();
    let mut emitter = Emitter::<Tracked>::new(1);
    let emitter_mbox = Mailbox::new();

    let sinks: Vec<Mailbox<TrackedSink>> = (0..3).map(|_| Mailbox::new()).collect();
    for sink in &sinks {
        emitter.outs[0].connect(TrackedSink::ports().input, sink);
    }
    assert_eq!(emitter.outs[0].connection_count(), 3);
    let emitter_addr = emitter_mbox.address();

    let mut init = sim_init().add_model(emitter, emitter_mbox, "emitter");
    for (i, mbox) in sinks.into_iter().enumerate() {
        init = init.add_model(TrackedSink { log: log.clone() }, mbox, format!("s{i}"));
    }
    let mut simu = start(init);

    let value = Tracked::new(7);
    let clones = value.clones.clone();
    simu.process_event(Emitter::ports().emit, vec![(0, value)], &emitter_addr)
        .unwrap();

    // Three deliveries, two clones: the last connection got the original.
    assert_eq!(clones.load(Ordering::SeqCst), 2);
    assert_eq!(log.values_of("s0"), vec![(7, false)]);
    assert_eq!(log.values_of("s1"), vec![(7, false)]);
    assert_eq!(log.values_of("s2"), vec![(7, true)]);
}

#[test]
fn fan_out_from_an_event_source_also_clones_all_but_last() {
    let log = Log::new();
    let mut source = EventSource::<Tracked>::new();
    let sinks: Vec<Mailbox<TrackedSink>> = (0..4).map(|_| Mailbox::new()).collect();
    for sink in &sinks {
        source.connect(TrackedSink::ports().input, sink);
    }
    let mut init = sim_init();
    for (i, mbox) in sinks.into_iter().enumerate() {
        init = init.add_model(TrackedSink { log: log.clone() }, mbox, format!("s{i}"));
    }
    let mut simu = start(init);

    let value = Tracked::new(1);
    let clones = value.clones.clone();
    simu.process(source.event(value)).unwrap();

    assert_eq!(clones.load(Ordering::SeqCst), 3);
    let originals: Vec<bool> = log.entries().iter().map(|e| e.value.1).collect();
    assert_eq!(originals.iter().filter(|&&o| o).count(), 1);
    assert_eq!(log.values_of("s3"), vec![(1, true)]);
}

#[test]
fn fan_out_with_a_single_connection_does_not_clone() {
    let log = Log::new();
    let mut source = EventSource::<Tracked>::new();
    let sink = Mailbox::new();
    source.connect(TrackedSink::ports().input, &sink);
    let mut simu = start(sim_init().add_model(TrackedSink { log: log.clone() }, sink, "s"));

    let value = Tracked::new(3);
    let clones = value.clones.clone();
    simu.process(source.event(value)).unwrap();

    assert_eq!(clones.load(Ordering::SeqCst), 0);
    assert_eq!(log.values_of("s"), vec![(3, true)]);
}

#[test]
fn fan_in_delivers_everything_from_every_sender() {
    let log = Log::new();
    let sink = Mailbox::new();
    let senders: Vec<(Emitter<u32>, Mailbox<Emitter<u32>>)> = (0..3)
        .map(|_| {
            let mut e = Emitter::new(1);
            e.outs[0].connect(Recorder::ports().input, &sink);
            (e, Mailbox::new())
        })
        .collect();
    let addrs: Vec<Address<Emitter<u32>>> = senders.iter().map(|(_, m)| m.address()).collect();

    let mut init = sim_init().add_model(Recorder::new(&log), sink, "sink");
    for (i, (model, mbox)) in senders.into_iter().enumerate() {
        init = init.add_model(model, mbox, format!("e{i}"));
    }
    let mut simu = start(init);

    // Each sender sends its own range, all at the same time.
    let scheduler = simu.scheduler();
    for (i, addr) in addrs.iter().enumerate() {
        let base = 100 * i as u32;
        let script: Vec<(usize, u32)> = (0..20).map(|k| (0, base + k)).collect();
        scheduler
            .schedule(t(1), Emitter::ports().emit, script, addr)
            .unwrap();
    }
    simu.step().unwrap();

    let seen = log.values_of("sink");
    assert_eq!(seen.len(), 60);
    // Per sender, in order (rule 1); all of them present.
    for i in 0..3u32 {
        let from_i: Vec<u32> = seen.iter().copied().filter(|v| v / 100 == i).collect();
        assert_eq!(from_i, (0..20).map(|k| 100 * i + k).collect::<Vec<_>>());
    }
}

#[test]
fn many_to_many_every_sender_reaches_every_receiver() {
    let log = Log::new();
    let receivers: Vec<Mailbox<Recorder<u32>>> = (0..3).map(|_| Mailbox::new()).collect();
    let mut senders: Vec<Emitter<u32>> = (0..2).map(|_| Emitter::new(1)).collect();
    for sender in &mut senders {
        for receiver in &receivers {
            sender.outs[0].connect(Recorder::ports().input, receiver);
        }
    }
    let sender_mboxes: Vec<Mailbox<Emitter<u32>>> = (0..2).map(|_| Mailbox::new()).collect();
    let addrs: Vec<_> = sender_mboxes.iter().map(Mailbox::address).collect();

    let mut init = sim_init();
    for (i, mbox) in receivers.into_iter().enumerate() {
        init = init.add_model(Recorder::new(&log), mbox, format!("r{i}"));
    }
    for (i, (model, mbox)) in senders.into_iter().zip(sender_mboxes).enumerate() {
        init = init.add_model(model, mbox, format!("s{i}"));
    }
    let mut simu = start(init);

    simu.process_event(Emitter::ports().emit, vec![(0, 1), (0, 2)], &addrs[0])
        .unwrap();
    simu.process_event(Emitter::ports().emit, vec![(0, 10), (0, 20)], &addrs[1])
        .unwrap();

    for r in ["r0", "r1", "r2"] {
        assert_eq!(log.values_of(r), vec![1, 2, 10, 20], "receiver {r}");
    }
}
