use causim::prelude::*;
use causim_ui_tests::{Heater, Thermostat};

fn main() {
    let mut thermostat = Thermostat::new();
    let heater = Mailbox::<Heater>::new();
    // `read_temp` sends `()`, `power` takes `u32`.
    thermostat.read_temp.connect(Heater::ports().power, &heater);
}
