//! The human summary of a result: what ran, on what, and the numbers, in a few lines that fit
//! the screen (see [`crate::term`]). At the default 80 columns the table keeps the figures a
//! reader compares (IOPS, MB/s, mean, p50, p99, p99.9, max: 71 columns); a terminal of at least
//! [`WIDE`] columns adds the I/O count and the minimum (91 columns). Prose lines (the engine's
//! flags, the schedule, CPU-bound, notes) are wrapped to the width rather than cut, so nothing
//! is lost on a narrow screen.
//!
//! Rates are MB/s (10^6 bytes per second) and sizes binary (KiB, MiB, GiB, as `--size` reads
//! them), everywhere drivelab prints; the JSON keeps both `bw_mb_per_s` and `bw_mib_per_s`.
//! I/O errors are listed on stderr as they happen ([`crate::events`]); the summary counts them,
//! so it never reads as a clean measurement.

use std::fmt::Write;

use drivelab_engine::hist::{LatSummary, Pct};
use drivelab_engine::result::{DirStats, OpenLoopStats, RunResult};
use drivelab_engine::spec::Arrivals;
use drivelab_engine::target::TargetKind;
use drivelab_engine::units::{fmt_count, fmt_ns};

use crate::term;

/// From this width on, the table has its wide form.
pub const WIDE: usize = 100;

/// Which columns the latency table has.
#[derive(Clone, Copy)]
struct Layout {
    /// The I/O count and the minimum latency.
    wide: bool,
}

impl Layout {
    fn for_width(width: usize) -> Layout {
        Layout { wide: width >= WIDE }
    }

