//! The causal messaging contract (design brief §1):
//!
//! 1. if A sends M1 then M2 to B, B processes M1 before M2;
//! 2. if A sends M1 to B, then M2 to C, and C reacting to M2 sends M3 to B,
//!    B processes M1 before M3.
//!
//! Checked on the traces recorded by the receiving models.

mod common;
use common::*;

/// Rule 1: one sender, one receiver, many messages: FIFO.
#[test]
fn messages_from_one_sender_arrive_in_send_order() {
    let log = Log::new();
    let mut a = Emitter::<u32>::new(1);
    let a_mbox = Mailbox::new();
    let b_mbox = Mailbox::new();
    a.outs[0].connect(Recorder::ports().input, &b_mbox);
    let a_addr = a_mbox.address();

    let mut simu = start(sim_init().add_model(a, a_mbox, "a").add_model(
        Recorder::new(&log),
        b_mbox,
        "b",
    ));
    // More messages than the mailbox holds, so some sends wait.
    let script: Vec<(usize, u32)> = (0..100).map(|i| (0, i)).collect();
    simu.process_event(Emitter::ports().emit, script, &a_addr)
        .unwrap();

    assert_eq!(log.values_of("b"), (0..100).collect::<Vec<_>>());
}

/// Rule 2: M1 (A→B) happens before M2 (A→C) which causes M3 (C→B), so B
/// must see M1 before M3, even though C is added and polled first.
#[test]
fn causally_later_message_through_a_third_model_arrives_after() {
    let log = Log::new();
    let mut a = Emitter::<&'static str>::new(2);
    let mut c = Forwarder::new();
    let a_mbox = Mailbox::new();
    let b_mbox = Mailbox::new();
    let c_mbox = Mailbox::new();
    a.outs[0].connect(Recorder::ports().input, &b_mbox);
    a.outs[1].connect(Forwarder::ports().input, &c_mbox);
    // C forwards M2 to B as M3.
    c.out
        .map_connect(|_: &'static str| "M3", Recorder::ports().input, &b_mbox);
    let a_addr = a_mbox.address();

    let mut simu = start(
        sim_init()
            .add_model(c, c_mbox, "c")
            .add_model(Recorder::new(&log), b_mbox, "b")
            .add_model(a, a_mbox, "a"),
    );
    simu.process_event(Emitter::ports().emit, vec![(0, "M1"), (1, "M2")], &a_addr)
        .unwrap();

    assert_eq!(log.values_of("b"), vec!["M1", "M3"]);
}

/// Rule 2, repeated and interleaved: A alternates direct messages to B and
/// messages relayed to B through a chain of three forwarders. Every direct
/// message `d_i` is sent before the relayed `r_i`, so B sees `d_i` before
/// `r_i`; and each path on its own stays in order (rule 1).
#[test]
fn causal_order_holds_for_interleaved_direct_and_relayed_messages() {
    let log = Log::new();
    let mut a = Emitter::<u32>::new(2);
    let a_mbox = Mailbox::new();
    let b_mbox = Mailbox::new();
    let chain_mboxes: Vec<Mailbox<Forwarder<u32>>> = (0..3).map(|_| Mailbox::new()).collect();
    let mut chain: Vec<Forwarder<u32>> = (0..3).map(|_| Forwarder::new()).collect();
    a.outs[0].connect(Recorder::ports().input, &b_mbox);
    a.outs[1].connect(Forwarder::ports().input, &chain_mboxes[0]);
    chain[0]
        .out
        .connect(Forwarder::ports().input, &chain_mboxes[1]);
    chain[1]
        .out
        .connect(Forwarder::ports().input, &chain_mboxes[2]);
    chain[2].out.connect(Recorder::ports().input, &b_mbox);
    let a_addr = a_mbox.address();

    let mut init = sim_init();
    for (i, (model, mbox)) in chain.into_iter().zip(chain_mboxes).enumerate() {
        init = init.add_model(model, mbox, format!("relay{i}"));
    }
    let mut simu = start(
        init.add_model(Recorder::new(&log), b_mbox, "b")
            .add_model(a, a_mbox, "a"),
    );
    // Direct values are even, relayed values odd: 0 then 1, 2 then 3, ...
    let script: Vec<(usize, u32)> = (0..50u32)
        .flat_map(|i| [(0, 2 * i), (1, 2 * i + 1)])
        .collect();
    simu.process_event(Emitter::ports().emit, script, &a_addr)
        .unwrap();

    let seen = log.values_of("b");
    assert_eq!(seen.len(), 100);
    let position = |v: u32| seen.iter().position(|&x| x == v).unwrap();
    for i in 0..50u32 {
        assert!(
            position(2 * i) < position(2 * i + 1),
            "direct {} must come before relayed {}: {seen:?}",
            2 * i,
            2 * i + 1
        );
    }
    let direct: Vec<u32> = seen.iter().copied().filter(|v| v % 2 == 0).collect();
    let relayed: Vec<u32> = seen.iter().copied().filter(|v| v % 2 == 1).collect();
    assert_eq!(direct, (0..50).map(|i| 2 * i).collect::<Vec<_>>());
    assert_eq!(relayed, (0..50).map(|i| 2 * i + 1).collect::<Vec<_>>());
}
