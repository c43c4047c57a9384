use causim::prelude::*;

#[model]
pub struct Lamp;

#[model]
impl Lamp {
    #[input]
    pub fn switch(&mut self, _on: bool) {}
}

#[model]
pub struct Timer;

#[model]
impl Timer {
    #[input]
    pub fn arm(&mut self, cx: &mut Context<Self>) {
        // A context schedules on its own model only.
        cx.schedule(Duration::from_secs(1), Lamp::ports().switch, true).unwrap();
    }
}

fn main() {}
