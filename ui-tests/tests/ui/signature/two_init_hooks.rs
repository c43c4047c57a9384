use causim::prelude::*;

#[model]
pub struct Model1;

#[model]
impl Model1 {
    #[init]
    fn start(&mut self) {}

    #[init]
    fn start_again(&mut self) {}
}

fn main() {}
