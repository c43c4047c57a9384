use causim::prelude::*;

#[model]
pub struct Heater {
    // A typo of `#[required]`: reported once, with the fix.
    #[requried]
    pub power: Output<f64>,
}

#[model]
impl Heater {}

fn main() {}
