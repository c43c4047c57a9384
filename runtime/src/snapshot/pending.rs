//! The pending events of a save: taken out of the event list, read in
//! queue order, written as records.
//!
//! The event list is taken out of the schedule whole for the length of the
//! save and put back after, unchanged ([`TakenEvents`]): the payloads'
//! `Serialize` impls are user code, not run under the schedule's lock. Its
//! events are listed in queue order, `(time, origin, seq)`, so that the
//! same bench saves the same bytes whatever its queue's layout (see
//! `queue_order.rs`).
//!
//! A record is made only as the snapshot is encoded, from the entry, which
//! stays in the taken list, and from what the save found out about it (its
//! input, period, payload, key's number and recipient's place, 40 bytes).
//! The recipient's place is the one its mailbox was bound to when the
//! model was added (`mailbox/channel.rs`, `Binding`): read through the
//! event's address. The entries, their actions and the recipients'
//! mailboxes lie wherever they were allocated: each is loaded a few events
//! before it is read (the entry sixteen events ahead, its action eight,
//! its recipient's mailbox four), so that their misses overlap. The
//! earlier way, sorting the events and the models by mailbox address and
//! walking the two lists side by side, was a sixth of a save of 10⁶
//! models with 10⁶ events.
//! Records collected first took over twice that per event; at 10⁶ events
//! the memory's page faults alone were a tenth of a save.

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use super::error::SaveError;
use super::format::{Bytes, EventRecord};
use super::keys::{self, SaveKeys};
use super::queue_order::{InQueueOrder, Placed};
use crate::bench::BenchId;
use crate::executor::panic_message;
use crate::prefetch::prefetch;
use crate::scheduler::heap::{Entry, RadixQueue};
use crate::scheduler::SchedulerCore;
use crate::simulation::Simulation;

/// Bytes of payload per pending event to reserve room for.
const PAYLOAD_ESTIMATE: usize = 8;

/// How many events ahead the saving loop prefetches an event's entry;
/// half as many, once the entry is loaded, its action; a quarter, once
/// the action is loaded, its recipient's binding.
const PREFETCH_AHEAD: usize = 16;

/// The event list, out of the schedule while a save reads it; put back
/// when this is dropped, whatever the save's outcome.
pub(super) struct TakenEvents {
    /// The schedule to put the list back in.
    core: Arc<SchedulerCore>,
    /// The list, as it was in the schedule (`None` once put back).
    queue: Option<RadixQueue>,
    /// How many of its events are not cancelled, once listed (see
    /// [`EventHeap::put_back_all`](crate::scheduler::heap::EventHeap)).
    live: Cell<Option<usize>>,
    /// The bench whose list it is.
    bench: BenchId,
}

impl TakenEvents {
    /// Takes `simulation`'s pending events, staged or queued (the events
    /// staged by the models the calling thread polled are reached on the
    /// driving thread only, hence `drive`).
    pub(super) fn take(simulation: &Simulation) -> Self {
        let _driving = simulation.drive();
        let core = simulation.core().clone();
        let bench = core.bench;
        TakenEvents {
            queue: Some(core.take_pending()),
            live: Cell::new(None),
            core,
            bench,
        }
    }

    /// The events that are not cancelled, in queue order.
    fn in_queue_order(&self) -> InQueueOrder<'_> {
        let listed = match &self.queue {
            Some(queue) => InQueueOrder::list(queue.buckets(), queue.len()),
            None => InQueueOrder::default(),
        };
        self.live.set(Some(listed.placed.len()));
        listed
    }
}

impl Drop for TakenEvents {
    fn drop(&mut self) {
        if let Some(queue) = self.queue.take() {
            // Every event counts as live if they were not listed.
            let live = self.live.get().unwrap_or(queue.len());
            self.core.put_back_pending(queue, live);
        }
    }
}

/// What a save found out about a pending event, beside its entry.
#[derive(Clone, Copy)]
struct Saved {
    /// The input.
    port: &'static str,
    /// Its period in nanoseconds, 0 if it is not periodic (a period is
    /// never zero).
    period: u64,
    /// Where its payload ends in [`PendingEvents::payloads`] (it starts
    /// where the previous one ends).
    payload_end: usize,
    /// Its key's number (see `keys.rs`), 0 if it has none.
    key: u32,
    /// Its recipient's place among the bench's models.
    model: u32,
}

/// The pending events of a save, their payloads, and the numbers of their
/// keys.
pub(super) struct PendingEvents<'t> {
    /// The events, in queue order.
    live: InQueueOrder<'t>,
    /// What was found out about each.
    saved: Vec<Saved>,
    /// The payloads, one after the other.
    payloads: Vec<u8>,
    /// The numbers of the events' keys.
    pub(super) keys: Arc<SaveKeys>,
}

impl PendingEvents<'_> {
    /// The records, made one by one.
    pub(super) fn records(&self) -> impl ExactSizeIterator<Item = EventRecord<'_>> {
        (0..self.saved.len()).map(|i| self.record(i))
    }

    /// The record of event `i`.
    #[inline]
    fn record(&self, i: usize) -> EventRecord<'_> {
        let (time, saved) = (self.live.placed[i].time, self.saved[i]);
        let (origin, seq) = self.live.origin_and_seq(i);
        let start = i
            .checked_sub(1)
            .map_or(0, |before| self.saved[before].payload_end);
        EventRecord {
            time,
            origin,
            seq,
            model: saved.model,
            port: saved.port,
            period: (saved.period != 0).then_some(saved.period),
            key: saved.key,
            payload: Bytes(&self.payloads[start..saved.payload_end]),
        }
    }

    /// About how many bytes the records take in a snapshot.
    pub(super) fn estimate(&self) -> usize {
        let ports = self
            .saved
            .iter()
            .map(|saved| saved.port.len())
            .sum::<usize>();
        ports + self.payloads.len() + 24 * self.saved.len()
    }
}

