use causim::prelude::*;

#[model]
pub struct Counter {
    count: u64,
}

#[model(save)]
impl Counter {
    #[input]
    pub fn add(&mut self, n: u64) {
        self.count += n;
    }
}

fn main() {}
