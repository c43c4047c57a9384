use causim::prelude::*;

#[model]
pub struct Model1;

#[model]
impl Model1 {}

pub trait Named {
    fn name(&self) -> &str;
}

#[model]
impl Named for Model1 {
    fn name(&self) -> &str {
        "model"
    }
}

fn main() {}
