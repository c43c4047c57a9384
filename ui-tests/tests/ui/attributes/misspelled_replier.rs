use causim::prelude::*;

#[model]
pub struct Sensor;

#[model]
impl Sensor {
    // A typo of `#[replier]`: reported once, with the fix; the port is
    // still generated, so `main` below reports nothing more.
    #[repiler]
    pub fn temperature(&mut self) -> f64 {
        20.0
    }

    #[Input]
    pub fn calibrate(&mut self, _offset: f64) {}
}

fn main() {
    let _ = Sensor::ports().temperature;
    let _ = Sensor::ports().calibrate;
}
