use causim::prelude::*;
use causim_ui_tests::{Heater, Thermostat};

fn main() {
    let mut thermostat = Thermostat::new();
    let heater = Mailbox::<Heater>::new();
    // A requestor needs a replier, not an input.
    thermostat.read_temp.connect(Heater::ports().switch, &heater);
}
