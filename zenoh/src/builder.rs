//! What a partition's builder function is given: the process's bench, and
//! the ends of the links.

use std::any::type_name;
use std::collections::HashMap;
use std::sync::Arc;

use causim::ports::{InputFor, InputRef};
use causim::prelude::*;
use causim::topology::{ConnectionKind, Endpoint, Topology};
use causim::{Composite, IntoAddress};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::PartitionError;
use crate::host::Hosted;
use crate::link::{
    capture_path, deliver_to, encode, relay_path, Captured, Deliver, Link, LinkCapture, LinkRelay,
};
use crate::plan::Plan;

/// Which end of a link a builder connects.
#[derive(Clone, Copy)]
enum End {
    /// Its outputs.
    Sending,
    /// Its inputs.
    Receiving,
}

/// The sending end of a link in this process.
struct SendingEnd {
    /// The capture model's mailbox, for each output connected to the link.
    address: Address<LinkCapture>,
    /// What the capture received.
    captured: Captured,
}

/// The receiving end of a link in this process.
#[derive(Default)]
struct ReceivingEnd {
    /// One delivery per input connected to the link, in connection order.
    deliveries: Vec<Deliver>,
    /// Those inputs, in the same order, for the checks and their errors.
    inputs: Vec<LinkInput>,
}

/// An input a link is delivered to, as the checks see it.
struct LinkInput {
    /// `Type.port`.
    port: String,
    /// The path of its model, once added to the bench (read when the
    /// partitions are built: `link_to` may come before `add_model`).
    path: Box<dyn Fn() -> Option<String>>,
}

/// Builds the partitions one process hosts into its bench.
///
/// A partition's function adds its models with
/// [`add_model`](Self::add_model) and [`add_composite`](Self::add_composite)
/// (their paths are the bench's, as in one process), connects outputs to
/// links with [`link_from`](Self::link_from) and links to inputs with
/// [`link_to`](Self::link_to). Mistakes are collected and returned by
/// [`PartitionedBench::host`](crate::PartitionedBench::host), each naming
/// the partition and link.
pub struct PartitionBuilder {
    /// The bench the links must come from.
    bench: u64,
    /// The declaration.
    plan: Arc<Plan>,
    /// The process's bench (taken and put back by each addition).
    init: Option<SimInit>,
    /// The partition being built.
    current: usize,
    /// The partition of each top-level name added.
    owners: HashMap<String, usize>,
    /// The sending ends, by link.
    sending: Vec<Option<SendingEnd>>,
    /// The receiving ends, by link.
    receiving: Vec<ReceivingEnd>,
    /// The mistakes, in the order made.
    errors: Vec<PartitionError>,
}

impl std::fmt::Debug for PartitionBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PartitionBuilder")
            .field("partition", &self.partition())
            .finish_non_exhaustive()
    }
}

impl PartitionBuilder {
    /// A builder of `init` under `plan`.
    pub(crate) fn new(bench: u64, plan: Arc<Plan>, init: SimInit) -> Self {
        let links = plan.links.len();
        PartitionBuilder {
            bench,
            plan,
            init: Some(init),
            current: 0,
            owners: HashMap::new(),
            sending: (0..links).map(|_| None).collect(),
            receiving: (0..links).map(|_| ReceivingEnd::default()).collect(),
            errors: Vec::new(),
        }
    }

    /// The name of the partition being built.
    pub fn partition(&self) -> &str {
        &self.plan.partitions[self.current]
    }

    /// Adds a model to this partition, as `SimInit::add_model` does.
    pub fn add_model<M: Model>(
        &mut self,
        model: M,
        mailbox: Mailbox<M>,
        name: impl AsRef<str>,
    ) -> &mut Self {
        self.own(name.as_ref());
        self.map_init(|init| init.add_model(model, mailbox, name))
    }

    /// Adds a composite to this partition, as `SimInit::add_composite`
    /// does.
    pub fn add_composite<C: Composite>(
        &mut self,
        composite: C,
        name: impl AsRef<str>,
    ) -> &mut Self {
        self.own(name.as_ref());
        self.map_init(|init| init.add_composite(composite, name))
    }

    /// Applies `f` to the process's `SimInit` (to name a sink for the
    /// topology, for instance). Models added here belong to no partition:
    /// add them with [`add_model`](Self::add_model).
    pub fn map_init(&mut self, f: impl FnOnce(SimInit) -> SimInit) -> &mut Self {
        let init = self
            .init
            .take()
            .expect("the builder always holds its bench");
        self.init = Some(f(init));
        self
    }

