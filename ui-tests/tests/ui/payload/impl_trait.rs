use causim::prelude::*;

#[model]
pub struct Model1;

#[model]
impl Model1 {
    #[input]
    pub fn set(&mut self, _x: impl Into<u32>) {}
}

fn main() {}
