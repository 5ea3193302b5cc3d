//! The latency split's charts (`--latency-split`): a bar per percentile stacked by stage, and
//! each stage's mean per second as stacked areas. Both stack the stages in their order (tool
//! at the bottom, reap on top) in the same five colours, named in a legend right of the plot,
//! so the two charts of a point read together; a bar's or a second's top is its whole lat.
//! Values are ns in the spec and µs on the axis, which starts at 0 (a stacked chart on a log
//! axis would misstate every stage but the lowest).

use drivelab_engine::split::STAGES;
use drivelab_engine::units::{fmt_number, Style};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::bars::{text_h, VALUE_FONT};
use super::frame::plot_dims;
use super::{cartesian, color, layout, no_data, render, Axis, Entry, Frame, Kind, LegendAt, Size, Swatch};
use crate::model::{SplitBars, SplitSeconds};

/// The legend: the five stages in their colours, in stacking order from the top (as they lie).
fn legend() -> Vec<Entry> {
    STAGES
        .iter()
        .enumerate()
        .rev()
        .map(|(k, s)| Entry { name: s.to_string(), color: color(k), swatch: Swatch::Box })
        .collect()
}

/// Each stage's lower and upper edge (µs, or % with `per` 1) stacked from 0.
fn stacked(ns: &[f64; 5]) -> [(f64, f64); 5] {
    stacked_per(ns, 1e3)
}

fn stacked_per(ns: &[f64; 5], per: f64) -> [(f64, f64); 5] {
    let mut base = 0.0;
    std::array::from_fn(|k| {
        let v = if ns[k].is_finite() { ns[k].max(0.0) / per } else { 0.0 };
        let edge = (base, base + v);
        base += v;
        edge
    })
}

/// A bar per percentile (p50, p99, p99.9), its stages stacked, its total written above it.
pub fn stacked_bars(b: &SplitBars) -> String {
    let x = Axis::fit(Kind::Category(b.bars.iter().map(|(n, _)| n.clone()).collect()), [], false, 0.0);
    let per = if b.shares { 1.0 } else { 1e3 };
    let tops: Vec<f64> = b.bars.iter().map(|(_, ns)| stacked_per(ns, per)[4].1).collect();
    let entries = legend();
    render(&b.title, Size::default(), |root| {
        let main = layout(root, &b.title, &entries, LegendAt::Right)?;
        // Room above the tallest bar for its total.
        let h = plot_dims(&main).1;
        let need = text_h(VALUE_FONT) + 6.0;
        let y = Axis::fit(Kind::Linear, tops.iter().copied(), true, need / (h - need).max(1.0));
        let f = Frame {
            x_label: "percentile of lat",
            y_label: if b.shares { "share of lat (%)" } else { "latency (µs)" },
            x: &x,
            y: &y,
            x_mesh: false,
            y_mesh: true,
        };
        let mut chart = cartesian(&main, None, &f)?;
        for (g, (_, ns)) in b.bars.iter().enumerate() {
            let xc = g as f64;
            for (k, (lo, hi)) in stacked_per(ns, per).into_iter().enumerate() {
                if hi > lo {
                    chart.draw_series([Rectangle::new([(xc - 0.3, lo), (xc + 0.3, hi)], color(k).filled())])?;
                }
            }
            let total = stacked_per(ns, per)[4].1;
            if b.shares {
                continue; // every bar is 100%: its µs are on the chart beside it
            }
            let font = ("sans-serif", VALUE_FONT).into_font().color(&BLACK.mix(0.85));
            let label = EmptyElement::at((xc, total))
                + Text::new(
                    format!("{} µs", fmt_number(total, Style::Label)),
                    (0, -3),
                    font.pos(Pos::new(HPos::Center, VPos::Bottom)),
                );
            chart.draw_series([label])?;
        }
        if tops.iter().all(|t| *t <= 0.0) {
            no_data(&mut chart, &x, &y)?;
        }
        Ok(())
    })
}

/// Each stage's mean per second as a band stacked on the stages before it: the top edge is
/// each second's mean lat.
pub fn stacked_seconds(s: &SplitSeconds) -> String {
    let xs: Vec<f64> = s.seconds.iter().map(|p| p.0).filter(|t| t.is_finite()).collect();
    let x = Axis::fit(Kind::Linear, xs.iter().copied(), false, 0.0);
    let edges: Vec<(f64, [(f64, f64); 5])> =
        s.seconds.iter().filter(|p| p.0.is_finite()).map(|(t, ns)| (*t, stacked(ns))).collect();
    let y = Axis::fit(Kind::Linear, edges.iter().map(|e| e.1[4].1), true, 0.0);
    let entries = legend();
    let size = Size { w: 900, h: 320 };
    render(&s.title, size, |root| {
        let main = layout(root, &s.title, &entries, LegendAt::Right)?;
        let f = Frame {
            x_label: "time since measurement started (s)",
            y_label: "mean latency (µs)",
            x: &x,
            y: &y,
            x_mesh: true,
            y_mesh: true,
        };
        let mut chart = cartesian(&main, None, &f)?;
        for k in 0..5 {
            let mut band: Vec<(f64, f64)> = edges.iter().map(|(t, e)| (*t, e[k].1)).collect();
            band.extend(edges.iter().rev().map(|(t, e)| (*t, e[k].0)));
            if band.len() >= 4 && edges.iter().any(|(_, e)| e[k].1 > e[k].0) {
                chart.draw_series([Polygon::new(band, color(k).filled())])?;
            }
        }
        if edges.len() < 2 {
            no_data(&mut chart, &x, &y)?;
        }
        Ok(())
    })
}
