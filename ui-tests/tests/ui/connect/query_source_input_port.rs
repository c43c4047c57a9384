use causim::prelude::*;
use causim_ui_tests::Heater;

fn main() {
    let heater = Mailbox::<Heater>::new();
    let mut source = QuerySource::<bool, u32>::new();
    // A query source needs a replier, not an input.
    source.connect(Heater::ports().switch, &heater);
}
