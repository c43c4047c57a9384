//! The connection list shared by outputs and event sources, and the
//! allocation-free fan-out send over it.
//!
//! A new list is *unchecked*: the first send through it checks every
//! connection against the sending bench (see `crate::bench`), replaces
//! one to a mailbox of another bench by a connection that refuses every
//! message, and only then files the list as one connection or many. The
//! unchecked state is two more variants of the list's tag, which a send
//! tests anyway: a checked list's send pays nothing for it. In a bench in
//! the deterministic message order, the check also wraps every
//! connection so that it stages its sends (see `staged.rs`).

use std::fmt;
use std::sync::Arc;
use std::task::{Context, Poll};

use super::adapt::{Direct, FilterMapped, Mapped};
use super::input::InputFor;
use super::link::ConnectionList;
use super::sink::Sink;
use super::staged::StagedTarget;
use super::tap::{BothTaps, Tap};
use super::target::{Check, ForeignInput, InputConnection, Target};
use crate::mailbox::{IntoAddress, WaitTicket};

/// The connections of one output or event source, in connection order.
pub(crate) struct Fanout<T> {
    /// Where each sent value goes; shared with in-flight source events.
    targets: Targets<T>,
}

/// A list of targets that keeps a single one inline.
///
/// Most outputs have exactly one connection. Holding it in the output
/// itself, rather than in a vector's heap buffer, saves a dependent load
/// (often a cache miss in a large bench) on every send.
///
/// Two or more are a boxed `Vec` rather than a `Vec` in place: a `Vec`'s
/// capacity has unused values that the compiler would borrow to encode the
/// variant, so telling the one-connection case apart would cost a decode
/// of that encoding per send instead of one comparison. (A boxed slice has
/// no capacity either, but growing it by one reallocates the whole list,
/// which makes wiring an event source to many models quadratic; figures in
/// `docs/benchmarks.md`, "Measurements behind code decisions".)
enum Targets<T> {
    /// No connection.
    None,
    /// One connection, inline.
    One(Arc<dyn Target<T>>),
    /// Two or more.
    #[expect(
        clippy::box_collection,
        reason = "a plain tag for the one-connection case; see the type's doc"
    )]
    Many(Box<Vec<Arc<dyn Target<T>>>>),
    /// One, not yet checked against the sending bench (see the module
    /// docs): inline like `One`, so a connection allocates nothing more.
    UncheckedOne(Arc<dyn Target<T>>),
    /// Two or more, not yet checked against the sending bench.
    #[expect(
        clippy::box_collection,
        reason = "grows in place like `Many`, which it becomes"
    )]
    Unchecked(Box<Vec<Arc<dyn Target<T>>>>),
    /// An output's connections with a tap (see `tap.rs`): out of line, so
    /// that outputs without one stay as small and their sends as short.
    Tapped(Box<Tapped<T>>),
}

/// The connections of a tapped output, and its tap, in one allocation:
/// a send then touches one line for both.
struct Tapped<T, D: ?Sized = dyn Tap<T>> {
    /// The connections (never `Tapped` themselves).
    targets: Targets<T>,
    /// What sees every value sent.
    tap: D,
}

/// The taps of a list that gets one more, as one tap.
impl<T: Send + 'static> Tap<T> for Box<Tapped<T>> {
    fn observe(&mut self, value: &T) {
        self.tap.observe(value);
    }
}

