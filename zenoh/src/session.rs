//! The Zenoh transport: each process a Zenoh peer, reports published on
//! one key per process, liveliness tokens telling who is there.
//!
//! Keys, under a run prefix shared by the processes of one run:
//!
//! - `<prefix>/report/<process>`: a process's report of each round (a
//!   round number inside; reports of rounds not yet reached are kept);
//! - `<prefix>/alive/<process>`: a liveliness token, declared once the
//!   process subscribes to the reports.
//!
//! Before the first round, a process waits until it sees every other
//! process's token: since each declares its subscriber before its token,
//! and Zenoh keeps the order of declarations on a link, a report published
//! after that reaches everyone. A token that disappears means a process
//! that stopped or lost its connections (Zenoh closes the session's
//! links at once when a process dies, and expires its lease otherwise):
//! the waiting processes stop with an error naming it. A process that is
//! there but silent is reported after the round timeout.

use std::time::{Duration, Instant};

use zenoh::handlers::FifoChannelHandler;
use zenoh::liveliness::LivelinessToken;
use zenoh::pubsub::Subscriber;
use zenoh::qos::CongestionControl;
use zenoh::sample::{Sample, SampleKind};
use zenoh::{Config, Session, Wait};

use crate::transport::{Pending, Transport, TransportError};

/// How a process joins the others over Zenoh.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZenohSetup {
    /// The key prefix of the run: processes of one run share it, and
    /// several runs on one network differ by it.
    pub prefix: String,
    /// The number of processes.
    pub processes: usize,
    /// This process's index.
    pub index: usize,
    /// Endpoints this process listens on (`tcp/127.0.0.1:7447`).
    pub listen: Vec<String>,
    /// Endpoints of other processes to connect to.
    pub connect: Vec<String>,
    /// Multicast and gossip scouting (off: the endpoints are explicit).
    pub scouting: bool,
    /// How long to wait for every process at the start.
    pub join_timeout: Duration,
    /// How long a round may wait for a process's report.
    pub round_timeout: Duration,
}

impl ZenohSetup {
    /// Process `index` of `processes` in run `prefix`, with no endpoint
    /// yet, scouting off, 30 s to join and 60 s per round.
    pub fn new(prefix: impl Into<String>, processes: usize, index: usize) -> Self {
        ZenohSetup {
            prefix: prefix.into(),
            processes,
            index,
            listen: Vec::new(),
            connect: Vec::new(),
            scouting: false,
            join_timeout: Duration::from_secs(30),
            round_timeout: Duration::from_secs(60),
        }
    }

    /// The usual loopback mesh: process `i` listens on
    /// `tcp/127.0.0.1:<ports[i]>` and connects to every other's.
    /// (A process index past `ports` listens nowhere; `open` refuses it.)
    pub fn loopback_mesh(mut self, ports: &[u16]) -> Self {
        let endpoint = |port: &u16| format!("tcp/127.0.0.1:{port}");
        self.listen = ports.get(self.index).map(endpoint).into_iter().collect();
        self.connect = ports
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != self.index)
            .map(|(_, port)| endpoint(port))
            .collect();
        self
    }

    /// The Zenoh configuration: peer mode, the endpoints, scouting.
    fn config(&self) -> Result<Config, TransportError> {
        let mut config = Config::default();
        let json = |value: &[String]| serde_json_list(value);
        let set = |config: &mut Config, key: &str, value: String| {
            config
                .insert_json5(key, &value)
                .map_err(|error| other(&format!("Zenoh setting `{key}`: {error}")))
        };
        set(&mut config, "mode", "\"peer\"".to_owned())?;
        set(&mut config, "listen/endpoints", json(&self.listen))?;
        set(&mut config, "connect/endpoints", json(&self.connect))?;
        let scouting = self.scouting.to_string();
        set(&mut config, "scouting/multicast/enabled", scouting.clone())?;
        set(&mut config, "scouting/gossip/enabled", scouting)?;
        Ok(config)
    }
}

