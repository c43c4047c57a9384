//! Every mistake in a partitioned bench is an error naming the partition,
//! the link and the ports; a process that fails, is silent or runs another
//! bench stops the others with an error naming it.

#[path = "support/beacon.rs"]
mod beacon;

use std::time::Duration;

use beacon::{Beacon, Station};
use causim::prelude::*;
use causim_zenoh::{
    Deployment, InMemory, Link, PartitionError, PartitionRunner, PartitionedBench, Solo,
};

/// A beacon in `space` linked to a station in `ground` with `lookahead`.
fn downlink_bench(lookahead: Duration) -> (PartitionedBench, Link<u64>) {
    let mut bench = PartitionedBench::new();
    let downlink = bench.link::<u64>("downlink", "space", "ground", lookahead);
    beacon_in_space(&mut bench, downlink);
    station_in(&mut bench, "ground", downlink);
    (bench, downlink)
}

/// The error of hosting `bench` as process `process` of `deployment`.
fn host_error(bench: &PartitionedBench, deployment: &Deployment, process: usize) -> String {
    match bench.host(deployment, process) {
        Ok(_) => panic!("hosting should fail"),
        Err(error) => error.to_string(),
    }
}

/// Two processes, space then ground.
fn two() -> Deployment {
    Deployment::new([["space"], ["ground"]])
}

/// Runs process 0 of [`two`] from `benches[0]` and process 1 from
/// `benches[1]`, in threads exchanging in memory, to `end`; returns each
/// one's error, having checked that a runner stopped by an error refuses
/// every later call.
fn errors_of_two(benches: [&PartitionedBench; 2], end: SimTime) -> Vec<String> {
    errors_of_two_doing(benches, FROM_ZERO, |_, runner| runner.run_until(end))
}

/// How a process of a test starts.
enum Start {
    /// `init` at a time.
    At(SimTime),
    /// `restore` from a snapshot.
    Restore(Vec<u8>),
}

/// Both processes start at time zero.
const FROM_ZERO: [Start; 2] = [Start::At(SimTime::ZERO), Start::At(SimTime::ZERO)];

/// Starts process `p` of [`two`] from `benches[p]` as `starts[p]` says, in
/// threads exchanging in memory, and has it `act`; returns each one's
/// error, having checked that a runner stopped by an error refuses every
/// later call.
fn errors_of_two_doing(
    benches: [&PartitionedBench; 2],
    starts: [Start; 2],
    act: impl Fn(usize, &mut PartitionRunner) -> Result<(), PartitionError> + Sync,
) -> Vec<String> {
    in_two_processes(|process, transport| {
        let hosted = benches[process].host(&two(), process).unwrap();
        let mut runner = match &starts[process] {
            Start::At(time) => hosted.init(*time, transport),
            Start::Restore(snapshot) => hosted.restore(snapshot.as_slice(), transport),
        }
        .unwrap();
        let error = act(process, &mut runner).unwrap_err().to_string();
        let again = runner.run_until(SimTime::MAX).unwrap_err();
        assert!(matches!(again, PartitionError::Stopped(_)), "{again}");
        error
    })
}

/// Adds partition `space`: a beacon sending on `downlink`.
fn beacon_in_space(bench: &mut PartitionedBench, downlink: Link<u64>) {
    bench.partition("space", move |p| {
        let mut beacon = Beacon::new();
        p.link_from(downlink, &mut beacon.out);
        p.add_model(beacon, Mailbox::new(), "beacon");
    });
}

/// Adds partition `partition`: a station receiving `downlink`.
fn station_in(bench: &mut PartitionedBench, partition: &str, downlink: Link<u64>) {
    bench.partition(partition, move |p| {
        let mailbox = Mailbox::new();
        p.link_to(downlink, Station::ports().receive, &mailbox);
        p.add_model(Station::new(), mailbox, "station");
    });
}

