//! A composite from another crate, connected through its exposed ports.
use causim::prelude::*;
use causim_ui_tests::HeaterPair;

fn main() {
    let pair = HeaterPair::new();
    let mut commands = EventSource::<bool>::new();
    commands.connect_to(&pair.switch());
    let mut powers = QuerySource::<u32, u32>::new();
    powers.connect_to(&pair.power());
    let mut simu = SimInit::new()
        .with_threads(1)
        .add_composite(pair, "heating")
        .init(SimTime::ZERO)
        .unwrap();
    simu.process(commands.event(true)).unwrap();
    assert_eq!(simu.process_query_from(&mut powers, 28).unwrap(), vec![0]);
}
