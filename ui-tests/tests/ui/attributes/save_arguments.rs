use causim::prelude::*;

#[model(save(version = 0))]
pub struct Zero {
    n: u8,
}

#[model(save)]
impl Zero {
    #[input]
    pub fn poke(&mut self) {}
}

#[model(save(format = 2))]
pub struct Unknown {
    n: u8,
}

#[model(save)]
impl Unknown {
    #[input]
    pub fn poke(&mut self) {}
}

#[model(save)]
pub struct OnImpl {
    n: u8,
}

#[model(save(version = 2))]
impl OnImpl {
    #[input]
    pub fn poke(&mut self) {}
}

fn main() {}
