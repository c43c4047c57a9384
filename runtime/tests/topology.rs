//! The bench's topology: every connection made appears exactly once, with
//! its kind and mapping (through composites nested three deep too), from
//! `SimInit::topology` and, unchanged, from
//! `Simulation::topology` after the bench ran; a hand-written model that
//! does not list its connections shows its ports and no connection.

mod common;
use common::*;

use causim::model::{ModelMetadata, PortKind, PortMetadata};
use causim::ports::{InputRef, QuerySource, ReplierRef, UniRequestor};
use causim::topology::{ConnectionKind, Endpoint, Mapping, Topology};
use proptest::prelude::*;

/// A model with one port of each kind, sending on all of its sending
/// ports when ticked, so that a run shows the connections work.
#[model]
struct Node {
    /// Events to inputs and sinks.
    out: Output<u32>,
    /// Requests to repliers.
    ask: Requestor<u32, u32>,
    /// Values received.
    got: u32,
}

#[model]
impl Node {
    #[input]
    async fn tick(&mut self, value: u32) {
        self.got += value;
        self.out.send(value).await;
        let _ = self.ask.send(value).await.count();
    }

    #[input]
    fn take(&mut self, value: u32) {
        self.got += value;
    }

    #[replier]
    fn read(&mut self, request: u32) -> u32 {
        self.got + request
    }
}

/// A uni-requestor: built with its one connection, so a model of its own.
#[model]
struct Prober {
    /// The one replier.
    probe: UniRequestor<u32, u32>,
}

#[model]
impl Prober {
    #[input]
    async fn poll(&mut self, value: u32) {
        let _ = self.probe.send(value).await;
    }
}

impl Node {
    fn new() -> Self {
        Node {
            out: Output::new(),
            ask: Requestor::new(),
            got: 0,
        }
    }
}

/// A connection as the exports name it.
type Named = (String, String, ConnectionKind, Mapping);

/// Every connection of `topology`, named, sorted.
fn named(topology: &Topology) -> Vec<Named> {
    let mut all: Vec<Named> = topology
        .connections()
        .iter()
        .map(|c| {
            (
                topology.endpoint_name(c.from),
                topology.endpoint_name(c.to),
                c.kind,
                c.mapping,
            )
        })
        .collect();
    all.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
    all
}

/// `(from, to, kind, mapping)` with owned names.
fn made(from: &str, to: &str, kind: ConnectionKind, mapping: Mapping) -> Named {
    (from.to_string(), to.to_string(), kind, mapping)
}

