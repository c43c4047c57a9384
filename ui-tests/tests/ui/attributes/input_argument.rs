use causim::prelude::*;

#[model]
pub struct Model1;

#[model]
impl Model1 {
    #[input(name = "set_point")]
    pub fn set(&mut self, _x: u32) {}

    #[replier(async)]
    pub fn get(&mut self) -> u32 {
        0
    }
}

fn main() {}
