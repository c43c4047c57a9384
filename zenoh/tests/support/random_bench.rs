//! A randomised partitioned bench: partitions of nodes that hash what they
//! receive into their state, log it, and pass messages on — to a
//! neighbour in their partition, across links (several outputs into one
//! link, one output into several links, several links into one node, a
//! link back into its own partition), or to themselves later — until each
//! message's hop budget is spent.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use causim::prelude::*;
use causim::CallbackSink;
use causim_zenoh::{Deployment, Link, PartitionRunner, PartitionedBench, WindowStats};
use serde::{Deserialize, Serialize};

/// A message: a value and the hops it may still make.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Msg {
    pub value: u64,
    pub ttl: u32,
}

/// One line of a node's log: when, what, and its state after.
pub type Line = (u64, u64, u64);

/// Every node's log, by node path (filled by whichever process hosts it).
pub type Logs = Arc<Mutex<std::collections::BTreeMap<String, Vec<Line>>>>;

/// Every node's address, by node path (filled by whichever process hosts
/// it), for the bench events a test schedules between two runs.
pub type Addresses = Arc<Mutex<BTreeMap<String, Address<Node>>>>;

/// SplitMix64: a small, portable generator for the bench's shape.
pub struct Mix(pub u64);

impl Mix {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn mix(a: u64, b: u64) -> u64 {
    Mix(a ^ b.rotate_left(17)).next()
}

#[model(save)]
pub struct Node {
    /// To the next node of the partition.
    pub local: Output<Msg>,
    /// Across the links this node feeds.
    pub remote: Output<Msg>,
    /// The node's log.
    pub log: Output<Line>,
    state: u64,
    /// First events: (delay ns, value).
    #[transient]
    starts: Vec<(u64, u64)>,
}

#[model(save)]
impl Node {
    #[init]
    fn start(&mut self, cx: &mut Context<Self>) {
        for &(delay, value) in &self.starts {
            let msg = Msg { value, ttl: 12 };
            cx.schedule(Duration::from_nanos(delay), Self::ports().receive, msg)
                .expect("positive delays");
        }
    }

