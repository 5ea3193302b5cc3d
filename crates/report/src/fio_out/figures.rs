//! A result's figures in fio's terms, computed once for every format: per direction the I/O,
//! bandwidth, latencies (slat, clat, lat), fio's percentiles, and the per-second samples fio's
//! `bw_*` and `iops_*` summarize; per job the latency distribution (`latency_ns/us/ms`).
//!
//! What drivelab does not measure is filled as fio fills a figure it has no sample of (0, or
//! N = 0 for a latency), and listed in the document (`NOT_MEASURED`).

use drivelab_engine::hist::{Histogram, HistogramData, LatSummary};
use drivelab_engine::result::{DirStats, RunResult};
use drivelab_lab::fiojob::reporting::PercentileList;

/// Figures drivelab does not measure and how they are filled, written into the document.
pub(super) const NOT_MEASURED: [&str; 3] = [
    "short_ios: drivelab's short transfers; drop_ios: 0 (drivelab drops no I/O)",
    "slat_ns: N = 0 where drivelab has no submission latency of that direction alone (psync; a run mixing directions: its slat_ns is of the I/Os of all directions)",
    "bw_* and iops_* samples: one per second (fio: one per 500 ms); a direction's per-second bandwidth is its IOPS times its mean I/O size",
];

/// fio's job figures beyond latency and throughput: (ctx, majf, minf) and the three depth
/// distributions in % (level, submit, complete); 0 for a result saved before they were counted.
pub(super) fn usage(r: &RunResult) -> ([u64; 3], [[f64; 7]; 3]) {
    use drivelab_engine::usage::fio_pcts;
    let u = r.kinds.thread_usage.unwrap_or_default();
    let d = r.kinds.iodepths.unwrap_or_default();
    (
        [u.context_switches, u.major_faults, u.minor_faults],
        [fio_pcts(&d.issued_at_depth), fio_pcts(&d.submit_calls), fio_pcts(&d.reap_passes)],
    )
}

/// One latency: fio's {min, max, mean, stddev, N} and the histogram when there is one.
pub(super) struct Lat<'a> {
    pub n: u64,
    pub min: u64,
    pub max: u64,
    pub mean: f64,
    pub stddev: f64,
    pub hist: Option<&'a HistogramData>,
}

impl<'a> Lat<'a> {
    pub fn none() -> Lat<'a> {
        Lat { n: 0, min: 0, max: 0, mean: 0.0, stddev: 0.0, hist: None }
    }

    pub(super) fn of(s: &'a LatSummary, ops: u64) -> Lat<'a> {
        let counted: u64 = s.histogram.buckets.iter().map(|b| b[1]).sum();
        let n = if counted > 0 { counted } else { ops };
        if n == 0 {
            return Lat::none();
        }
        let hist = (counted > 0).then_some(&s.histogram);
        Lat { n, min: s.min, max: s.max, mean: s.mean, stddev: s.stdev, hist }
    }

    /// The job's percentiles (`percentile_list`) and each value (ns), from the histogram;
    /// empty without one.
    pub fn percentiles(&self, list: &PercentileList) -> Vec<(f64, u64)> {
        let Some(h) = self.hist else { return Vec::new() };
        let mut hist = Histogram::from_sparse(&h.buckets);
        hist.set_extremes(self.min, self.max);
        list.values().iter().map(|&p| (p, hist.percentile(p))).collect()
    }
}

/// Summary of per-second samples: fio's min, max, mean, standard deviation (n - 1), count.
#[derive(Clone, Copy, Default)]
pub(super) struct Samples {
    pub min: f64,
    pub max: f64,
    pub mean: f64,
    pub dev: f64,
    pub n: u64,
}

impl Samples {
    fn of(values: &[f64]) -> Samples {
        if values.is_empty() {
            return Samples::default();
        }
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let var =
            if values.len() > 1 { values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0) } else { 0.0 };
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        let max = values.iter().copied().fold(0.0, f64::max);
        Samples { min, max, mean, dev: var.sqrt(), n: values.len() as u64 }
    }
}

/// Which direction: fio's read, write, trim, or all three summed as one (fio's `mixed`, with
/// `unified_rw_reporting`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Ddir {
    Read,
    Write,
    Trim,
    Mixed,
}

/// One direction of one entry in fio's terms.
pub(super) struct Dir<'a> {
    pub ops: u64,
    pub bytes: u64,
    pub bw_bytes: u64,
    pub iops: f64,
    pub runtime_ms: u64,
    pub short: u64,
    pub slat: Lat<'a>,
    pub clat: Lat<'a>,
    pub lat: Lat<'a>,
    /// KiB/s per second.
    pub bw_kib: Samples,
    pub iops_s: Samples,
    /// With per-I/O priorities, two or more used (fio shows them only then): each priority's
    /// (class, level) and completion latency, the job's own priority first (as fio lists it),
    /// then the others by value.
    pub prios: Vec<(u16, u16, Lat<'a>)>,
}

