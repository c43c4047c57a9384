use causim::prelude::*;

pub struct Plain;

impl Plain {
    #[input]
    pub fn set(&mut self, _x: u32) {}

    #[replier]
    pub fn get(&mut self) -> u32 {
        0
    }
}

fn main() {}
