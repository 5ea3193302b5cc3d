//! The tables each built-in suite prints, in the shape its seed review published them
//! (device x DQL for Iometer, drives x workload for JBOD, block size x queue depth for fio
//! sweeps...), plus the derived ones: Iometer's drop from 100% to 95% sequential, and JBOD's
//! scaling efficiency and the drive count where the aggregate stops scaling. [`views`] is the
//! one registry, keyed by [`SuiteId`], that the tables, the HTML charts and compare all read.

use drivelab_lab::results::{Kind, PointResult};
use drivelab_lab::suites::SuiteId;

use crate::tables::{build, default_tables, Dir, Key, Metric, Table, TableSpec};

fn spec(title: &str, rows: Key, cols: Key, metric: Metric, filter: &[(&str, &str)]) -> TableSpec {
    TableSpec {
        title: title.to_string(),
        rows,
        cols,
        metric,
        dir: Dir::Total,
        filter: filter.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        step: None,
        col_format: None,
    }
}

fn f(name: &str) -> Key {
    Key::Field(name.to_string())
}

/// How a suite's tables are charted in the HTML report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChartStyle {
    /// Three or more numeric columns as a curve (powers of two equally spaced), else bars.
    Auto,
    /// Rows x columns as coloured cells (block size x queue depth).
    Heatmap,
    /// A group of bars per column (Iometer's device x DQL).
    Bars,
    /// Each row as a curve over its numeric columns (the read/write mix).
    Curve,
    /// Aggregate against drives at once, with each workload's ideal scaling dashed.
    Scaling,
}

/// What one suite shows: its tables in its seed's shape, the tables derived from them, how they
/// are charted, and the axis descriptions it words its own way.
pub struct SuiteViews {
    pub specs: fn(&[PointResult]) -> Vec<TableSpec>,
    pub derived: fn(&[PointResult]) -> Vec<Table>,
    pub chart: ChartStyle,
    /// (table key, axis description) where the suite's differs from the default.
    pub axes: &'static [(&'static str, &'static str)],
}

fn no_derived(_: &[PointResult]) -> Vec<Table> {
    Vec::new()
}

/// THE suite registry: every [`SuiteId`] lab can run has its views here (the match is
/// exhaustive, so a new suite does not compile without them).
pub fn views(id: SuiteId) -> SuiteViews {
    let plain = |specs| SuiteViews { specs, derived: no_derived, chart: ChartStyle::Auto, axes: &[] };
    match id {
        SuiteId::Quick => plain(quick),
        SuiteId::Iometer => SuiteViews {
            specs: iometer,
            derived: iometer_drop,
            chart: ChartStyle::Bars,
            axes: &[("qd", "outstanding I/Os per disk (DQL)")],
        },
        SuiteId::Jbod => SuiteViews { specs: jbod, derived: jbod_scaling, chart: ChartStyle::Scaling, axes: &[] },
        SuiteId::Span => plain(span),
        SuiteId::Mixed => SuiteViews { chart: ChartStyle::Curve, ..plain(mixed) },
        SuiteId::Bsqd => {
            SuiteViews { chart: ChartStyle::Heatmap, axes: &[("qd", "queue depth (I/Os)")], ..plain(bsqd) }
        }
        SuiteId::Hdparm => plain(hdparm),
        SuiteId::Sync => plain(sync),
    }
}

fn quick(_: &[PointResult]) -> Vec<TableSpec> {
    vec![
        spec("Reads", Key::Target, Key::Step, Metric::MBps, &[("read", "100")]),
        spec("Writes", Key::Target, Key::Step, Metric::MBps, &[("read", "0")]),
        spec("Reads", Key::Target, Key::Step, Metric::Iops, &[("read", "100")]),
        spec("Writes", Key::Target, Key::Step, Metric::Iops, &[("read", "0")]),
    ]
}

fn iometer(_: &[PointResult]) -> Vec<TableSpec> {
    let mut v = Vec::new();
    for read in ["100", "0"] {
        for random in ["0", "5", "20", "100"] {
            let dir = if read == "100" { "Reads" } else { "Writes" };
            let seq = 100 - random.parse::<u32>().unwrap_or(0);
            let mut s = spec(
                &format!("64K {seq}% Sequential {dir}"),
                Key::Target,
                f("qd"),
                Metric::MBps,
                &[("read", read), ("random", random)],
            );
            s.col_format = Some("{} DQL/Disk".into());
            v.push(s);
        }
    }
    v
}

