use causim::prelude::*;

// `T` lacks `Clone`, which `Output::send` needs (an output may fan out).
#[model]
pub struct Repeater<T: Send + 'static> {
    pub out: Output<T>,
}

#[model]
impl<T: Send + 'static> Repeater<T> {
    #[input]
    pub async fn repeat(&mut self, value: T) {
        self.out.send(value).await;
    }
}

fn main() {}
