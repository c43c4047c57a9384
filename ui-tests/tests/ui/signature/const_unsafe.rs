use causim::prelude::*;

#[model]
pub struct Model1;

#[model]
impl Model1 {
    #[input]
    pub const fn set(&mut self) {}

    #[input]
    pub unsafe fn poke(&mut self) {}
}

fn main() {}
