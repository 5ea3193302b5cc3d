//! The tables each built-in suite prints, in the shape its seed review published them
//! (device x DQL for Iometer, drives x workload for JBOD, block size x queue depth for fio
//! sweeps...), plus the derived ones: Iometer's drop from 100% to 95% sequential, and JBOD's
//! scaling efficiency and the drive count where the aggregate stops scaling.

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

/// Table specs for a results directory of `kind` (a suite's own; for any other kind the default tables).
pub fn specs(kind: Kind, points: &[PointResult]) -> Vec<TableSpec> {
    match kind.suite() {
        Some(SuiteId::Quick) => vec![
            spec("Reads", Key::Target, Key::Step, Metric::MBps, &[("read", "100")]),
            spec("Writes", Key::Target, Key::Step, Metric::MBps, &[("read", "0")]),
            spec("Reads", Key::Target, Key::Step, Metric::Iops, &[("read", "100")]),
            spec("Writes", Key::Target, Key::Step, Metric::Iops, &[("read", "0")]),
        ],
        Some(SuiteId::Iometer) => {
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
        Some(SuiteId::Jbod) => vec![
            spec("Aggregate MB/s by number of drives", Key::TargetCount, f("rw"), Metric::MBps, &[]),
            spec("Aggregate IOPS by number of drives", Key::TargetCount, f("rw"), Metric::Iops, &[]),
            spec("drivelab CPU (% of one core) by number of drives", Key::TargetCount, f("rw"), Metric::CpuPct, &[]),
            spec("128K sequential read MB/s per drive", Key::Target, Key::TargetCount, Metric::MBps, &[("rw", "read")]),
            spec("4K random read IOPS per drive", Key::Target, Key::TargetCount, Metric::Iops, &[("rw", "randread")]),
        ],
        Some(SuiteId::Span) => vec![
            spec("4K random over the span, QD3", Key::Step, f("data"), Metric::MBps, &[]),
            spec("4K random over the span, QD3, p99 latency", Key::Step, f("data"), Metric::LatP99Us, &[]),
        ],
        Some(SuiteId::Mixed) => {
            let mut iops =
                spec("4K mixed random, QD32 — 70/30 is the 70% column", Key::Target, f("read"), Metric::Iops, &[]);
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
        Some(SuiteId::Bsqd) => {
            let mut v = Vec::new();
            for rw in ["randread", "randwrite"] {
                for (m, unit) in [(Metric::Iops, "IOPS"), (Metric::MBps, "MB/s")] {
                    let mut s =
                        spec(&format!("{rw}: block size x queue depth, {unit}"), f("bs"), f("qd"), m, &[("rw", rw)]);
                    s.col_format = Some("QD{}".into());
                    v.push(s);
                }
            }
            v
        }
        Some(SuiteId::Hdparm) => vec![spec("hdparm -tT style reads", Key::Target, Key::Step, Metric::MBps, &[])],
        Some(SuiteId::Sync) => vec![
            spec("4K writes at QD1", Key::Target, Key::Step, Metric::Iops, &[]),
            spec("4K writes at QD1, p99 latency", Key::Target, Key::Step, Metric::LatP99Us, &[]),
        ],
        _ => default_tables(points),
    }
}

/// Every table of a results directory: the specs' tables and the suite's derived ones.
pub fn tables(kind: Kind, points: &[PointResult]) -> Vec<Table> {
    let mut out: Vec<Table> =
        specs(kind, points).iter().map(|s| build(s, points)).filter(|t| !t.rows.is_empty()).collect();
    out.extend(derived(kind, points));
    out
}

/// The tables computed from other tables rather than read from points one by one: Iometer's
/// drop from 100% to 95% sequential; JBOD's scaling efficiency and where scaling stops. Their
/// titles do not depend on the numbers, so the same table of two runs can be matched by title.
pub fn derived(kind: Kind, points: &[PointResult]) -> Vec<Table> {
    match kind.suite() {
        Some(SuiteId::Iometer) => iometer_drop(points),
        Some(SuiteId::Jbod) => jbod_scaling(points),
        _ => Vec::new(),
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
        },
        Table {
            title: "Where scaling stops (each added drive adds ≥ half a drive's worth)".into(),
            unit: "drives".into(),
            row_header: "drives".into(),
            col_header: "rw".into(),
            cols: mb.cols.clone(),
            rows: vec![("scales up to".into(), scales_to), ("most tested".into(), tested)],
        },
    ]
}
