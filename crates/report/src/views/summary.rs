//! The run's summary: what ran, on what, and the numbers, as part of the report model
//! ([`RunSummary`], a block of the run view's Result section). The text exporter renders it in
//! a few lines that fit the width ([`crate::fit`]): this is what `drivelab run` prints and what
//! `drivelab report RUNDIR` prints, one description of one run. At 80 columns the table keeps
//! the figures a reader compares (IOPS, MB/s, mean, p50, p99, p99.9, max: 71 columns); from
//! [`WIDE`] columns on it adds the I/O count and the minimum (91 columns). Prose lines (the
//! engine's flags, the schedule, CPU-bound, notes) are wrapped to the width rather than cut.
//! Markdown, HTML and CSV render the same block as its full table ([`RunSummary::full`]) and
//! its lines.
//!
//! Rates are MB/s (10^6 bytes per second) and sizes binary (KiB, MiB, GiB, as `--size` reads
//! them). I/O errors are listed on stderr as they happen; the summary counts them, so it never
//! reads as a clean measurement.

use std::fmt::Write;

use drivelab_engine::hist::{LatSummary, Pct};
use drivelab_engine::result::{DirStats, OpenLoopStats, RunResult};
use drivelab_engine::spec::{Arrivals, SyncMode};
use drivelab_engine::target::TargetKind;
use drivelab_engine::units::{fmt_count, fmt_ns};
use drivelab_lab::names::{shown, DriveName};
use serde::Serialize;

use crate::fit;
use crate::model::{Cell, Column, Grid, Unit};

/// From this width on, the compact table has its wide form (the I/O count and the minimum).
pub const WIDE: usize = 100;

/// One run's summary: typed figures, rendered by each exporter.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunSummary {
    /// What ran: the tool, workload, engine and mode; the engine's flags; each target's facts;
    /// the measured time.
    pub head: Vec<String>,
    /// The terminal's table: a row per direction (read, write, trim, total, fsync, and the
    /// response time at a fixed rate): ops, IOPS, MB/s (empty for response times: their rates
    /// are the run's), then min, mean, p50, p99, p99.9, max in ns.
    pub compact: Grid,
    /// What the latency is, then (a fixed rate) how the schedule held.
    pub lines: Vec<String>,
    /// With several targets: each one's figures.
    pub per_target: Vec<TargetLine>,
    /// CPU, queue depth, durability, power, verify and I/O errors.
    pub after: Vec<String>,
    /// The documents' table: every percentile, lat and clat (and response) rows. Flattened in
    /// JSON: the block's `title`, `columns` and `rows` are this table's, as before the summary.
    #[serde(flatten)]
    pub full: Grid,
}

/// One target's share of the run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TargetLine {
    pub path: String,
    pub iops: f64,
    pub mb_per_s: f64,
    pub p99_ns: f64,
}

/// The summary of `r` (with the run's average power, when measured), `name` the point's label
/// where it is not the workload's (fio's job name).
pub fn summary(r: &RunResult, name: &str, names: &[DriveName], power_w: Option<f64>) -> RunSummary {
    let mut rows = Vec::new();
    dir_row(&mut rows, "read", &r.read);
    dir_row(&mut rows, "write", &r.write);
    if let Some(trim) = &r.trim {
        dir_row(&mut rows, "trim", trim);
    }
    let directions = [r.read.ops, r.write.ops, r.trim.as_ref().map_or(0, |t| t.ops)];
    if directions.iter().filter(|&&n| n > 0).count() > 1 {
        dir_row(&mut rows, "total", &r.total);
    }
    if let Some(sync) = &r.sync {
        dir_row(&mut rows, "fsync", sync);
    }
    if let Some(o) = &r.open_loop {
        let l = &o.total_resp_lat_ns;
        let ops = l.histogram.buckets.iter().map(|b| b[1]).sum::<u64>();
        rows.push(lat_row("resp", ops, None, l));
    }
    let mut columns = vec![
        Column::new("", Unit::Count),
        Column::new("ops", Unit::Count),
        Column::new("IOPS", Unit::Iops),
        Column::new("MB/s", Unit::MBps),
    ];
    columns.extend(LAT.iter().map(|n| Column::new(*n, Unit::Ns)));
    let mut lines = lat_definition(r);
    if let Some(o) = &r.open_loop {
        lines.extend(open_loop_lines(o));
    }
    let per_target = if r.per_target.len() < 2 {
        Vec::new()
    } else {
        r.per_target
            .iter()
            .map(|t| TargetLine {
                path: shown(names, &t.path).to_string(),
                iops: t.total.iops,
                mb_per_s: t.total.bw_mb_per_s,
                p99_ns: t.total.lat_ns.get(Pct::P99).map_or(f64::NAN, |ns| ns as f64),
            })
            .collect()
    };
    let mut after = cpu_lines(r);
    after.extend(durable_lines(r));
    if let Some(w) = power_w {
        let per_watt = if w > 0.0 { format!(", {} IOPS per watt", fmt_count(r.total.iops / w)) } else { String::new() };
        after.push(format!("  power  average {w:.1} W{per_watt}"));
    }
    after.extend(verify_lines(r));
    after.extend(problems(r));
    RunSummary {
        head: header(r, name, names),
        compact: Grid { title: "Summary".into(), columns, rows },
        lines,
        per_target,
        after,
        full: super::common::result_table("Throughput and latency", r),
    }
}

