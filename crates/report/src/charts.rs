//! Charts for the HTML report, each one a self-contained inline `<svg>` element.
//!
//! These are the graphs storage reviews draw next to their tables (and that drivelab's seed
//! material shows): IOPS against queue depth, MB/s per drive, a read/write mix curve, a block
//! size x queue depth heatmap, latency percentiles and a latency CDF on a log axis, and
//! sparklines of a point's seconds.
//!
//! # Why plotters
//!
//! The geometry (scales, ticks, mesh, series) comes from the [`plotters`] crate rather
//! than hand-written plot code: it is well kept, pure Rust, and its SVG backend
//! (`SVGBackend::with_string`) writes straight into a `String`. It is used with
//! `default-features = false` and only `svg_backend`, `line_series` and `colormaps`: no bitmap
//! backend, no image codecs, and no `ttf`/`ab_glyph` font feature. Without a font feature
//! plotters lays text out with a built-in size estimate and the SVG backend emits plain
//! `<text>` elements that the browser renders with its own fonts, so making a chart needs no
//! font files, no system fonts and no network. The output is deterministic: same input, same
//! string.
//!
//! # Axes
//!
//! Non-linear axes are drawn in transformed coordinates with explicit tick positions
//! (`with_key_points`): [`XScale::Log2`] plots `log2(x)` with a tick at every power of two (so
//! queue depths 1, 2, 4, ... 128 are equally spaced), log value axes plot `log10(y)` with ticks
//! at decades (and 2 and 5 times them when the range is short), categorical axes plot the
//! category's index. Points that cannot be shown (NaN, infinite, `<= 0` on a log axis, outside
//! the categories) are skipped; a chart with nothing to show still draws its axes and says
//! "no data". Linear axes over whole numbers only (drive counts, seconds) tick at whole numbers;
//! tick labels read "12.5k", "1.5M".
//!
//! # Legends
//!
//! A legend is never drawn over the data: it is a column right of the plot (the plot gets the
//! rest of the width), or, for the latency charts whose 13 percentiles need the full width, two
//! columns under the plot (the chart grows by their height). plotters' own legend box sits inside
//! the plot, where on a busy latency chart it covered lines; ours is drawn with plotters'
//! elements in a drawing area of its own. Names longer than 44 characters are shortened in the
//! middle. Reference lines (JBOD's ideal scaling) are dashed in the colour of their series.

use drivelab_engine::hist::{bucket_of, bucket_width, HistogramData, SUB_BITS};
use drivelab_engine::units::{fmt_number, fmt_trimmed, Style};

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::tables::Table;

/// A chart's size in pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Size {
    pub w: u32,
    pub h: u32,
}

/// The size every chart function without a `Size` argument uses: 900 x 420, the width of the
/// report's column (a legend, when there is one, takes the right of it).
pub const DEFAULT_SIZE: Size = Size { w: 900, h: 420 };

/// Font sizes as plotters takes them (the SVG gets 1/1.24 of these in px): titles, tick labels,
/// axis descriptions and legend entries, chosen to read like the page's small print.
const TITLE_FONT: u32 = 22;
const TICK_FONT: u32 = 15;
const DESC_FONT: u32 = 16;
const LEGEND_FONT: u32 = 15;

impl Default for Size {
    fn default() -> Self {
        DEFAULT_SIZE
    }
}

/// One line of a [`LineChart`]: `(x, y)` points in data units (for [`XScale::Category`], x is
/// the category's index).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    /// A reference line for the series at this index (e.g. JBOD's ideal scaling): drawn dashed
    /// in that series' colour, without markers.
    pub reference_for: Option<usize>,
}

impl Series {
    /// A series drawn solid with markers.
    pub fn new(name: impl Into<String>, points: Vec<(f64, f64)>) -> Series {
        Series { name: name.into(), points, reference_for: None }
    }
}

