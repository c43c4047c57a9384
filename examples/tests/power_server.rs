//! The power bench served over loopback: its endpoints, and the heater a
//! client switches showing on the bus. (The Python client's tests drive
//! the same bench through the `power_server` binary: `.ci/python`.)

use causim_examples::power::remote;
use causim_server::proto::simulator_client::SimulatorClient;
use causim_server::proto::{self, deadline::When, Deadline};
use causim_server::{ServeOptions, Server};

/// The survival heater's resistance, Ω.
const HEATER_OHMS: f64 = 30.0;

#[test]
fn a_client_switches_the_heater_and_sees_the_load() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        tokio::time::timeout(std::time::Duration::from_secs(60), drive())
            .await
            .expect("in time");
    });
}

async fn drive() {
    let server = Server::new(remote::build).expect("starts");
    let options = ServeOptions {
        address: "127.0.0.1:0".parse().expect("an address"),
        ..ServeOptions::default()
    };
    let listening = server.bind(&options).await.expect("binds");
    let address = format!("http://{}", listening.local_addr());
    tokio::spawn(listening.serve());
    let mut sim = SimulatorClient::connect(address).await.expect("connects");
    let config_json = r#"{"threads": 2, "initial_soc": 0.8}"#.to_string();
    sim.init(proto::InitRequest { config_json })
        .await
        .expect("builds");

    let listing = sim
        .list_endpoints(proto::ListEndpointsRequest {})
        .await
        .expect("lists");
    let names: Vec<String> = listing
        .into_inner()
        .endpoints
        .into_iter()
        .map(|e| e.name)
        .collect();
    for name in [
        "power/heater_on",
        "power/ledger",
        "power/bus_voltage",
        "orbit/sunlit",
    ] {
        assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
    }

    let step_until = |s: u64| proto::StepUntilRequest {
        deadline: Some(Deadline {
            when: Some(When::AtNs(s * 1_000_000_000)),
        }),
    };
    let drain = || proto::SinkRequest {
        endpoint: "power/telemetry".into(),
    };
    let load = |value: &proto::SinkValue| {
        let sample: serde_json::Value = serde_json::from_str(&value.value_json).expect("JSON");
        (
            sample["load_w"].as_f64().expect("load"),
            sample["volts"].as_f64().expect("volts"),
        )
    };
    sim.step_until(step_until(100)).await.expect("to 100 s");
    let before = sim
        .drain(drain())
        .await
        .expect("drains")
        .into_inner()
        .values;
    let (load_before, _) = load(before.last().expect("samples"));
    let event = proto::ProcessEventRequest {
        endpoint: "power/heater_on".into(),
        payload_json: "true".into(),
    };
    sim.process_event(event).await.expect("switches");
    sim.step_until(step_until(120)).await.expect("to 120 s");
    let after = sim
        .drain(drain())
        .await
        .expect("drains")
        .into_inner()
        .values;
    assert_eq!(after.len(), 2);
    for value in &after {
        let (load_w, volts) = load(value);
        let heater_w = volts * volts / HEATER_OHMS;
        assert!(
            (load_w - load_before - heater_w).abs() < 0.02 * heater_w,
            "{load_w} {load_before} {heater_w}"
        );
    }
    let query = proto::ProcessQueryRequest {
        endpoint: "power/battery".into(),
        request_json: "null".into(),
    };
    let replies = sim
        .process_query(query)
        .await
        .expect("answers")
        .into_inner()
        .replies_json;
    let replies: Vec<serde_json::Value> = serde_json::from_str(&replies).expect("JSON");
    assert_eq!(replies.len(), 1);
    assert_eq!(replies[0]["initial_wh"].as_f64(), Some(0.8 * 300.0));
}
