//! Pieces every view shares: the run's facts and one engine result as a table.

use drivelab_engine::hist::{LatSummary, Pct};
use drivelab_engine::result::{DirStats, RunResult};
use drivelab_lab::results::{fio_json, PointResult, Results};

use crate::charts::{LineChart, Series, Size, XScale};
use crate::durable;
use crate::model::{Cell, ChartSpec, Column, Grid, Unit};

/// The run's facts (run, start, tool, command line, host, targets) and the extra ones a view
/// adds (what was asked).
pub fn facts(r: &Results, asked: Vec<(String, String)>) -> Vec<(String, String)> {
    let mut f = crate::html::fact_rows(&r.manifest);
    f.extend(asked);
    if let Some(def) = latency_definition(r) {
        f.push(("latency".into(), def));
    }
    f.push(("results".into(), r.dir.display().to_string()));
    f
}

/// The notices of `points` (how their results were made: fio's say where their figures came
/// from; a read of a device drivelab never saw written, from the point's typed `prep`), each
/// once, in order; one that not every point has names the points that have it.
pub fn notes(points: &[PointResult]) -> Vec<String> {
    let mut seen: Vec<(String, Vec<&str>)> = Vec::new();
    for p in points {
        let prep = p.prep.iter().filter_map(drivelab_lab::written::DevicePrep::notice);
        for n in p.result.notices.iter().cloned().chain(prep) {
            match seen.iter_mut().find(|(s, _)| *s == n) {
                Some((_, on)) => on.push(&p.point.label),
                None => seen.push((n, vec![&p.point.label])),
            }
        }
    }
    seen.into_iter()
        .map(|(n, on)| if on.len() == points.len() { n } else { format!("{n} ({})", on.join(", ")) })
        .collect()
}

/// Which latency every latency figure of these results is: result schema 2 starts it just before
/// the submit call (fio's lat), schema 1 at the call's return (fio's clat). Both may be present
/// in results resumed across versions. fio's results are fio's lat.
pub fn latency_definition(r: &Results) -> Option<String> {
    if !r.points.is_empty() && r.points.iter().all(|p| fio_json::is_fio(&p.result.tool)) {
        return Some("fio's lat: from fio's setup of each I/O to its completion (slat + clat)".into());
    }
    let schemas: Vec<u32> = r
        .points
        .iter()
        .map(|p| p.result.schema)
        .chain(r.probes.iter().flat_map(|p| p.results().into_iter().map(|x| x.schema)))
        .collect();
    let new = schemas.iter().any(|&s| s >= 2);
    let old = schemas.iter().any(|&s| s < 2);
    match (new, old) {
        (true, false) => Some("from just before the submit call (fio's lat)".into()),
        (false, true) => Some("from the submit call's return (fio's clat; results of schema 1)".into()),
        (true, true) => Some(
            "from just before the submit call (fio's lat); points of result schema 1 from its return (clat)".into(),
        ),
        (false, false) => None,
    }
}

/// Where a result's lat starts: drivelab's just before the submit call; fio's at fio's setup of
/// each I/O (fio's results).
pub fn lat_words(r: &RunResult) -> &'static str {
    if fio_json::is_fio(&r.tool) {
        "fio's lat, from fio's setup of each I/O"
    } else {
        "from just before the submit call"
    }
}

/// Every percentile `l` holds, lowest first: (percent, its name, ns). fio keeps whatever list it
/// was given (`--percentile_list`, p97.5 say), so these are more (or other) than [`Pct::ALL`].
pub fn recorded_percentiles(l: &LatSummary) -> Vec<(f64, &str, u64)> {
    let mut v: Vec<(f64, &str, u64)> = l
        .percentiles
        .iter()
        .filter_map(|(name, &ns)| Some((name.strip_prefix('p')?.parse::<f64>().ok()?, name, ns)))
        .collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    v
}

