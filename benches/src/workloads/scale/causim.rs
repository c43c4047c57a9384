//! Scale on causim.

use std::time::Instant;

use causim::prelude::*;

use super::{Outcome, Phases};
use crate::workloads::tally::{self, Tally};

/// A trivial model: counts pokes.
#[model]
pub struct Cell {
    pokes: Tally,
}

#[model]
impl Cell {
    /// Counts one poke.
    #[input]
    pub fn poke(&mut self) {
        self.pokes.bump();
    }
}

/// Builds `models` cells, pokes each once, and reports.
pub fn run(models: usize, threads: usize) -> Outcome {
    let total = tally::total();
    let mut phases = Phases::default();
    let started = Instant::now();
    phases.begin();
    let mailboxes: Vec<Mailbox<Cell>> = (0..models).map(|_| Mailbox::new()).collect();
    phases.end();
    let mut source = EventSource::new();
    for mailbox in &mailboxes {
        source.connect(Cell::ports().poke, mailbox);
    }
    phases.begin();
    let mut init = SimInit::new().with_threads(threads);
    for (i, mailbox) in mailboxes.into_iter().enumerate() {
        let cell = Cell {
            pokes: Tally::new(&total),
        };
        init = init.add_model(cell, mailbox, format!("c{i}"));
    }
    let simu = init.init(SimTime::ZERO).expect("scale init");
    poke_all(simu, &source, &total, phases, started)
}

/// Cells per block in the composite build.
const BLOCK: usize = 1_000;

/// A block of cells, added as one composite.
struct Block {
    /// The cells and their mailboxes.
    cells: Vec<(Cell, Mailbox<Cell>)>,
}

impl Composite for Block {
    fn build(self, cx: &mut BuildContext<'_>) {
        for (i, (cell, mailbox)) in self.cells.into_iter().enumerate() {
            cx.add_model(cell, mailbox, format!("c{i}"));
        }
    }
}

/// The whole grid as one composite of blocks.
struct Grid {
    blocks: Vec<Block>,
}

impl Composite for Grid {
    fn build(self, cx: &mut BuildContext<'_>) {
        for (i, block) in self.blocks.into_iter().enumerate() {
            cx.add_composite(block, format!("b{i}"));
        }
    }
}

/// [`run`], with the cells built inside composites: blocks of a thousand
/// inside one grid (paths `grid/b123/c456`), the same phases measured.
pub fn run_composite(models: usize, threads: usize) -> Outcome {
    let total = tally::total();
    let mut phases = Phases::default();
    let started = Instant::now();
    phases.begin();
    let mailboxes: Vec<Mailbox<Cell>> = (0..models).map(|_| Mailbox::new()).collect();
    phases.end();
    let mut source = EventSource::new();
    for mailbox in &mailboxes {
        source.connect_to(&causim::ports::InputRef::new(Cell::ports().poke, mailbox));
    }
    phases.begin();
    let mut blocks = Vec::with_capacity(models.div_ceil(BLOCK));
    let mut mailboxes = mailboxes.into_iter();
    while mailboxes.len() > 0 {
        let cells = mailboxes
            .by_ref()
            .take(BLOCK)
            .map(|mailbox| {
                let cell = Cell {
                    pokes: Tally::new(&total),
                };
                (cell, mailbox)
            })
            .collect();
        blocks.push(Block { cells });
    }
    let simu = SimInit::new()
        .with_threads(threads)
        .add_composite(Grid { blocks }, "grid")
        .init(SimTime::ZERO)
        .expect("scale init");
    poke_all(simu, &source, &total, phases, started)
}

/// Ends the build's measured phase, pokes every cell once, and reports.
fn poke_all(
    mut simu: Simulation,
    source: &EventSource<()>,
    total: &std::sync::Arc<std::sync::atomic::AtomicU64>,
    mut phases: Phases,
    started: Instant,
) -> Outcome {
    phases.end();
    let build = started.elapsed();
    let (result, deliver, deliver_bytes) = super::deliver(|| simu.process(source.event(())));
    result.expect("scale poke");
    drop(simu);
    Outcome {
        counted: tally::read(total),
        build,
        model_bytes: phases.added(),
        deliver,
        deliver_bytes,
    }
}
