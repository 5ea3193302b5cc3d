//! The charts of a plan or suite report as specs, in page order: one per table (drawn as the
//! suite's views say), each `--steady` point's convergence, latency percentiles and CDFs, and
//! for small runs each point's seconds with axes. The HTML page draws these where they belong
//! (with its sparklines, which are table cells, not charts); the PNG exporter draws the same
//! list, so `report --png` never reads the HTML.

use drivelab_lab::results::{Manifest, PointResult, Results, SteadyRecord};

use crate::charts::{LineChart, Series, Size, XScale};
use crate::html::{downsample, pick_points, MAX_FULL_SERIES, MAX_LATENCY_SERIES, MAX_SERIES_POINTS};
use crate::model::{ChartSpec, Hockey, Report, Section, TableBlock};
use crate::suite_tables;

/// What lat is in `points`: fio's (fio's results) or drivelab's.
fn lat_of(points: &[PointResult]) -> &'static str {
    points.first().map_or("from just before the submit call", |p| super::common::lat_words(&p.result))
}

/// Latency percentiles and CDFs of up to [`MAX_LATENCY_SERIES`] points, evenly spaced.
pub fn latency_specs(points: &[PointResult]) -> Vec<ChartSpec> {
    let chosen = pick_points(points, MAX_LATENCY_SERIES);
    let series = chosen
        .iter()
        .map(|p| {
            let l = &p.result.total.lat_ns;
            let v =
                drivelab_engine::hist::Pct::ALL.iter().filter_map(|&q| Some((q.value(), l.get(q)? as f64))).collect();
            (p.point.label.clone(), v)
        })
        .collect();
    // Results without a histogram (fio's plain JSON) have no CDF to draw.
    let cdf: Vec<_> = chosen
        .iter()
        .filter(|p| !p.result.total.lat_ns.histogram.buckets.is_empty())
        .map(|p| (p.point.label.clone(), p.result.total.lat_ns.histogram.clone()))
        .collect();
    let mut specs =
        vec![ChartSpec::Percentiles { title: format!("Latency percentiles (lat: {})", lat_of(points)), series }];
    if !cdf.is_empty() {
        specs.push(ChartSpec::Cdf { series: cdf });
    }
    specs.extend(exceedance_spec(points));
    specs
}

/// The exceedance (1 − CDF) of evenly spaced points, a line per target of each (points that
/// ran on several targets at once give a line per target), at most [`MAX_LATENCY_SERIES`]
/// lines; None without a saved histogram.
pub fn exceedance_spec(points: &[PointResult]) -> Option<ChartSpec> {
    let chosen = pick_points(points, exceedance_points(points));
    let mut series = Vec::new();
    for p in chosen {
        let targets = crate::point_targets::distinct(p);
        if targets.len() <= 1 {
            series.push((p.point.label.clone(), p.result.total.lat_ns.histogram.clone()));
        } else {
            series.extend(
                targets
                    .into_iter()
                    .map(|t| (format!("{} on {}", p.point.label, p.point.shown(&t.path)), t.total.lat_ns.histogram)),
            );
        }
    }
    series.retain(|(_, h)| h.buckets.iter().any(|b| b[1] > 0));
    (!series.is_empty()).then(|| ChartSpec::Exceedance {
        title: format!("Latency exceedance: I/Os slower than each latency (lat: {})", lat_of(points)),
        series,
    })
}

/// How many points the exceedance chart draws (picked by `html::pick_indices`): its lines are
/// capped, and a point of several targets draws one per target.
pub(crate) fn exceedance_points(points: &[PointResult]) -> usize {
    let per_point = points.iter().map(|p| crate::point_targets::paths(p).len()).max().unwrap_or(1).max(1);
    (MAX_LATENCY_SERIES / per_point).max(1)
}

/// Plan fields that are the load of a sweep (or how long a point ran), left out of what a
/// hockey stick's points have in common.
const LOAD_KEYS: [&str; 6] = ["qd", "jobs", "rate", "time", "runtime", "ramp"];

/// A point's load: its rate where it has one, else jobs x qd.
fn load_of(p: &PointResult) -> f64 {
    let s = &p.result.spec;
    s.rate.as_ref().map_or(s.qd as f64 * s.jobs.max(1) as f64, |r| r.per_s)
}

