//! What a run produced, as saved to JSON. Units live in field names (`bytes`, `lat_ns`, `iops`,
//! `bw_bytes_per_s`) and never change; new fields may be added, none renamed. The schema is
//! documented in docs/RESULTS.md.

use serde::{Deserialize, Serialize};

use crate::backend::uring::RingFacts;
use crate::hist::{Histogram, LatSummary};
use crate::spec::{AccessSpec, Arrivals};
use crate::target::TargetInfo;

/// 2: `lat_ns` runs from just before the submit call (fio's lat); `clat_ns` and `slat_ns`
/// added. In schema 1, `lat_ns` ran from the submit call's return (what is now `clat_ns`).
pub const SCHEMA: u32 = 2;

/// Totals of one direction (read, write, both, or fsync).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct DirStats {
    pub ops: u64,
    pub bytes: u64,
    pub iops: f64,
    pub bw_bytes_per_s: f64,
    /// 10^6 bytes per second.
    pub bw_mb_per_s: f64,
    /// 2^20 bytes per second.
    pub bw_mib_per_s: f64,
    /// Latency from just before the submit call to completion (fio's `lat`): the primary figure.
    pub lat_ns: LatSummary,
    /// Completion latency from the submit call's return (fio's `clat`), for asynchronous
    /// backends (io_uring); absent where the submit call completes the I/O (psync, null).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clat_ns: Option<LatSummary>,
}

impl DirStats {
    /// Forget the latency histograms, keeping every figure drawn from them
    /// ([`RunResult::drop_details`]).
    pub fn drop_histograms(&mut self) {
        self.lat_ns.drop_histogram();
        if let Some(c) = &mut self.clat_ns {
            c.drop_histogram();
        }
    }

    pub fn from_hist(h: &Histogram, bytes: u64, window_ns: u64) -> DirStats {
        let secs = window_ns as f64 / 1e9;
        let per_s = |v: f64| if secs > 0.0 { v / secs } else { 0.0 };
        let bw = per_s(bytes as f64);
        DirStats {
            ops: h.count(),
            bytes,
            iops: per_s(h.count() as f64),
            bw_bytes_per_s: bw,
            bw_mb_per_s: bw / 1e6,
            bw_mib_per_s: bw / 1048576.0,
            lat_ns: h.summary(),
            clat_ns: None,
        }
    }

    /// The same, with the completion latencies `clat` beside (None when nothing was recorded).
    pub fn with_clat(mut self, clat: &Histogram) -> DirStats {
        self.clat_ns = (clat.count() > 0).then(|| clat.summary());
        self
    }
}

/// Per-second point of the time series.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SeriesPoint {
    /// Seconds since measurement started, at the end of this interval.
    pub t_s: f64,
    pub dur_ns: u64,
    pub iops: f64,
    pub read_iops: f64,
    pub write_iops: f64,
    pub bw_bytes_per_s: f64,
    pub lat_mean_ns: f64,
    pub lat_p99_ns: u64,
    /// Open loop: p99 response time (from the intended issue time) in this second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resp_p99_ns: Option<u64>,
    /// Open loop: the largest submission lag in this second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lag_max_ns: Option<u64>,
    /// Open loop: the largest of drivelab's own lateness in this second (see
    /// `OpenLoopStats::tool_lag_ns`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_lag_max_ns: Option<u64>,
    /// Completed I/Os in this second.
    #[serde(default)]
    pub ops: u64,
    /// With `spec.thresholds_ns`: for each threshold, the I/Os of this second whose response
    /// time was at or over it (so the counts never increase along the list; the I/Os between two
    /// thresholds are the difference of their counts). Empty without thresholds.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub over_threshold_counts: Vec<u64>,
    /// Open loop with thresholds: the same counts for lat (from just before each I/O's submit
    /// call to its completion: the service time ACT judges), while `over_threshold_counts`
    /// holds response times (from each I/O's intended time). Empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lat_over_threshold_counts: Vec<u64>,
    /// Open loop with thresholds: the same counts for the target's share of the response time:
    /// each I/O's response time had drivelab issued every I/O of its slot on time (its intended
    /// time, or when the slot's previous I/O would then have completed), with each I/O's own lat.
    /// Where these pass and the response-time counts fail, drivelab's lateness failed them.
    /// Empty otherwise, and in results saved before drivelab counted it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ready_over_threshold_counts: Vec<u64>,
    /// Schema-1 results of open-loop runs only: response-time counts in ACT's power-of-two
    /// millisecond buckets. Still read so old results load; no longer written (see
    /// `over_threshold_counts`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resp_pow2_ms: Option<Vec<u64>>,
}