impl<T: Send + 'static> Targets<T> {
    /// Appends `target`; the list is then unchecked.
    fn push(&mut self, target: Arc<dyn Target<T>>) {
        *self = match std::mem::replace(self, Targets::None) {
            Targets::Tapped(mut tapped) => {
                tapped.targets.push(target);
                Targets::Tapped(tapped)
            }
            Targets::None => Targets::UncheckedOne(target),
            Targets::One(first) | Targets::UncheckedOne(first) => {
                Targets::Unchecked(Box::new(vec![first, target]))
            }
            Targets::Many(mut all) | Targets::Unchecked(mut all) => {
                all.push(target);
                Targets::Unchecked(all)
            }
        };
    }

    /// The targets, in connection order.
    #[inline]
    fn as_slice(&self) -> &[Arc<dyn Target<T>>] {
        match self {
            Targets::None => &[],
            Targets::One(one) | Targets::UncheckedOne(one) => std::slice::from_ref(one),
            Targets::Many(all) | Targets::Unchecked(all) => all,
            Targets::Tapped(tapped) => tapped.targets.as_slice(),
        }
    }

    /// Adds `tap`, after any the list has.
    fn add_tap(&mut self, tap: impl Tap<T>) {
        *self = match std::mem::replace(self, Targets::None) {
            Targets::Tapped(mut earlier) => {
                let targets = std::mem::replace(&mut earlier.targets, Targets::None);
                let tap = BothTaps::new(Box::new(earlier), Box::new(tap));
                Targets::Tapped(Box::new(Tapped { targets, tap }))
            }
            targets => Targets::Tapped(Box::new(Tapped { targets, tap })),
        };
    }

    /// True if the list is not checked yet (see the module docs).
    #[inline]
    fn is_unchecked(&self) -> bool {
        matches!(self, Targets::UncheckedOne(_) | Targets::Unchecked(_))
    }

    /// What a send does before its first poll on a list that is not a
    /// plain checked one: shows `value` to the tap, if there is one, and
    /// checks the connections if they are not yet (see
    /// [`check`](Self::check)).
    #[inline(never)]
    fn prepare(&mut self, value: &T) {
        match self {
            Targets::Tapped(tapped) => {
                if tapped.targets.is_unchecked() {
                    tapped.targets.check();
                }
                tapped.tap.observe(value);
            }
            _ => self.check(),
        }
    }

    /// Checks an unchecked list against the bench this thread runs, and
    /// files it as checked unless some recipient is in no bench yet (or
    /// no bench runs here); see the module docs.
    #[cold]
    #[inline(never)]
    fn check(&mut self) {
        let all = match self {
            Targets::UncheckedOne(one) => std::slice::from_mut(one),
            Targets::Unchecked(all) => &mut all[..],
            Targets::Tapped(tapped) => return tapped.targets.check(),
            _ => return,
        };
        let Some(bench) = crate::bench::current() else {
            return;
        };
        // A model of a bench in the deterministic order stages its sends.
        let staging = crate::staging::current_stage();
        let mut settled = true;
        for target in all.iter_mut() {
            match target.check(bench) {
                // (A recipient in no bench is not staged: its sends are
                // dropped and reported by their sender, in any order.)
                Check::Bound if !target.is_staged() && !target.refuses() => {
                    if let Some(stage) = &staging {
                        *target = Arc::new(StagedTarget::new(target.clone(), stage));
                    }
                }
                Check::Bound => {}
                // Reported by each send, until added to a bench.
                Check::Unbound => settled = false,
                Check::Foreign(report) => {
                    *target = Arc::new(ForeignInput::new(report, target.describe()));
                }
            }
        }
        if !settled {
            return;
        }
        *self = match std::mem::replace(self, Targets::None) {
            Targets::UncheckedOne(only) => Targets::One(only),
            Targets::Unchecked(all) => Targets::Many(all),
            other => other,
        };
    }
}