/// The hockey sticks of a plan or suite: points that differ only in their load (queue depth,
/// rate, jobs x qd) form a sweep; each sweep of 3 or more loads is a chart of IOPS against
/// p99 latency, a line per target through its points in sweep order.
pub fn hockey_specs(points: &[PointResult]) -> Vec<ChartSpec> {
    type Key = (String, Vec<(String, String)>);
    let mut sweeps: Vec<(Key, Vec<&PointResult>)> = Vec::new();
    for p in points {
        let mut fields: Vec<(String, String)> =
            p.point.fields.iter().filter(|(k, _)| !LOAD_KEYS.contains(&k.as_str())).cloned().collect();
        fields.sort();
        let key = (p.point.step.clone(), fields);
        match sweeps.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(p),
            None => sweeps.push((key, vec![p])),
        }
    }
    let mut out = Vec::new();
    for ((step, fields), mut pts) in sweeps {
        let mut loads: Vec<f64> = pts.iter().map(|p| load_of(p)).collect();
        loads.sort_by(f64::total_cmp);
        loads.dedup();
        if loads.len() < 3 {
            continue;
        }
        pts.sort_by(|a, b| load_of(a).total_cmp(&load_of(b)).then(a.point.index.cmp(&b.point.index)));
        let load = if pts.iter().any(|p| p.result.spec.rate.is_some()) {
            "rate"
        } else if pts.iter().any(|p| p.result.spec.jobs != pts[0].result.spec.jobs) {
            "jobs x qd"
        } else {
            "queue depth"
        };
        let mut series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
        let mut loads: Vec<Vec<f64>> = Vec::new();
        for p in &pts {
            for t in crate::point_targets::distinct(p) {
                let Some(p99) = t.total.lat_ns.get(drivelab_engine::hist::Pct::P99) else { continue };
                let at = (t.total.iops, p99 as f64);
                let name = p.point.shown(&t.path);
                match series.iter().position(|(n, _)| n == name) {
                    Some(i) => {
                        series[i].1.push(at);
                        loads[i].push(load_of(p));
                    }
                    None => {
                        series.push((name.to_string(), vec![at]));
                        loads.push(vec![load_of(p)]);
                    }
                }
            }
        }
        let what: Vec<String> = std::iter::once(step)
            .filter(|s| !s.is_empty())
            .chain(fields.iter().map(|(k, v)| format!("{k}={v}")))
            .collect();
        let title = match what.is_empty() {
            true => "p99 latency against IOPS".to_string(),
            false => format!("p99 latency against IOPS: {}", what.join(" ")),
        };
        out.push(ChartSpec::Hockey(Hockey { title, load: load.into(), series, loads }));
    }
    out
}

/// What the hockey sticks show, under their heading.
pub const HOCKEY_NOTE: &str = "Each sweep of load (queue depth, rate or jobs x qd) as IOPS against p99 latency, \
     a line per target through its points in sweep order: where the line turns upwards, more load buys \
     latency and no throughput.";

/// A point's IOPS and p99 per second, with axes; for a point of a minute or more, also its IOPS
/// of every second as dots ([`super::common::consistency`]).
pub fn series_specs(p: &PointResult) -> Vec<ChartSpec> {
    let s = downsample(&p.result.series, MAX_SERIES_POINTS);
    let chart = |what: &str, unit: &str, pts: Vec<(f64, f64)>| ChartSpec::Line {
        line: LineChart {
            title: format!("{} — {what}", p.point.label),
            x_label: "time since measurement started (s)".into(),
            y_label: unit.into(),
            x_scale: XScale::Linear,
            y_log: false,
            series: vec![Series::new(String::new(), pts)],
        },
        size: Size { w: 480, h: 260 },
    };
    let mut out = vec![
        chart("IOPS per second", "I/Os per second (IOPS)", s.iter().map(|x| (x.0, x.1)).collect()),
        chart("p99 latency per second", "p99 latency (µs)", s.iter().map(|x| (x.0, x.2 / 1000.0)).collect()),
    ];
    out.extend(super::common::consistency(
        &format!("{} — consistency", p.point.label),
        &p.result.series,
        Size { w: 900, h: 320 },
    ));
    out
}

