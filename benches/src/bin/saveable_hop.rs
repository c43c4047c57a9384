//! `saveable_hop`: what being saveable costs a message.
//!
//! ```text
//! cargo run --release -p causim-benches --bin saveable_hop -- [--reps N] [--hops N]
//! ```
//!
//! A saveable model (`#[model(save)]`) runs from a cell that the snapshot
//! code shares with its task, and takes and gives back a gate around its
//! wait for messages (see `runtime/src/model/shared.rs`); any other model
//! runs inline in its task. This passes a token around a ring of 100
//! models, `hops` times, once with saveable models and once without, on
//! one thread, alternating the two `reps` times, and prints the median ns
//! per hop of each and their ratio.

use std::process::ExitCode;
use std::time::Instant;

use causim::prelude::*;

/// Models in the ring.
const RING: usize = 100;

/// A saveable model of the ring: takes the token and forwards it while
/// hops remain.
#[model(save)]
#[derive(Debug)]
pub struct Saveable {
    /// The next model.
    pub next: Output<u64>,
    /// Tokens seen, so that the state is not empty.
    seen: u64,
}

#[model(save)]
impl Saveable {
    /// Takes the token, forwards it while hops remain.
    #[input]
    pub async fn token(&mut self, hops_left: u64) {
        self.seen += 1;
        if hops_left > 0 {
            self.next.send(hops_left - 1).await;
        }
    }
}

/// The same model, not saveable.
#[model]
#[derive(Debug)]
pub struct Plain {
    /// The next model.
    pub next: Output<u64>,
    /// Tokens seen.
    seen: u64,
}

#[model]
impl Plain {
    /// Takes the token, forwards it while hops remain.
    #[input]
    pub async fn token(&mut self, hops_left: u64) {
        self.seen += 1;
        if hops_left > 0 {
            self.next.send(hops_left - 1).await;
        }
    }
}

/// Defines `$fn(hops) -> ns per hop`: the token sent `hops` hops around
/// a ring of `$model`s.
macro_rules! ring_run {
    ($fn:ident, $model:ident) => {
        fn $fn(hops: u64) -> f64 {
            let mailboxes: Vec<Mailbox<$model>> = (0..RING).map(|_| Mailbox::new()).collect();
            let addresses: Vec<_> = mailboxes.iter().map(Mailbox::address).collect();
            let mut init = SimInit::new().with_threads(1);
            for (i, mailbox) in mailboxes.into_iter().enumerate() {
                let mut model = $model {
                    next: Output::new(),
                    seen: 0,
                };
                model
                    .next
                    .connect($model::ports().token, &addresses[(i + 1) % RING]);
                init = init.add_model(model, mailbox, format!("m{i}"));
            }
            let mut simu = init.init(SimTime::ZERO).expect("the ring starts");
            let start = Instant::now();
            simu.process_event($model::ports().token, hops, &addresses[0])
                .expect("the token goes round");
            start.elapsed().as_nanos() as f64 / hops as f64
        }
    };
}

ring_run!(saveable_ring, Saveable);
ring_run!(plain_ring, Plain);

/// The median of `values`.
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// `--reps N --hops N`, each at least 1.
fn parse(mut args: impl Iterator<Item = String>) -> Result<(usize, u64), String> {
    let (mut reps, mut hops) = (9, 2_000_000);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        let number: u64 = value
            .parse()
            .map_err(|_| format!("{flag}: `{value}` is not a number"))?;
        match flag.as_str() {
            "--reps" => reps = number as usize,
            "--hops" => hops = number,
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    if reps == 0 || hops == 0 {
        return Err("--reps and --hops must be at least 1".into());
    }
    Ok((reps, hops))
}

fn main() -> ExitCode {
    let (reps, hops) = match parse(std::env::args().skip(1)) {
        Ok(parsed) => parsed,
        Err(message) => {
            eprintln!("saveable_hop: {message}\nusage: saveable_hop [--reps N] [--hops N]");
            return ExitCode::from(2);
        }
    };
    let (mut saveable, mut plain) = (Vec::new(), Vec::new());
    for _ in 0..reps {
        plain.push(plain_ring(hops));
        saveable.push(saveable_ring(hops));
    }
    let (saveable, plain) = (median(saveable), median(plain));
    println!("ring of {RING}, {hops} hops, one thread, median of {reps}:");
    println!("plain    {plain:.2} ns/hop");
    println!("saveable {saveable:.2} ns/hop ({:.3}x)", saveable / plain);
    ExitCode::SUCCESS
}
