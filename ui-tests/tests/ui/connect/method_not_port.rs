use causim::prelude::*;
use causim_ui_tests::Thermostat;

fn main() {
    let mut source: EventSource<f64> = EventSource::new();
    let thermostat = Mailbox::<Thermostat>::new();
    // `helper` is a plain method, not a port.
    source.connect(Thermostat::helper, &thermostat);
}
