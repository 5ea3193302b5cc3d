//! Grouped bars with each bar's value written on it (as CrystalDiskMark's tiles show them), on
//! a linear value axis (a review prints bars whose heights compare); a log axis only when the
//! caller asks (the report adds a log panel beside the linear one where the values span more
//! than [`super::axes::LOG_SPAN`] times, so a slow drive's bar can still be read).
//!
//! # Values that never overlap
//!
//! A value sits just above its bar, level when the widest value fits in a bar's width; upright
//! (rotated, reading upwards) when it does not but a line of text does; and when even that
//! does not fit, on every k-th bar only (k bars are a text line wide). The value axis gets
//! headroom for the tallest bar's value, so none leaves the plot. Widths are estimated from the
//! character count (the browser's font decides the real width; the Chromium test measures it).

use drivelab_engine::units::{fmt_number, Style};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::axes::{log_label, wants_log};
use super::frame::{plot_dims, Chart, Res};
use super::{cartesian, color, layout, no_data, render, Axis, Entry, Frame, Kind, LegendAt, Size, Swatch, Table};

/// The values' font as plotters takes it (the SVG gets 1/1.24 of it in px).
pub(super) const VALUE_FONT: u32 = 13;

/// Estimated width in px of `s` at plotters font size `font` (an average glyph is taken as
/// 0.62 em: digits, "k", "M" and "." are narrower, so this errs wide).
pub(crate) fn text_w(s: &str, font: u32) -> f64 {
    s.chars().count() as f64 * font as f64 / 1.24 * 0.62
}

/// A line of text's height in px at plotters font size `font`.
pub(crate) fn text_h(font: u32) -> f64 {
    font as f64 / 1.24 * 1.3
}

/// How the values on bars are set (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum ValueLabels {
    Level,
    Upright,
    /// Upright, on every k-th bar (counting across groups).
    Every(usize),
}

impl ValueLabels {
    /// The fit for bars `pitch` px apart whose widest value is `widest` px.
    pub(crate) fn fit(pitch: f64, widest: f64, font: u32) -> ValueLabels {
        if widest + 2.0 <= pitch {
            ValueLabels::Level
        } else if text_h(font) <= pitch {
            ValueLabels::Upright
        } else {
            ValueLabels::Every((text_h(font) / pitch.max(0.1)).ceil() as usize)
        }
    }

    /// Pixels above a bar its value needs.
    pub(crate) fn extent(self, widest: f64, font: u32) -> f64 {
        match self {
            ValueLabels::Level => text_h(font) + 4.0,
            _ => widest + 8.0,
        }
    }

    fn shows(self, bar: usize) -> bool {
        match self {
            ValueLabels::Every(k) => bar % k.max(1) == 0,
            _ => true,
        }
    }
}

/// Bars of `groups` (a group per category, a value per bar, bars `colors` in order) on a value
/// axis fitted to them: log10 where they span more than 20 times. Returns the axis
/// and whether it is log, for the frame; `extra` values (limits) are kept inside the axis.
pub(super) struct BarPlan {
    pub(super) y: Axis,
    pub(super) log: bool,
    pub(super) labels: ValueLabels,
}

/// The value axis and label fit for bars in a plot of `plot` (w, h) px.
pub(super) fn plan(groups: &[Vec<Option<f64>>], extra: &[f64], plot: (f64, f64), allow_log: bool) -> BarPlan {
    let vals: Vec<f64> = groups.iter().flatten().flatten().copied().filter(|v| v.is_finite()).collect();
    let log = allow_log && wants_log(vals.iter().copied());
    let nbars = groups.iter().map(Vec::len).max().unwrap_or(1).max(1);
    let pitch = plot.0 / groups.len().max(1) as f64 * 0.8 / nbars as f64;
    let widest = vals.iter().map(|v| text_w(&fmt_number(*v, Style::Label), VALUE_FONT)).fold(0.0, f64::max);
    let labels = ValueLabels::fit(pitch, widest, VALUE_FONT);
    let need = labels.extent(widest, VALUE_FONT).min(plot.1 * 0.6);
    let headroom = need / (plot.1 - need).max(1.0);
    let kind = if log { Kind::Log10 } else { Kind::Linear };
    let pts: Vec<f64> = vals.iter().chain(extra).filter_map(|v| kind.fwd(*v)).collect();
    BarPlan { y: Axis::fit(kind, pts, true, headroom), log, labels }
}

