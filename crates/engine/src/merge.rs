//! One result from several that ran at the same time: the jobs of a fio group (a point of a fio
//! job file with several jobs), and later the ranks of a run spread over hosts.
//!
//! Merged exactly where the saved data allows it: latency histograms are added bucket by bucket
//! (so the merged p99 is the p99 of every I/O of every part, not an average of percentiles), min
//! and max are the extremes, mean and standard deviation are combined from each part's count,
//! mean and deviation (exact, not from buckets). Throughput follows fio's group reporting: the
//! bytes and I/Os of all parts over the longest part's window. CPU time is added up (each part's
//! percentages turned back into nanoseconds over its own window). Per-second series are added
//! second by second (seconds are counted from the common start); a second's p99 is the highest
//! of the parts' p99s, an upper bound, because a second keeps no histogram.

use crate::hist::{Histogram, LatSummary};
use crate::result::{Checks, CpuStats, DirStats, ErrorStat, RunResult, SeriesPoint, TargetResult, VerifyStats};

/// `parts` as one result (the first part's spec, tool, engine and start). `parts` must not be
/// empty; a single part comes back unchanged.
pub fn merge_results(parts: &[RunResult]) -> RunResult {
    assert!(!parts.is_empty(), "merge_results needs at least one result");
    if parts.len() == 1 {
        return parts[0].clone();
    }
    let first = &parts[0];
    let window = parts.iter().map(|p| p.runtime_ns).max().unwrap_or(0);
    let dir = |pick: fn(&RunResult) -> &DirStats| merge_dir(parts.iter().map(pick), window);
    let sync: Vec<&DirStats> = parts.iter().filter_map(|p| p.sync.as_ref()).collect();
    let trim: Vec<&DirStats> = parts.iter().filter_map(|p| p.trim.as_ref()).collect();
    let slat: Vec<&LatSummary> = parts.iter().filter_map(|p| p.slat_ns.as_ref()).collect();
    let total = dir(|p| &p.total);
    let mut notices: Vec<String> = Vec::new();
    for n in parts.iter().flat_map(|p| &p.notices) {
        if !notices.contains(n) {
            notices.push(n.clone());
        }
    }
    let all_verify = parts.iter().all(|p| !p.verify_maps.is_empty());
    RunResult {
        schema: first.schema,
        tool: first.tool.clone(),
        started_unix_ms: parts.iter().map(|p| p.started_unix_ms).min().unwrap_or(first.started_unix_ms),
        spec: first.spec.clone(),
        engine: first.engine.clone(),
        targets: parts.iter().flat_map(|p| p.targets.iter().cloned()).collect(),
        runtime_ns: window,
        read: dir(|p| &p.read),
        write: dir(|p| &p.write),
        sync: (!sync.is_empty()).then(|| merge_dir(sync.into_iter(), window)),
        trim: (!trim.is_empty()).then(|| merge_dir(trim.into_iter(), window)),
        per_target: parts.iter().flat_map(|p| p.per_target.iter().cloned()).collect::<Vec<TargetResult>>(),
        cpu: merge_cpu(parts, window, total.ops),
        qd_mean: qd_mean(parts, window),
        series: merge_series(parts),
        errors: parts.iter().flat_map(|p| p.errors.iter().cloned()).collect::<Vec<ErrorStat>>(),
        interrupted: parts.iter().any(|p| p.interrupted),
        stopped_by_error: parts.iter().any(|p| p.stopped_by_error),
        notices,
        // An open loop's lateness is the schedule's own: kept for the first part that has one.
        open_loop: parts.iter().find_map(|p| p.open_loop.clone()),
        slat_ns: (!slat.is_empty()).then(|| merge_lat(&slat)),
        total,
        verify: merge_verify(parts),
        verify_maps: if all_verify {
            parts.iter().flat_map(|p| p.verify_maps.iter().cloned()).collect()
        } else {
            Vec::new()
        },
    }
}

/// I/Os in flight on average per job thread over the merged window (each part's mean times its
/// job threads, spread over all of them).
fn qd_mean(parts: &[RunResult], window_ns: u64) -> f64 {
    let threads = |p: &RunResult| (p.spec.jobs.max(1) as usize * p.targets.len().max(1)) as f64;
    let in_flight: f64 = parts.iter().map(|p| p.qd_mean * threads(p) * p.runtime_ns as f64).sum::<f64>();
    let all: f64 = parts.iter().map(threads).sum();
    if window_ns == 0 || all == 0.0 {
        return 0.0;
    }
    in_flight / window_ns as f64 / all
}

