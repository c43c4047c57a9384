//! causim benches partitioned over processes and machines, with the same
//! results as one process.
//!
//! A constellation or a large power network outgrows one machine. This
//! crate splits a bench into **partitions**, each hosted by a process,
//! joined by **links**: typed, one-way connections from outputs of one
//! partition to inputs of another, each declared with a **lookahead**, the
//! delay of every message crossing it. Model code is unchanged.
//!
//! # Design
//!
//! - **Conservative windows.** The processes run in rounds. Each round,
//!   every process reports its next event time and the link messages it
//!   sent; all compute the same window end `W` (the earliest next event,
//!   message arrival included, plus the sending side's smallest
//!   lookahead), run every event before `W`, and exchange again. The
//!   exchange is the barrier.
//! - **Identical results in every deployment.** A link message is
//!   scheduled on its receiving input as a bench event at its arrival time,
//!   and messages arriving at one time are scheduled in the order of
//!   (sending time, link, link sequence), all fixed by the sender. Windows
//!   cut sending times into consecutive spans, so this order does not
//!   depend on them: all partitions in one process
//!   ([`Deployment::single`]) or each in its own, on any number of threads
//!   (the runner sets the kernel's deterministic message order), schedule
//!   the same events in the same same-time order. Outputs are bit for bit
//!   the same.
//! - **No immediate crossing.** A link needs a positive lookahead, and a
//!   connection made directly between two partitions' models (an event
//!   needing immediate delivery, a request needing an immediate reply) is
//!   refused when the bench is hosted, naming the ports
//!   ([`PartitionError::NoLookahead`],
//!   [`PartitionError::CrossingConnection`]).
//! - **An existing transport.** Reports travel over Zenoh
//!   ([`ZenohTransport`]: peer mode, explicit TCP endpoints, scouting
//!   optional), payloads with serde and postcard. Zenoh's liveliness tokens
//!   tell when a process is gone; a silent one is reported after a
//!   timeout; a process whose simulation fails tells the others. Nothing
//!   hangs. [`InMemory`] runs the same protocol between threads.
//! - **Coordinated snapshots.** At the same point, every process saves its
//!   own snapshot ([`PartitionRunner::save`]): messages in flight are
//!   exchanged first and saved as the pending events they became;
//!   [`Hosted::restore`] resumes each process from its own.
//!
//! # Example
//!
//! ```
//! use causim::prelude::*;
//! use causim_zenoh::{Deployment, PartitionedBench, Solo};
//!
//! /// Sends its count every second.
//! #[model(save)]
//! pub struct Beacon {
//!     pub out: Output<u64>,
//!     count: u64,
//! }
//!
//! #[model(save)]
//! impl Beacon {
//!     #[init]
//!     fn start(&mut self, cx: &mut Context<Self>) {
//!         cx.schedule_periodic(Duration::from_secs(1), Duration::from_secs(1), Self::ports().tick, ())
//!             .unwrap();
//!     }
//!
//!     #[input]
//!     pub async fn tick(&mut self) {
//!         self.count += 1;
//!         self.out.send(self.count).await;
//!     }
//! }
//!
//! /// Keeps what it receives.
//! #[model(save)]
//! pub struct Station {
//!     pub heard: Output<u64>,
//! }
//!
//! #[model(save)]
//! impl Station {
//!     #[input]
//!     pub async fn receive(&mut self, count: u64) {
//!         self.heard.send(count).await;
//!     }
//! }
//!
//! let heard = EventQueue::new();
//! let mut bench = PartitionedBench::new();
//! let downlink = bench.link::<u64>("downlink", "space", "ground", Duration::from_millis(5));
//! bench.partition("space", move |p| {
//!     let mut beacon = Beacon { out: Output::new(), count: 0 };
//!     p.link_from(downlink, &mut beacon.out);
//!     p.add_model(beacon, Mailbox::new(), "beacon");
//! });
//! let sink = heard.clone();
//! bench.partition("ground", move |p| {
//!     let mut station = Station { heard: Output::new() };
//!     station.heard.connect_sink(&sink);
//!     let mailbox = Mailbox::new();
//!     p.link_to(downlink, Station::ports().receive, &mailbox);
//!     p.add_model(station, mailbox, "station");
//! });
//!
//! // Every partition in this process; `Deployment::new([["space"], ["ground"]])`
//! // with a `ZenohTransport` per process runs the same bench over two.
//! let mut runner = bench.host(&Deployment::single(), 0)?.init(SimTime::ZERO, Solo)?;
//! // The count sent at 3 s arrives at 3.005 s.
//! runner.run_until(SimTime::from_millis(3_004))?;
//! assert_eq!(heard.take_all(), vec![1, 2]);
//! runner.run_until(SimTime::from_millis(3_005))?;
//! assert_eq!(heard.take_all(), vec![3]);
//! # Ok::<(), causim_zenoh::PartitionError>(())
//! ```

mod bench;
mod builder;
mod error;
mod header;
mod host;
mod link;
mod plan;
mod runner;
mod session;
mod transport;
mod window;

pub use bench::PartitionedBench;
pub use builder::PartitionBuilder;
pub use error::PartitionError;
pub use host::Hosted;
pub use link::{Link, LinkCapture};
pub use plan::Deployment;
pub use runner::{PartitionRunner, WindowStats};
pub use session::{free_loopback_ports, ZenohSetup, ZenohTransport};
pub use transport::{InMemory, Solo, Transport, TransportError};

/// The user documentation's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/partitions.md")]
struct PartitionsDoc;