/// `["a","b"]`, each string quoted for JSON5 (`\\` and `"` escaped;
/// endpoints hold no other character that needs it).
fn serde_json_list(values: &[String]) -> String {
    let quoted: Vec<String> = values
        .iter()
        .map(|v| format!("\"{}\"", v.replace('\\', "\\\\").replace('"', "\\\"")))
        .collect();
    format!("[{}]", quoted.join(","))
}

/// Free TCP ports on the loopback interface, for a mesh of `n` processes
/// on one machine (bound, then released: another program could take one
/// before the processes listen on it, which `open` then reports).
pub fn free_loopback_ports(n: usize) -> std::io::Result<Vec<u16>> {
    let listeners = (0..n)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0"))
        .collect::<std::io::Result<Vec<_>>>()?;
    listeners
        .iter()
        .map(|listener| listener.local_addr().map(|address| address.port()))
        .collect()
}

/// An error of the transport itself.
fn other(what: &str) -> TransportError {
    TransportError::Other(what.to_owned())
}

/// Window reports over Zenoh (see the module documentation).
pub struct ZenohTransport {
    /// The session.
    session: Session,
    /// The reports of every process.
    reports: Subscriber<FifoChannelHandler<Sample>>,
    /// The liveliness of every process.
    alive: Subscriber<FifoChannelHandler<Sample>>,
    /// This process's token.
    _token: LivelinessToken,
    /// The setup.
    setup: ZenohSetup,
    /// Reports received early.
    pending: Pending,
    /// The processes whose token went away.
    gone: Vec<bool>,
}

impl std::fmt::Debug for ZenohTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZenohTransport")
            .field("setup", &self.setup)
            .finish_non_exhaustive()
    }
}

impl ZenohTransport {
    /// Opens a Zenoh session, subscribes, declares this process's token and
    /// waits until every other process has declared its own (at most
    /// `setup.join_timeout`).
    pub fn open(setup: ZenohSetup) -> Result<Self, TransportError> {
        if setup.index >= setup.processes {
            return Err(other(&format!(
                "process {} of {}: no such process",
                setup.index, setup.processes
            )));
        }
        let session = zenoh::open(setup.config()?)
            .wait()
            .map_err(|error| other(&format!("opening the Zenoh session: {error}")))?;
        let reports = session
            .declare_subscriber(format!("{}/report/*", setup.prefix))
            .wait()
            .map_err(|error| other(&format!("subscribing to the reports: {error}")))?;
        let alive = session
            .liveliness()
            .declare_subscriber(format!("{}/alive/*", setup.prefix))
            .history(true)
            .wait()
            .map_err(|error| other(&format!("subscribing to liveliness: {error}")))?;
        let token = session
            .liveliness()
            .declare_token(format!("{}/alive/{}", setup.prefix, setup.index))
            .wait()
            .map_err(|error| other(&format!("declaring liveliness: {error}")))?;
        let mut transport = ZenohTransport {
            session,
            reports,
            alive,
            _token: token,
            gone: vec![false; setup.processes],
            setup,
            pending: Pending::default(),
        };
        transport.join()?;
        Ok(transport)
    }

    /// Waits until every process's token is seen.
    fn join(&mut self) -> Result<(), TransportError> {
        let mut seen = vec![false; self.setup.processes];
        seen[self.setup.index] = true;
        let start = Instant::now();
        while let Some(missing) = seen.iter().position(|s| !s) {
            let left = self.setup.join_timeout.saturating_sub(start.elapsed());
            if left.is_zero() {
                return Err(TransportError::Timeout {
                    process: missing,
                    round: 0,
                    waited: self.setup.join_timeout,
                });
            }
            let sample = self
                .alive
                .recv_timeout(left.min(Duration::from_millis(100)))
                .map_err(|error| other(&format!("liveliness: {error}")))?;
            let Some(sample) = sample else { continue };
            let Some(process) = self.process_of(&sample) else {
                continue;
            };
            match sample.kind() {
                SampleKind::Put => seen[process] = true,
                SampleKind::Delete => return Err(TransportError::Lost(process)),
            }
        }
        Ok(())
    }

