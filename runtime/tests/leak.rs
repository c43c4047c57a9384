//! Dropping a simulation frees everything it allocated, on every executor.
//!
//! A counting global allocator (in this test binary only) keeps the number
//! of live heap blocks and bytes: allocations minus deallocations. Each
//! case builds a bench on 1, 2 or 4 threads whose models have exchanged
//! messages (so their mailboxes' rings are allocated), waited on a full
//! mailbox (the producers' wait list), made requests (reply slots), and
//! left scheduled, keyed and periodic events pending; then it drops the
//! simulation and everything that refers to it. The live count must come
//! back to exactly where it was.
//!
//! On several threads, each mailbox holds its consumer task's waker, and
//! each task holds its mailbox: a reference cycle that only the executor's
//! teardown can break (see `docs/architecture.md`). This test is what
//! keeps that cycle from leaking every model again.
//!
//! The counter is process-wide (worker threads allocate too), so nothing
//! else may run during a measurement: this target has no test harness
//! (`harness = false` in `Cargo.toml`), whose own threads would allocate
//! meanwhile; `main` runs the cases one after the other, after a warm-up
//! that lets the standard library set up its lazy statics.

mod common;
use common::*;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::Duration;

/// Counts live blocks and bytes.
struct LiveAllocator;

/// Blocks allocated and not yet freed.
static LIVE_BLOCKS: AtomicIsize = AtomicIsize::new(0);
/// Bytes allocated and not yet freed.
static LIVE_BYTES: AtomicIsize = AtomicIsize::new(0);

/// Notes that a block of `size` bytes was allocated (`sign = 1`) or freed
/// (`sign = -1`).
fn note(sign: isize, size: usize) {
    LIVE_BLOCKS.fetch_add(sign, Ordering::Relaxed);
    LIVE_BYTES.fetch_add(sign * size as isize, Ordering::Relaxed);
}

// SAFETY: every method forwards to `System` with the caller's arguments
// unchanged, so `System`'s guarantees hold; the counting is a side effect
// on atomics, which neither allocates nor unwinds.
unsafe impl GlobalAlloc for LiveAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is; the caller upholds `alloc`'s contract.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            note(1, layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is; the caller upholds the contract.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            note(1, layout.size());
        }
        ptr
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded as is; the caller upholds the contract.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            // Still one block: only its size changed.
            note(1, new_size);
            note(-1, layout.size());
        }
        new
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        note(-1, layout.size());
        // SAFETY: forwarded as is; `ptr` came from this allocator, i.e.
        // from `System`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: LiveAllocator = LiveAllocator;

/// Live blocks and bytes now.
fn live() -> (isize, isize) {
    (
        LIVE_BLOCKS.load(Ordering::SeqCst),
        LIVE_BYTES.load(Ordering::SeqCst),
    )
}

/// Ticks on its own events: every tick schedules the next one, plus a
/// keyed event that the following tick cancels, and one that stays
/// pending; answers how many ticks it saw.
#[model]
struct Ticker {
    /// Ticks seen.
    ticks: u64,
    /// The keyed event to cancel at the next tick.
    pending: Option<EventKey>,
}

#[model]
impl Ticker {
    #[input]
    async fn tick(&mut self, _: (), cx: &mut Context<Self>) {
        self.ticks += 1;
        if let Some(key) = self.pending.take() {
            key.cancel();
        }
        cx.schedule(Duration::from_secs(1), Self::ports().tick, ())
            .unwrap();
        self.pending = Some(
            cx.schedule_keyed(Duration::from_millis(1500), Self::ports().tick, ())
                .unwrap(),
        );
        // Never cancelled: still queued when the bench is dropped.
        drop(cx.schedule_keyed(Duration::from_secs(3600), Self::ports().tick, ()));
    }

    #[replier]
    async fn count(&mut self, _: (), _cx: &mut Context<Self>) -> u64 {
        self.ticks
    }
}

/// Panics on its second message, after sending the first on.
#[model]
struct Fragile {
    /// Where the first message goes.
    out: Output<u64>,
    /// Messages seen.
    seen: u64,
}

#[model]
impl Fragile {
    #[input]
    async fn input(&mut self, value: u64, _cx: &mut Context<Self>) {
        self.seen += 1;
        assert!(self.seen < 2, "fragile model broke on {value}");
        self.out.send(value).await;
    }
}

/// Number of forwarders in the chain.
const CHAIN: usize = 40;