/// IOPS by round, the steady window's average and the band its saved rule allows, and the
/// best-fit line across the window.
pub fn steady_spec(p: &PointResult, st: &SteadyRecord) -> ChartSpec {
    let rounds: Vec<(f64, f64)> = st.rounds_iops.iter().enumerate().map(|(i, v)| ((i + 1) as f64, *v)).collect();
    let mut series = vec![Series::new("IOPS per round", rounds)];
    if let Some(w) = &st.window {
        let (a, b) = ((w.first_round + 1) as f64, (w.first_round + st.rule.window) as f64);
        let flat =
            |name: &str, v: f64| Series { name: name.into(), points: vec![(a, v), (b, v)], reference_for: Some(0) };
        // The range rule as a band: max − min within max_range_pct of the average.
        let half = st.rule.max_range_pct / 2.0;
        series.push(flat("window average", w.avg));
        series.push(flat(&format!("average +{half}%"), w.avg * (1.0 + half / 100.0)));
        series.push(flat(&format!("average −{half}%"), w.avg * (1.0 - half / 100.0)));
        // The fit uses 0-based rounds: value = intercept + slope x round.
        let fit = |r: f64| w.intercept + w.slope_per_round * (r - 1.0);
        series.push(Series {
            name: "best-fit line".into(),
            points: vec![(a, fit(a)), (b, fit(b))],
            reference_for: Some(0),
        });
    }
    ChartSpec::Line {
        line: LineChart {
            title: format!("{} — steady-state convergence", p.point.label),
            x_label: "round (each one run of the point)".into(),
            y_label: "I/Os per second (IOPS)".into(),
            x_scale: XScale::Linear,
            y_log: false,
            series,
        },
        size: Size { w: 900, h: 320 },
    }
}

/// The sections of a plan or suite report: a table (and its chart) each, then steady state,
/// latency and small runs' series as charts.
fn sections(m: &Manifest, points: &[PointResult]) -> Vec<Section> {
    if points.is_empty() {
        return Vec::new();
    }
    let mut out: Vec<Section> = suite_tables::tables(m.kind, points)
        .into_iter()
        .map(|t| Section {
            title: t.heading(),
            note: None,
            charts: table_charts(m.kind, &t),
            tables: vec![TableBlock::Table(t)],
        })
        .collect();
    let steady: Vec<(&PointResult, &SteadyRecord)> =
        points.iter().filter_map(|p| p.steady.as_ref().map(|s| (p, s))).collect();
    if !steady.is_empty() && steady.len() <= MAX_FULL_SERIES {
        let mut s = Section::new("Steady state");
        s.charts.extend(steady.iter().map(|(p, st)| steady_spec(p, st)));
        out.push(s);
    }
    let hockey = hockey_specs(points);
    if !hockey.is_empty() {
        let mut s = Section::new("Latency against throughput");
        s.note = Some(HOCKEY_NOTE.into());
        s.charts = hockey;
        out.push(s);
    }
    let mut lat = Section::new("Latency");
    lat.charts = latency_specs(points);
    out.push(lat);
    if points.len() <= MAX_FULL_SERIES {
        let mut s = Section::new("Per-second time series");
        s.charts.extend(points.iter().filter(|p| !p.result.series.is_empty()).flat_map(series_specs));
        if !s.charts.is_empty() {
            out.push(s);
        }
    }
    out
}