fn jbod(_: &[PointResult]) -> Vec<TableSpec> {
    vec![
        spec("Aggregate MB/s by number of drives", Key::TargetCount, f("rw"), Metric::MBps, &[]),
        spec("Aggregate IOPS by number of drives", Key::TargetCount, f("rw"), Metric::Iops, &[]),
        spec("drivelab CPU (% of one core) by number of drives", Key::TargetCount, f("rw"), Metric::CpuPct, &[]),
        spec("128K sequential read MB/s per drive", Key::Target, Key::TargetCount, Metric::MBps, &[("rw", "read")]),
        spec("4K random read IOPS per drive", Key::Target, Key::TargetCount, Metric::Iops, &[("rw", "randread")]),
    ]
}

fn span(points: &[PointResult]) -> Vec<TableSpec> {
    let over = span_words(points);
    vec![
        spec(&format!("4K random over {over}, QD3"), Key::Step, f("data"), Metric::MBps, &[]),
        spec(&format!("4K random over {over}, QD3, p99 latency"), Key::Step, f("data"), Metric::LatP99Us, &[]),
    ]
}

/// The span the points ran over, said with the suite's own when it is smaller: "the 8 GiB
/// span", or "the 1 GiB span (the suite asks 8 GiB: the target is smaller)".
fn span_words(points: &[PointResult]) -> String {
    let asked = drivelab_lab::suites::SPAN_BYTES;
    let Some(span) = points.iter().filter_map(|p| p.point.spec.span_bytes).min() else {
        return "the span".into();
    };
    let size = drivelab_engine::units::fmt_size_words(span);
    if span >= asked {
        format!("the {size} span")
    } else {
        format!(
            "the {size} span (the suite asks {}: the target is smaller)",
            drivelab_engine::units::fmt_size_words(asked)
        )
    }
}

fn mixed(points: &[PointResult]) -> Vec<TableSpec> {
    let mut iops = spec("4K mixed random, QD32 — 70/30 is 70% reads", Key::Target, f("read"), Metric::Iops, &[]);
    iops.col_format = Some("{}% reads".into());
    let mut mb = spec("4K mixed random, QD32", Key::Target, f("read"), Metric::MBps, &[]);
    mb.col_format = Some("{}% reads".into());
    let mut v = vec![iops, mb];
    if points.iter().any(|p| p.power_w.is_some()) {
        for (m, t) in [
            (Metric::PowerW, "4K mixed random, QD32, average power"),
            (Metric::MBpsPerW, "4K mixed random, QD32, power efficiency"),
        ] {
            let mut s = spec(t, Key::Target, f("read"), m, &[]);
            s.col_format = Some("{}% reads".into());
            v.push(s);
        }
    }
    v
}

fn bsqd(_: &[PointResult]) -> Vec<TableSpec> {
    let mut v = Vec::new();
    for rw in ["randread", "randwrite"] {
        for (m, unit) in [(Metric::Iops, "IOPS"), (Metric::MBps, "MB/s")] {
            let mut s = spec(&format!("{rw}: block size x queue depth, {unit}"), f("bs"), f("qd"), m, &[("rw", rw)]);
            s.col_format = Some("QD{}".into());
            v.push(s);
        }
    }
    v
}

fn hdparm(_: &[PointResult]) -> Vec<TableSpec> {
    vec![spec("hdparm -tT style reads", Key::Target, Key::Step, Metric::MBps, &[])]
}

/// IOPS (a write with fsync counts once, its fsync's time included), then what a reader means
/// by a write's latency here: its time until durable (write + fsync; O_DSYNC: the write), and
/// the fsync and the write call each alone, so fsync never looks fast for its write's p99.
fn sync(_: &[PointResult]) -> Vec<TableSpec> {
    vec![
        spec("4K writes at QD1", Key::Target, Key::Step, Metric::Iops, &[]),
        spec(
            "4K writes at QD1, until durable (write + fsync), mean per write",
            Key::Target,
            Key::Step,
            Metric::UntilDurableMeanUs,
            &[],
        ),
        spec(
            "4K writes at QD1, fsync call alone, p99",
            Key::Target,
            Key::Step,
            Metric::FsyncP99Us,
            &[("sync", "fsync:1")],
        ),
        spec("4K writes at QD1, write call alone, p99", Key::Target, Key::Step, Metric::LatP99Us, &[]),
    ]
}