fn stats(r: &RunResult, d: Ddir) -> Option<&DirStats> {
    match d {
        Ddir::Read => Some(&r.read),
        Ddir::Write => Some(&r.write),
        Ddir::Trim => r.trim.as_deref(),
        Ddir::Mixed => Some(&r.total),
    }
}

/// The re-read of what a verifying job wrote (`verify_after`, fio's verify phase), as fio counts
/// it in the reads' `io_bytes` and `total_ios`: (I/Os of the job's smallest block size, bytes).
/// fio re-reads the job's own writes; drivelab's sweep re-reads every unit the lab knows written
/// (a new file's stamped layout too), so fio's count is the smaller of the sweep and the job's
/// writes; and how long the re-read took (drivelab re-reads in 1 MiB sweeps and times the sweep,
/// not each of its reads, so no latency of it is in the reads').
fn verify_reads(r: &RunResult) -> (u64, u64, u64) {
    let Some(after) = r.kinds.verify.as_ref().and_then(|v| v.after.as_ref().map(|a| (v.unit_bytes, a))) else {
        return (0, 0, 0);
    };
    let (unit, a) = after;
    let bytes = ((a.checked_units + a.unreadable_units) * unit).min(r.write.bytes);
    (bytes.div_ceil(r.spec.min_bs().max(1)), bytes, a.sweep_ns)
}

