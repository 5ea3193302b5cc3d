//! The charts of searches and certifications: a qos probe ladder (offered load, log scale, against each
//! objective statistic, the objective's limit dashed, pass filled, fail hollow, the confirming
//! run ringed) and ACT's slices (a group of bars per slice, one bar per threshold, ACT's limits
//! dashed in their threshold's colour). Same axes, legends and fonts as the other charts.

use plotters::prelude::*;

use super::{bars, frame};
use super::{cartesian, color, layout, no_data, render, Axis, Entry, Frame, Kind, LegendAt, Size, Swatch};
use crate::model::{Ladder, SliceBars, Unit};

/// Offered load (x) against latency in µs on a log axis (y), a marker per probe and clause.
pub fn ladder(l: &Ladder) -> String {
    // A rate search halves its way down from the closed-loop maximum: on a log axis the probes
    // near the answer are as far apart as the first ones.
    let xk = if l.load_unit == Unit::Qd { Kind::Log2 } else { Kind::Log10 };
    let yk = Kind::Log10;
    let us = |ns: f64| yk.fwd(ns / 1e3);
    let xs = l.clauses.iter().flat_map(|c| c.points.iter().filter_map(|p| xk.fwd(p.load)));
    let x = Axis::fit(xk.clone(), xs.collect::<Vec<_>>(), false, 0.0);
    let ys = l.clauses.iter().flat_map(|c| c.points.iter().map(|p| p.latency_ns).chain([c.limit_ns]).filter_map(us));
    let y = Axis::fit(yk.clone(), ys.collect::<Vec<_>>(), false, 0.0).micros();
    let x_label = match l.load_unit {
        Unit::Qd => "queue depth (I/Os in flight per job)",
        _ => "offered load (IOPS, log scale)",
    };
    let f = Frame { x_label, y_label: "latency (log scale)", x: &x, y: &y, x_mesh: true, y_mesh: true };
    let mut entries = Vec::new();
    for (i, c) in l.clauses.iter().enumerate() {
        entries.push(Entry { name: c.stat.clone(), color: color(i), swatch: Swatch::Dot });
        let limit = format!("{} limit {}", c.stat, drivelab_engine::units::fmt_ns(c.limit_ns));
        entries.push(Entry { name: limit, color: color(i), swatch: Swatch::Dashed });
    }
    let grey = RGBColor(90, 90, 90);
    entries.push(Entry { name: "pass".into(), color: grey, swatch: Swatch::Dot });
    entries.push(Entry { name: "fail".into(), color: grey, swatch: Swatch::Hollow });
    entries.push(Entry { name: "confirming run".into(), color: BLACK, swatch: Swatch::Ring });
    let any = l.clauses.iter().any(|c| !c.points.is_empty());
    render(&l.title, Size::default(), |root| {
        let main = layout(root, &l.title, &entries, LegendAt::Right)?;
        let mut chart = cartesian(&main, None, &f)?;
        for (i, c) in l.clauses.iter().enumerate() {
            let col = color(i);
            if let Some(ly) = us(c.limit_ns) {
                chart.draw_series(DashedLineSeries::new([(x.lo, ly), (x.hi, ly)], 6, 5, col.stroke_width(2)))?;
            }
            for p in &c.points {
                let Some(at) = xk.fwd(p.load).zip(us(p.latency_ns)) else { continue };
                let style = if p.pass { col.filled() } else { col.stroke_width(2) };
                chart.draw_series([Circle::new(at, 4, style)])?;
                if p.confirm {
                    chart.draw_series([Circle::new(at, 8, BLACK.stroke_width(2))])?;
                }
            }
        }
        if !any {
            no_data(&mut chart, &x, &y)?;
        }
        Ok(())
    })
}

/// The limits an ACT slice chart's axis includes: every limit at most 4x above the highest
/// bar (or above a tenth of the lowest limit, when the bars are lower still), so a 0.03 % bar
/// is not drawn on a 0–6 % axis; the others are named "above the axis".
pub(crate) fn limits_on_axis(b: &SliceBars) -> Vec<(u32, f64)> {
    let top = b.slices.iter().flat_map(|(_, v)| v.iter().copied()).filter(|v| v.is_finite()).fold(0.0, f64::max);
    let lowest = b.limits.iter().map(|l| l.1).fold(f64::INFINITY, f64::min);
    let reach = top.max(if lowest.is_finite() { lowest / 10.0 } else { 0.0 }) * 4.0;
    b.limits.iter().copied().filter(|l| l.1 <= reach).collect()
}

/// A group per slice, a bar per threshold (% of reads over it) with its value, the axis scaled
/// to the bars ([`limits_on_axis`]), each limit on it dashed and labelled.
pub fn slice_bars(b: &SliceBars) -> String {
    let cats: Vec<String> = b.slices.iter().map(|(name, _)| name.clone()).collect();
    let x = Axis::fit(Kind::Category(cats), [], false, 0.0);
    let groups: Vec<Vec<Option<f64>>> =
        b.slices.iter().map(|(_, v)| v.iter().map(|v| Some(*v).filter(|v| v.is_finite())).collect()).collect();
    let shown = limits_on_axis(b);
    let mut entries: Vec<Entry> = b
        .thresholds_ms
        .iter()
        .enumerate()
        .map(|(k, ms)| Entry { name: format!("> {ms} ms"), color: color(k), swatch: Swatch::Box })
        .collect();
    let colour_of = |ms: u32| b.thresholds_ms.iter().position(|t| *t == ms).map_or(BLACK, color);
    for (ms, pct) in &b.limits {
        let above = if shown.contains(&(*ms, *pct)) { "" } else { " (above the axis)" };
        entries.push(Entry {
            name: format!("limit > {ms} ms: {pct}%{above}"),
            color: colour_of(*ms),
            swatch: Swatch::Dashed,
        });
    }
    render(&b.title, Size::default(), |root| {
        let main = layout(root, &b.title, &entries, LegendAt::Right)?;
        let extra: Vec<f64> = shown.iter().map(|l| l.1).collect();
        let p = bars::plan(&groups, &extra, frame::plot_dims(&main), false);
        let y = &p.y;
        let f = Frame {
            x_label: &b.x_label,
            y_label: "reads over the threshold (%)",
            x: &x,
            y,
            x_mesh: false,
            y_mesh: true,
        };
        let mut chart = cartesian(&main, None, &f)?;
        bars::draw_bars(&mut chart, &groups, &p)?;
        // Each limit a dashed line in its threshold's colour, named in the legend: a label on the
        // line overprinted the bars' values beneath it.
        for (ms, pct) in &shown {
            let style = colour_of(*ms).stroke_width(2);
            chart.draw_series(DashedLineSeries::new([(x.lo, *pct), (x.hi, *pct)], 6, 5, style))?;
        }
        if b.slices.is_empty() {
            no_data(&mut chart, &x, y)?;
        }
        Ok(())
    })
}
