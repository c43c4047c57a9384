//! Running one process's partitions in step with the others.
//!
//! The loop of [`PartitionRunner::run_until`] is the whole protocol:
//!
//! 1. take the link messages the partitions sent since the last round
//!    (numbered per link in the order each capture received them) and the
//!    next event time;
//! 2. exchange reports with every process (the exchange is the barrier),
//!    each saying where its process is (time and call), which must be
//!    where this one is;
//! 3. schedule the messages due to this process's inputs, in the order
//!    fixed by their senders, at their arrival times;
//! 4. compute the next window end `W` from all reports (see
//!    [`window`](crate::window)), the same in every process, and run every
//!    event before `W`;
//! 5. once `W` is past the call's end, run to the end and exchange once
//!    more, so that the call returns with every message sent by its end
//!    scheduled (what the bench's code schedules next comes after them).
//!
//! Delivery does not depend on where the windows fall: a message is
//! scheduled before its arrival time whatever the windows, and messages
//! arriving at one time are scheduled in the order of (sending time, link,
//! sequence), since windows cut the sending times into consecutive spans.
//! Every deployment of one bench — all partitions in one process, or each
//! in its own — thus schedules the same events with the same same-time
//! order, and runs the same.

use std::io::Write;
use std::sync::Arc;

use causim::prelude::*;

use crate::error::PartitionError;
use crate::header::write_header;
use crate::link::{take, Captured, Deliver, DeliveryFailure};
use crate::plan::Plan;
use crate::transport::{Transport, TransportError};
use crate::window::{next_window_end, Body, Call, Pace, Report, Wire};

/// Counts of what a runner did, for benchmarks and progress.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WindowStats {
    /// Rounds of exchange (windows) run.
    pub rounds: u64,
    /// Link messages this process's partitions sent.
    pub sent: u64,
    /// Link messages scheduled for this process's inputs.
    pub received: u64,
}

/// Runs one process's partitions of a partitioned bench, in conservative
/// time windows agreed with the other processes.
pub struct PartitionRunner {
    /// The process's bench.
    simulation: Simulation,
    /// What every process agreed on.
    plan: Arc<Plan>,
    /// Its digest, carried and checked in every report (computed once:
    /// it formats the whole declaration).
    digest: u64,
    /// This process's index.
    group: usize,
    /// The sending ends in this process: link index and capture.
    captures: Vec<(usize, Captured)>,
    /// The receiving ends, by link.
    deliveries: Vec<Vec<Deliver>>,
    /// Messages sent so far, by link: the next message's sequence.
    sequences: Vec<u64>,
    /// Exchanges with the other processes.
    transport: Box<dyn Transport>,
    /// The next round's number.
    round: u64,
    /// What the runner did.
    stats: WindowStats,
    /// The error that stopped the run, if any.
    stopped: Option<String>,
}

