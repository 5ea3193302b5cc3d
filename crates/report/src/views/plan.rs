//! The charts of a plan or suite report as specs, in page order: one per table (drawn as the
//! suite's views say), each `--steady` point's convergence, latency percentiles and CDFs, and
//! for small runs each point's seconds with axes. The HTML page draws these where they belong
//! (with its sparklines, which are table cells, not charts); the PNG exporter draws the same
//! list, so `report --png` never reads the HTML.

use drivelab_lab::results::{Manifest, PointResult, Results, SteadyRecord};

use crate::charts::{LineChart, Series, Size, XScale};
use crate::html::{downsample, pick, MAX_FULL_SERIES, MAX_LATENCY_SERIES, MAX_SERIES_POINTS};
use crate::model::{ChartSpec, Report, Section, TableBlock};
use crate::suite_tables;

/// What lat is in `points`: fio's (fio's results) or drivelab's.
fn lat_of(points: &[PointResult]) -> &'static str {
    points.first().map_or("from just before the submit call", |p| super::common::lat_words(&p.result))
}

/// Latency percentiles and CDFs of up to [`MAX_LATENCY_SERIES`] points, evenly spaced.
pub fn latency_specs(points: &[PointResult]) -> Vec<ChartSpec> {
    let chosen = pick(points, MAX_LATENCY_SERIES);
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
    specs
}

/// A point's IOPS and p99 per second, with axes.
pub fn series_specs(p: &PointResult) -> [ChartSpec; 2] {
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
    [
        chart("IOPS per second", "I/Os per second (IOPS)", s.iter().map(|x| (x.0, x.1)).collect()),
        chart("p99 latency per second", "p99 latency (µs)", s.iter().map(|x| (x.0, x.2 / 1000.0)).collect()),
    ]
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
            charts: vec![ChartSpec::Table { kind: m.kind, table: t.clone() }],
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
        notes: super::common::notes(&r.points),
        sections: sections(m, &r.points),
    }
}
