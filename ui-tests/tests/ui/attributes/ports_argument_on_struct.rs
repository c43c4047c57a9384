use causim::prelude::*;

#[model(ports = Model1Inputs)]
pub struct Model1;

#[model]
impl Model1 {}

fn main() {}
