//! Event keys held in a model's state, across a snapshot.
//!
//! A model that keeps the [`EventKey`] of a pending event (a timeout it may
//! cancel) must still cancel that event after a restore. The snapshot
//! numbers the keys of its pending events (1, 2, … in queue order); a key
//! in a model's state (or in a pending event's payload) is saved as its
//! event's number. Restoring makes one new key per number, attaches it to
//! the restored event, and gives its clones to whatever saved that number.
//! A key whose event is no longer pending is saved as [`NOT_PENDING`], or
//! [`CANCELLED`] if it was cancelled, and comes back as a new key in that
//! state: `is_cancelled` answers as before, and cancelling it cancels
//! nothing, as before (clones of such a key come back as separate keys,
//! which nothing tells apart).
//!
//! An `EventKey` is serialised only inside `Simulation::save` and
//! deserialised only inside `SimInit::restore`: the table in use is set
//! for the thread running the model's saving or restoring work (a
//! thread-local, since serde gives `Serialize` no context of its own).

use std::cell::RefCell;
use std::sync::Arc;

use crate::address_hash::AddressMap;
use crate::scheduler::EventKey;

/// The number of a key whose event is no longer pending, not cancelled.
const NOT_PENDING: u32 = 0;

/// The number of a key whose event is no longer pending, cancelled.
const CANCELLED: u32 = u32::MAX;

/// The numbers of the keys of a saved bench's pending events.
#[derive(Debug, Default)]
pub(crate) struct SaveKeys {
    /// Key identity (see [`EventKey::identity`]) → number, from 1.
    numbers: AddressMap<usize, u32>,
}

impl SaveKeys {
    /// Numbers `key` (the next number, unless it has one), and returns
    /// its number; `None` past the last number a snapshot can hold.
    pub(crate) fn insert(&mut self, key: &EventKey) -> Option<u32> {
        let next = u32::try_from(self.numbers.len() + 1)
            .ok()
            .filter(|&n| n < CANCELLED)?;
        Some(*self.numbers.entry(key.identity()).or_insert(next))
    }

    /// The number `key` is saved as.
    fn number(&self, key: &EventKey) -> u32 {
        match self.numbers.get(&key.identity()) {
            Some(&number) => number,
            None if key.is_cancelled() => CANCELLED,
            None => NOT_PENDING,
        }
    }
}

/// The keys of a restored bench's pending events, by number.
#[derive(Debug, Default)]
pub(crate) struct RestoreKeys {
    /// Key number `n` at index `n - 1`.
    keys: Vec<EventKey>,
}

impl RestoreKeys {
    /// The key of number `number` (from 1) for a restored event: a new
    /// key for the next number, the same key again for a number already
    /// seen. Keys are numbered in queue order, so any other number is a
    /// malformed snapshot (`None`): a crafted number cannot make a restore
    /// allocate more keys than the snapshot has events.
    pub(crate) fn key(&mut self, number: u32) -> Option<EventKey> {
        let index = usize::try_from(number).ok()?.checked_sub(1)?;
        if index == self.keys.len() {
            self.keys.push(EventKey::new());
        }
        self.keys.get(index).cloned()
    }

    /// The key of number `number` if one was made.
    fn existing(&self, number: u32) -> Option<EventKey> {
        let index = usize::try_from(number).ok()?.checked_sub(1)?;
        self.keys.get(index).cloned()
    }
}

/// The table in use on this thread.
enum Active {
    /// Saving: keys to numbers.
    Save(Arc<SaveKeys>),
    /// Restoring: numbers to keys.
    Restore(Arc<RestoreKeys>),
}

thread_local! {
    /// The key table of the saving or restoring work running on this
    /// thread, if any.
    static ACTIVE: RefCell<Option<Active>> = const { RefCell::new(None) };
}

/// Runs `f` with `keys` as this thread's saving table.
pub(crate) fn saving<R>(keys: &Arc<SaveKeys>, f: impl FnOnce() -> R) -> R {
    with_active(Active::Save(keys.clone()), f)
}

/// Runs `f` with `keys` as this thread's restoring table.
pub(crate) fn restoring<R>(keys: &Arc<RestoreKeys>, f: impl FnOnce() -> R) -> R {
    with_active(Active::Restore(keys.clone()), f)
}

/// Runs `f` with `active` set, and unset after (even if `f` panics).
fn with_active<R>(active: Active, f: impl FnOnce() -> R) -> R {
    struct Unset;
    impl Drop for Unset {
        fn drop(&mut self) {
            ACTIVE.with(|slot| slot.borrow_mut().take());
        }
    }
    ACTIVE.with(|slot| *slot.borrow_mut() = Some(active));
    let _unset = Unset;
    f()
}

impl serde::Serialize for EventKey {
    /// The number of the key's event in the snapshot being saved.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let number = ACTIVE.with(|slot| match &*slot.borrow() {
            Some(Active::Save(keys)) => Ok(keys.number(self)),
            _ => Err(()),
        });
        match number {
            Ok(number) => serializer.serialize_u32(number),
            Err(()) => Err(serde::ser::Error::custom(
                "an `EventKey` is saved only as part of `Simulation::save`",
            )),
        }
    }
}

impl<'de> serde::Deserialize<'de> for EventKey {
    /// The key restored for the saved number.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let number = u32::deserialize(deserializer)?;
        let key = ACTIVE.with(|slot| match &*slot.borrow() {
            Some(Active::Restore(_)) if number == NOT_PENDING => Ok(Some(EventKey::new())),
            Some(Active::Restore(_)) if number == CANCELLED => Ok(Some(EventKey::cancelled())),
            Some(Active::Restore(keys)) => Ok(keys.existing(number)),
            _ => Err(()),
        });
        match key {
            Ok(Some(key)) => Ok(key),
            Ok(None) => Err(serde::de::Error::custom(format_args!(
                "event key number {number} belongs to no pending event of the snapshot"
            ))),
            Err(()) => Err(serde::de::Error::custom(
                "an `EventKey` is restored only as part of `SimInit::restore`",
            )),
        }
    }
}

#[cfg(all(test, not(causim_loom)))]
mod tests {
    use super::*;

    #[test]
    fn restored_keys_come_in_order_or_not_at_all() {
        let mut keys = RestoreKeys::default();
        // A crafted number allocates nothing.
        assert!(keys.key(20_000_000).is_none());
        assert!(keys.key(u32::MAX).is_none());
        assert!(keys.key(0).is_none());
        assert!(keys.keys.is_empty());
        let first = keys.key(1).unwrap();
        assert!(keys.key(3).is_none());
        let again = keys.key(1).unwrap();
        first.cancel();
        assert!(again.is_cancelled(), "one key per number");
        assert!(keys.key(2).is_some());
    }
}
