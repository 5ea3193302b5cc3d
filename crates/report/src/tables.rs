//! Result tables in the shape storage reviewers publish: one metric, rows by one thing, columns
//! by another, e.g. device x queue depth in MB/s:
//!
//! ```text
//! 100% Sequential Write Performance (MB/s)
//! target   1 DQL/Disk  2 DQL/Disk  3 DQL/Disk
//! SAS             329         333         333
//! SATA II         242         245         245
//! ```
//!
//! Reviewers compare drives with tables like this one, so drivelab makes them from its own
//! results. The report never measures: a [`TableSpec`] says which saved points to take and how
//! to lay them out, [`build`] reads the numbers the runner saved (`points/NNNN-<slug>.json`,
//! loaded with `drivelab_lab::runner::load_points`) and [`Table`] renders them for a terminal
//! ([`Table::text`]), GitHub Markdown ([`Table::markdown`]) or a spreadsheet ([`Table::csv`]).
//! Specs are plain data (serde) so the tables asked for can be saved with a run and made again.
//!
//! # How points become cells
//!
//! - Points are taken in the order given (plan order); rows and columns appear in the order
//!   their values first appear. Points of another step ([`TableSpec::step`]) or whose fields do
//!   not match every pair of [`TableSpec::filter`] are left out.
//! - When the row or column key involves [`Key::Target`], every point gives one cell per target
//!   it ran on, from `result.per_target` (matched by path; entries of one path, the jobs of a fio
//!   group on one file, are parts of one measurement and merged: [`crate::point_targets`]).
//!   Otherwise a point gives one cell from its aggregate (`result.read` / `write` / `total`).
//! - A point that lacks a field the rows or columns are keyed by ([`Key::Field`]) is left out;
//!   in a [`Key::Join`] the missing part is just not shown.
//! - Several values in one cell (a plan's `repeat`, or a key that does not tell points apart)
//!   are averaged, arithmetically, and the table's title says so ("mean of 3 runs"). For
//!   latency percentiles that is the mean of the runs' percentiles, not the percentile of the
//!   runs merged.
//! - A cell no point reached is missing: "—" in text and Markdown, empty in CSV. Latencies of a
//!   direction with no I/O are missing too (there is nothing to have a latency); throughput and
//!   IOPS of such a direction are 0.

use std::collections::HashMap;

use drivelab_engine::hist::Pct;
use drivelab_engine::result::{DirStats, RunResult, TargetResult};
use drivelab_lab::results::PointResult;
use serde::{Deserialize, Serialize};

use crate::durable;
use crate::grid;

mod defaults;
mod errored;
pub use defaults::default_tables;
pub use errored::*;

/// What a row or column is keyed by.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum Key {
    /// The target path: one row (or column) per target, from `result.per_target`.
    Target,
    /// An access-spec field from the point's fields, e.g. "qd", "read", "bs", by its value as
    /// written in the plan ("4k", not 4096).
    Field(String),
    /// The point's step name.
    Step,
    /// The number of targets the point ran on at once.
    TargetCount,
    /// The point's label, without its repeat number and target ([`point_name`]): a column per
    /// point where the points' fields are not axes (fio's jobs, each with its own options).
    Label,
    /// Several keys at once, labelled like "bs=4k rw=randread" (a target or step shows as its
    /// bare name, a field or the target count as `name=value`).
    Join(Vec<Key>),
}

/// Which direction's numbers.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Dir {
    Read,
    Write,
    Total,
}

