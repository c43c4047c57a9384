//! Property tests over randomly generated benches, on every executor.
//!
//! A bench is a random DAG of relay nodes (acyclic, so back-pressure can
//! never close a wait cycle) with small mailboxes, fed by random bench
//! events at random times. Each node relays what it gets to each child, one
//! output per child, until the message's hop budget runs out. Every send
//! carries the sender's vector clock, ticked once per send, so the recorded
//! trace tells which sends happened before which.
//!
//! Checked from the traces, on 2 and 4 threads (and 1, as a reference):
//! - rule 1: messages from one sender reach a receiver in send order;
//! - rule 2, in its general (transitive) form: if the send of `m1` to `B`
//!   happened before the send of `m3` to `B`, `B` processes `m1` first;
//! - every message is delivered, at the time of the event that caused it;
//! - the bench is order-insensitive in what each node receives, so that
//!   (as a multiset) is identical on every executor.
//!
//! This file picks its thread counts itself, so it is not part of the
//! executor matrix (`tests/matrix/suite.rs`).

mod common;
use common::*;

use proptest::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A relayed message.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Msg {
    /// The sending node, or `BENCH` for a bench event.
    sender: usize,
    /// The sender's vector clock at the send (index `BENCH` is the bench).
    clock: Vec<u64>,
    /// Which bench event started the chain.
    root: usize,
    /// Hops still allowed.
    hops: u8,
    /// The simulation time of the bench event that started the chain.
    born: SimTime,
}

/// The index of the bench in vector clocks, for benches of `n` nodes.
fn bench_index(n: usize) -> usize {
    n
}

/// A relay node.
#[model]
struct Node {
    /// Its index.
    id: usize,
    /// One output per child.
    children: Vec<Output<Msg>>,
    /// Its vector clock.
    clock: Vec<u64>,
    /// What it received, in processing order.
    log: Log<Msg>,
    /// Number of sends by every node.
    sent: Arc<AtomicU64>,
}

#[model]
impl Node {
    #[input]
    async fn receive(&mut self, msg: Msg, cx: &mut Context<Self>) {
        self.log.push(cx.name(), cx.time(), msg.clone());
        for (mine, theirs) in self.clock.iter_mut().zip(&msg.clock) {
            *mine = (*mine).max(*theirs);
        }
        if msg.hops == 0 {
            return;
        }
        for child in &mut self.children {
            self.clock[self.id] += 1;
            self.sent.fetch_add(1, Ordering::Relaxed);
            let relayed = Msg {
                sender: self.id,
                clock: self.clock.clone(),
                root: msg.root,
                hops: msg.hops - 1,
                born: msg.born,
            };
            child.send(relayed).await;
        }
    }
}

/// A random bench: the DAG, mailbox capacity and bench events.
#[derive(Debug, Clone)]
struct Bench {
    /// Number of nodes.
    nodes: usize,
    /// Edges `(from, to)` with `from < to`.
    edges: Vec<(usize, usize)>,
    /// Mailbox capacity of every node.
    capacity: usize,
    /// Bench events: `(time in seconds, target node, hops)`.
    events: Vec<(u64, usize, u8)>,
}

fn bench() -> impl Strategy<Value = Bench> {
    (2usize..10, 1usize..4).prop_flat_map(|(nodes, capacity)| {
        let pairs: Vec<(usize, usize)> = (0..nodes)
            .flat_map(|i| (i + 1..nodes).map(move |j| (i, j)))
            .collect();
        let edges = proptest::sample::subsequence(pairs.clone(), 0..=pairs.len());
        let events = proptest::collection::vec((1u64..5, 0..nodes, 0u8..5), 1..24);
        (edges, events).prop_map(move |(edges, events)| Bench {
            nodes,
            edges,
            capacity,
            events,
        })
    })
}

/// What a run recorded.
struct Run {
    /// Every delivery, in recording order.
    entries: Vec<Entry<Msg>>,
    /// Number of relays sent by the nodes.
    relays: u64,
}

