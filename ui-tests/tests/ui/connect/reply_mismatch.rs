use causim::prelude::*;

#[model]
pub struct Thermostat {
    pub heater: Output<bool>,
    pub read_temp: Requestor<(), f64>,
}

#[model]
impl Thermostat {
    #[input]
    pub fn set_point(&mut self, _celsius: f64) {}

    #[replier]
    pub fn setpoint(&mut self) -> f64 {
        21.0
    }

    pub fn helper(&mut self, _celsius: f64) {}
}

#[model]
pub struct Heater;

#[model]
impl Heater {
    #[input]
    pub fn switch(&mut self, _on: bool) {}

    #[replier]
    pub fn power(&mut self, _volts: u32) -> u32 {
        0
    }
}

fn main() {
    let mut requestor: Requestor<(), u32> = Requestor::new();
    let thermostat = Mailbox::<Thermostat>::new();
    // `setpoint` replies `f64`, the requestor expects `u32`.
    requestor.connect(Thermostat::ports().setpoint, &thermostat);
}
