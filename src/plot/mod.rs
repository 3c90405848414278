//! Figures of a sweep: a metric against one varied key, one line per value
//! of another, with 95 % confidence bars from the replications, drawn as
//! SVG and PNG, and as PDF when asked for.
//!
//! Text is laid out and rasterised with DejaVu Sans compiled into the
//! binary, so figures look the same on every machine and need no system
//! fonts (a fresh container, a CI runner) and no network. The PDF embeds
//! the glyphs it uses; the SVG names the font and embeds none (a subset
//! would differ per figure and not every SVG reader loads embedded
//! fonts; the PDF is the figure to put in a paper as drawn).

use crate::sweep::render::{Row, figure as summary_figure, never_negative};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::collections::BTreeSet;
use std::sync::Once;
use thiserror::Error;

mod files;
pub use files::{Paths, paths, pdf, svg, write};

/// Pixel size of every figure.
pub const SIZE: (u32, u32) = (1000, 640);

/// The PDF's resolution: the SVG's 96 pixels to the inch (CSS's), so the
/// page is as large as the SVG shows, 750 × 480 points (10.4 × 6.7 in).
pub const PDF_DPI: f32 = 96.0;

/// The font every text is set in, as the SVG names it: DejaVu Sans, the
/// font compiled in, then any sans-serif where a reader of the SVG does
/// not have it.
pub const FONT: &str = "DejaVu Sans, sans-serif";

/// What the SVG says of its font, after its opening tag.
const FONT_NOTE: &str = "<!-- Text is set in DejaVu Sans, which this file names but does not embed: \
the PNG drawn beside it shows the figure as drawn, and a PDF (a figure name ending in .pdf) \
embeds the font. -->";

#[derive(Debug, Error)]
pub enum PlotError {
    #[error("{0}")]
    Spec(String),
    #[error("{path}: cannot draw the figure: {message}")]
    Draw { path: String, message: String },
}

/// What to draw.
#[derive(Clone, Debug, Default)]
pub struct PlotSpec {
    /// The varied key along the x axis (the first varied key otherwise).
    pub x: Option<String>,
    /// The varied key that makes one line per value (the other varied key,
    /// when there is exactly one with several values).
    pub series: Option<String>,
    /// A figure by its dotted name (`art`, `groups.size.S1.art`), or with
    /// `*` for the group label (`groups.size.*.art`): then the x axis is the
    /// groups.
    pub metric: String,
    /// Points kept: only those with these values.
    pub filters: Vec<(String, String)>,
    /// The figure's title (the scenario and the metric otherwise).
    pub title: Option<String>,
    /// The x axis's words (the varied key, or the grouping, otherwise).
    pub x_label: Option<String>,
    /// The y axis's words (the metric's, with its unit, otherwise).
    pub y_label: Option<String>,
    /// Legend entries renamed: (a line's series value or its whole legend
    /// entry, the words to show instead).
    pub series_labels: Vec<(String, String)>,
}

/// One line of a figure: (x, mean, half-width) per point, in x order.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    pub name: String,
    pub points: Vec<(f64, f64, Option<f64>)>,
}

/// A figure ready to draw.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    /// Names of the x positions 0, 1, ... when the x axis is not numeric.
    pub categories: Option<Vec<String>>,
    pub lines: Vec<Line>,
    /// What the bars mean (or that there are none).
    pub note: String,
    /// The metric can never be negative by its definition: the bars and
    /// the y axis stop at zero.
    pub never_negative: bool,
}

impl Figure {
    /// The lower end of a confidence bar around `mean`: cut at zero for a
    /// metric that cannot be negative (and the bar then has no cap there).
    fn low(&self, mean: f64, half_width: f64) -> f64 {
        if self.cut(mean, half_width) {
            0.0
        } else {
            mean - half_width
        }
    }

    /// Whether the bar around `mean` is cut at zero.
    fn cut(&self, mean: f64, half_width: f64) -> bool {
        self.never_negative && mean - half_width < 0.0
    }
}

/// Words for a figure's name, with its unit.
pub fn metric_label(name: &str) -> String {
    let base = |n: &str| -> String {
        match n {
            "art" => "ART (s)".into(),
            "mean_wait" => "mean wait (s)".into(),
            "sd_wait" => "sd of wait (s)".into(),
            "mean_slowdown" => "mean slowdown".into(),
            "mean_bounded_slowdown" => "mean bounded slowdown".into(),
            "utilization" => "utilization".into(),
            "makespan" => "makespan (s)".into(),
            "count" => "jobs".into(),
            "number_pct" => "share of jobs (%)".into(),
            "load_pct" => "share of load (%)".into(),
            other => other.replace('_', " "),
        }
    };
    let parts: Vec<&str> = name.split('.').collect();
    match parts.as_slice() {
        ["groups", g, "*", n] => format!("{} by {g} group", base(n)),
        ["groups", g, label, n] => format!("{} of {g} group {label}", base(n)),
        ["overall", n] | [n] => base(n),
        _ => name.to_string(),
    }
}

