//! Results of the same suite or plan from different devices or runs, side by side, with the
//! change against the first (the baseline) in percent, and the points present in one run but
//! missing in another called out (`drivelab compare A B [C...]`).
//!
//! Why one file of ~700 lines: matching points across runs (by fields, else by label), building
//! each table per run and putting them side by side are one pipeline whose steps share its
//! private types; the exporters, the figures of single runs (`compare_figures.rs`) and the runs
//! table (`compare_runs.rs`) live beside it.
//!
//! # How runs are compared
//!
//! - Every run must be of the same kind (`run.json`'s `kind`: "plan" or "suite:NAME"); a run
//!   (one point) and a plan are both points and compare with each other.
//! - The tables are the first run's: [`suite_tables::specs`] of its kind and points. Each
//!   table is built from each run's points, then the runs' tables are put side by side.
//! - The suite's derived tables ([`suite_tables::derived`]: Iometer's drop from 100% to 95%
//!   sequential, JBOD's scaling efficiency and where scaling stops) are computed from each
//!   run's own points, matched by title and put side by side the same way, Δ rows included.
//! - Points are matched by their step and fields (as a set of (key, value) pairs), never by
//!   target: the same plan on another device has other targets, and telling the devices apart
//!   is the point of comparing them. Where the number of targets a point ran on at once varies
//!   within a run (JBOD's 1..N drives), that number is part of the match too.
//! - Points whose fields differ but whose labels are the same are matched by label
//!   ([`Matching::Labels`]): fio's results (a job's options) beside drivelab's run of the same
//!   job file (drivelab's fields), both labelled with the job's name. A plan or run comparison
//!   is matched by label when that pairs more of the baseline's points with another run's than
//!   the fields do; its tables then have a column per label and a row per run, and its
//!   comparison says so. Suites are always matched by fields.
//!   How long a point ran (`time`, fio's `runtime`, `ramp`) is not part of what it is: a 10 s
//!   run and a 60 s run of the same workload are compared ([`DURATION_KEYS`]).
//! - Runs are named by their labels (`--label NAME`, else A, B, C...: [`crate::compare_runs`]),
//!   and every form lists them first with their directories, targets and device models.
//! - Targets become runs: in a table whose rows are keyed by target, a run's row is labelled
//!   by the run's label ("<run>", or "<run>: <target>" when the run has several targets), and
//!   the n-th target of a run is compared with the n-th target of the baseline (targets in the
//!   order they first appear in the run's points).
//!
//! # Layout
//!
//! Columns are the union of the runs' columns (in order of first appearance, baseline first).
//! For every row of the tables (the union of the runs' row labels):
//!
//! ```text
//! Throughput, bs=4k (MB/s)
//! qd                    1       2
//! read [A]            100     200
//! read [B]            110     150
//! read Δ B vs A    +10.0%  -25.0%
//! ```
//!
//! one row per run, "R [run]", then one row per run after the first, "R Δ run vs baseline",
//! holding (value / baseline − 1) × 100. Rows keyed by target read "A", "B", "Δ B vs A" (with
//! several targets "A: /dev/sda", "B: /dev/sdc", "Δ B vs A": the Δ row under the pair it
//! compares). A delta is "—" where either side is missing (or the baseline is 0 and the value
//! is not).
//!
//! Every form is the report model [`Comparison::report`] builds ([`crate::compare_model`]),
//! written by the one set of exporters: the runs first (label, directory, targets, models),
//! a section per table, each run's latency, and the points that are in one run but not in
//! another (per pair with the baseline). A table's CSV block has the columns `table`, `metric`,
//! `unit`, the row key, `run`, `measure` = `value` | `delta_pct`, `vs` = the baseline for a
//! delta, then a column per value of the column axis (`qd=1`...); numbers at full precision,
//! deltas in percent without the sign. Blocks are separated by an empty line. The JSON form is
//! the [`Comparison`] itself.
//!
//! A run's value from a point whose I/O failed, and every Δ from such a value, is marked with
//! the report's own marking ([`crate::tables::mark_if`] and its footnote naming the run, the
//! point and the error; CSV a last `errored` column; JSON [`SideBySide::errored`]).

use std::collections::HashMap;

use drivelab_engine::Error;
use drivelab_lab::results::{Kind, Manifest, PointResult};

use serde::Serialize;