    /// The process whose key `sample` is under (`…/<index>`).
    fn process_of(&self, sample: &Sample) -> Option<usize> {
        let key = sample.key_expr().as_str();
        let index: usize = key.rsplit('/').next()?.parse().ok()?;
        (index < self.setup.processes).then_some(index)
    }

    /// Notes the processes whose token went away.
    fn note_departures(&mut self) -> Result<(), TransportError> {
        while let Some(sample) = self
            .alive
            .try_recv()
            .map_err(|error| other(&format!("liveliness: {error}")))?
        {
            if sample.kind() == SampleKind::Delete {
                if let Some(process) = self.process_of(&sample) {
                    self.gone[process] = true;
                }
            }
        }
        Ok(())
    }

    /// Keeps every report already received.
    fn drain_reports(&mut self, current: u64) -> Result<(), TransportError> {
        while let Some(sample) = self
            .reports
            .try_recv()
            .map_err(|error| other(&format!("receiving reports: {error}")))?
        {
            self.keep(&sample, current);
        }
        Ok(())
    }

    /// Keeps a received report for its round: another process's, of this
    /// round or a later one (Zenoh also hands a session its own
    /// publications, and a report of a round already complete is a copy
    /// that must not be kept for ever).
    fn keep(&mut self, sample: &Sample, current: u64) {
        let Some(from) = self.process_of(sample) else {
            return;
        };
        if from == self.setup.index {
            return;
        }
        let bytes = sample.payload().to_bytes().into_owned();
        // The round is the report's second field (postcard varints: the
        // plan digest, then the round).
        let Some(round) = report_round(&bytes).filter(|&round| round >= current) else {
            return;
        };
        self.pending
            .insert(self.setup.processes, round, from, bytes);
    }
}

/// The round of an encoded report, read without decoding the rest.
fn report_round(bytes: &[u8]) -> Option<u64> {
    let (_plan, rest) = postcard::take_from_bytes::<u64>(bytes).ok()?;
    let (round, _) = postcard::take_from_bytes::<u64>(rest).ok()?;
    Some(round)
}

impl Transport for ZenohTransport {
    fn processes(&self) -> usize {
        self.setup.processes
    }

    fn index(&self) -> usize {
        self.setup.index
    }

    fn exchange(&mut self, round: u64, report: Vec<u8>) -> Result<Vec<Vec<u8>>, TransportError> {
        let key = format!("{}/report/{}", self.setup.prefix, self.setup.index);
        self.session
            .put(key, report.clone())
            .congestion_control(CongestionControl::Block)
            .wait()
            .map_err(|error| other(&format!("publishing round {round}: {error}")))?;
        let processes = self.setup.processes;
        self.pending
            .insert(processes, round, self.setup.index, report);
        let start = Instant::now();
        loop {
            // Departures seen first, then the reports: a process that
            // reported and then left (at the end of a run) had its report
            // queued before its departure, so it is not lost for this
            // round (read the other way round, a report arriving between
            // the two reads would be missed and its sender called lost).
            self.note_departures()?;
            self.drain_reports(round)?;
            if let Some(all) = self.pending.complete(round) {
                return Ok(all);
            }
            if let Some(lost) =
                (0..processes).find(|&p| self.gone[p] && !self.pending.has(round, p))
            {
                return Err(TransportError::Lost(lost));
            }
            let left = self.setup.round_timeout.saturating_sub(start.elapsed());
            if left.is_zero() {
                return Err(TransportError::Timeout {
                    process: self.pending.first_missing(processes, round),
                    round,
                    waited: self.setup.round_timeout,
                });
            }
            let sample = self
                .reports
                .recv_timeout(left.min(Duration::from_millis(50)))
                .map_err(|error| other(&format!("receiving reports: {error}")))?;
            if let Some(sample) = sample {
                self.keep(&sample, round);
            }
        }
    }
}
