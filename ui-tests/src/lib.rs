//! trybuild cases of causim live in `tests/ui/`; see `tests/ui.rs`.
//!
//! This library holds the two models that the `connect/` cases wire up
//! wrongly, so that each case is only the faulty bench line and the
//! diagnostic shows models defined in another crate, as in a real bench.

use causim::prelude::*;

/// A thermostat: drives a heater, reads a temperature.
#[model]
pub struct Thermostat {
    /// Switches the heater.
    pub heater: Output<bool>,
    /// Reads the temperature.
    pub read_temp: Requestor<(), f64>,
}

impl Thermostat {
    /// A thermostat with nothing connected.
    pub fn new() -> Self {
        Thermostat {
            heater: Output::new(),
            read_temp: Requestor::new(),
        }
    }
}

impl Default for Thermostat {
    fn default() -> Self {
        Self::new()
    }
}

#[model]
impl Thermostat {
    /// Sets the setpoint.
    #[input]
    pub fn set_point(&mut self, _celsius: f64) {}

    /// Tells the setpoint.
    #[replier]
    pub fn setpoint(&mut self) -> f64 {
        21.0
    }

    /// A plain method, not a port.
    pub fn helper(&mut self, _celsius: f64) {}
}

/// A heater: switched on and off, tells its power draw at a voltage.
#[model]
#[derive(Debug)]
pub struct Heater;

#[model]
impl Heater {
    /// Switches the heater.
    #[input]
    pub fn switch(&mut self, _on: bool) {}

    /// Tells the current drawn at a voltage.
    #[replier]
    pub fn power(&mut self, _volts: u32) -> u32 {
        0
    }
}

/// A composite: two heaters switched together, of which it exposes the
/// switch and the first heater's power replier; the heaters themselves
/// stay private.
pub struct HeaterPair {
    first: Heater,
    first_mailbox: Mailbox<Heater>,
    second: Heater,
    second_mailbox: Mailbox<Heater>,
}

impl HeaterPair {
    /// Two heaters, not yet added.
    pub fn new() -> Self {
        HeaterPair {
            first: Heater,
            first_mailbox: Mailbox::new(),
            second: Heater,
            second_mailbox: Mailbox::new(),
        }
    }

    /// Exposed: switches the first heater.
    pub fn switch(&self) -> causim::ports::InputRef<Heater, bool> {
        causim::ports::InputRef::new(Heater::ports().switch, &self.first_mailbox)
    }

    /// Exposed: the first heater's power draw.
    pub fn power(&self) -> causim::ports::ReplierRef<Heater, u32, u32> {
        causim::ports::ReplierRef::new(Heater::ports().power, &self.first_mailbox)
    }
}

impl Default for HeaterPair {
    fn default() -> Self {
        Self::new()
    }
}

impl Composite for HeaterPair {
    fn build(self, cx: &mut BuildContext<'_>) {
        cx.add_model(self.first, self.first_mailbox, "first")
            .add_model(self.second, self.second_mailbox, "second");
    }
}
