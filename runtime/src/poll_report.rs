//! What a model's task reports about itself while it is polled.
//!
//! Ports do not know which model is using them, and should not have to: an
//! `Output` is a plain field. When a send must wait, or hits a mailbox that
//! was never added to the bench, the port notes it in this thread-local
//! report; the executor takes the report after each poll and files it under
//! the task it just polled. This keeps the hot path free of bookkeeping (a
//! report is only written when something waits or goes wrong) and gives
//! deadlock and error messages the model names they need.
//!
//! It sits on the crate's ground floor, importing only [`Name`] and the
//! plain [`PortKind`]: the ports
//! and the scheduled events write the report, the executors take it, and
//! the simulation turns it into errors. Kept in any one of those layers, it
//! would make the others reach up into it.

use std::cell::{Cell, RefCell};

use crate::model::PortKind;
use crate::name::Name;

/// Why a model task is not idle when it returns `Pending`: what blocks
/// it (reported to the user as [`WaitingFor`](crate::WaitingFor)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Blocker {
    /// A reply from the named model (instance name or type name).
    Reply(Name),
    /// A free slot in the named model's full mailbox.
    MailboxSpace(Name),
}

/// A message dropped because its mailbox is not in the sender's bench:
/// never added to a bench, or added to another one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Misaddressed {
    /// The type of the model whose mailbox it was.
    pub(crate) model_type: &'static str,
    /// The port the message was for.
    pub(crate) port: &'static str,
    /// Whether that port is an input or a replier.
    pub(crate) kind: PortKind,
    /// `None`: the mailbox was never added to a bench; `Some`: the name of
    /// its model in the other bench it was added to.
    pub(crate) foreign: Option<Name>,
}

/// Everything noted during one poll.
#[derive(Debug, Default)]
pub(crate) struct PollReport {
    /// Set when the task is about to wait on something other than its
    /// mailbox.
    pub(crate) waiting: Option<Blocker>,
    /// The first message dropped because its mailbox is not in the bench.
    pub(crate) unbound: Option<Misaddressed>,
}

thread_local! {
    /// The report of the poll in progress on this thread.
    static REPORT: RefCell<PollReport> = RefCell::new(PollReport::default());
    /// True once something was noted in `REPORT` since the last `take`:
    /// most polls note nothing, and then `take` only reads this flag.
    static NOTED: Cell<bool> = const { Cell::new(false) };
    /// Set by a port that can never complete the model method awaiting it
    /// (a `UniRequestor` whose request was dropped): the model's task
    /// abandons that method (see `model::run`).
    static ABANDON: Cell<bool> = const { Cell::new(false) };
}

#[cfg(not(causim_loom))]
std::thread_local! {
    /// Set by a mailbox whose consumer parks on it, empty, in a poll on
    /// the multi-threaded executor: that poll ends idle (the
    /// single-threaded executor is told through the task's waker state).
    /// A cell of its own: folded into `NOTED` as a second bit, the look at
    /// both after every poll cost more instructions per message, not fewer
    /// (ring and pinball on two threads, callgrind).
    static PARKED: Cell<bool> = const { Cell::new(false) };
}

// Under loom, a loom thread-local: loom runs its threads on one OS thread,
// and two workers' polls must not see each other's note.
#[cfg(causim_loom)]
loom::thread_local! {
    /// As above.
    static PARKED: Cell<bool> = Cell::new(false);
}

/// Notes that the task being polled parks on its empty mailbox: the poll
/// ends there, idle until a message wakes it.
#[inline]
pub(crate) fn note_parked() {
    PARKED.with(|p| p.set(true));
}

/// True, once, if the task just polled parked on its empty mailbox (and
/// clears the note).
#[inline]
pub(crate) fn take_parked() -> bool {
    PARKED.with(|p| p.replace(false))
}

/// Forgets a parking noted earlier: outside any executor's poll (a
/// mailbox polled by hand) before an executor runs on this thread, or by
/// a look of this poll that a later look contradicts.
#[inline]
pub(crate) fn clear_parked() {
    PARKED.with(|p| p.set(false));
}

/// Notes that the current task waits on `waiting`.
pub(crate) fn set_waiting(waiting: Blocker) {
    NOTED.with(|n| n.set(true));
    REPORT.with(|r| r.borrow_mut().waiting = Some(waiting));
}

/// Notes a message dropped because its mailbox is not in the bench.
pub(crate) fn note_misaddressed(misaddressed: Misaddressed) {
    NOTED.with(|n| n.set(true));
    REPORT.with(|r| {
        r.borrow_mut().unbound.get_or_insert(misaddressed);
    });
}

/// Asks the model's task to abandon the method being polled: it awaits
/// something that will never come.
pub(crate) fn abandon_method() {
    ABANDON.with(|a| a.set(true));
}

/// True, once, if a port asked to abandon the method just polled.
#[inline]
pub(crate) fn take_abandon() -> bool {
    ABANDON.with(|a| a.replace(false))
}

/// Takes and clears the report of this thread, if anything was noted
/// (most polls note nothing: then this only reads a flag).
#[inline]
pub(crate) fn take_noted() -> Option<PollReport> {
    if !NOTED.with(|n| n.replace(false)) {
        return None;
    }
    Some(REPORT.with(|r| std::mem::take(&mut *r.borrow_mut())))
}

/// Takes and clears the report of this thread.
#[inline]
pub(crate) fn take() -> PollReport {
    if !NOTED.with(|n| n.replace(false)) {
        return PollReport::default();
    }
    REPORT.with(|r| std::mem::take(&mut *r.borrow_mut()))
}