#[test]
fn every_connection_made_appears_exactly_once() {
    use ConnectionKind::{Event, Request};
    use Mapping::{Direct, FilterMap, Map};
    let (a, b, c, p) = (
        Mailbox::new(),
        Mailbox::new(),
        Mailbox::new(),
        Mailbox::new(),
    );
    let named_sink = EventQueue::new();
    let unnamed_sink = EventSlot::new();
    let mut expected = Vec::new();

    let mut node_a = Node::new();
    node_a.out.connect(Node::ports().take, &b);
    expected.push(made("a.out", "b.take", Event, Direct));
    node_a.out.map_connect(|x| x + 1, Node::ports().take, &c);
    expected.push(made("a.out", "c.take", Event, Map));
    node_a
        .out
        .filter_map_connect(|x| (x > 1).then_some(x), Node::ports().take, &c);
    expected.push(made("a.out", "c.take", Event, FilterMap));
    node_a.out.connect_sink(&named_sink);
    expected.push(made("a.out", "values", Event, Direct));
    node_a.ask.connect(Node::ports().read, &b);
    expected.push(made("a.ask", "b.read", Request, Direct));
    node_a
        .ask
        .map_connect(|x| x, Node::ports().read, |r: u32| r * 2, &c);
    expected.push(made("a.ask", "c.read", Request, Map));

    let mut node_b = Node::new();
    // The same output to the same input twice: two connections.
    node_b.out.connect(Node::ports().take, &a);
    node_b.out.connect(Node::ports().take, &a);
    expected.push(made("b.out", "a.take", Event, Direct));
    expected.push(made("b.out", "a.take", Event, Direct));
    node_b.out.connect_sink(&unnamed_sink);
    expected.push(made("b.out", "b.out", Event, Direct));

    let prober = Prober {
        probe: UniRequestor::new(Node::ports().read, &a),
    };
    expected.push(made("p.probe", "a.read", Request, Direct));
    let mapped_prober = Prober {
        probe: UniRequestor::with_map(|x| x, Node::ports().read, |r| r, &b),
    };
    expected.push(made("q.probe", "b.read", Request, Map));
    let q = Mailbox::new();

    let mut events = EventSource::new();
    events.connect(Node::ports().tick, &a);
    expected.push(made("ticks", "a.tick", Event, Direct));
    events.map_connect(|x: u32| x * 10, Node::ports().tick, &b);
    expected.push(made("ticks", "b.tick", Event, Map));
    events.filter_map_connect(|x: u32| (x > 0).then_some(x), Node::ports().take, &c);
    expected.push(made("ticks", "c.take", Event, FilterMap));
    let mut probes = EventSource::new();
    probes.connect(Prober::ports().poll, &p);
    probes.connect(Prober::ports().poll, &q);
    expected.push(made("probes", "p.poll", Event, Direct));
    expected.push(made("probes", "q.poll", Event, Direct));
    let mut queries = QuerySource::<u32, u32>::new();
    queries.connect(Node::ports().read, &c);
    expected.push(made("queries", "c.read", Request, Direct));
    queries.map_connect(|x| x, Node::ports().read, |r| r, &a);
    expected.push(made("queries", "a.read", Request, Map));

    let init = sim_init()
        .add_model(node_a, a, "a")
        .add_model(node_b, b, "b")
        .add_model(Node::new(), c, "c")
        .add_model(prober, p, "p")
        .add_model(mapped_prober, q, "q")
        .add_event_source(&events, "ticks")
        .add_event_source(&probes, "probes")
        .add_query_source(&queries, "queries")
        .add_sink(&named_sink, "values");
    expected.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
    let before = init.topology();
    assert_eq!(named(&before), expected);

    // The simulation keeps the bench's topology, and the connections work.
    let mut simu = start(init);
    simu.process(events.event(1)).unwrap();
    simu.process(probes.event(1)).unwrap();
    let replies = simu.process_query_from(&mut queries, 1).unwrap();
    assert_eq!(replies.len(), 2);
    assert!(!named_sink.is_empty() && unnamed_sink.peek().is_some());
    assert_eq!(simu.topology(), before);
}

/// Level 3 of a nested bench: `a` feeding `b`. Exposes `a.tick`,
/// `b.read` and `b.out`.
struct Cell {
    a: Node,
    a_mailbox: Mailbox<Node>,
    b: Node,
    b_mailbox: Mailbox<Node>,
}

impl Cell {
    fn new() -> Self {
        let (mut a, b_mailbox) = (Node::new(), Mailbox::new());
        a.out.connect(Node::ports().tick, &b_mailbox);
        Cell {
            a,
            a_mailbox: Mailbox::new(),
            b: Node::new(),
            b_mailbox,
        }
    }

    fn tick(&self) -> InputRef<Node, u32> {
        InputRef::new(Node::ports().tick, &self.a_mailbox)
    }

    fn read(&self) -> ReplierRef<Node, u32, u32> {
        ReplierRef::new(Node::ports().read, &self.b_mailbox)
    }

    fn out(&mut self) -> &mut Output<u32> {
        &mut self.b.out
    }
}

impl Composite for Cell {
    fn build(self, cx: &mut BuildContext<'_>) {
        cx.add_model(self.a, self.a_mailbox, "a")
            .add_model(self.b, self.b_mailbox, "b");
    }
}

/// Level 2: cell `c1` feeding cell `c2` through a map. Exposes `c1`'s
/// tick, `c2`'s read and out.
struct Block {
    c1: Cell,
    c2: Cell,
}

impl Block {
    fn new() -> Self {
        let (mut c1, c2) = (Cell::new(), Cell::new());
        c1.out().map_connect_to(|x| x + 1, &c2.tick());
        Block { c1, c2 }
    }
}

impl Composite for Block {
    fn build(self, cx: &mut BuildContext<'_>) {
        cx.add_composite(self.c1, "c1").add_composite(self.c2, "c2");
    }
}

