//! A saveable model with a transient field, an event key in its state, an
//! input whose payload cannot be saved (an error at `save` only if such
//! an event is pending), and a generic saveable model.
use causim::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Mode {
    Off,
    On { level: u8 },
}

#[derive(Debug)]
pub struct Handle;

#[model(save(version = 3))]
#[derive(Debug)]
pub struct Heater {
    #[required]
    pub power: Output<f64>,
    mode: Mode,
    timeout: Option<EventKey>,
    #[transient]
    handle: Handle,
}

#[model(save)]
impl Heater {
    #[input]
    pub fn set(&mut self, mode: Mode, cx: &mut Context<Self>) {
        self.mode = mode;
        self.timeout = cx
            .schedule_keyed(Duration::from_secs(1), Self::ports().off, ())
            .ok();
    }

    #[input]
    pub fn off(&mut self) {
        self.mode = Mode::Off;
    }

    #[input]
    pub fn attach(&mut self, handle: Handle) {
        self.handle = handle;
    }
}

#[model(save)]
#[derive(Debug)]
pub struct Average<T: Clone + Send + 'static> {
    pub out: Output<T>,
    last: Option<T>,
}

// The impl block bounds the parameter as its saved fields need.
#[model(save)]
impl<T> Average<T>
where
    T: Clone + Send + Serialize + serde::de::DeserializeOwned + 'static,
{
    #[input]
    pub async fn push(&mut self, value: T) {
        self.last = Some(value.clone());
        self.out.send(value).await;
    }
}

fn main() {
    let _ = Average::<f64> { out: Output::new(), last: None };
    let _ = Heater { power: Output::new(), mode: Mode::Off, timeout: None, handle: Handle };
}
