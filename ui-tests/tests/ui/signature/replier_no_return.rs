use causim::prelude::*;

#[model]
pub struct Model1;

#[model]
impl Model1 {
    #[replier]
    pub fn get(&mut self, _x: u32) {}
}

fn main() {}