    /// The table's heading.
    fn heading(self, out: &mut String) {
        let lat = if self.wide { &LAT[..] } else { &LAT[1..] };
        self.row(out, "", "ops", "IOPS", "MB/s", &lat.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    }

    /// One row: name, ops (wide), IOPS, MB/s, then the latency cells.
    fn row(self, out: &mut String, name: &str, ops: &str, iops: &str, mbs: &str, lat: &[String]) {
        let _ = write!(out, "  {name:<5}");
        if self.wide {
            let _ = write!(out, " {ops:>10}");
        }
        let _ = write!(out, " {iops:>7} {mbs:>8} │");
        for cell in lat {
            let _ = write!(out, " {cell:>8}");
        }
        out.push('\n');
    }

    /// A row of figures: `rates` is `None` for response times (their rates are the run's).
    fn lat_row(self, out: &mut String, name: &str, ops: u64, rates: Option<(f64, f64)>, l: &LatSummary) {
        let mut lat = Vec::with_capacity(6);
        if self.wide {
            lat.push(fmt_ns(l.min as f64));
        }
        lat.push(fmt_ns(l.mean));
        for p in [Pct::P50, Pct::P99, Pct::P99_9] {
            lat.push(fmt_ns(l.p(p) as f64));
        }
        lat.push(fmt_ns(l.max as f64));
        let (iops, mbs) = match rates {
            Some((iops, mb)) => (fmt_count(iops), format!("{mb:.1}")),
            None => (String::new(), String::new()),
        };
        self.row(out, name, &ops.to_string(), &iops, &mbs, &lat);
    }

    fn dir_row(self, out: &mut String, name: &str, d: &DirStats) {
        if d.ops > 0 {
            self.lat_row(out, name, d.ops, Some((d.iops, d.bw_mb_per_s)), &d.lat_ns);
        }
    }
}

/// The latency columns; the narrow table leaves out the first (min).
const LAT: [&str; 6] = ["min", "mean", "p50", "p99", "p99.9", "max"];

/// The summary of `r` for a screen `width` columns wide.
pub fn render(r: &RunResult, width: usize) -> String {
    let layout = Layout::for_width(width);
    let mut out = String::new();
    header(&mut out, r);
    out.push('\n');
    layout.heading(&mut out);
    layout.dir_row(&mut out, "read", &r.read);
    layout.dir_row(&mut out, "write", &r.write);
    if let Some(trim) = &r.trim {
        layout.dir_row(&mut out, "trim", trim);
    }
    let directions = [r.read.ops, r.write.ops, r.trim.as_ref().map_or(0, |t| t.ops)];
    if directions.iter().filter(|&&n| n > 0).count() > 1 {
        layout.dir_row(&mut out, "total", &r.total);
    }
    if let Some(sync) = &r.sync {
        layout.dir_row(&mut out, "fsync", sync);
    }
    lat_definition(&mut out, r);
    if let Some(o) = &r.open_loop {
        open_loop_lines(&mut out, o, layout);
    }
    per_target(&mut out, r, width);
    cpu_lines(&mut out, r);
    verify_lines(&mut out, r);
    problems(&mut out, r);
    term::wrap(&out, width)
}

/// What ran (the engine's flags on a line of their own), on what, for how long.
fn header(out: &mut String, r: &RunResult) {
    let s = &r.spec;
    let mode = if s.direct { "O_DIRECT" } else { "buffered" };
    let _ = writeln!(out, "drivelab {} · {} · {} · {}", r.tool.version, s.label(), r.engine.backend, mode);
    if let Some(f) = &r.engine.ring {
        let mut parts = f.flags.clone();
        if f.fixed_file {
            parts.push("fixed file".into());
        }
        if f.fixed_buffers {
            parts.push("fixed buffers".into());
        }
        let _ = writeln!(out, "  {}: {}", r.engine.backend, parts.join(", "));
    }
    for t in &r.targets {
        let kind = match t.kind {
            TargetKind::File => "file",
            TargetKind::Block => "block device",
            TargetKind::Null => "null",
        };
        let mut facts = vec![kind.to_string(), fmt_bytes(t.size_bytes)];
        if let Some(m) = &t.model {
            facts.push(m.clone());
        }
        if let Some(rot) = t.rotational {
            facts.push(if rot { "rotational".into() } else { "non-rotational".into() });
        }
        facts.push(format!("lbs {}", t.logical_block_bytes));
        let _ = writeln!(out, "  target {}: {}", t.path, facts.join(", "));
    }
    let _ = writeln!(
        out,
        "  measured {:.2}s{}{}",
        r.runtime_ns as f64 / 1e9,
        if s.ramp_ns > 0 { format!(" after {:.1}s ramp", s.ramp_ns as f64 / 1e9) } else { String::new() },
        if r.interrupted { " — INTERRUPTED, partial result" } else { "" }
    );
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

/// Response times and how the schedule held, for a fixed-rate run.
fn open_loop_lines(out: &mut String, o: &OpenLoopStats, layout: Layout) {
    let l = &o.total_resp_lat_ns;
    let arrivals = match o.arrivals {
        Arrivals::Uniform => "uniform",
        Arrivals::Poisson => "poisson",
    };
    let ops = l.histogram.buckets.iter().map(|b| b[1]).sum::<u64>();
    layout.lat_row(out, "resp", ops, None, l);
    let _ = writeln!(out, "  resp: from each I/O's intended issue time; the rows above from the submit call");
    let _ = writeln!(
        out,
        "\n  fixed rate {} IOPS ({arrivals}), achieved {} IOPS",
        fmt_count(o.target_iops),
        fmt_count(o.achieved_iops)
    );
    let _ = writeln!(
        out,
        "  schedule lag p99 {}, max {}; {:.2}% of I/Os over {} late",
        fmt_ns(o.lag_ns.p(Pct::P99) as f64),
        fmt_ns(o.lag_ns.max as f64),
        o.late_pct,
        fmt_ns(o.late_threshold_ns as f64)
    );
    if let Some(t) = &o.tool_lag_ns {
        let _ = writeln!(
            out,
            "  drivelab's own lateness (from a free slot) p99 {}, p99.9 {}, max {}",
            fmt_ns(t.p(Pct::P99) as f64),
            fmt_ns(t.p(Pct::P99_9) as f64),
            fmt_ns(t.max as f64)
        );
    }
    let _ = writeln!(out, "  pace {}: spinning {:.0}% of the jobs' time", o.pace.name(), o.spin_pct);
    if o.gave_up {
        let _ = writeln!(
            out,
            "  GAVE UP: {} behind schedule (limit {}): the target could not carry this rate",
            fmt_ns(o.final_lag_ns as f64),
            fmt_ns(o.max_lag_ns.unwrap_or(0) as f64)
        );
    } else if !o.kept_up {
        let _ = writeln!(
            out,
            "  BEHIND: {} behind schedule at the end: the target could not keep up",
            fmt_ns(o.final_lag_ns as f64)
        );
    }
}

/// Which latency the table shows, and (io_uring) fio's clat and slat beside it.
fn lat_definition(out: &mut String, r: &RunResult) {
    let _ = writeln!(out, "  latency: from just before the submit call (fio's lat)");
    if let Some(clat) = &r.total.clat_ns {
        let slat = r.slat_ns.as_ref().map(|s| format!(", slat {} per call", fmt_ns(s.mean))).unwrap_or_default();
        let _ = writeln!(
            out,
            "  clat (after submit) p50 {} p99 {}{slat}",
            fmt_ns(clat.p(Pct::P50) as f64),
            fmt_ns(clat.p(Pct::P99) as f64)
        );
    }
}

/// A line per target; a path too long for the line is abbreviated from the left (its end names
/// the file), so the figures stay a column.
fn per_target(out: &mut String, r: &RunResult, width: usize) {
    if r.per_target.len() < 2 {
        return;
    }
    let _ = writeln!(out, "\n  per target:");
    let figures: Vec<String> = r
        .per_target
        .iter()
        .map(|t| {
            format!(
                " {:>7} IOPS {:>8.1} MB/s  p99 {}",
                fmt_count(t.total.iops),
                t.total.bw_mb_per_s,
                fmt_ns(t.total.lat_ns.p(Pct::P99) as f64)
            )
        })
        .collect();
    let room = width.saturating_sub(2 + figures.iter().map(|f| term::columns(f)).max().unwrap_or(0));
    let paths: Vec<String> = r.per_target.iter().map(|t| term::keep_end(&t.path, room)).collect();
    let w = paths.iter().map(|p| term::columns(p)).max().unwrap_or(0).max(24);
    for (p, f) in paths.iter().zip(&figures) {
        let _ = writeln!(out, "  {p:<w$}{f}");
    }
}

fn cpu_lines(out: &mut String, r: &RunResult) {
    let c = &r.cpu;
    let _ = writeln!(
        out,
        "\n  cpu    usr {:.1}% sys {:.1}% of a core ({:.1}% of {} core{}), {} per I/O",
        c.usr_pct,
        c.sys_pct,
        c.machine_pct,
        c.cores,
        if c.cores == 1 { "" } else { "s" },
        fmt_ns(c.ns_per_io)
    );
    if let Some(sq) = c.sqpoll_pct {
        let _ = writeln!(out, "         sys includes the SQPOLL kernel threads: {sq:.1}% of a core");
    }
    let _ = writeln!(out, "  qd     {:.1} in flight on average per job (of {})", r.qd_mean, r.spec.qd);
    if c.cpu_bound {
        let _ = writeln!(
            out,
            "  CPU-bound: a job thread was running {:.0}% and waiting for a CPU {:.0}% of the time — the CPU, not the target, was the limit",
            c.busiest_job_pct,
            (c.runnable_pct - c.busiest_job_pct).max(0.0)
        );
    }
}

/// With verify: what was stamped and checked, and every wrong unit counted by kind, with the
/// first one in detail (the rest are in the result's `verify.inline.first` / `verify.after.first`).
fn verify_lines(out: &mut String, r: &RunResult) {
    let Some(v) = &r.verify else { return };
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
    let _ = writeln!(out, "{line}");
    if let Some(j) = &v.journal {
        let durable = match r.spec.sync {
            drivelab_engine::spec::SyncMode::Dsync => "each acknowledged write durable (O_DSYNC)",
            drivelab_engine::spec::SyncMode::Fsync { .. } => "acknowledged writes durable at each fsync",
            drivelab_engine::spec::SyncMode::None => "no write promised durable (no O_DSYNC, no fsync)",
        };
        let _ = writeln!(out, "         journaled in {j}: {durable}");
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
        let _ = writeln!(out, "{line}");
    }
    let wrong = v.inline.mismatches + v.after.as_ref().map_or(0, |a| a.mismatches);
    if wrong == 0 {
        return;
    }
    let mut kinds: std::collections::BTreeMap<_, u64> = Default::default();
    for c in std::iter::once(&v.inline).chain(v.after.as_ref()) {
        for (k, n) in &c.by_kind {
            *kinds.entry(*k).or_default() += n;
        }
    }
    let kinds: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {}", k.name())).collect();
    let _ = writeln!(out, "  WRONG DATA: {wrong} unit(s) not as written: {}", kinds.join(", "));
    if let Some(m) = v.inline.first.first().or_else(|| v.after.as_ref().and_then(|a| a.first.first())) {
        let _ = writeln!(out, "  first: {} {}", m.target, m.describe());
    }
}

/// I/O errors (counted here; each is on stderr) and the run's notices.
fn problems(out: &mut String, r: &RunResult) {
    if !r.errors.is_empty() {
        let failed: u64 = r.errors.iter().map(|e| e.count).sum();
        let _ = writeln!(
            out,
            "  I/O ERRORS: {failed} I/O(s) failed (on standard error); the figures describe a failing target{}",
            if r.stopped_by_error { "; the run stopped at the first (--continue-on-error goes on)" } else { "" }
        );
    }
    for n in &r.notices {
        let _ = writeln!(out, "  note: {n}");
    }
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
}
