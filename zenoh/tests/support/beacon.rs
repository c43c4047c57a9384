//! A beacon in space counting seconds over a downlink to a ground station.

use causim::prelude::*;
use causim::Requestor;

/// Sends its count every second; panics at the count given, if any.
#[model(save)]
pub struct Beacon {
    pub out: Output<u64>,
    pub ask: Requestor<(), u64>,
    count: u64,
    #[transient]
    pub panic_at: Option<u64>,
}

#[model(save)]
impl Beacon {
    #[init]
    fn start(&mut self, cx: &mut Context<Self>) {
        let second = Duration::from_secs(1);
        cx.schedule_periodic(second, second, Self::ports().tick, ())
            .expect("a positive period");
    }

    #[input]
    pub async fn tick(&mut self) {
        self.count += 1;
        assert_ne!(Some(self.count), self.panic_at, "the beacon broke");
        self.out.send(self.count).await;
    }
}

impl Beacon {
    pub fn new() -> Self {
        Beacon {
            out: Output::new(),
            ask: Requestor::new(),
            count: 0,
            panic_at: None,
        }
    }
}

/// Forwards what it hears, and says how much it heard.
#[model(save)]
pub struct Station {
    pub heard: Output<u64>,
    total: u64,
}

#[model(save)]
impl Station {
    #[input]
    pub async fn receive(&mut self, count: u64) {
        self.total += 1;
        self.heard.send(count).await;
    }

    #[replier]
    pub fn total(&mut self) -> u64 {
        self.total
    }
}

impl Station {
    pub fn new() -> Self {
        Station {
            heard: Output::new(),
            total: 0,
        }
    }
}