/// The pending events of `taken`, their keys numbered in queue order (so
/// that a bench saves the same bytes whatever its queue's layout), their
/// payloads written with those numbers in use (a payload may hold a key),
/// each one's recipient named by its place among the bench's `models`.
pub(super) fn pending_events(
    taken: &TakenEvents,
    models: usize,
) -> Result<PendingEvents<'_>, SaveError> {
    let live = taken.in_queue_order();
    let (keys, numbers) = numbered_keys(&live.placed)?;
    let keys = Arc::new(keys);
    let mut saved = Vec::with_capacity(live.placed.len());
    let mut payloads = Vec::with_capacity(live.placed.len() * PAYLOAD_ESTIMATE);
    let recipients = Recipients {
        bench: taken.bench,
        models,
    };
    keys::saving(&keys, || {
        let placed = &live.placed;
        for (i, (event, key)) in placed.iter().zip(numbers).enumerate() {
            // Start loading an entry, its action and its recipient's
            // mailbox a few events ahead, each once the one before it is
            // loaded, so that their misses overlap this event's work (they
            // were most of a large save's time).
            if let Some(ahead) = placed.get(i + PREFETCH_AHEAD) {
                prefetch(ahead.entry);
            }
            if let Some(ahead) = placed.get(i + PREFETCH_AHEAD / 2) {
                prefetch(&*ahead.entry.action);
            }
            if let Some(ahead) = placed.get(i + PREFETCH_AHEAD / 4) {
                ahead.entry.action.prefetch_recipient();
            }
            let event = saved_event(event.entry, &mut payloads, &recipients)?;
            saved.push(Saved { key, ..event });
        }
        Ok(())
    })?;
    Ok(PendingEvents {
        live,
        saved,
        payloads,
        keys,
    })
}

/// The bench being saved, to which every pending event's recipient
/// belongs.
struct Recipients {
    /// The bench.
    bench: BenchId,
    /// Its number of models.
    models: usize,
}

impl Recipients {
    /// The place of the recipient `saved` names, if a model of this bench
    /// (the recipient of an event was checked to be one when the event was
    /// scheduled: the error is a safeguard).
    fn place(&self, saved: Option<(BenchId, u32)>) -> Result<u32, String> {
        match saved {
            Some((bench, place)) if bench == self.bench && (place as usize) < self.models => {
                Ok(place)
            }
            _ => Err("its recipient is not a model of this bench".to_string()),
        }
    }
}

/// The keys of the `live` events, numbered in their order, and each
/// event's key's number (0 if it has none).
fn numbered_keys(live: &[Placed<'_>]) -> Result<(SaveKeys, Vec<u32>), SaveError> {
    let mut keys = SaveKeys::default();
    let mut numbers = Vec::with_capacity(live.len());
    for (i, Placed { entry, .. }) in live.iter().enumerate() {
        // The entries lie out of order: load each a few events ahead.
        if let Some(ahead) = live.get(i + PREFETCH_AHEAD) {
            prefetch(ahead.entry);
        }
        let number = match &entry.key {
            None => 0,
            Some(key) => keys.insert(key).ok_or_else(|| SaveError::Event {
                event: entry.action.describe(),
                reason: "more keyed events than a snapshot can number".to_string(),
            })?,
        };
        numbers.push(number);
    }
    Ok((keys, numbers))
}

/// What the save finds out about one pending event (its key's number left
/// for the caller), its payload appended to `payloads`.
fn saved_event(
    entry: &Entry,
    payloads: &mut Vec<u8>,
    recipients: &Recipients,
) -> Result<Saved, SaveError> {
    let failed = |reason: String| SaveError::Event {
        event: entry.action.describe(),
        reason,
    };
    // A panicking `Serialize` impl of a payload fails the save only.
    let event = catch_unwind(AssertUnwindSafe(|| entry.action.save(payloads)))
        .unwrap_or_else(|panic| {
            Err(format!(
                "its payload's serialisation panicked: {}",
                panic_message(&*panic)
            ))
        })
        .map_err(&failed)?;
    let model = recipients.place(event.recipient).map_err(failed)?;
    let period = entry
        .action
        .period()
        .map_or(0, |p| u64::try_from(p.as_nanos()).unwrap_or(u64::MAX));
    let saved = Saved {
        port: event.port,
        period,
        payload_end: payloads.len(),
        key: 0,
        model,
    };
    Ok(saved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recipient_is_named_by_its_place_only_if_a_model_of_this_bench() {
        let (bench, other) = (BenchId::new(), BenchId::new());
        let recipients = Recipients { bench, models: 3 };
        assert_eq!(recipients.place(Some((bench, 2))), Ok(2));
        let refused = "its recipient is not a model of this bench".to_string();
        assert_eq!(recipients.place(Some((bench, 3))), Err(refused.clone()));
        assert_eq!(recipients.place(Some((other, 0))), Err(refused.clone()));
        assert_eq!(recipients.place(None), Err(refused));
    }
}
