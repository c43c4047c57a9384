use causim::prelude::*;
use causim_ui_tests::Heater;

pub struct Heating {
    heater: Heater,
    mailbox: Mailbox<Heater>,
}

impl Composite for Heating {
    fn build(self, cx: &mut BuildContext<'_>) {
        cx.add_model(self.heater, self.mailbox, "heater");
        // A submodel is moved into the bench: it cannot be added twice.
        cx.add_model(self.heater, self.mailbox, "heater_again");
    }
}

fn main() {}