/// The latency columns; the narrow table leaves out the first (min).
const LAT: [&str; 6] = ["min", "mean", "p50", "p99", "p99.9", "max"];

/// A row of figures: `rates` is `None` for response times (their rates are the run's).
fn lat_row(name: &str, ops: u64, rates: Option<(f64, f64)>, l: &LatSummary) -> Vec<Cell> {
    let (iops, mbs) = rates.map_or((Cell::Empty, Cell::Empty), |(i, m)| (Cell::Num(i), Cell::Num(m)));
    let mut row = vec![Cell::text(name), Cell::Num(ops as f64), iops, mbs, Cell::Num(l.min as f64), Cell::Num(l.mean)];
    row.extend([Pct::P50, Pct::P99, Pct::P99_9].iter().map(|p| Cell::num(l.get(*p).map(|ns| ns as f64))));
    row.push(Cell::Num(l.max as f64));
    row
}

fn dir_row(rows: &mut Vec<Vec<Cell>>, name: &str, d: &DirStats) {
    if d.ops > 0 {
        rows.push(lat_row(name, d.ops, Some((d.iops, d.bw_mb_per_s)), &d.lat_ns));
    }
}

impl RunSummary {
    /// For a terminal `width` columns wide: the head, the `│` table, then the lines wrapped.
    pub fn text(&self, width: usize) -> String {
        let wide = width >= WIDE;
        let mut out = self.head.join("\n") + "\n\n";
        let heading: Vec<String> = self.compact.columns.iter().map(|c| c.name.clone()).collect();
        let cell = |c: &Cell, f: &dyn Fn(f64) -> String| match c {
            Cell::Num(v) => f(*v),
            Cell::Text(s) => s.clone(),
            _ => String::new(),
        };
        let mut row = |cells: [String; 4], lat: &[String]| {
            let [name, ops, iops, mbs] = cells;
            let _ = write!(out, "  {name:<5}");
            if wide {
                let _ = write!(out, " {ops:>10}");
            }
            let _ = write!(out, " {iops:>7} {mbs:>8} │");
            for c in &lat[usize::from(!wide)..] {
                let _ = write!(out, " {c:>8}");
            }
            out.push('\n');
        };
        row([String::new(), heading[1].clone(), heading[2].clone(), heading[3].clone()], &heading[4..]);
        for r in &self.compact.rows {
            // A percentile the result does not hold (fio's plain JSON) is missing, not 0.
            let lat: Vec<String> =
                r[4..].iter().map(|c| if *c == Cell::Empty { "—".into() } else { cell(c, &fmt_ns) }).collect();
            row(
                [
                    cell(&r[0], &|_| String::new()),
                    cell(&r[1], &|v| format!("{v:.0}")),
                    cell(&r[2], &fmt_count),
                    cell(&r[3], &|v| format!("{v:.1}")),
                ],
                &lat,
            );
        }
        for l in &self.lines {
            let _ = writeln!(out, "{l}");
        }
        out += &per_target_text(&self.per_target, width);
        for l in &self.after {
            let _ = writeln!(out, "{l}");
        }
        fit::wrap(&out, width)
    }

