//! The one merge of measurements: associative and commutative, so jobs, targets, streams and
//! ranks can be combined in any grouping and order and give the measurement of one stream that
//! saw every I/O. Counts, bytes and nanoseconds add (saturating: a forged saved measurement
//! cannot overflow them, and saturating addition stays associative and commutative); histograms add bucket by bucket (their exact
//! extremes and moments with them); extremes and per-job maxima take the maximum (or minimum, a
//! first error's offset); flags are "any". Seconds are added second by second (every part counts
//! them from the common start). Targets merge by (order, path) and errors by (target, op, errno), and
//! both are kept sorted, so the order of the parts leaves no trace. Every other kind merges by its
//! own [`Mergeable`] (`kinds.rs`).

use super::kinds::Mergeable;
use super::{Cpu, Dir, Measurement, OpenLoop, Second, TargetPart};
use crate::hist::Histogram;
use crate::result::ErrorStat;

/// `a` and `b` as one measurement.
pub fn merge(a: &Measurement, b: &Measurement) -> Measurement {
    Measurement {
        window_ns: a.window_ns.max(b.window_ns),
        jobs: a.jobs.saturating_add(b.jobs),
        read: dir(&a.read, &b.read),
        write: dir(&a.write, &b.write),
        trim: dir(&a.trim, &b.trim),
        sync: dir(&a.sync, &b.sync),
        slat: hist(&a.slat, &b.slat),
        cpu: cpu(&a.cpu, &b.cpu),
        open_loop: match (&a.open_loop, &b.open_loop) {
            (Some(x), Some(y)) => Some(open_loop(x, y)),
            (x, y) => x.clone().or_else(|| y.clone()),
        },
        targets: targets(&a.targets, &b.targets),
        errors: merge_errors(a.errors.clone(), b.errors.clone()),
        series: (0..a.series.len().max(b.series.len()))
            .map(|k| match (a.series.get(k), b.series.get(k)) {
                (Some(x), Some(y)) => second(x, y),
                (x, y) => x.or(y).cloned().unwrap_or_default(),
            })
            .collect(),
        interrupted: a.interrupted || b.interrupted,
        stopped_by_error: a.stopped_by_error || b.stopped_by_error,
        split: match (&a.split, &b.split) {
            (Some(x), Some(y)) => Some(super::split::merge(x, y)),
            (x, y) => x.clone().or_else(|| y.clone()),
        },
        kinds: {
            let mut k = a.kinds.clone();
            k.merge(&b.kinds);
            k
        },
    }
}

/// `a`, then `b`: two measurements of one workload that ran one after the other (the rounds of
/// a steady-state window), as one measurement of every I/O of both over both windows. As
/// [`merge`], except what is counted in time: the windows (the run's, each target's, each
/// job's) add, and `b`'s seconds follow `a`'s. So the IOPS of rounds of equal length is their
/// average, and a p99 is the p99 of every I/O of every round. Associative, not commutative.
pub fn then(a: &Measurement, b: &Measurement) -> Measurement {
    let mut m = merge(a, b);
    m.window_ns = a.window_ns.saturating_add(b.window_ns);
    m.series = a.series.iter().chain(&b.series).cloned().collect();
    for t in &mut m.targets {
        let of = |x: &Measurement| {
            x.targets.iter().find(|p| p.path == t.path && p.order == t.order).map_or(0, |p| p.window_ns)
        };
        t.window_ns = of(a).saturating_add(of(b));
    }
    for j in &mut m.kinds.per_job.0 {
        let of = |x: &Measurement| x.kinds.per_job.0.iter().find(|p| p.at == j.at).map(|p| p.m.clone());
        if let (Some(x), Some(y)) = (of(a), of(b)) {
            j.m = then(&x, &y);
        }
    }
    m
}

/// Every part as one (None for none).
pub fn merge_all<'a>(parts: impl IntoIterator<Item = &'a Measurement>) -> Option<Measurement> {
    parts.into_iter().fold(None, |acc: Option<Measurement>, m| Some(acc.map_or_else(|| m.clone(), |a| merge(&a, m))))
}

fn hist(a: &Histogram, b: &Histogram) -> Histogram {
    let mut h = a.clone();
    h.merge(b);
    h
}

fn dir(a: &Dir, b: &Dir) -> Dir {
    Dir { lat: hist(&a.lat, &b.lat), clat: hist(&a.clat, &b.clat), bytes: a.bytes.saturating_add(b.bytes) }
}