/// Draws the bars and their values: bar k of group g at x = g - 0.4 + (k + 0.05..0.95) x w.
pub(super) fn draw_bars(chart: &mut Chart, groups: &[Vec<Option<f64>>], p: &BarPlan) -> Res {
    let kind = if p.log { Kind::Log10 } else { Kind::Linear };
    let nbars = groups.iter().map(Vec::len).max().unwrap_or(1).max(1);
    let bw = 0.8 / nbars as f64;
    let base = if p.log { p.y.lo } else { 0.0 };
    for (g, vals) in groups.iter().enumerate() {
        for (k, v) in vals.iter().enumerate() {
            let Some((v, top)) = v.and_then(|v| Some((v, kind.fwd(v)?))) else { continue };
            let x0 = g as f64 - 0.4 + k as f64 * bw;
            chart.draw_series([Rectangle::new([(x0 + bw * 0.05, base), (x0 + bw * 0.95, top)], color(k).filled())])?;
            if !p.labels.shows(g * nbars + k) {
                continue;
            }
            let text = fmt_number(v, Style::Label);
            let font = ("sans-serif", VALUE_FONT).into_font().color(&BLACK.mix(0.85));
            let at = (x0 + bw / 2.0, top.max(base));
            let label = match p.labels {
                ValueLabels::Level => {
                    EmptyElement::at(at) + Text::new(text, (0, -3), font.pos(Pos::new(HPos::Center, VPos::Bottom)))
                }
                _ => {
                    let up = font.transform(FontTransform::Rotate270).pos(Pos::new(HPos::Left, VPos::Center));
                    EmptyElement::at(at) + Text::new(text, (0, -4), up)
                }
            };
            chart.draw_series([label])?;
        }
    }
    Ok(())
}

/// A table as grouped bars: one group per column, one bar per row (legend = row names), the
/// value axis in the table's unit, linear, each bar's value on it. Missing and non-finite
/// cells leave a gap.
pub fn grouped_bars_with(t: &Table, x_label: &str, size: Size) -> String {
    grouped_bars_scaled(t, x_label, size, false)
}