    /// Every prose line, in order, without the terminal's indent (documents).
    pub fn prose(&self) -> Vec<String> {
        let targets = self.per_target.iter().map(|t| {
            format!("{}: {} IOPS, {:.1} MB/s, p99 {}", t.path, fmt_count(t.iops), t.mb_per_s, Unit::Ns.fmt(t.p99_ns))
        });
        self.head
            .iter()
            .chain(&self.lines)
            .cloned()
            .chain(targets)
            .chain(self.after.iter().cloned())
            // The terminal's alignment spaces are not the documents'.
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|l| !l.is_empty())
            .collect()
    }
}

/// A line per target; a path too long for the line is abbreviated from the left (its end names
/// the file), so the figures stay a column.
fn per_target_text(targets: &[TargetLine], width: usize) -> String {
    if targets.is_empty() {
        return String::new();
    }
    let mut out = String::from("\n  per target:\n");
    let figures: Vec<String> = targets
        .iter()
        .map(|t| format!(" {:>7} IOPS {:>8.1} MB/s  p99 {}", fmt_count(t.iops), t.mb_per_s, Unit::Ns.fmt(t.p99_ns)))
        .collect();
    let room = width.saturating_sub(2 + figures.iter().map(|f| f.chars().count()).max().unwrap_or(0));
    let paths: Vec<String> = targets.iter().map(|t| fit::keep_end(&t.path, room)).collect();
    let w = paths.iter().map(|p| p.chars().count()).max().unwrap_or(0).max(24);
    for (p, f) in paths.iter().zip(&figures) {
        let _ = writeln!(out, "  {p:<w$}{f}");
    }
    out
}

/// What ran (the engine's flags on a line of their own), on what, for how long.
fn header(r: &RunResult, name: &str, names: &[DriveName]) -> Vec<String> {
    let s = &r.spec;
    let mode = if s.direct { "O_DIRECT" } else { "buffered" };
    let label = s.label();
    let what = if name.is_empty() || name == label { label } else { format!("{name}: {label}") };
    let mut out = vec![format!("{} {} · {what} · {} · {}", r.tool.name, r.tool.version, r.engine.backend, mode)];
    if let Some(f) = &r.engine.ring {
        let mut parts = f.flags.clone();
        if f.fixed_file {
            parts.push("fixed file".into());
        }
        if f.fixed_buffers {
            parts.push("fixed buffers".into());
        }
        out.push(format!("  {}: {}", r.engine.backend, parts.join(", ")));
    }
    for t in &r.targets {
        let kind = match t.kind {
            TargetKind::File => "file",
            TargetKind::Block => "block device",
            TargetKind::Null => "null",
        };
        let mut facts = vec![kind.to_string()];
        // fio's results do not say a target's size (0): never "0 bytes".
        if t.size_bytes > 0 || !drivelab_lab::results::fio_json::is_fio(&r.tool) {
            facts.push(fmt_bytes(t.size_bytes));
        }
        facts.extend(t.model.clone());
        if let Some(rot) = t.rotational {
            facts.push(if rot { "rotational".into() } else { "non-rotational".into() });
        }
        // fio's results do not say the block size (0).
        if t.logical_block_bytes > 0 {
            facts.push(format!("lbs {}", t.logical_block_bytes));
        }
        let target = match shown(names, &t.path) {
            name if name != t.path => format!("{name} ({})", t.path),
            _ => t.path.clone(),
        };
        out.push(format!("  target {target}: {}", facts.join(", ")));
    }
    out.push(format!(
        "  measured {:.2}s{}{}",
        r.runtime_ns as f64 / 1e9,
        if s.ramp_ns > 0 { format!(" after {:.1}s ramp", s.ramp_ns as f64 / 1e9) } else { String::new() },
        if r.interrupted { " — INTERRUPTED, partial result" } else { "" }
    ));
    out
}

