//! The message path allocates nothing: once buffers have grown, a message
//! from one model to another (output send, request/reply round trip, a
//! sender waiting on a full mailbox) costs zero heap allocations.
//!
//! A counting global allocator (in this test binary only) counts the
//! allocations of the thread that measures. Each measurement drives N
//! messages between models with ONE `process_event` call; the bench itself
//! may allocate a bounded number of times per call (the boxed event, …),
//! so the test asserts that the count does not grow with N: N = 1 000 and
//! N = 10 000 messages cost exactly the same number of allocations.
//!
//! A model that schedules its own next event through its context, one
//! event per time step, allocates nothing per step either: the box of a
//! fired event is reused for the next one.
//!
//! The benches run on the single-threaded executor (whatever
//! `CAUSIM_TEST_THREADS` says), where every model runs on the calling
//! thread, so a per-thread count sees all of their allocations and none
//! of anyone else's: the test harness's own threads allocate while a test
//! runs (a process-wide count failed about once in five full-suite runs).
//! Counting allocations made by worker threads needs a process-wide
//! count with nothing else running: see `tests/leak.rs`.

mod common;
use common::*;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Counts the allocations (and reallocations) of each thread while it has
/// asked to.
struct CountingAllocator;

thread_local! {
    /// True while this thread counts.
    // `const` and `Cell`: no lazy initialisation and no destructor, so the
    // allocator can read these without allocating, during thread exit too.
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    /// This thread's count.
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

/// Counts one allocation, if this thread is counting.
fn count_one() {
    // `try_with`: never panic inside the allocator, even if the slots
    // were gone (they have no destructor, so they never are).
    let counting = COUNTING.try_with(Cell::get).unwrap_or(false);
    if counting {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
    }
}

// SAFETY: every method forwards to `System` with the caller's arguments
// unchanged, so `System`'s guarantees hold; the counting is a side effect
// on thread-local cells, which neither allocates nor unwinds.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
        // SAFETY: forwarded as is; the caller upholds `alloc`'s contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count_one();
        // SAFETY: forwarded as is; the caller upholds the contract.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
        // SAFETY: forwarded as is; the caller upholds the contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded as is; `ptr` came from this allocator, i.e.
        // from `System`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// Allocations made by this thread while running `f`.
fn allocations_during(f: impl FnOnce()) -> usize {
    ALLOCATIONS.with(|n| n.set(0));
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    ALLOCATIONS.with(Cell::get)
}

/// The bench builder of this file: always the single-threaded executor,
/// whose models run on the measuring thread (see the module docs).
fn single_threaded() -> SimInit {
    SimInit::new().with_threads(1)
}

/// Sends N values through an output (to two sinks), or makes N requests
/// (to two repliers), or N single-replier requests, in one message.
#[model]
struct Looper {
    out: Output<u64>,
    req: Requestor<u64, u64>,
    uni: UniRequestor<u64, u64>,
    acc: u64,
}

#[model]
impl Looper {
    #[input]
    async fn sends(&mut self, n: u64, _cx: &mut Context<Self>) {
        for i in 0..n {
            self.out.send(i).await;
        }
    }

    #[input]
    async fn requests(&mut self, n: u64, _cx: &mut Context<Self>) {
        for i in 0..n {
            let replies = self.req.send(i).await;
            self.acc = self.acc.wrapping_add(replies.sum::<u64>());
        }
    }

    #[input]
    async fn uni_requests(&mut self, n: u64, _cx: &mut Context<Self>) {
        for i in 0..n {
            let reply = self.uni.send(i).await;
            self.acc = self.acc.wrapping_add(reply);
        }
    }
}

/// Sums what it receives; answers requests with its sum.
#[model]
struct Summer {
    sum: u64,
}

#[model]
impl Summer {
    #[input]
    async fn input(&mut self, x: u64, _cx: &mut Context<Self>) {
        self.sum = self.sum.wrapping_add(x);
    }

    #[replier]
    async fn reply(&mut self, x: u64, _cx: &mut Context<Self>) -> u64 {
        self.sum = self.sum.wrapping_add(x);
        self.sum
    }
}

/// Ticks `left` times, scheduling each next tick one second later.
#[model]
struct Ticker {
    left: u64,
    ticks: u64,
}

#[model]
impl Ticker {
    #[input]
    async fn tick(&mut self, _: (), cx: &mut Context<Self>) {
        self.ticks += 1;
        if self.left > 0 {
            self.left -= 1;
            cx.schedule(std::time::Duration::from_secs(1), Self::ports().tick, ())
                .unwrap();
        }
    }

    #[replier]
    async fn count(&mut self, _: (), _cx: &mut Context<Self>) -> u64 {
        self.ticks
    }

    #[input]
    async fn more(&mut self, n: u64, _cx: &mut Context<Self>) {
        self.left = n;
    }
}

/// A self-scheduling model: N time steps cost no allocation at all once
/// running (the fired event's box is reused for the next one).
fn self_scheduled_steps_allocate_nothing() {
    let mbox = Mailbox::new();
    let addr = mbox.address();
    let mut simu = start(single_threaded().add_model(Ticker { left: 0, ticks: 0 }, mbox, "ticker"));
    let ports = Ticker::ports();
    simu.process_event(ports.more, 100, &addr).unwrap();
    simu.scheduler()
        .schedule(std::time::Duration::from_secs(1), ports.tick, (), &addr)
        .unwrap();
    // Warm up: the first steps allocate the boxes that are then reused.
    for _ in 0..10 {
        simu.step().unwrap();
    }
    let steps = allocations_during(|| {
        for _ in 0..80 {
            simu.step().unwrap();
        }
    });
    assert_eq!(steps, 0, "80 self-scheduled steps made {steps} allocations");
    assert_eq!(simu.process_query(ports.count, (), &addr), Ok(90));
}

#[test]
fn model_to_model_messages_allocate_nothing() {
    self_scheduled_steps_allocate_nothing();

    // Two sinks, one with a tiny mailbox so the sender keeps waiting for
    // room (the back-pressure path), one with the default capacity.
    let small = Mailbox::with_capacity(2);
    let default = Mailbox::new();
    let default_addr = default.address();
    let replier_a = Mailbox::new();
    let replier_b = Mailbox::with_capacity(1);
    let mut looper = Looper {
        out: Output::new(),
        req: Requestor::new(),
        uni: UniRequestor::new(Summer::ports().reply, &replier_a),
        acc: 0,
    };
    looper.out.connect(Summer::ports().input, &small);
    looper
        .out
        .map_connect(|x: u64| x * 2, Summer::ports().input, &default);
    looper.req.connect(Summer::ports().reply, &replier_a);
    looper.req.connect(Summer::ports().reply, &replier_b);
    let mbox = Mailbox::new();
    let addr = mbox.address();
    let mut simu = start(
        single_threaded()
            .add_model(looper, mbox, "looper")
            .add_model(Summer { sum: 0 }, small, "small")
            .add_model(Summer { sum: 0 }, default, "default")
            .add_model(Summer { sum: 0 }, replier_a, "replier_a")
            .add_model(Summer { sum: 0 }, replier_b, "replier_b"),
    );

    let ports = Looper::ports();
    for (what, port) in [
        ("output sends", ports.sends),
        ("requests", ports.requests),
        ("uni requests", ports.uni_requests),
    ] {
        let mut run = |n: u64| allocations_during(|| simu.process_event(port, n, &addr).unwrap());
        // Warm up: let every buffer grow to its working size.
        run(1000);
        run(1000);
        let small_n = run(1_000);
        let large_n = run(10_000);
        assert_eq!(
            small_n, large_n,
            "{what}: allocations grow with the number of messages \
             ({small_n} for 1 000, {large_n} for 10 000)"
        );
        eprintln!("{what}: {small_n} allocations per call, whatever N");
        // And the per-call overhead is small and bounded.
        assert!(small_n <= 16, "{what}: {small_n} allocations for one call");
    }

    // The models really did the work: the doubling sink saw every send.
    // Sends ran for n = 1000 (four times) and 10 000; it sums 2i for i < n.
    let expected: u64 = [1000u64, 1000, 1000, 10_000]
        .iter()
        .map(|n| n * (n - 1))
        .sum();
    assert_eq!(
        simu.process_query(Summer::ports().reply, 0, &default_addr),
        Ok(expected)
    );
}
