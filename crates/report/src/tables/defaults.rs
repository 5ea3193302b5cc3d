//! The tables a plan's results get when nobody asked for any: its axes found from the points'
//! fields, as a reviewer would lay them out (see [`default_tables`]).

use super::*;

/// Fields worth naming in a default title when they are the same for every point of a table.
const TITLE_FIELDS: [&str; 6] = ["rw", "read", "random", "bs", "qd", "jobs"];

/// Default tables for a plan's results: Throughput (MB/s), IOPS and p99 latency (µs), of both
/// directions together ([`Dir::Total`]); where points make writes durable with fsync, also the
/// writes' mean time until durable and the fsync's p99 ([`crate::durable`]).
///
/// Within the points of one step (a plan with several steps gets tables per step, since each
/// step may vary other fields), the fields whose value is not the same for every point (a
/// missing field counts as a value of its own) are the plan's axes, in the order of the points'
/// fields (matrix axes last, in axis order). Columns are keyed by the last of them, the
/// innermost axis. Rows are:
/// - by target, when at most one field varies (one row per target; with one target, a single
///   row);
/// - otherwise by the other varying fields ("bs=4k rw=randread"), preceded by the target when
///   the points ran on several targets.
///
/// When no field varies there is one column, headed by the unit. Repeats of a point land in the
/// same cell and are averaged; [`build`] says so in the title ("mean of 3 runs"). The title
/// names the step and the fields that stay the same among rw, read, random, bs, qd and jobs.
pub fn default_tables(points: &[PointResult]) -> Vec<TableSpec> {
    // The points of each step, steps in the order first seen: one pass (a directory of many
    // thousand steps is grouped in linear time, not a scan per step).
    let mut index: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut by_step: Vec<Vec<&PointResult>> = Vec::new();
    let mut names_of: Vec<&str> = Vec::new();
    for p in points {
        let i = *index.entry(p.point.step.as_str()).or_insert_with(|| {
            by_step.push(Vec::new());
            names_of.push(&p.point.step);
            by_step.len() - 1
        });
        by_step[i].push(p);
    }
    let groups: Vec<(Option<&str>, Vec<&PointResult>)> = if by_step.len() > 1 {
        names_of.into_iter().map(Some).zip(by_step).collect()
    } else {
        vec![(None, points.iter().collect())]
    };

    let mut specs = Vec::new();
    for (step, pts) in groups {
        if pts.is_empty() {
            continue;
        }
        let mut names: Vec<&str> = Vec::new();
        for p in &pts {
            for (k, _) in &p.point.fields {
                if !names.contains(&k.as_str()) {
                    names.push(k);
                }
            }
        }
        let first = pts[0];
        let varies = |k: &str| pts.iter().any(|p| field(p, k) != field(first, k));
        let varying: Vec<&str> = names.iter().copied().filter(|k| varies(k)).collect();
        // Fields that are not every point's are no axes (fio's jobs, each given its own
        // options): a column per point instead.
        let by_label = varying.iter().any(|k| pts.iter().any(|p| field(p, k).is_none()));
        let mut targets: Vec<&str> = Vec::new();
        for t in pts.iter().flat_map(|p| p.result.per_target.iter()) {
            if !targets.contains(&t.path.as_str()) {
                targets.push(&t.path);
            }
        }

        // With nothing varying there is one column (the step), headed by the unit.
        let single = varying.is_empty();
        let (rows, cols) = match varying.split_last() {
            _ if by_label => (Key::Target, Key::Label),
            None => (Key::Target, Key::Step),
            Some((last, [])) => (Key::Target, Key::Field(last.to_string())),
            Some((last, others)) => {
                let mut keys: Vec<Key> = others.iter().map(|k| Key::Field(k.to_string())).collect();
                if targets.len() > 1 {
                    keys.insert(0, Key::Target);
                }
                let rows = if keys.len() == 1 { keys.pop().expect("one key") } else { Key::Join(keys) };
                (rows, Key::Field(last.to_string()))
            }
        };

        let same: Vec<String> = TITLE_FIELDS
            .iter()
            .filter(|k| !varies(k))
            .filter_map(|k| field(first, k).map(|v| format!("{k}={v}")))
            .collect();
        // Writes made durable by fsync: their time until durable and the fsync alone too.
        let fsync = pts.iter().any(|p| durable::uses_fsync(&p.result));
        let durable = [Metric::UntilDurableMeanUs, Metric::FsyncP99Us];
        let metrics = [Metric::MBps, Metric::Iops, Metric::LatP99Us]
            .into_iter()
            .map(|m| (m, Dir::Total))
            .chain(durable.into_iter().filter(|_| fsync).map(|m| (m, Dir::Total)))
            .chain(percentile_fallbacks(&pts));
        for (metric, dir) in metrics {
            let mut title = String::new();
            if let Some(s) = step.filter(|s| !s.is_empty()) {
                title.push_str(&format!("{s}: "));
            }
            title.push_str(metric.describe());
            match dir {
                Dir::Read => title.push_str(", reads"),
                Dir::Write => title.push_str(", writes"),
                Dir::Total => {}
            }
            if !same.is_empty() {
                title.push_str(&format!(", {}", same.join(" ")));
            }
            specs.push(TableSpec {
                title,
                rows: rows.clone(),
                cols: cols.clone(),
                metric,
                dir,
                filter: Vec::new(),
                step: step.map(str::to_string),
                col_format: single.then(|| metric.unit().to_string()),
            });
        }
    }
    specs
}

/// Where a point's total has no p99 (fio's default JSON: percentiles of clat only, and of each
/// direction apart, which do not add up), the p99s it has: the total's clat, each direction's
/// lat and clat, each a table of its own named so. None where every total has its p99.
fn percentile_fallbacks(pts: &[&PointResult]) -> Vec<(Metric, Dir)> {
    let lacking = pts.iter().any(|p| p.result.total.ops > 0 && p.result.total.lat_ns.get(Pct::P99).is_none());
    if !lacking {
        return Vec::new();
    }
    let has =
        |m: Metric, d: Dir| pts.iter().any(|p| m.of(d.of(&p.result.read, &p.result.write, &p.result.total)).is_some());
    let candidates = [
        (Metric::ClatP99Us, Dir::Total),
        (Metric::LatP99Us, Dir::Read),
        (Metric::ClatP99Us, Dir::Read),
        (Metric::LatP99Us, Dir::Write),
        (Metric::ClatP99Us, Dir::Write),
    ];
    candidates.into_iter().filter(|&(m, d)| has(m, d)).collect()
}
