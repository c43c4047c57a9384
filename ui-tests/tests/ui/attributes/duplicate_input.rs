use causim::prelude::*;

#[model]
pub struct Model1;

#[model]
impl Model1 {
    #[input]
    #[input]
    pub fn set(&mut self, _x: u32) {}
}

fn main() {}
