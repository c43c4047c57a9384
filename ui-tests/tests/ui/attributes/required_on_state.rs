use causim::prelude::*;

#[model]
pub struct Model1 {
    #[required]
    count: u64,
    #[required(always)]
    pub out: Output<u64>,
}

#[model]
impl Model1 {}

fn main() {}
