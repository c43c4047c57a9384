use causim::ports::ReplierRef;
use causim::prelude::*;
use causim_ui_tests::Heater;

pub struct Heating {
    heater: Heater,
    mailbox: Mailbox<Heater>,
}

impl Heating {
    /// Exposes the heater's `power` replier, which takes and answers
    /// `u32`, as one answering `f64`.
    pub fn power(&self) -> ReplierRef<Heater, u32, f64> {
        ReplierRef::new(Heater::ports().power, &self.mailbox)
    }
}

impl Composite for Heating {
    fn build(self, cx: &mut BuildContext<'_>) {
        cx.add_model(self.heater, self.mailbox, "heater");
    }
}

fn main() {}