impl<T: Clone + Send + 'static> Fanout<T> {
    /// No connections.
    pub(crate) fn new() -> Self {
        Fanout {
            targets: Targets::None,
        }
    }

    /// Connects to an input taking `T`.
    pub(crate) fn connect<P: InputFor<T>>(&mut self, port: P, address: impl IntoAddress<P::Model>) {
        self.add(InputConnection {
            address: address.into_address(),
            port: port.into_input_port(),
            adapt: Direct,
        });
    }

    /// Connects to an input taking `U`, converting each value with `map`.
    pub(crate) fn map_connect<U, P>(
        &mut self,
        map: impl Fn(T) -> U + Send + Sync + 'static,
        port: P,
        address: impl IntoAddress<P::Model>,
    ) where
        U: Send + 'static,
        P: InputFor<U>,
    {
        self.add(InputConnection {
            address: address.into_address(),
            port: port.into_input_port(),
            adapt: Mapped(map),
        });
    }

    /// Connects to an input taking `U`; values mapped to `None` are not sent.
    pub(crate) fn filter_map_connect<U, P>(
        &mut self,
        filter_map: impl Fn(T) -> Option<U> + Send + Sync + 'static,
        port: P,
        address: impl IntoAddress<P::Model>,
    ) where
        U: Send + 'static,
        P: InputFor<U>,
    {
        self.add(InputConnection {
            address: address.into_address(),
            port: port.into_input_port(),
            adapt: FilterMapped(filter_map),
        });
    }

    /// Connects to a sink read from the bench.
    pub(crate) fn connect_sink(&mut self, sink: &impl Sink<T>) {
        self.targets.push(sink.target());
    }

    /// Shows every value sent to `tap`, after any tap added before.
    pub(crate) fn tap(&mut self, tap: impl Tap<T>) {
        self.targets.add_tap(tap);
    }

    fn add(&mut self, target: impl Target<T> + 'static) {
        self.targets.push(Arc::new(target));
    }

    /// Polls `send` over these connections.
    ///
    /// Matches the one-connection case on the list itself, without going
    /// through a slice: that is a single comparison, where decoding the
    /// enum into a slice first costs several instructions per send.
    #[inline]
    pub(crate) fn poll_send<'a>(
        &'a self,
        send: &mut FanoutSend<T>,
        cx: &mut Context<'_>,
        ticket: Option<&mut WaitTicket<'a>>,
    ) -> Poll<()> {
        match &self.targets {
            Targets::One(only) => send.poll_one(&**only, cx, ticket),
            _ => self.poll_send_many(send, cx, ticket),
        }
    }

    /// [`poll_send`](Fanout::poll_send) over any other list (none, many,
    /// or not checked yet), out of line: decoding the list into a slice
    /// is a jump over its tag, which inlined cost every one-connection send
    /// ~4 instructions.
    #[inline(never)]
    fn poll_send_many<'a>(
        &'a self,
        send: &mut FanoutSend<T>,
        cx: &mut Context<'_>,
        ticket: Option<&mut WaitTicket<'a>>,
    ) -> Poll<()> {
        match &self.targets {
            // A tapped output of one connection keeps the single path.
            Targets::Tapped(tapped) => match &tapped.targets {
                Targets::One(only) => send.poll_one(&**only, cx, ticket),
                // An output only tapped (a recorded signal) sends nothing.
                Targets::None => Poll::Ready(()),
                targets => send.poll_many(targets.as_slice(), cx, ticket),
            },
            targets => send.poll_many(targets.as_slice(), cx, ticket),
        }
    }

    /// Checks the connections against the sending bench if they were not
    /// yet (see the module docs), and shows `value` to the tap if there is
    /// one: one test of the list's tag, before a send borrows the list for
    /// as long as it waits.
    #[inline]
    pub(crate) fn prepare_send(&mut self, value: &T) {
        if matches!(
            self.targets,
            Targets::UncheckedOne(_) | Targets::Unchecked(_) | Targets::Tapped(_)
        ) {
            self.targets.prepare(value);
        }
    }

    /// The connections, in order.
    #[inline]
    pub(crate) fn targets(&self) -> &[Arc<dyn Target<T>>] {
        self.targets.as_slice()
    }

    /// Number of connections.
    pub(crate) fn len(&self) -> usize {
        self.targets.as_slice().len()
    }

    /// Lists every connection under the sending port's name `name`, for
    /// the topology export (cold).
    pub(crate) fn list_links(&self, name: &'static str, list: &mut ConnectionList) {
        for target in self.targets.as_slice() {
            list.push(name, target.link());
        }
    }
}

impl<T: Send + 'static> fmt::Debug for Fanout<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fanout")
            .field("connections", &self.targets.as_slice().len())
            .finish()
    }
}

/// Progress of one value through the connections of a fan-out.
///
/// Each connection but the last gets a clone; the last gets the original.
/// A value that met a full mailbox is kept here until it can be delivered,
/// so a send never clones twice for one connection.
///
/// Most outputs have one connection, so that case skips the bookkeeping:
/// the original goes straight to it and, if its mailbox is full, waits in
/// `pending` (`next` stays untouched), where the next poll finds it on
/// its cold path.
///
/// A send that waited holds a place in the mailbox's line (its ticket),
/// which it leaves once delivered; a first attempt never holds one, so
/// that path passes the ticket on without looking at it.
#[derive(Debug)]
pub(crate) struct FanoutSend<T> {
    /// Index of the next connection to serve.
    next: usize,
    /// The original value, until the last connection takes it.
    value: Option<T>,
    /// The copy for connection `next`, when its mailbox was full.
    pending: Option<T>,
}

