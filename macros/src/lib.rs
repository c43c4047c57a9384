//! Attribute macros of causim: `#[model]`, and the port markers `#[input]`,
//! `#[replier]` and `#[init]` that `#[model]` reads.
//!
//! Use them through `causim` (`use causim::prelude::*;`), which re-exports
//! them; the generated code names the runtime as `::causim` (override with
//! `#[model(crate = path)]`). `docs/macros.md` shows a model, its expansion,
//! and what each generated item is for.
//!
//! This file holds the entry points only. Each goes parse (`ast`, a
//! borrowed model of the item) → validate (`valid`, every error collected
//! and reported in one compile) → expand (`expand`, on `proc_macro2` types,
//! snapshot-tested). `names` derives the generated names, for both of the
//! last two stages.

mod ast;
mod expand;
mod names;
mod spelling;
mod valid;

use proc_macro::TokenStream;

/// Turns a struct and its impl block into a causim model.
///
/// Put `#[model]` on **both** the struct and its inherent impl block:
///
/// - on the struct, it reads the sending ports: fields of type
///   `Output<T>`, `Requestor<T, R>` and `UniRequestor<T, R>`, and the
///   `#[required]` marks on them;
/// - on the impl block, it reads the receiving ports: methods marked
///   `#[input]` or `#[replier]`, and the optional `#[init]` hook.
///
/// It generates, for a model `Name`:
///
/// - `pub enum NameMessage`, one variant per input or replier;
/// - `pub struct NamePorts`, one typed descriptor per input
///   (`InputPort<Name, T>`) or replier (`ReplierPort<Name, T, R>`), returned
///   by `Name::ports()`: this is what `connect` calls and schedulers take;
/// - `impl Model for Name`: a `dispatch` that is one `match` calling the
///   methods (awaiting the `async` ones), the `init` hook, the metadata
///   (type name, port names and types), the required-port check and the
///   listing of the sending ports' connections for the bench's topology.
///
/// # Ports
///
/// - `#[input]`: `fn` or `async fn`, `&mut self`, then zero or one payload
///   (none means `()`), then optionally `&mut Context<Self>`.
/// - `#[replier]`: the same, returning the reply.
/// - `#[init]`: `&mut self` and optionally `&mut Context<Self>`; runs once
///   when the bench is initialised.
/// - `#[required]` on an `Output` or `Requestor` field: `SimInit::init`
///   fails, naming the model, the port and its type, if it is unconnected.
/// - `#[transient]` on a state field of a saveable model: left out of a
///   snapshot; a restored bench keeps the value its code gave the field.
///
/// Other methods stay plain methods.
///
/// # Arguments
///
/// - `crate = path`: where the causim crate is (default `::causim`);
/// - on the impl block only, `message = Name` and `ports = Name`: rename the
///   generated enum and struct (default `NameMessage`, `NamePorts`);
/// - `save` on both halves (causim's feature `save`): the model can be
///   saved and restored (`Simulation::save`, `SimInit::restore`); its
///   state fields (not its ports, not those marked `#[transient]`) must be
///   `Serialize + DeserializeOwned`. `save(version = N)` on the struct
///   numbers the state's format (1 by default): a snapshot of another
///   version is refused on restore.
///
/// # Example
///
/// ```
/// use causim::prelude::*;
///
/// #[model]
/// pub struct Thermostat {
///     #[required]
///     pub heater: Output<bool>,
///     pub read_temp: Requestor<(), f64>,
///     setpoint: f64,
/// }
///
/// #[model]
/// impl Thermostat {
///     #[input]
///     pub fn set_point(&mut self, celsius: f64) {
///         self.setpoint = celsius;
///     }
///
///     #[input]
///     pub async fn tick(&mut self) {
///         let t = self.read_temp.send(()).await.next().unwrap_or(f64::NAN);
///         self.heater.send(t < self.setpoint).await;
///     }
///
///     #[replier]
///     pub fn setpoint(&mut self) -> f64 {
///         self.setpoint
///     }
/// }
///
/// // A sensor, to answer the thermostat's requests.
/// #[model]
/// pub struct Sensor {
///     celsius: f64,
/// }
///
/// #[model]
/// impl Sensor {
///     #[replier]
///     pub fn temperature(&mut self, _: ()) -> f64 {
///         self.celsius
///     }
/// }
///
/// let sensor = Mailbox::new();
/// let mut thermostat = Thermostat {
///     heater: Output::new(),
///     read_temp: Requestor::new(),
///     setpoint: 21.0,
/// };
/// thermostat.read_temp.connect(Sensor::ports().temperature, &sensor);
/// let heater = EventSlot::new();
/// thermostat.heater.connect_sink(&heater);
/// let thermostat_mailbox = Mailbox::new();
/// let address = thermostat_mailbox.address();
///
/// let mut simu = SimInit::new()
///     .add_model(Sensor { celsius: 19.5 }, sensor, "sensor")
///     .add_model(thermostat, thermostat_mailbox, "thermostat")
///     .init(SimTime::ZERO)?;
/// simu.process_event(Thermostat::ports().tick, (), &address)?;
/// assert_eq!(heater.take(), Some(true));
/// assert_eq!(simu.process_query(Thermostat::ports().setpoint, (), &address)?, 21.0);
/// assert_eq!(Thermostat::metadata().port("heater").unwrap().to_string(), "heater: Output<bool>");
/// # Ok::<(), causim::SimulationError>(())
/// ```
#[proc_macro_attribute]
pub fn model(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::model(attr.into(), item.into()).into()
}

