//! Loom models of the gate: the task and code outside it never reach what
//! it guards at the same time, and each sees what the other wrote.

use super::Gate;
use crate::sync::cell::UnsafeCell;
use crate::sync::loom_check;
use loom::sync::Arc;
use loom::thread;

/// A value the gate guards, as a model's state is.
struct Guarded {
    /// The gate.
    gate: Gate,
    /// The state: loom reports any access that is not ordered.
    value: UnsafeCell<u32>,
}

// SAFETY: the value is reached only through the gate (what the model
// checks).
unsafe impl Sync for Guarded {}

/// Adds one to the value, as the task does with a message.
fn task_adds(guarded: &Guarded) {
    guarded.gate.enter();
    // SAFETY: the gate is held.
    guarded.value.with_mut(|value| unsafe { *value += 1 });
    guarded.gate.leave();
}

/// Adds ten to the value if the gate is open, as a restore writes a
/// state; returns whether it did.
fn outside_adds(guarded: &Guarded) -> bool {
    if !guarded.gate.try_enter_outside() {
        return false;
    }
    // SAFETY: the gate is held.
    guarded.value.with_mut(|value| unsafe { *value += 10 });
    guarded.gate.leave_outside();
    true
}

#[test]
fn loom_gate_keeps_the_task_and_the_outside_apart() {
    loom_check(3, || {
        let guarded = Arc::new(Guarded {
            gate: Gate::new(),
            value: UnsafeCell::new(0),
        });
        let task = {
            let guarded = guarded.clone();
            thread::spawn(move || {
                task_adds(&guarded);
                task_adds(&guarded);
            })
        };
        let outside = outside_adds(&guarded);
        task.join().unwrap();
        // Both of the task's writes, and the outside's if it got in.
        let expected = 2 + if outside { 10 } else { 0 };
        // SAFETY: both threads that wrote are joined; nothing else reads.
        let value = guarded.value.with(|value| unsafe { *value });
        assert_eq!(value, expected);
    });
}

#[test]
fn loom_gate_refuses_the_outside_while_the_task_holds_it() {
    loom_check(3, || {
        let guarded = Arc::new(Guarded {
            gate: Gate::new(),
            value: UnsafeCell::new(0),
        });
        guarded.gate.enter();
        let outside = {
            let guarded = guarded.clone();
            thread::spawn(move || outside_adds(&guarded))
        };
        assert!(!outside.join().unwrap());
        guarded.gate.leave();
        assert!(outside_adds(&guarded));
    });
}
