//! One raw, mergeable measurement: what a run's job threads measured, kept as samples (full
//! histograms, counters, nanoseconds) rather than as figures derived from them.
//!
//! Why: figures do not add up. A p99 of two p99s, an IOPS of two windows, a "CPU-bound" of two
//! booleans are all guesses; buckets, counts and nanoseconds add exactly. So every job thread
//! hands back one [`Measurement`] ([`Measurement::of_job`]), and jobs, targets, streams (a fio
//! group, ACT's streams) and MPI ranks are combined by the one [`merge`](merge::merge), which is
//! associative and commutative (property-tested in `tests.rs`): merging parts in any grouping and
//! order gives exactly the measurement of one stream that saw every I/O. The result's figures
//! (`DirStats`, `CpuStats`, `OpenLoopStats`, the series, ...) come from the one pure
//! [`summarize`](summarize::summarize), and a saved result keeps its measurement (compactly,
//! [`encoding`]) so the figures can be derived again and results merged again later.
//!
//! Everything here is an integer (nanoseconds, counts, parts per million), so a merge is exact
//! and a saved measurement reads back bit for bit.

pub mod encoding;
pub mod kinds;
mod legacy;
pub mod merge;
pub mod split;
#[cfg(test)]
mod split_tests;
pub mod summarize;
#[cfg(test)]
mod tests;

use crate::hist::Histogram;
use crate::result::ErrorStat;
use crate::worker::{over_counts, JobOutput, SecondStats};

pub use legacy::merge_summaries;
pub use merge::merge;
pub use summarize::{summarize, Figures};

/// One direction's I/Os: latency from just before the submit call (lat), completion latency
/// (clat, asynchronous backends), and the bytes moved. The I/O count is `lat.count()`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dir {
    pub lat: Histogram,
    pub clat: Histogram,
    pub bytes: u64,
}

/// CPU time in nanoseconds, and the per-job maxima (parts per million of one core over the job's
/// own window) that name the busiest job: a maximum merges exactly, a share of a sum would not.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Cpu {
    pub usr_ns: u64,
    /// The job threads' system time (without SQPOLL helpers).
    pub sys_ns: u64,
    /// io_uring SQPOLL kernel threads (system time moved off the job threads), when any ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub helper_ns: Option<u64>,
    /// Time job threads were runnable but waiting for a CPU.
    pub runq_wait_ns: u64,
    /// Time job threads spun towards intended times (hybrid and spin pacing): drivelab's own
    /// choice, not the target's limit.
    pub spin_ns: u64,
    /// The busiest job's usr + sys.
    pub busiest_job_ppm: u64,
    /// The job that slept least: running or waiting for a CPU.
    pub runnable_ppm: u64,
    /// The job that slept least once its pacing spin is taken out: what says CPU-bound.
    pub runnable_less_spin_ppm: u64,
    /// CPUs of the (largest) host.
    pub cores: u32,
}

/// What an open-loop (fixed-rate) job adds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OpenLoop {
    /// Response times, from the intended issue time (trims are counted with writes).
    pub resp_read: Histogram,
    pub resp_write: Histogram,
    /// How late each measured I/O was submitted, and how late drivelab itself was.
    pub lag: Histogram,
    pub tool_lag: Histogram,
    pub late_ops: u64,
    /// Some job gave up (its lag passed `max_lag`).
    pub gave_up: bool,
    /// How far behind its schedule the furthest job was when it stopped.
    pub final_lag_ns: u64,
    /// The scheduled rate, in micro-I/Os per second, over every job.
    pub target_uiops: u64,
    /// The summed windows of the paced jobs (what `spin_pct` is a share of).
    pub paced_window_ns: u64,
}

/// One target's I/Os: its index in the run (`order`, ranks after one another: the rank in the
/// high 32 bits) and its path name it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TargetPart {
    pub order: u64,
    pub path: String,
    pub window_ns: u64,
    pub read: Dir,
    pub write: Dir,
    pub trim: Dir,
}