/// The latency summaries of several parts as one: the histograms added, percentiles from the
/// sum, min/max/mean/stdev combined exactly.
pub fn merge_lat(parts: &[&LatSummary]) -> LatSummary {
    let mut h = Histogram::new();
    for p in parts {
        for &[low, count] in &p.histogram.buckets {
            h.record_n(crate::hist::bucket_value(crate::hist::bucket_of(low)), count);
        }
    }
    let n_of = |p: &LatSummary| p.histogram.buckets.iter().map(|b| b[1]).sum::<u64>();
    let n: u64 = parts.iter().map(|p| n_of(p)).sum();
    if n == 0 {
        return h.summary();
    }
    let with_data = || parts.iter().filter(|p| n_of(p) > 0);
    h.set_extremes(with_data().map(|p| p.min).min().unwrap_or(0), with_data().map(|p| p.max).max().unwrap_or(0));
    let mut out = h.summary();
    (out.mean, out.stdev) = combine_moments(with_data().map(|p| (n_of(p), p.mean, p.stdev)));
    out
}

/// The mean and (population) standard deviation of several parts' samples together, exactly,
/// from each part's (count, mean, deviation): a part's sum of squares is n·(σ² + μ²).
pub fn combine_moments(parts: impl IntoIterator<Item = (u64, f64, f64)>) -> (f64, f64) {
    let (mut n, mut sum, mut sq) = (0u64, 0.0f64, 0.0f64);
    for (k, mean, stdev) in parts.into_iter().filter(|p| p.0 > 0) {
        n += k;
        sum += k as f64 * mean;
        sq += k as f64 * (stdev * stdev + mean * mean);
    }
    if n == 0 {
        return (0.0, 0.0);
    }
    let mean = sum / n as f64;
    (mean, (sq / n as f64 - mean * mean).max(0.0).sqrt())
}

fn merge_dir<'a>(parts: impl Iterator<Item = &'a DirStats>, window_ns: u64) -> DirStats {
    let parts: Vec<&DirStats> = parts.collect();
    let lats: Vec<&LatSummary> = parts.iter().map(|d| &d.lat_ns).collect();
    let clats: Vec<&LatSummary> = parts.iter().filter_map(|d| d.clat_ns.as_ref()).collect();
    let ops: u64 = parts.iter().map(|d| d.ops).sum();
    let bytes: u64 = parts.iter().map(|d| d.bytes).sum();
    let secs = window_ns as f64 / 1e9;
    let per_s = |v: f64| if secs > 0.0 { v / secs } else { 0.0 };
    let bw = per_s(bytes as f64);
    DirStats {
        ops,
        bytes,
        iops: per_s(ops as f64),
        bw_bytes_per_s: bw,
        bw_mb_per_s: bw / 1e6,
        bw_mib_per_s: bw / 1048576.0,
        lat_ns: merge_lat(&lats),
        clat_ns: (!clats.is_empty()).then(|| merge_lat(&clats)),
    }
}

fn merge_cpu(parts: &[RunResult], window_ns: u64, ops: u64) -> CpuStats {
    let ns = |pct: f64, p: &RunResult| pct / 100.0 * p.runtime_ns as f64;
    let usr: f64 = parts.iter().map(|p| ns(p.cpu.usr_pct, p)).sum();
    let sys: f64 = parts.iter().map(|p| ns(p.cpu.sys_pct, p)).sum();
    let sqpoll: Option<f64> = parts.iter().filter_map(|p| p.cpu.sqpoll_pct.map(|s| ns(s, p))).reduce(|a, b| a + b);
    let pct = |v: f64| if window_ns > 0 { v / window_ns as f64 * 100.0 } else { 0.0 };
    let cores = parts.iter().map(|p| p.cpu.cores).max().unwrap_or(1).max(1);
    CpuStats {
        usr_pct: pct(usr),
        sys_pct: pct(sys),
        sqpoll_pct: sqpoll.map(pct),
        machine_pct: pct(usr + sys) / cores as f64,
        busiest_job_pct: parts.iter().map(|p| p.cpu.busiest_job_pct).fold(0.0, f64::max),
        ns_per_io: if ops > 0 { (usr + sys) / ops as f64 } else { 0.0 },
        cores,
        runnable_pct: parts.iter().map(|p| p.cpu.runnable_pct).fold(0.0, f64::max),
        cpu_bound: parts.iter().any(|p| p.cpu.cpu_bound),
    }
}

