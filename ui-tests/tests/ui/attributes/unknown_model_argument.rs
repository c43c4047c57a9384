use causim::prelude::*;

#[model(name = "thermostat")]
pub struct Model1;

#[model(ports = Model1Inputs, dispatch = fast)]
impl Model1 {}

fn main() {}
