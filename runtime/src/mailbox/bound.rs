//! A mailbox seen for what the bench made of it, whatever its message
//! type.
//!
//! The bench's record of its models and the connections their ports list
//! name mailboxes of every model type; they see a channel through
//! [`BoundMailbox`]: the name its model was added with and its place in
//! its bench. Cold: read when a topology or a snapshot's checksums are
//! made, never by a send.

use super::channel::Channel;
use crate::bench::BenchId;

/// A mailbox's channel, seen for its binding only.
pub(crate) trait BoundMailbox: Send + Sync {
    /// The name of the model it was added with, once added.
    fn bound_name(&self) -> Option<&str>;

    /// The model's place in `bench`'s add order (from 0), if the mailbox
    /// was added to `bench`; `None` if it was not added, or was added to
    /// another bench.
    fn place_in(&self, bench: BenchId) -> Option<usize>;
}

impl<T> BoundMailbox for Channel<T>
where
    Channel<T>: Send + Sync,
{
    fn bound_name(&self) -> Option<&str> {
        self.name()
    }

    fn place_in(&self, bench: BenchId) -> Option<usize> {
        let (bound, place) = self.placement()?;
        (bound == bench).then_some(place as usize)
    }
}
