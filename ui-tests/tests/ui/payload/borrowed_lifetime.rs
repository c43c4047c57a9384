use causim::prelude::*;

#[model]
pub struct Model1;

#[model]
impl Model1 {
    #[input]
    pub fn set(&mut self, _names: Vec<&'static str>, ) {}

    #[replier]
    pub fn get(&mut self, _names: Vec<&str>) -> u32 {
        0
    }
}

fn main() {}
