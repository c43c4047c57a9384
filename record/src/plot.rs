//! SVG plots of recorded series, drawn with `plotters` (SVG backend only:
//! no system font or image library is needed to build it).
//!
//! A [`Figure`] is panels stacked vertically over a shared time axis; each
//! [`Panel`] draws some series by name. Real series are drawn as lines
//! between samples; integers and booleans as steps (a value holds until
//! the next one, which is what a discrete-event output means); labels are
//! not plotted (they have no number: read them in the VCD).

use std::error::Error;
use std::fmt;
use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::recording::Series;
use crate::value::Kind;

/// One chart of a figure: series sharing a y axis.
#[derive(Debug, Clone, Default)]
pub struct Panel {
    /// The chart's title.
    pub title: String,
    /// The y axis label.
    pub y_label: String,
    /// `(legend, series name)` of each line, in drawing order.
    pub lines: Vec<(String, String)>,
}

impl Panel {
    /// An empty chart.
    pub fn new(title: impl Into<String>, y_label: impl Into<String>) -> Self {
        Panel {
            title: title.into(),
            y_label: y_label.into(),
            lines: Vec::new(),
        }
    }

    /// Adds the series named `series`, shown as `legend`.
    pub fn line(mut self, legend: impl Into<String>, series: impl Into<String>) -> Self {
        self.lines.push((legend.into(), series.into()));
        self
    }
}

/// Panels stacked over one time axis.
#[derive(Debug, Clone)]
pub struct Figure {
    /// The x axis label, e.g. `time (h)`.
    pub x_label: String,
    /// Seconds per x unit: 1 for seconds, 3600 for hours.
    pub seconds_per_unit: f64,
    /// The charts, top to bottom.
    pub panels: Vec<Panel>,
}

/// A plot that could not be drawn: a missing series, or the backend's
/// error (an unwritable file).
#[derive(Debug)]
pub struct PlotError(String);

impl fmt::Display for PlotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Error for PlotError {}

/// Plotters' errors are generic; keep their message.
fn backend(e: impl fmt::Display) -> PlotError {
    PlotError(format!("cannot draw the plot: {e}"))
}

/// Line colours, in order.
const PALETTE: [RGBColor; 5] = [
    RGBColor(0xd6, 0x8a, 0x00),
    RGBColor(0x1f, 0x5f, 0xbf),
    RGBColor(0x2e, 0x8b, 0x3e),
    RGBColor(0xb0, 0x30, 0x30),
    RGBColor(0x70, 0x40, 0xa0),
];

/// A line ready to draw: its legend and points.
struct Line {
    /// The legend.
    legend: String,
    /// `(x, y)` in x order.
    points: Vec<(f64, f64)>,
}

/// Draws `figure` from `series` as an SVG file at `path`.
pub fn plot_svg(series: &[Series], figure: &Figure, path: &Path) -> Result<(), PlotError> {
    let panels = figure
        .panels
        .iter()
        .map(|panel| lines(series, figure, panel))
        .collect::<Result<Vec<_>, _>>()?;
    let height = 320 * panels.len().max(1) as u32;
    let root = SVGBackend::new(path, (1000, height)).into_drawing_area();
    root.fill(&WHITE).map_err(backend)?;
    let areas = root.split_evenly((panels.len().max(1), 1));
    for ((panel, lines), area) in figure.panels.iter().zip(&panels).zip(&areas) {
        draw_panel(area, &figure.x_label, panel, lines)?;
    }
    root.present().map_err(backend)
}

/// The points of each line of `panel`.
fn lines(series: &[Series], figure: &Figure, panel: &Panel) -> Result<Vec<Line>, PlotError> {
    panel
        .lines
        .iter()
        .map(|(legend, name)| {
            let s = series.iter().find(|s| &s.name == name).ok_or_else(|| {
                PlotError(format!(
                    "panel `{}` draws series `{name}`, which was not recorded",
                    panel.title
                ))
            })?;
            Ok(Line {
                legend: legend.clone(),
                points: points(s, figure.seconds_per_unit),
            })
        })
        .collect()
}

/// The points of `series`, in x units; steps for a discrete kind.
fn points(series: &Series, seconds_per_unit: f64) -> Vec<(f64, f64)> {
    let step = matches!(series.kind, Kind::Int | Kind::Bool);
    let mut points: Vec<(f64, f64)> = Vec::with_capacity(series.samples.len() * 2);
    for sample in &series.samples {
        let Some(y) = sample.value.as_f64() else {
            continue;
        };
        let x = sample.time.as_secs_f64() / seconds_per_unit;
        if let (true, Some(&(_, previous))) = (step, points.last()) {
            points.push((x, previous));
        }
        points.push((x, y));
    }
    points
}

/// Draws one chart.
fn draw_panel(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    x_label: &str,
    panel: &Panel,
    lines: &[Line],
) -> Result<(), PlotError> {
    let (x_range, y_range) = bounds(lines);
    let mut chart = ChartBuilder::on(area)
        .caption(&panel.title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(60)
        .build_cartesian_2d(x_range, y_range)
        .map_err(backend)?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc(&panel.y_label)
        .draw()
        .map_err(backend)?;
    for (line, color) in lines.iter().zip(PALETTE.iter().cycle()) {
        let color = *color;
        chart
            .draw_series(LineSeries::new(
                line.points.iter().copied(),
                color.stroke_width(2),
            ))
            .map_err(backend)?
            .label(line.legend.as_str())
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
        .map_err(backend)
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