/// What a cell shows.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub enum Metric {
    /// 10^6 bytes per second.
    #[serde(rename = "mb_per_s")]
    MBps,
    /// 2^20 bytes per second.
    #[serde(rename = "mib_per_s")]
    MiBps,
    #[serde(rename = "iops")]
    Iops,
    #[serde(rename = "lat_mean_us")]
    LatMeanUs,
    #[serde(rename = "lat_p50_us")]
    LatP50Us,
    #[serde(rename = "lat_p99_us")]
    LatP99Us,
    #[serde(rename = "lat_p99.9_us")]
    LatP999Us,
    /// p99 of clat (from the submission, fio's clat): where lat has no percentiles, as in fio's
    /// default JSON, which computes clat's only.
    #[serde(rename = "clat_p99_us")]
    ClatP99Us,
    /// User + system CPU of the point's job threads, in % of one core. CPU is measured per
    /// point, not per target: in a table keyed by target a cell has it only when the point ran
    /// on that target alone. The direction does not matter.
    #[serde(rename = "cpu_pct")]
    CpuPct,
    /// Average watts the `--power-cmd` read during the point (point-level, like CPU).
    #[serde(rename = "power_w")]
    PowerW,
    /// The point's total MB/s per average watt (point-level).
    #[serde(rename = "mb_per_s_per_w")]
    MBpsPerW,
    /// Writes: mean time per write until it is durable — the write and its share of the fsync
    /// calls with `sync = "fsync:N"`, the write alone with O_DSYNC, nothing for plain writes
    /// ([`crate::durable`]). The direction does not matter.
    #[serde(rename = "until_durable_mean_us")]
    UntilDurableMeanUs,
    /// The fsync calls alone (`sync = "fsync:N"`), p99. Point-level like CPU: in a table keyed
    /// by target a cell has it only when the point ran on that target alone.
    #[serde(rename = "fsync_p99_us")]
    FsyncP99Us,
}

/// Which table to make from which points.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TableSpec {
    pub title: String,
    pub rows: Key,
    pub cols: Key,
    pub metric: Metric,
    pub dir: Dir,
    /// Only points whose fields match all of these (field, value) pairs; a field missing from a
    /// point's fields does not match.
    #[serde(default)]
    pub filter: Vec<(String, String)>,
    /// Only points of this step (None: all).
    #[serde(default)]
    pub step: Option<String>,
    /// Header text for a column value, with {} replaced by the value, e.g. "{} DQL/Disk" (None:
    /// the value).
    #[serde(default)]
    pub col_format: Option<String>,
}

/// A built table: numbers only, formatting happens when it is rendered.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Table {
    pub title: String,
    /// "MB/s", "MiB/s", "IOPS", "µs" or "%".
    pub unit: String,
    pub row_header: String,
    /// What the columns are keyed by ("qd", "step", "targets"...), as `row_header` is for rows.
    pub col_header: String,
    pub cols: Vec<String>,
    pub rows: Vec<(String, Vec<Option<f64>>)>,
    /// What the figures are, where the title alone could mislead (a write's latency next to
    /// fsync); shown under the table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Cells holding a point whose I/O failed (its figures cover only the I/O until then): every
    /// format marks them ([`ERRORED_MARK`] and a footnote; CSV an `errored` column, JSON this).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errored: Vec<ErroredCell>,
    /// Cells holding a point run with `--steady` that never reached steady state (its figures
    /// are its last window's): every format marks them ([`UNSTEADY_MARK`] and a footnote; CSV
    /// a `not_steady` column, JSON this), as errored cells are.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unsteady: Vec<ErroredCell>,
}

impl Key {
    /// The key's name, used as the row header: "target", the field's name, "step", "targets";
    /// a join's names separated by spaces.
    pub fn name(&self) -> String {
        match self {
            Key::Target => "target".into(),
            Key::Field(f) => f.clone(),
            Key::Step => "step".into(),
            Key::TargetCount => "targets".into(),
            Key::Label => crate::compare::LABEL_KEY.into(),
            Key::Join(keys) => keys.iter().map(Key::name).collect::<Vec<_>>().join(" "),
        }
    }

    fn involves_target(&self) -> bool {
        match self {
            Key::Target => true,
            Key::Join(keys) => keys.iter().any(Key::involves_target),
            _ => false,
        }
    }

