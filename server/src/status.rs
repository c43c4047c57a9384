//! causim's errors as gRPC statuses.
//!
//! Every refusal is a status whose message is causim's own (the model,
//! port, types and times it names), with a code a client can branch on:
//! `NOT_FOUND` for a name the bench does not have, `INVALID_ARGUMENT` for a
//! payload or time the client got wrong, `FAILED_PRECONDITION` for a call
//! the server's state refuses (no bench yet, a run in progress, a bench
//! stopped by a fatal error), `ABORTED` for a run ended by a halt or a
//! fatal error (and, from the subscription's forwarding task, `DATA_LOSS`
//! for a subscriber that fell too far behind). A refused call changes
//! nothing.

use causim::{SchedulingError, SimulationError};
use tonic::Status;

use crate::proto::EndpointKind;

/// No bench was built yet.
pub(crate) fn no_bench() -> Status {
    Status::failed_precondition("no bench is built: call `Init` first")
}

/// `refused` came while `running` holds the simulation.
pub(crate) fn busy(refused: &str, running: &str) -> Status {
    Status::failed_precondition(format!(
        "`{refused}` refused: `{running}` is in progress; call `Halt` or wait for it to end"
    ))
}

/// A payload that is not JSON of the endpoint's type.
pub(crate) fn bad_payload(
    endpoint: &str,
    rust_type: &str,
    text: &str,
    error: &serde_json::Error,
) -> Status {
    Status::invalid_argument(format!(
        "the payload for endpoint `{endpoint}` is not a JSON `{rust_type}`: {error} (payload: {})",
        excerpt(text)
    ))
}

/// A reply that could not be written as JSON.
pub(crate) fn unserializable(endpoint: &str, rust_type: &str, error: &serde_json::Error) -> Status {
    Status::internal(format!(
        "a reply of endpoint `{endpoint}` (`{rust_type}`) cannot be written as JSON: {error}"
    ))
}

/// No endpoint `name`, or not one of `kind`: the message lists those of
/// `kind` (`known`), and what `name` is if it is another kind.
pub(crate) fn unknown_endpoint(
    name: &str,
    kind: EndpointKind,
    actual: Option<EndpointKind>,
    known: &[&str],
) -> Status {
    let wanted = kind_name(kind);
    let known = if known.is_empty() {
        "none".to_string()
    } else {
        let quoted: Vec<String> = known.iter().map(|n| format!("`{n}`")).collect();
        quoted.join(", ")
    };
    match actual {
        Some(actual) => Status::invalid_argument(format!(
            "endpoint `{name}` is {}, not {}; the bench's {wanted}s: {known}",
            with_article(kind_name(actual)),
            with_article(wanted)
        )),
        None => Status::not_found(format!(
            "the bench has no {wanted} named `{name}`; its {wanted}s: {known}"
        )),
    }
}

/// A required field left out of a request.
pub(crate) fn missing(field: &str) -> Status {
    Status::invalid_argument(format!("the request has no `{field}`"))
}

/// What a kind of endpoint is called in messages.
fn kind_name(kind: EndpointKind) -> &'static str {
    match kind {
        EndpointKind::Event => "event endpoint",
        EndpointKind::Query => "query endpoint",
        EndpointKind::Sink => "sink",
        EndpointKind::Unspecified => "endpoint",
    }
}

/// `noun` with its indefinite article.
fn with_article(noun: &str) -> String {
    let article = if noun.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {noun}")
}

/// A simulation error, with the code of its kind.
pub(crate) fn simulation(error: SimulationError) -> Status {
    let message = error.to_string();
    match error {
        SimulationError::InvalidTime { .. } | SimulationError::Scheduling(_) => {
            Status::invalid_argument(message)
        }
        SimulationError::Halted { .. } => Status::aborted(message),
        SimulationError::Deadlock { .. }
        | SimulationError::ModelPanic { .. }
        | SimulationError::EventPanic { .. }
        | SimulationError::Timeout { .. } => Status::aborted(format!(
            "{message} (fatal: the bench must be rebuilt with `Init`)"
        )),
        _ => Status::failed_precondition(message),
    }
}

/// A scheduling error: the client's deadline or endpoint.
pub(crate) fn scheduling(error: SchedulingError) -> Status {
    Status::invalid_argument(error.to_string())
}

/// The first 200 characters of `text`, for a message.
fn excerpt(text: &str) -> String {
    const LIMIT: usize = 200;
    match text.char_indices().nth(LIMIT) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}
