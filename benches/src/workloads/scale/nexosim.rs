//! Scale on NeXosim 1.0.

use std::time::Instant;

use nexosim::model::Model;
use nexosim::ports::EventSource;
use nexosim::simulation::{Mailbox, SimInit};
use nexosim::time::MonotonicTime;
use serde::{Deserialize, Serialize};

use super::{Outcome, Phases};
use crate::workloads::tally::{self, Tally};

/// A trivial model: counts pokes.
#[derive(Serialize, Deserialize)]
pub struct Cell {
    #[serde(skip)]
    pokes: Tally,
}

#[Model]
impl Cell {
    /// Counts one poke.
    pub fn poke(&mut self, _: ()) {
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
    let mut init = SimInit::with_num_threads(threads);
    let mut source = EventSource::new();
    for mailbox in &mailboxes {
        source = source.connect(Cell::poke, mailbox);
    }
    let poke = source.register(&mut init);
    phases.begin();
    for (i, mailbox) in mailboxes.into_iter().enumerate() {
        let cell = Cell {
            pokes: Tally::new(&total),
        };
        init = init.add_model(cell, mailbox, &format!("c{i}"));
    }
    let mut simu = init.init(MonotonicTime::EPOCH).expect("scale init");
    phases.end();
    let build = started.elapsed();
    let (result, deliver, deliver_bytes) = super::deliver(|| simu.process_event(&poke, ()));
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