    /// This key's value for a point (and, when tables are per target, one of its targets).
    fn value(&self, p: &PointResult, target: Option<&str>) -> Option<String> {
        match self {
            Key::Target => target.map(|t| p.point.shown(t).to_string()),
            Key::Field(f) => field(p, f).map(str::to_string),
            Key::Step => Some(p.point.step.clone()),
            Key::TargetCount => Some(p.point.targets.len().to_string()),
            Key::Label => Some(point_name(p)),
            Key::Join(keys) => {
                let parts: Vec<String> = keys
                    .iter()
                    .filter_map(|k| {
                        let v = k.value(p, target)?;
                        match k {
                            Key::Field(_) | Key::TargetCount | Key::Label => Some(format!("{}={v}", k.name())),
                            _ => Some(v),
                        }
                    })
                    .filter(|s| !s.is_empty())
                    .collect();
                if parts.is_empty() && !keys.is_empty() {
                    None
                } else {
                    Some(parts.join(" "))
                }
            }
        }
    }
}

impl Metric {
    /// The unit a table of this metric is in.
    pub fn unit(self) -> &'static str {
        match self {
            Metric::MBps => "MB/s",
            Metric::MiBps => "MiB/s",
            Metric::Iops => "IOPS",
            Metric::LatMeanUs | Metric::LatP50Us | Metric::LatP99Us | Metric::LatP999Us | Metric::ClatP99Us => "µs",
            Metric::UntilDurableMeanUs | Metric::FsyncP99Us => "µs",
            Metric::CpuPct => "%",
            Metric::PowerW => "W",
            Metric::MBpsPerW => "MB/s/W",
        }
    }

    /// What it is, for a title: "Throughput", "IOPS", "p99 latency", ...
    pub fn describe(self) -> &'static str {
        match self {
            Metric::MBps | Metric::MiBps => "Throughput",
            Metric::Iops => "IOPS",
            Metric::LatMeanUs => "Mean latency",
            Metric::LatP50Us => "p50 latency",
            Metric::LatP99Us => "p99 latency",
            Metric::LatP999Us => "p99.9 latency",
            Metric::ClatP99Us => "p99 clat",
            Metric::CpuPct => "CPU",
            Metric::PowerW => "Average power",
            Metric::MBpsPerW => "Power efficiency",
            Metric::UntilDurableMeanUs => "Until durable (write + fsync), mean per write",
            Metric::FsyncP99Us => "fsync alone, p99",
        }
    }

    /// What a table of this metric over `points` needs said under it: how a write's time until
    /// durable is made up, or that a latency leaves the fsync out.
    fn note(self, points: &[&PointResult]) -> Option<String> {
        let fsync = points.iter().any(|p| durable::uses_fsync(&p.result));
        match self {
            Metric::UntilDurableMeanUs => Some(
                "until durable: with fsync, each write's latency plus its share of the fsync calls \
                 (its whole fsync with fsync:1); with O_DSYNC, the write itself; — where writes are \
                 not made durable (no O_DSYNC, no fsync). A mean: write and fsync latencies are saved \
                 apart, so no percentile of their sum can be given"
                    .into(),
            ),
            Metric::FsyncP99Us => Some("the fsync call alone, without the write before it".into()),
            Metric::LatMeanUs | Metric::LatP50Us | Metric::LatP99Us | Metric::LatP999Us | Metric::ClatP99Us
                if fsync =>
            {
                Some(
                    "the I/O calls alone: a write made durable by fsync also waits for its fsync (see the \
                 tables until durable and of the fsync alone)"
                        .into(),
                )
            }
            _ => None,
        }
    }

    fn of(self, s: &DirStats) -> Option<f64> {
        let lat = |ns: f64| if s.ops == 0 { None } else { Some(ns / 1000.0) };
        match self {
            Metric::MBps => Some(s.bw_mb_per_s),
            Metric::MiBps => Some(s.bw_mib_per_s),
            Metric::Iops => Some(s.iops),
            Metric::LatMeanUs => lat(s.lat_ns.mean),
            Metric::LatP50Us => lat(s.lat_ns.get(Pct::P50)? as f64),
            Metric::LatP99Us => lat(s.lat_ns.get(Pct::P99)? as f64),
            Metric::LatP999Us => lat(s.lat_ns.get(Pct::P99_9)? as f64),
            Metric::ClatP99Us => lat(s.clat_ns.as_ref()?.get(Pct::P99)? as f64),
            Metric::CpuPct | Metric::PowerW | Metric::MBpsPerW => None,
            Metric::UntilDurableMeanUs | Metric::FsyncP99Us => None,
        }
    }
}

