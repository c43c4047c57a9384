use causim::ports::InputRef;
use causim::prelude::*;
use causim_ui_tests::Heater;

pub struct Heating {
    heater: Heater,
    mailbox: Mailbox<Heater>,
}

impl Heating {
    /// Exposes the heater's switch, which takes `bool`, as an input of `f64`.
    pub fn switch(&self) -> InputRef<Heater, f64> {
        InputRef::new(Heater::ports().switch, &self.mailbox)
    }
}

impl Composite for Heating {
    fn build(self, cx: &mut BuildContext<'_>) {
        cx.add_model(self.heater, self.mailbox, "heater");
    }
}

fn main() {}
