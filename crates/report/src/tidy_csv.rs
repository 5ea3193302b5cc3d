//! The tidy CSV of a results directory (`report DIR --format csv`): ONE table, one row per
//! measured thing, every figure its own column, so pandas' `read_csv`, R's `read.csv` or a
//! spreadsheet read it with no options and no cleaning. The pivot tables people read are still
//! there as `--format csv --tables` ([`crate::export::Csv`]); this is the form a reader plots
//! and filters themselves, as Iometer's results CSV and fio's JSON users expect.
//!
//! # Rows
//!
//! - run, plan, suite (and fio's results): a row per saved point (`record` = `point`), its
//!   aggregate over its targets; a point that ran several drives at once is followed by a row
//!   per drive (`record` = `target`, `target` its path, `target_name` its `--label` name): each
//!   drive's own I/Os, rates and latencies (the figures of the whole run, CPU, power and errors,
//!   are the point row's). Figures of different drives are never only a sum.
//! - qos: a row per probe (`record` = `probe`): the load it offered, its role, whether it passed,
//!   then the figures of the probe's run.
//! - act: a row per slice of each load (`record` = `slice`): the load (N), the slice's span,
//!   reads and the percent of reads over each threshold, the reads scheduled and the share
//!   delivered. ACT judges the slices of the read
//!   stream only, so a row per slice per load is a row per slice of every stream ACT judges;
//!   each stream's own seconds are in `--format csv --series`.
//!
//! # Columns
//!
//! One header line; the columns are the union over the rows, empty where a row lacks one:
//! what the row is (`results`: the directory, so several directories make one table;
//! `record`, `index`, `label`, `step`, `targets`, `target_count`), every field
//! of the points as given in the plan (`rw`, `bs`, `qd`...; a field named like a figure column
//! is prefixed `field_`), the engine's spec as numbers (`spec_bs_bytes`, `spec_qd`...), then the
//! figures with their units in their names: `runtime_ns`, `ios`, `bytes`, `iops`, `mb_per_s`
//! (10^6 bytes/s), `lat_mean_ns`, `lat_p50_ns`, `lat_p99_ns`, `lat_p99.9_ns`, `lat_max_ns`, the
//! same for `clat_` where the engine has one, the same again per direction that did I/O
//! (`read_iops`, `read_lat_p99_ns`, `write_...`, `trim_...`, `fsync_...`), then `cpu_pct`
//! (user + system of the job threads, % of one core), `cpu_usr_pct`, `cpu_sys_pct`,
//! `cpu_busiest_job_pct`, `cpu_bound`, `cpu_runq_wait_pct` (the job threads' time waiting for a
//! CPU, their mean), `cpu_starved` (that wait >= 20%: the machine was busy), `qd_mean`, `power_w`, `error_count`, `errored`,
//! `first_error`, `interrupted`, `prep` (each block device's written state when the point
//! started), and with `--steady` `steady` (false: never reached; the figures are no steady
//! state's), `steady_rounds` and `steady_result_rounds` (the rounds the figures merge). Numbers are at full precision; booleans `true`/`false`. docs/RESULTS.md lists them.

use drivelab_engine::hist::{LatSummary, Pct};
use drivelab_engine::result::{DirStats, RunResult};
use drivelab_lab::results::{PointResult, ProbeData, ProbeResult, Results, SearchBy, Setup};

use crate::grid::csv_field;
use crate::views::qos::role_name;

/// One row: what it is, its fields as given, its figures; each a (column, value) list.
#[derive(Default)]
struct Row {
    ids: Vec<(String, String)>,
    fields: Vec<(String, String)>,
    figures: Vec<(String, String)>,
}

/// The percentiles every latency gets a column of.
const PCTS: [Pct; 3] = [Pct::P50, Pct::P99, Pct::P99_9];

/// The columns of what a row is: a field of the same name is renamed `field_NAME`.
const ID_COLUMNS: [&str; 9] =
    ["results", "record", "index", "label", "step", "targets", "target_count", "target", "target_name"];