impl<T: Clone> FanoutSend<T> {
    /// Starts sending `value`.
    #[inline]
    pub(crate) fn new(value: T) -> Self {
        FanoutSend {
            next: 0,
            value: Some(value),
            pending: None,
        }
    }

    /// The index of the connection being served (the number of
    /// connections served, once the send is complete).
    pub(crate) fn position(&self) -> usize {
        self.next
    }

    /// Delivers to each connection in order from the bench, which never
    /// waits (see [`Target::send_from_bench`]).
    pub(crate) fn deliver_from_bench(&mut self, targets: &[Arc<dyn Target<T>>]) {
        while let Some(target) = targets.get(self.next) {
            let value = if self.next + 1 == targets.len() {
                self.value.take()
            } else {
                self.value.clone()
            };
            // Only an already-completed send has no value left.
            let Some(value) = value else {
                return;
            };
            target.send_from_bench(value);
            self.next += 1;
        }
    }

    /// Delivers to the one connection: the original, no clone, no index.
    #[inline]
    fn poll_one<'a>(
        &mut self,
        target: &'a dyn Target<T>,
        cx: &mut Context<'_>,
        ticket: Option<&mut WaitTicket<'a>>,
    ) -> Poll<()> {
        // A send that waited keeps its value in `pending`; a completed one
        // has none left.
        let Some(value) = self.value.take() else {
            return self.poll_one_again(target, cx, ticket);
        };
        // A first attempt: the ticket holds no place, and the mailbox's
        // fast path does not look at it.
        match target.try_send(value, cx, ticket) {
            Ok(()) => Poll::Ready(()),
            Err(value) => {
                self.pending = Some(value);
                Poll::Pending
            }
        }
    }

    /// [`poll_one`](FanoutSend::poll_one) after the send waited (or once it
    /// completed): the ticket may hold a place, which it leaves once the
    /// value is delivered.
    #[cold]
    #[inline(never)]
    fn poll_one_again<'a>(
        &mut self,
        target: &'a dyn Target<T>,
        cx: &mut Context<'_>,
        mut ticket: Option<&mut WaitTicket<'a>>,
    ) -> Poll<()> {
        let Some(value) = self.pending.take() else {
            return Poll::Ready(());
        };
        match target.try_send(value, cx, ticket.as_deref_mut()) {
            Ok(()) => {
                if let Some(ticket) = ticket {
                    ticket.leave_served();
                }
                Poll::Ready(())
            }
            Err(value) => {
                self.pending = Some(value);
                Poll::Pending
            }
        }
    }

    /// Delivers to two or more connections (or none), in order.
    fn poll_many<'a>(
        &mut self,
        targets: &'a [Arc<dyn Target<T>>],
        cx: &mut Context<'_>,
        mut ticket: Option<&mut WaitTicket<'a>>,
    ) -> Poll<()> {
        while let Some(target) = targets.get(self.next) {
            let is_last = self.next + 1 == targets.len();
            let waited = self.pending.is_some();
            let value = match self.pending.take() {
                Some(value) => Some(value),
                None if is_last => self.value.take(),
                None => self.value.clone(),
            };
            // Only an already-completed send has no value left.
            let Some(value) = value else {
                return Poll::Ready(());
            };
            match target.try_send(value, cx, ticket.as_deref_mut()) {
                Ok(()) => {
                    // After waiting, the ticket leaves this mailbox's line:
                    // it is free for the next connection.
                    if let (true, Some(ticket)) = (waited, ticket.as_deref_mut()) {
                        ticket.leave_served();
                    }
                    self.next += 1;
                }
                Err(value) => {
                    self.pending = Some(value);
                    return Poll::Pending;
                }
            }
        }
        Poll::Ready(())
    }
}

#[cfg(test)]
mod tests;