use crate::compare_runs::RunInfo;
use crate::grid;
use crate::model::Grid;
use crate::suite_tables;
use crate::tables::{self, build, point_name, ErroredCell, Key, Table};

/// One results directory.
pub struct Run {
    /// How the run is named in rows and columns (`--label`, else A, B, C...).
    pub label: String,
    /// The directory as given on the command line.
    pub dir: String,
    pub manifest: Manifest,
    pub points: Vec<PointResult>,
}

/// How the points of different runs were paired (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Matching {
    /// By step and fields.
    Fields,
    /// By label (without repeat number and target), the fields differing.
    Labels,
}

/// The key a point's label stands under when points are matched by label.
pub const LABEL_KEY: &str = "point";

/// The runs compared, as numbers: see the module docs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    /// The runs' kind ("plan", "suite:quick", ...).
    pub kind: Kind,
    /// How their points were paired.
    pub matched_by: Matching,
    /// The runs' labels; the first is the baseline.
    pub runs: Vec<String>,
    /// Each run's label, directory, targets and their models, in the same order.
    pub run_info: Vec<RunInfo>,
    pub tables: Vec<SideBySide>,
    pub missing: Vec<Missing>,
    /// Each run's latency of every point, per direction: p50, p99, p99.9 and max in ns
    /// ([`crate::compare_model::latency_grid`]).
    pub latency: Grid,
    /// Each run's settings (run, start, tool, command line, host, targets), a row per run and
    /// setting ([`crate::compare_model::settings_grid`]).
    pub settings: Grid,
    /// `--latency-split`: each point's stages against the baseline's, where both split
    /// ([`crate::compare_split`]).
    #[serde(skip_serializing_if = "crate::compare_split::SplitComparison::is_empty")]
    pub latency_split: crate::compare_split::SplitComparison,
}

/// One table of every run, side by side.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SideBySide {
    pub title: String,
    pub unit: String,
    pub row_header: String,
    /// What the columns are keyed by (as in [`Table::col_header`]).
    pub col_header: String,
    pub cols: Vec<String>,
    pub rows: Vec<CompareRow>,
    /// What the figures are, as the runs' own table says ([`Table::note`]).
    pub note: Option<String>,
    /// Cells (indices into `rows` and `cols`) from a point whose I/O failed, each error naming
    /// the run and the point: a run's value, and a Δ where either side is errored. Marked in
    /// every format as `report` marks them ([`Table::errored`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errored: Vec<ErroredCell>,
    /// The runs' labels, the first the baseline (as [`Comparison::runs`]): the CSV block names
    /// a row's run and a Δ's baseline by them.
    #[serde(skip)]
    pub runs: Vec<String>,
}

/// A run's values of one row, or (`delta`) its change against the baseline in percent.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CompareRow {
    pub label: String,
    /// The row key as this run names it (the run for a row keyed by target): CSV's row column.
    pub row: String,
    /// Index of the run in [`Comparison::runs`].
    pub run: usize,
    pub delta: bool,
    pub cells: Vec<Option<f64>>,
}

/// A point of run `present` that run `absent` lacks (indices into [`Comparison::runs`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Missing {
    /// The point's label without its target (and repeat number).
    pub point: String,
    pub present: usize,
    pub absent: usize,
}

/// Compare `runs` (the first is the baseline) and render the comparison: JSON is the
/// [`Comparison`]; text, Markdown and CSV are the exporters' forms of its report model
/// ([`Comparison::report`]).
pub fn render(runs: &[Run], format: crate::Format) -> Result<String, Error> {
    let cmp = compare(runs)?;
    match format {
        crate::Format::Json => Ok(cmp.json()),
        crate::Format::Html | crate::Format::Png => Err(Error::invalid("compare writes HTML with -o FILE")),
        f => Ok(crate::export::export_text(f, &cmp.report())?),
    }
}

/// What a point is across runs: its step, its workload (or, matched by label, its label) and,
/// where it matters, on how many targets at once it ran.
type PointKey = (String, Vec<(String, String)>, Option<usize>);

/// Field keys that say how long a point ran, not what it ran.
pub const DURATION_KEYS: [&str; 3] = ["time", "runtime", "ramp"];

