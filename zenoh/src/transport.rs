//! How the processes of a partitioned bench exchange their window reports.
//!
//! A transport does one thing: each round, it sends this process's report
//! to every other process and returns every process's report of that
//! round. The runner does the rest (what a report holds, the window, the
//! order of delivery), so a transport is small and the same runner works
//! over Zenoh ([`ZenohTransport`](crate::ZenohTransport)), in memory
//! between threads ([`InMemory`], for tests and for partitions in threads
//! of one process), or alone ([`Solo`], one process).

use std::collections::HashMap;
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

/// Why a transport could not return a round's reports.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TransportError {
    /// Process `0` is gone.
    Lost(usize),
    /// Process `process` did not report `round` within `waited`.
    Timeout {
        /// The silent process.
        process: usize,
        /// The round it did not report.
        round: u64,
        /// How long this process waited.
        waited: Duration,
    },
    /// Anything else (opening a session, publishing).
    Other(String),
}

impl std::fmt::Display for TransportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TransportError::Lost(process) => write!(f, "process {process} is gone"),
            TransportError::Timeout {
                process,
                round,
                waited,
            } => write!(
                f,
                "process {process} did not report round {round} within {waited:?}"
            ),
            TransportError::Other(what) => f.write_str(what),
        }
    }
}

impl std::error::Error for TransportError {}

/// Exchanges window reports between the processes of a partitioned bench.
pub trait Transport: Send {
    /// The number of processes.
    fn processes(&self) -> usize;

    /// This process's index.
    fn index(&self) -> usize;

    /// Sends `report`, this process's report of `round`, to every other
    /// process, and returns every process's report of `round`, by process
    /// index (this one's included). Reports of later rounds that arrive
    /// meanwhile are kept for their round.
    fn exchange(&mut self, round: u64, report: Vec<u8>) -> Result<Vec<Vec<u8>>, TransportError>;
}

impl<T: Transport + ?Sized> Transport for Box<T> {
    fn processes(&self) -> usize {
        (**self).processes()
    }

    fn index(&self) -> usize {
        (**self).index()
    }

    fn exchange(&mut self, round: u64, report: Vec<u8>) -> Result<Vec<Vec<u8>>, TransportError> {
        (**self).exchange(round, report)
    }
}

/// The transport of a process alone: every partition in it.
#[derive(Debug, Default, Clone, Copy)]
pub struct Solo;

impl Transport for Solo {
    fn processes(&self) -> usize {
        1
    }

    fn index(&self) -> usize {
        0
    }

    fn exchange(&mut self, _round: u64, report: Vec<u8>) -> Result<Vec<Vec<u8>>, TransportError> {
        Ok(vec![report])
    }
}

/// Reports of rounds not yet asked for, by round then process.
#[derive(Debug, Default)]
pub(crate) struct Pending {
    /// The reports received, by round.
    rounds: HashMap<u64, Vec<Option<Vec<u8>>>>,
}

impl Pending {
    /// Keeps process `from`'s report of `round`.
    pub(crate) fn insert(&mut self, processes: usize, round: u64, from: usize, report: Vec<u8>) {
        let slots = self
            .rounds
            .entry(round)
            .or_insert_with(|| vec![None; processes]);
        if let Some(slot) = slots.get_mut(from) {
            *slot = Some(report);
        }
    }

    /// Every report of `round`, if all have arrived (and forgets them).
    pub(crate) fn complete(&mut self, round: u64) -> Option<Vec<Vec<u8>>> {
        let slots = self.rounds.get(&round)?;
        if slots.iter().any(Option::is_none) {
            return None;
        }
        let slots = self.rounds.remove(&round)?;
        Some(slots.into_iter().flatten().collect())
    }

    /// True if process `process`'s report of `round` has arrived.
    pub(crate) fn has(&self, round: u64, process: usize) -> bool {
        self.rounds
            .get(&round)
            .and_then(|slots| slots.get(process))
            .is_some_and(Option::is_some)
    }

    /// The first process whose report of `round` is missing.
    pub(crate) fn first_missing(&self, processes: usize, round: u64) -> usize {
        self.rounds
            .get(&round)
            .and_then(|slots| slots.iter().position(Option::is_none))
            .unwrap_or(if processes > 1 { 1 } else { 0 })
    }
}

/// Processes that are threads of one process, exchanging in memory.
#[derive(Debug)]
pub struct InMemory {
    /// Every process's inbox, by index.
    outboxes: Vec<Sender<(u64, usize, Vec<u8>)>>,
    /// This process's inbox.
    inbox: Receiver<(u64, usize, Vec<u8>)>,
    /// This process's index.
    index: usize,
    /// Reports received early.
    pending: Pending,
    /// How long a round may wait for the others.
    timeout: Duration,
}

impl InMemory {
    /// `processes` connected transports, one per process in index order,
    /// each waiting at most `timeout` for a round's reports.
    pub fn connect(processes: usize, timeout: Duration) -> Vec<InMemory> {
        let (senders, receivers): (Vec<_>, Vec<_>) = (0..processes).map(|_| channel()).unzip();
        receivers
            .into_iter()
            .enumerate()
            .map(|(index, inbox)| InMemory {
                outboxes: senders.clone(),
                inbox,
                index,
                pending: Pending::default(),
                timeout,
            })
            .collect()
    }
}

impl Transport for InMemory {
    fn processes(&self) -> usize {
        self.outboxes.len()
    }

    fn index(&self) -> usize {
        self.index
    }

    fn exchange(&mut self, round: u64, report: Vec<u8>) -> Result<Vec<Vec<u8>>, TransportError> {
        let processes = self.outboxes.len();
        for (to, outbox) in self.outboxes.iter().enumerate() {
            if to != self.index && outbox.send((round, self.index, report.clone())).is_err() {
                return Err(TransportError::Lost(to));
            }
        }
        self.pending.insert(processes, round, self.index, report);
        let start = Instant::now();
        loop {
            if let Some(all) = self.pending.complete(round) {
                return Ok(all);
            }
            let left = self.timeout.saturating_sub(start.elapsed());
            match self.inbox.recv_timeout(left) {
                Ok((r, from, bytes)) => self.pending.insert(processes, r, from, bytes),
                Err(RecvTimeoutError::Timeout) => {
                    return Err(TransportError::Timeout {
                        process: self.pending.first_missing(processes, round),
                        round,
                        waited: self.timeout,
                    })
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let process = self.pending.first_missing(processes, round);
                    return Err(TransportError::Lost(process));
                }
            }
        }
    }
}
