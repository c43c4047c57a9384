//! The bench's named endpoints: what a remote client may touch.
//!
//! A bench served remotely declares, while it is built, which of its
//! handles a client may use and under which names: event sources (and model
//! inputs), query sources (and model repliers), and sinks. Each endpoint
//! carries the Rust type of its payload and that type's JSON Schema
//! (`schemars`), so that a client learns what to send without code
//! generated per bench.
//!
//! Why JSON: payloads must describe themselves, since the protobuf
//! interface is one for every bench. JSON is readable in logs and error
//! messages, native to Python and every ground-segment tool, and has a
//! standard schema language; a binary format (CBOR) would save bytes that
//! do not matter next to a network round trip, and would need a schema
//! language of its own.
//!
//! Event endpoints are shared with the server's request tasks (a payload is
//! parsed and its event made off the simulation's thread, and scheduling
//! needs no access to the simulation); query endpoints need the simulation
//! (`process_query_from` borrows the source mutably) and stay with it; sinks
//! are buffers shared by the models that fill them and the requests that
//! read them.

mod event;
mod query;
mod sink;

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use causim::ports::{InputRef, ReplierRef};
use causim::{CallbackSink, EventSource, Model, QuerySource, TimeView};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;

pub(crate) use event::EventEndpoint;
pub(crate) use query::QueryEndpoint;
pub(crate) use sink::{SinkBuffer, SinkValue};

use crate::proto;

/// The default number of values a sink keeps until they are drained.
pub const DEFAULT_SINK_CAPACITY: usize = 100_000;

/// A Rust type as a client sees it: its name and JSON Schema.
#[derive(Debug, Clone)]
pub(crate) struct TypeInfo {
    /// `std::any::type_name`.
    pub(crate) rust_type: &'static str,
    /// Its JSON Schema, as JSON text.
    pub(crate) schema: String,
}

impl TypeInfo {
    /// The description of `T`.
    pub(crate) fn of<T: JsonSchema>() -> Self {
        TypeInfo {
            rust_type: std::any::type_name::<T>(),
            schema: schema_of::<T>(),
        }
    }
}

/// The JSON Schema of `T`, as JSON text.
pub(crate) fn schema_of<T: JsonSchema>() -> String {
    schemars::schema_for!(T).as_value().to_string()
}

/// What a bench lets a remote client use, by name.
///
/// Made with the bench's [`TimeView`] (sinks stamp values with the
/// simulation time), filled while the bench is built, and handed to the
/// server with the simulation in a [`Bench`](crate::Bench).
///
/// ```
/// use causim::prelude::*;
/// use causim_server::Endpoints;
///
/// let init = SimInit::new().with_threads(1);
/// let mut endpoints = Endpoints::new(init.time_view());
/// let mut heater_on = EventSource::<bool>::new();
/// // heater_on.connect(Heater::ports().switch, &heater_mailbox);
/// endpoints.event_source("thermal/heater_on", heater_on, "switches the heater");
/// let mut out = Output::<f64>::new();
/// out.connect_sink(&endpoints.sink::<f64>("thermal/temperature", "°C, every second"));
/// ```
pub struct Endpoints {
    /// The bench's clock, for the sinks' time stamps.
    time: TimeView,
    /// Event endpoints by name.
    events: BTreeMap<String, Arc<dyn EventEndpoint>>,
    /// Query endpoints by name.
    queries: QueryEndpoints,
    /// Sinks by name.
    sinks: BTreeMap<String, Arc<SinkBuffer>>,
    /// Every endpoint as listed to clients, in declaration order.
    listing: Vec<proto::Endpoint>,
    /// The first name declared twice, reported when the bench is served.
    duplicate: Option<String>,
}

impl Endpoints {
    /// No endpoint yet, for the bench whose clock `time` views.
    pub fn new(time: TimeView) -> Self {
        Endpoints {
            time,
            events: BTreeMap::new(),
            queries: BTreeMap::new(),
            sinks: BTreeMap::new(),
            listing: Vec::new(),
            duplicate: None,
        }
    }

    /// Declares event endpoint `name`: a payload a client sends (as JSON)
    /// goes to every connection of `source`, now or when scheduled.
    pub fn event_source<T>(
        &mut self,
        name: impl Into<String>,
        source: EventSource<T>,
        description: impl Into<String>,
    ) -> &mut Self
    where
        T: DeserializeOwned + JsonSchema + Clone + Send + Sync + 'static,
    {
        self.event_endpoint::<T>(
            name.into(),
            Arc::new(event::SourceEndpoint::new(source)),
            description,
        )
    }

