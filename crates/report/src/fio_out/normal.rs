//! fio's normal output (stat.c `show_thread_status_normal`, `show_run_stats`): a block per
//! job entry, then a `Run status group N (all jobs):` block per group. Figures as in the JSON
//! ([`super::figures`]); `pid=0` (drivelab's jobs are threads of one process) and no
//! `Disk stats` block (drivelab does not sample the devices' I/O statistics).

use std::fmt::Write;

use super::figures::{lat_ranges, Ddir, Dir, Lat, LAT_KEYS};
use super::json::ctime_of;
use super::model::{Entry, Model};
use super::text::{human, lat_unit, line_unit, num2str};
use drivelab_lab::fiojob::reporting::{PercentileList, Reporting, Unified};

fn lat_line(out: &mut String, name: &str, l: &Lat) {
    if l.n == 0 {
        return;
    }
    let (unit, div) = line_unit(l.min, l.max, l.stddev);
    let d = div as f64;
    let _ = writeln!(
        out,
        "    {name} ({unit}): min={}, max={}, avg={:5.02}, stdev={:5.02}",
        num2str(l.min / div, 6, false, ""),
        num2str(l.max / div, 6, false, ""),
        l.mean / d,
        l.stddev / d
    );
}

/// fio's percentile block (stat.c `show_clat_percentiles`): the list's values with as many
/// digits after the point as it was given with (`percentile_precision`).
fn percentiles(out: &mut String, name: &str, l: &Lat, list: &PercentileList) {
    let p = l.percentiles(list);
    if p.is_empty() {
        return;
    }
    let min = p.iter().map(|x| x.1).min().unwrap_or(0);
    let max = p.iter().map(|x| x.1).max().unwrap_or(0);
    let (unit, div) = lat_unit(min, max);
    let scaled: Vec<(f64, u64)> = p.iter().map(|&(q, v)| (q, v.div_ceil(div))).collect();
    let width = ((max / div).max(1) as f64).log10() as usize + 1;
    let width = width.max(5);
    let prec = usize::from(list.precision);
    let per_line = 73 / (prec + 10 + width);
    let _ = write!(out, "    {name} percentiles ({unit}):\n     |");
    for (j, (q, v)) in scaled.iter().enumerate() {
        if j != 0 && j % per_line == 0 {
            out.push_str("     |");
        }
        let last = j + 1 == scaled.len();
        let _ = write!(out, " {q:qw$.prec$}th=[{v:width$}]{}", if last { '\n' } else { ',' }, qw = prec + 3);
        if !last && j % per_line == per_line - 1 {
            out.push('\n');
        }
    }
}

/// A direction's block; `after`: what fio adds to its first line (the write line's zone resets).
fn ddir(out: &mut String, name: &str, d: &Dir, group_bw: u64, rep: &Reporting, after: &str) {
    if d.ops == 0 {
        return;
    }
    let bw = d.bw_bytes as f64;
    let _ = writeln!(
        out,
        "  {name}: IOPS={}, BW={} ({})({}/{}msec){after}",
        human(d.iops, 1000.0, ""),
        human(bw, 1024.0, "B/s"),
        human(bw, 1000.0, "B/s"),
        human(d.bytes as f64, 1024.0, "B"),
        d.runtime_ms
    );
    lat_line(out, "slat", &d.slat);
    lat_line(out, "clat", &d.clat);
    lat_line(out, " lat", &d.lat);
    for (class, level, l) in &d.prios {
        lat_line(out, &format!("clat prio {class}/{level}"), l);
    }
    // As the job's slat_percentiles, clat_percentiles and lat_percentiles say.
    for (on, name, l) in [(rep.slat, "slat", &d.slat), (rep.clat, "clat", &d.clat), (rep.lat, "lat", &d.lat)] {
        if on {
            percentiles(out, name, l, &rep.list);
        }
    }
    if rep.clat || rep.lat {
        for (class, level, l) in &d.prios {
            let share = if d.clat.n > 0 { l.n as f64 * 100.0 / d.clat.n as f64 } else { 0.0 };
            percentiles(out, &format!("clat prio {class}/{level} ({share:.2}% of IOs)"), l, &rep.list);
        }
    }
    if d.bw_kib.n > 0 {
        let per = if group_bw > 0 { bw * 100.0 / group_bw as f64 } else { 0.0 };
        let s = &d.bw_kib;
        let _ = writeln!(
            out,
            "   bw (  KiB/s): min={:.0}, max={:.0}, per={per:3.2}%, avg={:.2}, stdev={:.2}, samples={}",
            s.min, s.max, s.mean, s.dev, s.n
        );
        let s = &d.iops_s;
        let _ = writeln!(
            out,
            "   iops        : min={:.0}, max={:.0}, avg={:.2}, stdev={:.2}, samples={}",
            s.min, s.max, s.mean, s.dev, s.n
        );
    }
}

