use causim::prelude::*;
use causim_ui_tests::HeaterPair;

fn main() {
    let pair = HeaterPair::new();
    let mut query = QuerySource::<u32, f64>::new();
    // The exposed replier answers `u32`, the source expects `f64`.
    query.connect_to(&pair.power());
}