/// One second of the series, counted from the common start: a sparse histogram of its I/Os'
/// latency (and response time, open loop), so a merged second's p99 is exact.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Second {
    pub dur_ns: u64,
    pub read_ops: u64,
    pub write_ops: u64,
    pub trim_ops: u64,
    pub bytes: u64,
    pub lat_sum_ns: u128,
    /// (bucket index, count), ascending, non-empty buckets only.
    pub lat: Vec<(u16, u64)>,
    pub resp: Vec<(u16, u64)>,
    /// For each threshold, the I/Os at or over it (response time), and the same for lat.
    pub over: Vec<u64>,
    pub lat_over: Vec<u64>,
    /// The same for the target's share of the response time (open loop: see
    /// `SeriesPoint::ready_over_threshold_counts`; empty in results saved before it was counted).
    pub ready_over: Vec<u64>,
    pub lag_max_ns: u64,
    pub tool_lag_max_ns: u64,
}

/// Everything a run (or part of one) measured, raw and mergeable. See the module docs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Measurement {
    /// The longest part's measured window (parts start together).
    pub window_ns: u64,
    /// Job threads measured (what `qd_mean` is per).
    pub jobs: u64,
    pub read: Dir,
    pub write: Dir,
    pub trim: Dir,
    /// fsync calls (bytes 0).
    pub sync: Dir,
    /// Each measured submit call's duration (fio's slat, per call).
    pub slat: Histogram,
    pub cpu: Cpu,
    pub open_loop: Option<OpenLoop>,
    /// Sorted by (order, path); one entry per target (a fio group's streams on one target share it).
    pub targets: Vec<TargetPart>,
    /// Sorted by (target, op, errno); one entry per kind.
    pub errors: Vec<ErrorStat>,
    pub series: Vec<Second>,
    pub interrupted: bool,
    pub stopped_by_error: bool,
    /// `--latency-split`: where each I/O's lat went (see `split.rs`).
    pub split: Option<split::Split>,
    /// Every other kind of measurement (see `kinds.rs`).
    pub kinds: kinds::Kinds,
}

/// Where a job ran, for [`Measurement::of_job`].
pub struct JobPlace<'a> {
    pub target_path: &'a str,
    pub target_index: usize,
    /// Open loop: the job's share of the rate, in I/Os per second.
    pub job_iops: Option<f64>,
    /// How many thresholds the spec has (the series' counts per second).
    pub thresholds: usize,
    pub cores: u32,
    /// The job's place among every job of the run (see [`kinds::Placed`]).
    pub job: u64,
    /// Why the run's jobs were asked to end early, if they were (the job's `ended` says whether
    /// it stopped for it).
    pub end_reason: Option<crate::result::EndReason>,
}

/// `ns` over `window` in parts per million (0 for an empty window).
fn ppm(ns: u64, window: u64) -> u64 {
    if window == 0 {
        0
    } else {
        (ns as u128 * 1_000_000 / window as u128) as u64
    }
}

impl Measurement {
    /// A job thread's output as a measurement: the one conversion from the worker's form.
    pub fn of_job(out: &JobOutput, at: &JobPlace) -> Measurement {
        let dir = |lat: &Histogram, clat: Option<&Histogram>, bytes: u64| Dir {
            lat: lat.clone(),
            clat: clat.cloned().unwrap_or_default(),
            bytes,
        };
        let w = out.window_ns;
        let busy = out.cpu_usr_ns + out.cpu_sys_ns;
        let cpu = Cpu {
            usr_ns: out.cpu_usr_ns,
            sys_ns: out.cpu_sys_ns,
            helper_ns: out.helper_cpu_ns,
            runq_wait_ns: out.runq_wait_ns,
            spin_ns: out.spin_ns,
            busiest_job_ppm: ppm(busy, w),
            runnable_ppm: ppm(busy + out.runq_wait_ns, w),
            runnable_less_spin_ppm: ppm((busy + out.runq_wait_ns).saturating_sub(out.spin_ns), w),
            cores: at.cores,
        };
        let open_loop = at.job_iops.map(|iops| OpenLoop {
            resp_read: out.resp_read.clone(),
            resp_write: out.resp_write.clone(),
            lag: out.lag.clone(),
            tool_lag: out.tool_lag.clone(),
            late_ops: out.late_ops,
            gave_up: out.gave_up,
            final_lag_ns: out.final_lag_ns,
            target_uiops: (iops * 1e6).round() as u64,
            paced_window_ns: w,
        });
        let mut errors: Vec<ErrorStat> = Vec::new();
        for e in &out.errors {
            // An error of a file set's file names it; any other, the job's target.
            let target = if e.target.is_empty() { at.target_path.to_string() } else { e.target.clone() };
            let e = ErrorStat { target, ..e.clone() };
            errors = merge::merge_errors(errors, vec![e]);
        }
        Measurement {
            window_ns: w,
            jobs: 1,
            read: dir(&out.read, Some(&out.clat_read), out.read_bytes),
            write: dir(&out.write, Some(&out.clat_write), out.write_bytes),
            trim: dir(&out.trim, None, out.trim_bytes),
            sync: dir(&out.sync, None, 0),
            slat: out.slat.clone(),
            cpu,
            open_loop,
            targets: vec![TargetPart {
                order: at.target_index as u64,
                path: at.target_path.to_string(),
                window_ns: w,
                read: dir(&out.read, None, out.read_bytes),
                write: dir(&out.write, None, out.write_bytes),
                trim: dir(&out.trim, None, out.trim_bytes),
            }],
            errors,
            series: out.series.iter().map(|s| Second::of(s, at.thresholds)).collect(),
            interrupted: out.interrupted,
            stopped_by_error: out.stopped_by_error,
            split: out.split.clone(),
            kinds: kinds::Kinds {
                thread_usage: Some(out.usage),
                iodepths: Some(out.depths),
                latency_depth: out.latency_depth.map(|d| kinds::Last::new(at.job, d)),
                ended: at.end_reason.filter(|_| out.ended).map(|e| kinds::First::new(at.job, e)),
                ..out.kinds.clone()
            },
        }
    }

