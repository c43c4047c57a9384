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
    let mailbox = Mailbox::<Thermostat>::new();
    let address = mailbox.address();
    let mut simu = SimInit::new()
        .add_model(Thermostat { heater: Output::new(), read_temp: Requestor::new() }, mailbox, "t")
        .init(SimTime::ZERO)
        .unwrap();
    // `set_point` takes `f64`, not a string.
    simu.process_event(Thermostat::ports().set_point, "21", &address).unwrap();
}
