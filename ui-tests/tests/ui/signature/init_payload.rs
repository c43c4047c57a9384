use causim::prelude::*;

#[model]
pub struct Model1;

#[model]
impl Model1 {
    #[init]
    pub fn start(&mut self, _x: u32) {}
}

fn main() {}
