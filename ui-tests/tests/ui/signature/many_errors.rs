use causim::prelude::*;

#[model]
pub struct Model1;

#[model]
impl Model1 {
    // Every mistake is reported in one compile.
    #[input]
    pub fn a(&self) {}

    #[input]
    pub fn b(&mut self, _x: u32, _y: u32) {}

    #[replier]
    pub fn c(&mut self) {}

    #[input]
    pub fn d(&mut self, _x: &str) {}

    // The valid port is still generated: using it is not an error.
    #[input]
    pub fn fine(&mut self, _x: u32) {}
}

fn use_it() {
    let _ = Model1::ports().fine;
}

fn main() {}
