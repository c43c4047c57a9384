use causim::prelude::*;
use causim_ui_tests::{Heater, Thermostat};

fn main() {
    let mut thermostat = Thermostat::new();
    let not_the_heater = Mailbox::<Thermostat>::new();
    // The port is the heater's, the mailbox the thermostat's.
    thermostat.heater.connect(Heater::ports().switch, &not_the_heater);
}
