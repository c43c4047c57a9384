//! The spacecraft as an engineer draws it: subsystems (composites) that
//! each build and wire their own equipment and expose a few ports.
//!
//! ```text
//! orbit ──sunlit──▶ sat ─┬─ power:   wing +Y, wing -Y, battery, bus
//!                        ├─ payload: sequencer, instrument
//!                        ├─ thermal: battery heater, survival heater
//!                        └─ avionics
//! ```
//!
//! The bus asks every load for its current: the power subsystem exposes
//! that requestor, and the spacecraft connects it to the loads the other
//! subsystems expose. The sun reaches four pieces of equipment, two of
//! them through a conversion; [`Spacecraft::connect_sun`] makes those
//! connections, so the bench wires the orbit with one call. None of this
//! exists while the bench runs: each connection goes straight from one
//! model to another, as in a flat bench.

use causim::ports::{InputRef, ReplierRef};
use causim::prelude::*;

use super::{
    avionics, battery_heater, payload, survival_heater, Battery, BatteryReport, BatteryState,
    BusLedger, BusSample, Load, PowerBus, PowerConfig, Sequencer, SolarArray,
};

/// A model with its mailbox, before the bench takes both.
#[derive(Debug)]
struct Part<M: Model> {
    model: M,
    mailbox: Mailbox<M>,
}

impl<M: Model> Part<M> {
    fn new(model: M) -> Self {
        Part {
            model,
            mailbox: Mailbox::new(),
        }
    }
}

/// Electrical power: two solar wings, the battery and the power bus.
#[derive(Debug)]
pub struct ElectricalPower {
    wings: [Part<SolarArray>; 2],
    battery: Part<Battery>,
    bus: Part<PowerBus>,
}

impl ElectricalPower {
    /// The subsystem of `config`, its bus wired to the wings and battery.
    pub fn new(config: &PowerConfig) -> Self {
        let wings = [
            Part::new(SolarArray::new(0.4, config.panel_efficiency)),
            Part::new(SolarArray::new(0.4, config.panel_efficiency)),
        ];
        let battery = Part::new(Battery::new(config.battery, config.initial_soc));
        let mut bus = Part::new(PowerBus::new(&battery.mailbox.address()));
        for wing in &wings {
            bus.model
                .solar
                .connect(SolarArray::ports().current, &wing.mailbox);
        }
        ElectricalPower {
            wings,
            battery,
            bus,
        }
    }

    /// Exposed: each wing's sun input.
    pub fn sunlit(&self) -> [InputRef<SolarArray, bool>; 2] {
        self.wings
            .each_ref()
            .map(|wing| InputRef::new(SolarArray::ports().set_sunlit, &wing.mailbox))
    }

    /// Exposed: the bus's request for load currents (volts in, amps out).
    pub fn loads(&mut self) -> &mut Requestor<f64, f64> {
        &mut self.bus.model.loads
    }

    /// Exposed: one sample per bus period.
    pub fn telemetry(&mut self) -> &mut Output<BusSample> {
        &mut self.bus.model.telemetry
    }

    /// Exposed: takes a bus sample now.
    pub fn sample(&self) -> InputRef<PowerBus, ()> {
        InputRef::new(PowerBus::ports().sample, &self.bus.mailbox)
    }

    /// Exposed: the bus's energy ledger.
    pub fn ledger(&self) -> ReplierRef<PowerBus, (), BusLedger> {
        ReplierRef::new(PowerBus::ports().ledger, &self.bus.mailbox)
    }

    /// Exposed: the battery's voltage and state of charge.
    pub fn battery_state(&self) -> ReplierRef<Battery, (), BatteryState> {
        ReplierRef::new(Battery::ports().state, &self.battery.mailbox)
    }

    /// Exposed: the battery's energy ledger.
    pub fn battery_report(&self) -> ReplierRef<Battery, (), BatteryReport> {
        ReplierRef::new(Battery::ports().report, &self.battery.mailbox)
    }
}

impl Composite for ElectricalPower {
    fn build(self, cx: &mut BuildContext<'_>) {
        let [plus_y, minus_y] = self.wings;
        cx.add_model(plus_y.model, plus_y.mailbox, "wing +Y")
            .add_model(minus_y.model, minus_y.mailbox, "wing -Y")
            .add_model(self.battery.model, self.battery.mailbox, "battery")
            .add_model(self.bus.model, self.bus.mailbox, "bus");
    }
}

/// The science payload: its observation sequencer and the instrument.
#[derive(Debug)]
pub struct Payload {
    sequencer: Part<Sequencer>,
    instrument: Part<Load>,
}

