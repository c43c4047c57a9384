use causim::prelude::*;

/// Not serialisable.
pub struct Handle(u32);

#[model(save)]
pub struct Logger {
    lines: u64,
    file: Handle,
}

#[model(save)]
impl Logger {
    #[input]
    pub fn log(&mut self, _line: String) {
        self.lines += 1;
    }
}

fn main() {}
