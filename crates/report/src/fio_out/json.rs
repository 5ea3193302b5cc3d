//! fio's JSON document (`--output-format=json`, and `json+` with each completion latency's
//! `bins`), in fio 3.33's keys, order and units (stat.c `show_thread_status_json`,
//! `add_ddir_status_json`): bytes, KiB (`io_kbytes`, `bw` in KiB/s), ms (`runtime`), ns (the
//! `*_ns` latencies), %.
//!
//! Two top-level keys are drivelab's own: `"drivelab version"` (who wrote the document; fio's
//! readers ignore keys they do not know, and drivelab's reader names it) and
//! `"drivelab not measured"` (the figures drivelab does not measure and how they are filled).
//! `disk_util` holds the disks under the targets (their kernel statistics before and after each
//! run), in fio's keys and units (ms ticks, `util` in %).

use super::figures::{lat_ranges, Ddir, Dir, Lat, LAT_KEYS, NOT_MEASURED};
use super::jw::{obj, J};
use super::model::{Entry, Model};
use super::plat;
use drivelab_lab::fiojob::reporting::{PercentileList, Reporting, Unified};

/// fio's version the document's shape is (fio's readers check this string).
pub(super) const FIO_VERSION: &str = "fio-3.33";

/// fio's "time": ctime's layout, UTC.
fn ctime(ms: u64) -> String {
    let secs = (ms / 1000) as i64;
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil(days);
    const WD: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MO: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    format!(
        "{} {} {:2} {:02}:{:02}:{:02} {}",
        WD[days.rem_euclid(7) as usize],
        MO[(m - 1) as usize],
        d,
        rem / 3600,
        rem / 60 % 60,
        rem % 60,
        y
    )
}

/// Days since 1970-01-01 as (year, month, day) (the proleptic Gregorian calendar).
fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

pub(super) fn ctime_of(ms: u64) -> String {
    ctime(ms)
}

fn lat(l: &Lat, percentiles: Option<&PercentileList>, bins: bool) -> J {
    let mut o = obj().u("min", l.min).u("max", l.max).f("mean", l.mean).f("stddev", l.stddev).u("N", l.n);
    if let Some(list) = percentiles.filter(|_| l.n > 0) {
        let p = l.percentiles(list);
        if !p.is_empty() {
            o = o.put("percentile", J::O(p.into_iter().map(|(p, v)| (format!("{p:.6}"), J::U(v))).collect()));
        }
    }
    if l.n > 0 && bins {
        if let Some(h) = l.hist {
            o = o.put("bins", J::O(plat::bins(h).into_iter().map(|(v, c)| (v.to_string(), J::U(c))).collect()));
        }
    }
    o.done()
}

/// A direction's object; `rep`: which latencies list which percentiles (and json+'s bins), as
/// the job's `slat_percentiles`, `clat_percentiles`, `lat_percentiles`, `percentile_list` say.
fn ddir(d: &Dir, group_bw: u64, plus: bool, rep: &Reporting) -> J {
    let list = |on: bool| on.then_some(&rep.list);
    let agg = if group_bw > 0 { d.bw_bytes as f64 * 100.0 / group_bw as f64 } else { 0.0 };
    let mut o = obj()
        .u("io_bytes", d.bytes)
        .u("io_kbytes", d.bytes >> 10)
        .u("bw_bytes", d.bw_bytes)
        .u("bw", d.bw_bytes >> 10)
        .f("iops", d.iops)
        .u("runtime", d.runtime_ms)
        .u("total_ios", d.ops)
        .u("short_ios", d.short)
        .u("drop_ios", 0)
        .put("slat_ns", lat(&d.slat, list(rep.slat), plus && rep.slat))
        .put("clat_ns", lat(&d.clat, list(rep.clat), plus && rep.clat))
        .put("lat_ns", lat(&d.lat, list(rep.lat), plus && rep.lat));
    if !d.prios.is_empty() {
        // fio's per-priority completion latencies, with its percentiles (and json+'s bins).
        let prio = |(class, level, l): &(u16, u16, Lat)| {
            obj()
                .u("prioclass", u64::from(*class))
                .u("prio", u64::from(*level))
                .put("clat_ns", lat(l, Some(&rep.list), plus))
                .done()
        };
        o = o.put("prios", J::A(d.prios.iter().map(prio).collect()));
    }
    o.u("bw_min", d.bw_kib.min as u64)
        .u("bw_max", d.bw_kib.max as u64)
        .f("bw_agg", agg)
        .f("bw_mean", d.bw_kib.mean)
        .f("bw_dev", d.bw_kib.dev)
        .u("bw_samples", d.bw_kib.n)
        .u("iops_min", d.iops_s.min as u64)
        .u("iops_max", d.iops_s.max as u64)
        .f("iops_mean", d.iops_s.mean)
        .f("iops_stddev", d.iops_s.dev)
        .u("iops_samples", d.iops_s.n)
        .done()
}

