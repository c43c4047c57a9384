//! The conservative time window, and the report each process sends at its
//! end.
//!
//! Each round, every process reports its partitions' next event time and
//! the link messages they sent during the last window. From the same
//! reports every process computes the same next window end `W`:
//!
//! ```text
//! next(g) = min(next event of g, earliest arrival of a message to g)
//! W       = min over g of next(g) + outbound lookahead(g)
//! ```
//!
//! No message sent at or after `next(g)` can arrive before `W`, so each
//! process may run every event before `W` without hearing from the others.
//! A group with no outbound link bounds nobody. When no group has an event
//! left, there is no window end: the run is over as far as links go.

use causim::SimTime;
use serde::{Deserialize, Serialize};

use crate::plan::Plan;

/// A message that crossed a link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Wire {
    /// The link (index in the plan).
    pub(crate) link: u32,
    /// The link's message count before this one: fixed by the sender.
    pub(crate) seq: u64,
    /// When it was sent.
    pub(crate) sent: SimTime,
    /// Its payload, postcard.
    pub(crate) payload: Vec<u8>,
}

impl Wire {
    /// The delivery order of messages arriving at one time: by sending
    /// time, then link, then the link's own sequence. Fixed by the
    /// senders, so the same in every deployment.
    pub(crate) fn order(&self) -> (SimTime, u32, u64) {
        (self.sent, self.link, self.seq)
    }
}

/// The runner call a round belongs to. Every process makes the same
/// calls, so in every round all are in the same call and at the same time
/// (each window ends at the same time everywhere): a report saying
/// otherwise comes from a process out of step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Call {
    /// `run_until(end)`.
    RunUntil(SimTime),
    /// `save`.
    Save,
}

/// Where a process is: its simulation time and its call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Pace {
    /// Its simulation time when it reported.
    pub(crate) now: SimTime,
    /// The call it is in.
    pub(crate) call: Call,
}

impl std::fmt::Display for Pace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.call {
            Call::RunUntil(end) => write!(f, "at {}, running until {end}", self.now),
            Call::Save => write!(f, "at {}, saving", self.now),
        }
    }
}

/// What a process says at the end of a window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum Body {
    /// Its next event time and the messages its partitions sent.
    Window {
        /// Where it is: the same for every process.
        pace: Pace,
        /// Its earliest scheduled event, if any.
        next: Option<SimTime>,
        /// The link messages sent in the window.
        messages: Vec<Wire>,
    },
    /// Its simulation failed; the others stop.
    Failed(String),
}

/// One process's report of one round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Report {
    /// The digest of the bench and deployment it runs.
    pub(crate) plan: u64,
    /// The round.
    pub(crate) round: u64,
    /// The process (group) sending it.
    pub(crate) group: u32,
    /// What it says.
    pub(crate) body: Body,
}

/// The end of the next window (exclusive), or `None` if no group has an
/// event left or any outbound link.
///
/// `nexts[g]` is group `g`'s next event time as it reported it;
/// `messages` are every message sent in the last window, by every group.
pub(crate) fn next_window_end(
    plan: &Plan,
    nexts: &[Option<SimTime>],
    messages: &[Wire],
) -> Option<SimTime> {
    let mut earliest: Vec<Option<SimTime>> = nexts.to_vec();
    for message in messages {
        let link = &plan.links[message.link as usize];
        let Some(arrival) = message.sent.checked_add(link.lookahead) else {
            continue;
        };
        let slot = &mut earliest[plan.receiver(message.link as usize)];
        *slot = Some(slot.map_or(arrival, |t| t.min(arrival)));
    }
    earliest
        .iter()
        .enumerate()
        .filter_map(|(group, next)| {
            let lookahead = plan.outbound_lookahead(group)?;
            next.as_ref()?.checked_add(lookahead)
        })
        .min()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::plan::LinkPlan;

    /// Two groups, `a` → `b` with lookahead 10, `b` → `a` with 3.
    fn plan() -> Plan {
        let link = |name: &str, from, to, ns| LinkPlan {
            name: name.to_owned(),
            from,
            to,
            lookahead: Duration::from_nanos(ns),
            payload: "u64",
        };
        Plan {
            partitions: vec!["a".into(), "b".into()],
            links: vec![link("ab", 0, 1, 10), link("ba", 1, 0, 3)],
            group_of: vec![0, 1],
            groups: vec![vec![0], vec![1]],
        }
    }

    fn t(ns: u64) -> SimTime {
        SimTime::from_nanos(ns)
    }

    #[test]
    fn the_window_ends_at_the_earliest_next_event_plus_its_groups_lookahead() {
        assert_eq!(
            next_window_end(&plan(), &[Some(t(100)), Some(t(105))], &[]),
            Some(t(108))
        );
        assert_eq!(
            next_window_end(&plan(), &[Some(t(100)), Some(t(200))], &[]),
            Some(t(110))
        );
    }

    #[test]
    fn a_message_in_flight_counts_as_its_receivers_next_event() {
        let message = Wire {
            link: 0,
            seq: 0,
            sent: t(90),
            payload: vec![],
        };
        // b has nothing scheduled, but a's message arrives at 100.
        let end = next_window_end(&plan(), &[Some(t(150)), None], &[message]);
        assert_eq!(end, Some(t(103)));
    }

    #[test]
    fn nothing_scheduled_and_nothing_in_flight_ends_the_windows() {
        assert_eq!(next_window_end(&plan(), &[None, None], &[]), None);
    }

    #[test]
    fn a_group_without_outbound_links_bounds_nobody() {
        let mut plan = plan();
        plan.links.truncate(1); // only a → b
        assert_eq!(
            next_window_end(&plan, &[Some(t(100)), Some(t(5))], &[]),
            Some(t(110))
        );
    }

    #[test]
    fn the_delivery_order_is_sending_time_then_link_then_sequence() {
        let wire = |link, seq, sent| Wire {
            link,
            seq,
            sent: t(sent),
            payload: vec![],
        };
        let mut messages = [wire(1, 0, 5), wire(0, 1, 5), wire(0, 0, 5), wire(1, 7, 2)];
        messages.sort_by_key(Wire::order);
        let keys: Vec<_> = messages.iter().map(|m| (m.link, m.seq)).collect();
        assert_eq!(keys, vec![(1, 7), (0, 0), (0, 1), (1, 0)]);
    }
}