fn ranges(out: &mut String, unit: &str, keys: &[String], values: &[f64]) {
    let shown: Vec<String> =
        keys.iter().zip(values).filter(|(_, &v)| v > 0.0).map(|(k, v)| format!("{k}={v:3.2}%")).collect();
    for chunk in shown.chunks(5) {
        let _ = writeln!(out, "  lat ({unit})   : {}", chunk.join(", "));
    }
}

fn entry(out: &mut String, e: &Entry, group_bw: [u64; 4]) {
    let r = e.result;
    let dirs = [Ddir::Read, Ddir::Write, Ddir::Trim].map(|d| Dir::of(r, d));
    let error = super::figures::job_error(r);
    // fio: an errored job's line says what failed after the number (its `verror`).
    let what = match (error, r.errors.is_empty()) {
        (0, _) => String::new(),
        (_, true) => format!(" (file:drivelab, func=verify, error={})", super::figures::strerror(error)),
        (_, false) => format!(" (file:drivelab, func=io_u error, error={})", super::figures::strerror(error)),
    };
    let _ = writeln!(
        out,
        "{}: (groupid={}, jobs={}): err={error:2}{what}: pid=0: {}",
        e.name,
        e.groupid,
        e.jobs,
        ctime_of(r.started_unix_ms)
    );
    let rep = &e.rep;
    // fio's unified_rw_reporting: the directions summed as `mixed` instead of them, or after.
    if rep.unified != Unified::Mixed {
        // fio on Linux (zoned block support built in) ends every write line with the zone resets.
        let resets = format!("; {} zone resets", r.kinds.zone_resets.unwrap_or(0));
        for (k, name) in ["read", "write", "trim"].iter().enumerate() {
            ddir(out, name, &dirs[k], group_bw[k], rep, if k == 1 { &resets } else { "" });
        }
    }
    if rep.unified != Unified::Split {
        ddir(out, "mixed", &Dir::of(r, Ddir::Mixed), group_bw[3], rep, "");
    }
    let (ns, us, ms) = lat_ranges(&[&dirs[0], &dirs[1], &dirs[2]]);
    let mut keys: Vec<String> = LAT_KEYS.iter().map(u64::to_string).collect();
    ranges(out, "nsec", &keys, &ns);
    ranges(out, "usec", &keys, &us);
    keys.extend([String::from("2000"), String::from(">=2000")]);
    ranges(out, "msec", &keys, &ms);
    // fio's sync block (fsync, fdatasync): after the latency ranges, before the CPU line.
    if let Some(s) = r.sync.as_ref().filter(|s| s.ops > 0) {
        let l = super::figures::Lat::of(&s.lat_ns, s.ops);
        out.push_str("  fsync/fdatasync/sync_file_range:\n");
        lat_line(out, "sync", &l);
        percentiles(out, "sync", &l, &rep.list);
    }
    let (c, depths) = super::figures::usage(r);
    let _ = writeln!(
        out,
        "  cpu          : usr={:.2}%, sys={:.2}%, ctx={}, majf={}, minf={}",
        r.cpu.usr_pct, r.cpu.sys_pct, c[0], c[1], c[2]
    );
    let line = |keys: [&str; 7], v: &[f64; 7]| -> String {
        keys.iter().zip(v).map(|(k, p)| format!("{k}={p:.1}%")).collect::<Vec<_>>().join(", ")
    };
    let level = ["1", "2", "4", "8", "16", "32", ">=64"];
    let calls = ["0", "4", "8", "16", "32", "64", ">=64"];
    let _ = writeln!(out, "  IO depths    : {}", line(level, &depths[0]));
    let _ = writeln!(out, "     submit    : {}", line(calls, &depths[1]));
    let _ = writeln!(out, "     complete  : {}", line(calls, &depths[2]));
    // With `mixed`, fio counts every direction's I/Os in the first slot.
    let mut issued = dirs.each_ref().map(|d| (d.ops, d.short));
    if rep.unified == Unified::Mixed {
        let m = Dir::of(r, Ddir::Mixed);
        issued = [(m.ops, m.short), (0, 0), (0, 0)];
    }
    let _ = writeln!(
        out,
        "     issued rwts: total={},{},{},{} short={},{},{},0 dropped=0,0,0,0",
        issued[0].0,
        issued[1].0,
        issued[2].0,
        r.sync.as_ref().map_or(0, |s| s.ops),
        issued[0].1,
        issued[1].1,
        issued[2].1
    );
    if let Some((total, first)) = super::figures::fio_errors(r) {
        let _ =
            writeln!(out, "     errors    : total={total}, first_error={first}/<{}>", super::figures::strerror(first));
    }
    // fio 3.33 writes the target in ns and the window in µs, as plain numbers.
    let lt = r.spec.lat_target.unwrap_or_default();
    let _ = writeln!(
        out,
        "     latency   : target={}, window={}, percentile={:.2}%, depth={}",
        lt.target_ns,
        lt.window_ns / 1000,
        lt.percentile,
        r.kinds.latency_depth.unwrap_or(r.spec.qd)
    );
}