fn pct_obj(keys: &[&str], values: &[f64]) -> J {
    J::O(keys.iter().zip(values).map(|(k, v)| (k.to_string(), J::F(*v))).collect())
}

fn entry(e: &Entry, group_bw: [u64; 4], plus: bool) -> J {
    let r = e.result;
    let dirs = [Ddir::Read, Ddir::Write, Ddir::Trim].map(|d| Dir::of(r, d));
    let sync = r.sync.as_ref().filter(|s| s.ops > 0);
    // fio's sync block: fsync/fdatasync latencies with their percentiles (etcd's recipe reads the p99).
    let sync_lat = sync.map(|s| Lat::of(&s.lat_ns, s.ops));
    let (ns, us, ms) = lat_ranges(&[&dirs[0], &dirs[1], &dirs[2]]);
    let keys: Vec<String> = LAT_KEYS.iter().map(u64::to_string).collect();
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    let mut ms_keys = keys.clone();
    ms_keys.extend(["2000", ">=2000"]);
    let depth_keys = ["1", "2", "4", "8", "16", "32", ">=64"];
    let io_keys = ["0", "4", "8", "16", "32", "64", ">=64"];
    let error = super::figures::job_error(r);
    let elapsed_s = (r.spec.ramp_ns + r.runtime_ns).div_ceil(1_000_000_000);
    // fio's latency target (ns; its window in µs); without one fio writes 0, 0 and 100.
    let lt = r.spec.lat_target.unwrap_or_default();
    let (counts, depths) = super::figures::usage(r);
    let out = obj()
        .s("jobname", &e.name)
        .u("groupid", e.groupid as u64)
        .i("error", i64::from(error))
        .u("eta", 0)
        .u("elapsed", elapsed_s)
        .put("job options", J::O(e.options.iter().map(|(k, v)| (k.clone(), J::S(v.clone()))).collect()));
    let rep = &e.rep;
    let mixed = || ddir(&Dir::of(r, Ddir::Mixed), group_bw[3], plus, rep);
    // fio's unified_rw_reporting: `mixed` alone in the directions' place (and no sync block),
    // or after them (`both`).
    let out = match rep.unified {
        Unified::Mixed => out.put("mixed", mixed()),
        split_or_both => {
            let out = out
                .put("read", ddir(&dirs[0], group_bw[0], plus, rep))
                .put("write", ddir(&dirs[1], group_bw[1], plus, rep))
                .put("trim", ddir(&dirs[2], group_bw[2], plus, rep))
                .put(
                    "sync",
                    obj()
                        .u("total_ios", sync.map_or(0, |s| s.ops))
                        .put("lat_ns", lat(&sync_lat.unwrap_or_else(Lat::none), Some(&rep.list), false))
                        .done(),
                );
            if split_or_both == Unified::Both {
                out.put("mixed", mixed())
            } else {
                out
            }
        }
    };
    let out = out
        .u("job_runtime", (r.runtime_ns + 500_000) / 1_000_000)
        .f("usr_cpu", r.cpu.usr_pct)
        .f("sys_cpu", r.cpu.sys_pct)
        .u("ctx", counts[0])
        .u("majf", counts[1])
        .u("minf", counts[2])
        .put("iodepth_level", pct_obj(&depth_keys, &depths[0]))
        .put("iodepth_submit", pct_obj(&io_keys, &depths[1]))
        .put("iodepth_complete", pct_obj(&io_keys, &depths[2]))
        .put("latency_ns", pct_obj(&keys, &ns))
        .put("latency_us", pct_obj(&keys, &us))
        .put("latency_ms", pct_obj(&ms_keys, &ms));
    // fio writes these with continue_on_error (ignore_error turns it on) only.
    let out = match super::figures::fio_errors(r) {
        Some((total, first)) => out.u("total_err", total).i("first_error", i64::from(first)),
        None => out,
    };
    let out = out
        .u("latency_depth", u64::from(r.kinds.latency_depth.unwrap_or(r.spec.qd)))
        .u("latency_target", lt.target_ns)
        .f("latency_percentile", lt.percentile)
        .u("latency_window", lt.window_ns / 1000);
    match &r.kinds.steadystate {
        Some(ss) => out.put("steadystate", steadystate(ss)).done(),
        None => out.done(),
    }
}

