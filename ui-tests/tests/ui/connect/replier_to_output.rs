use causim::prelude::*;
use causim_ui_tests::{Heater, Thermostat};

fn main() {
    let mut thermostat = Thermostat::new();
    let heater = Mailbox::<Heater>::new();
    // An output sends events: it needs an input, not a replier.
    thermostat.heater.connect(Heater::ports().power, &heater);
}
