//! Serving a bench: options, binding, and the server's life.

use std::fmt;
use std::future::Future;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::server::TcpIncoming;

use crate::bench::{Bench, Factory};
use crate::driver::Driver;
use crate::proto::simulator_server::SimulatorServer;
use crate::security::{check_binding, Refusal, TokenCheck};
use crate::service::Service;

/// The largest message the server takes or sends (a snapshot, a drained
/// sink): 64 MiB.
pub const MAX_MESSAGE: usize = 64 * 1024 * 1024;

/// The port a server listens on unless told otherwise.
pub const DEFAULT_PORT: u16 = 50051;

/// Where and how a server listens.
#[derive(Clone)]
pub struct ServeOptions {
    /// The address to bind; port 0 picks a free port. Loopback by default.
    pub address: SocketAddr,
    /// Allows an address that is not loopback (a token is then required).
    pub allow_remote: bool,
    /// The token every call must carry, if any.
    pub token: Option<String>,
    /// The server's certificate chain and private key, PEM, for TLS.
    #[cfg(feature = "tls")]
    pub tls: Option<TlsIdentity>,
}

/// A TLS identity: certificate chain and private key, both PEM.
#[cfg(feature = "tls")]
#[derive(Clone)]
pub struct TlsIdentity {
    /// The certificate chain, PEM.
    pub cert_pem: Vec<u8>,
    /// The private key, PEM.
    pub key_pem: Vec<u8>,
}

#[cfg(feature = "tls")]
impl fmt::Debug for TlsIdentity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TlsIdentity")
            .field("cert_pem", &format_args!("{} bytes", self.cert_pem.len()))
            .field("key_pem", &"<hidden>")
            .finish()
    }
}

impl Default for ServeOptions {
    /// Loopback, port [`DEFAULT_PORT`], no token, no TLS.
    fn default() -> Self {
        ServeOptions {
            address: SocketAddr::from((Ipv4Addr::LOCALHOST, DEFAULT_PORT)),
            allow_remote: false,
            token: None,
            #[cfg(feature = "tls")]
            tls: None,
        }
    }
}

impl fmt::Debug for ServeOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut debug = f.debug_struct("ServeOptions");
        debug
            .field("address", &self.address)
            .field("allow_remote", &self.allow_remote)
            .field("token", &self.token.as_ref().map(|_| "<hidden>"));
        #[cfg(feature = "tls")]
        debug.field("tls", &self.tls.is_some());
        debug.finish()
    }
}

/// Why a server could not start or stopped.
#[derive(Debug)]
pub enum ServeError {
    /// The options break the security rules.
    Refused(Refusal),
    /// Binding the address or starting the simulation's thread failed.
    Io(std::io::Error),
    /// The transport failed (or TLS could not be set up).
    Transport(tonic::transport::Error),
    /// Building the bench at start failed.
    Init(tonic::Status),
}

impl fmt::Display for ServeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServeError::Refused(refusal) => refusal.fmt(f),
            ServeError::Io(error) => write!(f, "cannot serve: {error}"),
            ServeError::Transport(error) => write!(f, "the transport failed: {error}"),
            ServeError::Init(status) => {
                write!(f, "the bench could not be built: {}", status.message())
            }
        }
    }
}

impl std::error::Error for ServeError {}

impl From<std::io::Error> for ServeError {
    fn from(error: std::io::Error) -> Self {
        ServeError::Io(error)
    }
}

/// A server of one bench, before it listens.
///
/// ```no_run
/// # async fn example() -> Result<(), causim_server::ServeError> {
/// use causim::prelude::*;
/// use causim_server::{Bench, Endpoints, ServeOptions, Server};
///
/// /// The bench's configuration: what `Init` takes, as JSON.
/// #[derive(serde::Deserialize, schemars::JsonSchema, Default)]
/// struct Config {
///     threads: Option<usize>,
/// }
///
/// let server = Server::new(|config: Config| {
///     let init = SimInit::new().with_threads(config.threads.unwrap_or(1));
///     let endpoints = Endpoints::new(init.time_view());
///     // … add models, declare endpoints …
///     Ok::<_, SimulationError>(Bench::new(init, endpoints))
/// })?;
/// let listening = server.bind(&ServeOptions::default()).await?;
/// println!("listening on {}", listening.local_addr());
/// listening.serve().await
/// # }
/// ```
pub struct Server {
    /// The gRPC service.
    service: Arc<Service>,
}

impl Server {
    /// A server of the bench that `build` makes from a configuration `C`
    /// (JSON; an empty one is `C::default()`); the server initialises it.
    /// No bench exists until [`init`](Self::init) or a client's `Init`.
    pub fn new<C, E>(
        build: impl FnMut(C) -> Result<Bench, E> + Send + 'static,
    ) -> Result<Self, ServeError>
    where
        C: DeserializeOwned + JsonSchema + Default,
        E: fmt::Display,
    {
        let factory = Factory::new(build);
        let schema = factory.config_schema.clone();
        let driver = Driver::new(factory);
        Ok(Server {
            service: Arc::new(Service::new(driver, schema)),
        })
    }

