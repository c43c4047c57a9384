//! The command line of a server binary: `fn main` of a bench's server is
//! `causim_server::cli::main(server)`.
//!
//! ```text
//! --listen ADDR     address to bind (default 127.0.0.1:50051; port 0 picks one)
//! --allow-remote    allow an address that is not loopback (needs a token)
//! --token TOKEN     token every call must carry (or CAUSIM_SERVER_TOKEN)
//! --config JSON     configuration of the bench built at start (default: {})
//! --no-init         build no bench at start: clients call Init
//! --stop-on-eof     stop when standard input closes (for a parent process)
//! --tls-cert FILE   certificate chain, PEM (feature `tls`)
//! --tls-key FILE    private key, PEM (feature `tls`)
//! ```
//!
//! The server prints `listening on ADDR` on standard output once bound,
//! so that a parent that asked for port 0 learns the port.

use std::io::{BufRead, Write};
use std::net::SocketAddr;
use std::process::ExitCode;

use crate::{ServeOptions, Server};

/// The environment variable read for the token when `--token` is absent.
pub const TOKEN_VARIABLE: &str = "CAUSIM_SERVER_TOKEN";

/// The command-line help.
pub const HELP: &str = "\
Serves a causim bench over gRPC.

Options:
  --listen ADDR     address to bind (default 127.0.0.1:50051; port 0 picks one)
  --allow-remote    allow an address that is not loopback (needs a token)
  --token TOKEN     token every call must carry (or CAUSIM_SERVER_TOKEN)
  --config JSON     configuration of the bench built at start (default: {})
  --no-init         build no bench at start: clients call Init
  --stop-on-eof     stop when standard input closes
  --tls-cert FILE   certificate chain, PEM (feature `tls`)
  --tls-key FILE    private key, PEM (feature `tls`)";

/// What the command line asked.
#[derive(Debug, Default)]
struct Args {
    /// Where and how to listen.
    options: ServeOptions,
    /// The configuration of the bench built at start; `None`: none built.
    config: Option<String>,
    /// Stop when standard input closes.
    stop_on_eof: bool,
    /// `--help`.
    help: bool,
    /// `--tls-cert`, `--tls-key`.
    tls_files: (Option<String>, Option<String>),
}

/// Parses `args` (without the program name).
fn parse(args: impl IntoIterator<Item = String>) -> Result<Args, String> {
    let mut parsed = Args {
        config: Some(String::new()),
        ..Args::default()
    };
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--listen" => {
                let text = value("--listen")?;
                parsed.options.address = text
                    .parse::<SocketAddr>()
                    .map_err(|e| format!("--listen {text}: {e}"))?;
            }
            "--allow-remote" => parsed.options.allow_remote = true,
            "--token" => parsed.options.token = Some(value("--token")?),
            "--config" => parsed.config = Some(value("--config")?),
            "--no-init" => parsed.config = None,
            "--stop-on-eof" => parsed.stop_on_eof = true,
            "--tls-cert" => parsed.tls_files.0 = Some(value("--tls-cert")?),
            "--tls-key" => parsed.tls_files.1 = Some(value("--tls-key")?),
            "--help" | "-h" => parsed.help = true,
            other => return Err(format!("unknown option `{other}` (see --help)")),
        }
    }
    if parsed.options.token.is_none() {
        parsed.options.token = std::env::var(TOKEN_VARIABLE).ok();
    }
    Ok(parsed)
}

/// Serves `server` as the command line says; the exit code says how it
/// ended (1 with a message on standard error if it could not serve).
pub fn main(server: Server) -> ExitCode {
    match try_main(server) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The body of [`main`].
fn try_main(server: Server) -> Result<(), String> {
    let mut args = parse(std::env::args().skip(1))?;
    if args.help {
        println!("{HELP}");
        return Ok(());
    }
    set_tls(&mut args)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let served = runtime.block_on(async move {
        if let Some(config) = &args.config {
            server.init(config).await.map_err(|e| e.to_string())?;
        }
        let listening = server.bind(&args.options).await.map_err(|e| with_sources(&e))?;
        if !listening.local_addr().ip().is_loopback() && !tls_enabled(&args) {
            eprintln!("warning: serving another interface without TLS: the token crosses the network in clear text");
        }
        println!("listening on {}", listening.local_addr());
        std::io::stdout().flush().map_err(|e| e.to_string())?;
        let shutdown = stop_signal(args.stop_on_eof);
        listening.serve_until(shutdown).await.map_err(|e| with_sources(&e))
    });
    // A call still running after the grace period (halted, ending its
    // time step) does not keep the process.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    served
}

/// `error`'s message followed by those of its sources: a transport error
/// says little on its own.
fn with_sources(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    message
}

/// Completes when standard input closes, if asked; never otherwise.
async fn stop_signal(on_eof: bool) {
    if !on_eof {
        return std::future::pending().await;
    }
    let (closed, wait) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        let mut sink = String::new();
        let stdin = std::io::stdin();
        let mut lock = stdin.lock();
        while matches!(lock.read_line(&mut sink), Ok(n) if n > 0) {
            sink.clear();
        }
        let _ = closed.send(());
    });
    let _ = wait.await;
}

/// Reads the TLS files into the options.
#[cfg(feature = "tls")]
fn set_tls(args: &mut Args) -> Result<(), String> {
    match &args.tls_files {
        (None, None) => Ok(()),
        (Some(cert), Some(key)) => {
            let read = |path: &str| std::fs::read(path).map_err(|e| format!("{path}: {e}"));
            args.options.tls = Some(crate::TlsIdentity {
                cert_pem: read(cert)?,
                key_pem: read(key)?,
            });
            Ok(())
        }
        _ => Err("--tls-cert and --tls-key go together".into()),
    }
}

/// Without the `tls` feature, TLS options are an error.
#[cfg(not(feature = "tls"))]
fn set_tls(args: &mut Args) -> Result<(), String> {
    match &args.tls_files {
        (None, None) => Ok(()),
        _ => Err("this server was built without TLS (cargo feature `tls` of causim-server)".into()),
    }
}

/// Whether the options serve TLS.
fn tls_enabled(args: &Args) -> bool {
    #[cfg(feature = "tls")]
    return args.options.tls.is_some();
    #[cfg(not(feature = "tls"))]
    return {
        let _ = args;
        false
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Result<Args, String> {
        parse(list.iter().map(|s| s.to_string()))
    }

    #[test]
    fn defaults_are_loopback_with_a_bench_built_at_start() {
        let parsed = args(&[]).expect("no options");
        assert!(parsed.options.address.ip().is_loopback());
        assert!(!parsed.options.allow_remote);
        assert_eq!(parsed.config.as_deref(), Some(""));
    }

    #[test]
    fn options_are_read() {
        let parsed = args(&[
            "--listen",
            "0.0.0.0:0",
            "--allow-remote",
            "--token",
            "s3cret",
            "--no-init",
        ])
        .expect("valid options");
        assert_eq!(parsed.options.address.to_string(), "0.0.0.0:0");
        assert!(parsed.options.allow_remote);
        assert_eq!(parsed.options.token.as_deref(), Some("s3cret"));
        assert_eq!(parsed.config, None);
    }

    #[test]
    fn bad_options_are_refused_by_name() {
        assert!(args(&["--listen"])
            .unwrap_err()
            .contains("--listen needs a value"));
        assert!(args(&["--listen", "nowhere"])
            .unwrap_err()
            .contains("--listen nowhere"));
        assert!(args(&["--frobnicate"])
            .unwrap_err()
            .contains("`--frobnicate`"));
    }
}
