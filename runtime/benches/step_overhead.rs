//! Per-step overhead of the executors: one event per time step, on the
//! single-threaded executor and on the multi-threaded one with 2 threads.
//!
//! Each iteration is one `Simulation::step` that delivers one periodic
//! event to one model, which counts it. The multi-threaded executor should
//! stay within 2x of the single-threaded one here.
//!
//! `cargo bench -p causim --bench step_overhead`

use std::hint::black_box;
use std::time::Duration;

use causim::model::{ModelMetadata, PortKind, PortMetadata};
use causim::prelude::*;
use criterion::{criterion_group, criterion_main, Criterion};

/// Counts ticks.
struct Ticker {
    /// Ticks received.
    ticks: u64,
}

/// The ticker's one message.
enum TickerMessage {
    /// A tick.
    Tick(()),
}

impl Ticker {
    /// The tick input.
    fn tick_port() -> InputPort<Ticker, ()> {
        InputPort::new("tick", TickerMessage::Tick)
    }
}

impl Model for Ticker {
    type Message = TickerMessage;

    async fn dispatch(&mut self, message: TickerMessage, _cx: &mut Context<Self>) {
        match message {
            TickerMessage::Tick(()) => self.ticks += 1,
        }
    }

    fn metadata() -> ModelMetadata {
        ModelMetadata {
            type_name: "Ticker",
            inputs: &[PortMetadata {
                name: "tick",
                kind: PortKind::Input,
                payload: "()",
                reply: None,
                required: false,
            }],
            outputs: &[],
        }
    }
}

/// A simulation on `threads` threads with a tick every second.
fn ticking(threads: usize) -> Simulation {
    let mailbox = Mailbox::new();
    let address = mailbox.address();
    let simu = SimInit::new()
        .with_threads(threads)
        .add_model(Ticker { ticks: 0 }, mailbox, "ticker")
        .init(SimTime::ZERO)
        .expect("the bench initialises");
    simu.scheduler()
        .schedule_periodic(
            SimTime::from_secs(1),
            Duration::from_secs(1),
            Ticker::tick_port(),
            (),
            &address,
        )
        .expect("the tick is scheduled");
    simu
}

fn one_event_per_step(c: &mut Criterion) {
    let mut group = c.benchmark_group("one_event_per_step");
    for (name, threads) in [("st", 1), ("mt2", 2)] {
        let mut simu = ticking(threads);
        group.bench_function(name, |b| b.iter(|| black_box(simu.step()).unwrap()));
    }
    group.finish();
}

criterion_group!(benches, one_event_per_step);
criterion_main!(benches);
