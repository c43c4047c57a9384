use causim::prelude::*;

#[model]
pub struct Thermostat {
    pub heater: Output<bool>,
}

impl Thermostat {
    pub fn set_point(&mut self, _celsius: f64) {}
}

fn main() {}