/// A point's fields without those that say how long it ran (`time`, fio's `runtime`, `ramp`,
/// fio's `ramp_time`: whatever spells [`DURATION_KEYS`]' fields).
fn workload_fields(fields: &[(String, String)]) -> Vec<(String, String)> {
    let duration = |k: &str| {
        DURATION_KEYS.contains(&k)
            || drivelab_engine::options::Field::from_key(k)
                .is_some_and(|f| DURATION_KEYS.contains(&f.canonical().name()))
    };
    fields.iter().filter(|(k, _)| !duration(k)).cloned().collect()
}

/// Points pair by their typed workload, however each run spelt it (`qd = 8` and `iodepth = 8`,
/// `bs = 4k` and `bs = 4096`, a default given or left out: one spec): the spec as
/// `options::describe` writes it, without how long the point ran. Matched by label, by the
/// label alone.
fn point_key(p: &PointResult, with_count: bool, by: Matching) -> PointKey {
    let workload = match by {
        Matching::Labels => vec![(LABEL_KEY.to_string(), point_name(p))],
        Matching::Fields => drivelab_engine::options::describe(&p.point.spec)
            .into_iter()
            .filter(|(k, _)| !DURATION_KEYS.contains(k))
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    };
    let step = if by == Matching::Labels { String::new() } else { p.point.step.clone() };
    (step, workload, with_count.then_some(p.point.targets.len()))
}

/// Stands for the run's `i`-th target in row and column labels until they are shown.
fn placeholder(i: usize) -> String {
    format!("\u{1}{i}\u{2}")
}

/// `label` with every placeholder replaced by `name(i)`.
fn show(label: &str, name: impl Fn(usize) -> String) -> String {
    let mut out = String::new();
    let mut rest = label;
    while let Some(start) = rest.find('\u{1}') {
        let Some(len) = rest[start..].find('\u{2}') else { break };
        out.push_str(&rest[..start]);
        match rest[start + 1..start + len].parse::<usize>() {
            Ok(i) => out.push_str(&name(i)),
            Err(_) => out.push_str(&rest[start..=start + len]),
        }
        rest = &rest[start + len + 1..];
    }
    out.push_str(rest);
    out
}

fn has_placeholder(label: &str) -> bool {
    label.contains('\u{1}')
}

/// The row header: the key's name, with "run" for the target.
fn key_name(k: &Key) -> String {
    match k {
        Key::Target => "run".into(),
        Key::Join(keys) => keys.iter().map(key_name).collect::<Vec<_>>().join(" "),
        k => k.name(),
    }
}

fn push_new(order: &mut Vec<String>, v: &str) {
    if !order.iter().any(|o| o == v) {
        order.push(v.to_string());
    }
}

/// (value / baseline − 1) × 100.
fn delta(base: Option<f64>, v: Option<f64>) -> Option<f64> {
    match (base, v) {
        (Some(b), Some(v)) if b != 0.0 => Some((v / b - 1.0) * 100.0),
        (Some(b), Some(v)) if b == 0.0 && v == 0.0 => Some(0.0),
        _ => None,
    }
}

/// Results of kinds `a` and `b` compare: the same kind, or a run (a plan of one point) and a
/// plan.
fn comparable(a: Kind, b: Kind) -> bool {
    let points = |k: Kind| matches!(k, Kind::Run | Kind::Plan);
    a == b || (points(a) && points(b))
}

/// How to pair the runs' points: by label where that pairs more of the baseline's points with
/// some other run's than their fields do (never for suites, whose tables are keyed by fields).
fn matching(runs: &[Run], count_varies: bool) -> Matching {
    let Some((first, others)) = runs.split_first() else { return Matching::Fields };
    if first.manifest.kind.suite().is_some() {
        return Matching::Fields;
    }
    for r in others {
        let paired = |same: &dyn Fn(&PointResult, &PointResult) -> bool| {
            first.points.iter().filter(|p| r.points.iter().any(|q| same(p, q))).count()
        };
        let by_fields = paired(&|p, q| {
            point_key(p, count_varies, Matching::Fields) == point_key(q, count_varies, Matching::Fields)
        });
        let by_label = paired(&|p, q| point_name(p) == point_name(q));
        if by_label > by_fields {
            return Matching::Labels;
        }
    }
    Matching::Fields
}

