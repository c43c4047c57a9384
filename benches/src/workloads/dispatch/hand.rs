//! The same relay with a hand-written `Model` impl: the message enum, the
//! port descriptors and the dispatch `match` written out, as the `model`
//! module docs of causim show.

use std::time::Duration;

use causim::model::{ModelMetadata, PortKind, PortMetadata};
use causim::ports::ReplySender;
use causim::prelude::*;

use crate::workloads::tally::{self, Tally};

/// Passes a token on; has other ports so the dispatch `match` has arms.
pub struct Relay {
    next: Output<u64>,
    hops: Tally,
    gain: u64,
}

/// One variant per input or replier.
pub enum RelayMessage {
    /// For `token`.
    Token(u64),
    /// For `set_gain`.
    SetGain(u64),
    /// For `reset`.
    Reset(()),
    /// For `hops`, with its reply slot.
    Hops((), ReplySender<u64>),
}

/// The typed port descriptors.
pub struct RelayPorts {
    /// Input `token`.
    pub token: InputPort<Relay, u64>,
    /// Input `set_gain`.
    pub set_gain: InputPort<Relay, u64>,
    /// Input `reset`.
    pub reset: InputPort<Relay, ()>,
    /// Replier `hops`.
    pub hops: ReplierPort<Relay, (), u64>,
}

impl Relay {
    /// The port descriptors.
    pub fn ports() -> RelayPorts {
        RelayPorts {
            token: InputPort::new("token", RelayMessage::Token),
            set_gain: InputPort::new("set_gain", RelayMessage::SetGain),
            reset: InputPort::new("reset", RelayMessage::Reset),
            hops: ReplierPort::new("hops", RelayMessage::Hops),
        }
    }

    async fn token(&mut self, left: u64) {
        self.hops.bump();
        if left > 1 {
            self.next.send(left - 1).await;
        }
    }

    fn set_gain(&mut self, gain: u64) {
        self.gain = gain;
    }

    fn reset(&mut self) {
        self.gain = 0;
    }

    fn hops(&mut self) -> u64 {
        self.hops.local()
    }
}

impl Model for Relay {
    type Message = RelayMessage;

    async fn dispatch(&mut self, message: RelayMessage, _cx: &mut Context<Self>) {
        match message {
            RelayMessage::Token(left) => self.token(left).await,
            RelayMessage::SetGain(gain) => self.set_gain(gain),
            RelayMessage::Reset(()) => self.reset(),
            RelayMessage::Hops((), reply) => reply.send(self.hops()),
        }
    }

    fn metadata() -> ModelMetadata {
        const fn port(name: &'static str, kind: PortKind, payload: &'static str) -> PortMetadata {
            let reply = match kind {
                PortKind::Replier => Some("u64"),
                _ => None,
            };
            PortMetadata {
                name,
                kind,
                payload,
                reply,
                required: false,
            }
        }
        const INPUTS: &[PortMetadata] = &[
            port("token", PortKind::Input, "u64"),
            port("set_gain", PortKind::Input, "u64"),
            port("reset", PortKind::Input, "()"),
            port("hops", PortKind::Replier, "()"),
        ];
        const OUTPUTS: &[PortMetadata] = &[port("next", PortKind::Output, "u64")];
        ModelMetadata {
            type_name: "Relay",
            inputs: INPUTS,
            outputs: OUTPUTS,
        }
    }
}

/// Runs the ring of hand-written relays; returns hops counted and time.
pub fn run(models: usize, hops: u64, threads: usize) -> (u64, Duration) {
    let total = tally::total();
    let make = |next_mailbox: &Mailbox<Relay>| {
        let mut next = Output::new();
        next.connect(Relay::ports().token, next_mailbox);
        Relay {
            next,
            hops: Tally::new(&total),
            gain: 1,
        }
    };
    let elapsed = super::run_ring(models, hops, threads, make, Relay::ports().token);
    (tally::read(&total), elapsed)
}
