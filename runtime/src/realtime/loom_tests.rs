//! Loom models of the injection queue: an input injected from another
//! thread is taken by a step or refused, never lost, and one injected
//! while the simulation goes away is dropped with it or refused.

use std::sync::Arc;

use loom::sync::atomic::{AtomicUsize, Ordering};

use super::InjectQueue;
use crate::bench::BenchId;
use crate::poll_report::Misaddressed;
use crate::ports::event::Action;
use crate::time::SimTime;

/// An input that counts its drops.
struct Counted(Arc<AtomicUsize>);

impl Action for Counted {
    fn fire(&mut self) {}

    fn misaddressed(&self, _: BenchId) -> Option<Misaddressed> {
        None
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

/// A step that takes the input waiting while another is being injected
/// either takes both, or leaves the new one flagged for the next step:
/// once the injection has returned, every input is taken or flagged.
#[test]
fn loom_an_injected_input_is_taken_by_a_step_or_left_flagged_for_the_next() {
    loom::model(|| {
        let queue = Arc::new(InjectQueue::new(BenchId::new()));
        let drops = Arc::new(AtomicUsize::new(0));
        assert!(queue
            .push(None, Box::new(Counted(drops.clone())), None)
            .is_ok());
        let injector = {
            let (queue, drops) = (queue.clone(), drops.clone());
            loom::thread::spawn(move || queue.push(None, Box::new(Counted(drops)), None).is_ok())
        };
        // A step, as `take_injected` does it: one look, then take.
        let mut taken = Vec::new();
        if queue.has_pending() {
            queue.take_due(SimTime::ZERO, &mut taken);
        }
        assert!(injector.join().unwrap(), "the queue is open");
        // The next step.
        if queue.has_pending() {
            queue.take_due(SimTime::ZERO, &mut taken);
        }
        assert_eq!(taken.len(), 2, "an injected input was left unflagged");
        assert!(!queue.has_pending());
    });
}

/// An input injected while the simulation closes the queue is either
/// refused or dropped by the close; nothing is queued after it.
#[test]
fn loom_an_input_injected_during_close_is_refused_or_dropped() {
    loom::model(|| {
        let queue = Arc::new(InjectQueue::new(BenchId::new()));
        let drops = Arc::new(AtomicUsize::new(0));
        let injector = {
            let (queue, drops) = (queue.clone(), drops.clone());
            loom::thread::spawn(move || queue.push(None, Box::new(Counted(drops)), None).is_ok())
        };
        queue.close();
        let accepted = injector.join().unwrap();
        // Accepted before the close: dropped by it. Refused: dropped at
        // once. Either way, dropped now, and nothing waits.
        assert_eq!(drops.load(Ordering::Relaxed), 1, "accepted: {accepted}");
        let mut taken = Vec::new();
        queue.take_due(SimTime::MAX, &mut taken);
        assert!(taken.is_empty() && !queue.has_pending());
        assert!(queue
            .push(None, Box::new(Counted(drops.clone())), None)
            .is_err());
    });
}