fn value_of<'a>(row: &'a Row, key: &str) -> Option<&'a str> {
    row.settings
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// Distinct values in order of first appearance.
fn distinct<'a>(it: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut seen = BTreeSet::new();
    it.filter(|v| seen.insert(*v)).collect()
}

/// The figure of `rows` (a sweep over `keys`) that `spec` asks for.
pub fn figure(
    scenario: &str,
    keys: &[String],
    rows: &[Row],
    spec: &PlotSpec,
) -> Result<Figure, PlotError> {
    let err = |m: String| PlotError::Spec(m);
    for (k, v) in &spec.filters {
        if !keys.contains(k) {
            return Err(err(format!(
                "--where {k}={v}: `{k}` is not varied in this sweep (varied: {})",
                keys.join(", ")
            )));
        }
    }
    let rows: Vec<&Row> = rows
        .iter()
        .filter(|r| {
            spec.filters
                .iter()
                .all(|(k, v)| value_of(r, k) == Some(v.as_str()))
        })
        .collect();
    if rows.is_empty() {
        return Err(err("no point of the sweep is left to draw".into()));
    }
    let several = |k: &str| distinct(rows.iter().filter_map(|r| value_of(r, k))).len() > 1;
    let check_key = |k: &str, what: &str| -> Result<(), PlotError> {
        if keys.iter().any(|x| x == k) {
            Ok(())
        } else {
            Err(err(format!(
                "--{what} {k}: not a varied key of this sweep (varied: {})",
                keys.join(", ")
            )))
        }
    };
    let by_group = spec.metric.contains('*');
    let x_key: Option<String> = if by_group {
        None
    } else {
        match &spec.x {
            Some(x) => {
                check_key(x, "x")?;
                Some(x.clone())
            }
            None => keys.first().cloned(),
        }
    };
    let series_key: Option<String> = match &spec.series {
        Some(s) if Some(s) == x_key.as_ref() => {
            return Err(err(format!(
                "--series {s} is the x axis's key too: the lines need another varied key (varied: {})",
                keys.join(", ")
            )));
        }
        Some(s) => {
            check_key(s, "series")?;
            Some(s.clone())
        }
        None => keys
            .iter()
            .find(|k| Some(*k) != x_key.as_ref() && several(k))
            .cloned(),
    };
    let fixed: Vec<&String> = keys
        .iter()
        .filter(|k| Some(*k) != x_key.as_ref() && Some(*k) != series_key.as_ref() && several(k))
        .collect();
    if !fixed.is_empty() {
        return Err(err(format!(
            "{} also {} several values here: pick one with --where KEY=VALUE, or draw {} as the lines with --series",
            fixed
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", "),
            if fixed.len() == 1 { "takes" } else { "take" },
            fixed[0]
        )));
    }

    let no_figure = |name: &str| {
        err(format!(
            "the summaries have no figure `{name}` (try art, mean_wait, mean_bounded_slowdown, utilization, or groups.size.*.art)"
        ))
    };
    // The x positions and, for each, how to read the figure from a row.
    let (x_label, categories, xs): (String, Option<Vec<String>>, Vec<(f64, String)>) = if by_group {
        let parts: Vec<&str> = spec.metric.split('.').collect();
        let ["groups", g, "*", _] = parts.as_slice() else {
            return Err(err(format!(
                "--metric {}: `*` stands for a group label, as in groups.size.*.art",
                spec.metric
            )));
        };
        let labels: Vec<String> = rows[0]
            .summary
            .pointer(&format!("/metrics/groups/{g}"))
            .and_then(|v| v.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|r| r.get("label")?.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        if labels.is_empty() {
            return Err(no_figure(&spec.metric));
        }
        let xs = labels
            .iter()
            .enumerate()
            .map(|(i, l)| (i as f64, spec.metric.replace('*', l)))
            .collect();
        (format!("{g} group"), Some(labels), xs)
    } else {
        let k = x_key.clone().unwrap_or_default();
        let vals = distinct(rows.iter().filter_map(|r| value_of(r, &k)));
        let numeric: Option<Vec<f64>> = vals.iter().map(|v| v.parse::<f64>().ok()).collect();
        match numeric {
            Some(nums) => (
                k.clone(),
                None,
                nums.iter()
                    .zip(&vals)
                    .map(|(x, v)| (*x, v.to_string()))
                    .collect(),
            ),
            None => (
                k.clone(),
                Some(vals.iter().map(|v| v.to_string()).collect()),
                vals.iter()
                    .enumerate()
                    .map(|(i, v)| (i as f64, v.to_string()))
                    .collect(),
            ),
        }
    };

    let series_values: Vec<Option<&str>> = match &series_key {
        Some(s) => distinct(rows.iter().filter_map(|r| value_of(r, s)))
            .into_iter()
            .map(Some)
            .collect(),
        None => vec![None],
    };
    let never_negative = never_negative(&spec.metric);
    let y_label = spec
        .y_label
        .clone()
        .unwrap_or_else(|| metric_label(&spec.metric));
    let mut renamed = vec![false; spec.series_labels.len()];
    let mut lines = Vec::new();
    let mut any_hw = false;
    let mut reps = BTreeSet::new();
    for sv in series_values {
        let in_series: Vec<&&Row> = rows
            .iter()
            .filter(|r| match (sv, &series_key) {
                (Some(v), Some(k)) => value_of(r, k) == Some(v),
                _ => true,
            })
            .collect();
        let mut points = Vec::new();
        for r in &in_series {
            if let Some(n) = r.summary.get("replications").and_then(|v| v.as_u64()) {
                reps.insert(n);
            }
        }
        for (x, tag) in &xs {
            let (row, name) = if by_group {
                (in_series.first(), tag.clone())
            } else {
                let k = x_key.as_deref().unwrap_or_default();
                (
                    in_series
                        .iter()
                        .find(|r| value_of(r, k) == Some(tag.as_str())),
                    spec.metric.clone(),
                )
            };
            let Some(row) = row else { continue };
            let f = summary_figure(row.summary, &name).ok_or_else(|| no_figure(&name))?;
            any_hw |= f.half_width.is_some();
            points.push((*x, f.mean, f.half_width));
        }
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut name = match (sv, &series_key) {
            (Some(v), Some(k)) => format!("{k} = {v}"),
            _ => y_label.clone(),
        };
        if let Some(i) = spec
            .series_labels
            .iter()
            .position(|(old, _)| sv == Some(old.as_str()) || *old == name)
        {
            renamed[i] = true;
            name = spec.series_labels[i].1.clone();
        }
        lines.push(Line { name, points });
    }
    if let Some(i) = renamed.iter().position(|r| !r) {
        let (old, new) = &spec.series_labels[i];
        let names: Vec<String> = match &series_key {
            Some(k) => distinct(rows.iter().filter_map(|r| value_of(r, k)))
                .into_iter()
                .map(String::from)
                .collect(),
            None => vec![y_label.clone()],
        };
        return Err(err(format!(
            "--series-label {old}={new}: no line is named `{old}` (the lines: {})",
            names.join(", ")
        )));
    }
    let reps = match (reps.first(), reps.last()) {
        (Some(a), Some(b)) if a != b => format!("{a} to {b}"),
        (Some(a), _) => a.to_string(),
        _ => "several".into(),
    };
    let mut fig = Figure {
        title: spec
            .title
            .clone()
            .unwrap_or_else(|| format!("{scenario}: {y_label}")),
        x_label: spec.x_label.clone().unwrap_or(x_label),
        y_label,
        categories,
        lines,
        note: String::new(),
        never_negative,
    };
    let cut = fig
        .lines
        .iter()
        .flat_map(|l| l.points.iter())
        .any(|&(_, m, h)| h.is_some_and(|h| fig.cut(m, h)));
    fig.note = if any_hw {
        format!(
            "bars: 95 % confidence intervals over {reps} replications{}",
            if cut { ", cut at zero" } else { "" }
        )
    } else {
        "one replication per point: no confidence bars".into()
    };
    Ok(fig)
}