/// A write's time until durable or the fsync alone, in µs, of a point or one of its targets.
fn durable_us(metric: Metric, r: &RunResult, target: Option<&TargetResult>) -> Option<f64> {
    let ns = match metric {
        Metric::UntilDurableMeanUs => durable::until_durable_mean_ns(r, target),
        _ => durable::fsync_ns(r, target, Pct::P99),
    };
    ns.map(|ns| ns / 1000.0)
}

/// Watts, or MB/s per watt, of a point measured with `--power-cmd`.
fn power(metric: Metric, p: &PointResult) -> Option<f64> {
    let w = p.power_w.filter(|w| *w > 0.0)?;
    Some(if metric == Metric::PowerW { w } else { p.result.total.bw_mb_per_s / w })
}

impl Dir {
    fn of<'a>(self, read: &'a DirStats, write: &'a DirStats, total: &'a DirStats) -> &'a DirStats {
        match self {
            Dir::Read => read,
            Dir::Write => write,
            Dir::Total => total,
        }
    }
}

/// A point's value of a field (the last one, should a key appear twice).
pub(crate) fn field<'a>(p: &'a PointResult, name: &str) -> Option<&'a str> {
    p.point.fields.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

fn cpu_pct(p: &PointResult) -> f64 {
    p.result.cpu.usr_pct + p.result.cpu.sys_pct
}

/// The point's label without " #N" (repeat) and " on TARGET".
pub(crate) fn point_name(p: &PointResult) -> String {
    let mut label = p.point.label.clone();
    if let Some((head, n)) = label.rsplit_once(" #") {
        if !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) {
            label = head.to_string();
        }
    }
    for t in &p.point.targets {
        let file = std::path::Path::new(t).file_name().map(|f| f.to_string_lossy().into_owned());
        let named = p.point.names.iter().filter(|n| n.target == *t).map(|n| &n.name);
        for name in named.chain(file.iter()).chain(std::iter::once(t)) {
            if let Some(head) = label.strip_suffix(&format!(" on {name}")) {
                return head.to_string();
            }
        }
    }
    if label.is_empty() {
        let fields: Vec<String> = p.point.fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
        label =
            std::iter::once(p.point.step.clone()).chain(fields).filter(|s| !s.is_empty()).collect::<Vec<_>>().join(" ");
    }
    label
}

/// Index of `v` in `order`, appending it when new.
/// Names in the order first seen, each with its place: found by hash, not by a scan (a table of
/// many thousand rows is built in linear time).
#[derive(Default)]
struct Order {
    names: Vec<String>,
    at: HashMap<String, usize>,
}

impl Order {
    fn slot(&mut self, v: String) -> usize {
        if let Some(&i) = self.at.get(&v) {
            return i;
        }
        self.names.push(v.clone());
        self.at.insert(v, self.names.len() - 1);
        self.names.len() - 1
    }
}

/// The points of each step, found once: tables of one step each take their step's points
/// from here instead of filtering every point per table (a directory of many thousand steps
/// would be quadratic).
pub struct ByStep<'a> {
    all: &'a [PointResult],
    steps: HashMap<&'a str, Vec<&'a PointResult>>,
}

