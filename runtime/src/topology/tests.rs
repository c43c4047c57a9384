//! Tests of the topology export: snapshots of the three text formats of a
//! known multi-level bench built with composites, the clusters of
//! composites (also recorded by hand, for paths no bench can have), and
//! the resolution of recipients added after their senders.

use crate::ports::{QuerySource, UniRequestor};
use crate::prelude::*;
use crate::topology::{ConnectionKind, Endpoint, Mapping, Topology};

/// A solar array: turns sunlight into charge.
#[model]
struct SolarArray {
    /// Charge produced.
    power: Output<f64>,
}

#[model]
impl SolarArray {
    #[input]
    async fn illuminate(&mut self, flux: f64) {
        self.power.send(flux * 0.3).await;
    }
}

/// A battery: stores charge, reports its level and voltage.
#[model]
struct Battery {
    /// Bus voltage after each change.
    voltage: Output<f64>,
    level: f64,
}

#[model]
impl Battery {
    #[input]
    async fn charge(&mut self, amount: f64) {
        self.level += amount;
        self.voltage.send(self.level).await;
    }

    #[input]
    async fn discharge(&mut self, amount: f64) {
        self.level -= amount;
        self.voltage.send(self.level).await;
    }

    #[replier]
    fn level(&mut self, _: ()) -> f64 {
        self.level
    }
}

/// A heater: draws power while on.
#[model]
struct Heater {
    /// Power drawn.
    draw: Output<f64>,
    on: bool,
}

#[model]
impl Heater {
    #[input]
    fn command(&mut self, on: bool) {
        self.on = on;
    }

    #[input]
    async fn supply(&mut self, volts: f64) {
        let draw = if self.on { volts * 0.1 } else { 0.0 };
        self.draw.send(draw).await;
    }
}

/// The on-board computer: polls the battery and logs.
#[model]
struct Computer {
    /// Asks every connected battery for its level.
    #[required]
    read_level: Requestor<(), f64>,
    /// Asks one battery, in percent.
    probe: UniRequestor<(), u8>,
    /// Log lines.
    log: Output<String>,
}

#[model]
impl Computer {
    #[input]
    async fn tick(&mut self) {
        let level: f64 = self.read_level.send(()).await.sum();
        let percent = self.probe.send(()).await;
        self.log.send(format!("{level} {percent}%")).await;
    }
}

/// A ground station outside the spacecraft.
#[model]
struct Ground {}

#[model]
impl Ground {
    #[input]
    fn telemetry(&mut self, _line: String) {}
}

/// The spacecraft's power subsystem: the array and the battery.
struct PowerSubsystem {
    array: (SolarArray, Mailbox<SolarArray>),
    battery: (Battery, Mailbox<Battery>),
}

impl Composite for PowerSubsystem {
    fn build(self, cx: &mut BuildContext<'_>) {
        cx.add_model(self.array.0, self.array.1, "array").add_model(
            self.battery.0,
            self.battery.1,
            "battery",
        );
    }
}

/// The spacecraft's thermal subsystem: the heater.
struct ThermalSubsystem {
    heater: (Heater, Mailbox<Heater>),
}

impl Composite for ThermalSubsystem {
    fn build(self, cx: &mut BuildContext<'_>) {
        cx.add_model(self.heater.0, self.heater.1, "heater");
    }
}

/// The spacecraft: its computer and two subsystems.
struct Spacecraft {
    obc: (Computer, Mailbox<Computer>),
    power: PowerSubsystem,
    thermal: ThermalSubsystem,
}

impl Composite for Spacecraft {
    fn build(self, cx: &mut BuildContext<'_>) {
        cx.add_model(self.obc.0, self.obc.1, "obc")
            .add_composite(self.power, "power")
            .add_composite(self.thermal, "thermal");
    }
}

/// What the bench's test reads back.
struct Bench {
    /// The bench, not initialised.
    init: SimInit,
    /// The sink never named.
    log: EventQueue<String>,
    /// The named sink.
    bus_voltage: EventSlot<f64>,
}