fn num(v: f64) -> String {
    if v.is_finite() {
        format!("{v}")
    } else {
        String::new()
    }
}

fn put(out: &mut Vec<(String, String)>, name: impl Into<String>, v: impl ToString) {
    out.push((name.into(), v.to_string()));
}

/// mean, p50, p99, p99.9 and max of one latency, in ns, as `{prefix}{stat}_...`.
fn latency(out: &mut Vec<(String, String)>, prefix: &str, l: &LatSummary) {
    put(out, format!("{prefix}mean_ns"), num(l.mean));
    for q in PCTS {
        put(out, format!("{prefix}{}_ns", q.name()), l.get(q).map_or_else(String::new, |v| v.to_string()));
    }
    put(out, format!("{prefix}max_ns"), l.max);
}

/// A direction's counts and rates, and its latencies where it did any I/O.
fn direction(out: &mut Vec<(String, String)>, prefix: &str, d: &DirStats) {
    put(out, format!("{prefix}ios"), d.ops);
    put(out, format!("{prefix}bytes"), d.bytes);
    put(out, format!("{prefix}iops"), num(d.iops));
    put(out, format!("{prefix}mb_per_s"), num(d.bw_mb_per_s));
    if d.ops > 0 {
        latency(out, &format!("{prefix}lat_"), &d.lat_ns);
        if let Some(c) = &d.clat_ns {
            latency(out, &format!("{prefix}clat_"), c);
        }
    }
}

/// The engine's spec as numbers (the fields say what was written; these what ran).
fn spec(out: &mut Vec<(String, String)>, r: &RunResult) {
    let s = &r.spec;
    let bs = if s.bs.len() == 1 { s.bs[0].bytes.to_string() } else { String::new() };
    put(out, "spec_bs_bytes", bs);
    put(out, "spec_qd", s.qd);
    put(out, "spec_jobs", s.jobs);
    put(out, "spec_read_pct", s.read_pct);
    put(out, "spec_random_pct", s.random_pct);
}

/// Every figure of one engine result (see the module docs for the columns).
fn figures(out: &mut Vec<(String, String)>, r: &RunResult) {
    spec(out, r);
    put(out, "runtime_ns", r.runtime_ns);
    direction(out, "", &r.total);
    for (name, d) in [("read_", Some(&r.read)), ("write_", Some(&r.write)), ("trim_", r.trim.as_deref())] {
        if let Some(d) = d.filter(|d| d.ops > 0) {
            direction(out, name, d);
        }
    }
    if let Some(s) = r.sync.as_ref().filter(|s| s.ops > 0) {
        direction(out, "fsync_", s);
    }
    put(out, "cpu_pct", num(r.cpu.usr_pct + r.cpu.sys_pct));
    put(out, "cpu_usr_pct", num(r.cpu.usr_pct));
    put(out, "cpu_sys_pct", num(r.cpu.sys_pct));
    put(out, "cpu_busiest_job_pct", num(r.cpu.busiest_job_pct));
    put(out, "cpu_bound", r.cpu.cpu_bound);
    put(out, "cpu_runq_wait_pct", num(r.cpu.runq_wait_pct));
    put(out, "cpu_starved", r.cpu.cpu_starved);
    put(out, "qd_mean", num(r.qd_mean));
    put(out, "error_count", r.errors.iter().map(|e| e.count).sum::<u64>());
    put(out, "errored", r.errored());
    put(out, "first_error", crate::tables::point_error(r).unwrap_or_default());
    put(out, "interrupted", r.interrupted);
}

/// Each block device's written state when the point started ("/dev/sdb filled"), `;`-separated.
fn prep(p: &PointResult) -> String {
    p.prep
        .iter()
        .map(|d| {
            let state = serde_json::to_value(d.state).ok().and_then(|v| v.as_str().map(str::to_string));
            let mut s = format!("{} {}", d.device, state.unwrap_or_default());
            if d.no_prep {
                s += " no_prep";
            }
            if d.unwritten_read {
                s += " unwritten_read";
            }
            s
        })
        .collect::<Vec<_>>()
        .join(";")
}

