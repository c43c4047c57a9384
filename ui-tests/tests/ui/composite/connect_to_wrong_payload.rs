use causim::prelude::*;
use causim_ui_tests::HeaterPair;

fn main() {
    let pair = HeaterPair::new();
    let mut commands = EventSource::<f64>::new();
    // The exposed switch takes `bool`, the source sends `f64`.
    commands.connect_to(&pair.switch());
}
