//! What goes wrong in a partitioned bench, named by partition, link and
//! port.

use std::fmt;

use causim::{RestoreError, SaveError, SimulationError};

/// An error of a partitioned bench: when it is built, hosted, run, saved
/// or restored.
///
/// Every variant names what it is about — the partition, the link, the
/// ports by path — so that a process among several says which part of the
/// bench is wrong.
#[derive(Debug)]
#[non_exhaustive]
pub enum PartitionError {
    /// The bench's declaration is wrong: a link or partition name, a link
    /// whose ends name unknown partitions, a deployment that does not
    /// place every partition exactly once.
    Declaration(String),
    /// A link's lookahead is zero: a message crossing it would have to be
    /// delivered at the time it is sent, which no conservative window
    /// allows.
    NoLookahead {
        /// The link.
        link: String,
        /// Its sending ports known to this process (`path.port`).
        from: Vec<String>,
        /// Its receiving ports known to this process (`path.port`).
        to: Vec<String>,
    },
    /// A connection made directly between models of two partitions (or to
    /// a model this process does not host) instead of through a link: it
    /// would need an immediate delivery, or an immediate reply for a
    /// request, across partitions.
    CrossingConnection {
        /// The sending port, `path.port`.
        from: String,
        /// The receiving port, `path.port` (or `Type.port` for a model not
        /// in this process).
        to: String,
        /// `event` or `request`.
        kind: &'static str,
    },
    /// A link end is wrong: used in the wrong partition, left unconnected,
    /// given a handle of another bench, or delivered to a model of another
    /// partition (or one never added in this process).
    Link {
        /// The link.
        link: String,
        /// What is wrong.
        problem: String,
    },
    /// A link message could not be encoded or decoded with serde.
    Payload {
        /// The link.
        link: String,
        /// serde's message.
        message: String,
    },
    /// A link message could not be scheduled on its input: the kernel
    /// refused the bench event, or its arrival time is past the end of
    /// time. (A target of another partition is refused earlier, when the
    /// process is hosted.)
    Delivery {
        /// The link.
        link: String,
        /// The kernel's reason.
        message: String,
    },
    /// The partitions' own simulation failed (a model panicked, deadlocked,
    /// …); the other partitions are told and stop too.
    Simulation {
        /// The partitions this process hosts.
        partitions: Vec<String>,
        /// The kernel's error.
        error: SimulationError,
    },
    /// Another process reported that its simulation failed.
    PeerFailed {
        /// The partitions of the failed process.
        partitions: Vec<String>,
        /// Its error, as it reported it.
        message: String,
    },
    /// Another process is gone (its Zenoh session closed or its lease
    /// expired).
    PeerLost {
        /// The partitions of the lost process.
        partitions: Vec<String>,
    },
    /// Another process did not report a window within the time allowed.
    PeerTimeout {
        /// The partitions of the silent process.
        partitions: Vec<String>,
        /// The window it did not report.
        round: u64,
        /// The time waited.
        waited: std::time::Duration,
    },
    /// Another process runs a different bench (other partitions, links or
    /// lookaheads) or another deployment.
    Mismatch {
        /// The partitions of the other process.
        partitions: Vec<String>,
    },
    /// Another process is not where this one is: it started at another
    /// time, restored a save made at another time, called `run_until` with
    /// another end,
    /// or `save` where this one runs (every process must make the same
    /// calls). Every process sees it in the same round and stops.
    OutOfStep {
        /// The partitions of the other process.
        partitions: Vec<String>,
        /// Where the other process is (its time and call).
        theirs: String,
        /// Where this process is.
        ours: String,
    },
    /// The transport failed (opening a session, a malformed report).
    Transport(String),
    /// Saving a partition's snapshot failed.
    Save(SaveError),
    /// A partition's snapshot header is wrong (not one, another bench's,
    /// another process's, truncated).
    Snapshot(String),
    /// Restoring a partition's snapshot failed.
    Restore(RestoreError),
    /// Writing or reading a snapshot failed.
    Io(std::io::Error),
    /// A call after an earlier error: the runner stopped at that error.
    Stopped(String),
}

