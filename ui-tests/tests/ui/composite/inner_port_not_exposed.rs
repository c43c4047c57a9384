use causim::prelude::*;
use causim_ui_tests::{Heater, HeaterPair};

fn main() {
    let pair = HeaterPair::new();
    let mut commands = EventSource::<bool>::new();
    // Only `switch` (the first heater's) is exposed; the second heater's
    // mailbox is private to the composite.
    commands.connect(Heater::ports().switch, &pair.second_mailbox);
}
