use causim::prelude::*;
use causim_ui_tests::Thermostat;

fn main() {
    let mut thermostat = Thermostat::new();
    let other = Mailbox::<Thermostat>::new();
    // `heater` sends `bool`, `set_point` takes `f64`.
    thermostat.heater.connect(Thermostat::ports().set_point, &other);
}
