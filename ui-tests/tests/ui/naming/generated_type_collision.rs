use causim::prelude::*;

pub struct ThermostatPorts;

#[model]
pub struct Thermostat;

#[model]
impl Thermostat {
    #[input]
    pub fn set_point(&mut self, _celsius: f64) {}
}

fn main() {}
