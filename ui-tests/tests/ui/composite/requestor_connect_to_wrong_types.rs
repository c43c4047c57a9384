use causim::prelude::*;
use causim_ui_tests::HeaterPair;

fn main() {
    let pair = HeaterPair::new();
    // The exposed replier takes `u32` and answers `u32`.
    let mut ask = Requestor::<f64, u32>::new();
    ask.connect_to(&pair.power());
}