/// How the x axis of a [`LineChart`] maps values.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub enum XScale {
    Linear,
    /// Powers of two equally spaced: queue depth, block size, job count.
    Log2,
    /// Named categories; a point's x is the index into this list.
    Category(Vec<String>),
}

/// A line chart: one line with markers per series.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct LineChart {
    pub title: String,
    /// With its unit, e.g. "queue depth (I/Os per job)".
    pub x_label: String,
    /// With its unit, e.g. "IOPS" or "MB/s".
    pub y_label: String,
    pub x_scale: XScale,
    /// A log10 value axis (values `<= 0` are skipped).
    pub y_log: bool,
    pub series: Vec<Series>,
}

#[path = "charts/axes.rs"]
mod axes;
pub(crate) use axes::{wants_log, LOG_SPAN};
use axes::{Axis, Kind, Ticked};

#[path = "charts/frame.rs"]
mod frame;

#[path = "charts/tail.rs"]
mod tail;
pub use tail::{exceedance, exceedance_points, hockey};

#[path = "charts/bars.rs"]
mod bars;
pub use bars::{grouped_bars_scaled, grouped_bars_with};
use frame::{
    cartesian, color, draw_lines, layout, no_data, render, transform, x_kind, xml_escape, Drawn, Entry, Frame,
    LegendAt, Marks, Swatch,
};

// ---------------------------------------------------------------------------------------------
// Public charts

/// A line chart at [`DEFAULT_SIZE`].
pub fn line_chart(c: &LineChart) -> String {
    line_chart_sized(c, DEFAULT_SIZE)
}

/// One line with markers per series (points sorted by x), a legend, axis labels.
pub fn line_chart_sized(c: &LineChart, size: Size) -> String {
    plotted(c, size, Marks::LineAndMarkers)
}

/// `c`'s series drawn with `marks`.
fn plotted(c: &LineChart, size: Size, marks: Marks) -> String {
    let xk = x_kind(&c.x_scale);
    let yk = if c.y_log { Kind::Log10 } else { Kind::Linear };
    let series: Vec<Drawn> = c
        .series
        .iter()
        .map(|s| {
            let reference = s.reference_for.filter(|&i| i < c.series.len() && c.series[i].reference_for.is_none());
            (s.name.clone(), transform(&s.points, &xk, &yk, true), reference)
        })
        .collect();
    let x = Axis::fit(xk, series.iter().flat_map(|s| s.1.iter().map(|p| p.0)), false, 0.0);
    let y = Axis::fit(yk, series.iter().flat_map(|s| s.1.iter().map(|p| p.1)), true, 0.0);
    let y_label = if c.y_log { axes::log_label(&c.y_label) } else { c.y_label.clone() };
    let f = Frame { x_label: &c.x_label, y_label: &y_label, x: &x, y: &y, x_mesh: true, y_mesh: true };
    draw_lines(&c.title, size, &f, &series, marks, LegendAt::Right)
}

/// A dot per point and no line, at `size`: a long run's IOPS of every second, as reviews chart
/// a drive's consistency (a line through thousands of seconds is a smear; dots show the bands a
/// drive falls into: its garbage collection, its cache running out). A series with
/// `reference_for` is a dashed line (the run's mean).
pub fn scatter(c: &LineChart, size: Size) -> String {
    plotted(c, size, Marks::Dots)
}

/// The x axis description for a table's columns: the words the headers share after their
/// number ("1 DQL/Disk", "2 DQL/Disk" -> "DQL/Disk"), else "".
fn guess_col_label(t: &Table) -> String {
    let tails: Vec<&str> =
        t.cols.iter().map(|c| c.trim_start_matches(|ch: char| ch.is_ascii_digit() || ch == '.').trim()).collect();
    match tails.first() {
        Some(first) if !first.is_empty() && tails.iter().all(|t| t == first) => first.to_string(),
        _ => String::new(),
    }
}

fn finite_cells(t: &Table) -> impl Iterator<Item = f64> + '_ {
    t.rows.iter().flat_map(|(_, v)| v.iter().flatten().copied()).filter(|v| v.is_finite())
}

