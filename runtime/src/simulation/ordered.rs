//! The two message orders a bench can run in, and the ordered mode's
//! rounds.
//!
//! In the causal mode (the default) a model's send goes straight into the
//! recipient's mailbox: the recipient may run at once, on another thread,
//! and messages from different senders caused at one time arrive in
//! whatever order the threads sent them. In the deterministic mode every
//! send of a model is staged (see `crate::staging`) and delivered by the
//! bench once no model can run, sorted by the sender's key `(origin,
//! seq)`; then the models run again. This file is the bench's side: the
//! loop of rounds inside each settle.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::Instant;

use super::{BusyModel, Simulation, SimulationError};
use crate::executor::{panic_message, TaskProbe};
use crate::staging::{Round, Stage};

/// The order in which messages caused at one time reach a mailbox or a
/// sink.
///
/// Both orders keep every guarantee of the causal model (messages from one
/// sender arrive in send order, same-time scheduled events in `(time,
/// origin, seq)` order, everything caused at one time is processed before
/// time moves on). They differ on several threads only:
///
/// - [`Causal`](MessageOrder::Causal) (the default): a send goes straight
///   to the recipient's mailbox. Messages from *different* senders caused
///   at one time arrive in whatever order the threads ran the senders, so
///   a model may see them in another order from run to run.
/// - [`Deterministic`](MessageOrder::Deterministic): messages a model sends
///   are delivered in *rounds*: once no model can run, the bench delivers
///   every message sent since the last round, sorted by sender (the
///   models' add order) then by each sender's own order, and the models
///   run again. Every mailbox and sink then receives the same messages in
///   the same order on 1, 2, 4 or any number of threads, so every
///   observable output is bit-identical. A send never waits for room in a
///   full mailbox in this mode (the bench's delivery takes what does not
///   fit in an overflow), and costs a staging record per message. What
///   reaches the bench from outside its models keeps its own order: a
///   `Scheduler` handle shared by models schedules as the bench (origin 0,
///   one counter for all), and a send from a thread outside the
///   simulation is not staged (the `Injector` is the way in).
///
/// See the guide's "Message order" section for the costs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum MessageOrder {
    /// Straight to the mailbox: different senders' same-time messages
    /// interleave as the threads ran them.
    #[default]
    Causal,
    /// In rounds ordered by sender: identical on every thread count.
    Deterministic,
}

/// The ordered mode's state on the bench's side.
pub(crate) struct Rounds {
    /// Where the model tasks stage their sends.
    pub(crate) stage: Arc<Stage>,
    /// The round being delivered (its buffers are reused).
    round: Round,
    /// The model tasks by origin (origin `n` at `n - 1`), to name the
    /// sender whose message's delivery panicked.
    pub(crate) senders: Vec<Arc<dyn TaskProbe>>,
}

impl Rounds {
    /// No round yet.
    pub(crate) fn new() -> Self {
        Rounds {
            stage: Arc::new(Stage::default()),
            round: Round::default(),
            senders: Vec::new(),
        }
    }
}

impl Simulation {
    /// A settle in the ordered mode: runs the models, then, while sends
    /// are staged, delivers them sorted by key and runs the models again.
    /// This thread is marked as settling the bench throughout, so that the
    /// models it polls stage without a lock (see `crate::staging`).
    #[cold]
    #[inline(never)]
    pub(super) fn settle_in_rounds(
        &mut self,
        deadline: Option<Instant>,
    ) -> Result<(), SimulationError> {
        // The mark holds the stage's address only, not a borrow.
        let Some(_settling) = self.rounds.as_ref().map(|r| r.stage.drive()) else {
            return Ok(());
        };
        if let Err(error) = self.executor.run(deadline) {
            return Err(self.run_failed(error));
        }
        // Most settles of a bench of scheduled events stage nothing.
        if !self.rounds.as_ref().is_some_and(|r| r.stage.has_staged()) {
            return Ok(());
        }
        let Some(mut rounds) = self.rounds.take() else {
            return Ok(());
        };
        let outcome = self.rounds_with(&mut rounds, deadline);
        if outcome.is_err() {
            // What is left is dropped: destructors of the bench's values,
            // which may panic too (the simulation has failed already).
            let _ = catch_unwind(AssertUnwindSafe(|| rounds.round.clear()));
            let _ = catch_unwind(AssertUnwindSafe(|| rounds.stage.clear()));
        }
        self.rounds = Some(rounds);
        outcome
    }

    /// [`settle_in_rounds`](Simulation::settle_in_rounds) with the rounds' state out of
    /// the simulation.
    fn rounds_with(
        &mut self,
        rounds: &mut Rounds,
        deadline: Option<Instant>,
    ) -> Result<(), SimulationError> {
        while rounds.stage.take_sorted(&mut rounds.round) {
            self.deliver_round(rounds)?;
            if let Err(error) = self.executor.run(deadline) {
                let busy = self.busy_models(&error, Some(rounds));
                return Err(self.run_failed_with(error, busy));
            }
        }
        // Nothing is staged: the connections whose outputs went meanwhile
        // can go too, unless a model woken from outside still stages.
        rounds.stage.sweep();
        Ok(())
    }

    /// Delivers the sorted round through the bench's path, which never
    /// waits: as part of the executor, like the due events of a step (see
    /// `deliver_due`). A delivery runs the sender's mapping closures and a
    /// callback sink's function: a panic there is the sender's.
    fn deliver_round(&mut self, rounds: &mut Rounds) -> Result<(), SimulationError> {
        let round = &mut rounds.round;
        let mut origin = 0;
        let delivered = self
            .executor
            .enter(|| catch_unwind(AssertUnwindSafe(|| round.deliver(&mut origin))));
        // Delivered, or the rest of a round that panicked: dropped, which
        // runs destructors of the bench's values (which may panic too);
        // the buffers are kept for the next round.
        let _ = catch_unwind(AssertUnwindSafe(|| round.clear()));
        self.note_unbound_from_bench();
        match delivered {
            Ok(()) => Ok(()),
            Err(payload) => Err(self.delivery_panicked(rounds, origin, payload)),
        }
    }

    /// Records the fatal error of a panic while a message of the model
    /// with `origin` was delivered.
    #[cold]
    fn delivery_panicked(
        &mut self,
        rounds: &Rounds,
        origin: u32,
        payload: Box<dyn Any + Send>,
    ) -> SimulationError {
        let message = panic_message(&*payload);
        let _ = catch_unwind(AssertUnwindSafe(move || drop(payload)));
        self.executor.stop();
        let sender = (origin as usize)
            .checked_sub(1)
            .and_then(|index| rounds.senders.get(index));
        let error = SimulationError::ModelPanic {
            time: self.time(),
            model: sender.map_or_else(|| "bench".to_string(), |s| s.name().to_string()),
            model_type: sender.map_or("bench", |s| s.model_type()),
            message,
        };
        self.fail(error)
    }
}

/// The models with sends staged for the next round, each with its count
/// (cold: a timeout's report).
pub(super) fn staged_senders(rounds: &Rounds) -> Vec<BusyModel> {
    let staged = rounds.stage.senders();
    staged
        .into_iter()
        .filter_map(|(origin, count)| {
            let sender = rounds.senders.get((origin as usize).checked_sub(1)?)?;
            Some(BusyModel {
                model: sender.name().to_string(),
                model_type: sender.model_type(),
                pending_messages: sender.pending(),
                staged_messages: count,
            })
        })
        .collect()
}