/// What a point's rows share: which point, its targets, its fields as given.
fn point_ids(p: &PointResult, record: &str) -> Row {
    let mut row = Row::default();
    put(&mut row.ids, "record", record);
    put(&mut row.ids, "index", p.point.index);
    put(&mut row.ids, "label", &p.point.label);
    put(&mut row.ids, "step", &p.point.step);
    put(&mut row.ids, "targets", p.point.targets.join(";"));
    put(&mut row.ids, "target_count", p.point.targets.len());
    row.fields = p.point.fields.clone();
    row
}

/// A point's row, then (when it ran several drives at once) a row per drive.
fn point_rows(p: &PointResult) -> Vec<Row> {
    let mut row = point_ids(p, "point");
    if let [only] = p.point.targets.as_slice() {
        put(&mut row.ids, "target", only);
        put(&mut row.ids, "target_name", p.point.shown(only));
    }
    figures(&mut row.figures, &p.result);
    put(&mut row.figures, "power_w", p.power_w.map_or_else(String::new, num));
    put(&mut row.figures, "prep", prep(p));
    if let Some(s) = &p.steady {
        // With --steady: whether the figures are a steady state's, and how many rounds they are.
        put(&mut row.figures, "steady", s.steady);
        put(&mut row.figures, "steady_rounds", s.rounds_iops.len());
        put(&mut row.figures, "steady_result_rounds", s.result_rounds.max(1));
    }
    let mut out = vec![row];
    let targets = crate::point_targets::distinct(p);
    if targets.len() > 1 {
        for t in &targets {
            let mut row = point_ids(p, "target");
            put(&mut row.ids, "target", &t.path);
            put(&mut row.ids, "target_name", p.point.shown(&t.path));
            spec(&mut row.figures, &p.result);
            put(&mut row.figures, "runtime_ns", p.result.runtime_ns);
            direction(&mut row.figures, "", &t.total);
            for (name, d) in [("read_", &t.read), ("write_", &t.write)] {
                if d.ops > 0 {
                    direction(&mut row.figures, name, d);
                }
            }
            out.push(row);
        }
    }
    out
}

fn probe_ids(row: &mut Row, p: &ProbeResult, record: &str) {
    put(&mut row.ids, "record", record);
    put(&mut row.ids, "index", p.index);
    put(&mut row.ids, "role", role_name(p.role));
    put(&mut row.ids, "pass", p.pass);
}

fn qos_row(p: &ProbeResult, by: SearchBy) -> Option<Row> {
    let ProbeData::Qos(q) = &p.data else { return None };
    let mut row = Row::default();
    probe_ids(&mut row, p, "probe");
    let load = if by == SearchBy::Qd { "load_qd" } else { "load_iops" };
    put(&mut row.ids, load, num(p.value));
    put(&mut row.ids, "delivered_pct", q.delivery.map_or_else(String::new, |d| num(d.pct())));
    figures(&mut row.figures, &q.result);
    put(&mut row.figures, "power_w", p.power_w.map_or_else(String::new, num));
    Some(row)
}

/// ACT's thresholds in ms, as the slice columns name them.
const ACT_MS: [u32; 7] = [1, 2, 4, 8, 16, 32, 64];

fn act_rows(p: &ProbeResult) -> Vec<Row> {
    let ProbeData::Act(a) = &p.data else { return Vec::new() };
    a.slices
        .iter()
        .map(|s| {
            let mut row = Row::default();
            probe_ids(&mut row, p, "slice");
            put(&mut row.ids, "load_n", num(p.value));
            put(&mut row.ids, "slice", s.index);
            put(&mut row.figures, "start_s", s.start_s);
            put(&mut row.figures, "end_s", s.end_s);
            put(&mut row.figures, "reads", s.ops);
            put(&mut row.figures, "reads_per_s", num(s.rate_per_s));
            for (ms, pct) in ACT_MS.iter().zip(s.over_pct) {
                put(&mut row.figures, format!("over_{ms}ms_pct"), num(pct));
            }
            put(&mut row.figures, "partial", s.partial);
            // The reads the schedule asked for from the slice's start on, and the share done.
            put(
                &mut row.figures,
                "scheduled_reads_per_s",
                s.delivery.map_or_else(String::new, |d| num(d.scheduled_iops)),
            );
            put(&mut row.figures, "delivered_pct", s.delivery.map_or_else(String::new, |d| num(d.pct())));
            row
        })
        .collect()
}