/// A table as grouped bars at [`DEFAULT_SIZE`], the x axis described by [`guess_col_label`].
pub fn grouped_bars(t: &Table) -> String {
    grouped_bars_with(t, &guess_col_label(t), DEFAULT_SIZE)
}

/// The number a column header starts with, with a k/m/g suffix as powers of 1024 ("4k" ->
/// 4096, "4 DQL/Disk" -> 4, "1.5" -> 1.5).
pub(crate) fn parse_header(h: &str) -> Option<f64> {
    let h = h.trim();
    let end = h.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(h.len());
    let n: f64 = h[..end].parse().ok()?;
    let rest = &h[end..];
    let mul = match rest.chars().next().map(|c| c.to_ascii_lowercase()) {
        Some('k') if rest.len() == 1 || rest[1..].starts_with(|c: char| !c.is_alphabetic()) || rest == "kb" => 1024.0,
        Some('m') if rest.len() == 1 => 1024.0 * 1024.0,
        Some('g') if rest.len() == 1 => 1024.0 * 1024.0 * 1024.0,
        _ => 1.0,
    };
    Some(n * mul).filter(|v| v.is_finite())
}

/// Each row of a table as a line over its columns, at [`DEFAULT_SIZE`]. With `Linear` or
/// `Log2`, column headers are parsed as numbers ("4 DQL/Disk" -> 4, "4k" -> 4096); if one does
/// not parse (or `Log2` meets a value `<= 0`) the columns become categories. With `Category`,
/// the columns are the categories (the labels given are not used).
pub fn line_from_table(t: &Table, x_label: &str, x_scale: XScale) -> String {
    line_from_table_sized(t, x_label, x_scale, DEFAULT_SIZE)
}

/// [`line_from_table`] at a given size.
pub fn line_from_table_sized(t: &Table, x_label: &str, x_scale: XScale, size: Size) -> String {
    line_from_table_scaled(t, x_label, x_scale, size, false)
}

/// [`line_from_table_sized`], its value axis log10 when `log` and the values allow one (all
/// above zero, more than [`axes::LOG_SPAN`] times apart): the report's second panel.
pub fn line_from_table_scaled(t: &Table, x_label: &str, x_scale: XScale, size: Size, log: bool) -> String {
    let parsed: Option<Vec<f64>> = match x_scale {
        XScale::Category(_) => None,
        XScale::Linear => t.cols.iter().map(|c| parse_header(c)).collect(),
        XScale::Log2 => t.cols.iter().map(|c| parse_header(c).filter(|v| *v > 0.0)).collect(),
    };
    let (xs, scale) = match parsed {
        Some(xs) => (xs, x_scale),
        None => ((0..t.cols.len()).map(|i| i as f64).collect(), XScale::Category(t.cols.clone())),
    };
    let series = t
        .rows
        .iter()
        .map(|(name, vals)| {
            Series::new(name.clone(), xs.iter().zip(vals).filter_map(|(&x, v)| Some((x, (*v)?))).collect())
        })
        .collect();
    let c = LineChart {
        title: t.title.clone(),
        x_label: x_label.to_string(),
        y_label: t.unit.clone(),
        x_scale: scale,
        // Linear unless asked: a log axis makes 236 and 99 MB/s look alike.
        y_log: log && axes::wants_log(finite_cells(t)),
        series,
    };
    line_chart_sized(&c, size)
}

/// A table as a heatmap at [`DEFAULT_SIZE`].
pub fn heatmap(t: &Table) -> String {
    heatmap_with(t, &guess_col_label(t), &t.row_header, DEFAULT_SIZE)
}

