//! The server over loopback: every call, its errors, and that a refused
//! call leaves the bench as it was. The bench is the tank of
//! `remote/heater.rs`, on 1, 2 and 4 threads where the call's outcome must
//! not depend on it.

#[path = "remote/heater.rs"]
mod heater;

use std::future::Future;
use std::time::Duration;

use causim_server::proto::simulator_client::SimulatorClient;
use causim_server::proto::{self, deadline::When, Deadline};
use causim_server::{ServeOptions, Server};
use heater::{Sample, TankConfig, TankStatus};
use tokio::sync::oneshot;
use tonic::transport::Channel;
use tonic::{Code, Status};

/// A test never waits longer than this.
const LIMIT: Duration = Duration::from_secs(60);

/// A server of the tank bench on a free loopback port, with a client.
struct Harness {
    /// A client connected to the server.
    client: SimulatorClient<Channel>,
    /// Stops the server when dropped.
    _stop: oneshot::Sender<()>,
}

/// Starts a server of the tank with `options` (port 0 on loopback if
/// default) and no bench built yet.
async fn serve(options: ServeOptions) -> (String, oneshot::Sender<()>) {
    let server = Server::new(heater::build).expect("the simulation's thread starts");
    let listening = server.bind(&options).await.expect("the address binds");
    let address = format!("http://{}", listening.local_addr());
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(listening.serve_until(async {
        let _ = stopped.await;
    }));
    (address, stop)
}

/// Loopback, port 0.
fn loopback() -> ServeOptions {
    ServeOptions {
        address: "127.0.0.1:0".parse().expect("an address"),
        ..ServeOptions::default()
    }
}

impl Harness {
    /// A server with a tank of `config` built.
    async fn start(config: &TankConfig) -> Self {
        let (address, stop) = serve(loopback()).await;
        let client = SimulatorClient::connect(address).await.expect("connects");
        let mut harness = Harness {
            client,
            _stop: stop,
        };
        harness.init(config).await.expect("the tank builds");
        harness
    }

    async fn init(&mut self, config: &TankConfig) -> Result<u64, Status> {
        let config_json = format!(
            r#"{{"threads": {}, "period_ms": {}, "initial_celsius": {}, "panic_at_ms": {}}}"#,
            config.threads,
            config.period_ms,
            config.initial_celsius,
            config
                .panic_at_ms
                .map_or("null".to_string(), |t| t.to_string())
        );
        let reply = self.client.init(proto::InitRequest { config_json }).await?;
        Ok(reply.into_inner().time_ns)
    }

    async fn time(&mut self) -> u64 {
        let reply = self.client.time(proto::TimeRequest {}).await.expect("time");
        reply.into_inner().time_ns
    }

    async fn step_until_ms(&mut self, ms: u64) -> Result<u64, Status> {
        let deadline = Some(Deadline {
            when: Some(When::AtNs(ms * 1_000_000)),
        });
        let reply = self
            .client
            .step_until(proto::StepUntilRequest { deadline })
            .await?;
        Ok(reply.into_inner().time_ns)
    }

    async fn send(&mut self, endpoint: &str, payload: &str) -> Result<u64, Status> {
        let request = proto::ProcessEventRequest {
            endpoint: endpoint.into(),
            payload_json: payload.into(),
        };
        Ok(self
            .client
            .process_event(request)
            .await?
            .into_inner()
            .time_ns)
    }

    async fn query(&mut self, endpoint: &str, request: &str) -> Result<String, Status> {
        let request = proto::ProcessQueryRequest {
            endpoint: endpoint.into(),
            request_json: request.into(),
        };
        Ok(self
            .client
            .process_query(request)
            .await?
            .into_inner()
            .replies_json)
    }

    async fn status(&mut self) -> TankStatus {
        let replies = self.query("tank/status", "null").await.expect("status");
        let mut replies: Vec<TankStatus> = serde_json::from_str(&replies).expect("JSON replies");
        assert_eq!(replies.len(), 1, "one replier");
        replies.remove(0)
    }

    async fn drain(&mut self, sink: &str) -> Result<(Vec<proto::SinkValue>, u64), Status> {
        let request = proto::SinkRequest {
            endpoint: sink.into(),
        };
        let reply = self.client.drain(request).await?.into_inner();
        Ok((reply.values, reply.dropped))
    }

    async fn latest(&mut self, sink: &str) -> Result<Option<proto::SinkValue>, Status> {
        let request = proto::SinkRequest {
            endpoint: sink.into(),
        };
        Ok(self.client.latest(request).await?.into_inner().value)
    }
}