impl<'a> ByStep<'a> {
    pub fn new(all: &'a [PointResult]) -> ByStep<'a> {
        let mut steps: HashMap<&str, Vec<&PointResult>> = HashMap::new();
        for p in all {
            steps.entry(p.point.step.as_str()).or_default().push(p);
        }
        ByStep { all, steps }
    }

    /// The table `spec` asks for, from its step's points (every point when it names none).
    pub fn build(&self, spec: &TableSpec) -> Table {
        match &spec.step {
            Some(s) => build_of(spec, self.steps.get(s.as_str()).into_iter().flatten().copied()),
            None => build_of(spec, self.all.iter()),
        }
    }
}

/// Make the table `spec` asks for from saved points (see the module docs for the rules).
pub fn build(spec: &TableSpec, points: &[PointResult]) -> Table {
    build_of(spec, points.iter())
}

/// [`build`] from `candidates` (the points the spec's step and filter are applied to).
fn build_of<'a>(spec: &TableSpec, candidates: impl Iterator<Item = &'a PointResult>) -> Table {
    let per_target = spec.rows.involves_target() || spec.cols.involves_target();
    let mut rows = Order::default();
    let mut cols = Order::default();
    // (row, col) -> (sum, count)
    let mut cells: HashMap<(usize, usize), (f64, usize)> = HashMap::new();
    let mut errored: Vec<ErroredCell> = Vec::new();
    let mut unsteady: Vec<ErroredCell> = Vec::new();
    // The cells already named in `errored` and `unsteady` (each once).
    let mut marked: std::collections::HashSet<(bool, usize, usize)> = std::collections::HashSet::new();

    let selected: Vec<&PointResult> = candidates
        .filter(|p| {
            spec.step.iter().all(|s| p.point.step == *s)
                && spec.filter.iter().all(|(k, v)| field(p, k) == Some(v.as_str()))
        })
        .collect();
    // Figures of different drives are never averaged: when a table whose keys name no target
    // would put points of different targets in one cell (`suite span A B`: each drive's points
    // under one step), each point's row is named by its targets (a point of several drives at
    // once stays one measurement, the drives joined by `+`).
    let targets_of = |p: &PointResult| {
        crate::point_targets::paths(p).into_iter().map(|t| p.point.shown(t)).collect::<Vec<_>>().join(" + ")
    };
    let split = !per_target && {
        let mut seen: HashMap<(String, String), String> = HashMap::new();
        selected.iter().any(|p| {
            let (Some(r), Some(c)) = (spec.rows.value(p, None), spec.cols.value(p, None)) else { return false };
            let set = targets_of(p);
            seen.insert((r, c), set.clone()).is_some_and(|prev| prev != set)
        })
    };
    for &p in &selected {
        let error = point_error(&p.result).map(|e| format!("{}: {e}", p.point.label));
        let not_steady = unsteady_point(p).map(|why| format!("{}: {why}", p.point.label));
        let mut place = |target: Option<&TargetResult>, value: Option<f64>| {
            let path = target.map(|t| t.path.as_str());
            let (Some(r), Some(c)) = (spec.rows.value(p, path), spec.cols.value(p, path)) else { return };
            let r = if split && path.is_none() { format!("{r} · {}", targets_of(p)) } else { r };
            let key = (rows.slot(r), cols.slot(c));
            if let Some(v) = value {
                let cell = cells.entry(key).or_insert((0.0, 0));
                cell.0 += v;
                cell.1 += 1;
                if let Some(e) = &error {
                    if marked.insert((true, key.0, key.1)) {
                        errored.push(ErroredCell { row: key.0, col: key.1, error: e.clone() });
                    }
                }
                if let Some(why) = &not_steady {
                    if marked.insert((false, key.0, key.1)) {
                        unsteady.push(ErroredCell { row: key.0, col: key.1, error: why.clone() });
                    }
                }
            }
        };
        if per_target {
            // Each target once: a group's jobs on one target are one measurement, merged.
            for t in &crate::point_targets::distinct(p) {
                let value = match spec.metric {
                    Metric::CpuPct => crate::all_ranks::whole(p, t).then(|| cpu_pct(p)),
                    Metric::PowerW | Metric::MBpsPerW => {
                        crate::all_ranks::whole(p, t).then(|| power(spec.metric, p)).flatten()
                    }
                    Metric::UntilDurableMeanUs | Metric::FsyncP99Us if crate::all_ranks::whole(p, t) => {
                        durable_us(spec.metric, &p.result, None)
                    }
                    Metric::UntilDurableMeanUs | Metric::FsyncP99Us => durable_us(spec.metric, &p.result, Some(t)),
                    m => m.of(spec.dir.of(&t.read, &t.write, &t.total)),
                };
                place(Some(t), value);
            }
        } else {
            let r = &p.result;
            let value = match spec.metric {
                Metric::CpuPct => Some(cpu_pct(p)),
                Metric::PowerW | Metric::MBpsPerW => power(spec.metric, p),
                Metric::UntilDurableMeanUs | Metric::FsyncP99Us => durable_us(spec.metric, r, None),
                m => m.of(spec.dir.of(&r.read, &r.write, &r.total)),
            };
            place(None, value);
        }
    }

    let counts: Vec<usize> = cells.values().map(|&(_, n)| n).collect();
    let (least, most) = (counts.iter().copied().min().unwrap_or(0), counts.iter().copied().max().unwrap_or(0));
    let mut title = spec.title.clone();
    if most > 1 {
        let runs = if least == most { format!("{most}") } else { format!("{least}–{most}") };
        let sep = if title.is_empty() { "" } else { ", " };
        title = format!("{title}{sep}mean of {runs} runs");
    }
    let header = |c: &String| match &spec.col_format {
        Some(f) => f.replace("{}", c),
        None => c.clone(),
    };
    Table {
        title,
        unit: spec.metric.unit().to_string(),
        row_header: spec.rows.name(),
        col_header: spec.cols.name(),
        cols: cols.names.iter().map(header).collect(),
        rows: rows
            .names
            .into_iter()
            .enumerate()
            .map(|(ri, r)| {
                let values =
                    (0..cols.names.len()).map(|ci| cells.get(&(ri, ci)).map(|&(sum, n)| sum / n as f64)).collect();
                (r, values)
            })
            .collect(),
        note: spec.metric.note(&selected),
        errored,
        unsteady,
    }
}