/// What a fixed-rate (open-loop) run adds to its result.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct OpenLoopStats {
    /// The rate asked for, over every job.
    pub target_iops: f64,
    pub target_bw_bytes_per_s: f64,
    pub arrivals: Arrivals,
    /// Completed I/Os per second over the measured window.
    pub achieved_iops: f64,
    /// Response time: from the intended issue time to completion (what a client waits). The
    /// top-level `lat_ns` fields stay service time, from just before the submit call (fio's lat).
    pub read_resp_lat_ns: LatSummary,
    pub write_resp_lat_ns: LatSummary,
    pub total_resp_lat_ns: LatSummary,
    /// How late I/Os were submitted after their intended time, for whatever reason.
    pub lag_ns: LatSummary,
    /// How late drivelab itself submitted them: from the later of the intended time and the
    /// moment a queue slot was free. `lag_ns` minus this is the target holding every slot (with
    /// one I/O per job, as in ACT's threads, a slow I/O delays the job's next one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_lag_ns: Option<LatSummary>,
    pub late_threshold_ns: u64,
    /// I/Os submitted more than `late_threshold_ns` late, and their share of all submitted.
    pub late_ops: u64,
    pub late_pct: f64,
    /// How far behind its schedule the furthest job was when the run stopped.
    pub final_lag_ns: u64,
    pub max_lag_ns: Option<u64>,
    /// The schedule fell behind by more than `max_lag_ns` and the run gave up.
    pub gave_up: bool,
    /// The run ended on schedule (within `late_threshold_ns`) without giving up: the target
    /// carried the load.
    pub kept_up: bool,
    /// How the jobs waited for their intended times.
    #[serde(default)]
    pub pace: crate::spec::PaceMode,
    /// Time the job threads spent spinning towards intended times, in % of their measured
    /// windows (averaged over the jobs: 100 = one core per job). Part of `cpu`.
    #[serde(default)]
    pub spin_pct: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct CpuStats {
    /// User CPU of drivelab's job threads, in % of one core.
    pub usr_pct: f64,
    /// System CPU of drivelab's job threads (and io_uring SQPOLL threads), in % of one core.
    pub sys_pct: f64,
    /// With `--sqpoll`: the SQPOLL kernel threads' share of `sys_pct` (measured over each job,
    /// ramp included).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sqpoll_pct: Option<f64>,
    /// usr + sys as % of the whole machine (all cores).
    pub machine_pct: f64,
    /// The busiest job thread's usr + sys, in % of one core.
    pub busiest_job_pct: f64,
    /// CPU time spent per completed I/O.
    pub ns_per_io: f64,
    pub cores: u32,
    /// The job thread that slept least: % of its window it was running or waiting for a CPU.
    pub runnable_pct: f64,
    /// True when a job thread was running or runnable >= 90% of the time, its pacing spin aside
    /// (`runnable_less_spin_pct`): it hardly ever waited for the target, so the CPU, not the
    /// target, was the limit. drivelab's own spinning towards intended times is not that.
    pub cpu_bound: bool,
    /// Open loop with hybrid or spin pacing: the job threads' time spent spinning towards
    /// intended times, in % of one core over the window (part of `usr_pct`).
    #[serde(default)]
    pub spin_pct: f64,
    /// The job thread that slept least, its pacing spin taken out: % of its window it was
    /// running or waiting for a CPU otherwise. `cpu_bound` is this >= 90.
    #[serde(default)]
    pub runnable_less_spin_pct: f64,
    /// drivelab's job threads' time runnable but waiting for a CPU, in % of the run, their mean:
    /// the machine was busy with something else (0 in results saved before it was kept).
    #[serde(default)]
    pub runq_wait_pct: f64,
    /// True when `runq_wait_pct` >= 20 (`measurement::summarize::CPU_STARVED_PCT`): the job
    /// threads waited for a CPU long enough that the latencies hold that wait, not only the
    /// target's; every output says so with the figure.
    #[serde(default)]
    pub cpu_starved: bool,
}

