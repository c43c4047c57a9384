use causim::prelude::*;

#[model]
pub struct Model1;

#[model]
impl Model1 {
    #[replier]
    pub fn get(&mut self) -> impl Iterator<Item = u32> {
        0..3
    }
}

fn main() {}
