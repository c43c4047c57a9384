use causim::prelude::*;

#[model(save)]
pub struct Counter {
    count: u64,
}

#[model]
impl Counter {
    #[input]
    pub fn add(&mut self, n: u64) {
        self.count += n;
    }
}

fn main() {}
