//! Unit tests of the fan-out.

use super::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::task::Waker;

/// A value that counts its clones.
#[derive(Debug)]
struct Counted(u32, Arc<AtomicUsize>);

impl Clone for Counted {
    fn clone(&self) -> Self {
        self.1.fetch_add(1, Ordering::Relaxed);
        Counted(self.0, self.1.clone())
    }
}

/// A connection whose mailbox is full for its first `full` sends.
struct Recorder {
    full: AtomicUsize,
    got: Mutex<Vec<u32>>,
}

impl Recorder {
    fn new(full: usize) -> Arc<Self> {
        Arc::new(Recorder {
            full: AtomicUsize::new(full),
            got: Mutex::new(Vec::new()),
        })
    }

    fn got(&self) -> Vec<u32> {
        self.got.lock().unwrap().clone()
    }
}

impl Target<Counted> for Recorder {
    fn try_send(
        &self,
        value: Counted,
        _cx: &mut Context<'_>,
        _ticket: Option<&mut WaitTicket<'_>>,
    ) -> Result<(), Counted> {
        if self.full.load(Ordering::Relaxed) > 0 {
            self.full.fetch_sub(1, Ordering::Relaxed);
            return Err(value);
        }
        self.got.lock().unwrap().push(value.0);
        Ok(())
    }
}

/// How a send is polled: through the output's list, or through a
/// slice of it (as event sources do).
#[derive(Clone, Copy)]
enum Via {
    Fanout,
    Slice,
}

/// Polls a send of 7 over connections with mailboxes full for the
/// given numbers of sends, until it completes; returns the number of
/// `Pending`s and of clones, and what each connection got.
fn send_all(full: &[usize], via: Via) -> (usize, usize, Vec<Vec<u32>>) {
    let recorders: Vec<_> = full.iter().map(|&f| Recorder::new(f)).collect();
    let mut fanout = Fanout::new();
    for recorder in &recorders {
        fanout.targets.push(recorder.clone());
    }
    let clones = Arc::new(AtomicUsize::new(0));
    let mut send = FanoutSend::new(Counted(7, clones.clone()));
    let mut cx = Context::from_waker(Waker::noop());
    let mut poll = |send: &mut FanoutSend<Counted>| match via {
        Via::Fanout => fanout.poll_send(send, &mut cx, None),
        Via::Slice => send.poll(fanout.targets(), &mut cx, None),
    };
    let mut pendings = 0;
    while poll(&mut send).is_pending() {
        pendings += 1;
    }
    // A completed send stays completed and delivers nothing more.
    assert!(poll(&mut send).is_ready());
    let got = recorders.iter().map(|r| r.got()).collect();
    (pendings, clones.load(Ordering::Relaxed), got)
}

#[test]
fn one_connection_waits_for_room_and_gets_the_original_once() {
    for via in [Via::Fanout, Via::Slice] {
        assert_eq!(send_all(&[2], via), (2, 0, vec![vec![7]]));
    }
}

#[test]
fn many_connections_are_served_in_order_with_one_clone_each_but_the_last() {
    for via in [Via::Fanout, Via::Slice] {
        let (pendings, clones, got) = send_all(&[0, 1, 2], via);
        assert_eq!((pendings, clones), (3, 2));
        assert_eq!(got, [[7], [7], [7]]);
    }
}

#[test]
fn the_list_stays_within_three_words() {
    assert!(std::mem::size_of::<Targets<u64>>() <= 3 * std::mem::size_of::<usize>());
}

#[test]
fn no_connection_sends_nothing() {
    for via in [Via::Fanout, Via::Slice] {
        assert_eq!(send_all(&[], via), (0, 0, vec![]));
    }
}