impl CpuStats {
    /// The warning of a run whose job threads waited for a CPU ([`CpuStats::cpu_starved`]),
    /// with the figure: the one wording every output uses.
    pub fn starved_warning(&self) -> Option<String> {
        self.cpu_starved.then(|| {
            format!(
                "drivelab's job threads waited for a CPU {:.0}% of the run: the latency figures hold that wait; the \
                 machine is busy",
                self.runq_wait_pct
            )
        })
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ErrorStat {
    pub target: String,
    pub op: String,
    /// 0 for a short transfer.
    pub errno: i32,
    pub error: String,
    pub count: u64,
    pub first_offset_bytes: u64,
    /// The job went on after these (fio's `ignore_error`), or they ended a `fill_device` job
    /// cleanly: not failures; such errors are listed in `continued_errors`, never in `errors`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub continued: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TargetResult {
    pub path: String,
    pub read: DirStats,
    pub write: DirStats,
    pub total: DirStats,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct EngineFacts {
    /// Backend that ran: uring, psync or null.
    pub backend: String,
    pub ring: Option<RingFacts>,
    /// The jobs look for completions before they sleep for them (`backend/look.rs`: at a short
    /// queue, or on a tmpfs file); true when any job did, so the CPU figures hold that looking.
    /// Absent for backends that do not wait for completions (psync, null).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub looks_before_sleep: Option<bool>,
    /// The CPU each job thread was pinned to (null: not pinned), in job order.
    #[serde(default)]
    pub job_cpus: Vec<Option<u32>>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ToolInfo {
    pub name: String,
    pub version: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RunResult {
    pub schema: u32,
    pub tool: ToolInfo,
    /// Wall-clock start, Unix epoch ms.
    pub started_unix_ms: u64,
    pub spec: AccessSpec,
    pub engine: EngineFacts,
    pub targets: Vec<TargetInfo>,
    /// Measured time (the longest job's window).
    pub runtime_ns: u64,
    pub read: DirStats,
    pub write: DirStats,
    pub total: DirStats,
    /// Trims (discards, punched holes) of a trim workload, beside reads and writes; `total`
    /// counts them too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim: Option<Box<DirStats>>,
    /// fsync latencies, when `--sync fsync:N` was used.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub sync: Option<Box<DirStats>>,
    pub per_target: Vec<TargetResult>,
    pub cpu: CpuStats,
    /// Mean outstanding I/Os per job actually achieved (time-average, by Little's law over the
    /// measured window: sum of latencies / window).
    pub qd_mean: f64,
    pub series: Vec<SeriesPoint>,
    pub errors: Vec<ErrorStat>,
    /// Errors the jobs went on after (fio's `ignore_error` with `continue_on_error`: fio counts
    /// them in `total_err` and the job does not fail), and the ENOSPC/EDQUOT (or short write)
    /// that ended a `fill_device` job, by target, op and errno: counted and shown, never a
    /// failure (they do not make the result errored).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub continued_errors: Vec<ErrorStat>,
    pub interrupted: bool,
    pub stopped_by_error: bool,
    pub notices: Vec<String>,
    /// Fixed-rate runs only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_loop: Option<Box<OpenLoopStats>>,
    /// Asynchronous backends: the duration of each measured submit call (fio's `slat`, here per
    /// call: every I/O of a batch shares its call). `lat` = `slat` + `clat` for each I/O.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slat_ns: Option<Box<LatSummary>>,
    /// With `verify`: the generation map of each target after the run (saved beside the result
    /// in binary, not in the JSON).
    #[serde(skip)]
    pub verify_maps: Vec<crate::verify::GenerationMap>,
    /// The raw measurement the figures above were derived from (`measurement::summarize`), so
    /// they can be derived again and results merged later; compact (see
    /// `measurement::encoding`). Absent in results saved before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measurement: Option<Box<crate::measurement::Measurement>>,
    /// With fio's logging options: what each job recorded for its log files (written by the
    /// lab at the end of the point; not in the JSON). Not a measurement: records for files.
    #[serde(skip)]
    pub io_logs: crate::iolog::Logs,
    /// With verify: each writing job's writes as fio's verify state records them (its
    /// stream, then the job's), for fio's `verify_state_save` files written by the lab at the
    /// end of the point; not in the JSON. Records for files, as `io_logs`.
    #[serde(skip)]
    pub verify_writes: Vec<(usize, JobWrites)>,
    /// `--latency-split`: where each I/O's lat went, stage by stage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_split: Option<Box<LatencySplitStats>>,
    /// The figures of every other kind of measurement (`verify`, `ended`, `steadystate`,
    /// `latency_depth`, `thread_usage`, `iodepths`, `disk_util`: top-level fields of the saved
    /// result; see `measurement::kinds`).
    #[serde(flatten)]
    pub kinds: crate::measurement::kinds::KindFigures,
    /// With several jobs: each job thread's own result (fio's numjobs clones, which fio reports
    /// one entry each without group_reporting), without a measurement of its own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clones: Vec<RunResult>,
}

/// Why a run ended before its time or size: a clean end the lab asked for from the per-second
/// figures, unlike an interruption (Ctrl-C) or an error.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// fio's `steadystate`: the criterion was met over the window.
    Steady,
    /// fio's `rate_min`/`rate_iops_min`: the rate over a `rate_cycle` fell below the minimum
    /// (a failure: see [`RunResult::errored`]).
    RateMin,
    /// fio's `exitall`: another job of the group ended first.
    Exitall,
}

impl EndReason {
    /// The code an [`crate::run::EndEarly`] holds (0 is none).
    pub fn code(self) -> u8 {
        match self {
            EndReason::Steady => 1,
            EndReason::RateMin => 2,
            EndReason::Exitall => 3,
        }
    }

    pub fn from_code(code: u8) -> Option<EndReason> {
        match code {
            1 => Some(EndReason::Steady),
            2 => Some(EndReason::RateMin),
            3 => Some(EndReason::Exitall),
            _ => None,
        }
    }
}

/// fio's steady-state check as judged (its JSON `steadystate` block is written from this).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Default)]
pub struct SteadyStateStats {
    /// The criterion as fio spells it (`iops_slope:0.100000%`).
    pub ss: String,
    /// The window's length, s (`ss_dur`).
    pub duration_s: u64,
    pub attained: bool,
    /// The figure last compared with the limit, as fio writes it (`5.884340%`).
    pub criterion: String,
    pub max_deviation: f64,
    pub slope: f64,
    /// The window's samples, oldest first: IOPS and bytes/s of each second.
    pub iops: Vec<u64>,
    pub bw_bytes_per_s: Vec<u64>,
    /// With fio's `lat` criteria: each second's mean completion latency, ns.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lat_ns: Vec<u64>,
}

impl RunResult {
    /// Forget what only a chart of this one result draws — every latency histogram and the
    /// per-second series — keeping every figure (percentiles, means, counts, errors). A report of
    /// a directory of many thousand points holds its points so (the histograms are most of a
    /// point's memory) and reads back the few its charts draw (`drivelab_lab::results`).
    pub fn drop_details(&mut self) {
        for d in [&mut self.read, &mut self.write, &mut self.total]
            .into_iter()
            .chain(self.trim.as_deref_mut())
            .chain(self.sync.as_deref_mut())
        {
            d.drop_histograms();
        }
        for t in &mut self.per_target {
            for d in [&mut t.read, &mut t.write, &mut t.total] {
                d.drop_histograms();
            }
        }
        if let Some(s) = &mut self.slat_ns {
            s.drop_histogram();
        }
        if let Some(o) = &mut self.open_loop {
            for l in [&mut o.read_resp_lat_ns, &mut o.write_resp_lat_ns, &mut o.total_resp_lat_ns, &mut o.lag_ns]
                .into_iter()
                .chain(&mut o.tool_lag_ns)
            {
                l.drop_histogram();
            }
        }
        self.series = Vec::new();
        // A vector read from JSON keeps the room it grew to (four targets' for one: 2.2 KB a point).
        self.per_target.shrink_to_fit();
        self.targets.shrink_to_fit();
        self.errors.shrink_to_fit();
        self.notices.shrink_to_fit();
        self.clones.iter_mut().for_each(RunResult::drop_details);
    }

    /// An I/O error, wrong data, or a stop for either: never a clean result.
    pub fn errored(&self) -> bool {
        self.stopped_by_error
            || !self.errors.is_empty()
            || self.mismatches() > 0
            || self.kinds.ended == Some(EndReason::RateMin)
    }

    /// Units that were not what was written (inline checks and the re-read at the end).
    pub fn mismatches(&self) -> u64 {
        self.kinds.verify.as_ref().map_or(0, VerifyStats::mismatches)
    }
}

/// One verifying job's writes as fio's verify state file holds them (`verify_state_save`):
/// how many it issued (fio's `numberio`) and the offsets of its last writes completed whole,
/// at most its depth (fio's completions, which a later `verify_state_load` checks the last
/// writes against).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JobWrites {
    /// The job's target (index in the run's targets) and its number among that target's jobs.
    pub target: usize,
    pub job: u64,
    pub issued: u64,
    pub last_offsets_bytes: Vec<u64>,
    /// The job's depth.
    pub depth: u32,
}

/// Data verification of a run (`verify`): what was stamped, what was checked, what was wrong.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Default)]
pub struct VerifyStats {
    /// Bytes per verified unit (every unit carries a header).
    pub unit_bytes: u64,
    pub seed: u64,
    /// Units stamped and written (ramp included: data is checked whether measured or not).
    pub written_units: u64,
    /// Units read whose content is not known (never written since the lab began, or a write of
    /// it failed): not checked.
    pub unchecked_units: u64,
    /// I/Os held back until an overlapping I/O in flight completed (verify serializes overlaps,
    /// as fio's serialize_overlap, so what a read must find is always known).
    pub held_ios: u64,
    /// The `target` each target's units carry in their headers, in the run's target order (a
    /// lab gives each path one id for all its runs); absent in older results: the index.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub target_ids: Vec<u32>,
    /// `--journal`: the journal every write of this run was recorded in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub journal: Option<String>,
    /// Reads checked as they completed.
    pub inline: Checks,
    /// The re-read of every written unit at the end (`verify_after`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<Checks>,
}

impl VerifyStats {
    /// The header id of target `ti` of the run.
    pub fn target_id(&self, ti: usize) -> u32 {
        self.target_ids.get(ti).copied().unwrap_or(ti as u32)
    }

    /// Units wrong (inline and after), or unreadable when re-read.
    pub fn mismatches(&self) -> u64 {
        self.inline.failed() + self.after.as_ref().map_or(0, Checks::failed)
    }
}

/// Units checked and the mismatches found, by kind; the first few in detail.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Default)]
pub struct Checks {
    pub checked_units: u64,
    pub mismatches: u64,
    /// Mismatches by kind (`never_written`, `foreign`, `misdirected`, `stale`, `ahead`, `torn`,
    /// `bit_flip`); kinds not seen are absent.
    pub by_kind: std::collections::BTreeMap<crate::verify::MismatchKind, u64>,
    /// The first mismatches, at most [`Checks::KEEP`] per job in the order found; a run's (over
    /// its jobs, at most [`Checks::KEEP_PER_RUN`]) in target and offset order.
    pub first: Vec<MismatchRecord>,
    /// A re-read: units that could not be read (an I/O error), and the first of their offsets.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unreadable_units: u64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub first_unreadable_offsets_bytes: Vec<u64>,
    /// A re-read after the run (`verify_after`, fio's verify phase): how long it took, summed
    /// over the sweeps merged (0: untimed, or saved before it was timed).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub sweep_ns: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Checks {
    /// Mismatches kept in detail per job (and per target for a re-read).
    pub const KEEP: usize = 16;
    /// Mismatches a run keeps in detail, over all its jobs.
    pub const KEEP_PER_RUN: usize = 64;

    /// Add `other`'s counts and first mismatches (up to `keep` in all).
    pub fn merge(&mut self, other: &Checks, keep: usize) {
        self.checked_units += other.checked_units;
        self.mismatches += other.mismatches;
        for (k, n) in &other.by_kind {
            *self.by_kind.entry(*k).or_default() += n;
        }
        let room = keep.saturating_sub(self.first.len());
        self.first.extend(other.first.iter().take(room).cloned());
        self.unreadable_units += other.unreadable_units;
        self.sweep_ns += other.sweep_ns;
        let room = keep.saturating_sub(self.first_unreadable_offsets_bytes.len());
        self.first_unreadable_offsets_bytes.extend(other.first_unreadable_offsets_bytes.iter().take(room));
    }

    /// Units wrong or unreadable.
    pub fn failed(&self) -> u64 {
        self.mismatches + self.unreadable_units
    }
}

/// One unit that was not what was written: where, what kind, what was expected and found
/// (ordered by target and offset: a merge keeps the first few in that order).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
pub struct MismatchRecord {
    /// The target's path (its index in the run's targets is `expected.target`).
    pub target: String,
    pub offset_bytes: u64,
    pub kind: crate::verify::MismatchKind,
    pub expected: UnitHeader,
    /// The header found, when one was valid.
    pub found: Option<UnitHeader>,
    /// Bits that differ from the expected unit.
    pub bits: u64,
    /// Where the unit first differs from the expected one (byte within the unit), and 16 bytes
    /// of each from there, in hex.
    pub differs_at_byte: Option<u64>,
    pub expected_hex: String,
    pub found_hex: String,
}

/// A unit header as the results show it.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
pub struct UnitHeader {
    pub target: u32,
    pub offset_bytes: u64,
    pub generation: u64,
    pub seed: u64,
    pub unit_bytes: u32,
}

impl MismatchRecord {
    /// One line: `offset 40960: stale, generation 1 (expected 2), 16301 bits differ from byte
    /// 24: expected … found …`.
    pub fn describe(&self) -> String {
        let found = match &self.found {
            Some(h) if h.offset_bytes != self.offset_bytes || h.target != self.expected.target => {
                format!("a unit written for offset {} of target {}", h.offset_bytes, h.target)
            }
            Some(h) => format!("generation {} (expected {})", h.generation, self.expected.generation),
            None => "no valid header".to_string(),
        };
        let from = self
            .differs_at_byte
            .map(|at| format!(" from byte {at}: expected {} found {}", self.expected_hex, self.found_hex))
            .unwrap_or_default();
        format!("offset {}: {}, {found}, {} bits differ{from}", self.offset_bytes, self.kind.name(), self.bits)
    }

    /// The record of `m`, found at `exp` on `target` (its path filled in by the caller).
    pub fn new(m: &crate::verify::Mismatch, exp: &crate::verify::Expected, seed: u64, unit: usize) -> MismatchRecord {
        let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        MismatchRecord {
            target: String::new(),
            offset_bytes: exp.offset,
            kind: m.kind,
            expected: UnitHeader {
                target: exp.target,
                offset_bytes: exp.offset,
                generation: exp.generation,
                seed,
                unit_bytes: unit as u32,
            },
            found: m.found.map(|h| UnitHeader {
                target: h.target,
                offset_bytes: h.offset,
                generation: h.generation,
                seed: h.seed,
                unit_bytes: h.unit_len,
            }),
            bits: m.bits,
            differs_at_byte: m.first.map(|d| d.at as u64),
            expected_hex: m.first.map(|d| hex(&d.expected)).unwrap_or_default(),
            found_hex: m.first.map(|d| hex(&d.found)).unwrap_or_default(),
        }
    }
}

/// `--latency-split`: where each I/O's `lat` went, stage by stage (see `crate::split`). Every
/// `_ns` figure is nanoseconds; a stage's time is from the stamp that ends the stage before it.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct LatencySplitStats {
    /// Measured I/Os.
    pub ios: u64,
    /// Of those, the ones cut into stages (every kernel stamp found); the rest are `unmatched`.
    pub cut: u64,
    /// Cut I/Os that had no block request (page-cache hits, tmpfs): their device stage is 0.
    pub without_device: u64,
    /// Measured I/Os whose kernel stamps were missing: counted, never cut with guesses.
    pub unmatched: u64,
    /// Cut I/Os whose stamps were out of order and were put in order (see `split::cut`).
    pub clamped: u64,
    /// Kernel events the split lost: requests of its I/Os the BPF programs could not match, and
    /// events the kernel ran no program for because the same program was already running on
    /// that CPU (it never nests one; such an I/O is then `unmatched`).
    pub lost_events: u64,
    /// Cut I/Os io_uring handed to an io-wq worker (their wait for it is in the kernel stage).
    pub io_wq: u64,
    /// The cost of the split in the kernel: its BPF programs' CPU time over the run (ramp
    /// included; they also look at other processes' block requests), and per measured I/O. 0
    /// where the kernel would not time them. drivelab's own share of the split (arming and
    /// reading each I/O's record) is inside `cpu.ns_per_io`.
    pub bpf_ns: u64,
    pub bpf_ns_per_io: f64,
    /// Each stage over every cut I/O, in order: tool, kernel, device, completion, reap.
    pub stages: Vec<StageStats>,
    /// At p50, p99 and p99.9 of the cut I/Os' lat: each stage's mean over the I/Os at that lat
    /// (the histogram bucket holding the percentile). They add up to the bucket's mean lat.
    pub at: Vec<SplitAt>,
    /// Each second of the run: its cut I/Os and each stage's mean.
    pub series: Vec<SplitSecondStats>,
}

/// One stage over every cut I/O.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct StageStats {
    pub stage: String,
    pub lat_ns: LatSummary,
    pub mean_ns: f64,
    /// Its mean as a share of the mean lat, in percent.
    pub share_pct: f64,
}

/// The split at one percentile of lat.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct SplitAt {
    /// `p50`, `p99`, `p99.9`.
    pub percentile: String,
    pub lat_ns: u64,
    /// The I/Os at that lat (in its bucket) the stages are the mean of.
    pub bucket_ios: u64,
    pub stage_ns: crate::split::Stages<u64>,
    pub share_pct: crate::split::Stages<f64>,
    /// The stages added up (equal to `lat_ns` within the histogram's bucket error).
    pub sum_ns: u64,
}

/// One second of the split.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct SplitSecondStats {
    pub ios: u64,
    pub mean_ns: crate::split::Stages<u64>,
}
