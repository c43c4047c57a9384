use causim::prelude::*;

#[model]
pub struct Model1;

#[model]
impl Model1 {
    #[input]
    pub fn set_point(&mut self, _x: u32) {}

    #[input]
    #[allow(non_snake_case)]
    pub fn setPoint(&mut self, _x: u32) {}
}

fn main() {}