/// Which latency statistic a headline percentile is, where `lat` has none (fio's default JSON
/// gives clat's percentiles only, and a mixed job's per direction only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LatKind {
    /// drivelab's lat (fio's lat): the primary figure.
    Lat,
    /// fio's clat (from fio's submission of the I/O) or drivelab's (from the submit call's return).
    Clat,
}

impl LatKind {
    pub fn word(self) -> &'static str {
        match self {
            LatKind::Lat => "latency",
            LatKind::Clat => "clat",
        }
    }
}

/// The percentiles a result's headline can give for `q`, each with what it is: the total's lat;
/// else the total's clat; else each direction's (lat, else clat), named by direction. Empty when
/// nothing of the result has `q`.
pub fn headline_percentiles(r: &RunResult, q: Pct) -> Vec<(Option<&'static str>, LatKind, u64)> {
    let of = |d: &DirStats| -> Option<(LatKind, u64)> {
        d.lat_ns
            .get(q)
            .map(|ns| (LatKind::Lat, ns))
            .or_else(|| d.clat_ns.as_ref().and_then(|c| c.get(q)).map(|ns| (LatKind::Clat, ns)))
    };
    if let Some((kind, ns)) = of(&r.total) {
        return vec![(None, kind, ns)];
    }
    let dirs = [("read", Some(&r.read)), ("write", Some(&r.write)), ("trim", r.trim.as_deref())];
    dirs.into_iter()
        .filter_map(|(name, d)| d.filter(|d| d.ops > 0).and_then(of).map(|(k, ns)| (Some(name), k, ns)))
        .collect()
}

/// Latency percentiles a results table shows.
pub const PERCENTILES: [Pct; 5] = [Pct::P50, Pct::P99, Pct::P99_9, Pct::P99_99, Pct::P99_9999];

/// mean, the percentiles and max, in ns.
pub fn latency_cells(l: &LatSummary) -> Vec<Cell> {
    let mut v = vec![Cell::Num(l.mean)];
    v.extend(PERCENTILES.iter().map(|p| Cell::num(l.get(*p).map(|ns| ns as f64))));
    v.push(Cell::Num(l.max as f64));
    v
}

/// Reads, writes and total of a result: IOPS, MB/s and latency (reads or writes left out
/// when the workload had none). Each row says which latency it is: `lat` (from just before the
/// submit call, fio's lat: the primary figure), `clat` beside it for io_uring (from the call's
/// return, fio's clat), and at a fixed rate `response` (from the intended issue time: what a
/// client waits, and what qos judges). Results of schema 1 held only clat, and say so. With
/// fsync, two more rows: the fsync alone and the writes' mean time until durable.
pub fn result_table(title: &str, r: &RunResult) -> Grid {
    let mut columns = vec![
        Column::new("direction, latency", Unit::Count),
        Column::new("IOPS", Unit::Iops),
        Column::new("MB/s", Unit::MBps),
        Column::new("mean", Unit::Ns),
    ];
    columns.extend(PERCENTILES.iter().map(|p| Column::new(p.name(), Unit::Ns)));
    columns.push(Column::new("max", Unit::Ns));
    let mut rows = Vec::new();
    let ol = r.open_loop.as_ref();
    let resp =
        [ol.map(|o| &o.read_resp_lat_ns), ol.map(|o| &o.write_resp_lat_ns), None, ol.map(|o| &o.total_resp_lat_ns)];
    let primary = if r.schema >= 2 { "lat" } else { "clat (schema 1)" };
    let none = DirStats::from_hist(&drivelab_engine::hist::Histogram::new(), 0, 0);
    let trim = r.trim.as_deref().unwrap_or(&none);
    let dirs = [("read", &r.read), ("write", &r.write), ("trim", trim), ("total", &r.total)];
    for ((name, d), resp) in dirs.into_iter().zip(resp) {
        if d.ops == 0 && name != "total" {
            continue;
        }
        let mut lats = vec![(format!("{name} {primary}"), &d.lat_ns)];
        lats.extend(d.clat_ns.as_ref().map(|c| (format!("{name} clat"), c)));
        lats.extend(resp.map(|rl| (format!("{name} response"), rl)));
        for (label, l) in lats {
            let mut row = vec![Cell::Text(label), Cell::Num(d.iops), Cell::Num(d.bw_mb_per_s)];
            row.extend(latency_cells(l));
            rows.push(row);
        }
    }
    rows.extend(durable_rows(r));
    let lat = lat_words(r);
    let clat = if fio_json::is_fio(&r.tool) { "from its submission" } else { "from its return" };
    let mut title = format!(
        "{title} (lat: {lat}; clat: {clat}{})",
        if ol.is_some() { "; response: from the intended issue time" } else { "" }
    );
    if let Some(e) = crate::tables::point_error(r) {
        title += &format!(" {}: {e}", crate::tables::ERRORED_MARK);
    }
    Grid { title, columns, rows }
}