    /// Connects `output` (of a model of this partition) to `link`: each
    /// value it sends crosses the link, arriving the link's lookahead
    /// later. Several outputs may feed one link.
    pub fn link_from<T>(&mut self, link: Link<T>, output: &mut Output<T>) -> &mut Self
    where
        T: Serialize + Clone + Send + 'static,
    {
        if !self.check_end(link.bench, link.index, End::Sending) {
            return self;
        }
        if self.sending[link.index].is_none() {
            let (capture, captured) = LinkCapture::new();
            let mailbox = Mailbox::new();
            let address = mailbox.address();
            let path = capture_path(&self.plan.links[link.index].name);
            self.own(&path);
            self.map_init(|init| init.add_model(capture, mailbox, path));
            self.sending[link.index] = Some(SendingEnd { address, captured });
        }
        let end = self.sending[link.index].as_ref().expect("made above");
        output.map_connect(encode, LinkCapture::ports().capture, &end.address);
        self
    }

    /// Connects `link` to the input `port` of the model at `address` (of
    /// this partition: a model of another is refused when the bench is
    /// hosted): each message is delivered to it at its arrival time, as a
    /// bench event. Several inputs may receive one link, in the order
    /// connected.
    pub fn link_to<T, P>(
        &mut self,
        link: Link<T>,
        port: P,
        address: impl IntoAddress<P::Model>,
    ) -> &mut Self
    where
        T: DeserializeOwned + Send + 'static,
        P: InputFor<T>,
    {
        if !self.check_end(link.bench, link.index, End::Receiving) {
            return self;
        }
        let input = InputRef::new(port, address);
        let name = format!("{}.{}", short_type::<P::Model>(), input.port().name());
        let target = input.address().clone();
        let end = &mut self.receiving[link.index];
        end.deliveries
            .push(deliver_to(input.port(), input.address()));
        end.inputs.push(LinkInput {
            port: name,
            path: Box::new(move || target.name().map(str::to_owned)),
        });
        self
    }

    /// Connects `link` to a new output, which `connect` connects as any
    /// output (to several inputs, with maps or filters, to a composite's
    /// exposed inputs): each message is delivered at its arrival time to a
    /// relay model of this partition (path `link:<name>:delivery`), which
    /// sends it on that output. Call it once per link.
    pub fn link_to_output<T>(
        &mut self,
        link: Link<T>,
        connect: impl FnOnce(&mut Output<T>),
    ) -> &mut Self
    where
        T: Serialize + DeserializeOwned + Clone + Send + 'static,
    {
        if !self.check_end(link.bench, link.index, End::Receiving) {
            return self;
        }
        let path = relay_path(&self.plan.links[link.index].name);
        if self.owners.contains_key(&path) {
            self.errors.push(PartitionError::Link {
                link: self.plan.links[link.index].name.clone(),
                problem: format!(
                    "`link_to_output` called twice in partition `{}`: connect every target in \
                     one call",
                    self.partition()
                ),
            });
            return self;
        }
        let mut relay = LinkRelay { out: Output::new() };
        connect(&mut relay.out);
        let mailbox = Mailbox::new();
        self.link_to(link, LinkRelay::<T>::ports().relay, &mailbox);
        self.own(&path);
        self.map_init(|init| init.add_model(relay, mailbox, path))
    }

    /// Starts building partition `p`.
    pub(crate) fn enter(&mut self, p: usize) {
        self.current = p;
    }

    /// Notes that top-level name `name` belongs to the current partition.
    /// A name added by two partitions is a mistake: split, each process
    /// would accept it; in one process the kernel would refuse the second,
    /// after the link checks had taken it for the last one's.
    fn own(&mut self, name: &str) {
        let previous = self.owners.insert(name.to_owned(), self.current);
        if let Some(other) = previous.filter(|&other| other != self.current) {
            self.errors.push(PartitionError::Declaration(format!(
                "`{name}` is added by partitions `{}` and `{}`: a top-level name belongs to one \
                 partition",
                self.plan.partitions[other],
                self.partition()
            )));
        }
    }

    /// True if `link` is this bench's and `end` of it is used in its own
    /// partition; else notes the mistake.
    fn check_end(&mut self, bench: u64, link: usize, end: End) -> bool {
        if bench != self.bench || link >= self.plan.links.len() {
            self.errors.push(PartitionError::Link {
                link: format!("#{link}"),
                problem: format!(
                    "used in partition `{}` but declared by another partitioned bench",
                    self.partition()
                ),
            });
            return false;
        }
        let (expected, verb) = match end {
            End::Sending => (self.plan.links[link].from, "starts"),
            End::Receiving => (self.plan.links[link].to, "ends"),
        };
        if expected != self.current {
            self.errors.push(PartitionError::Link {
                link: self.plan.links[link].name.clone(),
                problem: format!(
                    "{verb} in partition `{}` but is connected in partition `{}`",
                    self.plan.partitions[expected],
                    self.partition()
                ),
            });
            return false;
        }
        true
    }

