//! What the example binaries share: options, files, plots and progress.
//!
//! The benches themselves print nothing and write nothing: they return
//! their numbers, so that tests can check them. This module is the thin
//! layer that turns those numbers into what a person looks at.
//!
//! - Files go to `<target dir>/causim-examples/` unless `--out DIR` says
//!   otherwise, never into the source tree.
//! - The files come from the library's recorders (`causim-record`): a
//!   CSV table, a VCD waveform for GTKWave or Surfer, and an SVG plot
//!   (drawn with `plotters`' SVG backend: no system font or image library
//!   is needed to build the examples).
//! - The progress bar (`indicatif`) is drawn only when stdout is a
//!   terminal, so piped or CI output stays plain text.

use std::error::Error;
use std::fs;
use std::io::{self, IsTerminal};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::str::FromStr;

use causim_record::{plot_svg, write_csv_wide, write_vcd, Figure, Series};
use indicatif::{ProgressBar, ProgressStyle};

/// A boxed error, enough for binaries that report and exit.
pub type AnyError = Box<dyn Error + Send + Sync>;

/// Runs an example's `main`, printing an error as one readable line.
pub fn run_main(main: impl FnOnce() -> Result<(), AnyError>) -> ExitCode {
    match main() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Command-line options: `--name value` pairs and `--help`.
///
/// Hand-written rather than a parser crate: the examples take three or
/// four numbers, and a newcomer reads this file.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The `--name value` pairs, in order.
    pairs: Vec<(String, String)>,
    /// True if `--help` or `-h` was given.
    pub help: bool,
}

impl Options {
    /// An example's command line: `None` once `--help` has printed
    /// `help`; otherwise the options, every one of them in `known`.
    pub fn command_line(help: &str, known: &[&str]) -> Result<Option<Self>, AnyError> {
        let options = Self::from_env()?;
        if options.help {
            println!("{help}");
            return Ok(None);
        }
        options.reject_unknown(known)?;
        Ok(Some(options))
    }

    /// The process's own arguments.
    pub fn from_env() -> Result<Self, AnyError> {
        Self::parse(std::env::args().skip(1))
    }

    /// Parses `--name value` pairs.
    pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Self, AnyError> {
        let mut options = Options::default();
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            if arg == "--help" || arg == "-h" {
                options.help = true;
                continue;
            }
            let Some(name) = arg.strip_prefix("--") else {
                return Err(
                    format!("unexpected argument `{arg}` (options are `--name value`)").into(),
                );
            };
            let value = args
                .next()
                .ok_or_else(|| format!("option `--{name}` needs a value"))?;
            options.pairs.push((name.to_string(), value));
        }
        Ok(options)
    }

    /// The value of `--name`, parsed, or `default`.
    pub fn get<T: FromStr>(&self, name: &str, default: T) -> Result<T, AnyError>
    where
        T::Err: std::fmt::Display,
    {
        match self.pairs.iter().rev().find(|(n, _)| n == name) {
            None => Ok(default),
            Some((_, value)) => value
                .parse()
                .map_err(|e| format!("invalid value `{value}` for `--{name}`: {e}").into()),
        }
    }

    /// Fails on an option not in `known`, so a typo is not silently ignored.
    pub fn reject_unknown(&self, known: &[&str]) -> Result<(), AnyError> {
        match self
            .pairs
            .iter()
            .find(|(n, _)| !known.contains(&n.as_str()))
        {
            None => Ok(()),
            Some((name, _)) => Err(format!("unknown option `--{name}` (try `--help`)").into()),
        }
    }

    /// The output folder: `--out DIR`, or the default.
    pub fn out_dir(&self) -> Result<PathBuf, AnyError> {
        let dir = match self.pairs.iter().rev().find(|(n, _)| n == "out") {
            Some((_, dir)) => PathBuf::from(dir),
            None => default_out_dir(),
        };
        fs::create_dir_all(&dir).map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
        Ok(dir)
    }
}

/// `<target dir>/causim-examples`, found from the running binary
/// (`<target>/<profile>/examples/<name>`), or the temporary folder when
/// the binary does not live in a Cargo target folder.
pub fn default_out_dir() -> PathBuf {
    let target = std::env::current_exe().ok().and_then(|exe| {
        let dir = exe.ancestors().nth(3)?.to_path_buf();
        dir.join("CACHEDIR.TAG").exists().then_some(dir)
    });
    target
        .unwrap_or_else(std::env::temp_dir)
        .join("causim-examples")
}

/// Writes the recorded `series` into `out_dir` as `NAME.csv` (one column
/// per series), `NAME.vcd` (a waveform, one scope per model) and
/// `NAME.svg` (the panels of `figure`), with `causim-record`'s writers, and
/// says where they are.
pub fn write_outputs(
    out_dir: &Path,
    name: &str,
    series: &[Series],
    figure: &Figure,
) -> Result<(), AnyError> {
    let csv_path = out_dir.join(format!("{name}.csv"));
    write_csv_wide(series, create(&csv_path)?)?;
    let vcd_path = out_dir.join(format!("{name}.vcd"));
    write_vcd(series, create(&vcd_path)?)?;
    let svg_path = out_dir.join(format!("{name}.svg"));
    plot_svg(series, figure, &svg_path)?;
    println!(
        "\ntime series: {}\nwaveform:    {}\nplot:        {}",
        csv_path.display(),
        vcd_path.display(),
        svg_path.display()
    );
    Ok(())
}

/// Writes `NAME.vcd` into `out_dir` and says where it is.
pub fn write_waveform(out_dir: &Path, name: &str, series: &[Series]) -> Result<(), AnyError> {
    let vcd_path = out_dir.join(format!("{name}.vcd"));
    write_vcd(series, create(&vcd_path)?)?;
    println!("\nwaveform: {}", vcd_path.display());
    Ok(())
}

/// A buffered new file, with its path in the error.
fn create(path: &Path) -> Result<io::BufWriter<fs::File>, AnyError> {
    let file =
        fs::File::create(path).map_err(|e| format!("cannot create `{}`: {e}", path.display()))?;
    Ok(io::BufWriter::new(file))
}

/// A progress bar shown only when stdout is a terminal.
#[derive(Debug)]
pub struct Progress {
    /// The bar, if drawn.
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A bar counting to `len` `unit`s, or nothing when piped.
    pub fn new(len: u64, unit: &str) -> Self {
        if !io::stdout().is_terminal() {
            return Progress { bar: None };
        }
        let bar = ProgressBar::new(len);
        let template = format!("{{bar:40}} {{pos}}/{{len}} {unit} [{{elapsed_precise}}] {{msg}}");
        if let Ok(style) = ProgressStyle::with_template(&template) {
            bar.set_style(style);
        }
        Progress { bar: Some(bar) }
    }

    /// No bar, whatever the terminal: for a call with nothing to count.
    pub fn hidden(self) -> Self {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
        Progress { bar: None }
    }

    /// One more unit done.
    pub fn inc(&self) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }

    /// `position` units done, with a message after the bar (the rate, say).
    pub fn set(&self, position: u64, message: String) {
        if let Some(bar) = &self.bar {
            bar.set_position(position);
            bar.set_message(message);
        }
    }

    /// A handle to the same bar, for a callback that runs elsewhere.
    pub fn handle(&self) -> Progress {
        Progress {
            bar: self.bar.clone(),
        }
    }

    /// Removes the bar, leaving the terminal for the summary.
    pub fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}
