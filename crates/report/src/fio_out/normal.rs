//! fio's normal output (stat.c `show_thread_status_normal`, `show_run_stats`): a block per
//! job entry, then a `Run status group N (all jobs):` block per group. Figures as in the JSON
//! ([`super::figures`]); `pid=0` (drivelab's jobs are threads of one process) and no
//! `Disk stats` block (drivelab does not sample the devices' I/O statistics).

use std::fmt::Write;

use super::figures::{lat_ranges, Ddir, Dir, Lat, LAT_KEYS};
use super::json::ctime_of;
use super::model::{Entry, Model};
use super::text::{human, lat_unit, line_unit};

fn lat_line(out: &mut String, name: &str, l: &Lat) {
    if l.n == 0 {
        return;
    }
    let (unit, div) = line_unit(l.min, l.max, l.stddev);
    let d = div as f64;
    let _ = writeln!(
        out,
        "    {name} ({unit}): min={}, max={}, avg={:5.02}, stdev={:5.02}",
        human((l.min / div) as f64, 1000.0, ""),
        human((l.max / div) as f64, 1000.0, ""),
        l.mean / d,
        l.stddev / d
    );
}

fn percentiles(out: &mut String, name: &str, l: &Lat) {
    let p = l.percentiles();
    if p.is_empty() {
        return;
    }
    let (min, max) = (p.first().map_or(0, |x| x.1), p.last().map_or(0, |x| x.1));
    let (unit, div) = lat_unit(min, max);
    let scaled: Vec<(f64, u64)> = p.iter().map(|&(q, v)| (q, v.div_ceil(div))).collect();
    let width = ((scaled.last().map_or(1, |x| x.1).max(1) as f64).log10() as usize + 1).max(5);
    let per_line = 73 / (2 + 10 + width);
    let _ = write!(out, "    {name} percentiles ({unit}):\n     |");
    for (j, (q, v)) in scaled.iter().enumerate() {
        if j != 0 && j % per_line == 0 {
            out.push_str("     |");
        }
        let last = j + 1 == scaled.len();
        let _ = write!(out, " {q:5.2}th=[{v:width$}]{}", if last { '\n' } else { ',' });
        if !last && j % per_line == per_line - 1 {
            out.push('\n');
        }
    }
}

fn ddir(out: &mut String, name: &str, d: &Dir, group_bw: u64) {
    if d.ops == 0 {
        return;
    }
    let bw = d.bw_bytes as f64;
    let _ = writeln!(
        out,
        "  {name}: IOPS={}, BW={} ({})({}/{}msec)",
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
    percentiles(out, "clat", &d.clat);
    for (class, level, l) in &d.prios {
        let share = if d.clat.n > 0 { l.n as f64 * 100.0 / d.clat.n as f64 } else { 0.0 };
        percentiles(out, &format!("clat prio {class}/{level} ({share:.2}% of IOs)"), l);
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

fn entry(out: &mut String, e: &Entry, group_bw: [u64; 3]) {
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
    for (k, name) in [" read", "write", " trim"].iter().enumerate() {
        ddir(out, name.trim_start(), &dirs[k], group_bw[k]);
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
        percentiles(out, "sync", &l);
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
    let _ = writeln!(
        out,
        "     issued rwts: total={},{},{},{} short={},{},{},0 dropped=0,0,0,0",
        dirs[0].ops,
        dirs[1].ops,
        dirs[2].ops,
        r.sync.as_ref().map_or(0, |s| s.ops),
        dirs[0].short,
        dirs[1].short,
        dirs[2].short
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

fn group(out: &mut String, m: &Model, g: usize) {
    let _ = writeln!(out, "\nRun status group {g} (all jobs):");
    for (k, name) in ["   READ", "  WRITE", "   TRIM"].iter().enumerate() {
        let d = [Ddir::Read, Ddir::Write, Ddir::Trim][k];
        let dirs: Vec<Dir> =
            m.entries.iter().filter(|e| e.groupid == g).map(|e| Dir::of(e.result, d)).filter(|d| d.ops > 0).collect();
        if dirs.is_empty() {
            continue;
        }
        let total: f64 = dirs.iter().map(|d| d.bw_bytes as f64).sum();
        let lo = dirs.iter().map(|d| d.bw_bytes).min().unwrap_or(0) as f64;
        let hi = dirs.iter().map(|d| d.bw_bytes).max().unwrap_or(0) as f64;
        let io: f64 = dirs.iter().map(|d| d.bytes as f64).sum();
        let rlo = dirs.iter().map(|d| d.runtime_ms).min().unwrap_or(0);
        let rhi = dirs.iter().map(|d| d.runtime_ms).max().unwrap_or(0);
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
}

/// fio's normal output of `m`.
pub(super) fn render(m: &Model) -> String {
    let mut out = String::new();
    for e in &m.entries {
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
