use causim::prelude::*;

#[model]
pub struct Unsaved {
    #[transient]
    cache: Vec<u8>,
}

#[model]
impl Unsaved {
    #[input]
    pub fn poke(&mut self) {}
}

#[model(save)]
pub struct Saved {
    #[transient]
    pub out: Output<u8>,
    #[transient(always)]
    cache: Vec<u8>,
}

#[model(save)]
impl Saved {
    #[input]
    pub fn poke(&mut self) {}
}

fn main() {}
