//! The ring on causim.

use std::time::Duration;

use causim::prelude::*;

use crate::measure::time;
use crate::workloads::tally::{self, Tally};

/// A model that passes the token to the next one.
#[model]
pub struct Link {
    next: Output<u64>,
    hops: Tally,
}

#[model]
impl Link {
    /// Counts the token and passes it on while it has hops left.
    #[input]
    pub async fn token(&mut self, left: u64) {
        self.hops.bump();
        if left > 1 {
            self.next.send(left - 1).await;
        }
    }
}

/// Builds the ring, passes the token `hops` times, and returns the hops
/// counted and the time of the step.
pub fn run(models: usize, hops: u64, threads: usize) -> (u64, Duration) {
    let total = tally::total();
    let mailboxes: Vec<Mailbox<Link>> = (0..models).map(|_| Mailbox::new()).collect();
    let first = mailboxes[0].address();
    let mut init = SimInit::new().with_threads(threads);
    let links: Vec<Link> = (0..models)
        .map(|i| {
            let mut next = Output::new();
            next.connect(Link::ports().token, &mailboxes[(i + 1) % models]);
            Link {
                next,
                hops: Tally::new(&total),
            }
        })
        .collect();
    for (i, (link, mailbox)) in links.into_iter().zip(mailboxes).enumerate() {
        init = init.add_model(link, mailbox, format!("link{i}"));
    }
    let mut simu = init.init(SimTime::ZERO).expect("ring init");
    simu.scheduler()
        .schedule(SimTime::from_secs(1), Link::ports().token, hops, &first)
        .expect("t1 is in the future");
    let (result, elapsed) = time(|| simu.step());
    result.expect("ring step");
    drop(simu);
    (tally::read(&total), elapsed)
}

/// Links per sector in the composite build.
const SECTOR: usize = 10;

/// A run of links in a row, added as one composite: it exposes its first
/// link's input and its last link's output. Its links are held in place
/// (an array, not a vector of its own), so building a sector allocates
/// nothing that is freed while the bench is built: see [`run_composite`].
struct Sector {
    /// The links and their mailboxes, in ring order.
    links: [(Link, Mailbox<Link>); SECTOR],
}

impl Sector {
    /// A sector of the next [`SECTOR`] mailboxes of `mailboxes`, each link
    /// connected to the next.
    fn new(
        mailboxes: &mut impl Iterator<Item = Mailbox<Link>>,
        total: &std::sync::Arc<std::sync::atomic::AtomicU64>,
    ) -> Self {
        let mailboxes: [Mailbox<Link>; SECTOR] =
            std::array::from_fn(|_| mailboxes.next().expect("whole sectors"));
        let links: [Link; SECTOR] = std::array::from_fn(|i| {
            let mut next = Output::new();
            if let Some(following) = mailboxes.get(i + 1) {
                next.connect(Link::ports().token, following);
            }
            Link {
                next,
                hops: Tally::new(total),
            }
        });
        let (mut links, mut mailboxes) = (links.into_iter(), mailboxes.into_iter());
        let links = std::array::from_fn(|_| {
            let pair = links.next().zip(mailboxes.next());
            pair.expect("as many links as mailboxes")
        });
        Sector { links }
    }

    /// Exposed: the first link's input.
    fn input(&self) -> causim::ports::InputRef<Link, u64> {
        causim::ports::InputRef::new(Link::ports().token, &self.links[0].1)
    }

    /// Exposed: the last link's output.
    fn out(&mut self) -> &mut Output<u64> {
        &mut self.links[SECTOR - 1].0.next
    }
}

impl Composite for Sector {
    fn build(self, cx: &mut BuildContext<'_>) {
        for (i, (link, mailbox)) in self.links.into_iter().enumerate() {
            cx.add_model(link, mailbox, format!("l{i}"));
        }
    }
}

/// The whole ring as one composite of sectors.
struct Ring {
    sectors: Vec<Sector>,
}

impl Composite for Ring {
    fn build(self, cx: &mut BuildContext<'_>) {
        for (i, sector) in self.sectors.into_iter().enumerate() {
            cx.add_composite(sector, format!("s{i}"));
        }
    }
}

/// [`run`], with the same ring built from composites: sectors of ten links
/// inside one ring composite (paths `ring/s12/l3`). The connections are
/// the same, so the hops must cost the same. The mailboxes are made first,
/// in ring order, as [`run`] makes them: on a ring too large for the
/// caches, the order in which a build allocates decides how well a hop's
/// memory is prefetched, and the comparison is about composites, not
/// about allocation order (see docs/benchmarks.md, "Composites").
pub fn run_composite(models: usize, hops: u64, threads: usize) -> (u64, Duration) {
    let total = tally::total();
    assert!(
        models.is_multiple_of(SECTOR),
        "whole sectors of {SECTOR} links"
    );
    let mut mailboxes = (0..models)
        .map(|_| Mailbox::new())
        .collect::<Vec<_>>()
        .into_iter();
    let sectors: Vec<Sector> = (0..models / SECTOR)
        .map(|_| Sector::new(&mut mailboxes, &total))
        .collect();
    let inputs: Vec<_> = sectors.iter().map(Sector::input).collect();
    let count = sectors.len();
    let mut sectors = sectors;
    for (i, sector) in sectors.iter_mut().enumerate() {
        sector.out().connect_to(&inputs[(i + 1) % count]);
    }
    let mut simu = SimInit::new()
        .with_threads(threads)
        .add_composite(Ring { sectors }, "ring")
        .init(SimTime::ZERO)
        .expect("ring init");
    simu.scheduler()
        .schedule_event(SimTime::from_secs(1), inputs[0].event(hops))
        .expect("t1 is in the future");
    let (result, elapsed) = time(|| simu.step());
    result.expect("ring step");
    drop(simu);
    (tally::read(&total), elapsed)
}