/// Runs `bench` on `threads` threads.
fn run(bench: &Bench, threads: usize) -> Run {
    let log = Log::new();
    let sent = Arc::new(AtomicU64::new(0));
    let width = bench.nodes + 1;
    let mailboxes: Vec<Mailbox<Node>> = (0..bench.nodes)
        .map(|_| Mailbox::with_capacity(bench.capacity))
        .collect();
    let mut nodes: Vec<Node> = (0..bench.nodes)
        .map(|id| Node {
            id,
            children: Vec::new(),
            clock: vec![0; width],
            log: log.clone(),
            sent: sent.clone(),
        })
        .collect();
    for &(from, to) in &bench.edges {
        let mut output = Output::new();
        output.connect(Node::ports().receive, &mailboxes[to]);
        nodes[from].children.push(output);
    }
    let addresses: Vec<Address<Node>> = mailboxes.iter().map(Mailbox::address).collect();
    // A worker woken whenever two models are ready: the schedule in which
    // threads interleave most.
    let mut init = SimInit::new().with_threads(threads).with_wake_threshold(1);
    for (id, (node, mailbox)) in nodes.into_iter().zip(mailboxes).enumerate() {
        init = init.add_model(node, mailbox, format!("n{id}"));
    }
    let mut simu = start(init);
    let scheduler = simu.scheduler();
    // The bench "sends" its events in delivery order: by time, then by
    // scheduling order.
    let mut order: Vec<usize> = (0..bench.events.len()).collect();
    order.sort_by_key(|&root| (bench.events[root].0, root));
    let mut rank = vec![0; bench.events.len()];
    for (position, &root) in order.iter().enumerate() {
        rank[root] = position as u64 + 1;
    }
    for (root, &(time, target, hops)) in bench.events.iter().enumerate() {
        let mut clock = vec![0; width];
        clock[bench_index(bench.nodes)] = rank[root];
        let msg = Msg {
            sender: bench_index(bench.nodes),
            clock,
            root,
            hops,
            born: t(time),
        };
        scheduler
            .schedule(t(time), Node::ports().receive, msg, &addresses[target])
            .unwrap();
    }
    simu.run().unwrap();
    Run {
        entries: log.entries(),
        relays: sent.load(Ordering::Relaxed),
    }
}

/// The deliveries of node `name`, in processing order.
fn received<'a>(run: &'a Run, name: &str) -> Vec<&'a Msg> {
    run.entries
        .iter()
        .filter(|e| e.model == name)
        .map(|e| &e.value)
        .collect()
}

/// Checks both causal-messaging rules and delivery on one run.
fn check_causality(bench: &Bench, run: &Run) -> Result<(), TestCaseError> {
    prop_assert_eq!(
        run.entries.len() as u64,
        run.relays + bench.events.len() as u64,
        "a message was lost or duplicated"
    );
    for entry in &run.entries {
        prop_assert_eq!(entry.time, entry.value.born, "delivered at another time");
    }
    for id in 0..bench.nodes {
        let got = received(run, &format!("n{id}"));
        for (i, earlier) in got.iter().enumerate() {
            for later in &got[i + 1..] {
                // `later`'s send must not have happened before `earlier`'s.
                let s = later.sender;
                prop_assert!(
                    later.clock[s] > earlier.clock[s],
                    "n{} processed {:?} before {:?}, which was sent first",
                    id,
                    earlier,
                    later
                );
            }
        }
    }
    Ok(())
}

/// What each node received, as a sorted multiset of `(root, hops, sender)`.
fn receipts(bench: &Bench, run: &Run) -> Vec<Vec<(usize, u8, usize)>> {
    (0..bench.nodes)
        .map(|id| {
            let mut got: Vec<_> = received(run, &format!("n{id}"))
                .into_iter()
                .map(|m| (m.root, m.hops, m.sender))
                .collect();
            got.sort_unstable();
            got
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn causal_rules_hold_on_two_threads(bench in bench()) {
        check_causality(&bench, &run(&bench, 2))?;
    }

    #[test]
    fn causal_rules_hold_on_four_threads(bench in bench()) {
        check_causality(&bench, &run(&bench, 4))?;
    }

    #[test]
    fn causal_rules_hold_on_one_thread(bench in bench()) {
        check_causality(&bench, &run(&bench, 1))?;
    }

    #[test]
    fn order_insensitive_results_agree_on_every_executor(bench in bench()) {
        let reference = receipts(&bench, &run(&bench, 1));
        prop_assert_eq!(&receipts(&bench, &run(&bench, 2)), &reference);
        prop_assert_eq!(&receipts(&bench, &run(&bench, 4)), &reference);
    }
}
