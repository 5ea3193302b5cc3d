//! The one pure derivation of a result's figures from a measurement: rates over the window,
//! percentiles from the histograms, CPU shares from nanoseconds, the open loop's figures, the
//! per-second series. Nothing here merges; the same measurement always gives the same figures,
//! which is how a saved result's figures are checked against its saved measurement.

use super::{Dir, Measurement, Second};
use crate::hist::Histogram;
use crate::result::{CpuStats, DirStats, ErrorStat, OpenLoopStats, RunResult, SeriesPoint, TargetResult};
use crate::spec::{AccessSpec, Rate};
use crate::worker::LATE_NS;

/// A job is CPU-bound when it ran or waited for a CPU (its pacing spin aside) this share of its
/// window: it hardly ever waited for the target.
pub const CPU_BOUND_PCT: f64 = 90.0;

/// drivelab's job threads waited for a CPU (runnable, not running: the machine was busy with
/// something else) this share of the run or more, on average: the latency figures hold that wait,
/// and the throughput what was left of the CPU ([`CpuStats::cpu_starved`]). On a quiet machine it
/// is a few percent (issue #40: 62-65% beside 4 CPU hogs on 2 cores). A run of more job threads
/// than CPUs is judged on what it waited beyond their own share, 1 − CPUs/threads (fio's t0013,
/// 8 threads on 2 CPUs of a quiet machine, waited 66%).
pub const CPU_STARVED_PCT: f64 = 20.0;

/// The figures of a result that come from its measurement.
#[derive(Clone, Debug, PartialEq)]
pub struct Figures {
    pub runtime_ns: u64,
    pub read: DirStats,
    pub write: DirStats,
    pub total: DirStats,
    pub trim: Option<DirStats>,
    pub sync: Option<DirStats>,
    pub per_target: Vec<TargetResult>,
    pub cpu: CpuStats,
    pub qd_mean: f64,
    pub series: Vec<SeriesPoint>,
    pub errors: Vec<ErrorStat>,
    /// The errors the jobs went on after (`ErrorStat::continued`).
    pub continued_errors: Vec<ErrorStat>,
    pub interrupted: bool,
    pub stopped_by_error: bool,
    pub open_loop: Option<OpenLoopStats>,
    pub slat_ns: Option<LatSummary>,
    pub latency_split: Option<crate::result::LatencySplitStats>,
    /// Every other kind's figures (`kinds.rs`); verify's target ids are not among them (they
    /// are attached with the targets, `crate::merge`).
    pub kinds: super::kinds::KindFigures,
}

use crate::hist::LatSummary;

impl Figures {
    /// Put these figures into `r` (every other field of `r` stays; verify's target ids go with
    /// the figures: attach them after, `crate::merge::assemble`).
    pub fn apply(self, r: &mut RunResult) {
        r.runtime_ns = self.runtime_ns;
        r.read = self.read;
        r.write = self.write;
        r.total = self.total;
        r.trim = self.trim.map(Box::new);
        r.sync = self.sync.map(Box::new);
        r.per_target = self.per_target;
        r.cpu = self.cpu;
        r.qd_mean = self.qd_mean;
        r.series = self.series;
        r.errors = self.errors;
        r.continued_errors = self.continued_errors;
        r.interrupted = self.interrupted;
        r.stopped_by_error = self.stopped_by_error;
        r.open_loop = self.open_loop.map(Box::new);
        r.slat_ns = self.slat_ns.map(Box::new);
        r.latency_split = self.latency_split.map(Box::new);
        r.kinds = self.kinds;
    }

    /// The figures `r` holds now.
    pub fn of(r: &RunResult) -> Figures {
        Figures {
            runtime_ns: r.runtime_ns,
            read: r.read.clone(),
            write: r.write.clone(),
            total: r.total.clone(),
            trim: r.trim.as_deref().cloned(),
            sync: r.sync.as_deref().cloned(),
            per_target: r.per_target.clone(),
            cpu: r.cpu.clone(),
            qd_mean: r.qd_mean,
            series: r.series.clone(),
            errors: r.errors.clone(),
            continued_errors: r.continued_errors.clone(),
            interrupted: r.interrupted,
            stopped_by_error: r.stopped_by_error,
            open_loop: r.open_loop.as_deref().cloned(),
            slat_ns: r.slat_ns.as_deref().cloned(),
            latency_split: r.latency_split.as_deref().cloned(),
            kinds: {
                let mut k = r.kinds.clone();
                if let Some(v) = k.verify.as_mut() {
                    v.target_ids.clear();
                }
                k
            },
        }
    }
}