/// Rows x columns coloured cells (viridis, low = dark) with each value printed in its cell,
/// first row on top, and a colour scale in the table's unit on the right; `y_label` describes
/// the rows. Missing cells are light grey with "—".
pub fn heatmap_with(t: &Table, x_label: &str, y_label: &str, size: Size) -> String {
    let nrows = t.rows.len();
    let x = Axis::fit(Kind::Category(t.cols.clone()), [], false, 0.0);
    // Row j is drawn at y = nrows-1-j so the first row is on top, as in the table.
    let y = Axis::fit(Kind::Category(t.rows.iter().rev().map(|r| r.0.clone()).collect()), [], false, 0.0);
    let (mut vmin, mut vmax) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in finite_cells(t) {
        vmin = vmin.min(v);
        vmax = vmax.max(v);
    }
    let has_data = vmin <= vmax;
    if !has_data {
        (vmin, vmax) = (0.0, 1.0);
    } else if vmax <= vmin {
        vmax = vmin + if vmin == 0.0 { 1.0 } else { vmin.abs() * 0.01 };
    }
    let f = Frame { x_label, y_label, x: &x, y: &y, x_mesh: false, y_mesh: false };
    render(&t.title, size, |root| {
        root.fill(&WHITE)?;
        let body = root.titled(&t.title, ("sans-serif", TITLE_FONT))?;
        let (w, _) = body.dim_in_pixel();
        let (main, side) = body.split_horizontally(w.saturating_sub(110));
        let mut chart = cartesian(&main, None, &f)?;
        let font = if t.cols.len() > 10 { 12 } else { 14 };
        for (j, (_, vals)) in t.rows.iter().enumerate() {
            let yc = (nrows - 1 - j) as f64;
            for g in 0..t.cols.len() {
                let v = vals.get(g).copied().flatten().filter(|v| v.is_finite());
                let (fill, ink, text) = match v {
                    Some(v) => {
                        let c: RGBColor = ViridisRGB.get_color_normalized(v, vmin, vmax);
                        let lum = 0.299 * c.0 as f64 + 0.587 * c.1 as f64 + 0.114 * c.2 as f64;
                        (c, if lum < 140.0 { WHITE } else { BLACK }, fmt_number(v, Style::Label))
                    }
                    None => (RGBColor(235, 235, 235), BLACK, "—".to_string()),
                };
                let xc = g as f64;
                chart.draw_series(std::iter::once(Rectangle::new(
                    [(xc - 0.5, yc - 0.5), (xc + 0.5, yc + 0.5)],
                    ShapeStyle::from(&fill).filled().stroke_width(1),
                )))?;
                let style = ("sans-serif", font).into_font().color(&ink).pos(Pos::new(HPos::Center, VPos::Center));
                chart.draw_series(std::iter::once(Text::new(text, (xc, yc), style)))?;
            }
        }
        if !has_data {
            no_data(&mut chart, &x, &y)?;
        }
        // The colour scale: a column of 32 steps from vmin to vmax, labelled in the unit.
        let scale = Axis::fit(Kind::Linear, [vmin, vmax], false, 0.0);
        let scale = Axis {
            lo: vmin,
            hi: vmax,
            ticks: scale.ticks.into_iter().filter(|t| *t >= vmin && *t <= vmax).collect(),
            ..scale
        };
        // The unit above the scale, and below it room for half a tick label: the top tick sits
        // on the scale's top edge, its label centred on it.
        let side = side.margin(12, 0, 0, 0).titled(&t.unit, ("sans-serif", TICK_FONT))?;
        let mut bar = ChartBuilder::on(&side)
            .margin_top(TICK_FONT / 2 + 2)
            .margin_bottom(58)
            .margin_right(8)
            .y_label_area_size(64)
            .build_cartesian_2d(Ticked { inner: (0.0..1.0).into(), ticks: Vec::new() }, scale.coord())?;
        let sf = |v: &f64| scale.label(*v);
        bar.configure_mesh()
            .disable_x_mesh()
            .disable_y_mesh()
            .y_label_formatter(&sf)
            .label_style(("sans-serif", TICK_FONT - 1))
            .draw()?;
        const STEPS: usize = 32;
        let d = (vmax - vmin) / STEPS as f64;
        bar.draw_series((0..STEPS).map(|i| {
            let lo = vmin + d * i as f64;
            let c: RGBColor = ViridisRGB.get_color_normalized(lo + d / 2.0, vmin, vmax);
            Rectangle::new([(0.0, lo), (1.0, lo + d)], c.filled())
        }))?;
        Ok(())
    })
}