impl<'a> Dir<'a> {
    pub fn of(r: &'a RunResult, d: Ddir) -> Dir<'a> {
        let (verify_ops, verify_bytes, sweep_ns) =
            if matches!(d, Ddir::Read | Ddir::Mixed) { verify_reads(r) } else { (0, 0, 0) };
        let Some(s) = stats(r, d).filter(|s| s.ops > 0) else {
            // Only the verify phase read: its reads over its own time, as fio's read runtime,
            // bandwidth and IOPS (a sweep saved untimed has none).
            let runtime_ms = match (verify_ops, sweep_ns) {
                (0, _) => 0,
                (_, 0) => (r.runtime_ns + 500_000) / 1_000_000,
                (_, ns) => ns.div_ceil(1_000_000),
            };
            let per_s = |n: u64| if sweep_ns > 0 { n as f64 * 1e9 / sweep_ns as f64 } else { 0.0 };
            return Dir {
                ops: verify_ops,
                bytes: verify_bytes,
                bw_bytes: per_s(verify_bytes).round() as u64,
                iops: per_s(verify_ops),
                runtime_ms,
                short: 0,
                slat: Lat::none(),
                clat: Lat::none(),
                lat: Lat::none(),
                bw_kib: Samples::default(),
                iops_s: Samples::default(),
                prios: Vec::new(),
            };
        };
        let lat = Lat::of(&s.lat_ns, s.ops);
        // psync (and fio's sync engines): the call is the whole I/O, so fio's clat is lat.
        let clat = s.clat_ns.as_ref().map_or_else(|| Lat::of(&s.lat_ns, s.ops), |c| Lat::of(c, s.ops));
        let used = [Ddir::Read, Ddir::Write, Ddir::Trim]
            .into_iter()
            .filter(|&x| stats(r, x).is_some_and(|s| s.ops > 0))
            .count();
        // drivelab's slat is of the I/Os of every direction: fio's `mixed` exactly.
        let slat = match &r.slat_ns {
            Some(sl) if used == 1 || d == Ddir::Mixed => Lat::of(sl, 0),
            _ => Lat::none(),
        };
        let op = match d {
            Ddir::Read => "read",
            Ddir::Write => "write",
            Ddir::Trim => "trim",
            Ddir::Mixed => "",
        };
        let short = r.errors.iter().filter(|e| e.errno == 0 && (e.op == op || d == Ddir::Mixed)).map(|e| e.count).sum();
        let size = s.bytes as f64 / s.ops as f64;
        // Seconds of 500 ms or more only: a run's last few milliseconds (or a whole run shorter
        // than that), taken as a rate, would be a sample fio (one per 500 ms) never takes.
        let per_s: Vec<f64> = r
            .series
            .iter()
            .filter(|p| p.dur_ns >= 500_000_000)
            .filter_map(|p| match d {
                Ddir::Read => Some(p.read_iops),
                Ddir::Write => Some(p.write_iops),
                Ddir::Trim => None,
                // fio sums the directions' samples (min, max, mean each added).
                Ddir::Mixed => Some(p.read_iops + p.write_iops),
            })
            .collect();
        let bw: Vec<f64> = per_s.iter().map(|i| i * size / 1024.0).collect();
        Dir {
            ops: s.ops + verify_ops,
            bytes: s.bytes + verify_bytes,
            bw_bytes: s.bw_bytes_per_s.round() as u64,
            iops: s.iops,
            runtime_ms: (r.runtime_ns + 500_000) / 1_000_000,
            short,
            slat,
            clat,
            lat,
            bw_kib: Samples::of(&bw),
            iops_s: Samples::of(&per_s),
            prios: prios(r, d),
        }
    }
}

/// A direction's per-priority completion latencies in fio's order (see [`Dir::prios`]).
fn prios(r: &RunResult, d: Ddir) -> Vec<(u16, u16, Lat<'_>)> {
    let Some(p) = r.kinds.clat_prio.as_ref() else { return Vec::new() };
    let list = match d {
        Ddir::Read => &p.read,
        Ddir::Write => &p.write,
        Ddir::Trim | Ddir::Mixed => return Vec::new(),
    };
    let job = r.spec.prio.as_ref().map_or(0, |p| p.job);
    let mut out: Vec<(u16, u16, Lat)> =
        list.iter().map(|e| (e.prioclass, e.prio, Lat::of(&e.clat_ns, 0))).filter(|e| e.2.n > 0).collect();
    out.sort_by_key(|&(class, level, _)| {
        let v = class << 13 | level;
        (v != job, v)
    });
    if out.len() < 2 {
        out.clear();
    }
    out
}

/// fio's latency distribution keys: ns and us share them, ms adds 2000 and `>=2000`.
pub(super) const LAT_KEYS: [u64; 10] = [2, 4, 10, 20, 50, 100, 250, 500, 750, 1000];

/// The share of all I/Os (%) in each of fio's latency ranges, by completion latency (clat, as
/// fio counts them): ns (10), us (10), ms (12: `LAT_KEYS`, 2000, `>=2000`). A drivelab bucket
/// counts in the range of its midpoint.
pub(super) fn lat_ranges(dirs: &[&Dir]) -> ([f64; 10], [f64; 10], [f64; 12]) {
    let (mut ns, mut us, mut ms) = ([0u64; 10], [0u64; 10], [0u64; 12]);
    let slot = |v: u64| LAT_KEYS.iter().position(|&k| v < k);
    let mut total = 0u64;
    for d in dirs {
        let Some(h) = d.clat.hist else { continue };
        let mut hist = Histogram::from_sparse(&h.buckets);
        hist.set_extremes(d.clat.min, d.clat.max);
        for (i, c) in hist.nonempty() {
            let v = drivelab_engine::hist::bucket_value(i).clamp(d.clat.min, d.clat.max);
            total += c;
            if v < 1000 {
                ns[slot(v).unwrap_or(9)] += c;
            } else if v < 1_000_000 {
                us[slot(v / 1000).unwrap_or(9)] += c;
            } else {
                let m = v / 1_000_000;
                let i = slot(m).unwrap_or(if m < 2000 { 10 } else { 11 });
                ms[i] += c;
            }
        }
    }
    let pct = |c: u64| if total > 0 { c as f64 * 100.0 / total as f64 } else { 0.0 };
    (ns.map(pct), us.map(pct), ms.map(pct))
}

/// fio's error count of a job with `continue_on_error` or `ignore_error` (fio prints it only
/// then): every failed I/O, continued or not (`total_err`), and the errno of the first
/// (`first_error`; drivelab keeps no order between kinds of errors, so the one at the lowest
/// offset). None when the job continues after no error.
pub(super) fn fio_errors(r: &RunResult) -> Option<(u64, i32)> {
    if !r.spec.continue_on_error && r.spec.ignore_errors.is_none() {
        return None;
    }
    let all = || r.errors.iter().chain(&r.continued_errors);
    let total = all().map(|e| e.count).sum();
    let first = all().min_by_key(|e| e.first_offset_bytes).map_or(0, |e| e.errno);
    Some((total, first))
}

/// The job's error as fio writes it (JSON's `error`, normal's `err=`, terse's field 5): the
/// errno of its first failed I/O; EIO for one saved without an errno (a short transfer: fio's
/// `full resid` is EIO); EILSEQ for data read back wrong (fio's verify returns it). 0 only for
/// a job that had no error: an errored job is never shown as a success.
pub(super) fn job_error(r: &RunResult) -> i32 {
    match r.errors.first() {
        Some(_) => r.errors.iter().map(|e| e.errno).find(|&e| e != 0).unwrap_or(EIO),
        None if r.mismatches() > 0 => EILSEQ,
        None => 0,
    }
}

/// Linux's EIO and EILSEQ (the numbers fio writes; the report crate links no libc).
const EIO: i32 = 5;
const EILSEQ: i32 = 84;

/// The C library's text for an errno, as fio prints it (`strerror`: no "(os error N)").
pub(super) fn strerror(errno: i32) -> String {
    if errno == 0 {
        return "Success".into();
    }
    let text = std::io::Error::from_raw_os_error(errno).to_string();
    match text.rfind(" (os error") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_are_fios_summary() {
        let s = Samples::of(&[1.0, 2.0, 3.0]);
        assert_eq!((s.min, s.max, s.mean, s.dev, s.n), (1.0, 3.0, 2.0, 1.0, 3));
        assert_eq!(Samples::of(&[]).n, 0);
    }
}