impl fmt::Display for PartitionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PartitionError::Declaration(what) => write!(f, "partitioned bench: {what}"),
            PartitionError::NoLookahead { link, from, to } => write!(
                f,
                "link `{link}` (from {} to {}) has no lookahead: a link between partitions \
                 needs a positive minimum delay",
                ports_or_unknown(from),
                ports_or_unknown(to)
            ),
            PartitionError::CrossingConnection { from, to, kind } => write!(
                f,
                "the {kind} connection from `{from}` to `{to}` crosses partitions without a \
                 link: it would need an immediate {}; connect the two through a link with a \
                 lookahead",
                if *kind == "request" {
                    "reply"
                } else {
                    "delivery"
                }
            ),
            PartitionError::Link { link, problem } => write!(f, "link `{link}`: {problem}"),
            PartitionError::Payload { link, message } => {
                write!(f, "link `{link}`: payload not (de)serialisable: {message}")
            }
            PartitionError::Delivery { link, message } => {
                write!(
                    f,
                    "link `{link}`: a message could not be delivered: {message}"
                )
            }
            PartitionError::Simulation { partitions, error } => {
                write!(f, "{}: {error}", subject(partitions))
            }
            PartitionError::PeerFailed {
                partitions,
                message,
            } => write!(f, "{} failed: {message}", subject(partitions)),
            PartitionError::PeerLost { partitions } => write!(
                f,
                "{} {} gone: its process stopped or lost its connection",
                subject(partitions),
                verb(partitions)
            ),
            PartitionError::PeerTimeout {
                partitions,
                round,
                waited,
            } => write!(
                f,
                "{} did not report window {round} within {waited:?}",
                subject(partitions)
            ),
            PartitionError::Mismatch { partitions } => write!(
                f,
                "{} {} another bench or deployment (partitions, links or lookaheads differ)",
                subject(partitions),
                if partitions.len() == 1 { "runs" } else { "run" }
            ),
            PartitionError::OutOfStep {
                partitions,
                theirs,
                ours,
            } => write!(
                f,
                "{} {} out of step with this process: {theirs}, where this process is {ours}; \
                 every process starts at the same time and makes the same calls (`run_until` \
                 with the same end, `save` after the same `run_until`)",
                subject(partitions),
                verb(partitions)
            ),
            PartitionError::Transport(what) => write!(f, "transport: {what}"),
            PartitionError::Save(error) => write!(f, "save: {error}"),
            PartitionError::Snapshot(what) => write!(f, "partition snapshot: {what}"),
            PartitionError::Restore(error) => write!(f, "restore: {error}"),
            PartitionError::Io(error) => write!(f, "snapshot: {error}"),
            PartitionError::Stopped(first) => {
                write!(
                    f,
                    "the partitioned run stopped at an earlier error: {first}"
                )
            }
        }
    }
}

impl std::error::Error for PartitionError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PartitionError::Simulation { error, .. } => Some(error),
            PartitionError::Save(error) => Some(error),
            PartitionError::Restore(error) => Some(error),
            PartitionError::Io(error) => Some(error),
            _ => None,
        }
    }
}

impl PartitionError {
    /// True for an error of this process's own (its simulation, a link
    /// message it sent or received), which the others must be told of;
    /// false for an error about another process, or the transport.
    pub(crate) fn is_local(&self) -> bool {
        matches!(
            self,
            PartitionError::Simulation { .. }
                | PartitionError::Payload { .. }
                | PartitionError::Delivery { .. }
                | PartitionError::Save(_)
                | PartitionError::Io(_)
        )
    }
}

/// `a`, or `a, b` in backquotes.
fn names(partitions: &[String]) -> String {
    let quoted: Vec<String> = partitions.iter().map(|p| format!("`{p}`")).collect();
    quoted.join(", ")
}

/// `partition `a`` or `partitions `a`, `b``.
fn subject(partitions: &[String]) -> String {
    let noun = if partitions.len() == 1 {
        "partition"
    } else {
        "partitions"
    };
    format!("{noun} {}", names(partitions))
}

/// `is` or `are`.
fn verb(partitions: &[String]) -> &'static str {
    if partitions.len() == 1 {
        "is"
    } else {
        "are"
    }
}

/// The ports in backquotes, or "ports not in this process".
fn ports_or_unknown(ports: &[String]) -> String {
    if ports.is_empty() {
        "ports in another process".to_owned()
    } else {
        names(ports)
    }
}
