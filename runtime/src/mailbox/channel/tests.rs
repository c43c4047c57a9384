//! Unit tests of the mailbox channel.

use super::*;
use std::task::Waker;

/// Polls the channel once, as its single consumer.
fn poll(channel: &Channel<u32>) -> Poll<u32> {
    let mut cx = Context::from_waker(Waker::noop());
    // SAFETY: the test is the channel's only consumer.
    unsafe { channel.poll_pop(&mut cx) }
}

/// Pushes `value`, which must find room.
fn push(channel: &Channel<u32>, value: u32) {
    let mut cx = Context::from_waker(Waker::noop());
    assert_eq!(
        channel.try_push_with(value, Some, &mut cx, None),
        Ok(Pushed::Delivered)
    );
}

#[test]
fn taking_a_message_ends_the_idle_state() {
    let channel = Channel::new(2);
    channel.bind(Name::from("test"), crate::bench::BenchId::new(), 0);
    assert_eq!(poll(&channel), Poll::Pending);
    assert!(channel.is_idle(), "parked on an empty queue");
    push(&channel, 1);
    push(&channel, 2);
    assert!(!channel.is_idle(), "a message is waiting");
    assert_eq!(poll(&channel), Poll::Ready(1));
    // Busy with the message, one still queued.
    assert!(!channel.is_idle());
    assert_eq!(poll(&channel), Poll::Ready(2));
    assert!(!channel.is_idle(), "busy with the last message");
    assert_eq!(poll(&channel), Poll::Pending);
    assert!(channel.is_idle());
}

/// A waker that counts its wake-ups.
#[derive(Default)]
struct Counter(std::sync::atomic::AtomicUsize);

impl std::task::Wake for Counter {
    fn wake(self: std::sync::Arc<Self>) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

impl Counter {
    /// A fresh counter and its waker.
    fn new() -> (std::sync::Arc<Counter>, Waker) {
        let counter = std::sync::Arc::new(Counter::default());
        (counter.clone(), Waker::from(counter))
    }

