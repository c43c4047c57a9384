//! The shape of a partitioned bench that every process must agree on:
//! partitions, links and the deployment of partitions on processes.
//!
//! Each process builds only the partitions it hosts, so what the window
//! computation needs of the others — which partitions a link joins, its
//! lookahead, which process hosts which partition — is declared up front,
//! the same in every process, and checked against the others' by a digest
//! carried in every report.

use std::time::Duration;

use crate::error::PartitionError;

/// A declared link: one direction, one payload type, from one partition to
/// one partition.
#[derive(Debug, Clone)]
pub(crate) struct LinkPlan {
    /// Its name, unique in the bench.
    pub(crate) name: String,
    /// The sending partition (index in [`Plan::partitions`]).
    pub(crate) from: usize,
    /// The receiving partition.
    pub(crate) to: usize,
    /// The delay of every message crossing it.
    pub(crate) lookahead: Duration,
    /// The payload type's name, for the digest and messages.
    pub(crate) payload: &'static str,
}

/// Partitions, links and the deployment.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    /// The partitions' names, in declaration order.
    pub(crate) partitions: Vec<String>,
    /// The links, in declaration order (a link's index is its identity on
    /// the wire and its place in the delivery order).
    pub(crate) links: Vec<LinkPlan>,
    /// The process (group) hosting each partition.
    pub(crate) group_of: Vec<usize>,
    /// The partitions of each group.
    pub(crate) groups: Vec<Vec<usize>>,
}

impl Plan {
    /// The smallest lookahead of the links leaving `group`, if any leaves
    /// it (a link between two partitions of one group counts: its messages
    /// also wait for a window's end).
    pub(crate) fn outbound_lookahead(&self, group: usize) -> Option<Duration> {
        self.links
            .iter()
            .filter(|link| self.group_of[link.from] == group)
            .map(|link| link.lookahead)
            .min()
    }

    /// The group that receives `link`'s messages.
    pub(crate) fn receiver(&self, link: usize) -> usize {
        self.group_of[self.links[link].to]
    }

    /// The names of `group`'s partitions.
    pub(crate) fn group_names(&self, group: usize) -> Vec<String> {
        self.groups[group]
            .iter()
            .map(|&p| self.partitions[p].clone())
            .collect()
    }

    /// A digest of everything the processes must agree on (FNV-1a over a
    /// canonical text). It holds the payload types' names, which Rust does
    /// not promise to keep from one compiler to the next: the processes of
    /// a run use one build of the bench.
    pub(crate) fn digest(&self) -> u64 {
        let mut text = String::new();
        for name in &self.partitions {
            text.push_str(&format!("p:{name};"));
        }
        for link in &self.links {
            text.push_str(&format!(
                "l:{}:{}:{}:{}:{};",
                link.name,
                link.from,
                link.to,
                link.lookahead.as_nanos(),
                link.payload
            ));
        }
        for group in &self.groups {
            text.push_str(&format!("g:{group:?};"));
        }
        text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3)
        })
    }
}

/// Which process hosts which partitions.
///
/// Every process is given the same deployment and its own index in it.
/// [`Deployment::single`] hosts every partition in one process — the
/// reference run that every other deployment reproduces exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deployment {
    /// The partitions of each process, by name.
    groups: Vec<Vec<String>>,
}

impl Deployment {
    /// Processes hosting the given partitions, in order: `groups[i]` is
    /// process `i`'s.
    pub fn new<G, P>(groups: G) -> Self
    where
        G: IntoIterator<Item = P>,
        P: IntoIterator,
        P::Item: AsRef<str>,
    {
        Deployment {
            groups: groups
                .into_iter()
                .map(|group| group.into_iter().map(|p| p.as_ref().to_owned()).collect())
                .collect(),
        }
    }

    /// One process hosting every partition.
    pub fn single() -> Self {
        Deployment { groups: Vec::new() }
    }

    /// The number of processes (1 for [`single`](Self::single)).
    pub fn processes(&self) -> usize {
        self.groups.len().max(1)
    }

    /// Each partition's group, checked: every partition placed exactly
    /// once, no unknown partition, no empty process.
    pub(crate) fn resolve(
        &self,
        partitions: &[String],
    ) -> Result<(Vec<usize>, Vec<Vec<usize>>), PartitionError> {
        if self.groups.is_empty() {
            let all = (0..partitions.len()).collect();
            return Ok((vec![0; partitions.len()], vec![all]));
        }
        let mut group_of = vec![usize::MAX; partitions.len()];
        let mut groups = Vec::with_capacity(self.groups.len());
        for (g, names) in self.groups.iter().enumerate() {
            if names.is_empty() {
                return Err(PartitionError::Declaration(format!(
                    "process {g} of the deployment hosts no partition"
                )));
            }
            let mut members = Vec::with_capacity(names.len());
            for name in names {
                let Some(p) = partitions.iter().position(|known| known == name) else {
                    return Err(PartitionError::Declaration(format!(
                        "the deployment places partition `{name}`, which the bench does not \
                         declare (it declares {partitions:?})"
                    )));
                };
                if group_of[p] != usize::MAX {
                    return Err(PartitionError::Declaration(format!(
                        "the deployment places partition `{name}` in two processes ({} and {g})",
                        group_of[p]
                    )));
                }
                group_of[p] = g;
                members.push(p);
            }
            members.sort_unstable();
            groups.push(members);
        }
        if let Some(p) = group_of.iter().position(|&g| g == usize::MAX) {
            return Err(PartitionError::Declaration(format!(
                "the deployment places partition `{}` in no process",
                partitions[p]
            )));
        }
        Ok((group_of, groups))
    }
}