/// A size in binary units, exact when whole (`64 MiB`), else to a tenth (`931.5 GiB`).
fn fmt_bytes(b: u64) -> String {
    for (shift, unit) in [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")] {
        if b >= 1 << shift {
            let v = b as f64 / (1u64 << shift) as f64;
            return if b.is_multiple_of(1 << shift) { format!("{v:.0} {unit}") } else { format!("{v:.1} {unit}") };
        }
    }
    format!("{b} bytes")
}

/// How the schedule held, for a fixed-rate run.
fn open_loop_lines(o: &OpenLoopStats) -> Vec<String> {
    let arrivals = match o.arrivals {
        Arrivals::Uniform => "uniform",
        Arrivals::Poisson => "poisson",
    };
    let mut out = vec![
        "  resp: from each I/O's intended issue time; the rows above from the submit call".to_string(),
        String::new(),
        format!(
            "  fixed rate {} IOPS ({arrivals}), achieved {} IOPS",
            fmt_count(o.target_iops),
            fmt_count(o.achieved_iops)
        ),
        format!(
            "  schedule lag p99 {}, max {}; {:.2}% of I/Os over {} late",
            fmt_ns(o.lag_ns.p(Pct::P99) as f64),
            fmt_ns(o.lag_ns.max as f64),
            o.late_pct,
            fmt_ns(o.late_threshold_ns as f64)
        ),
    ];
    if let Some(t) = &o.tool_lag_ns {
        out.push(format!(
            "  drivelab's own lateness (from a free slot) p99 {}, p99.9 {}, max {}",
            fmt_ns(t.p(Pct::P99) as f64),
            fmt_ns(t.p(Pct::P99_9) as f64),
            fmt_ns(t.max as f64)
        ));
    }
    out.push(format!("  pace {}: spinning {:.0}% of the jobs' time", o.pace.name(), o.spin_pct));
    if o.gave_up {
        out.push(format!(
            "  GAVE UP: {} behind schedule (limit {}): the target could not carry this rate",
            fmt_ns(o.final_lag_ns as f64),
            fmt_ns(o.max_lag_ns.unwrap_or(0) as f64)
        ));
    } else if !o.kept_up {
        out.push(format!(
            "  BEHIND: {} behind schedule at the end: the target could not keep up",
            fmt_ns(o.final_lag_ns as f64)
        ));
    }
    out
}

/// Which latency the table shows, and (io_uring) fio's clat and slat beside it.
fn lat_definition(r: &RunResult) -> Vec<String> {
    let what = if drivelab_lab::results::fio_json::is_fio(&r.tool) {
        super::common::lat_words(r)
    } else if r.schema < 2 {
        "from the submit call's return (fio's clat; a result of schema 1)"
    } else {
        "from just before the submit call (fio's lat)"
    };
    let mut out = vec![format!("  latency: {what}")];
    if let Some(clat) = &r.total.clat_ns {
        let slat = r.slat_ns.as_ref().map(|s| format!(", slat {} per call", fmt_ns(s.mean))).unwrap_or_default();
        out.push(format!(
            "  clat (after submit) p50 {} p99 {}{slat}",
            missing_or_ns(clat.get(Pct::P50)),
            missing_or_ns(clat.get(Pct::P99))
        ));
    }
    out
}

/// A percentile the result holds, or `—` (fio's plain JSON has none for a total).
fn missing_or_ns(ns: Option<u64>) -> String {
    Unit::Ns.fmt(ns.map_or(f64::NAN, |ns| ns as f64))
}

fn cpu_lines(r: &RunResult) -> Vec<String> {
    let c = &r.cpu;
    // fio's results do not say how many cores the machine had (0).
    let machine = match c.cores {
        0 => String::new(),
        1 => format!(" ({:.1}% of 1 core)", c.machine_pct),
        n => format!(" ({:.1}% of {n} cores)", c.machine_pct),
    };
    let mut out = vec![
        String::new(),
        format!(
            "  cpu    usr {:.1}% sys {:.1}% of a core{machine}, {} per I/O",
            c.usr_pct,
            c.sys_pct,
            fmt_ns(c.ns_per_io)
        ),
    ];
    if let Some(sq) = c.sqpoll_pct {
        out.push(format!("         sys includes the SQPOLL kernel threads: {sq:.1}% of a core"));
    }
    out.push(format!("  qd     {:.1} in flight on average per job (of {})", r.qd_mean, r.spec.qd));
    if c.cpu_bound {
        out.push(format!(
            "  CPU-bound: a job thread was running {:.0}% and waiting for a CPU {:.0}% of the time — the CPU, not the target, was the limit",
            c.busiest_job_pct,
            (c.runnable_pct - c.busiest_job_pct).max(0.0)
        ));
    }
    if let Some(starved) = c.starved_warning() {
        out.push(format!("  warning: {starved}"));
    }
    out
}