impl std::fmt::Debug for PartitionRunner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PartitionRunner")
            .field("process", &self.group)
            .field("partitions", &self.plan.group_names(self.group))
            .field("time", &self.simulation.time())
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl PartitionRunner {
    /// The runner of `simulation`, process `group` of `plan`.
    pub(crate) fn new(
        simulation: Simulation,
        plan: Arc<Plan>,
        group: usize,
        captures: Vec<(usize, Captured)>,
        deliveries: Vec<Vec<Deliver>>,
        transport: Box<dyn Transport>,
    ) -> Self {
        let links = plan.links.len();
        PartitionRunner {
            simulation,
            digest: plan.digest(),
            plan,
            group,
            captures,
            deliveries,
            sequences: vec![0; links],
            transport,
            round: 0,
            stats: WindowStats::default(),
            stopped: None,
        }
    }

    /// The process's simulation, to read (its time, topology, …); it is
    /// driven only through the runner, in step with the other processes.
    pub fn simulation(&self) -> &Simulation {
        &self.simulation
    }

    /// The current simulation time of this process.
    pub fn time(&self) -> SimTime {
        self.simulation.time()
    }

    /// The partitions this process hosts.
    pub fn partitions(&self) -> Vec<String> {
        self.plan.group_names(self.group)
    }

    /// What the runner did so far.
    pub fn stats(&self) -> WindowStats {
        self.stats
    }

    /// Runs every event up to and including `end`, in windows agreed with
    /// the other processes, which must call it with the same `end`.
    ///
    /// An error stops every process: a failed simulation here is reported
    /// to the others (which return [`PartitionError::PeerFailed`]); a
    /// process gone or silent is reported by name, one called with another
    /// `end` or at another time as [`PartitionError::OutOfStep`]. After an
    /// error, every call returns [`PartitionError::Stopped`].
    pub fn run_until(&mut self, end: SimTime) -> Result<(), PartitionError> {
        self.check_usable()?;
        let result = self.windows_until(end);
        if let Err(error) = &result {
            self.stop(error);
        }
        result
    }

    /// Writes this process's part of a coordinated snapshot: every process
    /// calls it at the same point (after the same `run_until`), each with
    /// its own writer. The link messages in flight are exchanged first, so
    /// they are in the snapshots as the pending events they became.
    pub fn save(&mut self, mut writer: impl Write) -> Result<(), PartitionError> {
        self.check_usable()?;
        let result = self.save_after_exchange(&mut writer);
        if let Err(error) = &result {
            self.stop(error);
        }
        result
    }

    /// The save's exchange, header and snapshot.
    fn save_after_exchange(&mut self, writer: &mut impl Write) -> Result<(), PartitionError> {
        self.exchange(Call::Save)?;
        let header = write_header(&self.plan, self.group, &self.sequences);
        writer.write_all(&header).map_err(PartitionError::Io)?;
        self.simulation.save(writer).map_err(PartitionError::Save)
    }

    /// Stops at `error`, telling the other processes if it is this one's
    /// own (they wait for its next report).
    fn stop(&mut self, error: &PartitionError) {
        if error.is_local() {
            self.tell_failure(&error.to_string());
        }
        self.stopped = Some(error.to_string());
    }

    /// Sets the link sequences read from a snapshot.
    pub(crate) fn set_sequences(&mut self, sequences: Vec<u64>) {
        self.sequences = sequences;
    }

    /// Fails if an earlier call failed.
    fn check_usable(&self) -> Result<(), PartitionError> {
        match &self.stopped {
            Some(first) => Err(PartitionError::Stopped(first.clone())),
            None => Ok(()),
        }
    }

    /// The windows up to `end`, then a last exchange at `end`: every link
    /// message sent by then is scheduled before the call returns, in every
    /// deployment, so that bench events the bench's code schedules before
    /// the next call come after them wherever the windows fell.
    fn windows_until(&mut self, end: SimTime) -> Result<(), PartitionError> {
        let now = self.simulation.time();
        if end < now {
            return Err(self.simulation_error(SimulationError::InvalidTime {
                now,
                requested: end,
            }));
        }
        loop {
            let window_end = self.exchange(Call::RunUntil(end))?;
            match window_end {
                Some(w) if w <= end => {
                    let last = SimTime::from_nanos(w.as_nanos() - 1);
                    if last < self.simulation.time() {
                        return Err(PartitionError::Transport(format!(
                            "the window end {w:?} is not after the current time {:?}",
                            self.simulation.time()
                        )));
                    }
                    self.step_until(last)?;
                }
                _ => {
                    self.step_until(end)?;
                    return self.exchange(Call::RunUntil(end)).map(drop);
                }
            }
        }
    }

    /// Runs this process's simulation to `time`.
    fn step_until(&mut self, time: SimTime) -> Result<(), PartitionError> {
        self.simulation
            .step_until(time)
            .map_err(|error| self.simulation_error(error))
    }

    /// One round of `call`: reports, exchanges, schedules what arrives
    /// here, and returns the next window's end.
    fn exchange(&mut self, call: Call) -> Result<Option<SimTime>, PartitionError> {
        let messages = self.take_sent()?;
        let pace = Pace {
            now: self.simulation.time(),
            call,
        };
        let next = self.simulation.next_event_time();
        let reports = self.send_round(Body::Window {
            pace,
            next,
            messages,
        })?;
        let mut nexts = Vec::with_capacity(reports.len());
        let mut all = Vec::new();
        for report in reports {
            let group = report.group as usize;
            match report.body {
                Body::Window {
                    pace: theirs,
                    next,
                    messages,
                } => {
                    self.check_pace(group, theirs, pace)?;
                    nexts.push(next);
                    all.extend(messages);
                }
                Body::Failed(message) => {
                    return Err(PartitionError::PeerFailed {
                        partitions: self.plan.group_names(group),
                        message,
                    })
                }
            }
        }
        self.deliver(&all)?;
        self.stats.rounds += 1;
        Ok(next_window_end(&self.plan, &nexts, &all))
    }

    /// Fails if process `group`, reporting `theirs`, is not where this
    /// one is (`ours`): it started at another time, or called `run_until`
    /// with another end, or `save` where this one runs. Every process sees
    /// every report, so all of them stop at the same round.
    fn check_pace(&self, group: usize, theirs: Pace, ours: Pace) -> Result<(), PartitionError> {
        if theirs == ours {
            return Ok(());
        }
        Err(PartitionError::OutOfStep {
            partitions: self.plan.group_names(group),
            theirs: theirs.to_string(),
            ours: ours.to_string(),
        })
    }

    /// The messages the captures received, numbered per link.
    fn take_sent(&mut self) -> Result<Vec<Wire>, PartitionError> {
        let mut wires = Vec::new();
        for (link, captured) in &self.captures {
            for (sent, encoded) in take(captured) {
                let payload = encoded.map_err(|message| PartitionError::Payload {
                    link: self.plan.links[*link].name.clone(),
                    message,
                })?;
                let seq = self.sequences[*link];
                self.sequences[*link] = seq.wrapping_add(1);
                wires.push(Wire {
                    link: *link as u32,
                    seq,
                    sent,
                    payload,
                });
            }
        }
        self.stats.sent += wires.len() as u64;
        Ok(wires)
    }

    /// Sends this process's report of the round and returns every
    /// process's, checked. This process's own is not encoded for itself
    /// (nor at all when it is alone).
    fn send_round(&mut self, body: Body) -> Result<Vec<Report>, PartitionError> {
        let round = self.round;
        let own = Report {
            plan: self.digest,
            round,
            group: self.group as u32,
            body,
        };
        let bytes = if self.transport.processes() > 1 {
            postcard::to_allocvec(&own)
                .map_err(|error| PartitionError::Transport(error.to_string()))?
        } else {
            Vec::new()
        };
        let all = self
            .transport
            .exchange(round, bytes)
            .map_err(|error| self.peer_error(error))?;
        self.round += 1;
        let mut own = Some(own);
        all.iter()
            .enumerate()
            .map(|(group, bytes)| match group == self.group {
                true => Ok(own.take().expect("one report per process")),
                false => self.read_report(group, round, bytes),
            })
            .collect()
    }

    /// Process `group`'s report of `round`, checked.
    fn read_report(
        &self,
        group: usize,
        round: u64,
        bytes: &[u8],
    ) -> Result<Report, PartitionError> {
        let report: Report = postcard::from_bytes(bytes).map_err(|error| {
            PartitionError::Transport(format!(
                "unreadable report from partition {:?}: {error}",
                self.plan.group_names(group)
            ))
        })?;
        if report.plan != self.digest {
            return Err(PartitionError::Mismatch {
                partitions: self.plan.group_names(group),
            });
        }
        if report.round != round || report.group as usize != group {
            return Err(PartitionError::Transport(format!(
                "partition {:?} sent round {} as process {} where round {round} of process \
                 {group} was due",
                self.plan.group_names(group),
                report.round,
                report.group
            )));
        }
        Ok(report)
    }

    /// Schedules the messages due to this process's inputs, in their order.
    fn deliver(&mut self, messages: &[Wire]) -> Result<(), PartitionError> {
        let mut mine: Vec<&Wire> = messages
            .iter()
            .filter(|m| self.plan.receiver(m.link as usize) == self.group)
            .collect();
        mine.sort_by_key(|m| m.order());
        let scheduler = self.simulation.scheduler();
        for message in mine {
            let link = &self.plan.links[message.link as usize];
            let problem = |message: String| PartitionError::Delivery {
                link: link.name.clone(),
                message,
            };
            let at = message
                .sent
                .checked_add(link.lookahead)
                .ok_or_else(|| problem("its arrival time is past the end of time".to_owned()))?;
            for deliver in &self.deliveries[message.link as usize] {
                deliver(&scheduler, at, &message.payload).map_err(|failure| match failure {
                    DeliveryFailure::Decode(message) => PartitionError::Payload {
                        link: link.name.clone(),
                        message,
                    },
                    DeliveryFailure::Schedule(message) => problem(message),
                })?;
            }
            self.stats.received += 1;
        }
        Ok(())
    }

    /// Reports this process's failure to the others, as its report of the
    /// round they wait for (best effort: the run is over anyway).
    fn tell_failure(&mut self, message: &str) {
        let _ = self.send_round(Body::Failed(message.to_owned()));
    }

    /// This process's simulation error.
    fn simulation_error(&self, error: SimulationError) -> PartitionError {
        PartitionError::Simulation {
            partitions: self.plan.group_names(self.group),
            error,
        }
    }

    /// A transport error, naming the partitions concerned.
    fn peer_error(&self, error: TransportError) -> PartitionError {
        match error {
            TransportError::Lost(process) => PartitionError::PeerLost {
                partitions: self.names_of(process),
            },
            TransportError::Timeout {
                process,
                round,
                waited,
            } => PartitionError::PeerTimeout {
                partitions: self.names_of(process),
                round,
                waited,
            },
            TransportError::Other(what) => PartitionError::Transport(what),
        }
    }

    /// Process `process`'s partitions, or its number if unknown.
    fn names_of(&self, process: usize) -> Vec<String> {
        if process < self.plan.groups.len() {
            self.plan.group_names(process)
        } else {
            vec![format!("process {process}")]
        }
    }
}