/// A table's chart, linear; beside it the same on a log value axis where its values span more
/// than 20 times (a slow drive's bars would be slivers), never instead of it; and the panels a
/// review draws from the same numbers (heatmaps and JBOD's scaling lines keep one value axis):
/// bsqd's IOPS against queue depth, a line per block size; JBOD's bars per workload, one per
/// number of drives; the mixed curve's 70/30 column as a bar per drive (seed 003's headline).
pub(crate) fn table_charts(kind: drivelab_lab::results::Kind, t: &crate::tables::Table) -> Vec<ChartSpec> {
    use crate::suite_tables::ChartStyle;
    use drivelab_lab::suites::SuiteId;
    let panel =
        |table: crate::tables::Table, style: Option<ChartStyle>| ChartSpec::Table { kind, table, log: false, style };
    let mut out = vec![panel(t.clone(), None)];
    let style = kind.suite().map_or(ChartStyle::Auto, |id| crate::suite_tables::views(id).chart);
    let one_panel = matches!(style, ChartStyle::Heatmap | ChartStyle::Scaling);
    let values = t.rows.iter().flat_map(|(_, v)| v.iter().flatten().copied());
    if !one_panel && crate::charts::wants_log(values) {
        out.push(ChartSpec::Table { kind, table: t.clone(), log: true, style: None });
    }
    match kind.suite() {
        Some(SuiteId::Bsqd) if t.unit == "IOPS" => {
            // The columns' depths as numbers ("QD8" -> "8"): a line per block size over them.
            let cols = t.cols.iter().map(|c| c.trim_start_matches("QD").to_string()).collect();
            let title = format!("{}: a line per block size", t.title);
            out.push(panel(
                crate::tables::Table { title, cols, col_header: "qd".into(), ..t.clone() },
                Some(ChartStyle::Auto),
            ));
        }
        Some(SuiteId::Jbod) if t.row_header == "targets" && t.unit != "%" => {
            // One chart per workload: a bar per number of drives at once.
            for (ci, col) in t.cols.iter().enumerate() {
                let values: Vec<Option<f64>> = t.rows.iter().map(|(_, v)| v.get(ci).copied().flatten()).collect();
                let table = crate::tables::Table {
                    title: format!("{col}: {} by number of drives", t.unit),
                    row_header: t.col_header.clone(),
                    col_header: "targets".into(),
                    cols: t.rows.iter().map(|(k, _)| k.clone()).collect(),
                    rows: vec![(col.clone(), values)],
                    errored: moved(&t.errored, |c| (c.col == ci).then_some((0, c.row))),
                    unsteady: moved(&t.unsteady, |c| (c.col == ci).then_some((0, c.row))),
                    ..t.clone()
                };
                out.push(panel(table, Some(ChartStyle::Bars)));
            }
        }
        Some(SuiteId::Mixed) => {
            // Seed 003's headline: the 70/30 mix, a bar per drive.
            if let Some(ci) = t.cols.iter().position(|c| c.starts_with("70%")) {
                let table = crate::tables::Table {
                    title: format!("{}: 70/30 read/write, per drive", t.title.split(" — ").next().unwrap_or(&t.title)),
                    cols: vec![t.cols[ci].clone()],
                    rows: t.rows.iter().map(|(k, v)| (k.clone(), vec![v.get(ci).copied().flatten()])).collect(),
                    errored: moved(&t.errored, |c| (c.col == ci).then_some((c.row, 0))),
                    unsteady: moved(&t.unsteady, |c| (c.col == ci).then_some((c.row, 0))),
                    ..t.clone()
                };
                out.push(panel(table, Some(ChartStyle::Bars)));
            }
        }
        _ => {}
    }
    out
}

/// The marked cells of a table, placed where a panel of its numbers puts them (`to`: the new
/// (row, column), None for a cell the panel leaves out), so a panel marks what its table does.
fn moved(
    cells: &[crate::tables::ErroredCell],
    to: impl Fn(&crate::tables::ErroredCell) -> Option<(usize, usize)>,
) -> Vec<crate::tables::ErroredCell> {
    cells
        .iter()
        .filter_map(|c| to(c).map(|(row, col)| crate::tables::ErroredCell { row, col, error: c.error.clone() }))
        .collect()
}

/// Every chart of a plan or suite report, in page order (the sparklines aside).
pub fn chart_specs(m: &Manifest, points: &[PointResult]) -> Vec<ChartSpec> {
    sections(m, points).into_iter().flat_map(|s| s.charts).collect()
}

/// A plan or suite directory as a report model (the HTML page, with its sparklines, is
/// [`crate::html::report`], drawing the same chart specs).
pub fn report(r: &Results) -> Report {
    let m = &r.manifest;
    let mut warnings: Vec<String> = crate::html::warnings(&r.points).into_iter().map(|(w, _)| w).collect();
    if r.points.is_empty() {
        warnings.push(format!("{}: no finished points yet", r.dir.display()));
    }
    Report {
        title: format!("drivelab report: {}", m.name()),
        answer: Vec::new(),
        facts: super::common::facts(r, Vec::new()),
        warnings,
        notes: drives_note(m).into_iter().chain(super::common::notes(&r.points)).collect(),
        sections: sections(m, &r.points),
    }
}

