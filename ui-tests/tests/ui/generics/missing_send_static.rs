use causim::prelude::*;

// `T` lacks `Send + 'static`: a model and its messages move between threads
// and live as long as the bench.
#[model]
pub struct MovingAverage<T> {
    pub average: Output<T>,
    window: Vec<T>,
}

#[model]
impl<T> MovingAverage<T> {
    #[input]
    pub fn sample(&mut self, value: T) {
        self.window.push(value);
    }
}

fn main() {}