/// fio's results: every percentile fio recorded, per direction and statistic (lat where fio
/// computed its percentiles, clat, slat), as columns by percent; None when it recorded none. fio
/// keeps its own list (17 by default, `--percentile_list`), which the result table's five do not
/// cover.
pub fn fio_percentile_table(r: &RunResult) -> Option<Grid> {
    if !fio_json::is_fio(&r.tool) {
        return None;
    }
    let none = DirStats::from_hist(&drivelab_engine::hist::Histogram::new(), 0, 0);
    let trim = r.trim.as_deref().unwrap_or(&none);
    let mut stats: Vec<(String, &LatSummary)> = Vec::new();
    for (name, d) in [("read", &r.read), ("write", &r.write), ("trim", trim)] {
        if d.ops > 0 {
            stats.push((format!("{name} lat"), &d.lat_ns));
            stats.extend(d.clat_ns.as_ref().map(|c| (format!("{name} clat"), c)));
        }
    }
    stats.retain(|(_, l)| !l.percentiles.is_empty());
    let mut percents: Vec<(f64, String)> = Vec::new();
    for (p, name, _) in stats.iter().flat_map(|(_, l)| recorded_percentiles(l)) {
        if !percents.iter().any(|(q, _)| *q == p) {
            percents.push((p, name.to_string()));
        }
    }
    if percents.is_empty() {
        return None;
    }
    percents.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut columns = vec![Column::new("direction, latency", Unit::Count)];
    columns.extend(percents.iter().map(|(_, n)| Column::new(n, Unit::Ns)));
    let rows = stats
        .iter()
        .map(|(label, l)| {
            let mut row = vec![Cell::text(label.clone())];
            row.extend(percents.iter().map(|(_, n)| Cell::num(l.percentiles.get(n).map(|&ns| ns as f64))));
            row
        })
        .collect();
    Some(Grid {
        title: "Every percentile fio recorded (lat: fio's, from its setup of each I/O; clat: from its submission)"
            .into(),
        columns,
        rows,
    })
}

/// With fsync: the fsync calls alone (fsyncs per second, their latency), and each write until
/// durable (writes per second, the mean of write + its share of fsync: the only figure a result
/// can give of that sum, see [`crate::durable`]).
fn durable_rows(r: &RunResult) -> Vec<Vec<Cell>> {
    let Some(s) = r.sync.as_ref().filter(|s| s.ops > 0 && durable::uses_fsync(r)) else { return Vec::new() };
    let mut fsync = vec![Cell::text("fsync (call alone)"), Cell::Num(s.iops), Cell::Empty];
    fsync.extend(latency_cells(&s.lat_ns));
    let mut until = vec![
        Cell::text("write until durable (write + fsync)"),
        Cell::Num(r.write.iops),
        Cell::Num(r.write.bw_mb_per_s),
        Cell::num(durable::until_durable_mean_ns(r, None)),
    ];
    until.extend((0..=PERCENTILES.len()).map(|_| Cell::Empty));
    vec![fsync, until]
}

