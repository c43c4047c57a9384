//! A round taken from the stage, put in key order and delivered.
//!
//! A send's key is `(origin, seq)`: the sender's add order, then its own
//! count of sends in the round. The stage holds the sends in batches, one
//! per poll of a sender, each in the sender's order and numbered by the
//! sender's count of polls; so ordering the batches by
//! `(origin, poll)` orders the sends by key, with one key per poll. The
//! batches are ordered by index, without moving them:
//!
//! - a round already in order (one thread, models polled in add order) is
//!   delivered as it lies;
//! - a round with at least one batch per eight origins of its range is
//!   ordered by counting the batches of each origin (linear in the
//!   batches plus that range). Counting keeps each sender's batches in
//!   list order, which is poll order when the round came from one list of
//!   the stage; a round taken from both lists is checked, and sorted
//!   after all if one sender's batches are out of poll order;
//! - any other is sorted.

use super::{Batch, Lists};

/// A round taken from the stage: its batches and their sends, and the
/// order to deliver them in. Its buffers are reused from round to round.
#[derive(Default)]
pub(crate) struct Round {
    /// The batches and their sends, in the order they were handed over.
    pub(crate) lists: Lists,
    /// True if `lists.batches` is in key order (then `order` is empty).
    in_order: bool,
    /// Otherwise, the indices of the batches in key order.
    order: Vec<u32>,
    /// The counting sort's count of batches per origin, then where each
    /// origin's batches start in `order`.
    counts: Vec<u32>,
    /// True once every send was delivered (nothing left to drop in key
    /// order).
    delivered: bool,
}

/// `batches` in key order: as they lie if `in_order`, else by the indices
/// in `order`.
fn in_key_order<'a>(
    batches: &'a [Batch],
    in_order: bool,
    order: &'a [u32],
) -> impl Iterator<Item = &'a Batch> {
    let (all, by_index) = match in_order {
        true => (batches, &[][..]),
        false => (&[][..], order),
    };
    let indexed = by_index.iter().map(|&i| &batches[i as usize]);
    all.iter().chain(indexed)
}

/// A batch's key.
fn key(batch: &Batch) -> (u32, u64) {
    (batch.origin, batch.poll)
}

impl Round {
    /// Puts the batches in key order. `mixed`: the round was taken from
    /// both lists of the stage (so one sender's batches may be out of poll
    /// order in it).
    pub(crate) fn order(&mut self, mixed: bool) {
        let batches = &self.lists.batches;
        // A round of 2^32 polls would take hundreds of gigabytes.
        assert!(batches.len() <= u32::MAX as usize);
        let (mut low, mut high, mut in_order) = (u32::MAX, 0, true);
        let mut last = None;
        for batch in batches {
            in_order &= last < Some(key(batch));
            last = Some(key(batch));
            low = low.min(batch.origin);
            high = high.max(batch.origin);
        }
        self.in_order = in_order;
        if in_order {
            return;
        }
        // Counting costs a few instructions per origin in the range and
        // per batch, a sort about eight per batch and level: counting wins
        // from a range of eight origins per batch down.
        if ((high - low) as usize) <= 8 * batches.len() {
            self.order_by_count(low, high, mixed);
        } else {
            let batches = &self.lists.batches;
            self.order.extend(0..batches.len() as u32);
            self.order
                .sort_unstable_by_key(|&i| key(&batches[i as usize]));
        }
    }

