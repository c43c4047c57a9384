//! Loom models of the stage: a poll on another worker hands its batch
//! over while the settling thread takes rounds and a save counts what is
//! staged. Nothing handed over is lost or delivered twice, a round keeps
//! the senders' order, and a save that finds a model idle after a send
//! counts that send exactly once; a connection retired by a poll on
//! another worker is freed only after the sends that borrow it are
//! delivered.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use super::{stage, Delivery, Keyed, Round, Stage};
use crate::sync::atomic::{AtomicBool, Ordering};
use crate::sync::loom_check;
use crate::sync::Mutex;
use loom::thread;

/// The deliveries a model logged: the origins of their senders.
type Log = Arc<Mutex<Vec<u32>>>;

/// Polls a model task of origin `origin` once, on this thread: it stages
/// one send, which logs `origin` when delivered, then sets `emptied` (as
/// the model's gate opens once its mailbox runs empty, before the poll
/// ends and hands its batch over).
fn poll_a_sender(stage_of: &Arc<Stage>, origin: u32, log: &Log, emptied: &Arc<AtomicBool>) {
    let (log, emptied) = (log.clone(), emptied.clone());
    let task = std::future::poll_fn(move |_| {
        let log = log.clone();
        stage(move || log.lock().unwrap().push(origin));
        emptied.store(true, Ordering::Release);
        Poll::<()>::Pending
    });
    let mut keyed = Keyed::new(task, origin, stage_of.clone());
    let mut cx = Context::from_waker(Waker::noop());
    assert!(Pin::new(&mut keyed).poll(&mut cx).is_pending());
}

/// Spawns a worker thread polling a model task of origin `origin` once
/// (see [`poll_a_sender`]); returns it and the task's idle flag.
fn spawn_sender(
    stage: &Arc<Stage>,
    origin: u32,
    log: &Log,
) -> (thread::JoinHandle<()>, Arc<AtomicBool>) {
    let emptied = Arc::new(AtomicBool::new(false));
    let (stage, log, idle) = (stage.clone(), log.clone(), emptied.clone());
    let worker = thread::spawn(move || poll_a_sender(&stage, origin, &log, &idle));
    (worker, emptied)
}

/// Takes a round on this thread, as the settling thread does, and
/// delivers it; false if nothing was staged.
fn take_a_round(stage: &Stage) -> bool {
    let _settling = stage.drive();
    let mut round = Round::default();
    if !stage.take_sorted(&mut round) {
        return false;
    }
    round.deliver(&mut 0);
    round.clear();
    true
}

/// What was delivered so far.
fn delivered(log: &Log) -> Vec<u32> {
    log.lock().unwrap().clone()
}

#[test]
fn loom_stage_a_save_counts_a_send_of_a_poll_on_another_worker_once() {
    loom_check(3, || {
        let stage = Arc::new(Stage::default());
        let log = Log::default();
        let (worker, emptied) = spawn_sender(&stage, 1, &log);
        // A save between two calls reads a model it finds idle; this one
        // sent before it became idle.
        let counted = emptied
            .load(Ordering::Acquire)
            .then(|| stage.staged_count());
        worker.join().unwrap();
        if let Some(counted) = counted {
            assert_eq!(counted, 1, "in flight or handed over, counted once");
        }
        assert!(stage.has_staged());
        assert!(take_a_round(&stage));
        assert_eq!(delivered(&log), [1]);
        assert_eq!(stage.staged_count(), 0);
    });
}

#[test]
fn loom_stage_a_round_taken_during_a_hand_over_gets_it_now_or_next() {
    loom_check(3, || {
        let stage = Arc::new(Stage::default());
        let log = Log::default();
        let (worker, _) = spawn_sender(&stage, 2, &log);
        let taken_early = take_a_round(&stage);
        worker.join().unwrap();
        // Once the hand-over is over, a round that missed it sees it.
        if !taken_early {
            assert!(stage.has_staged(), "a batch handed over is flagged");
        }
        let taken_late = take_a_round(&stage);
        assert_eq!(delivered(&log), [2], "delivered once");
        assert!(taken_early || taken_late);
        assert!(!take_a_round(&stage), "nothing left");
    });
}

#[test]
fn loom_stage_batches_from_two_workers_and_the_settling_thread_keep_the_key_order() {
    loom_check(2, || {
        let stage = Arc::new(Stage::default());
        let log = Log::default();
        let ((third, _), (second, _)) =
            (spawn_sender(&stage, 3, &log), spawn_sender(&stage, 2, &log));
        {
            // The settling thread's own model stages in its local list.
            let _settling = stage.drive();
            poll_a_sender(&stage, 1, &log, &Arc::new(AtomicBool::new(false)));
        }
        third.join().unwrap();
        second.join().unwrap();
        assert!(take_a_round(&stage));
        assert_eq!(delivered(&log), [1, 2, 3], "by origin, whoever ran where");
    });
}

/// A connection's life: false once freed.
struct Connection(Arc<AtomicBool>);

impl Drop for Connection {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// Sweeps the stage on this thread, as the settling thread does once its
/// rounds are delivered.
fn sweep(stage: &Stage) {
    let _settling = stage.drive();
    stage.sweep();
}

#[test]
fn loom_stage_a_retired_connection_outlives_the_sends_through_it() {
    loom_check(3, || {
        let stage_of = Arc::new(Stage::default());
        let alive = Arc::new(AtomicBool::new(true));
        let delivered = Arc::new(AtomicBool::new(false));
        let (stage_in, alive_in, delivered_in) =
            (stage_of.clone(), alive.clone(), delivered.clone());
        // A model woken from outside: on another worker, it sends through
        // its connection, then lets its output go (the last handle).
        let worker = thread::spawn(move || {
            let stage_of = stage_in.clone();
            let task = std::future::poll_fn(move |_| {
                let (alive, delivered) = (alive_in.clone(), delivered_in.clone());
                stage(move || {
                    assert!(
                        alive.load(Ordering::Acquire),
                        "delivered through a freed connection"
                    );
                    delivered.store(true, Ordering::Relaxed);
                });
                let connection = Connection(alive_in.clone());
                stage_in.retire(Delivery::new(move || drop(connection)));
                Poll::<()>::Pending
            });
            let mut keyed = Keyed::new(task, 1, stage_of);
            let mut cx = Context::from_waker(Waker::noop());
            assert!(Pin::new(&mut keyed).poll(&mut cx).is_pending());
        });
        // The settling thread ends a step meanwhile: a sweep, a round if
        // the batch is there already, a sweep.
        sweep(&stage_of);
        take_a_round(&stage_of);
        sweep(&stage_of);
        worker.join().unwrap();
        take_a_round(&stage_of);
        sweep(&stage_of);
        assert!(
            delivered.load(Ordering::Relaxed),
            "delivered once handed over"
        );
        assert!(!alive.load(Ordering::Acquire), "freed once delivered");
        assert!(!stage_of.has_retired());
    });
}
