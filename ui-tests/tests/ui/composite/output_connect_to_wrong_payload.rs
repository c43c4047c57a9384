use causim::prelude::*;
use causim_ui_tests::HeaterPair;

fn main() {
    let pair = HeaterPair::new();
    // The exposed switch takes `bool`; this output sends `u32`.
    let mut level = Output::<u32>::new();
    level.connect_to(&pair.switch());
}