/// A spacecraft of three levels (`sat`, `sat/power`, `sat/thermal`)
/// beside a ground station, with every kind of connection: plain, mapped
/// and filter-mapped events, requests plain and mapped through a
/// requestor and a uni-requestor, to a named and an unnamed sink, from
/// event and query sources. Models are added in an order where some
/// recipients come after their senders.
fn spacecraft() -> Bench {
    let mailboxes = (
        Mailbox::<SolarArray>::new(),
        Mailbox::<Battery>::new(),
        Mailbox::<Heater>::new(),
        Mailbox::<Computer>::new(),
        Mailbox::<Ground>::new(),
    );
    let (array_mb, battery_mb, heater_mb, obc_mb, ground_mb) = &mailboxes;
    let log = EventQueue::new();
    let bus_voltage = EventSlot::new();

    let mut array = SolarArray {
        power: Output::new(),
    };
    array.power.connect(Battery::ports().charge, battery_mb);

    let mut battery = Battery {
        voltage: Output::new(),
        level: 0.0,
    };
    battery.voltage.connect_sink(&bus_voltage);
    battery.voltage.connect(Heater::ports().supply, heater_mb);

    let mut heater = Heater {
        draw: Output::new(),
        on: false,
    };
    heater.draw.filter_map_connect(
        |draw| (draw > 0.0).then_some(draw),
        Battery::ports().discharge,
        battery_mb,
    );

    let mut obc = Computer {
        read_level: Requestor::new(),
        probe: UniRequestor::with_map(
            |()| (),
            Battery::ports().level,
            |v: f64| v as u8,
            battery_mb,
        ),
        log: Output::new(),
    };
    obc.read_level.connect(Battery::ports().level, battery_mb);
    obc.log.connect_sink(&log);
    obc.log
        .map_connect(|line| line, Ground::ports().telemetry, ground_mb);

    let mut clock = EventSource::new();
    clock.connect(Computer::ports().tick, obc_mb);
    let mut heater_cmd = EventSource::new();
    heater_cmd.connect(Heater::ports().command, heater_mb);
    let mut sun = EventSource::new();
    sun.map_connect(
        |w: u32| f64::from(w),
        SolarArray::ports().illuminate,
        array_mb,
    );
    let mut level_probe = QuerySource::new();
    level_probe.connect(Battery::ports().level, battery_mb);

    let (array_mb, battery_mb, heater_mb, obc_mb, ground_mb) = mailboxes;
    let sat = Spacecraft {
        obc: (obc, obc_mb),
        power: PowerSubsystem {
            array: (array, array_mb),
            battery: (battery, battery_mb),
        },
        thermal: ThermalSubsystem {
            heater: (heater, heater_mb),
        },
    };
    let init = SimInit::new()
        .with_threads(1)
        .add_composite(sat, "sat")
        .add_model(Ground {}, ground_mb, "ground")
        .add_event_source(&clock, "clock")
        .add_event_source(&heater_cmd, "heater_cmd")
        .add_event_source(&sun, "sun")
        .add_query_source(&level_probe, "level_probe")
        .add_sink(&bus_voltage, "bus_voltage");
    Bench {
        init,
        log,
        bus_voltage,
    }
}

#[test]
#[cfg_attr(
    miri,
    ignore = "insta reads the snapshot files, which Miri's isolation forbids"
)]
fn json_snapshot() {
    let json = spacecraft().init.topology().to_json();
    // Valid JSON, whatever the snapshot says.
    let parsed: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(parsed["version"], 1);
    insta::assert_snapshot!("spacecraft_json", json);
}

#[test]
#[cfg_attr(
    miri,
    ignore = "insta reads the snapshot files, which Miri's isolation forbids"
)]
fn dot_snapshot() {
    insta::assert_snapshot!("spacecraft_dot", spacecraft().init.topology().to_dot());
}

#[test]
#[cfg_attr(
    miri,
    ignore = "insta reads the snapshot files, which Miri's isolation forbids"
)]
fn mermaid_snapshot() {
    insta::assert_snapshot!(
        "spacecraft_mermaid",
        spacecraft().init.topology().to_mermaid()
    );
}

/// The index of the model at `path`.
fn model(topology: &Topology, path: &str) -> usize {
    topology
        .models
        .iter()
        .position(|m| m.path == path)
        .unwrap_or_else(|| panic!("no model `{path}`"))
}

/// The path of the composite a model or composite is in.
fn cluster(topology: &Topology, composite: Option<usize>) -> Option<&str> {
    composite.map(|c| topology.composites[c].path.as_str())
}

