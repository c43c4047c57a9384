use causim::prelude::*;

#[model]
pub struct Model1;

#[model(message = Model1Msg, message = Model1Message2)]
impl Model1 {}

fn main() {}
