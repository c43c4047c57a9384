//! Connections: where an output or a requestor sends.
//!
//! A connection is type-erased on the *sending* side only (an output may feed
//! inputs of several model types, sinks and mapped inputs), as a trait object
//! called once per send. The receiving side stays static: the connection
//! builds the concrete message variant with the port's constructor and pushes
//! it into the concrete mailbox.
//!
//! A connection is checked against the sending bench once, on the cold path
//! (see [`Check`]): one to a mailbox of another bench is replaced by a
//! [`ForeignInput`] or [`ForeignReplier`] that drops what it is given and
//! reports it, so the send path of a good connection never tests for it.

use std::task::{Context, Poll};

use super::adapt::{Adapt, Convert};
use super::input::{InputPort, ReplierPort};
use super::link::{MailboxRef, Mapping, Recipient};
use super::reply::ReplySlot;
use crate::bench::BenchId;
use crate::mailbox::channel::{note_unbound_cold, Pushed};
use crate::mailbox::Address;
use crate::mailbox::WaitTicket;
use crate::model::{Model, PortKind};
use crate::name::Name;
use crate::poll_report::{self, Blocker, Misaddressed};

/// One connection of an output or event source.
pub(crate) trait Target<T>: Send + Sync {
    /// Delivers `value`, or hands it back when the recipient's mailbox is
    /// full, with the waker in line under `ticket` (see
    /// `Channel::try_push_with`; no ticket: nothing registered).
    fn try_send<'a>(
        &'a self,
        value: T,
        cx: &mut Context<'_>,
        ticket: Option<&mut WaitTicket<'a>>,
    ) -> Result<(), T>;

    /// Delivers `value` from the bench, which never waits: a full mailbox
    /// takes it in its overflow (see `mailbox/overflow.rs`).
    fn send_from_bench(&self, value: T);

    /// Whether this connection stages what it is sent (cold: a
    /// connection list's check wraps the others once, see `staged.rs`).
    fn is_staged(&self) -> bool {
        false
    }

    /// Whether this connection refuses whatever it is sent (a recipient
    /// of another bench): nothing to stage, and its sender reports it.
    fn refuses(&self) -> bool {
        false
    }

    /// The recipient, for an error report (cold).
    fn describe(&self) -> String {
        "a sink".to_string()
    }

    /// Whether the recipient belongs to `bench` (cold). A sink, read by
    /// the bench itself, always does.
    fn check(&self, _bench: BenchId) -> Check {
        Check::Bound
    }

    /// Where this connection leads and how it adapts the value, for the
    /// topology export (cold). A connection that refuses every message
    /// (its recipient is in another bench) answers `Refused` and is not
    /// listed. Required, so that no kind of connection can go missing
    /// from the export by omission.
    fn link(&self) -> Recipient;
}

/// Where a connection's recipient is, seen from a sending bench.
#[derive(Debug)]
pub(crate) enum Check {
    /// In the sending bench (or a sink, or a connection already settled
    /// as foreign): nothing to check any more.
    Bound,
    /// Never added to a bench (yet): every send reports it, until the
    /// mailbox is added to a bench, which can only be another one.
    Unbound,
    /// Added to another bench: the connection is replaced by one that
    /// refuses every message.
    Foreign(Misaddressed),
}

/// Where the mailbox at `address` is, seen from `bench`, for `port`.
pub(crate) fn check_address<M: Model>(
    address: &Address<M>,
    port: &'static str,
    kind: PortKind,
    bench: BenchId,
) -> Check {
    match address.channel().binding() {
        None => Check::Unbound,
        Some(_) if address.channel().bench() == Some(bench) => Check::Bound,
        // A model that no longer exists swallows messages, whichever bench
        // it was in: a send to it is a no-op, not an error.
        Some(_) if address.channel().is_closed() => Check::Bound,
        Some(binding) => Check::Foreign(Misaddressed {
            model_type: address.model_type(),
            port,
            kind,
            foreign: Some(binding.name.clone()),
        }),
    }
}