/// Colour-blind-safe colours (Paul Tol's "bright" scheme), then greys.
const COLOURS: [RGBColor; 7] = [
    RGBColor(0x44, 0x77, 0xAA),
    RGBColor(0xEE, 0x66, 0x77),
    RGBColor(0x22, 0x88, 0x33),
    RGBColor(0xCC, 0xBB, 0x44),
    RGBColor(0x66, 0xCC, 0xEE),
    RGBColor(0xAA, 0x33, 0x77),
    RGBColor(0x55, 0x55, 0x55),
];

/// The colour of line `i`, as drawn (and as written in the SVG).
pub fn colour(i: usize) -> RGBColor {
    COLOURS[i % COLOURS.len()]
}

fn fonts() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The bytes are a valid TrueType font compiled in: this cannot fail.
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular());
    });
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    fig: &Figure,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let all = fig.lines.iter().flat_map(|l| l.points.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, m, h) in all {
        let h = h.unwrap_or(0.0);
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(fig.low(m, h));
        y1 = y1.max(m + h);
    }
    if x0 > x1 {
        (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
    }
    let (x0, x1) = match &fig.categories {
        Some(c) => (-0.5, c.len() as f64 - 0.5),
        None if x0 == x1 => (x0 - 1.0, x1 + 1.0),
        None => {
            let pad = (x1 - x0) * 0.04;
            (x0 - pad, x1 + pad)
        }
    };
    let span = (y1 - y0).max(y1.abs() * 0.1).max(1e-9);
    let y0 = if y0 >= 0.0 && y0 < span {
        0.0
    } else {
        y0 - span * 0.08
    };
    let y0 = if fig.never_negative { y0.max(0.0) } else { y0 };
    let y1 = y1 + span * 0.08;

    let root = root.titled(&fig.title, (FONT, 24))?;
    let (main, foot) = root.split_vertically(SIZE.1 as i32 - 60);
    let mut chart = ChartBuilder::on(&main)
        .margin(16)
        .x_label_area_size(56)
        .y_label_area_size(86)
        .build_cartesian_2d(x0..x1, y0..y1)?;
    let cats = fig.categories.clone();
    let x_fmt = move |x: &f64| -> String {
        match &cats {
            Some(c) => {
                let i = x.round();
                if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < c.len() {
                    c[i as usize].clone()
                } else {
                    String::new()
                }
            }
            None => tick(*x),
        }
    };
    let n_x = fig.categories.as_ref().map_or(10, |c| c.len() * 2 + 1);
    chart
        .configure_mesh()
        .x_desc(fig.x_label.as_str())
        .y_desc(fig.y_label.as_str())
        .axis_desc_style((FONT, 19))
        .label_style((FONT, 15))
        .x_labels(n_x)
        .x_label_formatter(&x_fmt)
        .light_line_style(TRANSPARENT)
        .bold_line_style(RGBColor(0xDD, 0xDD, 0xDD))
        .draw()?;
    for (i, line) in fig.lines.iter().enumerate() {
        let c = colour(i);
        chart
            .draw_series(LineSeries::new(
                line.points.iter().map(|&(x, m, _)| (x, m)),
                c.stroke_width(2),
            ))?
            .label(line.name.as_str())
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 18, y + 6)], c.filled()));
        chart.draw_series(
            line.points
                .iter()
                .map(|&(x, m, _)| Circle::new((x, m), 4, c.filled())),
        )?;
        let bar = c.stroke_width(1);
        let with_bars: Vec<(f64, f64, f64)> = line
            .points
            .iter()
            .filter_map(|&(x, m, h)| Some((x, m, h?)))
            .collect();
        chart.draw_series(
            with_bars
                .iter()
                .map(|&(x, m, h)| PathElement::new(vec![(x, fig.low(m, h)), (x, m + h)], bar)),
        )?;
        // A cap at each end, but where the bar is cut at zero.
        chart.draw_series(
            with_bars
                .iter()
                .flat_map(|&(x, m, h)| {
                    [(!fig.cut(m, h)).then_some(m - h), Some(m + h)].map(|y| y.map(|y| (x, y)))
                })
                .flatten()
                .map(|at| EmptyElement::at(at) + PathElement::new(vec![(-5, 0), (5, 0)], bar)),
        )?;
    }
    chart
        .configure_series_labels()
        .position(legend_corner(fig, (x0, x1), (y0, y1)))
        .label_font((FONT, 16))
        .background_style(WHITE.mix(0.85))
        .border_style(RGBColor(0x99, 0x99, 0x99))
        .draw()?;
    foot.draw_text(
        &fig.note,
        &(FONT, 15).into_font().color(&RGBColor(0x55, 0x55, 0x55)),
        (100, 18),
    )?;
    root.present()?;
    Ok(())
}

