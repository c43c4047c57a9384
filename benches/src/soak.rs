//! The soak bench: a long run whose memory must stay flat.
//!
//! A ring of models, each with a periodic tick (its phase staggered), that
//! on every tick
//!
//! - sends a message to the next model of the ring;
//! - re-arms a keyed watchdog far in the future (cancels the previous one
//!   and schedules a new one): the cancel-heavy pattern whose cancelled
//!   events the queue must reclaim;
//! - schedules a short keyed blip, cancelled again on every other tick, so
//!   that some keyed events fire and some are cancelled before they do.
//!
//! Every input counts one event, per model (no shared counter between
//! threads). The `soak` binary runs it for a long time, sampling resident
//! memory; `tests/soak.rs` runs a small version and checks that the
//! queue stays bounded.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use causim::prelude::*;

/// The tick period of every model.
pub const PERIOD: Duration = Duration::from_micros(10);
/// How far ahead the watchdog is armed (never reached: re-armed first).
pub const WATCHDOG: Duration = Duration::from_secs(1);
/// How long after a tick its blip fires, unless cancelled.
pub const BLIP: Duration = Duration::from_micros(3);

/// One model of the soak ring.
#[model]
pub struct Soaker {
    /// The next model of the ring.
    pub next: Output<u64>,
    /// This model's ticks so far.
    ticks: u64,
    /// The armed watchdog.
    watchdog: Option<EventKey>,
    /// The events this model handled (read by the bench).
    events: Arc<AtomicU64>,
}

#[model]
impl Soaker {
    /// A model counting its events into `events`.
    pub fn new(events: Arc<AtomicU64>) -> Self {
        Soaker {
            next: Output::new(),
            ticks: 0,
            watchdog: None,
            events,
        }
    }

    /// Counts one event.
    fn count(&self) {
        // Only this model writes its counter: a load and a store, no
        // read-modify-write.
        let events = self.events.load(Ordering::Relaxed);
        self.events.store(events + 1, Ordering::Relaxed);
    }

    /// The periodic tick: message, watchdog re-armed, blip.
    #[input]
    pub async fn tick(&mut self, cx: &mut Context<Self>) {
        self.count();
        self.ticks += 1;
        self.next.send(self.ticks).await;
        if let Some(old) = self.watchdog.take() {
            old.cancel();
        }
        let watchdog = cx.schedule_keyed(WATCHDOG, Self::ports().watchdog, ());
        self.watchdog = Some(watchdog.expect("a positive delay"));
        let blip = cx.schedule_keyed(BLIP, Self::ports().blip, ());
        let blip = blip.expect("a positive delay");
        if self.ticks.is_multiple_of(2) {
            blip.cancel();
        }
    }

    /// A message from the previous model of the ring.
    #[input]
    pub fn message(&mut self, _n: u64) {
        self.count();
    }

    /// The watchdog fired: it was not re-armed in time (never in this
    /// bench, but counted if it happens).
    #[input]
    pub fn watchdog(&mut self) {
        self.count();
    }

    /// A blip that was not cancelled.
    #[input]
    pub fn blip(&mut self) {
        self.count();
    }
}

/// A built soak bench.
pub struct Soak {
    /// The simulation.
    pub simu: Simulation,
    /// Each model's event counter.
    counters: Vec<Arc<AtomicU64>>,
}

impl Soak {
    /// A ring of `models` soakers on `threads` threads, ticks scheduled.
    pub fn new(models: usize, threads: usize) -> Result<Soak, SimulationError> {
        let counters: Vec<_> = (0..models).map(|_| Arc::new(AtomicU64::new(0))).collect();
        let mailboxes: Vec<Mailbox<Soaker>> = (0..models).map(|_| Mailbox::new()).collect();
        let addresses: Vec<_> = mailboxes.iter().map(Mailbox::address).collect();
        let mut init = SimInit::new().with_threads(threads);
        for (i, mailbox) in mailboxes.into_iter().enumerate() {
            let mut soaker = Soaker::new(counters[i].clone());
            let next = &addresses[(i + 1) % models];
            soaker.next.connect(Soaker::ports().message, next);
            init = init.add_model(soaker, mailbox, format!("soaker{i}"));
        }
        let simu = init.init(SimTime::ZERO)?;
        let scheduler = simu.scheduler();
        for (i, address) in addresses.iter().enumerate() {
            // Ten models per phase, the phases spread over one period.
            let phase = Duration::from_nanos(1 + (i as u64 / 10 * 97) % PERIOD.as_nanos() as u64);
            scheduler.schedule_periodic(phase, PERIOD, Soaker::ports().tick, (), address)?;
        }
        Ok(Soak { simu, counters })
    }

    /// The events handled so far, all models.
    pub fn events(&self) -> u64 {
        self.counters
            .iter()
            .map(|c| c.load(Ordering::Relaxed))
            .sum()
    }

    /// Runs one more period of simulated time.
    pub fn run_periods(&mut self, periods: u32) -> Result<(), SimulationError> {
        self.simu.step_by(PERIOD * periods)
    }
}

/// The resident memory of this process, in bytes (`VmRSS` of
/// `/proc/self/status`, the resident pages of `/proc/self/statm` in
/// bytes), or `None` where that file is unavailable.
pub fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