    #[input]
    pub async fn receive(&mut self, msg: Msg, cx: &mut Context<Self>) {
        let now = cx.time().as_nanos();
        self.state = mix(self.state, msg.value ^ now);
        self.log.send((now, msg.value, self.state)).await;
        if msg.ttl == 0 {
            return;
        }
        let next = Msg {
            value: self.state,
            ttl: msg.ttl - 1,
        };
        match self.state % 4 {
            0 => self.local.send(next).await,
            1 => self.remote.send(next).await,
            2 => {
                self.remote.send(next).await;
                self.local
                    .send(Msg {
                        ttl: next.ttl / 2,
                        ..next
                    })
                    .await;
            }
            _ => {
                let delay = Duration::from_nanos(1 + self.state % 40);
                cx.schedule(delay, Self::ports().receive, next)
                    .expect("positive delay");
            }
        }
    }
}

/// A link of the shape.
struct LinkShape {
    from: usize,
    to: usize,
    lookahead: u64,
    senders: Vec<usize>,
    receivers: Vec<usize>,
}

/// The shape drawn from a seed.
struct Shape {
    partitions: usize,
    nodes: usize,
    links: Vec<LinkShape>,
    /// First events per partition and node.
    starts: Vec<Vec<Vec<(u64, u64)>>>,
}

fn shape(seed: u64, partitions: usize) -> Shape {
    let mut rng = Mix(seed);
    let nodes = 2 + rng.below(3) as usize;
    let mut links = Vec::new();
    for from in 0..partitions {
        for to in 0..partitions {
            let wanted = if from == to {
                rng.below(4) == 0
            } else {
                rng.below(3) != 0
            };
            if wanted || (to == (from + 1) % partitions && from != to) {
                let lookahead = 1 + rng.below(30);
                let senders = pick(&mut rng, nodes);
                let receivers = pick(&mut rng, nodes);
                links.push(LinkShape {
                    from,
                    to,
                    lookahead,
                    senders,
                    receivers,
                });
            }
        }
    }
    let starts = (0..partitions)
        .map(|_| {
            (0..nodes)
                .map(|_| {
                    (0..rng.below(3))
                        .map(|_| (1 + rng.below(50), rng.next()))
                        .collect()
                })
                .collect()
        })
        .collect();
    Shape {
        partitions,
        nodes,
        links,
        starts,
    }
}

/// One to all of `n` indices.
fn pick(rng: &mut Mix, n: usize) -> Vec<usize> {
    let chosen: Vec<usize> = (0..n).filter(|_| rng.below(2) == 0).collect();
    if chosen.is_empty() {
        vec![rng.below(n as u64) as usize]
    } else {
        chosen
    }
}

/// The partition names.
pub fn partition_names(partitions: usize) -> Vec<String> {
    (0..partitions).map(|p| format!("p{p}")).collect()
}

/// The bench of `seed` with `partitions` partitions, logging into `logs`.
pub fn bench(seed: u64, partitions: usize, logs: &Logs) -> PartitionedBench {
    bench_with_addresses(seed, partitions, logs, &Addresses::default())
}

/// [`bench`], noting each hosted node's address in `addresses`.
pub fn bench_with_addresses(
    seed: u64,
    partitions: usize,
    logs: &Logs,
    addresses: &Addresses,
) -> PartitionedBench {
    let shape = Arc::new(shape(seed, partitions));
    let names = partition_names(partitions);
    let mut bench = PartitionedBench::new();
    let links: Vec<Link<Msg>> = shape
        .links
        .iter()
        .enumerate()
        .map(|(i, link)| {
            bench.link::<Msg>(
                format!("l{i}"),
                names[link.from].clone(),
                names[link.to].clone(),
                Duration::from_nanos(link.lookahead),
            )
        })
        .collect();
    let links = Arc::new(links);
    for (p, name) in names.iter().enumerate() {
        let (shape, links, logs) = (shape.clone(), links.clone(), logs.clone());
        let registry = addresses.clone();
        bench.partition(name.clone(), move |b| {
            let mailboxes: Vec<Mailbox<Node>> = (0..shape.nodes).map(|_| Mailbox::new()).collect();
            for (k, mailbox) in mailboxes.iter().enumerate() {
                for (i, link) in shape.links.iter().enumerate() {
                    if link.to == p && link.receivers.contains(&k) {
                        b.link_to(links[i], Node::ports().receive, mailbox);
                    }
                }
            }
            let addresses: Vec<Address<Node>> = mailboxes.iter().map(Mailbox::address).collect();
            for (k, mailbox) in mailboxes.into_iter().enumerate() {
                let path = format!("n{p}_{k}");
                registry
                    .lock()
                    .unwrap()
                    .insert(path.clone(), addresses[k].clone());
                let mut node = Node {
                    local: Output::new(),
                    remote: Output::new(),
                    log: Output::new(),
                    state: seed ^ (p * 100 + k) as u64,
                    starts: shape.starts[p][k].clone(),
                };
                node.local
                    .connect(Node::ports().receive, &addresses[(k + 1) % shape.nodes]);
                for (i, link) in shape.links.iter().enumerate() {
                    if link.from == p && link.senders.contains(&k) {
                        b.link_from(links[i], &mut node.remote);
                    }
                }
                let logs = logs.clone();
                let name = path.clone();
                let sink = CallbackSink::new(move |line: Line| {
                    logs.lock()
                        .unwrap()
                        .entry(name.clone())
                        .or_default()
                        .push(line);
                });
                node.log.connect_sink(&sink);
                b.add_model(node, mailbox, path);
            }
        });
    }
    bench
}

/// The end of every run, in two calls (the second continues the first).
pub const END: [u64; 2] = [150, 400];

/// Four partitions hosted by `processes` processes (1, 2 or 4).
pub fn deployment(processes: usize) -> Deployment {
    let names = partition_names(4);
    match processes {
        1 => Deployment::single(),
        2 => Deployment::new([[&names[0], &names[2]], [&names[1], &names[3]]]),
        4 => Deployment::new(names.iter().map(|n| [n])),
        _ => unreachable!(),
    }
}

/// Runs `runner` to each end of [`END`].
pub fn drive(runner: &mut PartitionRunner) -> WindowStats {
    for end in END {
        runner
            .run_until(SimTime::from_nanos(end))
            .expect("the run succeeds");
    }
    runner.stats()
}

/// Runs `runner` to each end of [`END`], and between the two schedules
/// bench events for the nodes it hosts (from `addresses`) at times drawn
/// from `seed`, in the span where link messages arrive too.
pub fn drive_with_bench_events(
    runner: &mut PartitionRunner,
    addresses: &Addresses,
    seed: u64,
) -> WindowStats {
    runner
        .run_until(SimTime::from_nanos(END[0]))
        .expect("the run succeeds");
    let hosted = runner.partitions();
    let scheduler = runner.simulation().scheduler();
    for (path, address) in addresses.lock().unwrap().iter() {
        // `n{p}_{k}` is in partition `p{p}`.
        let partition = format!("p{}", &path[1..path.find('_').expect("n{p}_{k}")]);
        if !hosted.contains(&partition) {
            continue;
        }
        let mut rng = Mix(path.bytes().fold(seed, |h, b| mix(h, u64::from(b))));
        for t in END[0] + 1..END[0] + 60 {
            if rng.below(3) == 0 {
                let msg = Msg {
                    value: rng.next(),
                    ttl: 3,
                };
                let event = Event::new(Node::ports().receive, msg, address);
                scheduler
                    .schedule_event(SimTime::from_nanos(t), event)
                    .expect("a node of this process, in the future");
            }
        }
    }
    runner
        .run_until(SimTime::from_nanos(END[1]))
        .expect("the run succeeds");
    runner.stats()
}

/// Where two runs' logs first differ, in a line.
pub fn first_difference(
    reference: &BTreeMap<String, Vec<Line>>,
    other: &BTreeMap<String, Vec<Line>>,
) -> Option<String> {
    let nodes: Vec<&String> = reference.keys().chain(other.keys()).collect();
    for node in nodes {
        let (a, b) = (reference.get(node), other.get(node));
        let (a, b) = (
            a.map_or(&[][..], Vec::as_slice),
            b.map_or(&[][..], Vec::as_slice),
        );
        if let Some(i) = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)) {
            return Some(format!(
                "node {node}, line {i}: {:?} where one process logged {:?} ({} and {} lines)",
                b.get(i),
                a.get(i),
                b.len(),
                a.len()
            ));
        }
    }
    None
}