/// Whether `r` read data the page cache holds (buffered reads of at most 64 MiB: hdparm's
/// "cached reads"): the CPU and memory are what such a run measures, so its being CPU-bound is
/// its nature, not a warning about the target.
pub(crate) fn reads_the_page_cache(r: &RunResult) -> bool {
    !r.spec.direct && r.spec.read_pct == 100 && r.spec.span_bytes.is_some_and(|s| s <= 64 << 20)
}

/// Warnings about one engine result: CPU-bound, buffered, interrupted, I/O errors.
pub fn result_warnings(what: &str, r: &RunResult) -> Vec<String> {
    let mut w = Vec::new();
    if r.cpu.cpu_bound && !reads_the_page_cache(r) {
        // Runnable is on a CPU or waiting for one: a thread at 29% of a core that waited the
        // rest was held back by other work, not busy itself; say which.
        let waited = (r.cpu.runnable_less_spin_pct - r.cpu.busiest_job_pct).max(0.0);
        let how = if waited > r.cpu.busiest_job_pct {
            format!(
                "drivelab's busiest job thread was on a CPU {:.0}% of the run and waited for one {waited:.0}%: \
                 other work held it back",
                r.cpu.busiest_job_pct
            )
        } else {
            format!("drivelab's busiest job thread used {:.0}% of a core", r.cpu.busiest_job_pct)
        };
        w.push(format!("{what}: CPU-bound ({how}): the CPU, not the target, was the limit"));
    }
    if let Some(starved) = r.cpu.starved_warning() {
        w.push(format!("{what}: {starved}"));
    }
    if !r.spec.direct {
        w.push(format!("{what}: buffered I/O (page cache), not the device alone"));
    }
    if r.interrupted {
        w.push(format!("{what}: interrupted (Ctrl-C) before its end"));
    }
    for e in &r.errors {
        w.push(format!("{what}: {} {} error(s) on {}: {}", e.count, e.op, e.target, e.error));
    }
    w
}

/// From how many seconds a run's IOPS of every second is also drawn as a scatter: a minute, the
/// shortest run a consistency chart is drawn of (reviews run 30 minutes to hours).
pub const CONSISTENCY_MIN_SECONDS: usize = 60;

/// A long run's IOPS of every second as dots, with its mean as a dashed line: the consistency
/// chart a review draws (the per-second line of a long run is averaged into samples, which
/// hides the seconds a drive stalls in; every second is a dot here). The run's tail (under
/// half a second, stamped at the end) joins its last second, as on the line. None for a run
/// under [`CONSISTENCY_MIN_SECONDS`].
pub fn consistency(title: &str, series: &[drivelab_engine::result::SeriesPoint], size: Size) -> Option<ChartSpec> {
    let every = crate::html::downsample(series, usize::MAX);
    if every.len() < CONSISTENCY_MIN_SECONDS {
        return None;
    }
    let points: Vec<(f64, f64)> = every.iter().map(|x| (x.0, x.1)).collect();
    let mean = {
        let (ops, secs) =
            series.iter().fold((0.0, 0.0), |(o, t), x| (o + x.iops * x.dur_ns as f64, t + x.dur_ns as f64));
        if secs > 0.0 {
            ops / secs
        } else {
            points.iter().map(|p| p.1).sum::<f64>() / points.len() as f64
        }
    };
    let (first, last) = (points[0].0, points[points.len() - 1].0);
    Some(ChartSpec::Scatter {
        line: LineChart {
            title: format!("{title}: IOPS of every second ({} s)", points.len()),
            x_label: "time since measurement started (s)".into(),
            y_label: "I/Os per second (IOPS)".into(),
            x_scale: XScale::Linear,
            y_log: false,
            series: vec![
                Series::new("each second", points),
                Series {
                    name: "mean of the run".into(),
                    points: vec![(first, mean), (last, mean)],
                    reference_for: Some(0),
                },
            ],
        },
        size,
    })
}