/// A connection to an input of a model of another bench: drops every value
/// and reports it.
pub(crate) struct ForeignInput {
    /// What each send reports.
    report: Misaddressed,
    /// The recipient, for an error report.
    recipient: String,
}

impl ForeignInput {
    /// The connection that stands for one to the recipient `report` names.
    pub(crate) fn new(report: Misaddressed, recipient: String) -> Self {
        ForeignInput { report, recipient }
    }
}

impl<T> Target<T> for ForeignInput {
    fn try_send(
        &self,
        value: T,
        _cx: &mut Context<'_>,
        _ticket: Option<&mut WaitTicket<'_>>,
    ) -> Result<(), T> {
        self.send_from_bench(value);
        Ok(())
    }

    fn send_from_bench(&self, value: T) {
        drop(value);
        poll_report::note_misaddressed(self.report.clone());
    }

    fn describe(&self) -> String {
        self.recipient.clone()
    }

    fn refuses(&self) -> bool {
        true
    }

    fn link(&self) -> Recipient {
        Recipient::Refused
    }
}

/// How an error names the input `port` of the model at `address`.
pub(crate) fn describe_input<M: Model>(address: &Address<M>, port: &'static str) -> String {
    let name = address.name().unwrap_or("<never added>");
    format!(
        "input `{port}` of model `{name}` ({})",
        address.model_type()
    )
}

/// One connection of a requestor: sends the request, then yields the reply.
pub(crate) trait ReplierTarget<T, R>: Send + Sync {
    /// Delivers the request, or hands it back when the mailbox is full
    /// (with the waker in line under `ticket`).
    fn try_send<'a>(
        &'a self,
        request: T,
        cx: &mut Context<'_>,
        ticket: &mut WaitTicket<'a>,
    ) -> Result<(), T>;

    /// Stages the request for the bench to deliver at the end of the
    /// round (the ordered mode, see `crate::staging`), with the reply slot
    /// armed now: the reply comes through the slot once the replier has
    /// answered, in a later round (cold: called through a
    /// [`StagedReplier`](super::staged::StagedReplier)).
    fn stage(&self, request: T);

    /// Whether this connection stages its requests (cold: a connection
    /// list's check wraps the others once).
    fn is_staged(&self) -> bool {
        false
    }

    /// Whether this connection refuses every request (a replier of another
    /// bench): nothing to stage, and its sender reports it.
    fn refuses(&self) -> bool {
        false
    }

    /// The reply to the last request, `None` if none will come.
    fn poll_reply(&self, cx: &mut Context<'_>) -> Poll<Option<R>>;

    /// The recipient's name, for diagnostics.
    fn recipient(&self) -> Name;

    /// Whether the recipient belongs to `bench` (cold).
    fn check(&self, bench: BenchId) -> Check;

    /// True if every request is dropped because the recipient is not in
    /// the bench (never added, or added to another one), as opposed to a
    /// replier whose model no longer exists (cold).
    fn is_misaddressed(&self) -> bool;

    /// Where this connection leads and how it converts the request and
    /// the reply, for the topology export (cold).
    fn link(&self) -> Recipient;
}

/// A connection to a replier of a model of another bench: drops every
/// request, reports it, and never replies.
pub(crate) struct ForeignReplier {
    /// What each request reports.
    report: Misaddressed,
}

impl ForeignReplier {
    /// The connection that stands for one to the replier `report` names.
    pub(crate) fn new(report: Misaddressed) -> Self {
        ForeignReplier { report }
    }
}

impl<T, R> ReplierTarget<T, R> for ForeignReplier {
    fn try_send(
        &self,
        request: T,
        _cx: &mut Context<'_>,
        _ticket: &mut WaitTicket<'_>,
    ) -> Result<(), T> {
        drop(request);
        poll_report::note_misaddressed(self.report.clone());
        Ok(())
    }

    fn stage(&self, request: T) {
        drop(request);
        poll_report::note_misaddressed(self.report.clone());
    }

    fn poll_reply(&self, _cx: &mut Context<'_>) -> Poll<Option<R>> {
        Poll::Ready(None)
    }

