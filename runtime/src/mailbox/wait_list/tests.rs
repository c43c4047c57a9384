//! Unit tests of the wait list and its tickets.

use super::*;
use std::sync::{Arc, Mutex};
use std::task::Wake;

/// Wakers that log their number when woken (shared with the line's
/// tests).
#[derive(Default, Clone)]
pub(super) struct Woken(Arc<Mutex<Vec<usize>>>);

/// One waker of a [`Woken`] log.
struct Logged {
    /// Its number in the log.
    id: usize,
    /// The log.
    log: Woken,
}

impl Wake for Logged {
    fn wake(self: Arc<Self>) {
        self.log.0.lock().unwrap().push(self.id);
    }
}

impl Woken {
    /// The waker numbered `id`.
    pub(super) fn waker(&self, id: usize) -> Waker {
        Waker::from(Arc::new(Logged {
            id,
            log: self.clone(),
        }))
    }

    /// The numbers woken so far, emptying the log.
    pub(super) fn take(&self) -> Vec<usize> {
        std::mem::take(&mut self.0.lock().unwrap())
    }
}

/// `n` tickets in `list`, registered in order with wakers `0..n`.
fn in_line<'a>(list: &'a WaitList, woken: &Woken, n: usize) -> Vec<WaitTicket<'a>> {
    (0..n)
        .map(|id| {
            let mut ticket = WaitTicket::new();
            list.register(&mut ticket, &woken.waker(id), false);
            ticket
        })
        .collect()
}

#[test]
fn each_freed_slot_wakes_the_next_producer_in_order() {
    let (list, woken) = (WaitList::new(), Woken::default());
    let _tickets = in_line(&list, &woken, 4);
    list.wake_one();
    assert_eq!(woken.take(), [0]);
    list.wake_one_local();
    list.wake_one();
    assert_eq!(woken.take(), [1, 2]);
}

#[test]
fn registering_again_keeps_the_place() {
    let (list, woken) = (WaitList::new(), Woken::default());
    let mut tickets = in_line(&list, &woken, 3);
    // Polled again (say, spuriously) with a new waker: same place.
    list.register(&mut tickets[2], &woken.waker(12), false);
    list.register(&mut tickets[0], &woken.waker(10), false);
    list.top_up(|| 3);
    assert_eq!(woken.take(), [10, 1, 12]);
}

#[test]
fn a_dropped_woken_ticket_passes_its_wake_up_on() {
    let (list, woken) = (WaitList::new(), Woken::default());
    let mut tickets = in_line(&list, &woken, 3);
    list.wake_one();
    assert_eq!(woken.take(), [0]);
    // Producer 0 gives up without claiming the slot.
    drop(tickets.remove(0));
    assert_eq!(woken.take(), [1], "the next producer gets the slot");
    // Producer 1 claims it: nothing is passed on.
    tickets[0].leave_served();
    assert!(!tickets[0].is_placed());
    assert_eq!(woken.take(), Vec::<usize>::new());
    // A producer dropped while still waiting passes nothing on either.
    drop(tickets.remove(1));
    assert_eq!(woken.take(), Vec::<usize>::new());
    list.wake_one();
    assert_eq!(woken.take(), Vec::<usize>::new(), "nobody is left");
}

#[test]
fn a_woken_producer_that_finds_the_slot_taken_stays_first() {
    let (list, woken) = (WaitList::new(), Woken::default());
    let mut tickets = in_line(&list, &woken, 3);
    list.wake_one();
    assert_eq!(woken.take(), [0]);
    // A sender that never waited took the slot: 0 waits again.
    list.register(&mut tickets[0], &woken.waker(0), false);
    list.wake_one();
    assert_eq!(woken.take(), [0]);
}

#[test]
fn parking_tops_the_woken_producers_up_to_the_capacity() {
    let (list, woken) = (WaitList::new(), Woken::default());
    let mut tickets = in_line(&list, &woken, 6);
    list.wake_one();
    list.top_up(|| 4);
    assert_eq!(woken.take(), [0, 1, 2, 3]);
    list.top_up_local(|| 4);
    assert_eq!(woken.take(), Vec::<usize>::new(), "four are on their way");
    // Two claim their slot; parking again wakes two more.
    tickets[0].leave_served();
    tickets[1].leave_served();
    list.top_up(|| 4);
    assert_eq!(woken.take(), [4, 5]);
}

#[test]
fn wake_all_wakes_every_waiting_producer() {
    let (list, woken) = (WaitList::new(), Woken::default());
    let _tickets = in_line(&list, &woken, 5);
    list.wake_one();
    list.wake_all();
    assert_eq!(woken.take(), [0, 1, 2, 3, 4]);
}

#[test]
fn an_untouched_list_allocates_nothing_and_wakes_nobody() {
    let list = WaitList::new();
    list.wake_one();
    list.top_up(|| panic!("the capacity is not asked for when nobody waits"));
    list.wake_all();
    assert!(list.get().is_none());
}

#[test]
fn a_ticket_moved_to_another_list_leaves_the_first_one() {
    let (first, second, woken) = (WaitList::new(), WaitList::new(), Woken::default());
    let mut ticket = WaitTicket::new();
    first.register(&mut ticket, &woken.waker(0), false);
    let mut behind = WaitTicket::new();
    first.register(&mut behind, &woken.waker(1), false);
    first.wake_one();
    assert_eq!(woken.take(), [0]);
    second.register(&mut ticket, &woken.waker(0), true);
    assert_eq!(
        woken.take(),
        [1],
        "its wake-up in the first list was passed on"
    );
    second.wake_one();
    assert_eq!(woken.take(), [0]);
}
