use causim::prelude::*;

use std::rc::Rc;

#[model]
pub struct Model1;

#[model]
impl Model1 {
    #[input]
    pub fn set(&mut self, _x: Rc<u32>) {}
}

fn main() {}
