use causim::prelude::*;

#[model]
pub struct Model1;

#[model(message = Model1Api, ports = Model1Api)]
impl Model1 {}

fn main() {}
