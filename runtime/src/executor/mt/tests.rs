//! Tests of the executor on real threads, for what its loom models cannot
//! reach: `st3`'s queues are not instrumented under loom, but Miri runs
//! them as they are (`.ci/miri` runs these tests).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use super::Executor;
use crate::bench::BenchId;
use crate::executor::{TaskMeta, TaskProbe};

/// The probe of a bench task named `name`.
fn meta(name: &str) -> Arc<dyn TaskProbe> {
    TaskMeta {
        name: Arc::from(name),
        model_type: "test",
        mailbox: None,
    }
    .into_probe()
}

/// The calling thread keeps its lease from one step to the next, so it
/// ends a step on a plain load of the activity count. Each step queues two
/// tasks there and wakes the other worker, which steals one: the calling
/// thread, finding its queue emptied by the steal, must also see the
/// stealer's lease, or it ends the step while the stolen task runs.
/// (`st3` books a steal with an acquire-only exchange, which publishes
/// nothing; Miri found the step ending early until the stealer fenced.)
#[test]
fn a_step_ends_only_after_the_polls_of_stolen_tasks() {
    let steps = if cfg!(miri) { 60 } else { 2_000 };
    let mut executor = Executor::new(2, BenchId::new(), 1);
    let ran = Arc::new(AtomicUsize::new(0));
    for step in 0..steps {
        for name in ["x", "y"] {
            let ran = ran.clone();
            executor.spawn(
                Box::pin(async move {
                    ran.fetch_add(1, Ordering::Relaxed);
                }),
                meta(name),
            );
        }
        assert!(executor.run(None).is_ok());
        assert_eq!(
            ran.load(Ordering::Relaxed),
            2 * (step + 1),
            "step {step} ended before both tasks ran"
        );
    }
}
