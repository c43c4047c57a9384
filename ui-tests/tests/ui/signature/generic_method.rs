use causim::prelude::*;

#[model]
pub struct Model1;

#[model]
impl Model1 {
    #[input]
    pub fn set<T: Send + 'static>(&mut self, _x: T) {}
}

fn main() {}