    /// A measurement from a result saved before measurements were kept (or by another tool):
    /// its figures as samples, as near as they allow (see `legacy.rs`).
    pub fn of_result(r: &crate::result::RunResult) -> Measurement {
        match &r.measurement {
            Some(m) => {
                // Saved before some kinds were kept in the measurement: those from the figures.
                let mut m = Measurement::clone(m);
                m.kinds.fill_from(r);
                m
            }
            None => legacy::from_figures(r),
        }
    }

    /// Rename every target (and the errors naming them), and put them in group `group` (a rank):
    /// groups come one after another in the merged target list.
    pub fn regroup(&mut self, group: u64, rename: impl Fn(&str) -> String) {
        self.regroup_with(group, &rename);
    }

    fn regroup_with(&mut self, group: u64, rename: &dyn Fn(&str) -> String) {
        self.kinds.regroup(group, rename);
        for t in &mut self.targets {
            t.path = rename(&t.path);
            t.order = (group << 32) | (t.order & 0xffff_ffff);
        }
        for e in &mut self.errors {
            e.target = rename(&e.target);
        }
        self.targets.sort_by(|a, b| (a.order, &a.path).cmp(&(b.order, &b.path)));
        let errors = std::mem::take(&mut self.errors);
        self.errors = errors.into_iter().fold(Vec::new(), |acc, e| merge::merge_errors(acc, vec![e]));
    }

    /// All I/Os of every direction but fsync (what `total` counts).
    pub fn total_ops(&self) -> u64 {
        self.read.lat.count() + self.write.lat.count() + self.trim.lat.count()
    }
}

impl Second {
    fn of(s: &SecondStats, thresholds: usize) -> Second {
        let mut over = vec![0u64; thresholds];
        let mut lat_over = vec![0u64; thresholds];
        over_counts(&s.over_threshold, thresholds, &mut over);
        over_counts(&s.lat_over_threshold, thresholds, &mut lat_over);
        let mut ready_over = vec![0u64; thresholds];
        over_counts(&s.ready_over_threshold, thresholds, &mut ready_over);
        let wide = |v: &[(u16, u32)]| v.iter().map(|&(i, c)| (i, c as u64)).filter(|b| b.1 > 0).collect();
        Second {
            dur_ns: s.dur_ns,
            read_ops: s.read_ops,
            write_ops: s.write_ops,
            trim_ops: s.trim_ops,
            bytes: s.read_bytes + s.write_bytes + s.trim_bytes,
            lat_sum_ns: s.lat_sum_ns,
            lat: wide(&s.buckets),
            resp: wide(&s.resp_buckets),
            over,
            lat_over,
            ready_over,
            lag_max_ns: s.lag_max_ns,
            tool_lag_max_ns: s.tool_lag_max_ns,
        }
    }
}