fn pct_label(p: f64) -> String {
    format!("p{}", fmt_trimmed(p, 6))
}

/// Latency percentiles at [`DEFAULT_SIZE`]: `(name, [(percentile, ns)])` per series.
pub fn latency_percentiles(series: &[(String, Vec<(f64, f64)>)]) -> String {
    latency_percentiles_sized(series, DEFAULT_SIZE)
}

/// Latency (µs, log axis) at each percentile (categories p50 ... p99.9999, the union of the
/// series' percentiles in ascending order), one line per series.
pub fn latency_percentiles_sized(series: &[(String, Vec<(f64, f64)>)], size: Size) -> String {
    latency_percentiles_titled("Latency percentiles", series, size)
}

/// [`latency_percentiles_sized`] under another title.
pub fn latency_percentiles_titled(title: &str, series: &[(String, Vec<(f64, f64)>)], size: Size) -> String {
    let mut ps: Vec<f64> = series.iter().flat_map(|s| s.1.iter().map(|p| p.0)).filter(|p| p.is_finite()).collect();
    ps.sort_by(f64::total_cmp);
    ps.dedup_by(|a, b| pct_label(*a) == pct_label(*b));
    let labels: Vec<String> = ps.iter().map(|p| pct_label(*p)).collect();
    let xk = Kind::Category(labels.clone());
    let yk = Kind::Log10;
    let t: Vec<Drawn> = series
        .iter()
        .map(|(name, pts)| {
            let pts: Vec<(f64, f64)> = pts
                .iter()
                .filter(|p| p.0.is_finite())
                .filter_map(|&(p, ns)| {
                    let i = labels.iter().position(|l| *l == pct_label(p))?;
                    Some((i as f64, ns / 1000.0))
                })
                .collect();
            (name.clone(), transform(&pts, &xk, &yk, true), None)
        })
        .collect();
    let x = Axis::fit(xk, [], false, 0.0);
    let y = Axis::fit(yk, t.iter().flat_map(|s| s.1.iter().map(|p| p.1)), false, 0.0).micros();
    let f = Frame { x_label: "percentile", y_label: "latency (log scale)", x: &x, y: &y, x_mesh: true, y_mesh: true };
    draw_lines(title, size, &f, &t, Marks::LineAndMarkers, LegendAt::Below)
}

/// The CDF of a histogram: `(latency µs, % of I/Os completed by then)`, starting at 0 % at the
/// lowest bucket and stepping up at each bucket's upper edge; ends at exactly 100 %. Empty for
/// an empty histogram.
pub fn cdf_points(h: &HistogramData) -> Vec<(f64, f64)> {
    let total: u64 = h.buckets.iter().map(|b| b[1]).sum();
    if total == 0 {
        return Vec::new();
    }
    let mut out = Vec::with_capacity(h.buckets.len() + 1);
    let mut cum = 0u64;
    for (i, &[low, count]) in h.buckets.iter().enumerate() {
        if count == 0 {
            continue;
        }
        if i == 0 || out.is_empty() {
            out.push((low as f64 / 1000.0, 0.0));
        }
        cum += count;
        let width = if h.sub_bucket_bits == SUB_BITS { bucket_width(bucket_of(low)) } else { 1 };
        let upper = low.saturating_add(width);
        out.push((upper as f64 / 1000.0, 100.0 * cum as f64 / total as f64));
    }
    out
}

/// Latency CDFs at [`DEFAULT_SIZE`].
pub fn latency_cdf(series: &[(String, &HistogramData)]) -> String {
    latency_cdf_sized(series, DEFAULT_SIZE)
}

