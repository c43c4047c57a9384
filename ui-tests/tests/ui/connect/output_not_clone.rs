use causim::prelude::*;

pub struct Frame(Vec<u8>);

#[model]
pub struct Camera {
    // Fan-out clones each payload: it must be `Clone`.
    pub frames: Output<Frame>,
}

#[model]
impl Camera {}

fn main() {}