/// Each row of `r`, one at a time: its points', then its probes' (a table of many thousand
/// points is written in two passes over them, never held whole).
fn each_row(r: &Results, f: &mut impl FnMut(Row)) {
    let by = match &r.manifest.setup {
        Setup::Qos(q) => q.by,
        _ => SearchBy::Rate,
    };
    for p in &r.points {
        point_rows(p).into_iter().for_each(&mut *f);
    }
    for p in &r.probes {
        qos_row(p, by).into_iter().for_each(&mut *f);
        act_rows(p).into_iter().for_each(&mut *f);
    }
}

/// Every name of a row's lists once, in order of first appearance.
#[derive(Default)]
struct Columns {
    names: Vec<String>,
    seen: std::collections::HashSet<String>,
}

impl Columns {
    fn add(&mut self, list: &[(String, String)]) {
        for (n, _) in list {
            if !self.seen.contains(n) {
                self.seen.insert(n.clone());
                self.names.push(n.clone());
            }
        }
    }

    fn contains(&self, n: &str) -> bool {
        self.seen.contains(n)
    }
}

/// The tidy CSV of one results directory: one header line, then a row per point, probe or
/// slice (see the module docs).
pub fn csv(r: &Results) -> String {
    csv_of(&[r])
}

/// The tidy CSV of several results directories as ONE table: their rows one after the other,
/// the first column (`results`) naming the directory each row is from, the columns the union
/// of theirs.
pub fn csv_of(all: &[&Results]) -> String {
    // First pass: the columns (every row's, in order of first appearance).
    let (mut ids, mut fields, mut figures) = (Columns::default(), Columns::default(), Columns::default());
    let mut any = false;
    for r in all {
        each_row(r, &mut |row| {
            if !any {
                ids.add(&[("results".to_string(), String::new())]);
                any = true;
            }
            ids.add(&row.ids);
            fields.add(&row.fields);
            figures.add(&row.figures);
        });
    }
    // No row yet (a plan with no finished point): the columns every row has, so the file is
    // still a table with a header.
    if !any {
        ids.add(&ID_COLUMNS.iter().map(|c| (c.to_string(), String::new())).collect::<Vec<_>>());
    }
    // A field named like another column keeps its value under `field_NAME`.
    let renamed = |k: &str| -> String {
        if ids.contains(k) || figures.contains(k) || ID_COLUMNS.contains(&k) {
            format!("field_{k}")
        } else {
            k.to_string()
        }
    };
    let mut field_columns = Columns::default();
    for k in &fields.names {
        field_columns.add(&[(renamed(k), String::new())]);
    }
    let mut out = ids
        .names
        .iter()
        .chain(&field_columns.names)
        .chain(&figures.names)
        .map(|c| csv_field(c))
        .collect::<Vec<_>>()
        .join(",");
    out.push('\n');
    // Second pass: each row as it is made again.
    for r in all {
        let dir = r.dir.display().to_string();
        each_row(r, &mut |mut row| {
            row.ids.insert(0, ("results".into(), dir.clone()));
            for (k, _) in &mut row.fields {
                *k = renamed(k);
            }
            let cell = |list: &[(String, String)], name: &str| {
                // The last value of a key given twice, as the plan's later key wins.
                list.iter().rev().find(|(k, _)| k == name).map_or_else(String::new, |(_, v)| csv_field(v))
            };
            let mut first = true;
            for (list, columns) in [(&row.ids, &ids), (&row.fields, &field_columns), (&row.figures, &figures)] {
                for c in &columns.names {
                    if !first {
                        out.push(',');
                    }
                    first = false;
                    out.push_str(&cell(list, c));
                }
            }
            out.push('\n');
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::point;
    use crate::views::tests::{act_results, qos_results, QOS_LADDER};
    use std::path::PathBuf;

    /// The CSV as a header and rows of cells by column name (no field here holds a comma).
    fn table(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
        let mut lines = text.lines();
        let header: Vec<String> = lines.next().unwrap().split(',').map(str::to_string).collect();
        let rows: Vec<Vec<String>> = lines.map(|l| l.split(',').map(str::to_string).collect()).collect();
        (header, rows)
    }

    fn get<'a>(header: &[String], row: &'a [String], col: &str) -> &'a str {
        let i = header.iter().position(|h| h == col).unwrap_or_else(|| panic!("no column {col}: {header:?}"));
        &row[i]
    }

    fn plan(points: Vec<PointResult>) -> Results {
        crate::test_support::results("plan", points)
    }

    #[test]
    fn a_row_per_point_with_the_union_of_fields_and_every_figure_in_a_named_unit() {
        let mut a = point("qd=1", "", &[("qd", "1")], &[("/dev/a", 2.0), ("/dev/b", 3.0)]);
        a.result.write = crate::test_support::stats(1.0);
        // fio's JSON may give no p50 of lat.
        a.result.total.lat_ns.percentiles.remove("p50");
        let b = point("bs=4k", "s2", &[("bs", "4k"), ("iops", "x")], &[("/dev/a", 4.0)]);
        let text = csv(&plan(vec![a.clone(), b]));
        assert!(!text.contains("\n\n") && text.ends_with('\n'), "no blank line: {text}");
        let (h, rows) = table(&text);
        assert_eq!(rows.len(), 4, "a row per point, and per drive of the point of two drives");
        assert!(rows.iter().all(|r| r.len() == h.len()), "every row has every column");
        let at = |r: usize, c: &str| get(&h, &rows[r], c).to_string();
        // Each drive of a point of several: its own figures, as the point saved them.
        for (r, t) in [(1, &a.result.per_target[0]), (2, &a.result.per_target[1])] {
            assert_eq!(
                (at(r, "record"), at(r, "index"), at(r, "target")),
                ("target".into(), a.point.index.to_string(), t.path.clone())
            );
            assert_eq!(at(r, "iops"), t.total.iops.to_string(), "{}'s own IOPS, not the sum", t.path);
            assert_eq!(at(r, "lat_p99_ns"), t.total.lat_ns.get(Pct::P99).unwrap().to_string());
            assert_eq!(at(r, "cpu_pct"), "", "the run's CPU is the point row's");
        }
        assert_eq!(
            (at(3, "record"), at(3, "target"), at(3, "target_name")),
            ("point".into(), "/dev/a".into(), "/dev/a".into())
        );
        assert_eq!((at(0, "qd"), at(3, "qd")), ("1".into(), "".into()), "empty where a point lacks a field");
        assert_eq!(at(3, "bs"), "4k");
        assert_eq!(at(3, "field_iops"), "x", "a field named like a figure is renamed");
        assert_eq!(at(0, "iops"), (5.0 * 256.0).to_string());
        assert_eq!(at(0, "targets"), "/dev/a;/dev/b");
        assert_eq!(at(0, "target_count"), "2");
        assert_eq!(at(0, "lat_p99_ns"), "5000");
        assert_eq!(at(0, "lat_p50_ns"), "", "a percentile the result lacks is empty, never 0");
        assert_eq!(at(0, "write_mb_per_s"), "1", "a direction with I/O gets its columns");
        assert_eq!(at(3, "write_mb_per_s"), "", "and is empty where a point did none");
        assert_eq!(at(0, "cpu_pct"), "15");
        assert_eq!((at(0, "errored"), at(0, "first_error")), ("false".into(), "".into()));
        let order: Vec<usize> = ["record", "qd", "bs", "spec_qd", "iops", "read_iops", "cpu_pct"]
            .iter()
            .map(|c| h.iter().position(|x| x == c).unwrap())
            .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "what, fields, then figures: {h:?}");
    }

    #[test]
    fn prep_says_each_devices_written_state_and_errors_their_count_and_the_first() {
        use drivelab_lab::written::{DevicePrep, DeviceState};
        let mut p = point("r", "", &[], &[("/dev/sdb", 1.0)]);
        let prep = |device: &str, state, unwritten_read| DevicePrep {
            device: device.into(),
            state,
            by: None,
            at_unix_ms: None,
            no_prep: false,
            unwritten_read,
        };
        p.prep = vec![prep("/dev/sdb", DeviceState::Unwritten, true), prep("/dev/sdc", DeviceState::Filled, false)];
        p.result.errors = vec![drivelab_engine::result::ErrorStat {
            target: "/dev/sdb".into(),
            op: "read".into(),
            errno: 5,
            error: "Input/output error".into(),
            count: 3,
            first_offset_bytes: 0,
            continued: false,
        }];
        p.result.stopped_by_error = true;
        let text = csv(&plan(vec![p]));
        let (h, rows) = table(&text);
        assert_eq!(get(&h, &rows[0], "prep"), "/dev/sdb unwritten unwritten_read;/dev/sdc filled");
        assert_eq!(get(&h, &rows[0], "error_count"), "3");
        assert_eq!(get(&h, &rows[0], "errored"), "true");
        assert_eq!(get(&h, &rows[0], "first_error"), "3 read error(s) on /dev/sdb: Input/output error");
    }

    #[test]
    fn several_directories_are_one_table_whose_rows_name_their_directory() {
        let mut a = plan(vec![point("qd=1", "", &[("qd", "1")], &[("/dev/a", 1.0)])]);
        a.dir = PathBuf::from("results/a");
        let mut b = plan(vec![point("bs=4k", "", &[("bs", "4k")], &[("/dev/b", 2.0)]); 2]);
        b.dir = PathBuf::from("results/b");
        let (h, rows) = table(&csv_of(&[&a, &b]));
        assert_eq!(h[0], "results");
        let dirs: Vec<&str> = rows.iter().map(|r| get(&h, r, "results")).collect();
        assert_eq!(dirs, ["results/a", "results/b", "results/b"]);
        assert_eq!((get(&h, &rows[0], "qd"), get(&h, &rows[0], "bs")), ("1", ""), "the union of the fields");
        assert_eq!(get(&h, &rows[2], "bs"), "4k");
        // A directory with no finished point: a header, no row.
        assert_eq!(csv(&plan(Vec::new())), ID_COLUMNS.join(",") + "\n");
    }

    #[test]
    fn qos_gives_a_row_per_probe_and_act_a_row_per_slice_of_each_load() {
        let q = qos_results(SearchBy::Rate, &QOS_LADDER);
        let (h, rows) = table(&csv(&q));
        assert_eq!(rows.len(), q.probes.len());
        for (row, p) in rows.iter().zip(&q.probes) {
            assert_eq!(get(&h, row, "load_iops"), num(p.value));
            assert_eq!(get(&h, row, "pass"), p.pass.to_string());
            assert_eq!(get(&h, row, "iops"), num(p.qos().unwrap().result.total.iops));
        }
        let a = act_results();
        let slices: usize = a.probes.iter().map(|p| p.act().map_or(0, |x| x.slices.len())).sum();
        let (h, rows) = table(&csv(&a));
        assert_eq!(rows.len(), slices);
        let first = a.probes.iter().find_map(|p| p.act().filter(|x| !x.slices.is_empty()).map(|x| (p, x))).unwrap();
        assert_eq!(get(&h, &rows[0], "load_n"), num(first.0.value));
        assert_eq!(get(&h, &rows[0], "over_1ms_pct"), num(first.1.slices[0].over_pct[0]));
        assert_eq!(get(&h, &rows[0], "over_64ms_pct"), num(first.1.slices[0].over_pct[6]));
    }
}