impl Payload {
    /// The sequencer, wired to switch the instrument.
    pub fn new() -> Self {
        let instrument = Part::new(payload());
        let mut sequencer = Part::new(Sequencer::new(
            std::time::Duration::from_secs(10 * 60),
            std::time::Duration::from_secs(20 * 60),
        ));
        sequencer
            .model
            .payload
            .connect(Load::ports().switch, &instrument.mailbox);
        Payload {
            sequencer,
            instrument,
        }
    }

    /// Exposed: a sunrise starts an observation plan.
    pub fn sunrise(&self) -> InputRef<Sequencer, ()> {
        InputRef::new(Sequencer::ports().sunrise, &self.sequencer.mailbox)
    }

    /// Exposed: switches the instrument (the sequencer does, and an
    /// operator may).
    pub fn switch(&self) -> InputRef<Load, bool> {
        InputRef::new(Load::ports().switch, &self.instrument.mailbox)
    }

    /// Exposed: the instrument on the power line.
    pub fn current(&self) -> ReplierRef<Load, f64, f64> {
        ReplierRef::new(Load::ports().current, &self.instrument.mailbox)
    }
}

impl Default for Payload {
    fn default() -> Self {
        Self::new()
    }
}

impl Composite for Payload {
    fn build(self, cx: &mut BuildContext<'_>) {
        cx.add_model(self.sequencer.model, self.sequencer.mailbox, "sequencer")
            .add_model(self.instrument.model, self.instrument.mailbox, "instrument");
    }
}

/// Thermal control: the battery heater and the propellant-line survival
/// heater.
#[derive(Debug)]
pub struct Thermal {
    battery_heater: Part<Load>,
    survival_heater: Part<Load>,
}

impl Thermal {
    /// Both heaters, off.
    pub fn new() -> Self {
        Thermal {
            battery_heater: Part::new(battery_heater()),
            survival_heater: Part::new(survival_heater()),
        }
    }

    /// Exposed: switches the battery heater.
    pub fn battery_heater(&self) -> InputRef<Load, bool> {
        InputRef::new(Load::ports().switch, &self.battery_heater.mailbox)
    }

    /// Exposed: switches the survival heater (on a timetable kept by the
    /// bench).
    pub fn survival_heater(&self) -> InputRef<Load, bool> {
        InputRef::new(Load::ports().switch, &self.survival_heater.mailbox)
    }

    /// Exposed: both heaters on the power line.
    pub fn currents(&self) -> [ReplierRef<Load, f64, f64>; 2] {
        [&self.battery_heater, &self.survival_heater]
            .map(|heater| ReplierRef::new(Load::ports().current, &heater.mailbox))
    }
}

impl Default for Thermal {
    fn default() -> Self {
        Self::new()
    }
}

impl Composite for Thermal {
    fn build(self, cx: &mut BuildContext<'_>) {
        cx.add_model(
            self.battery_heater.model,
            self.battery_heater.mailbox,
            "battery heater",
        )
        .add_model(
            self.survival_heater.model,
            self.survival_heater.mailbox,
            "survival heater",
        );
    }
}

/// The satellite: three subsystems and the avionics, with every load on
/// the power bus.
#[derive(Debug)]
pub struct Spacecraft {
    /// Electrical power.
    pub power: ElectricalPower,
    /// The science payload.
    pub payload: Payload,
    /// Thermal control.
    pub thermal: Thermal,
    avionics: Part<Load>,
}

impl Spacecraft {
    /// The satellite of `config`, its loads on the bus in a fixed order
    /// (avionics, payload, battery heater, survival heater).
    pub fn new(config: &PowerConfig) -> Self {
        let mut power = ElectricalPower::new(config);
        let payload = Payload::new();
        let thermal = Thermal::new();
        let avionics = Part::new(avionics(config.avionics_w));
        let loads = power.loads();
        loads.connect(Load::ports().current, &avionics.mailbox);
        loads.connect_to(&payload.current());
        for heater in thermal.currents() {
            loads.connect_to(&heater);
        }
        Spacecraft {
            power,
            payload,
            thermal,
            avionics,
        }
    }

    /// Connects an orbit's sun output to the four pieces of equipment that
    /// care: both wings; the battery heater, which runs in eclipse; and the
    /// payload's sequencer, which plans an observation at each sunrise.
    pub fn connect_sun(&self, sunlit: &mut Output<bool>) {
        for wing in self.power.sunlit() {
            sunlit.connect_to(&wing);
        }
        sunlit.map_connect_to(|sunlit| !sunlit, &self.thermal.battery_heater());
        sunlit.filter_map_connect_to(|sunlit| sunlit.then_some(()), &self.payload.sunrise());
    }
}

impl Composite for Spacecraft {
    fn build(self, cx: &mut BuildContext<'_>) {
        cx.add_composite(self.power, "power")
            .add_composite(self.payload, "payload")
            .add_composite(self.thermal, "thermal")
            .add_model(self.avionics.model, self.avionics.mailbox, "avionics");
    }
}