fn merge_series(parts: &[RunResult]) -> Vec<SeriesPoint> {
    let seconds = parts.iter().map(|p| p.series.len()).max().unwrap_or(0);
    (0..seconds)
        .map(|k| {
            let pts: Vec<&SeriesPoint> = parts.iter().filter_map(|p| p.series.get(k)).collect();
            let ops: u64 = pts.iter().map(|s| s.ops).sum();
            let add = |f: fn(&SeriesPoint) -> f64| pts.iter().map(|s| f(s)).sum::<f64>();
            let max_opt = |f: fn(&SeriesPoint) -> Option<u64>| pts.iter().filter_map(|s| f(s)).max();
            let counts = |f: fn(&SeriesPoint) -> &Vec<u64>| {
                let n = pts.iter().map(|s| f(s).len()).max().unwrap_or(0);
                (0..n).map(|i| pts.iter().map(|s| f(s).get(i).copied().unwrap_or(0)).sum()).collect::<Vec<u64>>()
            };
            let lat_sum: f64 = pts.iter().map(|s| s.lat_mean_ns * s.ops as f64).sum();
            SeriesPoint {
                t_s: pts.iter().map(|s| s.t_s).fold(0.0, f64::max),
                dur_ns: pts.iter().map(|s| s.dur_ns).max().unwrap_or(0),
                iops: add(|s| s.iops),
                read_iops: add(|s| s.read_iops),
                write_iops: add(|s| s.write_iops),
                bw_bytes_per_s: add(|s| s.bw_bytes_per_s),
                lat_mean_ns: if ops > 0 { lat_sum / ops as f64 } else { 0.0 },
                lat_p99_ns: pts.iter().map(|s| s.lat_p99_ns).max().unwrap_or(0),
                resp_p99_ns: max_opt(|s| s.resp_p99_ns),
                lag_max_ns: max_opt(|s| s.lag_max_ns),
                tool_lag_max_ns: max_opt(|s| s.tool_lag_max_ns),
                ops,
                over_threshold_counts: counts(|s| &s.over_threshold_counts),
                lat_over_threshold_counts: counts(|s| &s.lat_over_threshold_counts),
                resp_pow2_ms: None,
            }
        })
        .collect()
}