impl Table {
    /// The title line: the title with the unit in parentheses.
    pub fn heading(&self) -> String {
        grid::heading(&self.title, &self.unit)
    }

    /// Is the cell at (`row`, `col`) an errored point's?
    pub fn is_errored(&self, row: usize, col: usize) -> bool {
        is_errored(&self.errored, row, col)
    }

    /// Is the cell at (`row`, `col`) a point's that never reached steady state?
    pub fn is_unsteady(&self, row: usize, col: usize) -> bool {
        is_errored(&self.unsteady, row, col)
    }

    /// A cell for people: the number in the table's unit, [`ERRORED_MARK`] after an errored
    /// point's, "—" for a missing one.
    pub fn show_cell(&self, row: usize, col: usize, v: Option<f64>) -> String {
        match v {
            None => "—".to_string(),
            Some(v) => mark_unsteady(
                mark_if(grid::human(v, &self.unit), self.is_errored(row, col)),
                self.is_unsteady(row, col),
            ),
        }
    }

    /// The footnote of the errored cells (None when there are none): which points and why.
    pub fn errored_note(&self) -> Option<String> {
        errored_note(&self.errored)
    }

    /// The note under the table: its own, then the errored and not-steady cells' footnotes.
    fn notes(&self) -> Option<String> {
        let mine = notes(self.note.as_deref(), &self.errored);
        match (mine, unsteady_note(&self.unsteady)) {
            (Some(a), Some(b)) => Some(format!("{a}\n{b}")),
            (a, b) => a.or(b),
        }
    }

    /// The header's first cell: the row axis, then the column axis after a backslash
    /// (`bs \ qd`), so a reader of the text or Markdown table knows what the columns are; the row
    /// axis alone where the columns have no name of their own.
    pub fn axes(&self) -> String {
        match self.col_header.as_str() {
            "" => self.row_header.clone(),
            c if c == self.row_header => c.to_string(),
            c => format!("{} \\ {c}", self.row_header),
        }
    }

