use causim::prelude::*;
use std::marker::PhantomData;

#[model]
pub struct Counter<T: 'static> {
    count: usize,
    item: PhantomData<fn() -> T>,
}

#[model]
impl<T: 'static> Counter<T> {
    // `T` may not be `Send`: it cannot travel in a message.
    #[input]
    pub fn push(&mut self, _item: T) {
        self.count += 1;
    }
}

fn main() {}
