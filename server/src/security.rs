//! Who may reach the server: loopback by default, a token otherwise.
//!
//! The server binds to the loopback interface unless told otherwise.
//! Binding to any other address is refused unless the options both allow
//! it explicitly and set a token; the token is then checked on every call
//! (`authorization: Bearer <token>` metadata), before the call reaches the
//! bench. A token may be set on loopback too. TLS (the `tls` feature,
//! rustls) encrypts the connection, token included; without it a token
//! crosses the network in clear text, so a remote server should use both.

use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;

use tonic::service::Interceptor;
use tonic::{Request, Status};

/// Why the server refused its options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// A non-loopback address without `allow_remote`.
    RemoteNotAllowed(SocketAddr),
    /// `allow_remote` without a token.
    NoToken(SocketAddr),
    /// An empty token.
    EmptyToken,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::RemoteNotAllowed(address) => write!(
                f,
                "refusing to bind {address}: it is not a loopback address, so other machines \
                 could drive the bench; allow it explicitly (`--allow-remote`) and set a token"
            ),
            Refusal::NoToken(address) => write!(
                f,
                "refusing to bind {address} without a token: a server reachable from other \
                 machines checks a token on every call (`--token`, or CAUSIM_SERVER_TOKEN)"
            ),
            Refusal::EmptyToken => write!(f, "the token is empty"),
        }
    }
}

impl std::error::Error for Refusal {}

/// Checks the binding rules of the module docs.
pub(crate) fn check_binding(
    address: SocketAddr,
    allow_remote: bool,
    token: Option<&str>,
) -> Result<(), Refusal> {
    if token.is_some_and(str::is_empty) {
        return Err(Refusal::EmptyToken);
    }
    if address.ip().is_loopback() {
        return Ok(());
    }
    if !allow_remote {
        return Err(Refusal::RemoteNotAllowed(address));
    }
    if token.is_none() {
        return Err(Refusal::NoToken(address));
    }
    Ok(())
}

/// Checks the token of every call, if the server has one.
#[derive(Clone)]
pub(crate) struct TokenCheck {
    /// The expected `authorization` value, `Bearer <token>`.
    expected: Option<Arc<[u8]>>,
}

impl TokenCheck {
    /// Checks `token`, or nothing if `None`.
    pub(crate) fn new(token: Option<&str>) -> Self {
        TokenCheck {
            expected: token.map(|t| format!("Bearer {t}").into_bytes().into()),
        }
    }
}

impl Interceptor for TokenCheck {
    fn call(&mut self, request: Request<()>) -> Result<Request<()>, Status> {
        let Some(expected) = &self.expected else {
            return Ok(request);
        };
        match request.metadata().get("authorization") {
            Some(given) if same_bytes(given.as_bytes(), expected) => Ok(request),
            Some(_) => Err(Status::unauthenticated("wrong token")),
            None => Err(Status::unauthenticated(
                "this server needs a token: `authorization: Bearer <token>` metadata",
            )),
        }
    }
}

/// Compares in a time that depends on the lengths only, not on where the
/// bytes differ (no timing hint on the token's prefix).
fn same_bytes(given: &[u8], expected: &[u8]) -> bool {
    if given.len() != expected.len() {
        return false;
    }
    given
        .iter()
        .zip(expected)
        .fold(0u8, |diff, (a, b)| diff | (a ^ b))
        == 0
}

impl fmt::Debug for TokenCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenCheck")
            .field("token", &self.expected.as_ref().map(|_| "<hidden>"))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn address(text: &str) -> SocketAddr {
        text.parse().expect("a socket address")
    }

    #[test]
    fn loopback_needs_nothing() {
        assert_eq!(check_binding(address("127.0.0.1:0"), false, None), Ok(()));
        assert_eq!(check_binding(address("[::1]:0"), false, None), Ok(()));
    }

    #[test]
    fn another_interface_needs_the_option_and_a_token() {
        let any = address("0.0.0.0:50051");
        assert_eq!(
            check_binding(any, false, Some("t")),
            Err(Refusal::RemoteNotAllowed(any))
        );
        assert_eq!(check_binding(any, true, None), Err(Refusal::NoToken(any)));
        assert_eq!(check_binding(any, true, Some("t")), Ok(()));
        assert_eq!(check_binding(any, true, Some("")), Err(Refusal::EmptyToken));
    }

    #[test]
    fn the_token_is_compared_whole() {
        assert!(same_bytes(b"Bearer abc", b"Bearer abc"));
        assert!(!same_bytes(b"Bearer abd", b"Bearer abc"));
        assert!(!same_bytes(b"Bearer ab", b"Bearer abc"));
    }
}