/// How the drives of a run of several ran: at once in every point, or each alone (a suite's
/// `--together`/`--each`, a plan's `together`), so a reader knows whether one drive's load
/// could touch another's figures.
pub(crate) fn drives_note(m: &Manifest) -> Option<String> {
    let plan = m.plan()?;
    let n = plan.targets.len();
    if n < 2 {
        return None;
    }
    let suite = m.kind.suite();
    Some(match (plan.together, suite) {
        (true, Some(drivelab_lab::suites::SuiteId::Jbod)) => {
            format!("the drives ran at once, 1 to {n} of them, each with its own worker (JBOD scaling)")
        }
        (true, Some(_)) => format!(
            "the {n} drives ran at once in every point, each with its own queue (--together): they shared this host"
        ),
        (false, Some(_)) => format!("each of the {n} drives ran alone, one after another (--each)"),
        (true, None) if m.kind == drivelab_lab::results::Kind::Run => format!("the {n} targets ran at once"),
        (true, None) => format!("the {n} targets ran at once in every point (together = true)"),
        (false, None) => format!("each of the {n} targets ran alone, one after another (together = false)"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::point;

    /// `target` at queue depth `qd` moving `mb` MB/s (256 IOPS and 1000 ns of p99 per MB/s).
    fn at(qd: u32, target: &str, mb: f64) -> PointResult {
        let q = qd.to_string();
        let mut p = point(&format!("read qd={qd}"), "", &[("bs", "4k"), ("qd", &q)], &[(target, mb)]);
        p.result.spec.qd = qd;
        p
    }

    #[test]
    fn a_qd_sweep_is_a_hockey_stick_a_line_per_target_in_sweep_order() {
        let mbs = [(1, 10.0), (8, 25.0), (2, 20.0), (4, 30.0)];
        let mut points: Vec<PointResult> = Vec::new();
        for t in ["/dev/a", "/dev/b"] {
            points.extend(mbs.iter().map(|&(qd, mb)| at(qd, t, if t == "/dev/b" { mb * 2.0 } else { mb })));
        }
        // Two loads only: not a sweep.
        let mut other = at(1, "/dev/a", 5.0);
        other.point.fields[0].1 = "64k".into();
        let mut other2 = at(2, "/dev/a", 6.0);
        other2.point.fields[0].1 = "64k".into();
        points.extend([other, other2]);
        let specs = hockey_specs(&points);
        assert_eq!(specs.len(), 1, "one sweep of 3+ loads: {specs:?}");
        let ChartSpec::Hockey(h) = &specs[0] else { panic!("{specs:?}") };
        assert_eq!(h.load, "queue depth");
        assert!(h.title.contains("bs=4k"), "{}", h.title);
        let names: Vec<&str> = h.series.iter().map(|s| s.0.as_str()).collect();
        assert_eq!(names, ["/dev/a", "/dev/b"]);
        // qd 1, 2, 4, 8 in that order, whatever the IOPS: 10, 20, 30, then back to 25 MB/s.
        let iops: Vec<f64> = h.series[0].1.iter().map(|p| p.0).collect();
        assert_eq!(iops, [10.0 * 256.0, 20.0 * 256.0, 30.0 * 256.0, 25.0 * 256.0]);
        let p99: Vec<f64> = h.series[1].1.iter().map(|p| p.1).collect();
        assert_eq!(p99, [20_000.0, 40_000.0, 60_000.0, 50_000.0]);
    }

    #[test]
    fn exceedance_is_a_line_per_target_of_points_that_ran_on_several_at_most_eight() {
        let mut h = drivelab_engine::hist::Histogram::new();
        h.record_n(100_000, 9);
        h.record_n(1_000_000, 1);
        let points: Vec<PointResult> = (1..=6u32)
            .map(|qd| {
                let q = qd.to_string();
                let mut p = point(&format!("qd={qd}"), "", &[("qd", &q)], &[("/dev/a", 1.0), ("/dev/b", 2.0)]);
                for t in &mut p.result.per_target {
                    t.total.lat_ns = h.summary();
                }
                p
            })
            .collect();
        let Some(ChartSpec::Exceedance { series, .. }) = exceedance_spec(&points) else { panic!("a chart") };
        let names: Vec<&str> = series.iter().map(|s| s.0.as_str()).collect();
        // Two targets a point: 4 points evenly spaced, each twice.
        assert_eq!(
            names,
            [
                "qd=1 on /dev/a",
                "qd=1 on /dev/b",
                "qd=2 on /dev/a",
                "qd=2 on /dev/b",
                "qd=4 on /dev/a",
                "qd=4 on /dev/b",
                "qd=5 on /dev/a",
                "qd=5 on /dev/b"
            ]
        );
        // Without histograms (fio's plain JSON): no chart.
        let bare = [point("x", "", &[], &[("/dev/a", 1.0)])];
        assert!(exceedance_spec(&bare).is_none());
    }

    /// Iometer's 24 points (random x read x DQL, DQL innermost): the latency charts' 8 show
    /// every value of every swept field, not the 8 QD1 points an even spacing picks.
    #[test]
    fn the_latency_charts_points_cover_every_value_of_every_swept_field() {
        let mut points = Vec::new();
        for random in ["0", "5", "20", "100"] {
            for read in ["100", "0"] {
                for qd in ["1", "2", "3"] {
                    let label = format!("random={random} read={read} qd={qd}");
                    let fields = [("bs", "64k"), ("random", random), ("read", read), ("qd", qd)];
                    points.push(point(&label, "", &fields, &[("/dev/a", 1.0)]));
                }
            }
        }
        let chosen = pick_points(&points, MAX_LATENCY_SERIES);
        assert_eq!(chosen.len(), MAX_LATENCY_SERIES);
        for (key, values) in
            [("random", &["0", "5", "20", "100"][..]), ("read", &["100", "0"]), ("qd", &["1", "2", "3"])]
        {
            for v in values {
                let shown = chosen.iter().any(|p| crate::tables::field(p, key) == Some(*v));
                assert!(shown, "{key}={v} is on the latency charts");
            }
        }
        assert!(chosen.windows(2).all(|w| w[0].point.label < w[1].point.label || w[0].point.index <= w[1].point.index));
        let labels: Vec<&str> = chosen.iter().map(|p| p.point.label.as_str()).collect();
        assert_eq!(labels.iter().collect::<std::collections::HashSet<_>>().len(), labels.len(), "{labels:?}");
    }

    /// Values more than 20x apart get a log panel beside the linear chart, never instead of it.
    #[test]
    fn a_table_whose_values_span_20x_gets_a_log_panel_beside_the_linear_one() {
        let kind = drivelab_lab::results::Kind::Plan;
        let table = |a: f64, b: f64| crate::tables::Table {
            title: "t".into(),
            unit: "MB/s".into(),
            row_header: "target".into(),
            col_header: "step".into(),
            cols: vec!["x".into()],
            rows: vec![("a".into(), vec![Some(a)]), ("b".into(), vec![Some(b)])],
            note: None,
            errored: Vec::new(),
            unsteady: Vec::new(),
        };
        let logs = |t| {
            table_charts(kind, &t).iter().map(|c| matches!(c, ChartSpec::Table { log: true, .. })).collect::<Vec<_>>()
        };
        assert_eq!(logs(table(99.0, 236.0)), [false], "236 vs 99: one linear chart");
        assert_eq!(logs(table(144.0, 3583.0)), [false, true], "linear first, the log panel beside it");
        let svg = crate::charts::draw(&table_charts(kind, &table(144.0, 3583.0))[1]);
        assert!(svg.contains("log scale"), "the log panel says so");
    }

    /// The panels a review draws beside a suite's tables: bsqd's lines per block size, JBOD's
    /// bars per workload, the mixed curve's 70/30 bars per drive, each from the table's numbers.
    #[test]
    fn suites_get_the_charts_their_reviews_draw_from_the_same_numbers() {
        use crate::suite_tables::ChartStyle;
        use drivelab_lab::results::Kind;
        use drivelab_lab::suites::SuiteId;
        let table = |unit: &str, row_header: &str, cols: &[&str], rows: &[(&str, &[f64])]| crate::tables::Table {
            title: "t — x".into(),
            unit: unit.into(),
            row_header: row_header.into(),
            col_header: "c".into(),
            cols: cols.iter().map(|c| c.to_string()).collect(),
            rows: rows.iter().map(|(k, v)| (k.to_string(), v.iter().map(|x| Some(*x)).collect())).collect(),
            note: None,
            errored: Vec::new(),
            unsteady: Vec::new(),
        };
        let panels = |kind, t: &crate::tables::Table| -> Vec<(crate::tables::Table, Option<ChartStyle>)> {
            table_charts(kind, t)
                .into_iter()
                .map(|c| match c {
                    ChartSpec::Table { table, style, .. } => (table, style),
                    other => panic!("{other:?}"),
                })
                .collect()
        };
        let bsqd = table("IOPS", "bs", &["QD1", "QD2", "QD4"], &[("4k", &[1.0, 2.0, 3.0]), ("8k", &[1.0, 1.5, 2.0])]);
        let p = panels(Kind::Suite(SuiteId::Bsqd), &bsqd);
        assert_eq!(p.len(), 2);
        assert_eq!(
            (p[1].0.cols.clone(), p[1].1),
            (vec!["1".to_string(), "2".into(), "4".into()], Some(ChartStyle::Auto))
        );
        assert!(crate::charts::draw(&table_charts(Kind::Suite(SuiteId::Bsqd), &bsqd)[1]).contains("polyline"));

        let mut jbod = table("MB/s", "targets", &["read", "write"], &[("1", &[100.0, 90.0]), ("2", &[190.0, 170.0])]);
        jbod.errored = vec![crate::tables::ErroredCell { row: 1, col: 1, error: "e".into() }];
        let p = panels(Kind::Suite(SuiteId::Jbod), &jbod);
        assert_eq!(p.len(), 3, "the scaling lines, then a bar chart per workload");
        assert_eq!(p[2].0.rows, vec![("write".to_string(), vec![Some(90.0), Some(170.0)])]);
        assert_eq!(p[2].0.cols, ["1", "2"]);
        assert_eq!((p[2].0.errored[0].row, p[2].0.errored[0].col), (0, 1), "the errored cell is marked where it went");
        assert_eq!(p[2].1, Some(ChartStyle::Bars));

        let mixed =
            table("IOPS", "target", &["60% reads", "70% reads"], &[("SAS", &[5.0, 6.0]), ("SATA", &[3.0, 4.0])]);
        let p = panels(Kind::Suite(SuiteId::Mixed), &mixed);
        assert_eq!(p.len(), 2);
        assert_eq!(p[1].0.rows, vec![("SAS".to_string(), vec![Some(6.0)]), ("SATA".to_string(), vec![Some(4.0)])]);
        assert_eq!(p[1].0.title, "t: 70/30 read/write, per drive");
    }

    /// hdparm's "cached reads" read the page cache: the CPU is what they measure, never a
    /// warning that the CPU, not the target, was the limit; a range of one value is one value.
    #[test]
    fn cached_reads_are_not_warned_cpu_bound_and_one_figure_is_no_range() {
        let mut p = point("cached reads", "cached reads", &[], &[("/dev/a", 1.0)]);
        p.result.cpu.cpu_bound = true;
        p.result.cpu.busiest_job_pct = 99.7;
        p.result.spec.direct = false;
        p.result.spec.read_pct = 100;
        p.result.spec.span_bytes = Some(2 << 20);
        let cpu = |ps: &[PointResult]| crate::html::warnings(ps).into_iter().find(|(w, _)| w.starts_with("CPU-bound"));
        assert!(cpu(std::slice::from_ref(&p)).is_none(), "reading the page cache is the point");
        p.result.spec.span_bytes = None;
        let (w, _) = cpu(&[p.clone(), p]).expect("a device-sized buffered read that was CPU-bound is said");
        assert!(w.contains("used 100% of a core"), "{w}");
    }
}
