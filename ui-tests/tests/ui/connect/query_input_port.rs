use causim::prelude::*;
use causim_ui_tests::Heater;

fn main() -> Result<(), SimulationError> {
    let mailbox = Mailbox::new();
    let address = mailbox.address();
    let mut simu = SimInit::new().add_model(Heater, mailbox, "heater").init(SimTime::ZERO)?;
    // A query needs a replier, not an input; there is no requestor here.
    let _reply = simu.process_query(Heater::ports().switch, true, &address)?;
    Ok(())
}
