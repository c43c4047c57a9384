//! The pending events in queue order, for a save.
//!
//! A snapshot lists the pending events in the order the event list would
//! take them, `(time, origin, seq)`, so that the same bench saves the same
//! bytes whatever its queue's layout. Each bucket of the event list is
//! sorted where it lies (see `pending.rs`): sorting references to the
//! entries, or their places beside their keys, then read the entries out
//! of order, a cache miss each at 10⁶ events, which cost more than the
//! sort saved. When every sequence number fits in 32 bits (always, but
//! after four billion events scheduled by one model) the key is packed
//! into one `u128`, compared in two instructions instead of three fields
//! one after the other (a save of 10⁶ events to 10³ models: 7 % fewer
//! instructions; the sort moves 48 bytes per swap either way, so its
//! wall time moves less).

use crate::scheduler::heap::EventOrder;

/// Sorts `items` into the queue order of their keys, `key` giving an
/// item's key.
pub(super) fn sort_in_queue_order<T>(items: &mut [T], key: impl Fn(&T) -> EventOrder) {
    if items.iter().all(|item| packable(&key(item))) {
        items.sort_unstable_by_key(|item| pack(key(item)));
    } else {
        items.sort_unstable_by_key(key);
    }
}

/// Whether `order` packs into a `u128` that sorts as it does.
fn packable(order: &EventOrder) -> bool {
    order.seq <= u64::from(u32::MAX)
}

/// `order` as one number: its time, then its origin, then its sequence
/// number (which [`packable`] says fits in 32 bits).
fn pack(order: EventOrder) -> u128 {
    let time = u128::from(order.time.as_nanos());
    (time << 64) | (u128::from(order.origin) << 32) | u128::from(order.seq)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimTime;

    fn order(time: u64, origin: u32, seq: u64) -> EventOrder {
        let time = SimTime::from_nanos(time);
        EventOrder { time, origin, seq }
    }

    /// Orders that differ in each field, at both ends of each range.
    fn orders(big_seq: bool) -> Vec<EventOrder> {
        let seqs: &[u64] = if big_seq {
            &[0, 5, u64::MAX]
        } else {
            &[0, 5, u32::MAX as u64]
        };
        let mut all = Vec::new();
        for time in [0, 1, 7, u64::MAX] {
            for origin in [0, 3, u32::MAX] {
                all.extend(seqs.iter().map(|&seq| order(time, origin, seq)));
            }
        }
        all
    }

    #[test]
    fn packed_keys_sort_as_the_orders_do() {
        let all = orders(false);
        for a in &all {
            for b in &all {
                assert_eq!(pack(*a).cmp(&pack(*b)), a.cmp(b), "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn items_are_sorted_in_queue_order_packed_or_not() {
        for big_seq in [false, true] {
            let all = orders(big_seq);
            // Shuffled by a stride prime to the length.
            let mut items: Vec<(EventOrder, usize)> = (0..all.len())
                .map(|i| (all[i * 7 % all.len()], i * 7 % all.len()))
                .collect();
            sort_in_queue_order(&mut items, |&(order, _)| order);
            let places: Vec<usize> = items.iter().map(|&(_, place)| place).collect();
            assert_eq!(
                places,
                (0..all.len()).collect::<Vec<_>>(),
                "big seq: {big_seq}"
            );
        }
    }
}