#[test]
fn models_belong_to_the_deepest_composite_whose_path_prefixes_theirs() {
    let mut init = SimInit::new();
    for path in [
        "sat/power/battery",
        "sat/powerline",
        "sat/power/bus/breaker",
        "sat",
        "other/x",
    ] {
        init = init.add_model(Ground {}, Mailbox::new(), path);
    }
    // Recorded children first: the order does not matter.
    init.topology.record_composite("sat/power", "Power");
    init.topology.record_composite("sat", "Sat");
    let topology = init.topology();
    let in_cluster = |path| cluster(&topology, topology.models[model(&topology, path)].composite);
    assert_eq!(in_cluster("sat/power/battery"), Some("sat/power"));
    assert_eq!(in_cluster("sat/power/bus/breaker"), Some("sat/power"));
    // A prefix counts `/` by `/`: `sat/power` does not hold `sat/powerline`.
    assert_eq!(in_cluster("sat/powerline"), Some("sat"));
    // A model is not in a composite of its own path, nor in an unrelated one.
    assert_eq!(in_cluster("sat"), None);
    assert_eq!(in_cluster("other/x"), None);
    let parent = |path: &str| {
        let c = topology.composites.iter().find(|c| c.path == path).unwrap();
        cluster(&topology, c.parent)
    };
    assert_eq!(parent("sat/power"), Some("sat"));
    assert_eq!(parent("sat"), None);
}

#[test]
fn composites_are_nested_clusters_in_dot_and_mermaid() {
    let topology = spacecraft().init.topology();
    let dot = topology.to_dot();
    let sat = dot.find("subgraph cluster_0 {").unwrap();
    let power = dot.find("subgraph cluster_1 {").unwrap();
    let battery = dot
        .find(&format!("m{} [", model(&topology, "sat/power/battery")))
        .unwrap();
    assert!(sat < power && power < battery, "{dot}");
    // The battery's cluster closes before the ground station, at top level.
    let ground = dot
        .find(&format!("\n  m{} [", model(&topology, "ground")))
        .unwrap();
    assert!(battery < ground);
    let mermaid = topology.to_mermaid();
    assert!(
        mermaid.contains(
            "  subgraph c0[\"sat (Spacecraft)\"]\n    subgraph c1[\"power (PowerSubsystem)\"]\n"
        ),
        "{mermaid}"
    );
}

#[test]
fn recipients_added_after_their_senders_are_resolved() {
    let topology = spacecraft().init.topology();
    let obc = model(&topology, "sat/obc");
    let battery = model(&topology, "sat/power/battery");
    // `sat/obc` was added first, its recipient after it.
    let request = topology
        .connections
        .iter()
        .find(|c| {
            c.from
                == Endpoint::Port {
                    model: obc,
                    port: "read_level",
                }
        })
        .unwrap();
    assert_eq!(
        request.to,
        Endpoint::Port {
            model: battery,
            port: "level"
        }
    );
    assert_eq!(request.kind, ConnectionKind::Request);
}

#[test]
fn a_recipient_never_added_is_unbound() {
    let ground = Mailbox::<Ground>::new();
    let mut source = EventSource::new();
    source.connect(Ground::ports().telemetry, &ground);
    let topology = SimInit::new().add_event_source(&source, "lines").topology();
    assert_eq!(
        topology.connections[0].to,
        Endpoint::Unbound {
            type_name: "Ground",
            port: "telemetry"
        }
    );
    assert!(topology
        .to_dot()
        .contains("unbound0 [shape=box, style=dashed, label=\"Ground\\n(not in the bench)\"]"));
    drop(ground);
}

#[test]
fn a_recipient_added_to_another_bench_is_unbound_there_only() {
    let ground = Mailbox::<Ground>::new();
    let mut source = EventSource::new();
    source.connect(Ground::ports().telemetry, &ground);
    // The ground station is the second model of its bench: a recipient
    // is named by its own bench's place.
    let its_bench = SimInit::new()
        .add_model(Ground {}, Mailbox::new(), "other")
        .add_model(Ground {}, ground, "ground")
        .add_event_source(&source, "lines");
    let elsewhere = SimInit::new()
        .add_model(Ground {}, Mailbox::new(), "first")
        .add_model(Ground {}, Mailbox::new(), "second")
        .add_event_source(&source, "lines");
    assert_eq!(
        its_bench.topology().connections[0].to,
        Endpoint::Port {
            model: 1,
            port: "telemetry"
        }
    );
    assert_eq!(
        elsewhere.topology().connections[0].to,
        Endpoint::Unbound {
            type_name: "Ground",
            port: "telemetry"
        }
    );
}

#[test]
fn sinks_are_named_or_called_after_their_first_sender() {
    let bench = spacecraft();
    let topology = bench.init.topology();
    let names: Vec<(&str, bool)> = topology
        .sinks
        .iter()
        .map(|s| (s.name.as_str(), s.named))
        .collect();
    assert_eq!(names, [("bus_voltage", true), ("sat/obc.log", false)]);
    assert_eq!(topology.sinks[1].payload, "String");
    // The handles still work as sinks.
    assert!(bench.log.is_empty() && bench.bus_voltage.peek().is_none());
}