/// Runs `test` on a fresh runtime, within [`LIMIT`].
fn run<F: Future<Output = ()>>(test: F) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        tokio::time::timeout(LIMIT, test)
            .await
            .expect("the test finishes in time");
    });
}

/// The tank of `threads` threads, defaults otherwise.
fn tank(threads: usize) -> TankConfig {
    TankConfig {
        threads,
        ..TankConfig::default()
    }
}

#[test]
fn endpoints_are_listed_with_their_schemas() {
    run(async {
        let (address, _stop) = serve(loopback()).await;
        let mut client = SimulatorClient::connect(address).await.expect("connects");
        let before = client
            .list_endpoints(proto::ListEndpointsRequest {})
            .await
            .expect("listing")
            .into_inner();
        assert!(!before.initialized);
        assert!(before.endpoints.is_empty());
        let schema: serde_json::Value =
            serde_json::from_str(&before.config_schema).expect("a JSON schema");
        assert!(schema["properties"]["period_ms"].is_object(), "{schema}");

        client
            .init(proto::InitRequest::default())
            .await
            .expect("the default tank builds");
        let listing = client
            .list_endpoints(proto::ListEndpointsRequest {})
            .await
            .expect("listing")
            .into_inner();
        assert!(listing.initialized);
        let names: Vec<(&str, proto::EndpointKind)> = listing
            .endpoints
            .iter()
            .map(|e| (e.name.as_str(), e.kind()))
            .collect();
        use proto::EndpointKind::{Event, Query, Sink};
        assert_eq!(
            names,
            [
                ("tank/heater_on", Event),
                ("tank/setpoint", Event),
                ("tank/status", Query),
                ("tank/temperature", Sink),
                ("tank/samples", Sink),
            ]
        );
        let heater = &listing.endpoints[0];
        assert_eq!(heater.payload_type, "bool");
        assert_eq!(heater.description, "switches the heater");
        let schema: serde_json::Value = serde_json::from_str(&heater.payload_schema).expect("JSON");
        assert_eq!(schema["type"], "boolean");
        let status = &listing.endpoints[2];
        let reply: serde_json::Value = serde_json::from_str(&status.reply_schema).expect("JSON");
        assert!(reply["properties"]["celsius"].is_object(), "{reply}");
        assert!(status.reply_type.ends_with("TankStatus"));
    });
}