/// One CDF line per histogram: x latency in µs on a log axis, y 0..100 % of I/Os completed.
pub fn latency_cdf_sized(series: &[(String, &HistogramData)], size: Size) -> String {
    let (xk, yk) = (Kind::Log10, Kind::Linear);
    let t: Vec<Drawn> =
        series.iter().map(|(name, h)| (name.clone(), transform(&cdf_points(h), &xk, &yk, false), None)).collect();
    let x = Axis::fit(xk, t.iter().flat_map(|s| s.1.iter().map(|p| p.0)), false, 0.0).micros();
    let y = Axis::fit(yk, [0.0, 100.0], true, 0.0);
    let f = Frame {
        x_label: "latency (log scale)",
        y_label: "I/Os completed (%)",
        x: &x,
        y: &y,
        x_mesh: true,
        y_mesh: true,
    };
    draw_lines("Latency CDF", size, &f, &t, Marks::Line, LegendAt::Below)
}

/// A sparkline's size: the line's plot area is `SPARK_PLOT_W` wide, the min and max labels sit
/// to its right.
pub const SPARK_SIZE: Size = Size { w: 290, h: 40 };
const SPARK_PLOT_W: u32 = 190;

/// A sparkline: one metric of one point over time, small enough for a table row.
pub struct Sparkline<'a> {
    /// What the line shows, for the tooltip (`<title>`): "point 17 randread 4k qd8: IOPS per second".
    pub title: &'a str,
    /// `(seconds, value)` samples in time order; non-finite ones are skipped.
    pub points: &'a [(f64, f64)],
    /// A value as read with its unit: "12.3k IOPS", "1.25 ms".
    pub fmt: &'a dyn Fn(f64) -> String,
    /// Index into the report's colours.
    pub color: usize,
}

/// A value with its unit for labels: "12.3k IOPS" for `unit` "IOPS".
pub fn fmt_with_unit(v: f64, unit: &str) -> String {
    format!("{} {unit}", fmt_number(v, Style::Label))
}

/// `svg`'s root tag with `class` added and a `<title>` (a tooltip for readers, and a stable
/// hook for tests) as its first child.
fn with_root_title(svg: String, class: &str, title: &str) -> String {
    let Some(end) = svg.find('>') else { return svg };
    let head = svg[..end].trim_end_matches('/');
    if head.len() != end {
        return svg; // a self-closing root: nothing drawn, leave it be
    }
    format!("{head} class=\"{class}\"><title>{}</title>{}", xml_escape(title), &svg[end + 1..])
}

