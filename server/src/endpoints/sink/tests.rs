//! The sink buffer: what it keeps, drops, and hands to subscribers.

use causim::SimTime;

use super::SinkBuffer;

fn times(values: &[super::SinkValue]) -> Vec<u64> {
    values.iter().map(|v| v.time.as_nanos()).collect()
}

#[test]
fn keeps_the_newest_values_and_counts_the_dropped_ones() {
    let buffer = SinkBuffer::new(3);
    for t in 1..=5u64 {
        buffer.push(SimTime::from_nanos(t), &(t as f64 / 2.0));
    }
    let (values, dropped, more) = buffer.drain();
    assert!(!more);
    assert_eq!(times(&values), [3, 4, 5]);
    assert_eq!(values[0].json.as_ref(), "1.5");
    assert_eq!(dropped, 2);
    // Drained: empty, the count reset, the latest value kept.
    let (values, dropped, _) = buffer.drain();
    assert!(values.is_empty());
    assert_eq!(dropped, 0);
    let latest = buffer.latest().expect("a value came");
    assert_eq!((latest.time.as_nanos(), latest.json.as_ref()), (5, "2.5"));
}

#[test]
fn a_drain_returns_at_most_a_few_mebibytes_and_keeps_the_rest() {
    let buffer = SinkBuffer::new(100_000);
    let text = "x".repeat(100_000);
    for t in 0..100u64 {
        buffer.push(SimTime::from_nanos(t), &text);
    }
    let mut drained = Vec::new();
    let mut replies = 0;
    loop {
        let (values, _, more) = buffer.drain();
        let bytes: usize = values.iter().map(|v| v.json.len()).sum();
        assert!(bytes <= 3 * 1024 * 1024, "a reply stays under 4 MiB");
        drained.extend(times(&values));
        replies += 1;
        if !more {
            break;
        }
    }
    assert!(replies >= 3, "{replies} replies");
    assert_eq!(
        drained,
        (0..100).collect::<Vec<_>>(),
        "nothing lost, in order"
    );
    // A value larger than a reply's budget still comes, alone.
    buffer.push(SimTime::from_nanos(200), &"y".repeat(4 << 20));
    buffer.push(SimTime::from_nanos(201), &1);
    let (values, _, more) = buffer.drain();
    assert_eq!((times(&values), more), (vec![200], true));
}

#[test]
fn a_capacity_of_zero_keeps_only_the_latest() {
    let buffer = SinkBuffer::new(0);
    buffer.push(SimTime::ZERO, &true);
    let (values, dropped, _) = buffer.drain();
    assert!(values.is_empty());
    assert_eq!(dropped, 1);
    assert_eq!(buffer.latest().expect("kept").json.as_ref(), "true");
}

#[test]
fn subscribers_get_values_from_the_moment_they_subscribe() {
    let buffer = SinkBuffer::new(10);
    buffer.push(SimTime::from_nanos(1), &"before");
    let mut receiver = buffer.subscribe();
    buffer.push(SimTime::from_nanos(2), &"after");
    let value = receiver.try_recv().expect("one value");
    assert_eq!(
        (value.time.as_nanos(), value.json.as_ref()),
        (2, "\"after\"")
    );
    assert!(receiver.try_recv().is_err());
}

#[test]
fn a_value_serde_cannot_write_says_why() {
    let buffer = SinkBuffer::new(10);
    let map: std::collections::HashMap<(u8, u8), u8> = [((1, 2), 3)].into();
    buffer.push(SimTime::ZERO, &map);
    let json = buffer.latest().expect("a value").json;
    let parsed: serde_json::Value = serde_json::from_str(&json).expect("still JSON");
    assert!(
        parsed["unserializable"]
            .as_str()
            .expect("a reason")
            .contains("key"),
        "{json}"
    );
}
