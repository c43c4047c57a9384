use causim::prelude::*;

use std::cell::Cell;
use std::rc::Rc;

#[model]
pub struct Model1;

#[model]
impl Model1 {
    #[replier]
    pub fn get(&mut self) -> Rc<Cell<u32>> {
        Rc::new(Cell::new(0))
    }
}

fn main() {}