fn both(dirs: &[&Dir]) -> (Histogram, Histogram, u64) {
    let (mut lat, mut clat, mut bytes) = (Histogram::new(), Histogram::new(), 0);
    for d in dirs {
        lat.merge(&d.lat);
        clat.merge(&d.clat);
        bytes += d.bytes;
    }
    (lat, clat, bytes)
}

fn stats(d: &Dir, window: u64) -> DirStats {
    DirStats::from_hist(&d.lat, d.bytes, window).with_clat(&d.clat)
}

/// The figures of `m`, run as `spec` (its thresholds, its rate's arrivals, pace and max lag).
pub fn summarize(m: &Measurement, spec: &AccessSpec) -> Figures {
    let window = m.window_ns;
    let (all, all_clat, all_bytes) = both(&[&m.read, &m.write, &m.trim]);
    let per_target = m
        .targets
        .iter()
        .map(|t| {
            let (tot, _, tb) = both(&[&t.read, &t.write, &t.trim]);
            TargetResult {
                path: t.path.clone(),
                read: DirStats::from_hist(&t.read.lat, t.read.bytes, t.window_ns),
                write: DirStats::from_hist(&t.write.lat, t.write.bytes, t.window_ns),
                total: DirStats::from_hist(&tot, tb, t.window_ns),
            }
        })
        .collect();
    let jobs = m.jobs.max(1) as f64;
    Figures {
        runtime_ns: window,
        read: stats(&m.read, window),
        write: stats(&m.write, window),
        total: DirStats::from_hist(&all, all_bytes, window).with_clat(&all_clat),
        trim: (m.trim.lat.count() > 0).then(|| stats(&m.trim, window)),
        sync: (m.sync.lat.count() > 0).then(|| stats(&m.sync, window)),
        per_target,
        cpu: cpu(m, all.count()),
        qd_mean: if window > 0 { all.sum() as f64 / window as f64 / jobs } else { 0.0 },
        series: series(m, spec.thresholds_ns.len()),
        errors: m.errors.iter().filter(|e| !e.continued).cloned().collect(),
        continued_errors: m.errors.iter().filter(|e| e.continued).cloned().collect(),
        interrupted: m.interrupted,
        stopped_by_error: m.stopped_by_error,
        open_loop: m
            .open_loop
            .as_ref()
            .map(|_| open_loop(m, spec.rate.unwrap_or_default(), spec.mean_bs(), all.count())),
        slat_ns: (m.slat.count() > 0).then(|| m.slat.summary()),
        latency_split: m.split.as_ref().map(super::split::summarize),
        kinds: m.kinds.figures(),
    }
}

fn cpu(m: &Measurement, ops: u64) -> CpuStats {
    let c = &m.cpu;
    let window = m.window_ns;
    let pct = |ns: u64| if window > 0 { ns as f64 / window as f64 * 100.0 } else { 0.0 };
    let sys = c.sys_ns + c.helper_ns.unwrap_or(0);
    let cores = c.cores.max(1);
    let limit = c.runnable_less_spin_ppm as f64 / 1e4;
    let waited = pct(c.runq_wait_ns / m.jobs.max(1));
    // More job threads than CPUs wait for each other: that share (all of them CPU-bound) is the
    // run's own, as fio's as many jobs would wait, not the machine's being busy.
    let own = if m.jobs > cores as u64 { 100.0 * (1.0 - cores as f64 / m.jobs as f64) } else { 0.0 };
    CpuStats {
        usr_pct: pct(c.usr_ns),
        sys_pct: pct(sys),
        sqpoll_pct: c.helper_ns.map(pct),
        machine_pct: pct(c.usr_ns + sys) / cores as f64,
        busiest_job_pct: c.busiest_job_ppm as f64 / 1e4,
        ns_per_io: if ops > 0 { (c.usr_ns + sys) as f64 / ops as f64 } else { 0.0 },
        cores,
        runnable_pct: c.runnable_ppm as f64 / 1e4,
        cpu_bound: limit >= CPU_BOUND_PCT,
        spin_pct: pct(c.spin_ns),
        runnable_less_spin_pct: limit,
        runq_wait_pct: waited,
        cpu_starved: waited - own >= CPU_STARVED_PCT,
    }
}