/// The comparison `render` renders: see the module docs.
pub fn compare(runs: &[Run]) -> Result<Comparison, Error> {
    let Some(first) = runs.first() else {
        return Err(Error::invalid("compare needs results directories: give two or more"));
    };
    for r in &runs[1..] {
        if !comparable(r.manifest.kind, first.manifest.kind) {
            return Err(Error::invalid(format!(
                "{} is {} but {} is {}: compare results of the same kind (run, plan, the same suite, qos or act)",
                first.label, first.manifest.kind, r.label, r.manifest.kind
            )));
        }
    }
    let names: Vec<String> = runs.iter().map(|r| r.label.clone()).collect();
    let run_info: Vec<RunInfo> = runs.iter().map(|r| RunInfo::new(&r.label, &r.dir, &r.manifest)).collect();

    // The number of targets is part of a point when it varies within a run (JBOD's 1..N
    // drives at once).
    let count_varies =
        runs.iter().any(|r| r.points.windows(2).any(|w| w[0].point.targets.len() != w[1].point.targets.len()));
    // Matched by label, each point is its label alone (one field, no step), for tables and
    // missing points alike.
    let matched_by = matching(runs, count_varies);
    let points: Vec<Vec<PointResult>> = runs
        .iter()
        .map(|r| {
            // Points of several MPI ranks: their merged row first, paired with a one-host run's target.
            let mut pts = crate::all_ranks::with_all_ranks(&r.points);
            if matched_by == Matching::Labels {
                for p in &mut pts {
                    p.point.fields = vec![(LABEL_KEY.to_string(), point_name(p))];
                    p.point.step = String::new();
                }
            }
            pts
        })
        .collect();
    // Paired by their typed workload, a point is shown in the baseline's spelling
    // (`iodepth = 8` beside the baseline's `qd = 8` is one column, `qd 8`).
    let points: Vec<Vec<PointResult>> = if matched_by == Matching::Fields {
        let base = points[0].clone();
        points
            .into_iter()
            .map(|mut pts| {
                for p in &mut pts {
                    let key = point_key(p, count_varies, Matching::Fields);
                    if let Some(b) = base.iter().find(|b| point_key(b, count_varies, Matching::Fields) == key) {
                        p.point.fields = b.point.fields.clone();
                    }
                }
                pts
            })
            .collect()
    } else {
        points
    };

    // Each run's targets, in order of first appearance, and its points with every target
    // path replaced by the placeholder of its position.
    let mut targets: Vec<Vec<String>> = Vec::new();
    let mut renamed: Vec<Vec<PointResult>> = Vec::new();
    for run_points in &points {
        let mut ts: Vec<String> = Vec::new();
        let mut pts = run_points.clone();
        for p in &mut pts {
            // Tables group and label points by their fields: how long each ran is left out.
            p.point.fields = workload_fields(&p.point.fields);
            // A target is shown by its name where the run gave it one (`--label TARGET=NAME`).
            for t in &mut p.result.per_target {
                let shown = drivelab_lab::names::shown(&p.point.names, &t.path).to_string();
                push_new(&mut ts, &shown);
                let i = ts.iter().position(|x| *x == shown).expect("just pushed");
                t.path = placeholder(i);
            }
        }
        targets.push(ts);
        renamed.push(pts);
    }
    let ctx = Names { runs: &names, targets: &targets };
    let mut tables = Vec::new();
    // The tables are the baseline's; matched by label, of every run's points, so a point the
    // baseline lacks still gets its column.
    let shape: Vec<PointResult> = match matched_by {
        Matching::Fields => renamed[0].clone(),
        Matching::Labels => renamed.iter().flatten().cloned().collect(),
    };
    for spec in suite_tables::specs(first.manifest.kind, &shape) {
        let built: Vec<Table> = renamed.iter().map(|pts| build(&spec, pts)).collect();
        if built.iter().all(|t| t.rows.is_empty()) {
            continue;
        }
        tables.push(side_by_side(&ctx, &built, &spec.title, key_name(&spec.rows)));
    }
    // The suite's derived tables (Iometer's drop to 95% sequential, JBOD's scaling), each run's
    // computed from its own points and matched by title; a run without one gets an empty one.
    let derived: Vec<Vec<Table>> = renamed.iter().map(|pts| suite_tables::derived(first.manifest.kind, pts)).collect();
    let mut titles: Vec<String> = Vec::new();
    derived.iter().flatten().for_each(|t| push_new(&mut titles, &t.title));
    for title in &titles {
        let built: Vec<Table> = derived
            .iter()
            .map(|ts| {
                ts.iter().find(|t| t.title == *title).cloned().unwrap_or_else(|| Table {
                    title: title.clone(),
                    unit: String::new(),
                    row_header: String::new(),
                    col_header: String::new(),
                    cols: Vec::new(),
                    rows: Vec::new(),
                    note: None,
                    errored: Vec::new(),
                    unsteady: Vec::new(),
                })
            })
            .collect();
        let header = built.iter().find(|t| !t.rows.is_empty()).map_or_else(String::new, |t| t.row_header.clone());
        let header = if header == "target" { "run".to_string() } else { header };
        tables.push(side_by_side(&ctx, &built, title, header));
    }

    // Points of one run that another lacks, per pair with the baseline.
    let keyed: Vec<Vec<(PointKey, String)>> = points
        .iter()
        .map(|pts| {
            let mut v: Vec<(PointKey, String)> = Vec::new();
            for p in pts {
                let k = point_key(p, count_varies, matched_by);
                if !v.iter().any(|(x, _)| *x == k) {
                    v.push((k, point_name(p)));
                }
            }
            v
        })
        .collect();
    let mut missing = Vec::new();
    for run in 1..runs.len() {
        for (present, absent) in [(0, run), (run, 0)] {
            for (k, name) in &keyed[present] {
                if !keyed[absent].iter().any(|(x, _)| x == k) {
                    missing.push(Missing { point: name.clone(), present, absent });
                }
            }
        }
    }

    let labelled: Vec<(&str, &[PointResult])> = runs.iter().map(|r| (r.label.as_str(), r.points.as_slice())).collect();
    let latency = crate::compare_model::points_latency(&labelled);
    let manifests: Vec<(&str, &Manifest)> = runs.iter().map(|r| (r.label.as_str(), &r.manifest)).collect();
    let settings = crate::compare_model::settings_grid(&manifests);
    let named: Vec<(&str, Vec<(String, &drivelab_engine::result::RunResult)>)> = runs
        .iter()
        .map(|r| (r.label.as_str(), r.points.iter().map(|p| (point_name(p), &p.result)).collect()))
        .collect();
    let latency_split = crate::compare_split::compare(&named);
    Ok(Comparison {
        kind: first.manifest.kind,
        matched_by,
        runs: names,
        run_info,
        tables,
        missing,
        latency,
        settings,
        latency_split,
    })
}