    /// Declares event endpoint `name` for one model input (as a composite
    /// exposes it). Unlike an event source's, the events it schedules
    /// name their recipient, so a snapshot (`Save`) can hold them.
    pub fn input<M, T>(
        &mut self,
        name: impl Into<String>,
        input: &InputRef<M, T>,
        description: impl Into<String>,
    ) -> &mut Self
    where
        M: Model,
        T: DeserializeOwned + JsonSchema + Send + 'static,
        InputRef<M, T>: Send + Sync,
    {
        self.event_endpoint::<T>(
            name.into(),
            Arc::new(event::InputEndpoint::new(input.clone())),
            description,
        )
    }

    /// Lists and files event endpoint `name`, of payload `T`.
    fn event_endpoint<T: JsonSchema>(
        &mut self,
        name: String,
        endpoint: Arc<dyn EventEndpoint>,
        description: impl Into<String>,
    ) -> &mut Self {
        let payload = TypeInfo::of::<T>();
        self.list(
            &name,
            proto::EndpointKind::Event,
            description,
            payload,
            None,
        );
        self.events.insert(name, endpoint);
        self
    }

    /// Declares query endpoint `name`: a request a client sends goes to
    /// every connection of `source`, and the replies come back as a JSON
    /// array, in connection order.
    pub fn query_source<T, R>(
        &mut self,
        name: impl Into<String>,
        source: QuerySource<T, R>,
        description: impl Into<String>,
    ) -> &mut Self
    where
        T: DeserializeOwned + JsonSchema + Clone + Send + 'static,
        R: Serialize + JsonSchema + Send + 'static,
    {
        let name = name.into();
        let endpoint = query::SourceEndpoint::new(name.clone(), source);
        let reply = TypeInfo::of::<R>();
        self.list(
            &name,
            proto::EndpointKind::Query,
            description,
            TypeInfo::of::<T>(),
            Some(reply),
        );
        self.queries.insert(name, Box::new(endpoint));
        self
    }

    /// Declares query endpoint `name` for one model replier: shorthand for
    /// a query source connected to it (its reply array has one element).
    pub fn replier<M, T, R>(
        &mut self,
        name: impl Into<String>,
        replier: &ReplierRef<M, T, R>,
        description: impl Into<String>,
    ) -> &mut Self
    where
        M: Model,
        T: DeserializeOwned + JsonSchema + Clone + Send + 'static,
        R: Serialize + JsonSchema + Send + 'static,
    {
        let mut source = QuerySource::new();
        source.connect_to(replier);
        self.query_source(name, source, description)
    }

    /// Declares sink `name` and returns the sink to connect outputs to:
    /// it keeps the latest value and the last
    /// [`DEFAULT_SINK_CAPACITY`] values not yet drained, and streams each
    /// value to subscribers, as JSON stamped with the simulation time.
    ///
    /// The returned sink is a [`CallbackSink`]: name it for the bench's
    /// topology with `SimInit::add_sink` if wanted.
    pub fn sink<T>(
        &mut self,
        name: impl Into<String>,
        description: impl Into<String>,
    ) -> CallbackSink<T>
    where
        T: Serialize + JsonSchema + Send + 'static,
    {
        self.sink_map(name, description, DEFAULT_SINK_CAPACITY, |value: T| value)
    }

    /// Like [`sink`](Self::sink), converting each value with `map` (to
    /// serve one field of a telemetry record, or a serialisable mirror of
    /// a type that is not), and keeping at most `capacity` values until
    /// they are drained (the oldest are dropped first, and counted).
    pub fn sink_map<T, U>(
        &mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        capacity: usize,
        map: impl Fn(T) -> U + Send + Sync + 'static,
    ) -> CallbackSink<T>
    where
        T: Send + 'static,
        U: Serialize + JsonSchema,
    {
        let name = name.into();
        let buffer = Arc::new(SinkBuffer::new(capacity));
        self.list(
            &name,
            proto::EndpointKind::Sink,
            description,
            TypeInfo::of::<U>(),
            None,
        );
        self.sinks.insert(name, buffer.clone());
        let time = self.time.clone();
        CallbackSink::new(move |value: T| buffer.push(time.now(), &map(value)))
    }

