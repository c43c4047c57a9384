//! Each thread's writers: the lane a thread appends its taps' samples to,
//! one per recording it has recorded into.
//!
//! Why per thread rather than per tap: a bench taps thousands of outputs,
//! and a lane per tap is a line of memory per tap written at each of its
//! samples, which falls out of cache between two sends of the same output
//! (in pinball, +90 ns per hop or more, `docs/benchmarks.md`). A thread's
//! one lane is written in sequence: the line a sample goes to is the one
//! the previous sample went to, or the next. The samples of one tap may
//! then sit in several lanes (a model runs on whichever thread took it);
//! each sample carries its tap's tag, by which the series is put back in
//! order when read (`shared.rs`).

use std::cell::RefCell;

use crate::lane::{LaneWriter, Record};
use crate::sync::Arc;

thread_local! {
    /// The writers of this thread, by recording id, the last used first.
    static WRITERS: RefCell<Vec<(u64, LaneWriter)>> = const { RefCell::new(Vec::new()) };
}

/// Appends `record` to this thread's lane of recording `recording`,
/// making it with `new_lane` if this thread has none yet.
#[inline]
pub(crate) fn push(recording: u64, record: Record, new_lane: &impl Fn() -> LaneWriter) {
    let pushed = WRITERS.try_with(|writers| {
        let mut writers = writers.borrow_mut();
        match writers.first_mut() {
            Some((id, writer)) if *id == recording => writer.push(record),
            _ => push_to_another(&mut writers, recording, record, new_lane),
        }
    });
    if pushed.is_err() {
        push_while_exiting(record, new_lane);
    }
}

/// [`push`] to a recording other than the last one used here.
#[cold]
#[inline(never)]
fn push_to_another(
    writers: &mut Vec<(u64, LaneWriter)>,
    recording: u64,
    record: Record,
    new_lane: &impl Fn() -> LaneWriter,
) {
    // The lanes of recordings dropped since are held by their writer
    // alone: let them go.
    writers.retain(|(_, writer)| Arc::strong_count(writer.lane()) > 1);
    let at = match writers.iter().position(|(id, _)| *id == recording) {
        Some(at) => at,
        None => {
            writers.push((recording, new_lane()));
            writers.len() - 1
        }
    };
    writers.swap(0, at);
    writers[0].1.push(record);
}

/// A sample sent while this thread's locals are being destroyed (by a
/// bench that another thread-local's destructor runs): it gets a lane of
/// its own.
#[cold]
fn push_while_exiting(record: Record, new_lane: &impl Fn() -> LaneWriter) {
    new_lane().push(record);
}
