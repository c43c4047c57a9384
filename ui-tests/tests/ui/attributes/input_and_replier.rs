use causim::prelude::*;

#[model]
pub struct Model1;

#[model]
impl Model1 {
    #[input]
    #[replier]
    pub fn set(&mut self, x: u32) -> u32 {
        x
    }
}

fn main() {}
