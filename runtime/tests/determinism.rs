//! Deterministic mode: the same randomized bench (20 models, random
//! connections, random scheduled events, random decisions inside models,
//! all from a seeded generator) run twice gives identical traces; different
//! seeds give different traces (so the trace is sensitive at all).

mod common;
use common::*;

/// xorshift64*: small, seedable, good enough for test inputs.
#[derive(Clone)]
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        // Never zero; mix the seed a little.
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform-ish in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One delivery as seen by a node: its name, the time, the hops left, the
/// payload and the node's state after it.
type Record = (String, SimTime, u32, u64, u64);

/// A node of the random bench.
#[model]
struct Node {
    out: Output<(u32, u64)>,
    req: Requestor<u64, u64>,
    state: u64,
    rng: Rng,
    trace: Log<Record>,
}

#[model]
impl Node {
    #[input]
    async fn input(&mut self, (hops, value): (u32, u64), cx: &mut Context<Self>) {
        self.state = self
            .state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(value);
        if hops > 0 {
            match self.rng.below(4) {
                0 => {
                    let delay = Duration::from_millis(1 + self.rng.below(3000));
                    cx.schedule(delay, Self::ports().input, (hops - 1, self.state))
                        .unwrap();
                }
                1 => {
                    let folded = self
                        .req
                        .send(self.state)
                        .await
                        .fold(0u64, |a, r| a.rotate_left(7) ^ r);
                    self.state ^= folded;
                    self.out.send((hops - 1, self.state)).await;
                }
                _ => self.out.send((hops - 1, self.state)).await,
            }
        }
        self.trace.push(
            cx.name(),
            cx.time(),
            (cx.name().to_string(), cx.time(), hops, value, self.state),
        );
    }

    #[replier]
    async fn peek(&mut self, x: u64, _cx: &mut Context<Self>) -> u64 {
        self.state = self.state.rotate_left(13) ^ x;
        self.state
    }
}

const NODES: usize = 20;

/// Builds and runs the random bench for `seed`; returns the global trace.
fn run_bench(seed: u64) -> Vec<Record> {
    let mut rng = Rng::new(seed);
    let trace = Log::new();
    let mboxes: Vec<Mailbox<Node>> = (0..NODES)
        .map(|_| Mailbox::with_capacity(1 + rng.below(4) as usize))
        .collect();
    let addrs: Vec<Address<Node>> = mboxes.iter().map(Mailbox::address).collect();
    let mut nodes: Vec<Node> = (0..NODES)
        .map(|i| Node {
            out: Output::new(),
            req: Requestor::new(),
            state: i as u64,
            rng: Rng::new(rng.next()),
            trace: trace.clone(),
        })
        .collect();
    // Connections only go to higher-numbered nodes: no cycle, so neither
    // requests nor full mailboxes can deadlock. Self-scheduling closes loops
    // in time instead.
    for (i, node) in nodes.iter_mut().enumerate() {
        let later = (NODES - i - 1) as u64;
        if later == 0 {
            continue;
        }
        for _ in 0..rng.below(3) {
            let to = i + 1 + rng.below(later) as usize;
            if rng.below(3) == 0 {
                let k = rng.next();
                node.out.map_connect(
                    move |(h, v): (u32, u64)| (h, v ^ k),
                    Node::ports().input,
                    &addrs[to],
                );
            } else {
                node.out.connect(Node::ports().input, &addrs[to]);
            }
        }
        for _ in 0..rng.below(3) {
            let to = i + 1 + rng.below(later) as usize;
            node.req.connect(Node::ports().peek, &addrs[to]);
        }
    }
    let mut init = sim_init();
    for (i, (node, mbox)) in nodes.into_iter().zip(mboxes).enumerate() {
        init = init.add_model(node, mbox, format!("n{i:02}"));
    }
    let mut simu = start(init);
    let scheduler = simu.scheduler();
    for _ in 0..100 {
        let time = SimTime::from_nanos(1 + rng.below(10_000_000_000));
        let to = rng.below(NODES as u64) as usize;
        let hops = 3 + rng.below(6) as u32;
        scheduler
            .schedule(time, Node::ports().input, (hops, rng.next()), &addrs[to])
            .unwrap();
    }
    // Mix the ways of advancing time.
    simu.step_until(t(3)).unwrap();
    simu.process_event(Node::ports().input, (3, rng.next()), &addrs[0])
        .unwrap();
    simu.step().unwrap();
    simu.run().unwrap();
    trace.values_of_all()
}

trait AllValues<T> {
    fn values_of_all(&self) -> Vec<T>;
}

impl<T: Clone> AllValues<T> for Log<T> {
    fn values_of_all(&self) -> Vec<T> {
        self.entries().into_iter().map(|e| e.value).collect()
    }
}

#[test]
fn same_seed_gives_identical_traces() {
    if !deterministic() {
        return;
    }
    for seed in [1, 2, 0xDEAD_BEEF] {
        let first = run_bench(seed);
        let second = run_bench(seed);
        assert!(
            first.len() > 200,
            "bench too small: {} deliveries",
            first.len()
        );
        assert_eq!(first, second, "seed {seed}");
    }
}

#[test]
fn different_seeds_give_different_traces() {
    let a = run_bench(11);
    let b = run_bench(12);
    assert_ne!(a, b);
}
