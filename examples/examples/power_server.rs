//! The power bench over gRPC, for scripts and ground-segment tools (see
//! `causim_examples::power::remote` for its endpoints and `docs/remote.md`
//! for the protocol and the Python client).
//!
//! ```sh
//! cargo run --example power_server                      # 127.0.0.1:50051
//! cargo run --example power_server -- --listen 127.0.0.1:0 --stop-on-eof
//! cargo run --example power_server -- --help
//! ```

use std::process::ExitCode;

use causim_examples::power::remote;
use causim_server::{cli, Server};

fn main() -> ExitCode {
    match Server::new(remote::build) {
        Ok(server) => cli::main(server),
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