    /// Builds the bench of `config` (JSON text; empty: the defaults) now,
    /// before any client calls `Init`.
    pub async fn init(&self, config: &str) -> Result<(), ServeError> {
        self.service
            .init(config.to_string())
            .await
            .map(drop)
            .map_err(ServeError::Init)
    }

    /// Checks `options` against the security rules and binds the address.
    pub async fn bind(self, options: &ServeOptions) -> Result<Listening, ServeError> {
        check_binding(
            options.address,
            options.allow_remote,
            options.token.as_deref(),
        )
        .map_err(ServeError::Refused)?;
        // A TLS identity that does not load is reported now, before the
        // server says it listens.
        #[cfg(feature = "tls")]
        if let Some(identity) = &options.tls {
            let identity =
                tonic::transport::Identity::from_pem(&identity.cert_pem, &identity.key_pem);
            tonic::transport::Server::builder()
                .tls_config(tonic::transport::ServerTlsConfig::new().identity(identity))
                .map_err(ServeError::Transport)?;
        }
        // Keepalives find a client that vanished without closing its
        // connection (its subscriptions then end).
        let incoming = TcpIncoming::bind(options.address)?
            .with_nodelay(Some(true))
            .with_keepalive(Some(KEEPALIVE));
        let local_addr = incoming.local_addr()?;
        Ok(Listening {
            service: self.service,
            incoming,
            local_addr,
            check: TokenCheck::new(options.token.as_deref()),
            #[cfg(feature = "tls")]
            tls: options.tls.clone(),
        })
    }
}

impl fmt::Debug for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Server").finish_non_exhaustive()
    }
}

/// A server bound to its address, ready to serve.
pub struct Listening {
    /// The gRPC service.
    service: Arc<Service>,
    /// The bound socket.
    incoming: TcpIncoming,
    /// Its address (the port picked, if 0 was asked).
    local_addr: SocketAddr,
    /// The token check of every call.
    check: TokenCheck,
    /// The TLS identity, if any.
    #[cfg(feature = "tls")]
    tls: Option<TlsIdentity>,
}

impl Listening {
    /// The address clients connect to.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Serves until the process ends.
    pub async fn serve(self) -> Result<(), ServeError> {
        self.serve_until(std::future::pending()).await
    }

    /// Serves until `shutdown` completes, then stops taking calls and
    /// waits for the ones in progress.
    pub async fn serve_until(self, shutdown: impl Future<Output = ()>) -> Result<(), ServeError> {
        // Snapshots and drained sinks can be large: 64 MiB each way (the
        // Python client accepts as much).
        let halting = self.service.clone();
        let server = SimulatorServer::from_arc(self.service)
            .max_decoding_message_size(MAX_MESSAGE)
            .max_encoding_message_size(MAX_MESSAGE);
        let service = InterceptedService::new(server, self.check);
        let builder = tonic::transport::Server::builder()
            .http2_keepalive_interval(Some(KEEPALIVE))
            .http2_keepalive_timeout(Some(KEEPALIVE));
        #[cfg(feature = "tls")]
        let builder = match self.tls {
            Some(identity) => {
                let identity =
                    tonic::transport::Identity::from_pem(identity.cert_pem, identity.key_pem);
                builder
                    .tls_config(tonic::transport::ServerTlsConfig::new().identity(identity))
                    .map_err(ServeError::Transport)?
            }
            None => builder,
        };
        // Once `shutdown` completes: halt the call in progress (a run
        // would otherwise hold its blocking thread for ever), stop taking
        // calls, and give the open ones (a subscription) a grace period.
        let (fired, grace) = tokio::sync::oneshot::channel();
        let shutdown = async move {
            shutdown.await;
            halting.halt();
            let _ = fired.send(());
        };
        let mut builder = builder;
        let serving = builder
            .add_service(service)
            .serve_with_incoming_shutdown(self.incoming, shutdown);
        tokio::select! {
            served = serving => served.map_err(ServeError::Transport),
            () = after_grace(grace) => Ok(()),
        }
    }
}

/// The interval of TCP and HTTP/2 keepalives, and how long an HTTP/2
/// keepalive waits for its answer.
const KEEPALIVE: std::time::Duration = std::time::Duration::from_secs(20);

/// How long open calls and streams may go on once the server stops.
const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// Completes [`SHUTDOWN_GRACE`] after `fired` does; never if it is
/// dropped unfired (the server ended on its own).
async fn after_grace(fired: tokio::sync::oneshot::Receiver<()>) {
    match fired.await {
        Ok(()) => tokio::time::sleep(SHUTDOWN_GRACE).await,
        Err(_) => std::future::pending().await,
    }
}

impl fmt::Debug for Listening {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Listening")
            .field("local_addr", &self.local_addr)
            .finish_non_exhaustive()
    }
}
