use causim::prelude::*;

#[model]
pub struct Model1;

#[model]
impl Model1 {
    #[replier]
    pub fn take(self, _x: u32) -> u32 {
        0
    }
}

fn main() {}