    /// Lists an endpoint, noting a name declared twice.
    fn list(
        &mut self,
        name: &str,
        kind: proto::EndpointKind,
        description: impl Into<String>,
        payload: TypeInfo,
        reply: Option<TypeInfo>,
    ) {
        if self.listing.iter().any(|e| e.name == name) && self.duplicate.is_none() {
            self.duplicate = Some(name.to_string());
        }
        let (reply_type, reply_schema) =
            reply.map_or_else(Default::default, |r| (r.rust_type.to_string(), r.schema));
        self.listing.push(proto::Endpoint {
            name: name.to_string(),
            kind: kind.into(),
            description: description.into(),
            payload_type: payload.rust_type.to_string(),
            payload_schema: payload.schema,
            reply_type,
            reply_schema,
        });
    }

    /// Splits the endpoints into what request tasks share and what the
    /// simulation's thread keeps; fails on a name declared twice.
    pub(crate) fn split(self) -> Result<(SharedEndpoints, QueryEndpoints), String> {
        if let Some(name) = self.duplicate {
            return Err(format!(
                "the bench declares endpoint `{name}` twice; endpoint names must be unique"
            ));
        }
        let shared = SharedEndpoints {
            time: self.time,
            events: self.events,
            sinks: self.sinks,
            listing: self.listing,
        };
        Ok((shared, self.queries))
    }
}

impl fmt::Debug for Endpoints {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Endpoints")
            .field("events", &self.events.keys().collect::<Vec<_>>())
            .field("queries", &self.queries.keys().collect::<Vec<_>>())
            .field("sinks", &self.sinks.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// Query endpoints by name.
pub(crate) type QueryEndpoints = BTreeMap<String, Box<dyn QueryEndpoint>>;

/// The endpoints every request task may use without the simulation.
pub(crate) struct SharedEndpoints {
    /// The bench's clock.
    pub(crate) time: TimeView,
    /// Event endpoints by name.
    pub(crate) events: BTreeMap<String, Arc<dyn EventEndpoint>>,
    /// Sinks by name.
    pub(crate) sinks: BTreeMap<String, Arc<SinkBuffer>>,
    /// Every endpoint, as listed to clients.
    pub(crate) listing: Vec<proto::Endpoint>,
}

impl SharedEndpoints {
    /// The kind of endpoint `name`, if the bench has one of that name.
    pub(crate) fn kind_of(&self, name: &str) -> Option<proto::EndpointKind> {
        self.listing
            .iter()
            .find(|e| e.name == name)
            .map(|e| e.kind())
    }

    /// The names of the endpoints of `kind`, for an error message.
    pub(crate) fn names_of(&self, kind: proto::EndpointKind) -> Vec<&str> {
        self.listing
            .iter()
            .filter(|e| e.kind() == kind)
            .map(|e| e.name.as_str())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use causim::{EventSource, SimInit};

    use super::Endpoints;

    #[test]
    fn a_name_declared_twice_is_reported() {
        let init = SimInit::new().with_threads(1);
        let mut endpoints = Endpoints::new(init.time_view());
        endpoints.event_source("a", EventSource::<bool>::new(), "first");
        let _sink = endpoints.sink::<f64>("a", "second");
        let error = endpoints.split().err().expect("refused");
        assert_eq!(
            error,
            "the bench declares endpoint `a` twice; endpoint names must be unique"
        );
    }

    #[test]
    fn endpoints_are_listed_in_declaration_order_with_their_types() {
        let init = SimInit::new().with_threads(1);
        let mut endpoints = Endpoints::new(init.time_view());
        let _sink = endpoints.sink::<Vec<u8>>("z", "bytes");
        endpoints.event_source("a", EventSource::<(f64, bool)>::new(), "a pair");
        let (shared, queries) = endpoints.split().expect("unique names");
        assert!(queries.is_empty());
        let listed: Vec<(&str, &str)> = shared
            .listing
            .iter()
            .map(|e| (e.name.as_str(), e.payload_type.as_str()))
            .collect();
        assert_eq!(listed, [("z", "alloc::vec::Vec<u8>"), ("a", "(f64, bool)")]);
        let schema: serde_json::Value =
            serde_json::from_str(&shared.listing[1].payload_schema).expect("JSON");
        assert_eq!(schema["type"], "array", "{schema}");
    }
}