/// How runs and their targets are named in rows and columns.
struct Names<'a> {
    runs: &'a [String],
    /// Each run's targets, in order of first appearance.
    targets: &'a [Vec<String>],
}

impl Names<'_> {
    /// How run `r` names its `i`-th target in a row.
    fn run_target(&self, r: usize, i: usize) -> String {
        if self.targets[r].len() > 1 {
            format!("{}: {}", self.runs[r], self.targets[r].get(i).map_or("?", String::as_str))
        } else {
            self.runs[r].clone()
        }
    }

    /// A target in a column: the paths the runs have at that position.
    fn col_target(&self, i: usize) -> String {
        let mut paths: Vec<String> = Vec::new();
        for ts in self.targets {
            if let Some(t) = ts.get(i) {
                push_new(&mut paths, t);
            }
        }
        paths.join(" / ")
    }
}

/// One table of every run (`built[run]`, empty where a run has none) side by side: the union
/// of rows and columns, a row per run and a Δ row per run after the baseline (module docs).
/// `title` is used when the runs' titles differ (e.g. "mean of 3 runs" in one of them).
fn side_by_side(names: &Names, built: &[Table], title: &str, row_header: String) -> SideBySide {
    let mut row_keys: Vec<String> = Vec::new();
    let mut col_keys: Vec<String> = Vec::new();
    for t in built {
        t.rows.iter().for_each(|(r, _)| push_new(&mut row_keys, r));
        t.cols.iter().for_each(|c| push_new(&mut col_keys, c));
    }
    let cell_maps: Vec<HashMap<(&str, &str), f64>> = built
        .iter()
        .map(|t| {
            let mut m = HashMap::new();
            for (r, vals) in &t.rows {
                for (c, v) in t.cols.iter().zip(vals) {
                    if let Some(v) = v {
                        m.insert((r.as_str(), c.as_str()), *v);
                    }
                }
            }
            m
        })
        .collect();
    let values = |run: usize, r: &str| -> Vec<Option<f64>> {
        col_keys.iter().map(|c| cell_maps[run].get(&(r, c.as_str())).copied()).collect()
    };
    // Each run's errored cells by (row, column) key, the error naming the run.
    let errors: Vec<HashMap<(&str, &str), String>> = built
        .iter()
        .enumerate()
        .map(|(run, t)| {
            t.errored
                .iter()
                .filter_map(|e| {
                    let key = (t.rows.get(e.row)?.0.as_str(), t.cols.get(e.col)?.as_str());
                    Some((key, format!("{}: {}", names.runs[run], show(&e.error, |i| names.run_target(run, i)))))
                })
                .collect()
        })
        .collect();
    let mut errored: Vec<ErroredCell> = Vec::new();
    // Marks the cells of the row about to be pushed where `runs` (in order) have an error.
    let mut mark = |row: usize, r: &str, runs: &[usize]| {
        for (col, c) in col_keys.iter().enumerate() {
            if let Some(e) = runs.iter().find_map(|&run| errors[run].get(&(r, c.as_str()))) {
                errored.push(ErroredCell { row, col, error: e.clone() });
            }
        }
    };

    let mut rows = Vec::new();
    for r in &row_keys {
        let label = |run: usize| {
            if has_placeholder(r) {
                show(r, |i| names.run_target(run, i))
            } else {
                format!("{r} [{}]", names.runs[run])
            }
        };
        // The row as a run names it: the row key, or the run for a target.
        let row = |run: usize| if has_placeholder(r) { show(r, |i| names.run_target(run, i)) } else { r.clone() };
        for run in 0..built.len() {
            mark(rows.len(), r, &[run]);
            rows.push(CompareRow { label: label(run), row: row(run), run, delta: false, cells: values(run, r) });
        }
        let base = values(0, r);
        for run in 1..built.len() {
            // Short: the runs' labels only; with several targets the Δ row sits under the pair
            // it compares.
            let delta_label = if has_placeholder(r) {
                format!("Δ {} vs {}", names.runs[run], names.runs[0])
            } else {
                format!("{r} Δ {} vs {}", names.runs[run], names.runs[0])
            };
            let cells = base.iter().zip(values(run, r)).map(|(b, v)| delta(*b, v)).collect();
            mark(rows.len(), r, &[run, 0]);
            rows.push(CompareRow { label: delta_label, row: row(run), run, delta: true, cells });
        }
    }
    let titles: Vec<&str> = built.iter().filter(|t| !t.rows.is_empty()).map(|t| t.title.as_str()).collect();
    let title = match titles.first() {
        Some(first) if titles.iter().all(|t| t == first) => first.to_string(),
        _ => title.to_string(),
    };
    let some = built.iter().find(|t| !t.rows.is_empty());
    SideBySide {
        title,
        unit: some.map_or_else(String::new, |t| t.unit.clone()),
        col_header: some.map_or_else(String::new, |t| t.col_header.clone()),
        row_header,
        cols: col_keys.iter().map(|c| show(c, |i| names.col_target(i))).collect(),
        rows,
        note: built.iter().find_map(|t| t.note.clone()),
        errored,
        runs: names.runs.to_vec(),
    }
}

