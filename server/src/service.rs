//! The gRPC service: each call of `proto/causim.proto`, on one bench.

use std::sync::Arc;
use std::time::Duration;

use causim::{SimTime, SimulationError};
use tokio::sync::{broadcast, mpsc};
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use crate::driver::{Driver, Length, Published};
use crate::endpoints::{EventEndpoint, SinkBuffer, SinkValue};
use crate::proto::simulator_server::Simulator;
use crate::proto::{self, deadline::When, EndpointKind};
use crate::status;

/// How many messages wait for a slow subscriber's connection before the
/// subscription reads no more from the sink (then it may lag).
const SUBSCRIPTION_WINDOW: usize = 64;

/// Most values in one message of a subscription.
const BATCH: usize = 1024;

/// The service of one bench.
pub(crate) struct Service {
    /// The simulation's thread.
    driver: Driver,
    /// The JSON Schema of the bench's configuration.
    config_schema: String,
}

impl Service {
    /// Asks the call in progress, if any, to stop after its current time
    /// step (the server is shutting down).
    pub(crate) fn halt(&self) -> bool {
        self.driver.halt()
    }

    /// The service of `driver`'s bench, configured by `config_schema`.
    pub(crate) fn new(driver: Driver, config_schema: String) -> Self {
        Service {
            driver,
            config_schema,
        }
    }

    /// Builds the bench of `config` (JSON text; empty: the defaults).
    pub(crate) async fn init(&self, config: String) -> Result<SimTime, Status> {
        self.driver
            .call("init", Length::Long, move |local| {
                let bench = local.init(&config)?;
                Ok(bench.simulation.time())
            })
            .await
    }
}

impl Published {
    /// Event endpoint `name`.
    fn event(&self, name: &str) -> Result<&dyn EventEndpoint, Status> {
        match self.endpoints.events.get(name) {
            Some(endpoint) => Ok(&**endpoint),
            None => Err(self.unknown(name, EndpointKind::Event)),
        }
    }

    /// Sink `name`.
    fn sink(&self, name: &str) -> Result<&Arc<SinkBuffer>, Status> {
        self.endpoints
            .sinks
            .get(name)
            .ok_or_else(|| self.unknown(name, EndpointKind::Sink))
    }

    /// Checks that `name` is a query endpoint.
    fn check_query(&self, name: &str) -> Result<(), Status> {
        match self.endpoints.kind_of(name) {
            Some(EndpointKind::Query) => Ok(()),
            _ => Err(self.unknown(name, EndpointKind::Query)),
        }
    }

    /// The error of no endpoint `name` of `kind`.
    fn unknown(&self, name: &str, kind: EndpointKind) -> Status {
        let known = self.endpoints.names_of(kind);
        status::unknown_endpoint(name, kind, self.endpoints.kind_of(name), &known)
    }
}

/// A simulation time on the wire.
fn nanos(time: SimTime) -> u64 {
    time.as_nanos()
}

/// A sink value on the wire.
fn wire(value: SinkValue) -> proto::SinkValue {
    proto::SinkValue {
        time_ns: nanos(value.time),
        value_json: value.json.to_string(),
    }
}

/// The reply of a call that leaves the clock at `time`.
fn time_reply(time: SimTime) -> Response<proto::TimeReply> {
    Response::new(proto::TimeReply {
        time_ns: nanos(time),
    })
}

#[tonic::async_trait]
impl Simulator for Service {
    async fn init(
        &self,
        request: Request<proto::InitRequest>,
    ) -> Result<Response<proto::InitReply>, Status> {
        let time = Service::init(self, request.into_inner().config_json).await?;
        Ok(Response::new(proto::InitReply {
            time_ns: nanos(time),
        }))
    }

    async fn list_endpoints(
        &self,
        _: Request<proto::ListEndpointsRequest>,
    ) -> Result<Response<proto::ListEndpointsReply>, Status> {
        let published = self.driver.published().ok();
        let endpoints = published
            .map(|p| p.endpoints.listing.clone())
            .unwrap_or_default();
        Ok(Response::new(proto::ListEndpointsReply {
            endpoints,
            config_schema: self.config_schema.clone(),
            initialized: self.driver.initialized(),
        }))
    }

    async fn time(
        &self,
        _: Request<proto::TimeRequest>,
    ) -> Result<Response<proto::TimeReply>, Status> {
        let published = self.driver.published()?;
        Ok(time_reply(published.endpoints.time.now()))
    }

    async fn step(
        &self,
        _: Request<proto::StepRequest>,
    ) -> Result<Response<proto::TimeReply>, Status> {
        let time = self
            .driver
            .call("step", Length::Short, |local| {
                let simulation = &mut local.bench()?.simulation;
                simulation.step().map_err(status::simulation)?;
                Ok(simulation.time())
            })
            .await?;
        Ok(time_reply(time))
    }