#[test]
fn a_client_steps_sends_queries_and_reads_sinks() {
    for threads in [1, 2, 4] {
        run(async move {
            let mut h = Harness::start(&tank(threads)).await;
            assert_eq!(h.time().await, 0);
            // The first sample is at 1 s.
            let step = h.client.step(proto::StepRequest {}).await.expect("step");
            assert_eq!(step.into_inner().time_ns, 1_000_000_000);
            assert_eq!(h.status().await.samples, 1);

            h.send("tank/heater_on", "true").await.expect("heater on");
            h.send("tank/setpoint", r#"{"celsius": 60.5}"#)
                .await
                .expect("setpoint");
            let status = h.status().await;
            assert!(status.heater_on);
            assert_eq!(status.setpoint, Some(60.5));

            assert_eq!(
                h.step_until_ms(10_000).await.expect("to 10 s"),
                10_000_000_000
            );
            let (values, dropped) = h.drain("tank/temperature").await.expect("drain");
            assert_eq!(dropped, 0);
            let times: Vec<u64> = values.iter().map(|v| v.time_ns / 1_000_000_000).collect();
            assert_eq!(times, (1..=10).collect::<Vec<_>>());
            let temperatures: Vec<f64> = values
                .iter()
                .map(|v| serde_json::from_str(&v.value_json).expect("a number"))
                .collect();
            // Off for the first sample, heating after.
            assert_eq!(temperatures[0], 20.0);
            assert!(
                temperatures.windows(2).skip(1).all(|w| w[1] > w[0]),
                "{temperatures:?}"
            );
            // Drained: nothing left, but the latest value stays.
            assert!(h
                .drain("tank/temperature")
                .await
                .expect("drain")
                .0
                .is_empty());
            let latest = h
                .latest("tank/samples")
                .await
                .expect("latest")
                .expect("a value");
            let sample: Sample = serde_json::from_str(&latest.value_json).expect("a sample");
            assert_eq!(sample.time_s, 10.0);
            assert_eq!(sample.celsius, temperatures[9]);
        });
    }
}

#[test]
fn scheduled_events_come_at_their_time() {
    run(async {
        let mut h = Harness::start(&tank(1)).await;
        let schedule = |payload: &str, when: When| proto::ScheduleRequest {
            endpoint: "tank/heater_on".into(),
            payload_json: payload.into(),
            deadline: Some(Deadline { when: Some(when) }),
        };
        h.client
            .schedule(schedule("true", When::AtNs(2_500_000_000)))
            .await
            .expect("at 2.5 s");
        h.client
            .schedule(schedule("false", When::AfterNs(4_500_000_000)))
            .await
            .expect("4.5 s from now");
        h.step_until_ms(6_000).await.expect("to 6 s");
        let (values, _) = h.drain("tank/samples").await.expect("drain");
        let samples: Vec<Sample> = values
            .iter()
            .map(|v| serde_json::from_str(&v.value_json).expect("a sample"))
            .collect();
        // Heating between 2.5 s and 4.5 s: the samples at 3 s and 4 s rise,
        // the others cool towards 20 °C (they start there: flat).
        let rises: Vec<bool> = samples
            .windows(2)
            .map(|w| w[1].celsius > w[0].celsius)
            .collect();
        assert_eq!(rises, [false, true, true, false, false]);
        assert!(!h.status().await.heater_on);
        // A deadline in the past is refused.
        let error = h
            .client
            .schedule(schedule("true", When::AtNs(1)))
            .await
            .expect_err("in the past");
        assert_eq!(error.code(), Code::InvalidArgument, "{error}");
    });
}

#[test]
fn subscribers_get_every_value_as_it_comes() {
    for threads in [1, 2, 4] {
        run(async move {
            let mut h = Harness::start(&tank(threads)).await;
            let request = proto::SinkRequest {
                endpoint: "tank/temperature".into(),
            };
            let mut stream = h
                .client
                .subscribe(request)
                .await
                .expect("subscribes")
                .into_inner();
            // The first message, empty, says the subscription is in place.
            let ready = stream.message().await.expect("no error").expect("ready");
            assert!(ready.values.is_empty());
            h.step_until_ms(100_000).await.expect("to 100 s");
            let mut times = Vec::new();
            while times.len() < 100 {
                let batch = stream.message().await.expect("no error").expect("values");
                assert!(!batch.values.is_empty());
                times.extend(batch.values.iter().map(|v| v.time_ns / 1_000_000_000));
            }
            assert_eq!(times, (1..=100).collect::<Vec<_>>());
            // Rebuilding the bench ends the subscription.
            h.init(&tank(threads)).await.expect("rebuilds");
            assert!(stream.message().await.expect("no error").is_none());
        });
    }
}

#[test]
fn a_run_refuses_other_calls_until_halted() {
    for threads in [1, 2, 4] {
        run(async move {
            let mut h = Harness::start(&tank(threads)).await;
            let mut runner = h.client.clone();
            let run = tokio::spawn(async move { runner.run(proto::RunRequest {}).await });
            // The tank samples for ever: wait until the run is under way.
            while h.time().await < 1_000_000_000 {
                tokio::task::yield_now().await;
            }
            let refused = h
                .client
                .step(proto::StepRequest {})
                .await
                .expect_err("busy");
            assert_eq!(refused.code(), Code::FailedPrecondition);
            assert!(
                refused.message().contains("`run` is in progress"),
                "{refused}"
            );
            let refused = h.send("tank/heater_on", "true").await.expect_err("busy");
            assert_eq!(refused.code(), Code::FailedPrecondition);
            // Sinks, time and scheduling still answer.
            h.latest("tank/temperature").await.expect("latest");
            let halt = h.client.halt(proto::HaltRequest {}).await.expect("halt");
            assert!(halt.into_inner().was_running);
            let reply = run
                .await
                .expect("the task ends")
                .expect("run ends")
                .into_inner();
            assert!(reply.halted);
            let halted_at = reply.time_ns;
            assert!(halted_at >= 1_000_000_000);
            // The bench goes on where it stopped, without a stale halt.
            let next = h.client.step(proto::StepRequest {}).await.expect("steps");
            assert_eq!(next.into_inner().time_ns, halted_at + 1_000_000_000);
            let halt = h.client.halt(proto::HaltRequest {}).await.expect("halt");
            assert!(!halt.into_inner().was_running, "nothing to halt");
            h.client
                .step(proto::StepRequest {})
                .await
                .expect("no stale halt");
        });
    }
}

/// A long call whose client gives up (here its deadline passes) is halted:
/// the simulation does not run on for a caller that is gone, and the next
/// call is taken.
#[test]
fn a_call_abandoned_by_its_client_is_halted() {
    for threads in [1, 2] {
        run(async move {
            let mut h = Harness::start(&tank(threads)).await;
            let mut request = tonic::Request::new(proto::StepUntilRequest {
                deadline: Some(Deadline {
                    when: Some(When::AtNs(u64::MAX / 2)),
                }),
            });
            request.set_timeout(Duration::from_millis(200));
            let gone = h.client.step_until(request).await.expect_err("deadline");
            assert!(
                matches!(gone.code(), Code::DeadlineExceeded | Code::Cancelled),
                "{gone}"
            );
            // Halted at its next time step: the bench is free again soon,
            // and its clock stops.
            let limit = tokio::time::Instant::now() + Duration::from_secs(10);
            loop {
                match h.client.step(proto::StepRequest {}).await {
                    Ok(_) => break,
                    Err(busy) if busy.code() == Code::FailedPrecondition => {
                        assert!(tokio::time::Instant::now() < limit, "never halted");
                        tokio::time::sleep(Duration::from_millis(10)).await;
                    }
                    Err(other) => panic!("{other}"),
                }
            }
            let stopped = h.time().await;
            tokio::time::sleep(Duration::from_millis(100)).await;
            assert_eq!(h.time().await, stopped, "the clock stays once halted");
        });
    }
}

/// A halt that races with the end of the call it targets never stops the
/// next call: the server clears a halt the call did not see.
#[test]
fn a_halt_racing_the_end_of_a_call_is_not_left_pending() {
    run(async {
        let mut h = Harness::start(&tank(1)).await;
        let (mut halted, mut raced) = (0, 0);
        for i in 0..300u64 {
            let mut stepper = h.client.clone();
            let target = (i + 1) * 5_000;
            let step = tokio::spawn(async move {
                let deadline = Some(Deadline {
                    when: Some(When::AtNs(target * 1_000_000)),
                });
                stepper
                    .step_until(proto::StepUntilRequest { deadline })
                    .await
            });
            for _ in 0..(i % 7) {
                tokio::task::yield_now().await;
            }
            let was_running = h.client.halt(proto::HaltRequest {}).await.expect("halt");
            let was_running = was_running.into_inner().was_running;
            match step.await.expect("the task ends") {
                // Requested during the call, which ended without seeing it:
                // the case that would leave a halt pending.
                Ok(_) if was_running => raced += 1,
                Ok(_) => {}
                Err(error) => {
                    assert_eq!(error.code(), Code::Aborted, "{error}");
                    assert!(was_running);
                    halted += 1;
                }
            }
            // Whatever happened, the next call runs.
            let now = h.time().await;
            let after = h.step_until_ms(now / 1_000_000 + 1).await;
            let next = h.client.step(proto::StepRequest {}).await;
            assert!(
                after.is_ok() && next.is_ok(),
                "round {i}: {after:?} {next:?}"
            );
            h.step_until_ms(target).await.ok();
        }
        // Halts were requested during calls (without the server's clearing,
        // this test fails within a few dozen rounds).
        assert!(
            halted + raced > 0,
            "no halt came during a call in 300 rounds"
        );
        eprintln!("{halted} calls halted, {raced} ended before their halt");
    });
}

#[test]
fn refused_calls_name_the_problem_and_change_nothing() {
    run(async {
        let mut h = Harness::start(&tank(1)).await;
        h.step_until_ms(3_000).await.expect("to 3 s");
        let before = (h.time().await, h.status().await);
        let cases: Vec<(Result<String, Status>, Code, &str)> = vec![
            (
                h.send("tank/heater", "true").await.map(|t| t.to_string()),
                Code::NotFound,
                "no event endpoint named `tank/heater`; its event endpoints: `tank/heater_on`, `tank/setpoint`",
            ),
            (
                h.send("tank/temperature", "1.0").await.map(|t| t.to_string()),
                Code::InvalidArgument,
                "endpoint `tank/temperature` is a sink, not an event endpoint",
            ),
            (
                h.send("tank/heater_on", "1").await.map(|t| t.to_string()),
                Code::InvalidArgument,
                "the payload for endpoint `tank/heater_on` is not a JSON `bool`",
            ),
            (
                h.send("tank/setpoint", r#"{"celsius": "hot"}"#).await.map(|t| t.to_string()),
                Code::InvalidArgument,
                "is not a JSON `remote::heater::Setpoint`: invalid type: string \"hot\"",
            ),
            (
                h.send("tank/heater_on", "tru").await.map(|t| t.to_string()),
                Code::InvalidArgument,
                "(payload: tru)",
            ),
            (
                h.query("tank/status", "[1, 2]").await,
                Code::InvalidArgument,
                "the payload for endpoint `tank/status` is not a JSON `()`",
            ),
            (
                h.query("tank/heater_on", "null").await,
                Code::InvalidArgument,
                "endpoint `tank/heater_on` is an event endpoint, not a query endpoint",
            ),
            (
                h.drain("tank/status").await.map(|_| String::new()),
                Code::InvalidArgument,
                "endpoint `tank/status` is a query endpoint, not a sink",
            ),
            (
                h.step_until_ms(1_000).await.map(|t| t.to_string()),
                Code::InvalidArgument,
                "invalid time 1.000000000s: it is before the current time 3.000000000s",
            ),
            (
                h.client
                    .step_until(proto::StepUntilRequest { deadline: None })
                    .await
                    .map(|_| String::new()),
                Code::InvalidArgument,
                "the request has no `deadline`",
            ),
            (
                h.init(&TankConfig { period_ms: 0, ..tank(1) }).await.map(|t| t.to_string()),
                Code::InvalidArgument,
                "the bench could not be built",
            ),
            (
                h.client
                    .init(proto::InitRequest { config_json: r#"{"thread": 2}"#.into() })
                    .await
                    .map(|_| String::new()),
                Code::InvalidArgument,
                "unknown field `thread`",
            ),
        ];
        for (outcome, code, message) in cases {
            let error = outcome.expect_err(message);
            assert_eq!(error.code(), code, "{error}");
            assert!(
                error.message().contains(message),
                "`{}` lacks `{message}`",
                error.message()
            );
        }
        assert_eq!(
            (h.time().await, h.status().await),
            before,
            "nothing changed"
        );
        // And the server still serves.
        h.step_until_ms(4_000).await.expect("steps on");
    });
}

#[test]
fn no_bench_before_init() {
    run(async {
        let (address, _stop) = serve(loopback()).await;
        let mut client = SimulatorClient::connect(address).await.expect("connects");
        let error = client
            .step(proto::StepRequest {})
            .await
            .expect_err("no bench");
        assert_eq!(error.code(), Code::FailedPrecondition);
        assert!(error.message().contains("call `Init` first"), "{error}");
        let error = client
            .time(proto::TimeRequest {})
            .await
            .expect_err("no bench");
        assert_eq!(error.code(), Code::FailedPrecondition);
    });
}

#[test]
fn a_fatal_error_stops_the_bench_until_it_is_rebuilt() {
    for threads in [1, 2, 4] {
        run(async move {
            let config = TankConfig {
                panic_at_ms: Some(3_000),
                ..tank(threads)
            };
            let mut h = Harness::start(&config).await;
            let error = h.step_until_ms(5_000).await.expect_err("the tank bursts");
            assert_eq!(error.code(), Code::Aborted);
            assert!(error.message().contains("the tank burst at"), "{error}");
            assert!(error.message().contains("must be rebuilt"), "{error}");
            let again = h
                .client
                .step(proto::StepRequest {})
                .await
                .expect_err("still stopped");
            assert_eq!(again.code(), Code::Aborted);
            h.init(&tank(threads)).await.expect("rebuilds");
            assert_eq!(h.step_until_ms(5_000).await.expect("runs"), 5_000_000_000);
        });
    }
}

#[test]
fn a_token_is_checked_on_every_call() {
    run(async {
        let options = ServeOptions {
            token: Some("s3cret".into()),
            ..loopback()
        };
        let (address, _stop) = serve(options).await;
        let channel = Channel::from_shared(address)
            .expect("a URI")
            .connect()
            .await
            .expect("connects");
        let mut anonymous = SimulatorClient::new(channel.clone());
        let error = anonymous
            .init(proto::InitRequest::default())
            .await
            .expect_err("no token");
        assert_eq!(error.code(), Code::Unauthenticated);
        let with = |token: &'static str| {
            move |mut request: tonic::Request<()>| {
                let value = format!("Bearer {token}").parse().expect("ASCII");
                request.metadata_mut().insert("authorization", value);
                Ok(request)
            }
        };
        let mut wrong = SimulatorClient::with_interceptor(channel.clone(), with("guess"));
        let error = wrong
            .list_endpoints(proto::ListEndpointsRequest {})
            .await
            .expect_err("wrong");
        assert_eq!(error.code(), Code::Unauthenticated);
        assert_eq!(error.message(), "wrong token");
        let mut right = SimulatorClient::with_interceptor(channel, with("s3cret"));
        right
            .init(proto::InitRequest::default())
            .await
            .expect("the right token");
        right
            .step(proto::StepRequest {})
            .await
            .expect("the right token");
    });
}

#[test]
fn another_interface_needs_permission_and_a_token() {
    run(async {
        let any = "0.0.0.0:0".parse().expect("an address");
        let refused = |options: ServeOptions| async move {
            let server = Server::new(heater::build).expect("starts");
            server
                .bind(&options)
                .await
                .expect_err("refused")
                .to_string()
        };
        let message = refused(ServeOptions {
            address: any,
            token: Some("t".into()),
            ..ServeOptions::default()
        })
        .await;
        assert!(message.contains("not a loopback address"), "{message}");
        let message = refused(ServeOptions {
            address: any,
            allow_remote: true,
            ..ServeOptions::default()
        })
        .await;
        assert!(message.contains("without a token"), "{message}");
        let server = Server::new(heater::build).expect("starts");
        let with_token = ServeOptions {
            token: Some("t".into()),
            ..ServeOptions::default()
        };
        let allowed = ServeOptions {
            address: any,
            allow_remote: true,
            ..with_token
        };
        server.bind(&allowed).await.expect("allowed with both");
    });
}

/// One request a fuzzing client may send: any call, any endpoint name,
/// any payload text.
#[derive(Debug, Clone)]
enum Fuzz {
    /// `ProcessEvent(endpoint, payload)`.
    Event(String, String),
    /// `ProcessQuery(endpoint, request)`.
    Query(String, String),
    /// `Schedule(endpoint, payload, at_ns)`.
    Schedule(String, String, u64),
    /// `Drain(sink)`.
    Drain(String),
    /// `Latest(sink)`.
    Latest(String),
    /// `StepUntil(at_ns)`.
    StepUntil(u64),
    /// `Init(config)`.
    Init(String),
}

/// Names the tank has, near misses and garbage.
fn any_name() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    prop_oneof![
        Just("tank/heater_on".to_string()),
        Just("tank/setpoint".to_string()),
        Just("tank/status".to_string()),
        Just("tank/temperature".to_string()),
        Just("tank/samples".to_string()),
        Just("".to_string()),
        Just("tank/heater_on ".to_string()),
        any::<String>(),
    ]
}

/// Payloads that are JSON of another type, broken JSON, or anything.
fn any_payload() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    prop_oneof![
        Just("1".to_string()),
        Just("null".to_string()),
        Just("\"true\"".to_string()),
        Just("{\"celsius\": \"hot\"}".to_string()),
        Just("{\"celsius\": 1e999}".to_string()),
        Just("[true]".to_string()),
        Just("{".to_string()),
        Just("\u{0}".to_string()),
        "[ -~]{0,40}",
        any::<String>(),
    ]
}

fn any_request() -> impl proptest::strategy::Strategy<Value = Fuzz> {
    use proptest::prelude::*;
    prop_oneof![
        (any_name(), any_payload()).prop_map(|(n, p)| Fuzz::Event(n, p)),
        (any_name(), any_payload()).prop_map(|(n, p)| Fuzz::Query(n, p)),
        (any_name(), any_payload(), 0u64..2_000_000_000)
            .prop_map(|(n, p, t)| Fuzz::Schedule(n, p, t)),
        any_name().prop_map(Fuzz::Drain),
        any_name().prop_map(Fuzz::Latest),
        (0u64..2_000_000_000).prop_map(Fuzz::StepUntil),
        any_payload().prop_map(Fuzz::Init),
    ]
}

impl Harness {
    /// Sends `request`; `Ok` if the server took it.
    async fn fuzz(&mut self, request: Fuzz) -> Result<(), Status> {
        let deadline = |at: u64| {
            Some(Deadline {
                when: Some(When::AtNs(at)),
            })
        };
        match request {
            Fuzz::Event(name, payload) => self.send(&name, &payload).await.map(drop),
            Fuzz::Query(name, payload) => self.query(&name, &payload).await.map(drop),
            Fuzz::Schedule(endpoint, payload_json, at) => {
                let request = proto::ScheduleRequest {
                    endpoint,
                    payload_json,
                    deadline: deadline(at),
                };
                self.client.schedule(request).await.map(drop)
            }
            Fuzz::Drain(name) => self.drain(&name).await.map(drop),
            Fuzz::Latest(name) => self.latest(&name).await.map(drop),
            Fuzz::StepUntil(at) => {
                let request = proto::StepUntilRequest {
                    deadline: deadline(at),
                };
                self.client.step_until(request).await.map(drop)
            }
            Fuzz::Init(config_json) => self
                .client
                .init(proto::InitRequest { config_json })
                .await
                .map(drop),
        }
    }

    /// What a refused call must leave as it was: the time, the tank's
    /// state, the sinks' latest values and the events still queued (seen
    /// through the next sample).
    async fn fingerprint(&mut self) -> (u64, TankStatus, Option<String>) {
        let latest = self.latest("tank/samples").await.expect("latest");
        (
            self.time().await,
            self.status().await,
            latest.map(|v| v.value_json),
        )
    }
}

/// Random and malformed requests: each is either taken (a valid call) or
/// refused with a client error, never an internal one, and a refused one
/// leaves the bench as it was; the server serves on.
#[test]
fn random_requests_are_refused_without_harm() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let h = std::cell::RefCell::new(runtime.block_on(Harness::start(&tank(1))));
    let mut runner = TestRunner::new(Config {
        cases: 64,
        ..Config::default()
    });
    let strategy = proptest::collection::vec(any_request(), 1..12);
    runner
        .run(&strategy, |requests| {
            let mut h = h.borrow_mut();
            runtime.block_on(async {
                tokio::time::timeout(LIMIT, async {
                    for request in requests {
                        let before = h.fingerprint().await;
                        let shown = format!("{request:?}");
                        if let Err(error) = h.fuzz(request).await {
                            let client_error = matches!(
                                error.code(),
                                Code::NotFound | Code::InvalidArgument | Code::FailedPrecondition
                            );
                            prop_assert!(client_error, "{shown}: {error}");
                            prop_assert_eq!(h.fingerprint().await, before, "{}: {}", shown, error);
                        }
                    }
                    Ok(())
                })
                .await
                .expect("in time")
            })
        })
        .expect("every refusal is clean");
    let mut h = h.into_inner();
    runtime.block_on(async {
        h.init(&tank(1)).await.expect("still serving");
        h.step_until_ms(2_000).await.expect("still serving");
    });
}

