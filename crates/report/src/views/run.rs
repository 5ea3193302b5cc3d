//! A `drivelab run` directory's report: one point, so the answer is its headline figures, then
//! its reads/writes table, latency percentiles and its seconds (IOPS and p99) as charts.

use drivelab_engine::hist::Pct;
use drivelab_lab::results::Results;

use drivelab_engine::hist::LatSummary;

use super::common::{facts, headline_percentiles, lat_words, recorded_percentiles, result_warnings};
use crate::charts::{LineChart, Series, Size, XScale};
use crate::model::{ChartSpec, Report, Section, Unit};

/// A report saying the directory's setup does not fit its kind (a hand-edited run.json).
pub fn not_this_kind(r: &Results, kind: &str) -> Report {
    Report {
        title: format!("drivelab {kind}"),
        answer: Vec::new(),
        facts: facts(r, Vec::new()),
        warnings: vec![format!("run.json says kind {kind} but holds another kind's setup: nothing to show")],
        notes: Vec::new(),
        sections: Vec::new(),
    }
}

pub fn report(r: &Results) -> Report {
    let mut answer = Vec::new();
    let mut warnings = Vec::new();
    let mut sections = Vec::new();
    let Some(p) = r.points.first() else {
        return Report {
            title: "drivelab run".into(),
            answer,
            facts: facts(r, Vec::new()),
            warnings: vec!["no finished point: the run is going on, was interrupted or failed".into()],
            notes: Vec::new(),
            sections,
        };
    };
    let res = &p.result;
    let t = &res.total;
    answer.push(("workload".into(), p.point.label.clone()));
    answer.push(("IOPS".into(), Unit::Iops.fmt(t.iops)));
    answer.push(("MB/s".into(), Unit::MBps.fmt(t.bw_mb_per_s)));
    // lat's percentiles; where it has none (fio's default JSON gives clat's only, and a mixed
    // job's per direction only), clat's, or each direction's, named so.
    for q in [Pct::P50, Pct::P99, Pct::P99_9] {
        let found = headline_percentiles(res, q);
        if found.is_empty() {
            answer.push((format!("{} latency", q.name()), Unit::Ns.fmt(f64::NAN)));
        }
        for (dir, kind, ns) in found {
            let dir = dir.map_or(String::new(), |d| format!("{d} "));
            answer.push((format!("{dir}{} {}", q.name(), kind.word()), Unit::Ns.fmt(ns as f64)));
        }
    }
    if crate::durable::uses_fsync(res) {
        if let Some(ns) = crate::durable::until_durable_mean_ns(res, None) {
            answer.push(("until durable (write + fsync), mean per write".into(), Unit::Ns.fmt(ns)));
        }
        if let Some(ns) = crate::durable::fsync_ns(res, None, Pct::P99) {
            answer.push(("fsync call alone, p99".into(), Unit::Ns.fmt(ns)));
        }
    }
    if let Some(w) = p.power_w {
        answer.push(("average power".into(), format!("{w:.1} W")));
        if w > 0.0 {
            answer.push(("IOPS per watt".into(), Unit::IopsPerWatt.fmt(t.iops / w)));
        }
    }
    warnings.extend(result_warnings("the run", res));
    let mut s = Section::new("Result");
    // The summary: what the terminal shows (`drivelab run` prints this model's text), with
    // the full table the documents show.
    s.tables.push(crate::model::TableBlock::Summary(Box::new(super::summary::summary(
        res,
        &p.point.label,
        &p.point.names,
        p.power_w,
    ))));
    sections.push(s);
    let mut lat = Section::new("Latency");
    let none = drivelab_engine::result::DirStats::from_hist(&drivelab_engine::hist::Histogram::new(), 0, 0);
    let dirs = [("read", &res.read), ("write", &res.write), ("trim", res.trim.as_deref().unwrap_or(&none))];
    // Every percentile the result holds (fio's list may differ from drivelab's).
    let curve = |l: &LatSummary| -> Vec<(f64, f64)> {
        recorded_percentiles(l).into_iter().map(|(p, _, ns)| (p, ns as f64)).collect()
    };
    let mut series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for (name, d) in dirs.iter().filter(|(_, d)| d.ops > 0) {
        series.push((name.to_string(), curve(&d.lat_ns)));
        // lat without percentiles (fio's default JSON): clat's beside, named so.
        if let Some(c) = d.clat_ns.as_ref().filter(|_| d.lat_ns.get(Pct::P50).is_none()) {
            series.push((format!("{name} clat"), curve(c)));
        }
    }
    series.retain(|(_, pts)| !pts.is_empty());
    lat.charts.push(ChartSpec::Percentiles { title: format!("Latency percentiles (lat: {})", lat_words(res)), series });
    lat.charts.extend(exceedance(p, res));
    lat.tables.extend(super::common::fio_percentile_table(res).map(Into::into));
    sections.push(lat);
    let s = crate::html::downsample(&res.series, crate::html::MAX_SPARK_SAMPLES);
    // One second is a dot, not a series: the table says it all.
    if s.len() >= 2 {
        let mut sec = Section::new("Per second");
        let line = |title: &str, y: &str, pts: Vec<(f64, f64)>| ChartSpec::Line {
            line: LineChart {
                title: title.into(),
                x_label: "time since measurement started (s)".into(),
                y_label: y.into(),
                x_scale: XScale::Linear,
                y_log: false,
                series: vec![Series::new(String::new(), pts)],
            },
            size: Size { w: 900, h: 300 },
        };
        sec.charts.push(line("IOPS per second", "I/Os per second (IOPS)", s.iter().map(|x| (x.0, x.1)).collect()));
        sec.charts.extend(super::common::consistency("Consistency", &res.series, Size { w: 900, h: 360 }));
        sec.charts.push(line(
            "p99 latency per second",
            "p99 latency (µs)",
            s.iter().map(|x| (x.0, x.2 / 1e3)).collect(),
        ));
        sections.push(sec);
    }
    Report {
        // The tool that measured it: drivelab, or fio for fio's results.
        title: format!("{} run: {}", r.manifest.tool.name, p.point.label),
        answer,
        facts: facts(r, Vec::new()),
        warnings,
        notes: super::common::notes(&r.points),
        sections,
    }
}

