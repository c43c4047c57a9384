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
    let mut thermostat = Thermostat { heater: Output::new(), read_temp: Requestor::new() };
    let heater = Mailbox::<Heater>::new();
    // A requestor needs a replier, not an input.
    thermostat.read_temp.connect(Heater::ports().switch, &heater);
}
