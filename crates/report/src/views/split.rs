//! `--latency-split` in a report: for every point (and search probe) whose result has a
//! `latency_split`, where its latency went — a table of its p50, p99 and p99.9 (and mean) cut
//! into the five stages (ns and share of the whole in %), under a title that counts its I/Os
//! (cut, unmatched, clamped, lost kernel events, io-wq), then the stacked-bar chart of those
//! percentiles and the per-second chart of each stage's mean.
//!
//! Why the counts sit in the table's title: every format prints a title (the terminal, Markdown,
//! CSV's `table` column, the page's heading), so an I/O left out of the split (unmatched) or a
//! kernel event lost is never hidden behind a format that drops notes; the report's warnings
//! repeat them where they are not 0.

use drivelab_engine::result::{LatencySplitStats, RunResult, SeriesPoint};
use drivelab_engine::split::{Stages, STAGES};
use drivelab_lab::results::{PointResult, Results};

use crate::html::MAX_FULL_SERIES;
use crate::model::{Cell, ChartSpec, Column, Grid, Section, SplitBars, SplitSeconds, Unit};

/// The section's title.
pub const TITLE: &str = "Where the latency goes";

/// What the section's tables and charts show, under its heading.
pub const NOTE: &str = "Each I/O's lat cut into the time it spent in drivelab before the kernel took it (tool), \
     in the kernel before its request reached the driver (kernel: block-layer queue, scheduler, throttling, \
     io-wq), in the device (device), from the device's completion to the completion posted to the ring \
     (completion), and until drivelab reaped it (reap). A percentile's stages are the mean over the I/Os at that \
     lat (its histogram bucket), so they add up to it within the bucket's width; the shares are of that sum.";

/// A saved run that has a split: its name in the report and its result.
pub(crate) type Measured<'a> = (String, &'a RunResult);

/// Every point's and probe's result that has a split (probes of several streams, act's, name
/// each stream).
pub(crate) fn measured(r: &Results) -> Vec<Measured<'_>> {
    let mut out: Vec<Measured> = of_points(&r.points);
    for p in &r.probes {
        let results = p.results();
        let several = results.len() > 1;
        for (k, res) in results.into_iter().enumerate().filter(|(_, res)| res.latency_split.is_some()) {
            let stream = if several { format!(", stream {}", k + 1) } else { String::new() };
            out.push((format!("probe {} ({}){stream}", p.index, drivelab_engine::units::fmt_count(p.value)), res));
        }
    }
    out
}

fn of_points(points: &[PointResult]) -> Vec<Measured<'_>> {
    points.iter().filter(|p| p.result.latency_split.is_some()).map(|p| (p.point.label.clone(), &p.result)).collect()
}

/// The section of a results directory of any kind; None when nothing in it has a split.
pub fn section(r: &Results) -> Option<Section> {
    section_of(&measured(r))
}

/// The section of a plan's points (the plan page's).
pub fn section_for_points(points: &[PointResult]) -> Option<Section> {
    section_of(&of_points(points))
}

/// A count with thousands separators: "1,204,311".
fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The counts of a split in a line: what was cut and what was not, and what the split's BPF
/// programs cost per I/O where the kernel timed them.
pub fn counts_line(s: &LatencySplitStats) -> String {
    let cost = if s.bpf_ns > 0 {
        format!(", its BPF programs {} per I/O", drivelab_engine::units::fmt_ns(s.bpf_ns_per_io))
    } else {
        String::new()
    };
    format!(
        "{} I/Os, {} cut ({} without a device request, {} through io-wq), {} unmatched, {} clamped, {} kernel events lost{cost}",
        count(s.ios),
        count(s.cut),
        count(s.without_device),
        count(s.io_wq),
        count(s.unmatched),
        count(s.clamped),
        count(s.lost_events)
    )
}

/// What a split leaves out, for the report's warnings: unmatched I/Os, lost kernel events, or
/// nothing cut at all. None when the split is whole.
pub fn problem(name: &str, s: &LatencySplitStats) -> Option<String> {
    let mut what = Vec::new();
    if s.cut == 0 && s.ios > 0 {
        what.push(format!("none of its {} I/Os could be cut (no kernel stamps were matched)", count(s.ios)));
    } else if s.unmatched > 0 {
        what.push(format!(
            "{} of {} I/Os unmatched (their kernel stamps were missing): they are not in the split",
            count(s.unmatched),
            count(s.ios)
        ));
    }
    if s.lost_events > 0 {
        what.push(format!("{} kernel events lost", count(s.lost_events)));
    }
    (!what.is_empty()).then(|| format!("latency split of {name}: {}", what.join("; ")))
}

