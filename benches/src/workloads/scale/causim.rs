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
    let mut simu = init.init(SimTime::ZERO).expect("scale init");
    phases.end();
    let build = started.elapsed();
    let (result, deliver, deliver_bytes) = super::deliver(|| simu.process(source.event(())));
    result.expect("scale poke");
    drop(simu);
    Outcome {
        counted: tally::read(&total),
        build,
        model_bytes: phases.added(),
        deliver,
        deliver_bytes,
    }
}
