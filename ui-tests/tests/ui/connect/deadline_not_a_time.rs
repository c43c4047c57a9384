use causim::prelude::*;

#[model]
pub struct Timer;

#[model]
impl Timer {
    #[input]
    pub fn arm(&mut self, cx: &mut Context<Self>) {
        // A deadline is a `SimTime` or a `Duration`, not seconds as a float.
        cx.schedule(1.5, Self::ports().ring, ()).unwrap();
    }

    #[input]
    pub fn ring(&mut self) {}
}

fn main() {
    let mailbox = Mailbox::<Timer>::new();
    let address = mailbox.address();
    let simu = SimInit::new()
        .add_model(Timer, mailbox, "timer")
        .init(SimTime::ZERO)
        .unwrap();
    // Nor from the bench.
    simu.scheduler()
        .schedule(2.0_f64, Timer::ports().arm, (), &address)
        .unwrap();
}