    /// [`order`](Round::order) by counting the batches of each origin from
    /// `low` to `high`, then, if the round is `mixed`, putting each
    /// origin's batches in poll order.
    fn order_by_count(&mut self, low: u32, high: u32, mixed: bool) {
        let batches = &self.lists.batches;
        let counts = &mut self.counts;
        counts.clear();
        counts.resize((high - low) as usize + 2, 0);
        // The count of each origin, one slot along...
        for batch in batches {
            counts[(batch.origin - low) as usize + 1] += 1;
        }
        // ...summed into where each origin's batches start.
        for i in 1..counts.len() {
            counts[i] += counts[i - 1];
        }
        self.order.resize(batches.len(), 0);
        for (index, batch) in batches.iter().enumerate() {
            let next = &mut counts[(batch.origin - low) as usize];
            self.order[*next as usize] = index as u32;
            *next += 1;
        }
        // One origin's batches are in poll order unless its polls ran on
        // the settling thread and on others: then the order is sorted.
        if !mixed {
            return;
        }
        let in_order = self
            .order
            .windows(2)
            .all(|w| key(&batches[w[0] as usize]) < key(&batches[w[1] as usize]));
        if !in_order {
            self.order
                .sort_unstable_by_key(|&i| key(&batches[i as usize]));
        }
    }

    /// Runs the sends in key order, each after writing its sender's origin
    /// to `origin` (to name the sender if its delivery panics; the sends
    /// after it are then left for [`clear`](Round::clear)).
    pub(crate) fn deliver(&mut self, origin: &mut u32) {
        let Lists { batches, sends } = &mut self.lists;
        for batch in in_key_order(batches, self.in_order, &self.order) {
            *origin = batch.origin;
            for send in &mut sends[batch.start..batch.start + batch.len] {
                if let Some(deliver) = send.take() {
                    deliver.run();
                }
            }
        }
        self.delivered = true;
    }

    /// Empties the round, keeping its buffers: the sends left (after a
    /// delivery panicked) are dropped in key order, as they would have been
    /// delivered, whatever thread staged them.
    pub(crate) fn clear(&mut self) {
        if !self.delivered {
            let Lists { batches, sends } = &mut self.lists;
            for batch in in_key_order(batches, self.in_order, &self.order) {
                for send in &mut sends[batch.start..batch.start + batch.len] {
                    drop(send.take());
                }
            }
        }
        let used = self.lists.len();
        self.lists.sends.clear();
        self.lists.batches.clear();
        self.lists.trim(used);
        self.order.clear();
        self.in_order = false;
        self.delivered = false;
    }

    /// True if the round holds nothing (between rounds).
    pub(crate) fn is_empty(&self) -> bool {
        self.lists.batches.is_empty() && self.lists.sends.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::super::Delivery;
    use super::*;

    /// A round of batches with `keys`, one send each.
    fn round_of(keys: &[(u32, u64)]) -> Round {
        let mut round = Round::default();
        for (start, &(origin, poll)) in keys.iter().enumerate() {
            round.lists.sends.push(Some(Delivery::new(|| {})));
            round.lists.batches.push(Batch {
                origin,
                poll,
                start,
                len: 1,
            });
        }
        round
    }

    /// The keys of `round`'s batches in delivery order.
    fn delivery_keys(round: &Round) -> Vec<(u32, u64)> {
        in_key_order(&round.lists.batches, round.in_order, &round.order)
            .map(key)
            .collect()
    }

    #[test]
    fn every_way_of_ordering_a_round_orders_by_origin_then_poll() {
        // In order; dense origins (counted), with one origin's polls out
        // of order; sparse origins (sorted).
        let rounds: [&[(u32, u64)]; 3] = [
            &[(1, 0), (1, 1), (2, 0), (3, 0)],
            &[(3, 0), (1, 1), (2, 0), (1, 0), (3, 1), (2, 1)],
            &[(1000, 0), (5, 1), (1000, 1), (7, 0), (5, 0)],
        ];
        for (index, keys) in rounds.into_iter().enumerate() {
            let mut round = round_of(keys);
            // As a round taken from both lists (the second one's origin 1
            // is out of poll order).
            round.order(true);
            assert_eq!(round.in_order, index == 0, "{keys:?}");
            let mut expected = keys.to_vec();
            expected.sort_unstable();
            assert_eq!(delivery_keys(&round), expected, "{keys:?}");
            round.deliver(&mut 0);
            round.clear();
            assert!(round.is_empty());
        }
    }
}