/// The table of one split: a row per percentile (p50, p99, p99.9) and the mean, columns the
/// I/Os it is the mean of, lat, then each stage in ns and as a share in %.
pub fn grid(name: &str, s: &LatencySplitStats) -> Grid {
    let mut columns =
        vec![Column::new("at", Unit::Count), Column::new("I/Os", Unit::Count), Column::new("lat", Unit::Ns)];
    for stage in STAGES {
        columns.push(Column::new(stage, Unit::Ns));
        columns.push(Column::new(stage, Unit::Pct));
    }
    let row = |at: &str, ios: u64, lat: f64, ns: [f64; 5], pct: [f64; 5]| {
        let mut r = vec![Cell::text(at), Cell::Num(ios as f64), Cell::Num(lat)];
        for k in 0..5 {
            r.push(Cell::Num(ns[k]));
            r.push(Cell::Num(pct[k]));
        }
        r
    };
    let mut rows: Vec<Vec<Cell>> =
        s.at.iter()
            .map(|a| row(&a.percentile, a.bucket_ios, a.lat_ns as f64, stage_f64(&a.stage_ns), a.share_pct.to_array()))
            .collect();
    if s.stages.len() == 5 && s.cut > 0 {
        let ns: [f64; 5] = std::array::from_fn(|k| s.stages[k].mean_ns);
        let pct: [f64; 5] = std::array::from_fn(|k| s.stages[k].share_pct);
        rows.push(row("mean", s.cut, ns.iter().sum(), ns, pct));
    }
    Grid { title: format!("{TITLE}, {name}: {}", counts_line(s)), columns, rows }
}

fn stage_f64(s: &Stages<u64>) -> [f64; 5] {
    s.to_array().map(|v| v as f64)
}

/// The stacked bars of one split: a bar per percentile of `at`, in µs; and where the tallest
/// bar is more than 20 times the shortest (p50's split a sliver beside p99.9's), the same bars
/// each as 100% of its own lat, so every percentile's split can be read.
pub fn bars(name: &str, s: &LatencySplitStats) -> Vec<ChartSpec> {
    if s.at.is_empty() {
        return Vec::new();
    }
    let mut out = vec![ChartSpec::SplitBars(SplitBars {
        title: format!("Latency split, {name}: each stage at p50, p99, p99.9"),
        bars: s.at.iter().map(|a| (a.percentile.clone(), stage_f64(&a.stage_ns))).collect(),
        shares: false,
    })];
    let tops: Vec<f64> = s.at.iter().map(|a| stage_f64(&a.stage_ns).iter().sum::<f64>()).collect();
    let (lo, hi) = tops.iter().fold((f64::MAX, 0f64), |(l, h), &t| (l.min(t), h.max(t)));
    if lo > 0.0 && hi > lo * crate::charts::LOG_SPAN {
        out.push(ChartSpec::SplitBars(SplitBars {
            title: format!("Latency split, {name}: each stage's share of lat at p50, p99, p99.9"),
            bars: s.at.iter().map(|a| (a.percentile.clone(), a.share_pct.to_array())).collect(),
            shares: true,
        }));
    }
    out
}

/// Each stage's mean per second of one split, at the times of the run's own seconds (`timed`,
/// its `series`; a split second past them is the few I/Os reaped after the measured time, left
/// out); None under two seconds with cut I/Os (one second is the table's mean). A last second
/// under half a second long (the run's tail, stamped at the same end time) joins the second
/// before it, its means weighted by I/Os, as the IOPS-per-second chart joins it: alone, a
/// handful of I/Os' means drew a spike at the end and stretched the axis far above the data.
pub fn seconds(name: &str, s: &LatencySplitStats, timed: &[SeriesPoint]) -> Option<ChartSpec> {
    let at = |k: usize| match timed.get(k) {
        Some(p) => Some((p.t_s, p.dur_ns)),
        None => timed.is_empty().then_some(((k + 1) as f64, 1_000_000_000)),
    };
    let mut seconds: Vec<(f64, u64, [f64; 5])> = Vec::new();
    for (k, sec) in s.series.iter().enumerate().filter(|(_, sec)| sec.ios > 0) {
        let Some((t, dur_ns)) = at(k) else { continue };
        let means = stage_f64(&sec.mean_ns);
        match seconds.last_mut() {
            Some(before) if dur_ns < 500_000_000 && k + 1 == timed.len() => {
                let (a, b) = (before.1 as f64, sec.ios as f64);
                before.2 = std::array::from_fn(|i| (before.2[i] * a + means[i] * b) / (a + b));
                before.0 = t;
                before.1 += sec.ios;
            }
            _ => seconds.push((t, sec.ios, means)),
        }
    }
    (seconds.len() >= 2).then(|| {
        ChartSpec::SplitSeconds(SplitSeconds {
            title: format!("Latency split per second, {name}: each stage's mean"),
            seconds: seconds.into_iter().map(|(t, _, m)| (t, m)).collect(),
        })
    })
}

/// The section of `runs`: every split's table; charts for the first [`MAX_FULL_SERIES`] (a
/// plan of hundreds of points would be hundreds of charts: the tables have them all).
fn section_of(runs: &[Measured]) -> Option<Section> {
    if runs.is_empty() {
        return None;
    }
    let mut s = Section::new(TITLE);
    let mut note = NOTE.to_string();
    if runs.len() > MAX_FULL_SERIES {
        note += &format!(" Charts of the first {MAX_FULL_SERIES} of {} splits; the tables have them all.", runs.len());
    }
    s.note = Some(note);
    for (k, (name, res)) in runs.iter().enumerate() {
        let Some(split) = &res.latency_split else { continue };
        if k < MAX_FULL_SERIES {
            s.charts.extend(bars(name, split));
            s.charts.extend(seconds(name, split, &res.series));
        }
        s.tables.push(grid(name, split).into());
    }
    Some(s)
}

/// The warnings of every split of `r` that leaves something out ([`problem`]).
pub fn warnings(r: &Results) -> Vec<String> {
    measured(r).iter().filter_map(|(name, res)| problem(name, res.latency_split.as_ref()?)).collect()
}

#[cfg(test)]
mod tests;