/// Level 1: a block and a prober asking the block's exposed replier.
struct Top {
    block: Block,
    probe: Prober,
    probe_mailbox: Mailbox<Prober>,
}

impl Composite for Top {
    fn build(self, cx: &mut BuildContext<'_>) {
        cx.add_composite(self.block, "blk")
            .add_model(self.probe, self.probe_mailbox, "probe");
    }
}

#[test]
fn connections_through_nested_composites_appear_exactly_once() {
    use ConnectionKind::{Event, Request};
    use Mapping::{Direct, FilterMap, Map};
    let mut block = Block::new();
    let (tick, read) = (block.c1.tick(), block.c2.read());
    let values = EventQueue::new();
    block.c2.out().connect_sink(&values);
    let top = Top {
        block,
        probe: Prober {
            probe: UniRequestor::to(&read),
        },
        probe_mailbox: Mailbox::new(),
    };
    // The bench outside: a flat model, an event source and a query
    // source, all through the exposed ports.
    let mut outer = Node::new();
    outer.ask.connect_to(&read);
    outer
        .out
        .filter_map_connect_to(|x| (x > 0).then_some(x), &tick);
    let mut events = EventSource::new();
    events.connect_to(&tick);
    let mut queries = QuerySource::<u32, u32>::new();
    queries.connect_to(&read);
    let init = sim_init()
        .add_composite(top, "sys")
        .add_model(outer, Mailbox::new(), "outer")
        .add_event_source(&events, "ticks")
        .add_query_source(&queries, "queries")
        .add_sink(&values, "values");

    let mut expected = vec![
        made("sys/blk/c1/a.out", "sys/blk/c1/b.tick", Event, Direct),
        made("sys/blk/c2/a.out", "sys/blk/c2/b.tick", Event, Direct),
        made("sys/blk/c1/b.out", "sys/blk/c2/a.tick", Event, Map),
        made("sys/blk/c2/b.out", "values", Event, Direct),
        made("sys/probe.probe", "sys/blk/c2/b.read", Request, Direct),
        made("outer.ask", "sys/blk/c2/b.read", Request, Direct),
        made("outer.out", "sys/blk/c1/a.tick", Event, FilterMap),
        made("ticks", "sys/blk/c1/a.tick", Event, Direct),
        made("queries", "sys/blk/c2/b.read", Request, Direct),
    ];
    expected.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
    let topology = init.topology();
    assert_eq!(named(&topology), expected);

    // The clusters, each in its parent.
    let clusters: Vec<(&str, Option<&str>)> = topology
        .composites()
        .iter()
        .map(|c| {
            let parent = c.parent.map(|p| topology.composites()[p].path.as_str());
            (c.path.as_str(), parent)
        })
        .collect();
    assert_eq!(
        clusters,
        [
            ("sys", None),
            ("sys/blk", Some("sys")),
            ("sys/blk/c1", Some("sys/blk")),
            ("sys/blk/c2", Some("sys/blk")),
        ]
    );

    // The connections work, and the simulation shows the same graph.
    let mut simu = start(init);
    simu.process(events.event(1)).unwrap();
    assert_eq!(values.len(), 1);
    assert_eq!(simu.process_query_from(&mut queries, 0).unwrap().len(), 1);
    assert_eq!(simu.topology(), topology);
}

#[test]
fn ports_are_listed_with_their_types() {
    let topology = sim_init()
        .add_model(Node::new(), Mailbox::new(), "n")
        .topology();
    let node = &topology.models()[0];
    assert_eq!((node.path.as_str(), node.type_name), ("n", "Node"));
    let ports: Vec<String> = node.ports().map(|p| p.to_string()).collect();
    assert_eq!(
        ports,
        [
            "tick: InputPort<u32>",
            "take: InputPort<u32>",
            "read: ReplierPort<u32, u32>",
            "out: Output<u32>",
            "ask: Requestor<u32, u32>",
        ]
    );
    assert!(topology.connections().is_empty());
}

/// A hand-written model that does not implement `list_connections`.
struct Quiet {
    /// Connected, but not listed.
    out: Output<u32>,
}

/// `Quiet` takes no message.
enum QuietMessage {}

impl Model for Quiet {
    type Message = QuietMessage;

    async fn dispatch(&mut self, message: QuietMessage, _cx: &mut Context<Self>) {
        match message {}
    }