fn cpu(a: &Cpu, b: &Cpu) -> Cpu {
    Cpu {
        usr_ns: a.usr_ns.saturating_add(b.usr_ns),
        sys_ns: a.sys_ns.saturating_add(b.sys_ns),
        helper_ns: match (a.helper_ns, b.helper_ns) {
            (Some(x), Some(y)) => Some(x.saturating_add(y)),
            (x, y) => x.or(y),
        },
        runq_wait_ns: a.runq_wait_ns.saturating_add(b.runq_wait_ns),
        spin_ns: a.spin_ns.saturating_add(b.spin_ns),
        busiest_job_ppm: a.busiest_job_ppm.max(b.busiest_job_ppm),
        runnable_ppm: a.runnable_ppm.max(b.runnable_ppm),
        runnable_less_spin_ppm: a.runnable_less_spin_ppm.max(b.runnable_less_spin_ppm),
        cores: a.cores.max(b.cores),
    }
}

fn open_loop(a: &OpenLoop, b: &OpenLoop) -> OpenLoop {
    OpenLoop {
        resp_read: hist(&a.resp_read, &b.resp_read),
        resp_write: hist(&a.resp_write, &b.resp_write),
        lag: hist(&a.lag, &b.lag),
        tool_lag: hist(&a.tool_lag, &b.tool_lag),
        late_ops: a.late_ops.saturating_add(b.late_ops),
        gave_up: a.gave_up || b.gave_up,
        final_lag_ns: a.final_lag_ns.max(b.final_lag_ns),
        target_uiops: a.target_uiops.saturating_add(b.target_uiops),
        paced_window_ns: a.paced_window_ns.saturating_add(b.paced_window_ns),
    }
}

fn targets(a: &[TargetPart], b: &[TargetPart]) -> Vec<TargetPart> {
    let mut out: Vec<TargetPart> = a.to_vec();
    for t in b {
        match out.iter_mut().find(|x| x.path == t.path && x.order == t.order) {
            Some(x) => {
                x.window_ns = x.window_ns.max(t.window_ns);
                x.read = dir(&x.read, &t.read);
                x.write = dir(&x.write, &t.write);
                x.trim = dir(&x.trim, &t.trim);
            }
            None => out.push(t.clone()),
        }
    }
    out.sort_by(|x, y| (x.order, &x.path).cmp(&(y.order, &y.path)));
    out
}

/// Errors of both, one entry per (target, op, errno): counts added, the first offset the lowest.
pub(crate) fn merge_errors(mut a: Vec<ErrorStat>, b: Vec<ErrorStat>) -> Vec<ErrorStat> {
    for e in b {
        match a
            .iter_mut()
            .find(|x| x.target == e.target && x.op == e.op && x.errno == e.errno && x.continued == e.continued)
        {
            Some(x) => {
                x.count = x.count.saturating_add(e.count);
                x.first_offset_bytes = x.first_offset_bytes.min(e.first_offset_bytes);
                if e.error < x.error {
                    x.error = e.error;
                }
            }
            None => a.push(e),
        }
    }
    a.sort_by(|x, y| (&x.target, &x.op, x.errno, x.continued).cmp(&(&y.target, &y.op, y.errno, y.continued)));
    a
}

/// Two sparse (index, count) lists, ascending, as one.
pub(crate) fn sparse(a: &[(u16, u64)], b: &[(u16, u64)]) -> Vec<(u16, u64)> {
    let mut out = Vec::with_capacity(a.len().max(b.len()));
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x.0 == y.0 => {
                out.push((x.0, x.1.saturating_add(y.1)));
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x.0 < y.0 => {
                out.push(*x);
                i += 1;
            }
            (Some(x), None) => {
                out.push(*x);
                i += 1;
            }
            (_, Some(y)) => {
                out.push(*y);
                j += 1;
            }
            (None, None) => break,
        }
    }
    out
}

fn add_counts(a: &[u64], b: &[u64]) -> Vec<u64> {
    (0..a.len().max(b.len()))
        .map(|i| a.get(i).copied().unwrap_or(0).saturating_add(b.get(i).copied().unwrap_or(0)))
        .collect()
}

fn second(a: &Second, b: &Second) -> Second {
    Second {
        dur_ns: a.dur_ns.max(b.dur_ns),
        read_ops: a.read_ops.saturating_add(b.read_ops),
        write_ops: a.write_ops.saturating_add(b.write_ops),
        trim_ops: a.trim_ops.saturating_add(b.trim_ops),
        bytes: a.bytes.saturating_add(b.bytes),
        lat_sum_ns: a.lat_sum_ns.saturating_add(b.lat_sum_ns),
        lat: sparse(&a.lat, &b.lat),
        resp: sparse(&a.resp, &b.resp),
        over: add_counts(&a.over, &b.over),
        lat_over: add_counts(&a.lat_over, &b.lat_over),
        ready_over: add_counts(&a.ready_over, &b.ready_over),
        lag_max_ns: a.lag_max_ns.max(b.lag_max_ns),
        tool_lag_max_ns: a.tool_lag_max_ns.max(b.tool_lag_max_ns),
    }
}