/// "+12.3%", "-4.0%".
fn fmt_delta(d: f64) -> String {
    let d = if d.abs() < 0.05 { 0.0 } else { d };
    format!("{d:+.1}%")
}

impl SideBySide {
    /// The title with the unit in parentheses.
    pub fn heading(&self) -> String {
        grid::heading(&self.title, &self.unit)
    }

    /// Is the cell at (`row`, `col`) from an errored point (a value, or a Δ with one)?
    pub fn is_errored(&self, row: usize, col: usize) -> bool {
        tables::is_errored(&self.errored, row, col)
    }

    /// The note under the table: the runs' own, then the errored cells' footnote.
    fn notes(&self) -> Option<String> {
        tables::notes(self.note.as_deref(), &self.errored)
    }

    /// The header's first cell: the row axis and the column axis, as [`Table::axes`].
    pub fn axes(&self) -> String {
        self.as_table().axes()
    }

    /// The table's shape as a plain [`Table`] (no rows): its axes, metric and column names.
    fn as_table(&self) -> Table {
        Table {
            title: self.title.clone(),
            unit: self.unit.clone(),
            row_header: self.row_header.clone(),
            col_header: self.col_header.clone(),
            cols: self.cols.clone(),
            rows: Vec::new(),
            note: None,
            errored: Vec::new(),
            unsteady: Vec::new(),
        }
    }