/// With fsync: each write until durable (write + its share of fsync, [`crate::durable`]) and
/// the fsync call alone.
fn durable_lines(r: &RunResult) -> Vec<String> {
    if !crate::durable::uses_fsync(r) {
        return Vec::new();
    }
    let mut out = Vec::new();
    if let Some(ns) = crate::durable::fsync_ns(r, None, Pct::P99) {
        out.push(format!("  fsync call alone, p99 {}", fmt_ns(ns)));
    }
    if let Some(ns) = crate::durable::until_durable_mean_ns(r, None) {
        out.push(format!("  until durable (write + fsync), mean per write {}", fmt_ns(ns)));
    }
    out
}

/// With verify: what was stamped and checked, and every wrong unit counted by kind, with the
/// first one in detail (the rest are in the result's `verify.inline.first` / `verify.after.first`).
fn verify_lines(r: &RunResult) -> Vec<String> {
    let Some(v) = &r.kinds.verify else { return Vec::new() };
    let unit = drivelab_engine::units::fmt_size(v.unit_bytes);
    let mut line = format!(
        "  verify {} units checked ({unit} units), {} wrong; {} written",
        v.inline.checked_units, v.inline.mismatches, v.written_units
    );
    if v.unchecked_units > 0 {
        let _ = write!(line, "; {} read but not checked (never written or a failed write)", v.unchecked_units);
    }
    if v.held_ios > 0 {
        let _ = write!(line, "; {} I/Os held until an overlapping one completed", v.held_ios);
    }
    let mut out = vec![line];
    if let Some(j) = &v.journal {
        let durable = match r.spec.sync {
            SyncMode::Dsync => "each acknowledged write durable (O_DSYNC)",
            SyncMode::Fsync { .. } => "acknowledged writes durable at each fsync",
            SyncMode::Fdatasync { .. } => "acknowledged writes durable at each fdatasync",
            SyncMode::None => "no write promised durable (no O_DSYNC, no fsync)",
        };
        out.push(format!("         journaled in {j}: {durable}"));
    }
    if let Some(a) = &v.after {
        let mut line = format!("         after the run: {} units re-read, {} wrong", a.checked_units, a.mismatches);
        if a.unreadable_units > 0 {
            let _ = write!(
                line,
                ", {} unreadable (I/O error, first at offset {})",
                a.unreadable_units,
                a.first_unreadable_offsets_bytes.first().copied().unwrap_or(0)
            );
        }
        out.push(line);
    }
    let wrong = v.inline.mismatches + v.after.as_ref().map_or(0, |a| a.mismatches);
    if wrong == 0 {
        return out;
    }
    let mut kinds: std::collections::BTreeMap<_, u64> = Default::default();
    for c in std::iter::once(&v.inline).chain(v.after.as_ref()) {
        for (k, n) in &c.by_kind {
            *kinds.entry(*k).or_default() += n;
        }
    }
    let kinds: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {}", k.name())).collect();
    out.push(format!("  WRONG DATA: {wrong} unit(s) not as written: {}", kinds.join(", ")));
    if let Some(m) = v.inline.first.first().or_else(|| v.after.as_ref().and_then(|a| a.first.first())) {
        out.push(format!("  first: {} {}", m.target, m.describe()));
    }
    out
}

