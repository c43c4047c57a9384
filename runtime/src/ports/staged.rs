//! Connections of a bench in the deterministic message order: they stage
//! what they are sent instead of delivering it (see `crate::staging`).
//!
//! A connection list is checked once, on its first send in a bench (see
//! `fanout.rs` and `requestor.rs`). When that send comes from a model task
//! of a bench in the deterministic order, the check also wraps each
//! connection in a [`StagedTarget`] or a [`StagedReplier`]: from then on,
//! a send through the list stages a delivery, and the bench delivers it at
//! the end of the round through the wrapped connection's own bench path.
//! The choice is made once per list, on the cold path: the send path of a
//! bench in the causal order is the same code as before the ordered mode
//! existed, not even a test of a flag (the callgrind counts are in
//! `docs/benchmarks.md`, "Deterministic message order").

use std::sync::Arc;
use std::task::{Context, Poll};

use super::link::Recipient;
use super::target::{Check, ReplierTarget, Target};
use crate::bench::BenchId;
use crate::mailbox::WaitTicket;
use crate::name::Name;

/// A connection of an output whose sends are staged.
pub(crate) struct StagedTarget<T>(pub(crate) Arc<dyn Target<T>>);

impl<T: Send + 'static> Target<T> for StagedTarget<T> {
    fn try_send<'a>(
        &'a self,
        value: T,
        cx: &mut Context<'_>,
        ticket: Option<&mut WaitTicket<'a>>,
    ) -> Result<(), T> {
        // Only model tasks of a bench in the deterministic order check a
        // list into staged connections; anything else delivers as before.
        let staged = crate::staging::try_stage(value, |value| {
            let target = Arc::clone(&self.0);
            move || target.send_from_bench(value)
        });
        match staged {
            Ok(()) => Ok(()),
            Err(value) => self.0.try_send(value, cx, ticket),
        }
    }

    fn send_from_bench(&self, value: T) {
        self.0.send_from_bench(value);
    }

    fn is_staged(&self) -> bool {
        true
    }

    fn describe(&self) -> String {
        self.0.describe()
    }

    fn check(&self, bench: BenchId) -> Check {
        self.0.check(bench)
    }

    fn link(&self) -> Recipient {
        self.0.link()
    }
}

/// A connection of a requestor whose requests are staged; the reply still
/// comes through the wrapped connection's reply slot.
pub(crate) struct StagedReplier<T, R>(pub(crate) Box<dyn ReplierTarget<T, R>>);

impl<T: Send + 'static, R: Send + 'static> ReplierTarget<T, R> for StagedReplier<T, R> {
    fn try_send<'a>(
        &'a self,
        request: T,
        cx: &mut Context<'_>,
        ticket: &mut WaitTicket<'a>,
    ) -> Result<(), T> {
        if !crate::staging::active() {
            return self.0.try_send(request, cx, ticket);
        }
        self.0.stage(request);
        Ok(())
    }

    fn stage(&self, request: T) {
        self.0.stage(request);
    }

    fn is_staged(&self) -> bool {
        true
    }

    fn poll_reply(&self, cx: &mut Context<'_>) -> Poll<Option<R>> {
        self.0.poll_reply(cx)
    }

    fn recipient(&self) -> Name {
        self.0.recipient()
    }

    fn check(&self, bench: BenchId) -> Check {
        self.0.check(bench)
    }

    fn is_misaddressed(&self) -> bool {
        self.0.is_misaddressed()
    }

    fn link(&self) -> Recipient {
        self.0.link()
    }
}
