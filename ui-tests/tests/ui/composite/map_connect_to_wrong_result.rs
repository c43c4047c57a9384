use causim::prelude::*;
use causim_ui_tests::HeaterPair;

fn main() {
    let pair = HeaterPair::new();
    let mut temperature = Output::<f64>::new();
    // The exposed switch takes `bool`; the map makes an `f64`.
    temperature.map_connect_to(|celsius| celsius * 2.0, &pair.switch());
}
