//! What the bench records while it is built, for its topology.
//!
//! A model's connections are listed when it is added
//! ([`Model::list_connections`], once, on the cold path), since the model
//! moves into its task then and is never reachable again from outside.
//! A connection names its recipient by its mailbox (see `ports/link.rs`):
//! the recipient may be added after the sender, so mailboxes are resolved
//! to the models' places and paths only when a
//! [`Topology`](super::Topology) is asked for (see `resolve.rs`).
//!
//! Kept small, since it lives as long as the bench: a model costs one
//! 32-byte record (its mailbox's channel, shared, which keeps the model's
//! path for error reports anyway, and its metadata as a function pointer),
//! and its connections are appended to one vector shared by every model
//! rather than one allocation each.

use std::sync::Arc;

use crate::mailbox::bound::BoundMailbox;
use crate::mailbox::Mailbox;
use crate::model::{Model, ModelMetadata};
use crate::ports::link::{Link, SinkKey};
use crate::ports::ConnectionList;

use super::graph::SourceKind;

/// The record of a bench's parts, in the order they were added.
#[derive(Debug, Default)]
pub(crate) struct Recorder {
    /// The models.
    pub(super) models: Vec<ModelRecord>,
    /// Every model's connections, model after model.
    pub(super) links: Vec<Link>,
    /// The composites.
    pub(super) composites: Vec<CompositeRecord>,
    /// The named sources, with their connections.
    pub(super) sources: Vec<SourceRecord>,
    /// The named sinks.
    pub(super) sinks: Vec<SinkRecord>,
}

/// One model.
pub(super) struct ModelRecord {
    /// Its mailbox's channel, which keeps the model's path once it is
    /// added.
    pub(super) mailbox: Arc<dyn BoundMailbox>,
    /// Its type's metadata.
    pub(super) metadata: fn() -> ModelMetadata,
    /// The end of its connections in [`Recorder::links`] (they start at the
    /// previous model's end).
    pub(super) links_end: usize,
}

impl ModelRecord {
    /// The model's path.
    pub(super) fn path(&self) -> &str {
        self.mailbox.bound_name().unwrap_or("<not added>")
    }
}

impl std::fmt::Debug for ModelRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelRecord")
            .field("path", &self.path())
            .field("links_end", &self.links_end)
            .finish()
    }
}

/// One composite.
#[derive(Debug)]
pub(super) struct CompositeRecord {
    /// Its path.
    pub(super) path: String,
    /// Its type name.
    pub(super) type_name: &'static str,
}

/// One named source.
#[derive(Debug)]
pub(super) struct SourceRecord {
    /// The name given.
    pub(super) name: String,
    /// Event or query source.
    pub(super) kind: SourceKind,
    /// The event or request type.
    pub(super) payload: &'static str,
    /// The reply type, for a query source.
    pub(super) reply: Option<&'static str>,
    /// Its connections when it was named.
    pub(super) links: Vec<Link>,
}

/// One named sink.
#[derive(Debug)]
pub(super) struct SinkRecord {
    /// Its identity, as the connections to it name it.
    pub(super) sink: SinkKey,
    /// The name given.
    pub(super) name: String,
    /// The value type.
    pub(super) payload: &'static str,
}

impl Recorder {
    /// Records `model`, added with `mailbox` (whose channel keeps its
    /// path), and lists its connections.
    pub(crate) fn record_model<M: Model>(&mut self, model: &M, mailbox: &Mailbox<M>) {
        let mut list = ConnectionList::appending_to(std::mem::take(&mut self.links));
        model.list_connections(&mut list);
        self.links = list.into_links();
        self.models.push(ModelRecord {
            mailbox: mailbox.channel().clone(),
            metadata: M::metadata,
            links_end: self.links.len(),
        });
    }

    /// Records a composite model of type `type_name` at `path`: a cluster
    /// holding every model and composite whose path it prefixes, `/` by
    /// `/`, unless a deeper composite does.
    pub(crate) fn record_composite(&mut self, path: &str, type_name: &'static str) {
        self.composites.push(CompositeRecord {
            path: path.to_string(),
            type_name,
        });
    }

    /// Records a named source and its connections (`list` lists them).
    pub(super) fn record_source(
        &mut self,
        name: String,
        kind: SourceKind,
        (payload, reply): (&'static str, Option<&'static str>),
        list: impl FnOnce(&mut ConnectionList),
    ) {
        let mut links = ConnectionList::default();
        list(&mut links);
        self.sources.push(SourceRecord {
            name,
            kind,
            payload,
            reply,
            links: links.into_links(),
        });
    }

    /// Records a named sink.
    pub(super) fn record_sink(&mut self, sink: SinkKey, name: String, payload: &'static str) {
        self.sinks.push(SinkRecord {
            sink,
            name,
            payload,
        });
    }

    /// The number of models recorded.
    pub(crate) fn model_count(&self) -> usize {
        self.models.len()
    }

    /// The path of model number `index` (add order), read from its
    /// mailbox's channel.
    pub(crate) fn model_path(&self, index: usize) -> &str {
        self.models
            .get(index)
            .map_or("<not added>", ModelRecord::path)
    }

    /// The type name of model number `index` (add order).
    pub(crate) fn model_type(&self, index: usize) -> &'static str {
        self.models
            .get(index)
            .map_or("<unknown>", |model| (model.metadata)().type_name)
    }

    /// Each model with its connections, in the order they were added.
    pub(super) fn models_with_links(&self) -> impl Iterator<Item = (&ModelRecord, &[Link])> {
        let starts = std::iter::once(0).chain(self.models.iter().map(|m| m.links_end));
        self.models
            .iter()
            .zip(starts)
            .map(|(model, start)| (model, &self.links[start..model.links_end]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sizes the module docs and `docs/guide.md` state, on 64-bit
    /// targets.
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn records_stay_small() {
        assert_eq!(std::mem::size_of::<ModelRecord>(), 32);
        assert_eq!(std::mem::size_of::<Link>(), 64);
    }
}