/// fio's `steadystate` block (fio writes it last in the job's entry, with `ss`): the window's
/// means are whole numbers, as fio divides.
fn steadystate(ss: &drivelab_engine::result::SteadyStateStats) -> J {
    let mean = |v: &[u64]| if ss.duration_s == 0 { 0 } else { v.iter().sum::<u64>() / ss.duration_s };
    let array = |v: &[u64]| J::A(v.iter().map(|&v| J::U(v)).collect());
    let mut data = obj().u("bw_mean", mean(&ss.bw_bytes_per_s)).u("iops_mean", mean(&ss.iops));
    // fio 3.39's latency criteria add the window's latencies (ns), before the IOPS.
    if !ss.lat_ns.is_empty() {
        data = data.u("lat_mean", mean(&ss.lat_ns)).put("lat_ns", array(&ss.lat_ns));
    }
    let data = data.put("iops", array(&ss.iops)).put("bw", array(&ss.bw_bytes_per_s)).done();
    obj()
        .s("ss", &ss.ss)
        .u("duration", ss.duration_s)
        .u("attained", u64::from(ss.attained))
        .s("criterion", &ss.criterion)
        .f("max_deviation", ss.max_deviation)
        .f("slope", ss.slope)
        .put("data", data)
        .done()
}

/// Each group's bandwidth per direction (bytes/s: read, write, trim, the three summed as fio's
/// `mixed`), summed over its entries (fio's `bw_agg` is an entry's share of it).
pub(super) fn group_bw(m: &Model, groupid: usize) -> [u64; 4] {
    let mut out = [0u64; 4];
    for e in m.entries.iter().filter(|e| e.groupid == groupid) {
        for (k, d) in [Ddir::Read, Ddir::Write, Ddir::Trim, Ddir::Mixed].into_iter().enumerate() {
            out[k] += Dir::of(e.result, d).bw_bytes;
        }
    }
    out
}

/// The document, `plus` for json+.
pub(super) fn render(m: &Model, plus: bool) -> String {
    let mut top = obj()
        .s("fio version", FIO_VERSION)
        .s("drivelab version", env!("CARGO_PKG_VERSION"))
        .put("drivelab not measured", J::A(NOT_MEASURED.iter().map(|s| J::S(s.to_string())).collect()))
        .u("timestamp", m.ended_ms / 1000)
        .u("timestamp_ms", m.ended_ms)
        .s("time", &ctime(m.ended_ms));
    if !m.global.is_empty() {
        top = top.put("global options", J::O(m.global.iter().map(|(k, v)| (k.clone(), J::S(v.clone()))).collect()));
    }
    let jobs = m.entries.iter().map(|e| entry(e, group_bw(m, e.groupid), plus)).collect();
    top = top.put("jobs", J::A(jobs));
    if !m.disks.is_empty() {
        let disk = |d: &drivelab_engine::diskstat::DiskUtil| {
            obj()
                .s("name", &d.name)
                .u("read_ios", d.read_ios)
                .u("write_ios", d.write_ios)
                .u("read_merges", d.read_merges)
                .u("write_merges", d.write_merges)
                .u("read_ticks", d.read_ticks_ms)
                .u("write_ticks", d.write_ticks_ms)
                .u("in_queue", d.in_queue_ms)
                .f("util", d.util_pct())
                .done()
        };
        top = top.put("disk_util", J::A(m.disks.iter().map(disk).collect()));
    }
    top.done().to_text()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_is_ctimes_layout() {
        // fio printed "Thu Nov 26 12:56:31 2026" for timestamp 1795697791.
        assert_eq!(ctime(1_795_697_791_460), "Thu Nov 26 12:56:31 2026");
        assert_eq!(ctime(0), "Thu Jan  1 00:00:00 1970");
    }
}