/// Marks a method of a `#[model]` impl block as an input port.
///
/// `#[model]` on the impl block reads and removes this attribute; on its
/// own, it is an error. An input takes `&mut self`, zero or one payload and
/// optionally `&mut Context<Self>`, may be `async`, and returns nothing.
///
/// ```
/// use causim::prelude::*;
///
/// #[model]
/// pub struct Lamp {
///     pub lit: Output<bool>,
/// }
///
/// #[model]
/// impl Lamp {
///     /// With a payload.
///     #[input]
///     pub async fn switch(&mut self, on: bool) {
///         self.lit.send(on).await;
///     }
///
///     /// Without a payload (the port takes `()`), with the context.
///     #[input]
///     pub fn blink(&mut self, cx: &mut Context<Self>) {
///         cx.schedule(Duration::from_secs(1), Self::ports().switch, false).unwrap();
///     }
/// }
///
/// let port: InputPort<Lamp, bool> = Lamp::ports().switch;
/// assert_eq!(port.name(), "switch");
/// ```
#[proc_macro_attribute]
pub fn input(attr: TokenStream, item: TokenStream) -> TokenStream {
    let _ = attr;
    expand::misplaced("input", item.into()).into()
}

/// Marks a method of a `#[model]` impl block as a replier port.
///
/// `#[model]` on the impl block reads and removes this attribute; on its
/// own, it is an error. A replier takes `&mut self`, zero or one request
/// and optionally `&mut Context<Self>`, may be `async`, and returns the
/// reply.
///
/// ```
/// use causim::prelude::*;
///
/// #[model]
/// pub struct Doubler;
///
/// #[model]
/// impl Doubler {
///     #[replier]
///     pub async fn double(&mut self, x: u32) -> u32 {
///         2 * x
///     }
/// }
///
/// let mailbox = Mailbox::new();
/// let address = mailbox.address();
/// let mut simu = SimInit::new().add_model(Doubler, mailbox, "doubler").init(SimTime::ZERO)?;
/// let port: ReplierPort<Doubler, u32, u32> = Doubler::ports().double;
/// assert_eq!(simu.process_query(port, 21, &address)?, 42);
/// # Ok::<(), causim::SimulationError>(())
/// ```
#[proc_macro_attribute]
pub fn replier(attr: TokenStream, item: TokenStream) -> TokenStream {
    let _ = attr;
    expand::misplaced("replier", item.into()).into()
}

/// Marks the method of a `#[model]` impl block that runs once, when the
/// bench is initialised, before any message.
///
/// `#[model]` on the impl block reads and removes this attribute; on its
/// own, it is an error. The hook takes `&mut self` and optionally
/// `&mut Context<Self>`, and may be `async`.
///
/// ```
/// use causim::prelude::*;
///
/// #[model]
/// pub struct Clock {
///     pub ticks: Output<u64>,
///     count: u64,
/// }
///
/// #[model]
/// impl Clock {
///     #[init]
///     fn start(&mut self, cx: &mut Context<Self>) {
///         cx.schedule_periodic(Duration::from_secs(1), Duration::from_secs(1), Self::ports().tick, ())
///             .unwrap();
///     }
///
///     #[input]
///     async fn tick(&mut self) {
///         self.count += 1;
///         self.ticks.send(self.count).await;
///     }
/// }
///
/// let mut clock = Clock { ticks: Output::new(), count: 0 };
/// let ticks = EventQueue::new();
/// clock.ticks.connect_sink(&ticks);
/// let mut simu = SimInit::new().add_model(clock, Mailbox::new(), "clock").init(SimTime::ZERO)?;
/// simu.step_by(Duration::from_secs(3))?;
/// assert_eq!(ticks.take_all(), vec![1, 2, 3]);
/// # Ok::<(), causim::SimulationError>(())
/// ```
#[proc_macro_attribute]
pub fn init(attr: TokenStream, item: TokenStream) -> TokenStream {
    let _ = attr;
    expand::misplaced("init", item.into()).into()
}

#[cfg(test)]
mod tests;