    fn recipient(&self) -> Name {
        let name = self.report.foreign.as_ref();
        name.cloned()
            .unwrap_or_else(|| Name::from(self.report.model_type))
    }

    fn check(&self, _bench: BenchId) -> Check {
        Check::Bound
    }

    fn is_misaddressed(&self) -> bool {
        true
    }

    fn refuses(&self) -> bool {
        true
    }

    fn link(&self) -> Recipient {
        Recipient::Refused
    }
}

/// The name to show for a recipient in diagnostics.
fn recipient_name<M: Model>(address: &Address<M>) -> Name {
    match address.channel().name_ref() {
        Some(name) => name.clone(),
        None => Name::from(address.model_type()),
    }
}

/// Pushes a message built by `make` into `address`'s mailbox.
///
/// Shared by every kind of connection: reports an unbound recipient and
/// notes what the task waits on when the mailbox is full. Inlined into each
/// connection's `try_send`, with both reports out of line: a delivered
/// message pays for neither.
#[inline]
fn push<'a, M: Model, A>(
    address: &'a Address<M>,
    port: &'static str,
    kind: PortKind,
    arg: A,
    make: impl FnOnce(A) -> Option<M::Message>,
    cx: &mut Context<'_>,
    ticket: Option<&mut WaitTicket<'a>>,
) -> Result<Pushed, A> {
    let pushed = address.channel().try_push_with(arg, make, cx, ticket);
    match &pushed {
        Ok(Pushed::Delivered | Pushed::Closed) => {}
        Ok(Pushed::Unbound) => note_unbound_cold(address.model_type(), port, kind),
        Err(_) => wait_for_space(address),
    }
    pushed
}

/// Pushes a message built by `make` into `address`'s mailbox from the
/// bench, which never waits (the same-time rule); reports an unbound
/// recipient.
#[inline]
pub(crate) fn push_from_bench<M: Model, A>(
    address: &Address<M>,
    port: &'static str,
    arg: A,
    make: impl FnOnce(A) -> Option<M::Message>,
) {
    if address.channel().push_from_bench(arg, make) == Pushed::Unbound {
        note_unbound_cold(address.model_type(), port, PortKind::Input);
    }
}

/// Notes that the task waits for room in `address`'s mailbox.
#[cold]
#[inline(never)]
fn wait_for_space<M: Model>(address: &Address<M>) {
    poll_report::set_waiting(Blocker::MailboxSpace(recipient_name(address)));
}

/// A connection to an input, optionally through a map or a filter-map.
pub(crate) struct InputConnection<M: Model, T, A> {
    /// The recipient's mailbox.
    pub(crate) address: Address<M>,
    /// The recipient port.
    pub(crate) port: InputPort<M, T>,
    /// Turns the sent value into the port's payload, or filters it out.
    pub(crate) adapt: A,
}

impl<M, T, U, A> Target<U> for InputConnection<M, T, A>
where
    M: Model,
    T: Send + 'static,
    U: Send + 'static,
    A: Adapt<U, T>,
{
    fn try_send<'a>(
        &'a self,
        value: U,
        cx: &mut Context<'_>,
        ticket: Option<&mut WaitTicket<'a>>,
    ) -> Result<(), U> {
        let port = self.port;
        let adapt = &self.adapt;
        push(
            &self.address,
            port.name(),
            PortKind::Input,
            value,
            |v| adapt.adapt(v).map(|t| port.message(t)),
            cx,
            ticket,
        )
        .map(drop)
    }

    fn send_from_bench(&self, value: U) {
        let port = self.port;
        let adapt = &self.adapt;
        push_from_bench(&self.address, port.name(), value, |v| {
            adapt.adapt(v).map(|t| port.message(t))
        });
    }

    fn describe(&self) -> String {
        describe_input(&self.address, self.port.name())
    }

    fn check(&self, bench: BenchId) -> Check {
        check_address(&self.address, self.port.name(), PortKind::Input, bench)
    }

    fn link(&self) -> Recipient {
        model_recipient(&self.address, self.port.name(), PortKind::Input, A::MAPPING)
    }
}

