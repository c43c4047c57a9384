use causim::prelude::*;

#[model]
pub struct Model1;

#[model]
impl Model1 {
    #[input]
    pub fn set(&mut self, _name: &str) {}
}

fn main() {}
