use causim::prelude::*;
use causim_ui_tests::Thermostat;

fn main() {
    let mut source: EventSource<f64> = EventSource::new();
    let thermostat = Mailbox::<Thermostat>::new();
    // Only inputs and repliers have a descriptor.
    source.connect(Thermostat::ports().helper, &thermostat);
}