/// The corner of the plot the legend covers least data in: the one with
/// the fewest points and confidence-bar ends within 40 % of the axes'
/// ranges from it (upper right on a tie).
fn legend_corner(fig: &Figure, (x0, x1): (f64, f64), (y0, y1): (f64, f64)) -> SeriesLabelPosition {
    let near = |v: f64, lo: f64, hi: f64, high: bool| {
        let f = (v - lo) / (hi - lo).max(1e-12);
        if high { f >= 0.6 } else { f <= 0.4 }
    };
    let corners = [
        (SeriesLabelPosition::UpperRight, true, true),
        (SeriesLabelPosition::UpperLeft, false, true),
        (SeriesLabelPosition::LowerRight, true, false),
        (SeriesLabelPosition::LowerLeft, false, false),
    ];
    let mut best = (usize::MAX, SeriesLabelPosition::UpperRight);
    for (pos, right, top) in corners {
        let covered = fig
            .lines
            .iter()
            .flat_map(|l| l.points.iter())
            .flat_map(|&(x, m, h)| {
                let h = h.unwrap_or(0.0);
                [(x, m), (x, fig.low(m, h)), (x, m + h)]
            })
            .filter(|&(x, y)| near(x, x0, x1, right) && near(y, y0, y1, top))
            .count();
        if covered < best.0 {
            best = (covered, pos);
        }
    }
    best.1
}