/// [`grouped_bars_with`], on a log value axis when `log` and the values allow one (all above
/// zero, more than [`super::axes::LOG_SPAN`] times apart), its label saying so.
pub fn grouped_bars_scaled(t: &Table, x_label: &str, size: Size, log: bool) -> String {
    let x = Axis::fit(Kind::Category(t.cols.clone()), [], false, 0.0);
    let groups: Vec<Vec<Option<f64>>> = (0..t.cols.len())
        .map(|c| t.rows.iter().map(|(_, v)| v.get(c).copied().flatten().filter(|v| v.is_finite())).collect())
        .collect();
    let entries: Vec<Entry> = t
        .rows
        .iter()
        .enumerate()
        .map(|(j, (name, _))| Entry { name: name.clone(), color: color(j), swatch: Swatch::Box })
        .collect();
    render(&t.title, size, |root| {
        let main = layout(root, &t.title, &entries, LegendAt::Right)?;
        let p = plan(&groups, &[], plot_dims(&main), log);
        let y_label = if p.log { log_label(&t.unit) } else { t.unit.clone() };
        let f = Frame { x_label, y_label: &y_label, x: &x, y: &p.y, x_mesh: false, y_mesh: true };
        let mut chart = cartesian(&main, None, &f)?;
        draw_bars(&mut chart, &groups, &p)?;
        if groups.iter().flatten().all(Option::is_none) {
            no_data(&mut chart, &x, &p.y)?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_go_level_then_upright_then_on_every_kth_bar_as_bars_narrow() {
        let w = text_w("12.3k", VALUE_FONT);
        assert_eq!(ValueLabels::fit(w + 10.0, w, VALUE_FONT), ValueLabels::Level);
        assert_eq!(ValueLabels::fit(w - 1.0, w, VALUE_FONT), ValueLabels::Upright);
        let h = text_h(VALUE_FONT);
        match ValueLabels::fit(h / 3.0, w, VALUE_FONT) {
            ValueLabels::Every(k) => assert!(k >= 3 && (k as f64) * h / 3.0 >= h, "k = {k}"),
            other => panic!("narrow bars: {other:?}"),
        }
        // Upright values need their width above the bar, level ones a line.
        assert!(ValueLabels::Upright.extent(w, VALUE_FONT) > ValueLabels::Level.extent(w, VALUE_FONT) || w < h);
    }
}

#[cfg(test)]
mod chart_tests {
    use super::*;
    use crate::model::{ChartSpec, SliceBars};

    fn two_drives(slow: f64, fast: f64) -> Table {
        Table {
            title: "Sequential read".into(),
            unit: "throughput (MB/s)".into(),
            row_header: "target".into(),
            col_header: "qd".into(),
            cols: vec!["1".into(), "8".into()],
            rows: vec![("sata".into(), vec![Some(slow), Some(slow * 1.1)]), ("nvme".into(), vec![Some(fast), None])],
            note: None,
            errored: Vec::new(),
            unsteady: Vec::new(),
        }
    }

    fn texts(svg: &str) -> Vec<String> {
        let doc = roxmltree::Document::parse(svg).expect("well-formed");
        doc.descendants().filter(|n| n.has_tag_name("text")).filter_map(|n| n.text()).map(|t| t.trim().into()).collect()
    }

    #[test]
    fn every_bar_shows_its_value_linear_unless_a_log_axis_is_asked_for_and_fits() {
        let wide = two_drives(144.0, 3583.0);
        for log in [false, true] {
            let shown = texts(&grouped_bars_scaled(&wide, "queue depth", Size::default(), log));
            for v in [144.0, 144.0 * 1.1, 3583.0] {
                assert!(shown.contains(&fmt_number(v, Style::Label)), "{v} on its bar: {shown:?}");
            }
            let axis = if log { "throughput (MB/s, log scale)" } else { "throughput (MB/s)" };
            assert!(shown.contains(&axis.to_string()), "log {log}: {shown:?}");
        }
        // A linear axis by default, whatever the span (236 vs 99 MB/s must not look equal).
        let shown = texts(&grouped_bars_with(&wide, "queue depth", Size::default()));
        assert!(!shown.iter().any(|t| t.contains("log scale")), "{shown:?}");
        // 3583 / 1000 is under 20x: asked for, a log axis would mislead; it stays linear.
        let near = two_drives(1000.0, 3583.0);
        let shown = texts(&grouped_bars_scaled(&near, "queue depth", Size::default(), true));
        assert!(shown.contains(&"throughput (MB/s)".to_string()), "{shown:?}");
    }

    #[test]
    fn act_slices_are_scaled_to_their_bars_with_each_limit_on_the_axis_labelled() {
        let b = SliceBars {
            title: "slices".into(),
            x_label: "slice".into(),
            thresholds_ms: vec![1, 8, 64],
            slices: vec![("1".into(), vec![0.03, 0.01, 0.0]), ("2".into(), vec![0.02, 0.0, 0.0])],
            limits: vec![(1, 5.0), (8, 1.0), (64, 0.1)],
        };
        let svg = crate::charts::draw(&ChartSpec::SliceBars(b));
        let chart = crate::svg_read::Chart::parse(&svg);
        let top = chart
            .texts()
            .filter(|n| n.attribute("text-anchor") == Some("end") && n.attribute("transform").is_none())
            .filter_map(|n| crate::svg_read::tick_value(&crate::svg_read::text_of(n)))
            .fold(0.0, f64::max);
        // A 0.03% bar on an axis reaching the 0.1% limit, not 0–6%.
        assert!((0.1..1.0).contains(&top), "axis top {top}");
        let shown = texts(&svg);
        assert!(shown.contains(&"limit > 64 ms: 0.1%".to_string()), "{shown:?}");
        assert!(!shown.iter().any(|t| t.ends_with("ms limit 0.1%")), "no label over the bars: {shown:?}");
        assert!(shown.contains(&"limit > 1 ms: 5% (above the axis)".to_string()), "{shown:?}");
        assert!(shown.contains(&fmt_number(0.03, Style::Label)), "{shown:?}");
    }
}