/// Runs `process` for each process of [`two`], in threads exchanging in
/// memory, and returns what each returned.
fn in_two_processes<R: Send>(process: impl Fn(usize, InMemory) -> R + Sync) -> Vec<R> {
    let transports = InMemory::connect(2, Duration::from_secs(20));
    let process = &process;
    std::thread::scope(|scope| {
        let handles: Vec<_> = transports
            .into_iter()
            .enumerate()
            .map(|(index, transport)| scope.spawn(move || process(index, transport)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// Fails unless `error` starts with `prefix`, showing it.
fn assert_starts(error: &str, prefix: &str) {
    assert!(error.starts_with(prefix), "{error}");
}

#[test]
fn a_link_without_lookahead_is_refused_naming_its_ports() {
    let (bench, _) = downlink_bench(Duration::ZERO);
    assert_eq!(
        host_error(&bench, &Deployment::single(), 0),
        "link `downlink` (from `beacon.out` to `Station.receive`) has no lookahead: a link \
         between partitions needs a positive minimum delay"
    );
    // Each process names the ports it knows.
    assert!(host_error(&bench, &two(), 0).contains("from `beacon.out` to ports in another process"));
    assert!(host_error(&bench, &two(), 1)
        .contains("from ports in another process to `Station.receive`"));
}

/// A beacon in `space` whose `wire` connects it directly to the mailbox
/// of a station in `ground`, without a link.
fn directly_wired(wire: fn(&mut Beacon, &Address<Station>)) -> PartitionedBench {
    let mut bench = PartitionedBench::new();
    let station = Mailbox::<Station>::new();
    let address = station.address();
    let station = std::sync::Mutex::new(Some(station));
    bench.partition("space", move |p| {
        let mut beacon = Beacon::new();
        wire(&mut beacon, &address);
        p.add_model(beacon, Mailbox::new(), "beacon");
    });
    bench.partition("ground", move |p| {
        if let Some(mailbox) = station.lock().unwrap().take() {
            p.add_model(Station::new(), mailbox, "station");
        }
    });
    bench
}

#[test]
fn an_event_connection_across_partitions_is_refused_naming_its_ports() {
    let bench =
        directly_wired(|beacon, station| beacon.out.connect(Station::ports().receive, station));
    assert_eq!(
        host_error(&bench, &Deployment::single(), 0),
        "the event connection from `beacon.out` to `station.receive` crosses partitions \
         without a link: it would need an immediate delivery; connect the two through a link \
         with a lookahead"
    );
}

#[test]
fn a_request_across_partitions_is_refused_naming_its_ports() {
    let bench =
        directly_wired(|beacon, station| beacon.ask.connect(Station::ports().total, station));
    // In the process of `space`, the station is not there at all.
    assert_eq!(
        host_error(&bench, &two(), 0),
        "the request connection from `beacon.ask` to `Station.total` crosses partitions \
         without a link: it would need an immediate reply; connect the two through a link \
         with a lookahead"
    );
}

#[test]
fn link_ends_in_the_wrong_partition_or_unconnected_are_refused() {
    let mut bench = PartitionedBench::new();
    let downlink = bench.link::<u64>("downlink", "space", "ground", Duration::from_millis(1));
    station_in(&mut bench, "space", downlink);
    bench.partition("ground", |_| {});
    assert_eq!(
        host_error(&bench, &Deployment::single(), 0),
        "link `downlink`: ends in partition `ground` but is connected in partition `space`"
    );

    let mut bench = PartitionedBench::new();
    bench.link::<u64>("downlink", "space", "ground", Duration::from_millis(1));
    bench.partition("space", |_| {});
    bench.partition("ground", |_| {});
    assert_eq!(
        host_error(&bench, &Deployment::single(), 0),
        "link `downlink`: no output of partition `space` is connected to it (`link_from` in \
         its builder)"
    );
}

#[test]
fn a_link_of_another_bench_is_refused() {
    let (_, foreign) = downlink_bench(Duration::from_millis(1));
    let mut bench = PartitionedBench::new();
    bench.partition("space", move |p| {
        let mut beacon = Beacon::new();
        p.link_from(foreign, &mut beacon.out);
        p.add_model(beacon, Mailbox::new(), "beacon");
    });
    assert_eq!(
        host_error(&bench, &Deployment::single(), 0),
        "link `#0`: used in partition `space` but declared by another partitioned bench"
    );
}

#[test]
fn wrong_declarations_and_deployments_are_refused() {
    let (bench, _) = downlink_bench(Duration::from_millis(1));
    let cases = [
        (
            Deployment::new([["space"], ["moon"]]),
            0,
            "the deployment places partition `moon`, which the bench does not declare",
        ),
        (
            Deployment::new([vec!["space", "ground"], vec!["ground"]]),
            0,
            "the deployment places partition `ground` in two processes (0 and 1)",
        ),
        (
            Deployment::new([["space"]]),
            0,
            "the deployment places partition `ground` in no process",
        ),
        (
            Deployment::new([vec!["space", "ground"], vec![]]),
            0,
            "process 1 of the deployment hosts no partition",
        ),
        (
            two(),
            2,
            "process 2 is not in the deployment, which has 2 process(es)",
        ),
    ];
    for (deployment, process, expected) in cases {
        let error = host_error(&bench, &deployment, process);
        assert!(error.contains(expected), "{error}");
    }

    let mut bench = PartitionedBench::new();
    bench.link::<u64>("up/down", "space", "ground", Duration::from_millis(1));
    bench.partition("space", |_| {});
    bench.partition("ground", |_| {});
    assert!(host_error(&bench, &Deployment::single(), 0).contains("link name `up/down`"));

    let mut bench = PartitionedBench::new();
    bench.link::<u64>("downlink", "space", "mars", Duration::from_millis(1));
    bench.partition("space", |_| {});
    bench.partition("space", |_| {});
    assert!(host_error(&bench, &Deployment::single(), 0)
        .contains("partition `space` is declared twice"));
}

#[test]
fn a_name_added_by_two_partitions_is_refused() {
    let mut bench = PartitionedBench::new();
    let downlink = bench.link::<u64>("downlink", "space", "ground", Duration::from_millis(1));
    bench.partition("space", move |p| {
        let mut beacon = Beacon::new();
        p.link_from(downlink, &mut beacon.out);
        p.add_model(beacon, Mailbox::new(), "beacon");
        p.add_model(Station::new(), Mailbox::new(), "station");
    });
    station_in(&mut bench, "ground", downlink);
    assert_eq!(
        host_error(&bench, &Deployment::single(), 0),
        "partitioned bench: `station` is added by partitions `space` and `ground`: a top-level \
         name belongs to one partition"
    );
    // Split, each process sees only its own `station`.
    assert!(bench.host(&two(), 0).is_ok() && bench.host(&two(), 1).is_ok());
}

#[test]
fn a_failed_partition_stops_the_others_with_its_name_and_error() {
    let mut bench = PartitionedBench::new();
    let downlink = bench.link::<u64>("downlink", "space", "ground", Duration::from_millis(1));
    bench.partition("space", move |p| {
        let mut beacon = Beacon::new();
        beacon.panic_at = Some(3);
        p.link_from(downlink, &mut beacon.out);
        p.add_model(beacon, Mailbox::new(), "beacon");
    });
    station_in(&mut bench, "ground", downlink);
    let errors = errors_of_two([&bench, &bench], SimTime::from_secs(10));
    assert_starts(&errors[0], "partition `space`: ");
    assert!(errors[0].contains("beacon"), "{}", errors[0]);
    assert_starts(&errors[1], "partition `space` failed: ");
    assert!(errors[1].contains("the beacon broke"), "{}", errors[1]);
}

#[test]
fn a_silent_process_is_reported_after_the_round_timeout() {
    let (bench, _) = downlink_bench(Duration::from_millis(1));
    let mut transports = InMemory::connect(2, Duration::from_millis(300));
    let _silent = transports.pop();
    let hosted = bench.host(&two(), 0).unwrap();
    let mut runner = hosted
        .init(SimTime::ZERO, transports.pop().unwrap())
        .unwrap();
    let error = runner
        .run_until(SimTime::from_secs(1))
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        "partition `ground` did not report window 0 within 300ms"
    );
}

#[test]
fn a_process_running_another_bench_is_refused() {
    let (bench, _) = downlink_bench(Duration::from_millis(1));
    let (other, _) = downlink_bench(Duration::from_millis(2));
    let errors = errors_of_two([&bench, &other], SimTime::from_secs(1));
    assert_starts(&errors[0], "partition `ground` runs another bench");
    assert_starts(&errors[1], "partition `space` runs another bench");
}

/// Runs [`two`] processes of the downlink bench from `starts`, each doing
/// `act`, and checks that each stops out of step with the other, process
/// `p` reporting where it is as `paces[p]`.
fn assert_out_of_step(
    starts: [Start; 2],
    act: impl Fn(usize, &mut PartitionRunner) -> Result<(), PartitionError> + Sync,
    paces: [&str; 2],
) {
    let (bench, _) = downlink_bench(Duration::from_millis(1));
    let errors = errors_of_two_doing([&bench, &bench], starts, act);
    let expected = |other: &str, theirs: &str, ours: &str| {
        format!(
            "partition `{other}` is out of step with this process: {theirs}, where this process \
             is {ours}; every process starts at the same time and makes the same calls \
             (`run_until` with the same end, `save` after the same `run_until`)"
        )
    };
    assert_eq!(errors[0], expected("ground", paces[1], paces[0]));
    assert_eq!(errors[1], expected("space", paces[0], paces[1]));
}

#[test]
fn processes_started_at_different_times_are_out_of_step() {
    assert_out_of_step(
        [Start::At(SimTime::ZERO), Start::At(SimTime::from_secs(1))],
        |_, runner| runner.run_until(SimTime::from_secs(10)),
        [
            "at 0.000000000s, running until 10.000000000s",
            "at 1.000000000s, running until 10.000000000s",
        ],
    );
}

#[test]
fn processes_running_until_different_ends_are_out_of_step() {
    assert_out_of_step(
        FROM_ZERO,
        |process, runner| runner.run_until(SimTime::from_secs(5 + process as u64)),
        [
            "at 0.000000000s, running until 5.000000000s",
            "at 0.000000000s, running until 6.000000000s",
        ],
    );
}

#[test]
fn a_process_saving_where_another_runs_is_out_of_step() {
    assert_out_of_step(
        FROM_ZERO,
        |process, runner| {
            // In step to 2 s, then space saves while ground runs on.
            runner.run_until(SimTime::from_secs(2))?;
            match process {
                0 => runner.save(Vec::new()),
                _ => runner.run_until(SimTime::from_secs(3)),
            }
        },
        [
            "at 2.000000000s, saving",
            "at 2.000000000s, running until 3.000000000s",
        ],
    );
}

#[test]
fn processes_restored_from_saves_made_at_different_times_are_out_of_step() {
    // Both processes save at 1 s and at 2 s.
    let (bench, _) = downlink_bench(Duration::from_millis(1));
    let saves = in_two_processes(|process, transport| {
        let hosted = bench.host(&two(), process).unwrap();
        let mut runner = hosted.init(SimTime::ZERO, transport).unwrap();
        let mut saves = [Vec::new(), Vec::new()];
        for (save, at) in saves.iter_mut().zip([1, 2]) {
            runner.run_until(SimTime::from_secs(at)).unwrap();
            runner.save(save).unwrap();
        }
        saves
    });
    // Space resumes from its first save, ground from its second.
    let [space_at_1, _] = saves[0].clone();
    let [_, ground_at_2] = saves[1].clone();
    assert_out_of_step(
        [Start::Restore(space_at_1), Start::Restore(ground_at_2)],
        |_, runner| runner.run_until(SimTime::from_secs(3)),
        [
            "at 1.000000000s, running until 3.000000000s",
            "at 2.000000000s, running until 3.000000000s",
        ],
    );
}

#[test]
fn a_transport_for_another_process_is_refused() {
    let (bench, _) = downlink_bench(Duration::from_millis(1));
    let hosted = bench.host(&two(), 1).unwrap();
    let error = hosted.init(SimTime::ZERO, Solo).unwrap_err().to_string();
    assert_eq!(
        error,
        "transport: the transport connects process 0 of 1, but the bench is hosted as process \
         1 of 2"
    );
}

/// A bench whose link to `ground` is delivered to a station wrongly added
/// to `space` (its mailbox shared between the two partition functions).
fn misdelivered_bench() -> PartitionedBench {
    let mut bench = PartitionedBench::new();
    let downlink = bench.link::<u64>("downlink", "space", "ground", Duration::from_millis(1));
    let station = Mailbox::<Station>::new();
    let address = station.address();
    let station = std::sync::Mutex::new(Some(station));
    bench.partition("space", move |p| {
        let mut beacon = Beacon::new();
        p.link_from(downlink, &mut beacon.out);
        p.add_model(beacon, Mailbox::new(), "beacon");
        // The station is wrongly added to `space`...
        if let Some(mailbox) = station.lock().unwrap().take() {
            p.add_model(Station::new(), mailbox, "station");
        }
    });
    bench.partition("ground", move |p| {
        // ... and the link delivered to it from `ground`.
        p.link_to(downlink, Station::ports().receive, &address);
    });
    bench
}

#[test]
fn a_link_delivered_to_a_model_of_another_partition_is_refused() {
    let rule = "`link_to` must name an input of a model of partition `ground`, which receives \
                the link";
    // In one process the station is there, in the wrong partition.
    assert_eq!(
        host_error(&misdelivered_bench(), &Deployment::single(), 0),
        format!(
            "link `downlink`: delivered to `Station.receive` of `station`, a model of partition \
             `space`: {rule}"
        )
    );
    // Split, the process hosting `ground` does not have it.
    assert_eq!(
        host_error(&misdelivered_bench(), &two(), 1),
        format!(
            "link `downlink`: delivered to `Station.receive` of a model never added to the bench \
             in this process: {rule}"
        )
    );
    assert!(misdelivered_bench().host(&two(), 0).is_ok());
}

#[test]
fn a_link_delivered_to_an_output_twice_is_refused() {
    let mut bench = PartitionedBench::new();
    let downlink = bench.link::<u64>("downlink", "space", "ground", Duration::from_millis(1));
    beacon_in_space(&mut bench, downlink);
    bench.partition("ground", move |p| {
        let station = Mailbox::new();
        p.link_to_output(downlink, |out| {
            out.connect(Station::ports().receive, &station)
        });
        p.link_to_output(downlink, |_| {});
        p.add_model(Station::new(), station, "station");
    });
    assert_eq!(
        host_error(&bench, &Deployment::single(), 0),
        "link `downlink`: `link_to_output` called twice in partition `ground`: connect every \
         target in one call"
    );
}

#[test]
fn a_link_delivered_to_an_output_reaches_every_target_it_connects() {
    let mut bench = PartitionedBench::new();
    let downlink = bench.link::<u64>("downlink", "space", "ground", Duration::from_millis(1));
    beacon_in_space(&mut bench, downlink);
    let heard = EventQueue::new();
    let sink = heard.clone();
    bench.partition("ground", move |p| {
        let station = Mailbox::new();
        p.link_to_output(downlink, |out| {
            out.map_connect(|n| n * 10, Station::ports().receive, &station);
            out.connect_sink(&sink);
        });
        let mut model = Station::new();
        model.heard.connect_sink(&sink);
        p.add_model(model, station, "station");
    });
    let hosted = bench.host(&Deployment::single(), 0).unwrap();
    let mut runner = hosted.init(SimTime::ZERO, Solo).unwrap();
    runner.run_until(SimTime::from_millis(2_001)).unwrap();
    assert_eq!(heard.take_all(), vec![1, 10, 2, 20]);
}
