use causim::ports::InputRef;
use causim::prelude::*;
use causim_ui_tests::Heater;

pub struct Heating {
    heater: Heater,
    mailbox: Mailbox<Heater>,
}

impl Heating {
    /// Exposes the heater's switch.
    pub fn switch(&self) -> InputRef<Heater, bool> {
        InputRef::new(Heater::ports().switch, &self.mailbox)
    }

    /// Exposes it again under the same name.
    pub fn switch(&self) -> InputRef<Heater, bool> {
        InputRef::new(Heater::ports().switch, &self.mailbox)
    }
}

impl Composite for Heating {
    fn build(self, cx: &mut BuildContext<'_>) {
        cx.add_model(self.heater, self.mailbox, "heater");
    }
}

fn main() {}
