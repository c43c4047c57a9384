//! A process's part of a partitioned bench, built and checked, before it
//! starts.

use std::io::Read;
use std::sync::Arc;

use causim::prelude::*;
use causim::topology::Topology;

use crate::error::PartitionError;
use crate::header::read_header;
use crate::link::{Captured, Deliver};
use crate::plan::Plan;
use crate::runner::PartitionRunner;
use crate::transport::Transport;

/// The partitions one process hosts, built into one bench, ready to start
/// (with [`init`](Self::init)) or to be restored from this process's part
/// of a coordinated snapshot ([`restore`](Self::restore)).
pub struct Hosted {
    /// The process's bench.
    init: SimInit,
    /// What its runner needs besides.
    parts: Parts,
}

impl std::fmt::Debug for Hosted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hosted")
            .field("process", &self.parts.group)
            .field("partitions", &self.partitions())
            .finish_non_exhaustive()
    }
}

impl Hosted {
    /// Gathers what the builder made.
    pub(crate) fn new(
        init: SimInit,
        plan: Arc<Plan>,
        group: usize,
        captures: Vec<(usize, Captured)>,
        deliveries: Vec<Vec<Deliver>>,
    ) -> Self {
        let parts = Parts {
            plan,
            group,
            captures,
            deliveries,
        };
        Hosted { init, parts }
    }

    /// The process's bench as built, for its topology.
    pub fn topology(&self) -> Topology {
        self.init.topology()
    }

    /// The partitions this process hosts.
    pub fn partitions(&self) -> Vec<String> {
        self.parts.plan.group_names(self.parts.group)
    }

    /// Starts the bench at `start` and returns its runner, exchanging over
    /// `transport`. Every process gives the same time: one that does not
    /// stops them all with [`PartitionError::OutOfStep`] at the first
    /// round.
    pub fn init(
        self,
        start: SimTime,
        transport: impl Transport + 'static,
    ) -> Result<PartitionRunner, PartitionError> {
        self.check_transport(&transport)?;
        let Hosted { init, parts } = self;
        let simulation = init
            .init(start)
            .map_err(|error| PartitionError::Simulation {
                partitions: parts.plan.group_names(parts.group),
                error,
            })?;
        Ok(parts.runner(simulation, transport))
    }

    /// Restores this process's snapshot of a coordinated save (written by
    /// [`PartitionRunner::save`]) into the bench and returns its runner;
    /// every process restores its own snapshot of the same save.
    pub fn restore(
        self,
        mut snapshot: impl Read,
        transport: impl Transport + 'static,
    ) -> Result<PartitionRunner, PartitionError> {
        self.check_transport(&transport)?;
        let sequences = read_header(&self.parts.plan, self.parts.group, &mut snapshot)?;
        let Hosted { init, parts } = self;
        let simulation = init.restore(snapshot).map_err(PartitionError::Restore)?;
        let mut runner = parts.runner(simulation, transport);
        runner.set_sequences(sequences);
        Ok(runner)
    }

    /// The transport's place matches this process's.
    fn check_transport(&self, transport: &impl Transport) -> Result<(), PartitionError> {
        let (processes, index) = (self.parts.plan.groups.len(), self.parts.group);
        if transport.processes() != processes || transport.index() != index {
            return Err(PartitionError::Transport(format!(
                "the transport connects process {} of {}, but the bench is hosted as process \
                 {index} of {processes}",
                transport.index(),
                transport.processes()
            )));
        }
        Ok(())
    }
}

/// What the runner needs besides the simulation.
struct Parts {
    /// What every process agreed on.
    plan: Arc<Plan>,
    /// This process's index.
    group: usize,
    /// The sending ends of links in this process: link index and capture.
    captures: Vec<(usize, Captured)>,
    /// The receiving ends, by link (empty for links received elsewhere).
    deliveries: Vec<Vec<Deliver>>,
}

impl Parts {
    /// The runner of `simulation`.
    fn runner(
        self,
        simulation: Simulation,
        transport: impl Transport + 'static,
    ) -> PartitionRunner {
        PartitionRunner::new(
            simulation,
            self.plan,
            self.group,
            self.captures,
            self.deliveries,
            Box::new(transport),
        )
    }
}