    /// Checks what the partitions built and hands it to the runner.
    pub(crate) fn finish(mut self, group: usize) -> Result<Hosted, PartitionError> {
        if let Some(first) = self.errors.drain(..).next() {
            return Err(first);
        }
        let init = self
            .init
            .take()
            .expect("the builder always holds its bench");
        let topology = init.topology();
        self.check_ends(group, &topology)?;
        self.check_targets()?;
        self.check_crossings(&topology)?;
        let captures = self
            .sending
            .iter()
            .enumerate()
            .filter_map(|(link, end)| end.as_ref().map(|end| (link, end.captured.clone())))
            .collect();
        let deliveries = self
            .receiving
            .into_iter()
            .map(|end| end.deliveries)
            .collect();
        Ok(Hosted::new(init, self.plan, group, captures, deliveries))
    }

    /// Every link end of this process connected, every lookahead positive.
    fn check_ends(&self, group: usize, topology: &Topology) -> Result<(), PartitionError> {
        for (index, link) in self.plan.links.iter().enumerate() {
            let sends_here = self.plan.group_of[link.from] == group;
            let receives_here = self.plan.group_of[link.to] == group;
            if sends_here && self.sending[index].is_none() {
                return Err(unconnected(
                    &self.plan,
                    index,
                    "no output",
                    link.from,
                    "link_from",
                ));
            }
            if receives_here && self.receiving[index].deliveries.is_empty() {
                return Err(unconnected(
                    &self.plan, index, "no input", link.to, "link_to",
                ));
            }
            if link.lookahead.is_zero() {
                return Err(PartitionError::NoLookahead {
                    link: link.name.clone(),
                    from: senders_of(topology, &capture_path(&link.name)),
                    to: self.receiving[index]
                        .inputs
                        .iter()
                        .map(|input| input.port.clone())
                        .collect(),
                });
            }
        }
        Ok(())
    }

    /// Every input a link is delivered to is of a model of the link's
    /// receiving partition (in one process a model of another partition
    /// would receive it; split, it would not be there).
    fn check_targets(&self) -> Result<(), PartitionError> {
        for (index, end) in self.receiving.iter().enumerate() {
            let link = &self.plan.links[index];
            for LinkInput { port, path } in &end.inputs {
                let path = path();
                let owner = path.as_deref().and_then(|path| self.owner_of(path));
                if owner == Some(link.to) {
                    continue;
                }
                let whose = match (path, owner) {
                    (Some(path), Some(owner)) => format!(
                        "of `{path}`, a model of partition `{}`",
                        self.plan.partitions[owner]
                    ),
                    (Some(path), None) => format!(
                        "of `{path}`, a model of no partition (added through `map_init`, or to \
                         another bench)"
                    ),
                    (None, _) => "of a model never added to the bench in this process".to_owned(),
                };
                return Err(PartitionError::Link {
                    link: link.name.clone(),
                    problem: format!(
                        "delivered to `{port}` {whose}: `link_to` must name an input of a model \
                         of partition `{}`, which receives the link",
                        self.plan.partitions[link.to]
                    ),
                });
            }
        }
        Ok(())
    }

    /// The partition of the model or composite at `path`, by its top-level
    /// name.
    fn owner_of(&self, path: &str) -> Option<usize> {
        let top = path.split('/').next().unwrap_or(path);
        self.owners.get(top).copied()
    }

    /// No connection between models of two partitions, nor to a model
    /// never added (in a partitioned bench, most likely one of another
    /// process).
    fn check_crossings(&self, topology: &Topology) -> Result<(), PartitionError> {
        let models = topology.models();
        let owner = |model: usize| self.owner_of(&models[model].path);
        for connection in topology.connections() {
            let Endpoint::Port { model: from, .. } = connection.from else {
                continue;
            };
            let crosses = match connection.to {
                Endpoint::Port { model: to, .. } => owner(from) != owner(to),
                Endpoint::Unbound { .. } => true,
                Endpoint::Source(_) | Endpoint::Sink(_) => false,
            };
            if crosses {
                return Err(PartitionError::CrossingConnection {
                    from: topology.endpoint_name(connection.from),
                    to: topology.endpoint_name(connection.to),
                    kind: match connection.kind {
                        ConnectionKind::Event => "event",
                        ConnectionKind::Request => "request",
                    },
                });
            }
        }
        Ok(())
    }
}

/// A link end left unconnected.
fn unconnected(
    plan: &Plan,
    link: usize,
    what: &str,
    partition: usize,
    call: &str,
) -> PartitionError {
    PartitionError::Link {
        link: plan.links[link].name.clone(),
        problem: format!(
            "{what} of partition `{}` is connected to it (`{call}` in its builder)",
            plan.partitions[partition]
        ),
    }
}

/// The sending ports connected to the model at `path`, `path.port`.
fn senders_of(topology: &Topology, path: &str) -> Vec<String> {
    let models = topology.models();
    topology
        .connections()
        .iter()
        .filter(|c| matches!(c.to, Endpoint::Port { model, .. } if models[model].path == path))
        .map(|c| topology.endpoint_name(c.from))
        .collect()
}

/// A type's name without its module path.
fn short_type<T>() -> &'static str {
    let full = type_name::<T>();
    let base = full.split('<').next().unwrap_or(full);
    let start = base.rfind("::").map_or(0, |i| i + 2);
    &full[start..]
}