/// Table specs for a results directory of `kind` (a suite's own; for any other kind the default tables).
pub fn specs(kind: Kind, points: &[PointResult]) -> Vec<TableSpec> {
    match kind.suite() {
        Some(id) => (views(id).specs)(points),
        None => default_tables(points),
    }
}

/// Every table of a results directory: the specs' tables and the suite's derived ones.
/// Points run by several MPI ranks get a first row of every rank's I/Os merged
/// ([`crate::all_ranks::with_all_ranks`]).
pub fn tables(kind: Kind, points: &[PointResult]) -> Vec<Table> {
    let mut out = Vec::new();
    let _ = each_table::<()>(kind, points, &mut |t| {
        out.push(t);
        Ok(())
    });
    out
}

/// [`tables`], each handed to `f` as it is built (a page of many thousand tables never holds
/// them all); the first error of `f` ends it.
pub fn each_table<E>(kind: Kind, points: &[PointResult], f: &mut dyn FnMut(Table) -> Result<(), E>) -> Result<(), E> {
    let points = &*crate::all_ranks::with_all_ranks_cow(points);
    let by_step = crate::tables::ByStep::new(points);
    for s in specs(kind, points) {
        let t = by_step.build(&s);
        if !t.rows.is_empty() {
            f(t)?;
        }
    }
    for t in derived(kind, points) {
        f(t)?;
    }
    Ok(())
}

/// The tables computed from other tables rather than read from points one by one: Iometer's
/// drop from 100% to 95% sequential; JBOD's scaling efficiency and where scaling stops. Their
/// titles do not depend on the numbers, so the same table of two runs can be matched by title.
pub fn derived(kind: Kind, points: &[PointResult]) -> Vec<Table> {
    match kind.suite() {
        Some(id) => (views(id).derived)(points),
        None => Vec::new(),
    }
}

/// Per device and DQL: how much throughput falls from 100% to 95% sequential, in percent.
fn iometer_drop(points: &[PointResult]) -> Vec<Table> {
    let mut out = Vec::new();
    for (read, dir) in [("100", "reads"), ("0", "writes")] {
        let at = |random: &str| {
            build(&spec("", Key::Target, f("qd"), Metric::MBps, &[("read", read), ("random", random)]), points)
        };
        let (seq, five) = (at("0"), at("5"));
        if seq.rows.is_empty() || five.rows.is_empty() {
            continue;
        }
        let rows = seq
            .rows
            .iter()
            .map(|(name, vals)| {
                let other = five.rows.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone()).unwrap_or_default();
                let cells = vals
                    .iter()
                    .enumerate()
                    .map(|(i, a)| match (a, other.get(i).copied().flatten()) {
                        (Some(a), Some(b)) if *a > 0.0 => Some((1.0 - b / a) * 100.0),
                        _ => None,
                    })
                    .collect();
                (name.clone(), cells)
            })
            .collect();
        out.push(Table {
            title: format!("Drop from 100% to 95% sequential, 64K {dir}"),
            unit: "%".into(),
            row_header: "target".into(),
            col_header: "qd".into(),
            cols: seq.cols.iter().map(|c| format!("{c} DQL/Disk")).collect(),
            rows,
            note: None,
            errored: Vec::new(),
            unsteady: Vec::new(),
        });
    }
    out
}

