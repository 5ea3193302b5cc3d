//! A measurement rebuilt from a result's figures, for results that carry none (saved before
//! measurements were kept, or made by another tool): so they still merge through the one merge.
//! As near as figures allow: histograms from their saved buckets with their exact extremes and
//! moments from mean and deviation (rounded); CPU from its percentages; a second's latency as
//! all its I/Os at its p99 (a second of such a result kept no histogram). Results saved now carry
//! their measurement and never come here.

use super::{Cpu, Dir, Measurement, OpenLoop, Second, TargetPart};
use crate::hist::{bucket_of, Histogram, LatSummary};
use crate::result::{DirStats, RunResult};

fn hist(s: &LatSummary) -> Histogram {
    let buckets: Vec<(usize, u64)> = s.histogram.buckets.iter().map(|&[low, c]| (bucket_of(low), c)).collect();
    let n: u64 = buckets.iter().map(|b| b.1).sum();
    let sum = (s.mean * n as f64).round().max(0.0) as u128;
    let sum_sq = (n as f64 * (s.stdev * s.stdev + s.mean * s.mean)).round().max(0.0) as u128;
    Histogram::from_raw(&buckets, s.min, s.max, sum, sum_sq).unwrap_or_default()
}

fn dir(d: &DirStats) -> Dir {
    Dir { lat: hist(&d.lat_ns), clat: d.clat_ns.as_ref().map(hist).unwrap_or_default(), bytes: d.bytes }
}

fn ns(pct: f64, window: u64) -> u64 {
    (pct / 100.0 * window as f64).round().max(0.0) as u64
}

pub(super) fn from_figures(r: &RunResult) -> Measurement {
    let w = r.runtime_ns;
    let jobs = (r.spec.jobs.max(1) as u64) * (r.targets.len().max(1) as u64);
    let sqpoll = r.cpu.sqpoll_pct.map(|p| ns(p, w));
    let ppm = |pct: f64| (pct * 1e4).round().max(0.0) as u64;
    let cpu = Cpu {
        usr_ns: ns(r.cpu.usr_pct, w),
        sys_ns: ns(r.cpu.sys_pct, w).saturating_sub(sqpoll.unwrap_or(0)),
        helper_ns: sqpoll,
        runq_wait_ns: 0,
        spin_ns: r.open_loop.as_ref().map_or(0, |o| ns(o.spin_pct, w.saturating_mul(jobs))),
        busiest_job_ppm: ppm(r.cpu.busiest_job_pct),
        runnable_ppm: ppm(r.cpu.runnable_pct),
        runnable_less_spin_ppm: ppm(if r.cpu.cpu_bound { r.cpu.runnable_pct } else { r.cpu.runnable_less_spin_pct }),
        cores: r.cpu.cores,
    };
    let open_loop = r.open_loop.as_ref().map(|o| OpenLoop {
        resp_read: hist(&o.read_resp_lat_ns),
        resp_write: hist(&o.write_resp_lat_ns),
        lag: hist(&o.lag_ns),
        tool_lag: o.tool_lag_ns.as_ref().map(hist).unwrap_or_default(),
        late_ops: o.late_ops,
        gave_up: o.gave_up,
        final_lag_ns: o.final_lag_ns,
        target_uiops: (o.target_iops * 1e6).round().max(0.0) as u64,
        paced_window_ns: w.saturating_mul(jobs),
    });
    let series = r
        .series
        .iter()
        .map(|s| {
            let secs = s.dur_ns as f64 / 1e9;
            let n = |rate: f64| (rate * secs).round().max(0.0) as u64;
            let (read_ops, write_ops) = (n(s.read_iops), n(s.write_iops));
            let at = |v: u64| vec![(bucket_of(v) as u16, s.ops)];
            Second {
                dur_ns: s.dur_ns,
                read_ops,
                write_ops,
                trim_ops: s.ops.saturating_sub(read_ops + write_ops),
                bytes: n(s.bw_bytes_per_s),
                lat_sum_ns: (s.lat_mean_ns * s.ops as f64).round().max(0.0) as u128,
                lat: if s.ops > 0 { at(s.lat_p99_ns) } else { Vec::new() },
                resp: match s.resp_p99_ns {
                    Some(v) if s.ops > 0 => at(v),
                    _ => Vec::new(),
                },
                over: s.over_threshold_counts.clone(),
                lat_over: s.lat_over_threshold_counts.clone(),
                ready_over: s.ready_over_threshold_counts.clone(),
                lag_max_ns: s.lag_max_ns.unwrap_or(0),
                tool_lag_max_ns: s.tool_lag_max_ns.unwrap_or(0),
            }
        })
        .collect();
    let mut errors = Vec::new();
    for e in r.errors.iter().chain(&r.continued_errors) {
        errors = super::merge::merge_errors(errors, vec![e.clone()]);
    }
    Measurement {
        window_ns: w,
        jobs,
        read: dir(&r.read),
        write: dir(&r.write),
        trim: r.trim.as_deref().map(dir).unwrap_or_default(),
        sync: r.sync.as_deref().map(dir).unwrap_or_default(),
        slat: r.slat_ns.as_deref().map(hist).unwrap_or_default(),
        cpu,
        open_loop,
        targets: r
            .per_target
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let (read, write) = (dir(&t.read), dir(&t.write));
                let mut trim = dir(&t.total);
                trim.lat = Histogram::new();
                trim.bytes = t.total.bytes.saturating_sub(t.read.bytes + t.write.bytes);
                TargetPart { order: i as u64, path: t.path.clone(), window_ns: w, read, write, trim }
            })
            .collect(),
        errors,
        series,
        interrupted: r.interrupted,
        stopped_by_error: r.stopped_by_error,
        // A split is kept only with its measurement (it is not rebuilt from figures).
        split: None,
        kinds: {
            let mut k = super::kinds::Kinds::default();
            k.fill_from(r);
            k
        },
    }
}

/// Latency summaries of parts that ran at once, from results that carry no measurement (saved
/// before measurements were kept: a fio group's jobs saved as two entries of one target), as one:
/// their histograms added from the saved buckets with the exact extremes and moments, as
/// `from_figures` rebuilds them. Results saved now merge their measurements instead.
pub fn merge_summaries(parts: &[&LatSummary]) -> LatSummary {
    let mut h = Histogram::new();
    for p in parts {
        h.merge(&hist(p));
    }
    h.summary()
}