fn merge_verify(parts: &[RunResult]) -> Option<VerifyStats> {
    let mut it = parts.iter().filter_map(|p| p.verify.as_ref());
    let mut out = it.next()?.clone();
    // Target ids follow the merged target list: each part's own, or its indices.
    out.target_ids = Vec::new();
    for other in it {
        out.written_units += other.written_units;
        out.unchecked_units += other.unchecked_units;
        out.held_ios += other.held_ios;
        out.inline.merge(&other.inline, Checks::KEEP_PER_RUN);
        match (&mut out.after, &other.after) {
            (Some(a), Some(b)) => a.merge(b, Checks::KEEP_PER_RUN),
            (None, Some(b)) => out.after = Some(b.clone()),
            _ => {}
        }
    }
    let ids: Vec<u32> = parts
        .iter()
        .flat_map(|p| (0..p.targets.len()).map(move |ti| p.verify.as_ref().map_or(ti as u32, |v| v.target_id(ti))))
        .collect();
    out.target_ids = ids;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hist::Pct;

    fn summary_of(samples: &[u64]) -> LatSummary {
        let mut h = Histogram::new();
        for &s in samples {
            h.record(s);
        }
        h.summary()
    }

    fn blank(runtime_ns: u64) -> RunResult {
        let none = DirStats::from_hist(&Histogram::new(), 0, runtime_ns);
        RunResult {
            schema: crate::result::SCHEMA,
            tool: crate::result::ToolInfo { name: "drivelab".into(), version: "test".into() },
            started_unix_ms: 0,
            spec: crate::spec::AccessSpec::default(),
            engine: crate::result::EngineFacts { backend: "null".into(), ring: None, job_cpus: Vec::new() },
            targets: Vec::new(),
            runtime_ns,
            read: none.clone(),
            write: none.clone(),
            total: none,
            trim: None,
            sync: None,
            per_target: Vec::new(),
            cpu: CpuStats {
                usr_pct: 50.0,
                sys_pct: 20.0,
                sqpoll_pct: None,
                machine_pct: 35.0,
                busiest_job_pct: 70.0,
                ns_per_io: 0.0,
                cores: 2,
                runnable_pct: 0.0,
                cpu_bound: false,
            },
            qd_mean: 1.0,
            series: Vec::new(),
            errors: Vec::new(),
            interrupted: false,
            stopped_by_error: false,
            notices: Vec::new(),
            open_loop: None,
            slat_ns: None,
            verify: None,
            verify_maps: Vec::new(),
        }
    }

    /// Three parts of different sizes and spreads, as jobs or ranks would give.
    fn parts() -> Vec<Vec<u64>> {
        let mut rng = fastrand::Rng::with_seed(7);
        vec![
            (0..20_000).map(|_| 10_000 + rng.u64(0..5_000)).collect(),
            (0..5_000).map(|_| 50_000 + rng.u64(0..200_000)).collect(),
            (0..1_000).map(|_| 1_000 + rng.u64(0..3_000_000)).collect(),
        ]
    }

    #[test]
    fn merged_percentiles_are_those_of_one_histogram_fed_every_sample() {
        let parts = parts();
        let all: Vec<u64> = parts.iter().flatten().copied().collect();
        let whole = summary_of(&all);
        let summaries: Vec<LatSummary> = parts.iter().map(|p| summary_of(p)).collect();
        let merged = merge_lat(&summaries.iter().collect::<Vec<_>>());
        for p in Pct::ALL {
            assert_eq!(merged.p(p), whole.p(p), "{}", p.name());
        }
        assert_eq!(merged.histogram.buckets, whole.histogram.buckets);
        assert_eq!((merged.min, merged.max), (*all.iter().min().unwrap(), *all.iter().max().unwrap()));
        let mean = all.iter().sum::<u64>() as f64 / all.len() as f64;
        assert!((merged.mean - mean).abs() < 1e-6 * mean, "{} vs {mean}", merged.mean);
        let var = all.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / all.len() as f64;
        assert!((merged.stdev - var.sqrt()).abs() < 1e-6 * var.sqrt(), "{} vs {}", merged.stdev, var.sqrt());
    }

    #[test]
    fn throughput_is_every_part_over_the_longest_window_and_errors_carry_over() {
        let mk = |samples: &[u64], runtime_ns: u64, bs: u64| {
            let s = summary_of(samples);
            let mut r = blank(runtime_ns);
            let mut h = Histogram::new();
            samples.iter().for_each(|&v| h.record(v));
            r.total = DirStats::from_hist(&h, samples.len() as u64 * bs, runtime_ns);
            r.write = r.total.clone();
            assert_eq!(r.total.lat_ns, s);
            r
        };
        let p = parts();
        let a = mk(&p[0], 2_000_000_000, 4096);
        let mut b = mk(&p[1], 1_000_000_000, 65536);
        b.errors.push(ErrorStat {
            target: "b".into(),
            op: "write".into(),
            errno: 5,
            error: "EIO".into(),
            count: 1,
            first_offset_bytes: 0,
        });
        let m = merge_results(&[a, b]);
        assert_eq!(m.runtime_ns, 2_000_000_000);
        assert_eq!(m.total.ops, 25_000);
        assert_eq!(m.total.bytes, 20_000 * 4096 + 5_000 * 65536);
        assert!((m.total.iops - 12_500.0).abs() < 1e-9);
        assert!(m.errored(), "an error in any part is an error of the whole");
        assert_eq!(m.write.ops, 25_000);
        assert_eq!(m.read.ops, 0);
        // 70% of a core for 2 s and for 1 s: 2.1 s of CPU over the 2 s window.
        assert!((m.cpu.usr_pct + m.cpu.sys_pct - 105.0).abs() < 1e-9, "{:?}", m.cpu);
    }
}