    async fn step_until(
        &self,
        request: Request<proto::StepUntilRequest>,
    ) -> Result<Response<proto::TimeReply>, Status> {
        let deadline = request.into_inner().deadline.and_then(|d| d.when);
        let deadline = deadline.ok_or_else(|| status::missing("deadline"))?;
        let time = self
            .driver
            .call("step_until", Length::Long, move |local| {
                let simulation = &mut local.bench()?.simulation;
                let target = match deadline {
                    When::AtNs(at) => SimTime::from_nanos(at),
                    When::AfterNs(after) => {
                        let now = simulation.time();
                        now.checked_add(Duration::from_nanos(after))
                            .ok_or_else(|| {
                                Status::invalid_argument(format!(
                                    "{after} ns after {now} is past the last representable time"
                                ))
                            })?
                    }
                };
                simulation.step_until(target).map_err(status::simulation)?;
                Ok(simulation.time())
            })
            .await?;
        Ok(time_reply(time))
    }

    async fn run(
        &self,
        _: Request<proto::RunRequest>,
    ) -> Result<Response<proto::RunReply>, Status> {
        let (time, halted) = self
            .driver
            .call("run", Length::Long, |local| {
                let simulation = &mut local.bench()?.simulation;
                let halted = match simulation.run() {
                    Ok(()) => false,
                    Err(SimulationError::Halted { .. }) => true,
                    Err(error) => return Err(status::simulation(error)),
                };
                Ok((simulation.time(), halted))
            })
            .await?;
        Ok(Response::new(proto::RunReply {
            time_ns: nanos(time),
            halted,
        }))
    }

    async fn halt(
        &self,
        _: Request<proto::HaltRequest>,
    ) -> Result<Response<proto::HaltReply>, Status> {
        let was_running = self.driver.halt();
        Ok(Response::new(proto::HaltReply { was_running }))
    }

    async fn process_event(
        &self,
        request: Request<proto::ProcessEventRequest>,
    ) -> Result<Response<proto::TimeReply>, Status> {
        let request = request.into_inner();
        let published = self.driver.published()?;
        // Parsed here, off the simulation's thread: a bad payload never
        // reaches it.
        let event = published
            .event(&request.endpoint)?
            .event(&request.endpoint, &request.payload_json)?;
        let time = self
            .driver
            .call("process_event", Length::Short, move |local| {
                let simulation = &mut local.bench()?.simulation;
                simulation.process(event).map_err(status::simulation)?;
                Ok(simulation.time())
            })
            .await?;
        Ok(time_reply(time))
    }

    async fn process_query(
        &self,
        request: Request<proto::ProcessQueryRequest>,
    ) -> Result<Response<proto::ProcessQueryReply>, Status> {
        let proto::ProcessQueryRequest {
            endpoint,
            request_json,
        } = request.into_inner();
        self.driver.published()?.check_query(&endpoint)?;
        let (replies_json, time) =
            self.driver
                .call("process_query", Length::Short, move |local| {
                    let bench = local.bench()?;
                    let query = bench.queries.get_mut(&endpoint).ok_or_else(|| {
                        Status::not_found(format!("no query endpoint `{endpoint}`"))
                    })?;
                    let replies = query.process(&mut bench.simulation, &request_json)?;
                    Ok((replies, bench.simulation.time()))
                })
                .await?;
        Ok(Response::new(proto::ProcessQueryReply {
            replies_json,
            time_ns: nanos(time),
        }))
    }

    async fn schedule(
        &self,
        request: Request<proto::ScheduleRequest>,
    ) -> Result<Response<proto::ScheduleReply>, Status> {
        let request = request.into_inner();
        // The bench being replaced would take the event with it.
        if self.driver.replacing_bench() {
            return Err(Status::failed_precondition(
                "`schedule` refused: the bench is being built again (`init` or `restore` in progress)",
            ));
        }
        let published = self.driver.published()?;
        let event = published
            .event(&request.endpoint)?
            .event(&request.endpoint, &request.payload_json)?;
        let deadline = request.deadline.and_then(|d| d.when);
        let scheduler = &published.scheduler;
        let scheduled = match deadline.ok_or_else(|| status::missing("deadline"))? {
            When::AtNs(at) => scheduler.schedule_event(SimTime::from_nanos(at), event),
            When::AfterNs(after) => scheduler.schedule_event(Duration::from_nanos(after), event),
        };
        scheduled.map_err(status::scheduling)?;
        Ok(Response::new(proto::ScheduleReply {}))
    }

    async fn drain(
        &self,
        request: Request<proto::SinkRequest>,
    ) -> Result<Response<proto::DrainReply>, Status> {
        let published = self.driver.published()?;
        let (values, dropped, more) = published.sink(&request.into_inner().endpoint)?.drain();
        Ok(Response::new(proto::DrainReply {
            values: values.into_iter().map(wire).collect(),
            dropped,
            more,
        }))
    }

