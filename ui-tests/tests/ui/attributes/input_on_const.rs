use causim::prelude::*;

#[model]
pub struct Model1;

#[model]
impl Model1 {
    #[input]
    pub const LIMIT: u32 = 3;
}

fn main() {}
