//! Save and restore (feature `save`).

use causim::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Mode {
    Idle,
    Busy(u32),
}

#[model(save)]
pub struct Counter {
    pub total: Output<u64>,
    count: u64,
    mode: Mode,
    timeout: Option<EventKey>,
    #[transient]
    label: String,
}

#[model(save)]
impl Counter {
    #[init]
    fn start(&mut self, cx: &mut Context<Self>) {
        cx.schedule_periodic(Duration::from_secs(1), Duration::from_secs(1), Self::ports().tick, 1)
            .unwrap();
    }

    #[input]
    pub async fn tick(&mut self, n: u64, cx: &mut Context<Self>) {
        self.count += n;
        self.mode = Mode::Busy(self.count as u32);
        if self.count % 3 == 0 {
            self.timeout = Some(
                cx.schedule_keyed(Duration::from_millis(2500), Self::ports().expire, ())
                    .unwrap(),
            );
        } else if let Some(key) = self.timeout.take() {
            key.cancel();
        }
        self.total.send(self.count).await;
    }

    #[input]
    pub async fn expire(&mut self) {
        self.total.send(1_000_000 + self.count).await;
    }

    #[replier]
    pub fn read(&mut self) -> u64 {
        self.count
    }

    #[replier]
    pub fn label(&mut self) -> String {
        self.label.clone()
    }
}

fn bench(threads: usize, label: &str) -> (SimInit, EventQueue<u64>, Address<Counter>) {
    let mut counter = Counter {
        total: Output::new(),
        count: 0,
        mode: Mode::Idle,
        timeout: None,
        label: label.to_string(),
    };
    let totals = EventQueue::new();
    counter.total.connect_sink(&totals);
    let mailbox = Mailbox::new();
    let address = mailbox.address();
    let init = SimInit::new()
        .with_threads(threads)
        .add_model(counter, mailbox, "counter");
    (init, totals, address)
}

#[test]
fn a_restored_bench_continues_where_the_saved_one_was() {
    let (init, totals, _) = bench(1, "a");
    let mut whole = init.init(SimTime::ZERO).unwrap();
    whole.step_until(SimTime::from_secs(20)).unwrap();
    let expected = totals.take_all();

    let (init, totals, _) = bench(1, "a");
    let mut first = init.init(SimTime::ZERO).unwrap();
    first.step_until(SimTime::from_secs(7)).unwrap();
    let mut before = totals.take_all();
    let mut snapshot = Vec::new();
    first.save(&mut snapshot).unwrap();

    let (init, totals, address) = bench(1, "b");
    let mut second = init.restore(snapshot.as_slice()).unwrap();
    assert_eq!(second.time(), SimTime::from_secs(7));
    assert_eq!(second.process_query(Counter::ports().read, (), &address).unwrap(), 7);
    assert_eq!(second.process_query(Counter::ports().label, (), &address).unwrap(), "b");
    second.step_until(SimTime::from_secs(20)).unwrap();
    before.extend(totals.take_all());
    assert_eq!(before, expected);
}
