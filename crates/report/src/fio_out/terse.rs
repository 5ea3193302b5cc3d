//! fio's terse output, version 3 (`--output-format=terse`, `--minimal`; stat.c
//! `show_thread_status_terse_all`): one `;`-separated line per job entry. Per direction (read,
//! then write): KiB, KiB/s, IOPS, runtime ms; slat, clat, lat as min;max;mean;dev in µs; fio's
//! 20 clat percentile slots (`P%=µs`, unused slots `0%=0`); bw min;max;agg%;mean;dev (KiB/s).
//! Then CPU (usr%;sys%;ctx;majf;minf), IO depths (7), latency us (10) and ms (12); then, as
//! fio, each disk's statistics (name;ios r;w;merges r;w;ticks r;w;in_queue;util%).

use std::fmt::Write;

use super::figures::{lat_ranges, Ddir, Dir, Lat};
use super::json::FIO_VERSION;
use super::model::{Entry, Model};
use drivelab_lab::fiojob::reporting::{Reporting, Unified};

/// fio's number of percentile slots in a terse line.
const SLOTS: usize = 20;

fn lat(f: &mut Vec<String>, l: &Lat) {
    f.push((l.min / 1000).to_string());
    f.push((l.max / 1000).to_string());
    f.push(format!("{:.6}", l.mean / 1000.0));
    f.push(format!("{:.6}", l.stddev / 1000.0));
}

fn ddir(f: &mut Vec<String>, d: &Dir, group_bw: u64, rep: &Reporting) {
    f.push((d.bytes >> 10).to_string());
    f.push((d.bw_bytes >> 10).to_string());
    f.push(format!("{:.0}", d.iops));
    f.push(d.runtime_ms.to_string());
    lat(f, &d.slat);
    lat(f, &d.clat);
    // fio's slots hold lat's percentiles with lat_percentiles, else clat's, else none; without
    // latencies fio still lists its percentiles, each 0.
    let p = match (rep.lat, rep.clat) {
        (true, _) => d.lat.percentiles(&rep.list),
        (false, true) => d.clat.percentiles(&rep.list),
        (false, false) => Vec::new(),
    };
    let p = match p.is_empty() {
        true if rep.lat || rep.clat => rep.list.values().iter().map(|&q| (q, 0)).collect(),
        _ => p,
    };
    for k in 0..SLOTS {
        match p.get(k) {
            Some((q, v)) => f.push(format!("{q:.6}%={}", v / 1000)),
            None => f.push("0%=0".into()),
        }
    }
    lat(f, &d.lat);
    let agg = if group_bw > 0 { d.bw_bytes as f64 * 100.0 / group_bw as f64 } else { 0.0 };
    let s = &d.bw_kib;
    f.push(format!("{:.0}", s.min));
    f.push(format!("{:.0}", s.max));
    f.push(format!("{agg:.6}%"));
    f.push(format!("{:.6}", s.mean));
    f.push(format!("{:.6}", s.dev));
}

/// The fields of one entry's line.
fn fields(e: &Entry, group_bw: [u64; 4]) -> Vec<String> {
    let r = e.result;
    let dirs = [Ddir::Read, Ddir::Write, Ddir::Trim].map(|d| Dir::of(r, d));
    let error = super::figures::job_error(r);
    let mut f: Vec<String> =
        vec!["3".into(), FIO_VERSION.into(), e.name.clone(), e.groupid.to_string(), error.to_string()];
    let rep = &e.rep;
    // fio's unified_rw_reporting: `mixed` in read's place and no write (`mixed`), or the
    // directions then `mixed` (`both`).
    if rep.unified == Unified::Mixed {
        ddir(&mut f, &Dir::of(r, Ddir::Mixed), group_bw[3], rep);
    } else {
        ddir(&mut f, &dirs[0], group_bw[0], rep);
        ddir(&mut f, &dirs[1], group_bw[1], rep);
    }
    if rep.unified == Unified::Both {
        ddir(&mut f, &Dir::of(r, Ddir::Mixed), group_bw[3], rep);
    }
    f.push(format!("{:.6}%", r.cpu.usr_pct));
    f.push(format!("{:.6}%", r.cpu.sys_pct));
    let (counts, depths) = super::figures::usage(r);
    f.extend(counts.map(|c| c.to_string()));
    f.extend(depths[0].map(|p| format!("{p:.1}%")));
    let (ns, us, ms) = lat_ranges(&[&dirs[0], &dirs[1], &dirs[2]]);
    // fio's terse line has no ns ranges: what is under 1 µs counts in its first µs range.
    let below_us: f64 = ns.iter().sum();
    for (k, v) in us.iter().enumerate() {
        f.push(format!("{:.2}%", if k == 0 { v + below_us } else { *v }));
    }
    f.extend(ms.iter().map(|v| format!("{v:.2}%")));
    f
}

/// One line per entry.
pub(super) fn render(m: &Model) -> String {
    let mut out = String::new();
    // fio appends each disk's statistics to every line.
    let mut disks = String::new();
    for d in &m.disks {
        let _ = write!(
            disks,
            ";{};{};{};{};{};{};{};{};{:.2}%",
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
    for e in &m.entries {
        out.push_str(&fields(e, super::json::group_bw(m, e.groupid)).join(";"));
        out.push_str(&disks);
        out.push('\n');
    }
    out
}

/// Fields of a terse v3 line before fio's disk statistics.
#[cfg(test)]
pub(super) const FIELDS: usize = 5 + 2 * (4 + 4 + 4 + SLOTS + 4 + 5) + 5 + 7 + 10 + 12;