/// Builds a bench on `threads` threads, runs it, drops it; returns a
/// figure of the work done, so that the run is not trivially empty.
fn run_bench(threads: usize) -> usize {
    let log = Log::new();
    let replies = Log::new();
    let mut init = SimInit::new().with_threads(threads);

    // A chain of forwarders ending at a recorder with a tiny mailbox, so
    // that the last forwarder waits for room.
    let sink = Mailbox::with_capacity(1);
    let mut last = Forwarder::<u64>::new();
    last.out.connect(Recorder::ports().input, &sink);
    let mbox = Mailbox::with_capacity(2);
    let mut first = mbox.address();
    init = init.add_model(last, mbox, "forwarder 0");
    for i in 1..CHAIN {
        let mut forwarder = Forwarder::<u64>::new();
        forwarder.out.connect(Forwarder::ports().input, &first);
        let mbox = Mailbox::with_capacity(2);
        first = mbox.address();
        init = init.add_model(forwarder, mbox, format!("forwarder {i}"));
    }
    init = init.add_model(Recorder::new(&log), sink, "sink");

    // A requester asking two repliers.
    let mut requester = Requester::<u64, u64>::new(&replies);
    let requester_mbox = Mailbox::new();
    let requester_addr = requester_mbox.address();
    for i in 0..2 {
        let mbox = Mailbox::new();
        requester.req.connect(Replier::ports().reply, &mbox);
        init = init.add_model(Replier::new(|x: u64| x + 1), mbox, format!("replier {i}"));
    }
    init = init.add_model(requester, requester_mbox, "requester");

    // Self-scheduling tickers.
    let tickers: Vec<_> = (0..4).map(|_| Mailbox::new()).collect();
    let ticker_addrs: Vec<_> = tickers.iter().map(Mailbox::address).collect();
    for (i, mbox) in tickers.into_iter().enumerate() {
        let ticker = Ticker {
            ticks: 0,
            pending: None,
        };
        init = init.add_model(ticker, mbox, format!("ticker {i}"));
    }

    let mut simu = init.init(SimTime::ZERO).expect("bench initialisation");
    let scheduler = simu.scheduler();
    for addr in &ticker_addrs {
        scheduler
            .schedule(Duration::from_secs(1), Ticker::ports().tick, (), addr)
            .unwrap();
    }
    // Bench events left pending: plain, keyed and periodic.
    scheduler
        .schedule(
            Duration::from_secs(7200),
            Forwarder::ports().input,
            9,
            &first,
        )
        .unwrap();
    let _key = scheduler
        .schedule_keyed(
            Duration::from_secs(7200),
            Forwarder::ports().input,
            9,
            &first,
        )
        .unwrap();
    scheduler
        .schedule_periodic(
            Duration::from_millis(700),
            Duration::from_millis(700),
            Forwarder::ports().input,
            7,
            &first,
        )
        .unwrap();
    for value in 0..20 {
        simu.process_event(Forwarder::ports().input, value, &first)
            .unwrap();
        simu.process_event(Requester::ports().ask, value, &requester_addr)
            .unwrap();
    }
    simu.step_until(SimTime::ZERO + Duration::from_secs(5))
        .unwrap();
    let ticks = simu
        .process_query(Ticker::ports().count, (), &ticker_addrs[0])
        .unwrap();
    assert!(ticks >= 4, "the tickers ran ({ticks} ticks)");
    drop(simu);
    log.len() + replies.len()
}

/// Builds a bench on `threads` threads in which a model panics while
/// messages are queued for it and others wait on it; drops it. Returns 1
/// (the panic was reported).
fn run_panicking_bench(threads: usize) -> usize {
    let log = Log::new();
    let fragile_mbox = Mailbox::with_capacity(1);
    let fragile_addr = fragile_mbox.address();
    let sink = Mailbox::new();
    let mut fragile = Fragile {
        out: Output::new(),
        seen: 0,
    };
    fragile.out.connect(Recorder::ports().input, &sink);
    // Emitters flooding the fragile model's one-message mailbox: some wait
    // for room when it panics.
    let mut init = SimInit::new()
        .with_threads(threads)
        .add_model(fragile, fragile_mbox, "fragile")
        .add_model(Recorder::new(&log), sink, "sink");
    let mut emitters = Vec::new();
    for i in 0..4 {
        let mut emitter = Emitter::<u64>::new(1);
        emitter.outs[0].connect(Fragile::ports().input, &fragile_addr);
        let mbox = Mailbox::new();
        emitters.push(mbox.address());
        init = init.add_model(emitter, mbox, format!("emitter {i}"));
    }
    let mut simu = init.init(SimTime::ZERO).expect("bench initialisation");
    let script: Vec<_> = (0..8).map(|v| (0, v)).collect();
    for emitter in &emitters {
        simu.scheduler()
            .schedule(
                Duration::from_secs(1),
                Emitter::ports().emit,
                script.clone(),
                emitter,
            )
            .unwrap();
    }
    let error = simu.step().expect_err("the fragile model panics");
    assert!(
        matches!(&error, SimulationError::ModelPanic { model, .. } if model == "fragile"),
        "{error}"
    );
    drop(simu);
    // Only the first message got through (whether the sink ran before
    // polling stopped depends on the threads).
    assert!(log.len() <= 1);
    1
}

/// A case: builds, runs and drops a bench on the given number of threads.
type Bench = fn(usize) -> usize;

/// Runs one case and checks that it left nothing allocated.
fn check(case: &str, threads: usize, bench: Bench) {
    let before = live();
    let work = bench(threads);
    let after = live();
    assert!(
        work > 0,
        "{case}, {threads} thread(s): the bench did its work"
    );
    assert_eq!(
        after,
        before,
        "{case}, {threads} thread(s): dropping the simulation left {} blocks ({} bytes) allocated",
        after.0 - before.0,
        after.1 - before.1,
    );
    println!("{case}, {threads} thread(s): every block freed");
}

fn main() {
    // The expected model panics need not be printed; anything else is.
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let expected = info
            .payload()
            .downcast_ref::<String>()
            .is_some_and(|m| m.starts_with("fragile model broke"));
        if !expected {
            report(info);
        }
    }));
    let cases: [(&str, Bench); 2] = [
        ("messages, requests and events", run_bench),
        ("a model panic", run_panicking_bench),
    ];
    // Warm up: the standard library's lazy statics (the main thread's
    // handle, thread spawning, panics) allocate once and keep it.
    for (_, bench) in cases {
        for threads in [1, 2, 4] {
            bench(threads);
        }
    }
    for (case, bench) in cases {
        for threads in [1, 2, 4] {
            check(case, threads, bench);
        }
    }
}
