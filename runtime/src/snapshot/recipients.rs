//! Which model each pending event is for.
//!
//! An event knows its recipient by its mailbox's identity (an address); a
//! snapshot names it by the model's place in the bench. The two lists are
//! matched by sorting both by identity and walking them side by side,
//! rather than through a map of every mailbox: with 10⁶ models and 10⁶
//! events for random recipients, building that map and looking each event
//! up in it missed the caches twice per event and was close to half of a
//! save. The models' list is nearly sorted already (mailboxes are
//! allocated in the order models are added), and the events' sort reads
//! its list in order. A bench of few models is still looked up in a map,
//! which then stays in the caches.

use crate::address_hash::AddressMap;

/// An event's recipient (its mailbox's identity) and the event's place in
/// the list of pending events.
pub(super) type Wanted = (usize, usize);

/// Up to how many models a map of them stays in the caches, so that
/// looking each event up in it beats sorting the events (10⁶ events for
/// 10³ models).
const LOOK_UP_TO: usize = 1 << 15;

/// The model's place of each event's recipient, by the event's place, or
/// the place of the first event (in the list's order) whose recipient is
/// not a model of `models`, the identities of the bench's mailboxes in
/// the bench's order.
pub(super) fn places(
    models: impl ExactSizeIterator<Item = usize>,
    wanted: Vec<Wanted>,
) -> Result<Vec<u32>, usize> {
    if wanted.is_empty() {
        return Ok(Vec::new());
    }
    if models.len() <= LOOK_UP_TO {
        return looked_up(models, &wanted);
    }
    let mut models: Vec<(usize, u32)> = models.zip(0..).collect();
    if !models.is_sorted_by_key(|(identity, _)| *identity) {
        models.sort_unstable_by_key(|(identity, _)| *identity);
    }
    joined(&models, wanted)
}

/// [`places`], each event looked up in a map of the `models`.
fn looked_up(
    models: impl ExactSizeIterator<Item = usize>,
    wanted: &[Wanted],
) -> Result<Vec<u32>, usize> {
    let mut map = AddressMap::with_capacity_and_hasher(models.len(), Default::default());
    map.extend(models.zip(0..));
    let find = |&(recipient, event): &Wanted| map.get(&recipient).copied().ok_or(event);
    wanted.iter().map(find).collect()
}

/// [`places`], the events sorted by recipient and walked beside the
/// sorted `models`.
fn joined(models: &[(usize, u32)], mut wanted: Vec<Wanted>) -> Result<Vec<u32>, usize> {
    let mut places = vec![0; wanted.len()];
    wanted.sort_unstable_by_key(|(recipient, _)| *recipient);
    let mut stranger: Option<usize> = None;
    let mut model = models.iter().peekable();
    for (recipient, event) in wanted {
        while model
            .next_if(|(identity, _)| *identity < recipient)
            .is_some()
        {}
        match model.peek() {
            Some((identity, place)) if *identity == recipient => places[event] = *place,
            _ => stranger = Some(stranger.map_or(event, |first| first.min(event))),
        }
    }
    stranger.map_or(Ok(places), Err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_event_gets_its_recipients_place() {
        let models = [40, 10, 30, 20].into_iter();
        let wanted = vec![(30, 0), (10, 1), (30, 2), (20, 3), (40, 4)];
        assert_eq!(places(models, wanted), Ok(vec![2, 1, 2, 3, 0]));
    }

    #[test]
    fn the_first_event_for_a_stranger_is_named() {
        let models = [10, 30].into_iter();
        let wanted = vec![(10, 0), (35, 1), (5, 2), (30, 3), (5, 4)];
        assert_eq!(places(models, wanted), Err(1));
        assert_eq!(places([10].into_iter(), vec![(10, 0), (99, 1)]), Err(1));
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "safe code only, and 3·10⁴ models are slow to interpret"
    )]
    fn a_large_bench_is_joined_as_a_small_one_is_looked_up() {
        let identity = |i: usize| 1_000 + 176 * (i * 7_919 % (LOOK_UP_TO + 5));
        let models = || (0..LOOK_UP_TO + 5).map(identity);
        let wanted: Vec<Wanted> = (0..1_000).map(|e| (identity(e * 31 % 999), e)).collect();
        let joined = places(models(), wanted.clone());
        assert_eq!(joined, looked_up(models(), &wanted));
        assert_eq!(joined.unwrap()[5], 155, "event 5 is for model 5 · 31");
        // The first stranger in the events' order, not in the sorted one.
        let mut strangers = wanted.clone();
        strangers[700].0 = 5;
        strangers[800].0 = 3;
        strangers[900].0 = usize::MAX;
        assert_eq!(places(models(), strangers.clone()), Err(700));
        assert_eq!(looked_up(models(), &strangers), Err(700));
        // A stranger past every model's identity, at the join's end.
        let mut last = wanted;
        last[900].0 = usize::MAX;
        assert_eq!(places(models(), last), Err(900));
    }

    #[test]
    fn no_events_need_no_models() {
        assert_eq!(places(std::iter::empty(), Vec::new()), Ok(Vec::new()));
    }
}
