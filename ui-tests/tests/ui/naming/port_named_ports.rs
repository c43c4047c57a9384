use causim::prelude::*;

#[model]
pub struct Model1;

#[model]
impl Model1 {
    #[input]
    pub fn ports(&mut self, _x: u32) {}
}

fn main() {}
