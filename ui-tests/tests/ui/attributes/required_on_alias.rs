use causim::prelude::*;

/// An alias: `#[model]` reads syntax only, so it cannot see a port here.
pub type Power = Output<f64>;

#[model]
pub struct Heater {
    #[required]
    pub power: Power,
}

#[model]
impl Heater {}

fn main() {}
