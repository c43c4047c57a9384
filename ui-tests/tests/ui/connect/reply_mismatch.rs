use causim::prelude::*;
use causim_ui_tests::Thermostat;

fn main() {
    let mut requestor: Requestor<(), u32> = Requestor::new();
    let thermostat = Mailbox::<Thermostat>::new();
    // `setpoint` replies `f64`, the requestor expects `u32`.
    requestor.connect(Thermostat::ports().setpoint, &thermostat);
}
