//! How fast the writers write: 10⁷ samples (10 series of 10⁶, real,
//! integer, boolean and label), as CSV (long and wide) and VCD, into a
//! byte counter (the formatting cost, what the writers themselves add)
//! and into a file in the temporary folder (with the OS's write path).
//! Prints MB/s and ns/sample; `docs/benchmarks.md` reports them.
//!
//! `cargo bench -p causim-record --bench writers` (release build).

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::time::Instant;

use causim::SimTime;
use causim_record::{write_csv_long, write_csv_wide, write_vcd, Kind, Sample, Series, Value};

/// Samples per series: 10⁶, or `CAUSIM_WRITERS_PER_SERIES` (a smaller
/// run for callgrind).
fn per_series() -> u64 {
    std::env::var("CAUSIM_WRITERS_PER_SERIES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1_000_000)
}

/// Counts the bytes it is given and keeps none.
struct Counter(u64);

impl Write for Counter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0 += bytes.len() as u64;
        Ok(bytes.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Ten series sampled every millisecond, as a bench's outputs would be.
fn series() -> Vec<Series> {
    let kinds = [
        Kind::Real,
        Kind::Real,
        Kind::Real,
        Kind::Real,
        Kind::Int,
        Kind::Int,
        Kind::Int,
        Kind::Bool,
        Kind::Bool,
        Kind::Label,
    ];
    kinds
        .iter()
        .enumerate()
        .map(|(i, &kind)| Series {
            name: format!("bench/model{}/out{i}", i / 3),
            kind,
            samples: (0..per_series())
                .map(|n| Sample {
                    time: SimTime::from_nanos(n * 1_000_000 + i as u64 * 1000),
                    value: match kind {
                        Kind::Real => Value::Real((n as f64 * 0.001 + i as f64).sin() * 100.0),
                        Kind::Int => Value::Int((n as i64 * 7919) % 100_000 - 50_000),
                        Kind::Bool => Value::Bool((n / 7 + i as u64).is_multiple_of(2)),
                        Kind::Label => Value::Label(["idle", "heating", "ready"][(n % 3) as usize]),
                    },
                })
                .collect(),
        })
        .collect()
}

type Writer = fn(&[Series], &mut dyn Write) -> io::Result<()>;

fn main() {
    let series = series();
    let samples = series.len() as u64 * per_series();
    let writers: [(&str, Writer); 3] = [
        ("csv long", |s, w| write_csv_long(s, w)),
        ("csv wide", |s, w| write_csv_wide(s, w)),
        ("vcd", |s, w| write_vcd(s, w)),
    ];
    println!("{samples} samples in {} series", series.len());
    for (name, write) in writers {
        let mut counter = Counter(0);
        let start = Instant::now();
        write(&series, &mut counter).unwrap();
        let formatting = start.elapsed().as_secs_f64();
        let path = std::env::temp_dir().join("causim-record-writers.out");
        let start = Instant::now();
        let mut file = BufWriter::with_capacity(1 << 20, File::create(&path).unwrap());
        write(&series, &mut file).unwrap();
        file.into_inner().unwrap().sync_all().unwrap();
        let to_file = start.elapsed().as_secs_f64();
        std::fs::remove_file(&path).unwrap();
        let mb = counter.0 as f64 / 1e6;
        println!(
            "{name:>8}: {mb:7.1} MB, {:6.1} MB/s formatted ({:5.1} ns/sample), {:6.1} MB/s to a file (synced)",
            mb / formatting,
            formatting * 1e9 / samples as f64,
            mb / to_file
        );
    }
}