/// The model port `port` (of kind `kind`) of the mailbox at `address`, as
/// a recipient reached through `mapping`.
fn model_recipient<M: Model>(
    address: &Address<M>,
    port: &'static str,
    kind: PortKind,
    mapping: Mapping,
) -> Recipient {
    Recipient::Model {
        mailbox: MailboxRef::of(address),
        port,
        kind,
        mapping,
        metadata: M::metadata,
    }
}

/// A connection to a replier, optionally mapping the request and the reply.
pub(crate) struct ReplierConnection<M: Model, T, R, F, G> {
    /// The recipient's mailbox.
    pub(crate) address: Address<M>,
    /// The recipient port.
    pub(crate) port: ReplierPort<M, T, R>,
    /// This connection's reply slot, reused for every request.
    pub(crate) slot: ReplySlot<R>,
    /// Turns the request into the port's request type.
    pub(crate) map_request: F,
    /// Turns the port's reply into the requestor's reply type.
    pub(crate) map_reply: G,
}

impl<M: Model, T, R, F, G> ReplierConnection<M, T, R, F, G> {
    /// A connection with the given adapters.
    pub(crate) fn new(
        address: Address<M>,
        port: ReplierPort<M, T, R>,
        map_request: F,
        map_reply: G,
    ) -> Self {
        ReplierConnection {
            address,
            port,
            slot: ReplySlot::new(),
            map_request,
            map_reply,
        }
    }
}

impl<M, T, R, U, Q, F, G> ReplierTarget<U, Q> for ReplierConnection<M, T, R, F, G>
where
    M: Model,
    T: Send + 'static,
    R: Send + 'static,
    F: Convert<U, T>,
    G: Convert<R, Q>,
{
    fn try_send<'a>(
        &'a self,
        request: U,
        cx: &mut Context<'_>,
        ticket: &mut WaitTicket<'a>,
    ) -> Result<(), U> {
        let port = self.port;
        let (slot, map_request) = (&self.slot, &self.map_request);
        let pushed = push(
            &self.address,
            port.name(),
            PortKind::Replier,
            request,
            |r| Some(port.message(map_request.convert(r), slot.arm())),
            cx,
            Some(ticket),
        )?;
        if pushed != Pushed::Delivered {
            // The message was dropped: no reply will come.
            drop(self.slot.arm());
        }
        Ok(())
    }

    fn stage(&self, request: U) {
        let channel = self.address.channel();
        if channel.binding().is_none() {
            // Reported now, by its sender, as a push would.
            note_unbound_cold(
                self.address.model_type(),
                self.port.name(),
                PortKind::Replier,
            );
            drop(request);
            drop(self.slot.arm());
            return;
        }
        let message = self
            .port
            .message(self.map_request.convert(request), self.slot.arm());
        let channel = channel.clone();
        crate::staging::stage(move || {
            // Dropped with its reply sender if the replier is gone: the
            // requester then sees that no reply will come.
            channel.push_from_bench(message, Some);
        });
    }

    fn poll_reply(&self, cx: &mut Context<'_>) -> Poll<Option<Q>> {
        match self.slot.poll_take(cx) {
            Poll::Ready(reply) => Poll::Ready(reply.map(|r| self.map_reply.convert(r))),
            Poll::Pending => {
                poll_report::set_waiting(Blocker::Reply(recipient_name(&self.address)));
                Poll::Pending
            }
        }
    }

    fn recipient(&self) -> Name {
        recipient_name(&self.address)
    }

    fn check(&self, bench: BenchId) -> Check {
        check_address(&self.address, self.port.name(), PortKind::Replier, bench)
    }

    fn is_misaddressed(&self) -> bool {
        self.address.channel().binding().is_none()
    }

    fn link(&self) -> Recipient {
        let mapping = match (F::MAPPING, G::MAPPING) {
            (Mapping::Direct, Mapping::Direct) => Mapping::Direct,
            _ => Mapping::Map,
        };
        model_recipient(&self.address, self.port.name(), PortKind::Replier, mapping)
    }
}
