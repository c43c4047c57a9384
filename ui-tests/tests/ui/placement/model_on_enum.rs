use causim::prelude::*;

#[model]
pub enum Mode {
    On,
    Off,
}

fn main() {}