#[test]
fn names_given_twice_are_made_unique() {
    let (a, b) = (EventQueue::<u8>::new(), EventQueue::<u8>::new());
    let topology = SimInit::new()
        .add_sink(&a, "out")
        .add_sink(&b, "out")
        .add_sink(&a.clone(), "again")
        .topology();
    let names: Vec<&str> = topology.sinks.iter().map(|s| s.name.as_str()).collect();
    // A clone is the same sink: named once, by its first name.
    assert_eq!(names, ["out", "out#2"]);
}

#[test]
fn simulation_keeps_the_topology_of_its_bench() {
    let bench = spacecraft();
    let before = bench.init.topology();
    let simulation = bench.init.init(SimTime::ZERO).unwrap();
    assert_eq!(simulation.topology(), before);
}

#[test]
fn mappings_and_kinds_are_marked() {
    let topology = spacecraft().init.topology();
    let marked = |mapping: Mapping| {
        topology
            .connections
            .iter()
            .filter(|c| c.mapping == mapping)
            .count()
    };
    // sun (map), obc.probe (map), obc.log → ground (map); heater.draw (filter_map).
    assert_eq!(marked(Mapping::Map), 3);
    assert_eq!(marked(Mapping::FilterMap), 1);
    let dot = topology.to_dot();
    assert!(dot.contains("[label=\"filter_map\"]"));
    assert!(dot.contains("[style=dashed, label=\"map\"]"));
}

/// The SVG's layout: composites hold their members, nothing overlaps its
/// siblings, and the picture holds one box per part and one curve per
/// connection.
#[cfg(feature = "svg")]
mod svg {
    use super::*;
    use crate::topology::svg::{layout, Item};

    #[test]
    fn composites_hold_their_members_and_siblings_do_not_overlap() {
        let topology = spacecraft().init.topology();
        let layout = layout(&topology);
        let boxes = &layout.boxes;
        // Every model and composite lies inside each composite it is in.
        let mut held = 0;
        for (item, parent) in topology
            .models
            .iter()
            .enumerate()
            .map(|(m, node)| (Item::Model(m), node.composite))
            .chain(
                topology
                    .composites
                    .iter()
                    .enumerate()
                    .map(|(c, node)| (Item::Composite(c), node.parent)),
            )
        {
            let mut ancestor = parent;
            while let Some(c) = ancestor {
                assert!(
                    boxes[&Item::Composite(c)].contains(&boxes[&item]),
                    "{item:?} in {c}"
                );
                held += 1;
                ancestor = topology.composites[c].parent;
            }
        }
        // battery, array (2 each), heater (2), obc (1), power, thermal (1 each).
        assert_eq!(held, 9);
        // Boxes overlap only when one holds the other.
        let all: Vec<(&Item, _)> = boxes.iter().collect();
        for (i, (a, ra)) in all.iter().enumerate() {
            for (b, rb) in &all[i + 1..] {
                if ra.overlaps(rb) {
                    assert!(ra.contains(rb) || rb.contains(ra), "{a:?} overlaps {b:?}");
                }
            }
        }
        let everything = topology.models.len()
            + topology.composites.len()
            + topology.sources.len()
            + topology.sinks.len();
        assert_eq!(boxes.len(), everything);
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "insta reads the snapshot files, which Miri's isolation forbids"
    )]
    fn the_picture_draws_every_part_and_connection() {
        let topology = spacecraft().init.topology();
        let svg = topology.to_svg();
        let count = |needle: &str| svg.matches(needle).count();
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert_eq!(count("class=\"cluster\""), topology.composites.len());
        assert_eq!(count("class=\"model\""), topology.models.len());
        assert_eq!(count("class=\"source\""), topology.sources.len());
        assert_eq!(count("class=\"sink\""), topology.sinks.len());
        assert_eq!(count("class=\"connection\""), topology.connections.len());
        assert_eq!(
            count("stroke-dasharray=\"5,3\""),
            3,
            "the request connections"
        );
        assert_eq!(count("<g "), count("</g>"));
        insta::assert_snapshot!("spacecraft_svg", svg);
    }

    #[test]
    fn connections_flow_left_to_right_between_clusters() {
        let topology = spacecraft().init.topology();
        let layout = layout(&topology);
        let x = |item| layout.boxes[&item].x;
        // The array feeds the battery, inside `sat/power`.
        assert!(x(Item::Model(1)) < x(Item::Model(2)));
        // Sources come first; the power subsystem, fed by `sun`, is
        // right of it.
        assert!(x(Item::Source(2)) < x(Item::Composite(0)));
    }
}