/// A sparkline (see [`Sparkline`]): the samples as a line from the first to the last second,
/// the value axis from 0 (bottom) to the highest sample (top) so a dip reads as large as it
/// is, no axes; "max" and "min" with their units to the right. The root `<svg>` has
/// `class="spark"` and a `<title>` naming the line, its span and its min and max. With no
/// finite sample it says "no data".
pub fn sparkline(s: &Sparkline) -> String {
    let pts: Vec<(f64, f64)> = s.points.iter().copied().filter(|(t, v)| t.is_finite() && v.is_finite()).collect();
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for &(_, v) in &pts {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    let (t0, t1) = match (pts.first(), pts.last()) {
        (Some(a), Some(b)) if b.0 > a.0 => (a.0, b.0),
        (Some(a), _) => (a.0 - 0.5, a.0 + 0.5),
        _ => (0.0, 1.0),
    };
    let bottom = if lo.is_finite() { lo.min(0.0) } else { 0.0 };
    let top = if hi > bottom { hi } else { bottom + 1.0 };
    let summary = if pts.is_empty() {
        format!("{}: no data", s.title)
    } else {
        let (first, last) = (pts[0].0, pts[pts.len() - 1].0);
        if pts.len() == 1 {
            format!("{}, 1 sample at {} s: {}", s.title, fmt_number(first, Style::Label), (s.fmt)(hi))
        } else {
            let span = format!(
                "{}, {} samples from {} s to {} s",
                s.title,
                pts.len(),
                fmt_number(first, Style::Label),
                fmt_number(last, Style::Label)
            );
            if lo == hi {
                format!("{span}: {} each", (s.fmt)(hi))
            } else {
                format!("{span}: min {}, max {}", (s.fmt)(lo), (s.fmt)(hi))
            }
        }
    };
    let svg = render(s.title, SPARK_SIZE, |root| {
        let (plot, labels) = root.split_horizontally(SPARK_PLOT_W);
        let c = color(s.color);
        let mut chart = ChartBuilder::on(&plot).margin(4).build_cartesian_2d(t0..t1, bottom..top)?;
        // The zero line, so the height of the line reads against nothing.
        chart.draw_series(LineSeries::new([(t0, 0.0), (t1, 0.0)], BLACK.mix(0.25).stroke_width(1)))?;
        if pts.len() == 1 {
            chart.draw_series(pts.iter().map(|&(t, v)| Circle::new((t, v), 2, c.filled())))?;
        } else {
            chart.draw_series(LineSeries::new(pts.iter().copied(), c.stroke_width(1)))?;
        }
        let font = ("sans-serif", 14).into_font();
        let grey = font.color(&BLACK.mix(0.75));
        if pts.is_empty() {
            labels.draw(&Text::new(
                "no data",
                (6, SPARK_SIZE.h as i32 / 2),
                grey.pos(Pos::new(HPos::Left, VPos::Center)),
            ))?;
        } else if lo == hi {
            // One value (one second, or a flat line): one label.
            let at = Pos::new(HPos::Left, VPos::Center);
            labels.draw(&Text::new((s.fmt)(hi), (6, SPARK_SIZE.h as i32 / 2), grey.pos(at)))?;
        } else {
            labels.draw(&Text::new(
                format!("max {}", (s.fmt)(hi)),
                (6, 3),
                grey.pos(Pos::new(HPos::Left, VPos::Top)),
            ))?;
            let y = SPARK_SIZE.h as i32 - 3;
            labels.draw(&Text::new(
                format!("min {}", (s.fmt)(lo)),
                (6, y),
                grey.pos(Pos::new(HPos::Left, VPos::Bottom)),
            ))?;
        }
        Ok(())
    });
    with_root_title(svg, "spark", &summary)
}

#[cfg(test)]
#[path = "charts/tests.rs"]
mod tests;

/// Draw a chart spec of the report model (HTML and PNG exporters alike).
pub fn draw(spec: &crate::model::ChartSpec) -> String {
    use crate::model::ChartSpec;
    match spec {
        ChartSpec::Ladder(l) => search::ladder(l),
        ChartSpec::SliceBars(b) => search::slice_bars(b),
        ChartSpec::Percentiles { title, series } => latency_percentiles_titled(title, series, DEFAULT_SIZE),
        ChartSpec::Cdf { series } => {
            let s: Vec<(String, &HistogramData)> = series.iter().map(|(n, h)| (n.clone(), h)).collect();
            latency_cdf(&s)
        }
        ChartSpec::Line { line, size } => line_chart_sized(line, *size),
        ChartSpec::Scatter { line, size } => scatter(line, *size),
        ChartSpec::Table { kind, table, log, style } => crate::html::chart_for(*kind, table, *log, *style),
        ChartSpec::Bars { table } => grouped_bars_with(table, &table.col_header, DEFAULT_SIZE),
        ChartSpec::Exceedance { title, series } => tail::exceedance(title, series),
        ChartSpec::Hockey(h) => tail::hockey(&h.title, &h.load, &h.series, &h.loads),
        ChartSpec::SplitBars(b) => split::stacked_bars(b),
        ChartSpec::SplitSeconds(s) => split::stacked_seconds(s),
    }
}

#[path = "charts/split.rs"]
mod split;

#[path = "charts/search.rs"]
mod search;