    /// A value for people: a Δ with its sign and "%", a run's value in the table's unit.
    pub fn show(&self, delta: bool, v: f64) -> String {
        if delta {
            fmt_delta(v)
        } else {
            grid::human(v, &self.unit)
        }
    }

    /// Header and rows as display strings (errored cells marked as [`Table::show_cell`] does).
    fn grid(&self) -> Vec<Vec<String>> {
        let mut grid = vec![std::iter::once(self.axes()).chain(self.cols.iter().cloned()).collect()];
        for (ri, row) in self.rows.iter().enumerate() {
            let cells = row.cells.iter().enumerate().map(|(ci, v)| match v {
                None => "—".to_string(),
                Some(v) => tables::mark_if(self.show(row.delta, *v), self.is_errored(ri, ci)),
            });
            grid.push(std::iter::once(row.label.clone()).chain(cells).collect());
        }
        grid
    }

    /// For a terminal: aligned like [`Table::text`].
    pub fn text(&self) -> String {
        grid::text_with_note(grid::text(&self.heading(), &self.grid()), self.notes().as_deref())
    }

    /// A GitHub Markdown table preceded by the heading in bold, like [`Table::markdown`].
    pub fn markdown(&self) -> String {
        grid::markdown_with_note(grid::markdown(&self.heading(), &self.grid()), self.notes().as_deref())
    }

    /// [`SideBySide::markdown`] without the bold heading: under a Markdown heading that says it.
    pub fn markdown_untitled(&self) -> String {
        grid::markdown_with_note(grid::markdown_untitled(&self.grid(), &[]), self.notes().as_deref())
    }

    /// One CSV block: see the module docs.
    pub fn csv(&self) -> String {
        let runs = &self.runs;
        let shape = self.as_table();
        let mut out = String::new();
        let mut header: Vec<String> = ["table", "metric", "unit", &self.row_header, "run", "measure", "vs"]
            .into_iter()
            .map(String::from)
            .chain(self.cols.iter().map(|c| shape.col_csv(c)))
            .map(|s| grid::csv_field(&s))
            .collect();
        // As in `report`'s CSV: the numbers stay, a last column names a row's errored cells.
        let marked = !self.errored.is_empty();
        if marked {
            header.push("errored".into());
        }
        out.push_str(&header.join(","));
        out.push('\n');
        for (ri, row) in self.rows.iter().enumerate() {
            let (measure, vs) = if row.delta { ("delta_pct", runs[0].as_str()) } else { ("value", "") };
            let metric = shape.metric();
            let mut line: Vec<String> = [&self.title, &metric, &self.unit, &row.row, &runs[row.run]]
                .into_iter()
                .map(|s| grid::csv_field(s))
                .collect();
            line.push(measure.into());
            line.push(grid::csv_field(vs));
            line.extend(row.cells.iter().map(|v| v.map_or_else(String::new, |v| v.to_string())));
            if marked {
                line.push(tables::errored_csv_field(&self.errored, &self.cols, ri));
            }
            out.push_str(&line.join(","));
            out.push('\n');
        }
        out
    }
}

impl Comparison {
    /// "Comparing plan results: A (baseline) with B, C": the report's title.
    pub(crate) fn intro(&self) -> String {
        let others = self.runs[1..].join(", ");
        let mut s = format!("Comparing {} results: {} (baseline)", self.kind, self.runs[0]);
        if !others.is_empty() {
            s.push_str(&format!(" with {others}"));
        }
        s
    }

    pub(crate) const DELTA_NOTE: &'static str =
        "Δ rows: (run / baseline − 1) × 100, in percent; — where either side is missing.";

    /// How points were paired, where it is not by their fields.
    pub fn matching_note(&self) -> Option<&'static str> {
        (self.matched_by == Matching::Labels).then_some(
            "Points are matched by label (a fio job's name), their recorded fields differing (fio's options and \
             drivelab's): a column per point, a row per run.",
        )
    }

    /// The comparison as data: kind, runs (label, directory, targets with models), tables with
    /// their rows (values, and deltas in percent), and missing points (indices into `runs`).
    pub fn json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("a comparison is plain data");
        s.push('\n');
        s
    }
}

#[cfg(test)]
mod tests;
