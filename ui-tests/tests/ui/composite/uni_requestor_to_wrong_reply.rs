use causim::ports::UniRequestor;
use causim_ui_tests::HeaterPair;

fn main() {
    let pair = HeaterPair::new();
    // The exposed replier answers `u32`; this requestor expects `bool`.
    let _probe = UniRequestor::<u32, bool>::to(&pair.power());
}
