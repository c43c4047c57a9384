use causim::prelude::*;

pub struct Thermostat {
    setpoint: f64,
}

#[model]
impl Thermostat {
    #[input]
    pub fn set_point(&mut self, celsius: f64) {
        self.setpoint = celsius;
    }
}

fn main() {}