    fn metadata() -> ModelMetadata {
        ModelMetadata {
            type_name: "Quiet",
            inputs: &[],
            outputs: &[PortMetadata {
                name: "out",
                kind: PortKind::Output,
                payload: "u32",
                reply: None,
                required: false,
            }],
        }
    }
}

#[test]
fn a_hand_written_model_without_a_listing_shows_no_connection() {
    let b = Mailbox::new();
    let mut quiet = Quiet { out: Output::new() };
    quiet.out.connect(Node::ports().take, &b);
    let topology = sim_init()
        .add_model(quiet, Mailbox::new(), "quiet")
        .add_model(Node::new(), b, "b")
        .topology();
    assert_eq!(topology.models()[0].outputs.len(), 1);
    assert!(topology.connections().is_empty());
}

#[test]
fn a_source_connected_after_it_was_named_shows_the_connections_it_had() {
    let a = Mailbox::new();
    let mut events = EventSource::new();
    let init = sim_init().add_event_source(&events, "late");
    events.connect(Node::ports().tick, &a);
    let topology = init.add_model(Node::new(), a, "a").topology();
    assert_eq!(topology.sources().len(), 1);
    assert!(topology.connections().is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Random wiring of `n` models: each connection drawn appears once,
    /// whatever the order in which its ends were added.
    #[test]
    fn random_wiring_appears_exactly_once(
        n in 1usize..6,
        wiring in proptest::collection::vec((0usize..6, 0usize..6, 0u8..4), 0..24),
    ) {
        let mailboxes: Vec<Mailbox<Node>> = (0..n).map(|_| Mailbox::new()).collect();
        let mut nodes: Vec<Node> = (0..n).map(|_| Node::new()).collect();
        let mut expected = Vec::new();
        for (from, to, how) in wiring {
            let (from, to) = (from % n, to % n);
            let (sender, recipient) = (format!("m{from}"), format!("m{to}"));
            let node = &mut nodes[from];
            let entry = match how {
                0 => {
                    node.out.connect(Node::ports().take, &mailboxes[to]);
                    made(&format!("{sender}.out"), &format!("{recipient}.take"), ConnectionKind::Event, Mapping::Direct)
                }
                1 => {
                    node.out.map_connect(|x| x, Node::ports().tick, &mailboxes[to]);
                    made(&format!("{sender}.out"), &format!("{recipient}.tick"), ConnectionKind::Event, Mapping::Map)
                }
                2 => {
                    node.ask.connect(Node::ports().read, &mailboxes[to]);
                    made(&format!("{sender}.ask"), &format!("{recipient}.read"), ConnectionKind::Request, Mapping::Direct)
                }
                _ => {
                    node.out.filter_map_connect(Some, Node::ports().take, &mailboxes[to]);
                    made(&format!("{sender}.out"), &format!("{recipient}.take"), ConnectionKind::Event, Mapping::FilterMap)
                }
            };
            expected.push(entry);
        }
        // Added last first: every recipient of an earlier model is added
        // before it, of a later one after it.
        let mut init = sim_init();
        for (i, (node, mailbox)) in nodes.into_iter().zip(mailboxes).enumerate().rev() {
            init = init.add_model(node, mailbox, format!("m{i}"));
        }
        expected.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
        let topology = init.topology();
        prop_assert_eq!(named(&topology), expected);
        let all_to_models = topology
            .connections()
            .iter()
            .all(|c| matches!(c.to, Endpoint::Port { .. }));
        prop_assert!(all_to_models);
    }
}

#[test]
fn a_callback_sink_is_a_sink_of_the_export() {
    let mut node = Node::new();
    let seen = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
    let callback = {
        let seen = seen.clone();
        causim::ports::CallbackSink::new(move |v: u32| {
            seen.fetch_add(v, std::sync::atomic::Ordering::Relaxed);
        })
    };
    node.out.connect_sink(&callback);
    let topology = sim_init()
        .add_model(node, Mailbox::new(), "node")
        .add_sink(&callback, "watch")
        .topology();
    assert_eq!(
        named(&topology),
        vec![made(
            "node.out",
            "watch",
            ConnectionKind::Event,
            Mapping::Direct
        )]
    );
}
