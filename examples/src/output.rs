//! What the example binaries share: options, files, plots and progress.
//!
//! The benches themselves print nothing and write nothing: they return
//! their numbers, so that tests can check them. This module is the thin
//! layer that turns those numbers into what a person looks at.
//!
//! - Files go to `<target dir>/causim-examples/` unless `--out DIR` says
//!   otherwise, never into the source tree.
//! - Plots are SVG, drawn with `plotters` and only its SVG backend: no
//!   system font or image library is needed to build the examples.
//! - The progress bar (`indicatif`) is drawn only when stdout is a
//!   terminal, so piped or CI output stays plain text.

use std::error::Error;
use std::fs;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::str::FromStr;

use indicatif::{ProgressBar, ProgressStyle};
use plotters::prelude::*;

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

/// Writes `NAME.csv` and `NAME.svg` into `out_dir` and says where they are.
pub fn write_outputs(
    out_dir: &Path,
    name: &str,
    csv: (&str, impl IntoIterator<Item = String>),
    plot: (&str, &[Panel]),
) -> Result<(), AnyError> {
    let (header, rows) = csv;
    let (x_label, panels) = plot;
    let csv_path = out_dir.join(format!("{name}.csv"));
    write_csv(&csv_path, header, rows)?;
    let svg_path = out_dir.join(format!("{name}.svg"));
    plot_svg(&svg_path, x_label, panels)?;
    println!(
        "\ntime series: {}\nplot:        {}",
        csv_path.display(),
        svg_path.display()
    );
    Ok(())
}

/// Writes a CSV file: one header line, then one line per row.
pub fn write_csv(
    path: &Path,
    header: &str,
    rows: impl IntoIterator<Item = String>,
) -> io::Result<()> {
    let mut file = io::BufWriter::new(fs::File::create(path)?);
    writeln!(file, "{header}")?;
    for row in rows {
        writeln!(file, "{row}")?;
    }
    file.flush()
}

/// One line of a plot.
#[derive(Debug, Clone)]
pub struct Line {
    /// The legend.
    pub name: String,
    /// `(x, y)` points in x order.
    pub points: Vec<(f64, f64)>,
}

/// One chart of a figure: lines sharing a y axis.
#[derive(Debug, Clone)]
pub struct Panel {
    /// The chart's title.
    pub title: String,
    /// The y axis label.
    pub y_label: String,
    /// The lines.
    pub lines: Vec<Line>,
}

/// Line colours, in order.
const PALETTE: [RGBColor; 5] = [
    RGBColor(0xd6, 0x8a, 0x00),
    RGBColor(0x1f, 0x5f, 0xbf),
    RGBColor(0x2e, 0x8b, 0x3e),
    RGBColor(0xb0, 0x30, 0x30),
    RGBColor(0x70, 0x40, 0xa0),
];

/// Draws `panels` stacked vertically, sharing the x axis, as an SVG file.
pub fn plot_svg(path: &Path, x_label: &str, panels: &[Panel]) -> Result<(), AnyError> {
    let height = 320 * panels.len().max(1) as u32;
    let root = SVGBackend::new(path, (1000, height)).into_drawing_area();
    root.fill(&WHITE).map_err(to_error)?;
    let areas = root.split_evenly((panels.len().max(1), 1));
    for (panel, area) in panels.iter().zip(&areas) {
        draw_panel(area, x_label, panel)?;
    }
    root.present().map_err(to_error)?;
    Ok(())
}

/// Draws one chart.
fn draw_panel(
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    x_label: &str,
    panel: &Panel,
) -> Result<(), AnyError> {
    let (x_range, y_range) = bounds(&panel.lines);
    let mut chart = ChartBuilder::on(area)
        .caption(&panel.title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(60)
        .build_cartesian_2d(x_range, y_range)
        .map_err(to_error)?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc(&panel.y_label)
        .draw()
        .map_err(to_error)?;
    for (line, color) in panel.lines.iter().zip(PALETTE.iter().cycle()) {
        let color = *color;
        chart
            .draw_series(LineSeries::new(
                line.points.iter().copied(),
                color.stroke_width(2),
            ))
            .map_err(to_error)?
            .label(line.name.as_str())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(to_error)?;
    Ok(())
}

/// The x and y ranges covering every point, with room above and below so
/// that flat lines stay visible.
fn bounds(lines: &[Line]) -> (std::ops::Range<f64>, std::ops::Range<f64>) {
    let points = || lines.iter().flat_map(|l| l.points.iter());
    let fold = |f: fn(&(f64, f64)) -> f64| {
        points()
            .map(f)
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                (lo.min(v), hi.max(v))
            })
    };
    let (x0, x1) = fold(|p| p.0);
    let (y0, y1) = fold(|p| p.1);
    if !x0.is_finite() || !y0.is_finite() {
        return (0.0..1.0, 0.0..1.0);
    }
    // Extra room at the top keeps the legend off the lines.
    let span = (y1 - y0).max(1e-3);
    (x0..x1.max(x0 + 1e-9), (y0 - 0.08 * span)..(y1 + 0.3 * span))
}

/// Plotters' errors borrow nothing but are generic; keep their message.
fn to_error(e: impl std::fmt::Display) -> AnyError {
    e.to_string().into()
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
        let template = format!("{{bar:40}} {{pos}}/{{len}} {unit} [{{elapsed_precise}}]");
        if let Ok(style) = ProgressStyle::with_template(&template) {
            bar.set_style(style);
        }
        Progress { bar: Some(bar) }
    }

    /// One more unit done.
    pub fn inc(&self) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }

    /// Removes the bar, leaving the terminal for the summary.
    pub fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}