/// The share of I/Os slower than each latency: a line per target where the run had several,
/// else per direction (read, write); None without a saved histogram (fio's plain JSON).
fn exceedance(p: &drivelab_lab::results::PointResult, res: &drivelab_engine::result::RunResult) -> Option<ChartSpec> {
    let targets = crate::point_targets::distinct(p);
    let mut series: Vec<(String, drivelab_engine::hist::HistogramData)> = if targets.len() > 1 {
        targets.into_iter().map(|t| (p.point.shown(&t.path).to_string(), t.total.lat_ns.histogram)).collect()
    } else {
        [("read", &res.read), ("write", &res.write)]
            .into_iter()
            .filter(|(_, d)| d.ops > 0)
            .map(|(n, d)| (n.to_string(), d.lat_ns.histogram.clone()))
            .collect()
    };
    series.retain(|(_, h)| h.buckets.iter().any(|b| b[1] > 0));
    (!series.is_empty()).then(|| ChartSpec::Exceedance {
        title: format!("Latency exceedance: I/Os slower than each latency (lat: {})", lat_words(res)),
        series,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runs_exceedance_is_per_direction_on_one_target_and_per_target_on_several() {
        let mut h = drivelab_engine::hist::Histogram::new();
        h.record_n(100_000, 99);
        h.record_n(5_000_000, 1);
        let mut p = crate::test_support::point("read", "", &[], &[("/dev/a", 10.0)]);
        p.result.read.lat_ns = h.summary();
        p.result.total.lat_ns = h.summary();
        let Some(ChartSpec::Exceedance { series, .. }) = exceedance(&p, &p.result) else {
            panic!("an exceedance chart")
        };
        let names: Vec<&str> = series.iter().map(|s| s.0.as_str()).collect();
        assert_eq!(names, ["read"], "writes moved nothing; read has its histogram");
        let mut two = crate::test_support::point("read", "", &[], &[("/dev/a", 10.0), ("/dev/b", 20.0)]);
        for t in &mut two.result.per_target {
            t.total.lat_ns = h.summary();
        }
        let Some(ChartSpec::Exceedance { series, .. }) = exceedance(&two, &two.result) else { panic!("a chart") };
        let names: Vec<&str> = series.iter().map(|s| s.0.as_str()).collect();
        assert_eq!(names, ["/dev/a", "/dev/b"]);
        // No histogram saved (fio's plain JSON): no chart rather than an empty one.
        let bare = crate::test_support::point("read", "", &[], &[("/dev/a", 10.0)]);
        assert!(exceedance(&bare, &bare.result).is_none());
    }
}
