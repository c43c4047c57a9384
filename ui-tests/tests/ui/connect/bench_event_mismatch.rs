use causim::prelude::*;
use causim_ui_tests::Thermostat;

fn main() {
    let mailbox = Mailbox::<Thermostat>::new();
    let address = mailbox.address();
    let mut simu = SimInit::new()
        .add_model(Thermostat::new(), mailbox, "t")
        .init(SimTime::ZERO)
        .unwrap();
    // `set_point` takes `f64`, not a string.
    simu.process_event(Thermostat::ports().set_point, "21", &address).unwrap();
}