/// The test certificate authority and the server's certificate and key
/// (`remote/tls/README.md`).
#[cfg(feature = "tls")]
fn tls_file(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/remote/tls")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[cfg(feature = "tls")]
#[test]
fn tls_serves_clients_that_trust_the_certificate() {
    use tonic::transport::{Certificate, ClientTlsConfig};

    run(async {
        let options = ServeOptions {
            tls: Some(causim_server::TlsIdentity {
                cert_pem: tls_file("server.pem"),
                key_pem: tls_file("server.key"),
            }),
            ..loopback()
        };
        let (address, _stop) = serve(options).await;
        let port = address.rsplit(':').next().expect("a port").to_string();
        let trusting = ClientTlsConfig::new()
            .ca_certificate(Certificate::from_pem(tls_file("ca.pem")))
            .domain_name("localhost");
        let channel = Channel::from_shared(format!("https://localhost:{port}"))
            .expect("a URI")
            .tls_config(trusting)
            .expect("a TLS configuration")
            .connect()
            .await
            .expect("the handshake succeeds");
        let mut client = SimulatorClient::new(channel);
        client
            .init(proto::InitRequest::default())
            .await
            .expect("over TLS");
        let step = client.step(proto::StepRequest {}).await.expect("over TLS");
        assert_eq!(step.into_inner().time_ns, 1_000_000_000);
        // A plain-text client gets nothing.
        let plain = SimulatorClient::connect(address.clone()).await;
        if let Ok(mut plain) = plain {
            plain
                .time(proto::TimeRequest {})
                .await
                .expect_err("not TLS");
        }
    });
}

/// A model that does nothing, for benches that fail to start.
#[causim::model]
#[derive(Debug)]
struct Idle {}

#[causim::model]
impl Idle {}

#[test]
fn a_bench_that_cannot_start_is_refused_and_the_server_serves_on() {
    use causim::prelude::*;
    use causim_server::{Bench, Endpoints};

    run(async {
        // A name with `/`: `init` refuses it.
        let server = Server::new(|(): ()| {
            let init = SimInit::new().with_threads(1);
            let endpoints = Endpoints::new(init.time_view());
            let init = init.add_model(Idle {}, Mailbox::new(), "a/b");
            Ok::<_, SimulationError>(Bench::new(init, endpoints))
        })
        .expect("starts");
        let listening = server.bind(&loopback()).await.expect("binds");
        let address = format!("http://{}", listening.local_addr());
        tokio::spawn(listening.serve());
        let mut client = SimulatorClient::connect(address).await.expect("connects");
        let error = client
            .init(proto::InitRequest::default())
            .await
            .expect_err("refused");
        assert_eq!(error.code(), Code::InvalidArgument);
        assert!(
            error
                .message()
                .starts_with("the bench could not be initialised:")
                && error.message().contains("a/b"),
            "{error}"
        );
        let listing = client.list_endpoints(proto::ListEndpointsRequest {}).await;
        assert!(!listing.expect("still serving").into_inner().initialized);
    });
}

#[cfg(not(feature = "save"))]
#[test]
fn without_the_save_feature_snapshots_are_unimplemented() {
    run(async {
        let mut h = Harness::start(&tank(1)).await;
        let error = h.client.save(proto::SaveRequest {}).await.expect_err("off");
        assert_eq!(error.code(), Code::Unimplemented);
        assert!(error.message().contains("cargo feature `save`"), "{error}");
        let request = proto::RestoreRequest::default();
        let error = h.client.restore(request).await.expect_err("off");
        assert_eq!(error.code(), Code::Unimplemented);
    });
}

/// A snapshot taken over the wire restores the bench exactly: time,
/// state, pending events, and every value after it.
#[cfg(feature = "save")]
#[test]
fn a_snapshot_restores_the_bench_where_it_was_saved() {
    for threads in [1, 2, 4] {
        run(async move {
            let mut h = Harness::start(&tank(threads)).await;
            h.send("tank/heater_on", "true").await.expect("heater on");
            h.send("tank/setpoint", r#"{"celsius": 42.0}"#)
                .await
                .expect("setpoint");
            h.step_until_ms(5_000).await.expect("to 5 s");
            // A pending event of the bench, which the snapshot must hold.
            let off = proto::ScheduleRequest {
                endpoint: "tank/heater_on".into(),
                payload_json: "false".into(),
                deadline: Some(Deadline {
                    when: Some(When::AtNs(7_500_000_000)),
                }),
            };
            h.client.schedule(off).await.expect("scheduled");
            let snapshot = h.client.save(proto::SaveRequest {}).await.expect("saves");
            let snapshot = snapshot.into_inner().snapshot;
            let saved = h.status().await;
            h.drain("tank/samples").await.expect("drain");

            h.step_until_ms(10_000).await.expect("to 10 s");
            let (first, _) = h.drain("tank/samples").await.expect("drain");
            let first_end = h.status().await;

            let request = proto::RestoreRequest {
                snapshot: snapshot.clone(),
                config_json: String::new(),
            };
            let restored = h.client.restore(request).await.expect("restores");
            assert_eq!(restored.into_inner().time_ns, 5_000_000_000);
            assert_eq!(h.status().await, saved);
            h.step_until_ms(10_000).await.expect("to 10 s again");
            let (second, _) = h.drain("tank/samples").await.expect("drain");
            let values = |v: &[proto::SinkValue]| -> Vec<(u64, String)> {
                v.iter()
                    .map(|v| (v.time_ns, v.value_json.clone()))
                    .collect()
            };
            assert_eq!(values(&second), values(&first));
            assert_eq!(h.status().await, first_end);
            assert!(!first_end.heater_on, "the pending event came");

            // A damaged snapshot is refused; the bench stays.
            let mut damaged = snapshot;
            let middle = damaged.len() / 2;
            damaged[middle] ^= 0xff;
            let request = proto::RestoreRequest {
                snapshot: damaged,
                config_json: String::new(),
            };
            let error = h.client.restore(request).await.expect_err("damaged");
            assert_eq!(error.code(), Code::InvalidArgument);
            assert!(error.message().contains("could not be restored"), "{error}");
            assert_eq!(h.time().await, 10_000_000_000);
            assert_eq!(h.status().await, first_end);
        });
    }
}

/// A bench whose models cannot be saved says which one.
#[cfg(feature = "save")]
#[test]
fn saving_a_bench_that_cannot_be_saved_names_the_model() {
    use causim::prelude::*;
    use causim_server::{Bench, Endpoints};

    run(async {
        let server = Server::new(|(): ()| {
            let init = SimInit::new().with_threads(1);
            let endpoints = Endpoints::new(init.time_view());
            let init = init.add_model(Idle {}, Mailbox::new(), "idle");
            Ok::<_, SimulationError>(Bench::new(init, endpoints))
        })
        .expect("starts");
        server.init("").await.expect("builds");
        let listening = server.bind(&loopback()).await.expect("binds");
        let address = format!("http://{}", listening.local_addr());
        tokio::spawn(listening.serve());
        let mut client = SimulatorClient::connect(address).await.expect("connects");
        let error = client
            .save(proto::SaveRequest {})
            .await
            .expect_err("refused");
        assert_eq!(error.code(), Code::FailedPrecondition);
        assert!(error.message().contains("model `idle`"), "{error}");
        client.step(proto::StepRequest {}).await.expect("serves on");
    });
}