/// A numeric axis tick: the axis steps by sums of a decimal step, which
/// binary floating point leaves a hair off (0.6000000000000001); nine
/// decimals at most, trailing zeros dropped.
fn tick(x: f64) -> String {
    let s = format!("{x:.9}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod legend_tests {
    use super::*;

    #[test]
    fn ticks_read_as_the_numbers_they_stand_for() {
        assert_eq!(tick(0.6000000000000001), "0.6");
        assert_eq!(tick(0.7000000000000001), "0.7");
        assert_eq!(tick(0.65), "0.65");
        assert_eq!(tick(20.0), "20");
        assert_eq!(tick(1_000_000.0), "1000000");
        assert_eq!(tick(-0.0000000001), "0");
        assert_eq!(tick(-2.5), "-2.5");
        assert_eq!(tick(0.000125), "0.000125");
    }

    fn fig(points: Vec<(f64, f64, Option<f64>)>) -> Figure {
        Figure {
            title: String::new(),
            x_label: String::new(),
            y_label: String::new(),
            categories: None,
            lines: vec![Line {
                name: "a".into(),
                points,
            }],
            note: String::new(),
            never_negative: false,
        }
    }

    #[test]
    fn the_legend_goes_where_the_data_is_not() {
        // Rising to the upper right: the legend goes upper left.
        let rising = fig((0..10).map(|i| (i as f64, i as f64, None)).collect());
        let at = legend_corner(&rising, (0.0, 9.0), (0.0, 9.0));
        assert!(matches!(at, SeriesLabelPosition::UpperLeft), "{at:?}");
        // Falling from the upper left: upper right stays free.
        let falling = fig((0..10).map(|i| (i as f64, 9.0 - i as f64, None)).collect());
        let at = legend_corner(&falling, (0.0, 9.0), (0.0, 9.0));
        assert!(matches!(at, SeriesLabelPosition::UpperRight), "{at:?}");
        // High everywhere: a lower corner.
        let high = fig((0..10).map(|i| (i as f64, 8.5, Some(0.5))).collect());
        let at = legend_corner(&high, (0.0, 9.0), (0.0, 9.0));
        assert!(
            matches!(
                at,
                SeriesLabelPosition::LowerRight | SeriesLabelPosition::LowerLeft
            ),
            "{at:?}"
        );
    }

    /// The values of the y axis's tick labels in an SVG.
    fn y_ticks(svg: &str) -> Vec<f64> {
        svg.split("<text")
            .filter(|t| t.contains("text-anchor=\"end\""))
            .filter_map(|t| t.split(">\n").nth(1)?.split('\n').next()?.parse().ok())
            .collect()
    }

    #[test]
    fn bars_stop_at_zero_only_where_the_metric_cannot_be_negative() {
        // A mean of 1 ± 3: the interval reaches -2.
        let mut f = fig(vec![(0.0, 1.0, Some(3.0)), (1.0, 4.0, Some(1.0))]);
        let signed = y_ticks(&svg(&f).unwrap());
        assert!(signed.iter().any(|&v| v < 0.0), "{signed:?}");
        f.never_negative = true;
        let cut = y_ticks(&svg(&f).unwrap());
        assert!(!cut.is_empty() && cut.iter().all(|&v| v >= 0.0), "{cut:?}");
        assert_eq!(f.low(1.0, 3.0), 0.0);
        assert_eq!(f.low(4.0, 1.0), 3.0);
        // A bar that reaches zero exactly is not cut, and keeps its cap.
        assert!(!f.cut(1.0, 1.0));
    }
}
