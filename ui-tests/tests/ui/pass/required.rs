//! Required ports: connected, the bench starts; unconnected, `init` names
//! the model instance, the port and its type.
#![deny(warnings)]

use causim::prelude::*;

#[model]
pub struct Thermostat {
    #[required]
    pub heater: Output<bool>,
    #[required]
    pub read_temp: Requestor<(), f64>,
    pub log: Output<String>,
    setpoint: f64,
}

#[model]
impl Thermostat {
    pub fn new(setpoint: f64) -> Self {
        Thermostat {
            heater: Output::new(),
            read_temp: Requestor::new(),
            log: Output::new(),
            setpoint,
        }
    }

    #[input]
    pub async fn tick(&mut self) {
        let t = self.read_temp.send(()).await.next().unwrap_or(f64::NAN);
        self.heater.send(t < self.setpoint).await;
    }
}

#[model]
pub struct Sensor;

#[model]
impl Sensor {
    #[replier]
    pub fn temperature(&mut self, _: ()) -> f64 {
        18.0
    }
}

fn main() {
    // Nothing connected: both required ports are reported, by name.
    let error = SimInit::new()
        .add_model(Thermostat::new(21.0), Mailbox::new(), "living room")
        .init(SimTime::ZERO)
        .unwrap_err();
    let message = error.to_string();
    assert!(message.contains("living room"), "{message}");
    assert!(message.contains("heater: Output<bool>"), "{message}");
    assert!(message.contains("read_temp: Requestor<(), f64>"), "{message}");

    // Everything connected: the bench runs.
    let sensor = Mailbox::new();
    let mut thermostat = Thermostat::new(21.0);
    thermostat.read_temp.connect(Sensor::ports().temperature, &sensor);
    let heater = EventSlot::new();
    thermostat.heater.connect_sink(&heater);
    let mailbox = Mailbox::new();
    let address = mailbox.address();
    let mut simu = SimInit::new()
        .add_model(Sensor, sensor, "sensor")
        .add_model(thermostat, mailbox, "living room")
        .init(SimTime::ZERO)
        .unwrap();
    simu.process_event(Thermostat::ports().tick, (), &address).unwrap();
    assert_eq!(heater.take(), Some(true));
}