/// I/O errors, counted (each is on stderr as it happens) and listed by operation and target.
/// The run's notices are the report's notes, which the text exporter prints after this.
fn problems(r: &RunResult) -> Vec<String> {
    // Errors the jobs went on after (fio's ignore_error, fill_device): listed, not failures.
    let continued = r
        .continued_errors
        .iter()
        .map(|e| format!("  went on after {} {} error(s) on {}: {} (not a failure)", e.count, e.op, e.target, e.error));
    if r.errors.is_empty() {
        return continued.collect();
    }
    let failed: u64 = r.errors.iter().map(|e| e.count).sum();
    let mut out = vec![format!(
        "  I/O ERRORS: {failed} I/O(s) failed (on standard error); the figures describe a failing target{}",
        if r.stopped_by_error { "; the run stopped at the first (--continue-on-error goes on)" } else { "" }
    )];
    out.extend(r.errors.iter().map(|e| format!("    {} {} error(s) on {}: {}", e.count, e.op, e.target, e.error)));
    out.extend(continued);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_binary_and_exact_when_whole() {
        assert_eq!(fmt_bytes(64 << 20), "64 MiB");
        assert_eq!(fmt_bytes(1_000_204_886_016), "931.5 GiB");
        assert_eq!(fmt_bytes(512), "512 bytes");
    }

    /// The heading words of the `│` table.
    fn heading(text: &str) -> Vec<&str> {
        text.lines().find(|l| l.contains('│')).unwrap_or_default().split_whitespace().collect()
    }

    #[test]
    fn the_table_adds_ops_and_min_from_the_wide_width_and_target_paths_keep_their_end() {
        let long = format!("/mnt/{}/disk-a.img", "x".repeat(60));
        let p = crate::test_support::point("read", "", &[], &[(long.as_str(), 10.0), ("/dev/b", 20.0)]);
        let s = summary(&p.result, "", &[], None);
        let narrow = s.text(80);
        assert_eq!(heading(&narrow), ["IOPS", "MB/s", "│", "mean", "p50", "p99", "p99.9", "max"], "{narrow}");
        assert!(narrow.lines().all(|l| l.chars().count() <= 80), "{narrow}");
        assert!(narrow.lines().any(|l| l.starts_with("  …x") && l.contains("/disk-a.img ")), "{narrow}");
        assert!(!narrow.contains("/mnt/"), "{narrow}");
        let wide = s.text(WIDE);
        assert_eq!(heading(&wide)[..6], ["ops", "IOPS", "MB/s", "│", "min", "mean"], "{wide}");
        assert!(s.text(200).contains(&long), "the whole path where it fits");
    }

    #[test]
    fn what_a_result_does_not_say_is_left_out_not_printed_as_zero() {
        let mut p = crate::test_support::point("read", "", &[], &[("/dev/a", 10.0)]);
        p.result.cpu.cores = 0;
        p.result.total.clat_ns = Some(LatSummary { percentiles: Default::default(), ..p.result.total.lat_ns.clone() });
        let text = summary(&p.result, "", &[], None).text(80);
        assert!(text.contains("of a core, ") && !text.contains("of 0 cores"), "{text}");
        assert!(text.contains("clat (after submit) p50 — p99 —"), "{text}");
        p.result.cpu.cores = 2;
        assert!(summary(&p.result, "", &[], None).text(80).contains("% of 2 cores), "));
    }

    #[test]
    fn errors_are_counted_and_listed_and_power_is_said() {
        let mut p = crate::test_support::point("read", "", &[], &[("/dev/a", 10.0)]);
        p.result.errors.push(drivelab_engine::result::ErrorStat {
            target: "/dev/a".into(),
            op: "read".into(),
            errno: 5,
            error: "Input/output error".into(),
            count: 3,
            first_offset_bytes: 4096,
            continued: false,
        });
        // A percentile the result does not hold (fio's plain JSON) is missing, not 0.
        p.result.read.lat_ns.percentiles.remove(Pct::P50.name());
        let text = summary(&p.result, "", &[], Some(4.0)).text(80);
        let read: Vec<&str> = text.lines().find(|l| l.starts_with("  read ")).unwrap().split_whitespace().collect();
        assert_eq!(read[5], "—", "p50: {text}");
        assert!(text.contains("I/O ERRORS: 3 I/O(s) failed"), "{text}");
        assert!(text.contains("3 read error(s) on /dev/a: Input/output error"), "{text}");
        assert!(text.contains("power  average 4.0 W"), "{text}");
    }
}