fn open_loop(m: &Measurement, rate: Rate, mean_bs: f64, ops: u64) -> OpenLoopStats {
    let o = m.open_loop.as_ref().expect("called for an open loop");
    let mut all = o.resp_read.clone();
    all.merge(&o.resp_write);
    let target_iops = o.target_uiops as f64 / 1e6;
    let window = m.window_ns;
    OpenLoopStats {
        target_iops,
        target_bw_bytes_per_s: target_iops * mean_bs,
        arrivals: rate.arrivals,
        achieved_iops: if window > 0 { ops as f64 / (window as f64 / 1e9) } else { 0.0 },
        read_resp_lat_ns: o.resp_read.summary(),
        write_resp_lat_ns: o.resp_write.summary(),
        total_resp_lat_ns: all.summary(),
        lag_ns: o.lag.summary(),
        tool_lag_ns: Some(o.tool_lag.summary()),
        late_threshold_ns: LATE_NS,
        late_ops: o.late_ops,
        late_pct: if o.lag.count() > 0 { o.late_ops as f64 * 100.0 / o.lag.count() as f64 } else { 0.0 },
        pace: rate.pace,
        spin_pct: if o.paced_window_ns > 0 { m.cpu.spin_ns as f64 * 100.0 / o.paced_window_ns as f64 } else { 0.0 },
        final_lag_ns: o.final_lag_ns,
        max_lag_ns: rate.max_lag_ns,
        gave_up: o.gave_up,
        kept_up: !o.gave_up && o.final_lag_ns <= LATE_NS,
    }
}

/// The histogram of a second's sparse buckets (bucket values: a second keeps no exact extremes).
fn sparse_hist(b: &[(u16, u64)]) -> Histogram {
    let mut h = Histogram::new();
    for &(i, c) in b {
        h.record_n(crate::hist::bucket_value(i as usize), c);
    }
    h
}

fn series(m: &Measurement, thresholds: usize) -> Vec<SeriesPoint> {
    let open = m.open_loop.is_some();
    let mut t_s = 0.0;
    m.series
        .iter()
        .map(|s: &Second| {
            let dur = s.dur_ns.max(1);
            let secs = dur as f64 / 1e9;
            t_s += secs;
            let ops = s.read_ops + s.write_ops + s.trim_ops;
            let counts = |v: &[u64]| (0..thresholds).map(|i| v.get(i).copied().unwrap_or(0)).collect::<Vec<u64>>();
            SeriesPoint {
                t_s: (t_s * 1000.0).round() / 1000.0,
                dur_ns: dur,
                iops: ops as f64 / secs,
                read_iops: s.read_ops as f64 / secs,
                write_iops: s.write_ops as f64 / secs,
                bw_bytes_per_s: s.bytes as f64 / secs,
                lat_mean_ns: if ops > 0 { s.lat_sum_ns as f64 / ops as f64 } else { 0.0 },
                lat_p99_ns: sparse_hist(&s.lat).percentile(99.0),
                resp_p99_ns: open.then(|| sparse_hist(&s.resp).percentile(99.0)),
                lag_max_ns: open.then_some(s.lag_max_ns),
                tool_lag_max_ns: open.then_some(s.tool_lag_max_ns),
                ops,
                over_threshold_counts: counts(&s.over),
                lat_over_threshold_counts: if open { counts(&s.lat_over) } else { Vec::new() },
                ready_over_threshold_counts: if open { counts(&s.ready_over) } else { Vec::new() },
                resp_pow2_ms: None,
            }
        })
        .collect()
}