    /// Wake-ups so far.
    fn count(&self) -> usize {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// On the multi-threaded path (no single-threaded executor registered),
/// a parked consumer is woken by the first push only; a consumer that is
/// not parked is not woken; a waker that changes is the one woken.
#[test]
fn a_parked_consumer_is_woken_once_by_the_first_push() {
    let channel = Channel::new(4);
    channel.bind(Name::from("test"), crate::bench::BenchId::new(), 0);
    let (counter, waker) = Counter::new();
    let mut cx = Context::from_waker(&waker);
    // SAFETY: the test is the only consumer.
    let mut poll = || unsafe { channel.poll_pop(&mut cx) };
    assert_eq!(poll(), Poll::Pending);
    push(&channel, 1);
    assert_eq!(counter.count(), 1, "woken by the first push");
    push(&channel, 2);
    assert_eq!(counter.count(), 1, "not parked any more");
    assert_eq!(poll(), Poll::Ready(1));
    assert_eq!(poll(), Poll::Ready(2));
    push(&channel, 3);
    assert_eq!(counter.count(), 1, "busy: not woken");
    assert_eq!(poll(), Poll::Ready(3));
    assert_eq!(poll(), Poll::Pending);
    push(&channel, 4);
    assert_eq!(counter.count(), 2, "parked again, woken again");
    // Another waker registered by the next park is the one woken.
    let (other, other_waker) = Counter::new();
    let mut other_cx = Context::from_waker(&other_waker);
    // SAFETY: as above.
    let mut other_poll = || unsafe { channel.poll_pop(&mut other_cx) };
    assert_eq!(other_poll(), Poll::Ready(4));
    assert_eq!(other_poll(), Poll::Pending);
    push(&channel, 5);
    assert_eq!((counter.count(), other.count()), (2, 1));
}

/// Tries to push `value` with `waker`, holding `ticket`, and leaves the
/// line once delivered, as the ports do.
fn try_push<'a>(
    channel: &'a Channel<u32>,
    value: u32,
    waker: &Waker,
    ticket: &mut WaitTicket<'a>,
) -> Result<Pushed, u32> {
    let mut cx = Context::from_waker(waker);
    let pushed = channel.try_push_with(value, Some, &mut cx, Some(&mut *ticket));
    if pushed.is_ok() {
        ticket.leave_served();
    }
    pushed
}

#[test]
fn a_send_dropped_after_its_wake_up_does_not_strand_the_next_one() {
    let channel = Channel::new(1);
    channel.bind(Name::from("test"), crate::bench::BenchId::new(), 0);
    push(&channel, 0);
    let ((a, a_waker), (b, b_waker)) = (Counter::new(), Counter::new());
    let (mut a_ticket, mut b_ticket) = (WaitTicket::new(), WaitTicket::new());
    assert_eq!(try_push(&channel, 1, &a_waker, &mut a_ticket), Err(1));
    assert_eq!(try_push(&channel, 2, &b_waker, &mut b_ticket), Err(2));
    assert_eq!(poll(&channel), Poll::Ready(0));
    assert_eq!(
        (a.count(), b.count()),
        (1, 0),
        "one slot, one wake-up, first come"
    );
    // A's task gives up on its send (a `select` took another branch).
    drop(a_ticket);
    assert_eq!(b.count(), 1, "A's wake-up went to B");
    assert_eq!(
        try_push(&channel, 2, &b_waker, &mut b_ticket),
        Ok(Pushed::Delivered)
    );
    assert!(!b_ticket.is_placed(), "a delivered send leaves the line");
    assert_eq!(poll(&channel), Poll::Ready(2));
}

#[test]
fn a_skipped_hole_wakes_a_waiting_producer() {
    let channel = Channel::new(1);
    channel.bind(Name::from("test"), crate::bench::BenchId::new(), 0);
    // A filtered message leaves a hole that fills the only slot.
    let mut cx = Context::from_waker(Waker::noop());
    assert_eq!(
        channel.try_push_with(0, |_| None, &mut cx, None),
        Ok(Pushed::Delivered)
    );
    let (a, a_waker) = Counter::new();
    let mut a_ticket = WaitTicket::new();
    assert_eq!(try_push(&channel, 1, &a_waker, &mut a_ticket), Err(1));
    // Nothing to take, but the hole is skipped: its slot is free.
    assert_eq!(poll(&channel), Poll::Pending);
    assert_eq!(a.count(), 1);
    assert_eq!(
        try_push(&channel, 1, &a_waker, &mut a_ticket),
        Ok(Pushed::Delivered)
    );
}

#[test]
fn many_waiting_producers_are_woken_once_each_in_order() {
    const N: u32 = 100;
    let channel = Channel::new(4);
    channel.bind(Name::from("test"), crate::bench::BenchId::new(), 0);
    for value in 0..4 {
        push(&channel, value);
    }
    let counters: Vec<_> = (0..N).map(|_| Counter::new()).collect();
    let mut tickets: Vec<_> = (0..N).map(|_| WaitTicket::new()).collect();
    let mut pending: std::collections::VecDeque<u32> = (0..N).collect();
    for (i, ticket) in tickets.iter_mut().enumerate() {
        let waker = &counters[i].1;
        assert!(try_push(&channel, 4 + i as u32, waker, ticket).is_err());
    }
    let mut received = Vec::new();
    while let Poll::Ready(value) = poll(&channel) {
        received.push(value);
        // Every woken producer, in turn, pushes (a woken one finds room).
        while let Some(&i) = pending.front() {
            if counters[i as usize].0.count() == 0 {
                break;
            }
            pending.pop_front();
            let (ticket, waker) = (&mut tickets[i as usize], &counters[i as usize].1);
            assert_eq!(
                try_push(&channel, 4 + i, waker, ticket),
                Ok(Pushed::Delivered)
            );
        }
    }
    assert_eq!(received, (0..N + 4).collect::<Vec<_>>());
    let wakes: Vec<usize> = counters.iter().map(|(c, _)| c.count()).collect();
    assert!(wakes.iter().all(|&w| w == 1), "{wakes:?}");
}