    async fn latest(
        &self,
        request: Request<proto::SinkRequest>,
    ) -> Result<Response<proto::LatestReply>, Status> {
        let published = self.driver.published()?;
        let value = published.sink(&request.into_inner().endpoint)?.latest();
        Ok(Response::new(proto::LatestReply {
            value: value.map(wire),
        }))
    }

    type SubscribeStream = ReceiverStream<Result<proto::SinkValues, Status>>;

    async fn subscribe(
        &self,
        request: Request<proto::SinkRequest>,
    ) -> Result<Response<Self::SubscribeStream>, Status> {
        let name = request.into_inner().endpoint;
        let published = self.driver.published()?;
        let values = published.sink(&name)?.subscribe();
        drop(published);
        let (sender, stream) = mpsc::channel(SUBSCRIPTION_WINDOW);
        // An empty first message says the subscription is in place: a
        // client that waits for it gets every value sent after that
        // (the Python client's `subscribe` does).
        let _ = sender.try_send(Ok(proto::SinkValues { values: Vec::new() }));
        tokio::spawn(forward(name, values, sender));
        Ok(Response::new(ReceiverStream::new(stream)))
    }

    async fn save(
        &self,
        _: Request<proto::SaveRequest>,
    ) -> Result<Response<proto::SaveReply>, Status> {
        #[cfg(feature = "save")]
        {
            let snapshot = self
                .driver
                .call("save", Length::Long, |local| {
                    let simulation = &mut local.bench()?.simulation;
                    let mut snapshot = Vec::new();
                    simulation
                        .save(&mut snapshot)
                        .map_err(|error| Status::failed_precondition(error.to_string()))?;
                    Ok(snapshot)
                })
                .await?;
            Ok(Response::new(proto::SaveReply { snapshot }))
        }
        #[cfg(not(feature = "save"))]
        Err(snapshots_off())
    }

    async fn restore(
        &self,
        request: Request<proto::RestoreRequest>,
    ) -> Result<Response<proto::RestoreReply>, Status> {
        #[cfg(feature = "save")]
        {
            let proto::RestoreRequest {
                snapshot,
                config_json,
            } = request.into_inner();
            let time = self
                .driver
                .call("restore", Length::Long, move |local| {
                    let bench = local.restore(&config_json, &snapshot)?;
                    Ok(bench.simulation.time())
                })
                .await?;
            Ok(Response::new(proto::RestoreReply {
                time_ns: nanos(time),
            }))
        }
        #[cfg(not(feature = "save"))]
        {
            let _ = request;
            Err(snapshots_off())
        }
    }
}

/// The refusal of `Save` and `Restore` by a server built without them.
#[cfg(not(feature = "save"))]
fn snapshots_off() -> Status {
    Status::unimplemented(
        "this server was built without snapshots: cargo feature `save` of causim-server",
    )
}

/// Forwards sink `name`'s values to a subscriber until it goes, the bench
/// is rebuilt (the sink's sender is dropped), or it falls too far behind
/// (then it is told how many values it lost, and the stream ends).
///
/// Each message carries every value waiting when it is sent (up to
/// [`BATCH`]): a subscriber that keeps up gets one value per message, one
/// that falls behind catches up a batch at a time, at a fraction of the
/// per-message cost.
async fn forward(
    name: String,
    mut values: broadcast::Receiver<SinkValue>,
    subscriber: mpsc::Sender<Result<proto::SinkValues, Status>>,
) {
    loop {
        let first = tokio::select! {
            () = subscriber.closed() => return,
            first = values.recv() => first,
        };
        let mut batch = Vec::new();
        let mut end = match first {
            Ok(value) => {
                batch.push(wire(value));
                None
            }
            Err(error) => Some(error),
        };
        while end.is_none() && batch.len() < BATCH {
            match values.try_recv() {
                Ok(value) => batch.push(wire(value)),
                Err(broadcast::error::TryRecvError::Empty) => break,
                Err(broadcast::error::TryRecvError::Closed) => {
                    end = Some(broadcast::error::RecvError::Closed)
                }
                Err(broadcast::error::TryRecvError::Lagged(lost)) => {
                    end = Some(broadcast::error::RecvError::Lagged(lost))
                }
            }
        }
        if !batch.is_empty() {
            let message = proto::SinkValues { values: batch };
            if subscriber.send(Ok(message)).await.is_err() {
                return;
            }
        }
        match end {
            None => {}
            Some(broadcast::error::RecvError::Closed) => return,
            Some(broadcast::error::RecvError::Lagged(lost)) => {
                let lost = Status::data_loss(format!(
                    "the subscriber to sink `{name}` fell behind and lost {lost} values"
                ));
                let _ = subscriber.send(Err(lost)).await;
                return;
            }
        }
    }
}
