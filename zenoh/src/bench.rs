//! Declaring a partitioned bench: partitions, each built by its own
//! function, and the links between them.

use std::any::type_name;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use causim::prelude::*;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::builder::PartitionBuilder;
use crate::error::PartitionError;
use crate::host::Hosted;
use crate::link::{valid_name, Link};
use crate::plan::{Deployment, LinkPlan, Plan};

/// A partition's builder function.
type Build = Arc<dyn Fn(&mut PartitionBuilder) + Send + Sync>;

/// A declared partition.
struct PartitionDecl {
    /// Its name.
    name: String,
    /// Adds its models to the bench of the process hosting it.
    build: Build,
}

/// A declared link, before the partitions' names are resolved.
struct LinkDecl {
    /// Its name.
    name: String,
    /// The sending partition's name.
    from: String,
    /// The receiving partition's name.
    to: String,
    /// The delay of every message.
    lookahead: Duration,
    /// The payload type's name.
    payload: &'static str,
}

/// Tells the links of one bench from another's.
static NEXT_BENCH: AtomicU64 = AtomicU64::new(1);

/// A bench split into partitions joined by links.
///
/// Every process runs the same code declaring the same bench: partitions by
/// name, each with a function that adds its models (called only in the
/// process that hosts it), and links, each from one partition to one
/// other with a lookahead — the delay of every message crossing it. Model
/// code is unchanged: a model's output is connected to a link's sending end
/// in one partition, and a link's receiving end to a model's input in the
/// other.
///
/// [`host`](Self::host) builds the partitions one process hosts, under a
/// [`Deployment`]; [`Deployment::single`] runs every partition in one
/// process, and gives the results every other deployment reproduces bit
/// for bit (see the crate's documentation for the rule).
pub struct PartitionedBench {
    /// Identifies its links.
    id: u64,
    /// The partitions, in declaration order.
    partitions: Vec<PartitionDecl>,
    /// The links, in declaration order.
    links: Vec<LinkDecl>,
    /// Applied to each process's `SimInit` before any model is added.
    configure: Option<Arc<dyn Fn(SimInit) -> SimInit + Send + Sync>>,
}

impl Default for PartitionedBench {
    fn default() -> Self {
        PartitionedBench {
            id: NEXT_BENCH.fetch_add(1, Ordering::Relaxed),
            partitions: Vec::new(),
            links: Vec::new(),
            configure: None,
        }
    }
}

impl std::fmt::Debug for PartitionedBench {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.partitions.iter().map(|p| p.name.as_str()).collect();
        let links: Vec<&str> = self.links.iter().map(|l| l.name.as_str()).collect();
        f.debug_struct("PartitionedBench")
            .field("partitions", &names)
            .field("links", &links)
            .finish()
    }
}

impl PartitionedBench {
    /// A bench with no partition yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Declares partition `name`, whose models `build` adds (in the process
    /// that hosts it only).
    pub fn partition(
        &mut self,
        name: impl Into<String>,
        build: impl Fn(&mut PartitionBuilder) + Send + Sync + 'static,
    ) -> &mut Self {
        self.partitions.push(PartitionDecl {
            name: name.into(),
            build: Arc::new(build),
        });
        self
    }

    /// Declares link `name` carrying `T` from partition `from` to partition
    /// `to`: each message arrives `lookahead` after it was sent. The
    /// lookahead must be positive (checked when the bench is hosted, with
    /// the ports connected to the link).
    pub fn link<T>(
        &mut self,
        name: impl Into<String>,
        from: impl Into<String>,
        to: impl Into<String>,
        lookahead: Duration,
    ) -> Link<T>
    where
        T: Serialize + DeserializeOwned + Send + 'static,
    {
        self.links.push(LinkDecl {
            name: name.into(),
            from: from.into(),
            to: to.into(),
            lookahead,
            payload: type_name::<T>(),
        });
        Link::new(self.id, self.links.len() - 1)
    }

    /// Sets how each process's simulation is configured (threads, timeout,
    /// zero-delay rounds, …), before any model is added. The runner sets
    /// the deterministic message order first; `configure` may change it,
    /// at the cost of the identical results.
    pub fn configure(
        &mut self,
        configure: impl Fn(SimInit) -> SimInit + Send + Sync + 'static,
    ) -> &mut Self {
        self.configure = Some(Arc::new(configure));
        self
    }

    /// Builds the partitions that process `process` of `deployment` hosts.
    ///
    /// Checks the declaration (names, links' partitions, the deployment),
    /// then runs the hosted partitions' functions in declaration order,
    /// then checks what they built: every link end connected where it
    /// belongs, every link delivered to models of its receiving partition,
    /// every lookahead positive, no connection crossing partitions outside
    /// a link, no top-level name added by two partitions. Each error names
    /// the partition, link and ports.
    pub fn host(&self, deployment: &Deployment, process: usize) -> Result<Hosted, PartitionError> {
        let plan = Arc::new(self.plan(deployment)?);
        if process >= plan.groups.len() {
            return Err(PartitionError::Declaration(format!(
                "process {process} is not in the deployment, which has {} process(es)",
                plan.groups.len()
            )));
        }
        let mut init = SimInit::new().with_message_order(MessageOrder::Deterministic);
        if let Some(configure) = &self.configure {
            init = configure(init);
        }
        let mut builder = PartitionBuilder::new(self.id, plan.clone(), init);
        for &p in &plan.groups[process] {
            builder.enter(p);
            (self.partitions[p].build)(&mut builder);
        }
        builder.finish(process)
    }

    /// The declaration resolved under `deployment`, checked.
    fn plan(&self, deployment: &Deployment) -> Result<Plan, PartitionError> {
        let partitions: Vec<String> = self.partitions.iter().map(|p| p.name.clone()).collect();
        check_unique("partition", partitions.iter())?;
        check_unique("link", self.links.iter().map(|l| &l.name))?;
        let find = |link: &str, end: &str, name: &str| {
            partitions.iter().position(|p| p == name).ok_or_else(|| {
                PartitionError::Declaration(format!(
                    "link `{link}` {end} partition `{name}`, which is not declared"
                ))
            })
        };
        let mut links = Vec::with_capacity(self.links.len());
        for decl in &self.links {
            if !valid_name(&decl.name) {
                return Err(PartitionError::Declaration(format!(
                    "link name `{}` is empty or holds `/` or whitespace",
                    decl.name
                )));
            }
            links.push(LinkPlan {
                name: decl.name.clone(),
                from: find(&decl.name, "starts in", &decl.from)?,
                to: find(&decl.name, "ends in", &decl.to)?,
                lookahead: decl.lookahead,
                payload: decl.payload,
            });
        }
        let (group_of, groups) = deployment.resolve(&partitions)?;
        Ok(Plan {
            partitions,
            links,
            group_of,
            groups,
        })
    }
}

/// Fails on an empty name or on the first name given twice.
fn check_unique<'a>(
    what: &str,
    names: impl Iterator<Item = &'a String>,
) -> Result<(), PartitionError> {
    let mut seen = std::collections::HashSet::new();
    for name in names {
        if name.is_empty() {
            return Err(PartitionError::Declaration(format!(
                "a {what} has an empty name"
            )));
        }
        if !seen.insert(name) {
            return Err(PartitionError::Declaration(format!(
                "{what} `{name}` is declared twice"
            )));
        }
    }
    Ok(())
}