/// Aggregate against k x the single-drive figure; and per workload the drive count after which
/// adding a drive adds less than half of one drive's worth (the platform, not the drives, is
/// then the limit), next to the most drives tested: equal means it scaled to every drive.
fn jbod_scaling(points: &[PointResult]) -> Vec<Table> {
    let mb = build(&spec("", Key::TargetCount, f("rw"), Metric::MBps, &[]), points);
    let iops = build(&spec("", Key::TargetCount, f("rw"), Metric::Iops, &[]), points);
    if mb.rows.is_empty() {
        return Vec::new();
    }
    // Sequential workloads by MB/s, random ones by IOPS.
    let value = |ri: usize, ci: usize| {
        let col = &mb.cols[ci];
        let t = if col.starts_with("rand") { &iops } else { &mb };
        t.rows.get(ri).and_then(|(_, v)| v.get(ci).copied().flatten())
    };
    let ks: Vec<Option<f64>> = mb.rows.iter().map(|(k, _)| k.parse().ok()).collect();
    let (mut scales_to, mut tested) = (Vec::new(), Vec::new());
    for ci in 0..mb.cols.len() {
        // The single-drive figure is the first row's (k = 1 in the suite's order).
        let base = value(0, ci).filter(|b| *b > 0.0);
        let mut last_scaled = base.and(ks[0]);
        let mut stopped = false;
        for (ri, &k) in ks.iter().enumerate().skip(1) {
            match (base, value(ri - 1, ci), value(ri, ci), k) {
                (Some(b), Some(prev), Some(v), Some(_)) if !stopped && v - prev < 0.5 * b => stopped = true,
                (Some(_), Some(_), Some(_), Some(k)) if !stopped => last_scaled = Some(k),
                _ => {}
            }
        }
        scales_to.push(last_scaled);
        tested.push((0..mb.rows.len()).filter(|&ri| value(ri, ci).is_some()).filter_map(|ri| ks[ri]).reduce(f64::max));
    }
    let efficiency = mb
        .rows
        .iter()
        .enumerate()
        .map(|(ri, (k, _))| {
            let cells = (0..mb.cols.len())
                .map(|ci| match (value(0, ci), value(ri, ci), ks[ri]) {
                    (Some(b), Some(v), Some(k)) if b > 0.0 && k > 0.0 => Some(v / (b * k) * 100.0),
                    _ => None,
                })
                .collect();
            (k.clone(), cells)
        })
        .collect();
    vec![
        Table {
            title: "Scaling efficiency, aggregate / (drives x one drive)".into(),
            unit: "%".into(),
            row_header: "drives".into(),
            col_header: "rw".into(),
            cols: mb.cols.clone(),
            rows: efficiency,
            note: None,
            errored: Vec::new(),
            unsteady: Vec::new(),
        },
        Table {
            title: "Where scaling stops (each added drive adds ≥ half a drive's worth)".into(),
            unit: "drives".into(),
            row_header: "drives".into(),
            col_header: "rw".into(),
            cols: mb.cols.clone(),
            rows: vec![("scales up to".into(), scales_to), ("most tested".into(), tested)],
            note: None,
            errored: Vec::new(),
            unsteady: Vec::new(),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{manifest, point};
    use drivelab_engine::spec::SyncMode;
    use drivelab_lab::suites::{self, SuiteOptions};

    /// Made-up results of a suite's own plan: every point moved 100 MB/s on each of its targets.
    fn suite_points(id: SuiteId) -> Vec<PointResult> {
        let targets = vec!["/dev/a".to_string(), "/dev/b".to_string(), "/dev/c".to_string()];
        let opts = SuiteOptions {
            time: Some("1s".into()),
            scale: 1.0,
            dql: vec![1, 2],
            target_bytes: 1 << 30,
            together: None,
        };
        let plan = suites::plan(id, &targets, &opts).expect("the suite's plan");
        plan.points
            .iter()
            .map(|p| {
                let on: Vec<(&str, f64)> = p.targets.iter().map(|t| (t.as_str(), 100.0)).collect();
                let mut r = point(&p.label, &p.step, &[], &on);
                r.point = p.clone();
                r
            })
            .collect()
    }

    /// The README's `drivelab suite span f.dat` ran a 1 GiB span and said nothing (issue #38):
    /// the titles say the span, and the suite's own when the target was smaller.
    #[test]
    fn the_span_tables_say_the_span_they_ran_over() {
        let points = suite_points(SuiteId::Span);
        let titles: Vec<String> = span(&points).into_iter().map(|s| s.title).collect();
        assert_eq!(titles[0], "4K random over the 1 GiB span (the suite asks 8 GiB: the target is smaller), QD3");
        let targets = vec!["/dev/a".to_string()];
        let opts =
            SuiteOptions { time: Some("1s".into()), scale: 1.0, dql: vec![1], target_bytes: 100 << 30, together: None };
        let plan = suites::plan(SuiteId::Span, &targets, &opts).unwrap();
        let full: Vec<PointResult> =
            plan.points.iter().map(|p| PointResult { point: p.clone(), ..points[0].clone() }).collect();
        assert_eq!(span(&full)[0].title, "4K random over the 8 GiB span, QD3");
        assert!(suites::span_notice(&opts).is_none());
        let small = SuiteOptions { target_bytes: 1 << 30, ..opts };
        assert!(suites::span_notice(&small).unwrap().contains("run over 1 GiB and not the suite's 8 GiB"));
    }

    /// Figures of different drives are never averaged (issue #38): every suite, its drives each
    /// alone and all at once, each drive of each point given its own figure (no two alike, no
    /// mean of two equal to a third); every cell of every MB/s and IOPS table is one drive's
    /// figure in one saved point, or a point's own total — never a mix.
    #[test]
    fn every_suites_cells_are_one_drives_figure_or_a_points_total_never_a_mix() {
        let targets = vec!["/dev/a".to_string(), "/dev/b".to_string(), "/dev/c".to_string()];
        for id in SuiteId::ALL {
            for together in [None, Some(true)] {
                let opts = SuiteOptions {
                    time: Some("1s".into()),
                    scale: 1.0,
                    dql: vec![1, 2],
                    target_bytes: 1 << 30,
                    together,
                };
                let plan = suites::plan(id, &targets, &opts).expect("the suite's plan");
                let points: Vec<PointResult> = plan
                    .points
                    .iter()
                    .enumerate()
                    .map(|(i, p)| {
                        let on: Vec<(&str, f64)> = p
                            .targets
                            .iter()
                            .map(|t| {
                                let j = targets.iter().position(|x| x == t).unwrap() as f64;
                                (t.as_str(), 1000.0 * (i as f64 + 1.0) + 3.0f64.powf(j))
                            })
                            .collect();
                        let mut r = point(&p.label, &p.step, &[], &on);
                        r.point = p.clone();
                        r
                    })
                    .collect();
                let mut allowed: Vec<f64> = Vec::new();
                for p in &points {
                    allowed.extend(p.result.per_target.iter().map(|t| t.total.bw_mb_per_s));
                    allowed.push(p.result.total.bw_mb_per_s);
                }
                for s in
                    specs(Kind::Suite(id), &points).iter().filter(|s| matches!(s.metric, Metric::MBps | Metric::Iops))
                {
                    let t = build(s, &points);
                    let per_mb = if s.metric == Metric::Iops { 256.0 } else { 1.0 };
                    for (row, values) in &t.rows {
                        for v in values.iter().flatten() {
                            let mb = v / per_mb;
                            assert!(
                                allowed.iter().any(|a| (a - mb).abs() < 1e-6),
                                "{id:?} together {together:?}: '{}' row {row}: {mb} MB/s is no one drive's figure",
                                s.title
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn every_suite_lab_can_run_has_views_that_fill_tables_and_charts_from_its_own_plan() {
        for id in SuiteId::ALL {
            let points = suite_points(id);
            let kind = Kind::Suite(id);
            let specs = specs(kind, &points);
            assert!(!specs.is_empty(), "{id:?} has no tables");
            for s in &specs {
                assert!(!build(s, &points).rows.is_empty(), "{id:?}: '{}' is empty on the suite's own points", s.title);
            }
            let page = crate::html::report(&manifest(&kind.to_string(), &points), &points);
            for t in tables(kind, &points) {
                let heading = crate::html::esc(&t.heading());
                let at =
                    page.find(&format!("<h2>{heading}</h2>")).unwrap_or_else(|| panic!("{id:?}: no section {heading}"));
                assert!(
                    page[at..].starts_with(&format!("<h2>{heading}</h2><div class=\"chart\"><svg")),
                    "{id:?}: {heading} has no chart"
                );
            }
        }
    }

    /// The sync suite's three points on one target as saved: plain writes of 50 µs; O_DSYNC
    /// writes of 3 ms; fsync after each write, writes of 20 µs (p99 40 µs) each followed by an
    /// fsync of 1.5 ms (p99 5 ms) — 100 of each.
    fn sync_points() -> Vec<PointResult> {
        let steps = [
            ("plain", "none", SyncMode::None, 50_000.0),
            ("O_DSYNC", "dsync", SyncMode::Dsync, 3_000_000.0),
            ("fsync each write", "fsync:1", SyncMode::Fsync { every: 1 }, 20_000.0),
        ];
        steps
            .iter()
            .map(|&(step, sync, mode, write_mean)| {
                let mut p = point(step, step, &[("rw", "randwrite"), ("sync", sync)], &[("/dev/x", 1.0)]);
                let r = &mut p.result;
                r.spec.sync = mode;
                r.write.ops = 100;
                r.write.lat_ns.mean = write_mean;
                r.write.lat_ns.percentiles.insert("p99", 2 * write_mean as u64);
                r.total = r.write.clone();
                r.per_target[0].write = r.write.clone();
                r.per_target[0].total = r.write.clone();
                if sync == "fsync:1" {
                    let mut s = r.write.clone();
                    s.lat_ns.mean = 1_500_000.0;
                    s.lat_ns.percentiles.insert("p99", 5_000_000);
                    r.sync = Some(Box::new(s));
                }
                p
            })
            .collect()
    }

    fn titled<'a>(tables: &'a [Table], title: &str) -> &'a Table {
        tables.iter().find(|t| t.title == title).unwrap_or_else(|| {
            panic!("no table {title:?} in {:?}", tables.iter().map(|t| &t.title).collect::<Vec<_>>())
        })
    }

    #[test]
    fn the_sync_suite_shows_each_write_until_durable_and_the_fsync_alone_not_just_the_write_call() {
        let points = sync_points();
        let tables = tables(Kind::Suite(SuiteId::Sync), &points);
        let until = titled(&tables, "4K writes at QD1, until durable (write + fsync), mean per write");
        assert_eq!(until.unit, "µs");
        assert_eq!(until.cols, ["plain", "O_DSYNC", "fsync each write"]);
        // Plain writes are never made durable; an O_DSYNC write is durable on return; with fsync
        // a write is durable after its fsync: 20 µs + 1500 µs.
        assert_eq!(until.rows, [("/dev/x".to_string(), vec![None, Some(3000.0), Some(1520.0)])]);
        assert!(until.note.as_deref().is_some_and(|n| n.contains("share of the fsync")), "{until:?}");
        let fsync = titled(&tables, "4K writes at QD1, fsync call alone, p99");
        assert_eq!(fsync.cols, ["fsync each write"]);
        assert_eq!(fsync.rows[0].1, [Some(5000.0)]);
        let call = titled(&tables, "4K writes at QD1, write call alone, p99");
        assert_eq!(call.rows[0].1, [Some(100.0), Some(6000.0), Some(40.0)], "the write calls as measured");
        assert!(call.note.as_deref().is_some_and(|n| n.contains("fsync")), "says the fsync is left out: {call:?}");
        // The terminal's tables say so under each one, and each table gets a chart.
        let text = until.text();
        assert!(text.starts_with("4K writes at QD1, until durable (write + fsync), mean per write (µs)\n"), "{text}");
        assert!(text.contains("\n/dev/x             —     3000              1520\n"), "{text}");
        let page = crate::html::report(&manifest("suite:sync", &points), &points);
        for t in [until, fsync, call] {
            let at = page.find(&format!("<h2>{}</h2><div class=\"chart\"><svg", crate::html::esc(&t.heading())));
            assert!(at.is_some(), "{} has a chart", t.title);
        }
        assert!(page.contains("<p class=\"note\">until durable: with fsync"), "the note under the table");
    }

    #[test]
    fn plan_tables_add_the_time_until_durable_and_the_fsync_where_points_use_fsync() {
        // A plan over `sync = ["none", "dsync", "fsync:1"]`: one step, columns by sync.
        let mut points = sync_points();
        points.iter_mut().for_each(|p| p.point.step.clear());
        let plan = tables(Kind::Plan, &points);
        let until = titled(&plan, "Until durable (write + fsync), mean per write, rw=randwrite");
        assert_eq!(until.cols, ["none", "dsync", "fsync:1"]);
        assert_eq!(until.rows[0].1, [None, Some(3000.0), Some(1520.0)]);
        let fsync = titled(&plan, "fsync alone, p99, rw=randwrite");
        assert_eq!(fsync.rows[0].1, [None, None, Some(5000.0)]);
        // Without fsync, a plan's tables are as they were.
        let plain = tables(Kind::Plan, &points[..2]);
        assert!(plain.iter().all(|t| !t.title.contains("durable") && !t.title.contains("fsync")), "{plain:?}");
        assert!(plain.iter().all(|t| t.note.is_none()));
    }

    #[test]
    fn suites_with_derived_tables_compute_them_from_their_own_plan() {
        for (id, n) in [(SuiteId::Iometer, 2), (SuiteId::Jbod, 2)] {
            let d = derived(Kind::Suite(id), &suite_points(id));
            assert_eq!(d.len(), n, "{id:?}: {:?}", d.iter().map(|t| &t.title).collect::<Vec<_>>());
            assert!(d.iter().all(|t| t.rows.iter().any(|r| r.1.iter().any(Option::is_some))), "{id:?}: values");
        }
    }
}