/// One `Run status group` line's figures over a group's directions: (bandwidth summed, lowest,
/// highest, bytes, shortest and longest runtime).
fn group_line(out: &mut String, name: &str, f: (f64, f64, f64, f64, u64, u64)) {
    let (total, lo, hi, io, rlo, rhi) = f;
    let _ = writeln!(
        out,
        "{name}: bw={} ({}), {}-{} ({}-{}), io={} ({}), run={rlo}-{rhi}msec",
        human(total, 1024.0, "B/s"),
        human(total, 1000.0, "B/s"),
        human(lo, 1024.0, "B/s"),
        human(hi, 1024.0, "B/s"),
        human(lo, 1000.0, "B/s"),
        human(hi, 1000.0, "B/s"),
        human(io, 1024.0, "B"),
        human(io, 1000.0, "B"),
    );
}

fn group(out: &mut String, m: &Model, g: usize) {
    let _ = writeln!(out, "\nRun status group {g} (all jobs):");
    let entries: Vec<&Entry> = m.entries.iter().filter(|e| e.groupid == g).collect();
    let unified = entries.first().map_or(Unified::Split, |e| e.rep.unified);
    let figures = |d: Ddir| {
        let dirs: Vec<Dir> = entries.iter().map(|e| Dir::of(e.result, d)).filter(|d| d.ops > 0).collect();
        (!dirs.is_empty()).then(|| {
            (
                dirs.iter().map(|d| d.bw_bytes as f64).sum::<f64>(),
                dirs.iter().map(|d| d.bw_bytes).min().unwrap_or(0) as f64,
                dirs.iter().map(|d| d.bw_bytes).max().unwrap_or(0) as f64,
                dirs.iter().map(|d| d.bytes as f64).sum::<f64>(),
                dirs.iter().map(|d| d.runtime_ms).min().unwrap_or(0),
                dirs.iter().map(|d| d.runtime_ms).max().unwrap_or(0),
            )
        })
    };
    if unified == Unified::Mixed {
        if let Some(f) = figures(Ddir::Mixed) {
            group_line(out, "  MIXED", f);
        }
        return;
    }
    let each: Vec<_> = [Ddir::Read, Ddir::Write, Ddir::Trim].map(figures).into_iter().collect();
    for (k, name) in ["   READ", "  WRITE", "   TRIM"].iter().enumerate() {
        if let Some(f) = each[k] {
            group_line(out, name, f);
        }
    }
    // `both`: fio's mixed line sums the directions' lines (stat.c `show_mixed_group_stats`).
    let used: Vec<_> = each.into_iter().flatten().collect();
    if unified == Unified::Both && !used.is_empty() {
        let f = used.iter().fold((0.0, f64::MAX, 0.0, 0.0, u64::MAX, 0), |a, f| {
            (a.0 + f.0, a.1.min(f.1), f64::max(a.2, f.2), a.3 + f.3, a.4.min(f.4), a.5.max(f.5))
        });
        group_line(out, "  MIXED", f);
    }
}

/// fio's normal output of `m`.
pub(super) fn render(m: &Model) -> String {
    // fio starts its report with an empty line (after its job lines, or another format's).
    let mut out = String::from("\n");
    // fio leaves out a job that moved nothing (a job of a group not started yet, in a status
    // report); its group's line stays.
    let moved = |e: &&Entry| e.result.total.ops > 0 || e.result.total.bytes > 0 || !e.result.errors.is_empty();
    for e in m.entries.iter().filter(moved) {
        entry(&mut out, e, super::json::group_bw(m, e.groupid));
    }
    let mut groups: Vec<usize> = m.entries.iter().map(|e| e.groupid).collect();
    groups.dedup();
    for g in groups {
        group(&mut out, m, g);
    }
    if !m.disks.is_empty() {
        out.push_str("\nDisk stats (read/write):\n");
        for d in &m.disks {
            let _ = writeln!(
                out,
                "  {}: ios={}/{}, merge={}/{}, ticks={}/{}, in_queue={}, util={:.2}%",
                d.name,
                d.read_ios,
                d.write_ios,
                d.read_merges,
                d.write_merges,
                d.read_ticks_ms,
                d.write_ticks_ms,
                d.in_queue_ms,
                d.util_pct()
            );
        }
    }
    out
}
