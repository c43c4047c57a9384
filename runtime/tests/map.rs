//! Adapted connections: `map_connect` converts each value for one
//! connection, `filter_map_connect` also drops values (mapped to `None`),
//! on outputs and on event sources. Other connections of the same port see
//! the value unchanged.

mod common;
use common::*;

/// An emitter of `u32` whose single output fans out to a plain recorder, a
/// mapped one and a filter-mapped one.
#[test]
fn output_map_and_filter_map_connect() {
    let plain = Log::<u32>::new();
    let mapped = Log::<String>::new();
    let evens = Log::<u64>::new();
    let mut emitter = Emitter::<u32>::new(1);
    let plain_mbox = Mailbox::new();
    let mapped_mbox = Mailbox::new();
    let evens_mbox = Mailbox::new();
    emitter.outs[0].connect(Recorder::ports().input, &plain_mbox);
    emitter.outs[0].map_connect(
        |x: u32| format!("v{x}"),
        Recorder::ports().input,
        &mapped_mbox,
    );
    emitter.outs[0].filter_map_connect(
        |x: u32| x.is_multiple_of(2).then(|| u64::from(x) * 100),
        Recorder::ports().input,
        &evens_mbox,
    );
    let emitter_mbox = Mailbox::new();
    let addr = emitter_mbox.address();
    let mut simu = start(
        sim_init()
            .add_model(emitter, emitter_mbox, "emitter")
            .add_model(Recorder::new(&plain), plain_mbox, "plain")
            .add_model(Recorder::new(&mapped), mapped_mbox, "mapped")
            .add_model(Recorder::new(&evens), evens_mbox, "evens"),
    );

    let script: Vec<(usize, u32)> = (1..=5).map(|x| (0, x)).collect();
    simu.process_event(Emitter::ports().emit, script, &addr)
        .unwrap();

    assert_eq!(plain.values_of("plain"), vec![1, 2, 3, 4, 5]);
    assert_eq!(
        mapped.values_of("mapped"),
        vec!["v1", "v2", "v3", "v4", "v5"]
    );
    // Odd values were filtered out: never delivered, not even as a message.
    assert_eq!(evens.values_of("evens"), vec![200, 400]);
    assert_eq!(evens.len(), 2);
}

/// A filter that drops everything delivers nothing, and the filtered
/// connection does not stop the ones after it.
#[test]
fn output_filter_everything_delivers_nothing() {
    let log = Log::<u32>::new();
    let mut emitter = Emitter::<u32>::new(1);
    let dropped_mbox = Mailbox::new();
    let kept_mbox = Mailbox::new();
    emitter.outs[0].filter_map_connect(
        |_: u32| None::<u32>,
        Recorder::ports().input,
        &dropped_mbox,
    );
    emitter.outs[0].connect(Recorder::ports().input, &kept_mbox);
    let emitter_mbox = Mailbox::new();
    let addr = emitter_mbox.address();
    let mut simu = start(
        sim_init()
            .add_model(emitter, emitter_mbox, "emitter")
            .add_model(Recorder::new(&log), dropped_mbox, "dropped")
            .add_model(Recorder::new(&log), kept_mbox, "kept"),
    );
    simu.process_event(Emitter::ports().emit, vec![(0, 1), (0, 2)], &addr)
        .unwrap();
    assert_eq!(log.values_of("dropped"), Vec::<u32>::new());
    assert_eq!(log.values_of("kept"), vec![1, 2]);
}

/// The map closure runs once per delivered message (not on a retry when
/// the recipient's mailbox was full, not for a filtered value).
#[test]
fn map_runs_exactly_once_per_delivered_value_even_under_backpressure() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    let calls = Arc::new(AtomicUsize::new(0));
    let log = Log::<u32>::new();
    let mut emitter = Emitter::<u32>::new(1);
    let sink_mbox = Mailbox::with_capacity(1);
    let counter = calls.clone();
    emitter.outs[0].map_connect(
        move |x: u32| {
            counter.fetch_add(1, Ordering::SeqCst);
            x + 1
        },
        Recorder::ports().input,
        &sink_mbox,
    );
    let emitter_mbox = Mailbox::new();
    let addr = emitter_mbox.address();
    let mut simu = start(
        sim_init()
            .add_model(emitter, emitter_mbox, "emitter")
            .add_model(Recorder::new(&log), sink_mbox, "sink"),
    );
    let script: Vec<(usize, u32)> = (0..10).map(|x| (0, x)).collect();
    simu.process_event(Emitter::ports().emit, script, &addr)
        .unwrap();
    assert_eq!(log.values_of("sink"), (1..=10).collect::<Vec<_>>());
    assert_eq!(calls.load(Ordering::SeqCst), 10);
}

#[test]
fn event_source_map_and_filter_map_connect() {
    let plain = Log::<i32>::new();
    let mapped = Log::<String>::new();
    let positives = Log::<u32>::new();
    let plain_mbox = Mailbox::new();
    let mapped_mbox = Mailbox::new();
    let positives_mbox = Mailbox::new();
    let mut source = EventSource::<i32>::new();
    source.connect(Recorder::ports().input, &plain_mbox);
    source.map_connect(
        |x: i32| format!("{x:+}"),
        Recorder::ports().input,
        &mapped_mbox,
    );
    source.filter_map_connect(
        |x: i32| u32::try_from(x).ok(),
        Recorder::ports().input,
        &positives_mbox,
    );
    let mut simu = start(
        sim_init()
            .add_model(Recorder::new(&plain), plain_mbox, "plain")
            .add_model(Recorder::new(&mapped), mapped_mbox, "mapped")
            .add_model(Recorder::new(&positives), positives_mbox, "positives"),
    );

    for x in [-2, 3, -1, 7] {
        simu.process(source.event(x)).unwrap();
    }
    // The same source, scheduled.
    simu.scheduler()
        .schedule_event(t(1), source.event(5))
        .unwrap();
    simu.scheduler()
        .schedule_event(t(2), source.event(-5))
        .unwrap();
    simu.run().unwrap();

    assert_eq!(plain.values_of("plain"), vec![-2, 3, -1, 7, 5, -5]);
    assert_eq!(
        mapped.values_of("mapped"),
        vec!["-2", "+3", "-1", "+7", "+5", "-5"]
    );
    assert_eq!(
        positives.timed(),
        vec![(SimTime::ZERO, 3), (SimTime::ZERO, 7), (t(1), 5)]
    );
}
