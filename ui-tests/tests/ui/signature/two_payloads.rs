use causim::prelude::*;

#[model]
pub struct Model1;

#[model]
impl Model1 {
    #[input]
    pub fn set(&mut self, _x: u32, _y: u32) {}
}

fn main() {}
