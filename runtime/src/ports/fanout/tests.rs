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
        self.send_from_bench(value);
        Ok(())
    }

    fn send_from_bench(&self, value: Counted) {
        self.got.lock().unwrap().push(value.0);
    }

    fn link(&self) -> crate::ports::link::Recipient {
        crate::ports::link::Recipient::Refused
    }
}

/// Polls a send of 7 over connections with mailboxes full for the
/// given numbers of sends, until it completes; returns the number of
/// `Pending`s and of clones, and what each connection got.
fn send_all(full: &[usize]) -> (usize, usize, Vec<Vec<u32>>) {
    let recorders: Vec<_> = full.iter().map(|&f| Recorder::new(f)).collect();
    let mut fanout = Fanout::new();
    for recorder in &recorders {
        fanout.targets.push(recorder.clone());
    }
    let clones = Arc::new(AtomicUsize::new(0));
    let mut send = FanoutSend::new(Counted(7, clones.clone()));
    let mut cx = Context::from_waker(Waker::noop());
    let mut poll = |send: &mut FanoutSend<Counted>| fanout.poll_send(send, &mut cx, None);
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
    assert_eq!(send_all(&[2]), (2, 0, vec![vec![7]]));
}

#[test]
fn many_connections_are_served_in_order_with_one_clone_each_but_the_last() {
    let (pendings, clones, got) = send_all(&[0, 1, 2]);
    assert_eq!((pendings, clones), (3, 2));
    assert_eq!(got, [[7], [7], [7]]);
}

#[test]
fn the_list_stays_within_three_words() {
    assert!(std::mem::size_of::<Targets<u64>>() <= 3 * std::mem::size_of::<usize>());
}

#[test]
fn no_connection_sends_nothing() {
    assert_eq!(send_all(&[]), (0, 0, vec![]));
}

/// The bench's delivery (an event source's event): every connection in
/// order, one clone each but the last, none waits even when "full".
#[test]
fn the_bench_delivers_to_every_connection_without_waiting() {
    let recorders: Vec<_> = [0, 3, 1].iter().map(|&f| Recorder::new(f)).collect();
    let targets: Vec<Arc<dyn Target<Counted>>> = recorders
        .iter()
        .map(|r| r.clone() as Arc<dyn Target<Counted>>)
        .collect();
    let clones = Arc::new(AtomicUsize::new(0));
    let mut send = FanoutSend::new(Counted(7, clones.clone()));
    send.deliver_from_bench(&targets);
    assert_eq!(send.position(), 3);
    assert_eq!(clones.load(Ordering::Relaxed), 2);
    let got: Vec<_> = recorders.iter().map(|r| r.got()).collect();
    assert_eq!(got, [[7], [7], [7]]);
    // A completed delivery delivers nothing more.
    send.deliver_from_bench(&targets);
    assert_eq!(recorders[2].got(), [7]);
}
