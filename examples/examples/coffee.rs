//! A coffee machine as a state machine with keyed, cancellable timeouts.
//!
//! ```sh
//! cargo run --release --example coffee
//! ```
//!
//! Plays one morning (see `causim_examples::coffee::MORNING`) and prints
//! every state change, every timeout that fired and the counters; writes
//! the machine's state as a VCD waveform, recorded with `causim-record`.

use std::process::ExitCode;

use causim_examples::coffee::{self, clock, MORNING, STATES};
use causim_examples::output::{run_main, write_waveform, AnyError, Options};

const HELP: &str = "\
Plays a morning at a coffee machine: coffees, a stop, an auto-off, a fault.

Options:
  --threads N   executor threads; 1 is deterministic (default 1)
  --out DIR     where coffee.vcd (the state as a waveform) goes
                (default: <target dir>/causim-examples)";

fn main() -> ExitCode {
    run_main(example)
}

fn example() -> Result<(), AnyError> {
    let Some(options) = Options::command_line(HELP, &["threads", "out"])? else {
        return Ok(());
    };
    let out_dir = options.out_dir()?;
    let run = coffee::run(&MORNING, options.get("threads", 1)?)?;

    println!("State changes\n");
    println!("{:>8}  {:<9}    {:<9} cause", "time", "from", "to");
    for t in &run.transitions {
        let (from, to) = (format!("{:?}", t.from), format!("{:?}", t.to));
        println!("{:>8}  {from:<9} -> {to:<9} {}", clock(t.time), t.cause);
    }

    println!("\nTimeouts that fired\n");
    for f in &run.firings {
        let note = if f.armed { "" } else { "  (was cancelled!)" };
        println!("{:>8}  {:?}{note}", clock(f.time), f.timer);
    }

    let s = &run.stats;
    println!("\nCounters\n");
    println!("{:<28}{:>6}", "cups brewed", s.cups);
    println!("{:<28}{:>6}", "brews stopped", s.aborted);
    println!("{:<28}{:>6}", "presses ignored", s.ignored_presses);
    println!("{:<28}{:>6}", "timeouts armed", s.armed);
    println!("{:<28}{:>6}", "timeouts cancelled", s.cancelled);
    println!("{:<28}{:>6}", "timeouts fired", s.fired);
    println!("{:<28}{:>6}", "cancelled but fired", s.stale);

    println!("\nTime in each state\n");
    for (state, seconds) in STATES.iter().zip(run.time_in_state) {
        println!("{:<28}{:>6.0} s", format!("{state:?}"), seconds);
    }
    write_waveform(&out_dir, "coffee", &run.series)?;
    Ok(())
}
