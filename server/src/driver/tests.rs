//! The race between `Halt` and the end of the call it targets, made
//! deterministic: the halt is requested from inside the call, after its
//! last step, where a request over the network lands only by chance.

use causim::prelude::*;

use super::{Driver, Length};
use crate::bench::{Bench, Factory};
use crate::Endpoints;

/// A model that ticks every second for ever.
#[model]
#[derive(Debug)]
struct Ticker {}

#[model]
impl Ticker {
    #[init]
    fn start(&mut self, cx: &mut Context<Self>) {
        let second = Duration::from_secs(1);
        cx.schedule_periodic(second, second, Self::ports().tick, ())
            .expect("a positive period");
    }

    #[input]
    fn tick(&mut self) {}
}

fn driver() -> Driver {
    Driver::new(Factory::new(|(): ()| {
        let init = SimInit::new().with_threads(1);
        let endpoints = Endpoints::new(init.time_view());
        let init = init.add_model(Ticker {}, Mailbox::new(), "ticker");
        Ok::<_, SimulationError>(Bench::new(init, endpoints))
    }))
}

/// Steps the bench through a call, and returns the time reached; fails if
/// the step is halted.
async fn step(driver: &Driver) -> SimTime {
    driver
        .call("step", Length::Short, |local| {
            let simulation = &mut local.bench()?.simulation;
            simulation.step().map_err(crate::status::simulation)?;
            Ok(simulation.time())
        })
        .await
        .expect("not halted")
}

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime")
        .block_on(future)
}

#[test]
fn a_halt_the_call_did_not_see_does_not_stop_the_next_call() {
    let driver = driver();
    let state = driver.state.clone();
    block_on(async {
        driver
            .call("init", Length::Short, |local| local.init("").map(drop))
            .await
            .expect("builds");
        // The call steps, then a halt comes before it ends: the kernel
        // holds a halt request that no step will see.
        let halted = driver
            .call("step", Length::Short, move |local| {
                local.bench()?.simulation.step().expect("steps");
                Ok(state.halt())
            })
            .await
            .expect("completes");
        assert!(halted, "the call was in progress");
        // The next call is not stopped by it.
        let time = step(&driver).await;
        assert_eq!(time, SimTime::from_secs(2));
    });
}

#[test]
fn a_halt_with_no_call_in_progress_does_nothing() {
    let driver = driver();
    block_on(async {
        assert!(!driver.halt(), "nothing to halt before a bench");
        driver
            .call("init", Length::Short, |local| local.init("").map(drop))
            .await
            .expect("builds");
        assert!(!driver.halt(), "nothing running");
        let time = step(&driver).await;
        assert_eq!(time, SimTime::from_secs(1));
    });
}
