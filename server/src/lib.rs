//! # causim-server
//!
//! Remote operation of a causim bench: a gRPC server (tonic) that builds
//! one bench from a client's configuration and lets clients step it, run
//! and halt it, send events and queries to its named endpoints, schedule
//! events, read its sinks (drain, latest value, or a stream), and save
//! and restore it (feature `save`) — from any language; a Python client
//! lives in `server/python`.
//!
//! A bench declares what a client may use while it is built, in an
//! [`Endpoints`]: event sources and inputs, query sources and repliers,
//! sinks, each under a name (`"power/heater_on"`) and with the JSON
//! Schema of its payload. Payloads are JSON (see [`endpoints`] for why).
//! The server binds to loopback unless told otherwise; another interface
//! needs an explicit option and a token (see [`security`]). Errors are
//! gRPC statuses carrying causim's messages; a refused call changes
//! nothing (see the `status` module and `proto/causim.proto`).
//!
//! The user guide's chapter is `docs/remote.md`.

mod bench;
pub mod cli;
mod driver;
pub mod endpoints;
pub mod security;
mod serve;
mod service;
mod status;

/// The protocol, generated from `proto/causim.proto` at build time by a
/// pure-Rust protobuf compiler (`protox`): clients (`simulator_client`)
/// and the server trait.
#[allow(missing_docs, missing_debug_implementations, clippy::all)]
pub mod proto {
    tonic::include_proto!("causim.remote.v1");
}

/// The guide's chapter (`docs/remote.md`): its code blocks compile as
/// doctests, so that it cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../../docs/remote.md")]
pub struct RemoteGuideDoctests;

pub use bench::Bench;
pub use endpoints::Endpoints;
#[cfg(feature = "tls")]
pub use serve::TlsIdentity;
pub use serve::{Listening, ServeError, ServeOptions, Server, DEFAULT_PORT};

/// The crates a bench's types derive from, re-exported so that a bench
/// uses the server's versions.
pub use schemars;
pub use serde_json;