    /// What the cells measure, as a CSV column value with its unit in the name (the tidy CSV's
    /// column names: `mb_per_s`, `iops`...). From the unit, the one typed thing a built table
    /// keeps of its metric (its title says which statistic).
    pub fn metric(&self) -> String {
        match self.unit.as_str() {
            "MB/s" => "mb_per_s".into(),
            "MiB/s" => "mib_per_s".into(),
            "IOPS" => "iops".into(),
            "µs" => "latency_us".into(),
            "%" => "pct".into(),
            "W" => "power_w".into(),
            "MB/s/W" => "mb_per_s_per_w".into(),
            "" => "value".into(),
            u => u.to_lowercase().replace('/', "_per_").replace(' ', "_"),
        }
    }

    /// A column's CSV heading: `qd=4` (the column axis and the value), the value alone where
    /// the columns have no axis name.
    pub fn col_csv(&self, col: &str) -> String {
        if self.col_header.is_empty() {
            col.to_string()
        } else {
            format!("{}={col}", self.col_header)
        }
    }

    /// Header and rows as display strings ("—" for a missing cell).
    fn grid(&self) -> Vec<Vec<String>> {
        let mut grid = vec![std::iter::once(self.axes()).chain(self.cols.iter().cloned()).collect()];
        for (ri, (label, values)) in self.rows.iter().enumerate() {
            let cells = values.iter().enumerate().map(|(ci, v)| self.show_cell(ri, ci, *v));
            grid.push(std::iter::once(label.clone()).chain(cells).collect());
        }
        grid
    }

    /// For a terminal: the heading, then the header and rows in aligned columns (labels left,
    /// numbers right, two spaces apart).
    pub fn text(&self) -> String {
        grid::text_with_note(grid::text(&self.heading(), &self.grid()), self.notes().as_deref())
    }

    /// A GitHub Markdown table, preceded by the heading in bold; numbers right-aligned; the note
    /// in italics under it.
    pub fn markdown(&self) -> String {
        grid::markdown_with_note(grid::markdown(&self.heading(), &self.grid()), self.notes().as_deref())
    }

    /// [`Table::markdown`] without the bold heading: under a Markdown heading that says it.
    pub fn markdown_untitled(&self) -> String {
        grid::markdown_with_note(grid::markdown_untitled(&self.grid(), &[]), self.notes().as_deref())
    }

    /// CSV: a header row (`table,metric,unit`, the row axis, then a column per value of the
    /// column axis named `axis=value`: `table,metric,unit,bs,qd=1,qd=2`), then one line per row
    /// with the table's heading, metric and unit, the row's label and the numbers at full
    /// precision (an empty cell where one is missing). Fields holding a comma, quote or line
    /// break are quoted (RFC 4180); lines end in "\n".
    pub fn csv(&self) -> String {
        let mut out = String::new();
        let mut header: Vec<String> = ["table", "metric", "unit", self.row_header.as_str()]
            .into_iter()
            .map(String::from)
            .chain(self.cols.iter().map(|c| self.col_csv(c)))
            .map(|s| grid::csv_field(&s))
            .collect();
        // Errored cells keep their numbers; a last column names the errored ones of the row.
        let marked = !self.errored.is_empty();
        if marked {
            header.push("errored".into());
        }
        let unsteady = !self.unsteady.is_empty();
        if unsteady {
            header.push("not_steady".into());
        }
        out.push_str(&header.join(","));
        out.push('\n');
        for (ri, (label, values)) in self.rows.iter().enumerate() {
            let mut line: Vec<String> = [self.heading(), self.metric(), self.unit.clone(), label.clone()]
                .iter()
                .map(|s| grid::csv_field(s))
                .collect();
            line.extend(values.iter().map(|v| v.map_or_else(String::new, |v| v.to_string())));
            if marked {
                line.push(errored_csv_field(&self.errored, &self.cols, ri));
            }
            if unsteady {
                line.push(errored_csv_field(&self.unsteady, &self.cols, ri));
            }
            out.push_str(&line.join(","));
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests;
