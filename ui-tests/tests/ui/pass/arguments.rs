//! `#[model(crate = ..., message = ..., ports = ...)]`, and a model in a
//! private module with private payload types, linted strictly.
#![deny(warnings, missing_docs, missing_debug_implementations)]
//! A bench.

extern crate causim as sim;

mod private {
    use sim::prelude::*;

    #[derive(Clone, Debug)]
    struct Secret(u32);

    /// A model that keeps a secret.
    #[sim::model(crate = ::sim)]
    #[derive(Debug)]
    pub struct Vault {
        secret: Option<Secret>,
    }

    #[sim::model(crate = sim, message = VaultCommand, ports = VaultInputs)]
    impl Vault {
        /// Makes an empty vault.
        pub fn new() -> Self {
            Vault { secret: None }
        }

        #[input]
        fn store(&mut self, secret: Secret) {
            self.secret = Some(secret);
        }

        #[replier]
        fn peek(&mut self) -> bool {
            self.secret.as_ref().is_some_and(|s| s.0 > 0)
        }
    }

    /// Runs a bench with the vault.
    pub fn run() -> Result<bool, SimulationError> {
        let mailbox = Mailbox::new();
        let address = mailbox.address();
        let mut simu = SimInit::new()
            .add_model(Vault::new(), mailbox, "vault")
            .init(SimTime::ZERO)?;
        let ports: VaultInputs = Vault::ports();
        simu.process_event(ports.store, Secret(7), &address)?;
        let _unused: Option<VaultCommand> = None;
        simu.process_query(ports.peek, (), &address)
    }
}

fn main() {
    assert_eq!(private::run(), Ok(true));
}
