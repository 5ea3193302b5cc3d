//! Running Aerospike's ACT storage workload with drivelab's engine: the I/O half of `drivelab
//! act` (the arithmetic, slices, verdict and log format live in [`crate::act`], with no I/O).
//!
//! The load is ACT's own issue model ([`streams`]): service threads doing one small read at a
//! time on their own schedules, and one large-block reader and writer per target, all started
//! together and opened with O_DIRECT and O_DSYNC, as ACT opens devices.
//!
//! Each load is judged twice from the same I/Os:
//! - **ACT's verdict** (the default, and the score): each I/O timed from just before its submit
//!   call to its completion, as ACT times its `pread`, so a score can be put next to a published
//!   ACT score. A service thread that falls behind is not charged for its lateness (coordinated
//!   omission), as in ACT.
//! - **The response-time verdict**, beside it: each I/O timed from its intended issue time, so
//!   a stall is charged to every request that waited on it. Never lower than the service time,
//!   so a load that passes it passes ACT's too.
//!
//! Each stream asks the engine to count, per second, the I/Os at or over ACT's thresholds (1, 2,
//! 4, ... 32768 ms: [`act_thresholds_ns`]) both ways; ACT's power-of-two millisecond buckets are
//! the differences of those counts, and the slices, the verdicts and the ACT-format log are built
//! from them.

mod streams;

use drivelab_engine::result::{RunResult, SeriesPoint};
use drivelab_engine::spec::EngineKind;

use crate::act::{self, ActConfig, ActCriteria, ActHist, ActLogSecond, ActRates, ActVerdict, SliceRow, ACT_BUCKETS};
use crate::delivery::Delivery;

/// How an ACT certification runs: what ACT's config file says, plus drivelab's queue depths,
/// the pass criteria and the search. Saved as the setup of an `act` results directory.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ActOptions {
    /// ACT's config; `scale` is the load's N (with `search`, the last load's).
    pub config: ActConfig,
    /// Pass limits per slice (ACT's: 5% over 1 ms, 1% over 8 ms, 0.1% over 64 ms).
    pub criteria: ActCriteria,
    pub targets: Vec<String>,
    /// One load's length (a confirming load's, with `search`).
    pub time_ns: u64,
    pub slice_secs: u32,
    /// ACT's service threads, over all targets: each does one small read (or, with
    /// commit-to-device, record write) at a time on its own schedule.
    #[serde(alias = "read_qd")]
    pub service_threads: u32,
    /// Large-block reader threads, and writer threads, per target (ACT: 1 each).
    #[serde(alias = "large_block_qd")]
    pub large_block_threads: u32,
    /// O_DSYNC on every fd (ACT's default; `disable-odsync` turns it off).
    pub dsync: bool,
    /// ACT's max-lag: a stream that falls this far behind its schedule fails the load.
    pub max_lag_ns: u64,
    /// How each stream waits for its next intended time (see `PaceMode`).
    #[serde(default)]
    pub pace: drivelab_engine::spec::PaceMode,
    pub engine: EngineKind,
    pub seed: u64,
    /// `--latency-split` on every stream (see `drivelab_engine::split`).
    pub latency_split: bool,
    /// Fill every target with random data before the first load (ACT's act_prep).
    pub prep: bool,
    /// Search the highest passing N instead of running `config.scale` once.
    pub search: bool,
    /// With `search`: each probe's length before the confirmation.
    pub probe_time_ns: u64,
    /// With `search`: the N to start from (None: from a short closed-loop read probe).
    pub search_start: Option<u32>,
}

#[cfg(test)]
impl ActOptions {
    /// ACT's defaults on one target named `t`, 10 threads, 30 s loads.
    pub fn for_tests() -> ActOptions {
        ActOptions {
            config: ActConfig::default(),
            criteria: ActCriteria::default(),
            targets: vec!["t".into()],
            time_ns: 30_000_000_000,
            slice_secs: 3600,
            service_threads: 10,
            large_block_threads: 1,
            dsync: true,
            max_lag_ns: 10_000_000_000,
            pace: Default::default(),
            engine: EngineKind::Uring,
            seed: 1,
            prep: false,
            search: false,
            probe_time_ns: 10_000_000_000,
            search_start: None,
            latency_split: false,
        }
    }
}

/// What a stream does in the ACT workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    Reads,
    LargeBlockReads,
    LargeBlockWrites,
    Writes,
}

/// One stream's result.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StreamResult {
    pub role: Role,
    pub target: String,
    pub result: RunResult,
}

pub use streams::{
    default_service_threads, min_op_bytes, plan, service_threads, share, ServiceThreads, StreamPlan, ThreadsError,
};

/// Which latency a set of slices and its verdict judge.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Timing {
    /// From just before each I/O's submit call to its completion: what ACT measures.
    Service,
    /// From each I/O's intended issue time to its completion (results before drivelab 0.5
    /// judged only this).
    #[default]
    Response,
}

/// One load judged by one [`Timing`]: ACT's slice table and its verdict.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Judged {
    pub timing: Timing,
    pub slices: Vec<SliceRow>,
    pub verdict: ActVerdict,
    /// The verdict, the streams' state included: never a pass after an I/O error, an
    /// interruption, a load cut short, or (response time) a schedule that fell behind.
    pub passed: bool,
    /// Why it failed, for people (empty when it passed).
    #[serde(default)]
    pub why: String,
}

/// One load (one N) run to its end.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ActRun {
    pub scale: f64,
    pub rates: ActRates,
    /// Which latency `seconds`, `slices`, `verdict` and `passed` judge: ACT's service time
    /// (results before drivelab 0.5: response time, with no `response` beside).
    #[serde(default)]
    pub timing: Timing,
    /// Per second, ACT's histograms of the load (what `--act-log` writes).
    pub seconds: Vec<ActLogSecond>,
    pub slices: Vec<SliceRow>,
    pub verdict: ActVerdict,
    /// Why the load could not be carried, beside latency: a schedule that fell past max-lag
    /// (ACT stops the test), or, for the response-time verdict, a backlog that kept growing.
    pub fell_behind: Option<String>,
    /// The verdict that scores: `verdict` with the streams' state (errors, interruption, cut
    /// short, max-lag) included.
    pub passed: bool,
    /// Why it failed, for people (empty when it passed).
    #[serde(default)]
    pub why: String,
    /// The same, one reason a line, typed: the streams' problem, or each failing slice's
    /// reason; empty when it passed (and in results saved before it: [`ActRun::fail_reasons`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
    pub interrupted: bool,
    /// The stricter verdict from the same I/Os: response time from each intended issue time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<Judged>,
    /// The response-time verdict failed on latency alone and passes once drivelab's own
    /// lateness is taken out: drivelab's threads, not the drive, failed it (also said in
    /// `response.why`). None otherwise, and in results saved before it was known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own_lag_moved: Option<OwnLagMoved>,
    pub streams: Vec<StreamResult>,
}

/// What the response-time verdict's reads look like without drivelab's own lateness: each read's
/// response time had drivelab issued every read of its thread on time (at its intended time, or
/// when the thread's previous read would then have completed: a queue the drive built stays
/// charged, one drivelab's late wake-up built does not), each with its own service time
/// (`ready_over_threshold_counts`).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct OwnLagMoved {
    /// The highest percentage of reads over 1, 2, 4 ... 64 ms in any slice, timed so.
    pub worst_without_own_lag_pct: [f64; 7],
}

impl OwnLagMoved {
    /// The sentence every output carries.
    pub fn said(&self) -> String {
        let w = &self.worst_without_own_lag_pct;
        format!(
            "drivelab's own lateness, not the drive, failed it: had drivelab issued every read on time, \
             the worst slice would have {:.2}% of reads over 1 ms, {:.2}% over 8 ms and {:.2}% over 64 ms, \
             within the limits",
            w[0], w[3], w[6]
        )
    }
}

impl ActRun {
    /// Why the scoring verdict failed, a reason a line (empty on a pass); results saved before
    /// [`ActRun::reasons`] give their `why` as one line.
    pub fn fail_reasons(&self) -> Vec<&str> {
        if self.reasons.is_empty() && !self.why.is_empty() {
            return vec![self.why.as_str()];
        }
        self.reasons.iter().map(String::as_str).collect()
    }

    /// Whether the load passed when judged by `timing` (None: not judged that way).
    pub fn passed_by(&self, timing: Timing) -> Option<bool> {
        if self.timing == timing {
            return Some(self.passed);
        }
        self.response.as_ref().filter(|j| j.timing == timing).map(|j| j.passed)
    }
}

/// The latency thresholds whose per-second counts give ACT's buckets: 2^i ms for i in 0..16 (ACT
/// bucket b >= 1 holds [2^(b-1), 2^b) ms, bucket 0 under 1 ms, the last everything from 2^15 ms).
pub fn act_thresholds_ns() -> Vec<u64> {
    (0..ACT_BUCKETS as u32 - 1).map(|i| (1u64 << i) * 1_000_000).collect()
}

/// One second's ACT histogram of one stream, timed as `timing` says, from the engine's counts at
/// or over [`act_thresholds_ns`]. (Open loop counts both; a result without service-time counts
/// gives its response times.)
pub fn act_hist(p: &SeriesPoint, timing: Timing) -> ActHist {
    let over = match timing {
        Timing::Service if !p.lat_over_threshold_counts.is_empty() => &p.lat_over_threshold_counts,
        _ => &p.over_threshold_counts,
    };
    hist_of(p.ops, over)
}

/// ACT's histogram of `ops` I/Os from their counts at or over [`act_thresholds_ns`] (empty when
/// the counts are not ACT's thresholds').
fn hist_of(ops: u64, over: &[u64]) -> ActHist {
    let mut h = ActHist::default();
    if over.len() != ACT_BUCKETS - 1 {
        return h;
    }
    h.counts[0] = ops.saturating_sub(over[0]);
    for b in 1..ACT_BUCKETS - 1 {
        h.counts[b] = over[b - 1].saturating_sub(over[b]);
    }
    h.counts[ACT_BUCKETS - 1] = over[ACT_BUCKETS - 2];
    h
}

/// Per second, ACT's histograms of every stream on every target, timed as `timing` says.
fn act_seconds(streams: &[StreamResult], names: &[String], timing: Timing) -> Vec<ActLogSecond> {
    seconds_by(streams, names, |p| act_hist(p, timing))
}

/// Per second, ACT's histograms of every stream on every target, each second's made by `hist`.
fn seconds_by(streams: &[StreamResult], names: &[String], hist: impl Fn(&SeriesPoint) -> ActHist) -> Vec<ActLogSecond> {
    let n = streams.iter().map(|s| s.result.series.len()).min().unwrap_or(0);
    let mut seconds: Vec<ActLogSecond> = (0..n)
        .map(|_| ActLogSecond {
            target_reads: vec![ActHist::default(); names.len()],
            target_writes: vec![ActHist::default(); names.len()],
            ..Default::default()
        })
        .collect();
    for s in streams {
        let t = names.iter().position(|n| *n == s.target).unwrap_or(0);
        for (sec, p) in seconds.iter_mut().zip(&s.result.series) {
            let h = hist(p);
            match s.role {
                Role::Reads => {
                    sec.reads.add(&h);
                    sec.target_reads[t].add(&h);
                }
                Role::LargeBlockReads => sec.large_block_reads.add(&h),
                Role::LargeBlockWrites => sec.large_block_writes.add(&h),
                Role::Writes => {
                    sec.writes.add(&h);
                    sec.target_writes[t].add(&h);
                }
            }
        }
    }
    seconds
}

/// The slices and verdict of the small reads, timed as `timing` says. `problem`: what in the
/// streams' state (an error, an interruption, a stream cut short, fallen behind or not
/// delivered) forbids a pass, said for people.
fn judge_reads(
    opts: &ActOptions,
    seconds: &[ActLogSecond],
    streams: &[StreamResult],
    timing: Timing,
    problem: Option<String>,
) -> Judged {
    let reads: Vec<ActHist> = seconds.iter().map(|s| s.reads.clone()).collect();
    let mut slices = act::slices(&reads, opts.slice_secs);
    deliveries(&mut slices, streams);
    let verdict = act::verdict(&slices, &opts.criteria);
    let passed = verdict.pass && problem.is_none();
    let why = fail_reasons(passed, problem, &verdict).join("; ");
    Judged { timing, slices, verdict, passed, why }
}

/// Why a load failed, a reason a line: the streams' `problem`, else each failing slice's.
fn fail_reasons(passed: bool, problem: Option<String>, verdict: &ActVerdict) -> Vec<String> {
    match problem {
        _ if passed => Vec::new(),
        Some(p) => vec![p],
        None => verdict.failing_slices.iter().map(|(_, w)| w.clone()).collect(),
    }
}

/// Both verdicts of one load from its streams: ACT's (service time) scores, the response-time
/// one beside it; the ACT log's seconds are ACT's.
pub fn judge(opts: &ActOptions, rates: ActRates, streams: Vec<StreamResult>, names: &[String]) -> ActRun {
    let interrupted = streams.iter().any(|s| s.result.interrupted);
    // An I/O error is never a pass, whatever the latency of the I/Os that did complete; nor is a
    // load cut short (slices never run, or run in part), nor one whose thread fell max-lag
    // behind (ACT stops the test); ACT looks at lag for nothing else.
    let ran = streams
        .iter()
        .map(|s| (format!("{} {}", s.target, role_name(s.role)), s.result.runtime_ns, s.result.spec.time_ns));
    let gave_up = gave_up(&streams, opts.max_lag_ns);
    let seconds = act_seconds(&streams, names, Timing::Service);
    // A load the target did not carry is never a pass, whatever max-lag says: judged per slice
    // (the reads) and per stream over its whole window.
    let mut read_slices = act::slices(&seconds.iter().map(|s| s.reads.clone()).collect::<Vec<_>>(), opts.slice_secs);
    deliveries(&mut read_slices, &streams);
    let undelivered = undelivered_slice(&read_slices).or_else(|| undelivered_stream(&streams));
    let problem = errored(&streams)
        .or_else(|| interrupted.then(|| "interrupted".to_string()))
        .or_else(|| gave_up.clone())
        .or_else(|| undelivered.clone())
        .or_else(|| cut_short(ran));
    // A backlog that keeps growing is charged by the response time only.
    let backlog = growing(&streams);
    let act = judge_reads(opts, &seconds, &streams, Timing::Service, problem.clone());
    let reasons = fail_reasons(act.passed, problem.clone(), &act.verdict);
    let response_seconds = act_seconds(&streams, names, Timing::Response);
    let mut response =
        judge_reads(opts, &response_seconds, &streams, Timing::Response, problem.clone().or(backlog.clone()));
    let own_lag_moved = (!response.passed && problem.is_none() && backlog.is_none())
        .then(|| own_lag_moved(opts, &streams, names))
        .flatten();
    if let Some(m) = &own_lag_moved {
        response.why = format!("{} ({})", response.why, m.said());
    }
    ActRun {
        scale: opts.config.scale,
        rates,
        timing: Timing::Service,
        seconds,
        slices: act.slices,
        verdict: act.verdict,
        fell_behind: gave_up.or(undelivered).or(backlog),
        passed: act.passed,
        why: act.why,
        reasons,
        interrupted,
        response: Some(response),
        own_lag_moved,
        streams,
    }
}

/// The reads judged as the response-time verdict judges them, less drivelab's own lateness
/// (`ready_over_threshold_counts`): Some when that passes. None when it fails too, or when a
/// read stream's result does not have the counts (saved before they were counted).
fn own_lag_moved(opts: &ActOptions, streams: &[StreamResult], names: &[String]) -> Option<OwnLagMoved> {
    let counted =
        |s: &&StreamResult| s.result.series.iter().all(|p| p.ready_over_threshold_counts.len() == ACT_BUCKETS - 1);
    let reads: Vec<&StreamResult> = streams.iter().filter(|s| s.role == Role::Reads).collect();
    if reads.is_empty() || !reads.iter().all(counted) {
        return None;
    }
    let seconds = seconds_by(streams, names, |p| hist_of(p.ops, &p.ready_over_threshold_counts));
    let ready = judge_reads(opts, &seconds, streams, Timing::Response, None);
    ready.passed.then_some(OwnLagMoved { worst_without_own_lag_pct: ready.verdict.worst })
}

/// Each slice's delivery ([`Delivery`]): the reads done from the slice's start to the load's end
/// against the reads every reads stream's schedule (`open_loop.target_iops`) asked for over the
/// same seconds. A slice whose reads were late but made up later (threads starting late on a busy
/// machine) was delivered, its lateness is the response-time verdict's; reads never made up, in
/// any slice, were not.
fn deliveries(slices: &mut [SliceRow], streams: &[StreamResult]) {
    let reads: Vec<&StreamResult> = streams.iter().filter(|s| s.role == Role::Reads).collect();
    let scheduled: f64 = reads.iter().filter_map(|s| s.result.open_loop.as_ref()).map(|o| o.target_iops).sum();
    let slots: u64 = reads.iter().map(|s| s.result.spec.jobs.max(1) as u64 * s.result.spec.qd.max(1) as u64).sum();
    let Some(first) = reads.first() else { return };
    let (mut ops, mut window_ns) = (0u64, 0u64);
    for sl in slices.iter_mut().rev() {
        let secs = first.result.series.get(sl.start_s as usize..sl.end_s as usize).unwrap_or(&[]);
        window_ns += match secs.iter().map(|p| p.dur_ns).sum::<u64>() {
            0 => (sl.end_s - sl.start_s) * 1_000_000_000,
            ns => ns,
        };
        ops += sl.ops;
        sl.delivery = Some(Delivery::of_counts(scheduled, ops, window_ns, slots));
    }
}

/// The first slice whose reads were not delivered, said as a reason the load fails.
fn undelivered_slice(slices: &[SliceRow]) -> Option<String> {
    slices.iter().find_map(|sl| {
        let d = sl.delivery.filter(|d| !d.delivered())?;
        Some(d.why_not(&format!("slices {} on: ", sl.index), "reads"))
    })
}

/// The first stream that did not deliver its schedule over its whole window.
fn undelivered_stream(streams: &[StreamResult]) -> Option<String> {
    streams.iter().find_map(|s| {
        let d = Delivery::of_run(&s.result).filter(|d| !d.delivered())?;
        Some(d.why_not(&format!("{} {}: ", s.target, role_name(s.role)), "I/Os"))
    })
}

/// The first stream stopped by (or carrying) an I/O error.
pub fn errored_stream(streams: &[StreamResult]) -> Option<&StreamResult> {
    // A stream with an error of its own first: the others were stopped by it (the engine stops
    // every job of a run when one stops on an error) and say only that.
    streams.iter().find(|s| !s.result.errors.is_empty()).or_else(|| streams.iter().find(|s| s.result.errored()))
}

/// [`errored_stream`], said with its error.
fn errored(streams: &[StreamResult]) -> Option<String> {
    let s = errored_stream(streams)?;
    let e = s.result.errors.first().map(|e| e.error.clone()).unwrap_or_else(|| "an I/O error".into());
    Some(format!("{} {}: {e}", s.target, role_name(s.role)))
}

/// The first stream (`name`, measured ns, planned ns) that ran less than its planned time
/// (1% tolerance for the window's edges), said as a reason the load fails.
pub fn cut_short(streams: impl IntoIterator<Item = (String, u64, Option<u64>)>) -> Option<String> {
    streams.into_iter().find_map(|(name, ran_ns, planned_ns)| {
        let planned = planned_ns?;
        (ran_ns < planned - planned / 100).then(|| {
            format!(
                "{name} ran {:.1} s of its {:.1} s: slices not fully run are never a pass",
                ran_ns as f64 / 1e9,
                planned as f64 / 1e9
            )
        })
    })
}

/// The first stream that gave up: its schedule fell more than max-lag behind (ACT stops the test).
fn gave_up(streams: &[StreamResult], max_lag_ns: u64) -> Option<String> {
    streams.iter().find(|s| s.result.open_loop.as_ref().is_some_and(|o| o.gave_up)).map(|s| {
        format!(
            "{} {} fell more than {} behind schedule (max-lag): the drive can't keep up",
            s.target,
            role_name(s.role),
            drivelab_engine::units::fmt_duration(max_lag_ns, 1)
        )
    })
}

/// The first stream whose lag kept growing ([`growing_backlog`]): its requests wait longer and
/// longer, which the response time charges and ACT's service time does not see.
fn growing(streams: &[StreamResult]) -> Option<String> {
    streams.iter().find_map(|s| {
        let lags: Vec<u64> = s.result.series.iter().filter_map(|p| p.lag_max_ns).collect();
        growing_backlog(&lags).then(|| {
            format!(
                "{} {}: the schedule lag grew every second to {:.0} ms: the drive can't keep up",
                s.target,
                role_name(s.role),
                *lags.last().unwrap_or(&0) as f64 / 1e6
            )
        })
    })
}

/// True when the last five per-second lags rise strictly and end above 100 ms.
pub fn growing_backlog(lags: &[u64]) -> bool {
    if lags.len() < 5 {
        return false;
    }
    let tail = &lags[lags.len() - 5..];
    tail.windows(2).all(|w| w[1] > w[0]) && tail[4] > 100_000_000
}

pub fn role_name(r: Role) -> &'static str {
    match r {
        Role::Reads => "reads",
        Role::LargeBlockReads => "large-block reads",
        Role::LargeBlockWrites => "large-block writes",
        Role::Writes => "writes",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn act_buckets_are_the_differences_of_the_threshold_counts() {
        // Latencies 0.5, 1, 3, 3.9, 8, 100 ms and 40 s, counted the way the engine counts them.
        let lat_ns = [500_000u64, 1_000_000, 3_000_000, 3_900_000, 8_000_000, 100_000_000, 40_000_000_000];
        let th = act_thresholds_ns();
        let over: Vec<u64> = th.iter().map(|&t| lat_ns.iter().filter(|&&l| l >= t).count() as u64).collect();
        let p = SeriesPoint {
            t_s: 1.0,
            dur_ns: 1_000_000_000,
            iops: 7.0,
            read_iops: 7.0,
            write_iops: 0.0,
            bw_bytes_per_s: 0.0,
            lat_mean_ns: 0.0,
            lat_p99_ns: 0,
            resp_p99_ns: None,
            lag_max_ns: None,
            tool_lag_max_ns: None,
            ops: lat_ns.len() as u64,
            over_threshold_counts: over,
            lat_over_threshold_counts: Vec::new(),
            ready_over_threshold_counts: Vec::new(),
            resp_pow2_ms: None,
        };
        let mut expected = ActHist::default();
        for l in lat_ns {
            expected.insert(l);
        }
        assert_eq!(act_hist(&p, Timing::Response), expected);
        assert_eq!(expected.counts[16], 1, "40 s lands in ACT's last bucket");
    }

    /// A read stream's result with `seconds` synthetic seconds of 1000 reads each: `service`
    /// of them at or over 1 ms by service time, `response` by response time (none over 2 ms).
    fn read_stream(seconds: usize, service: u64, response: u64) -> StreamResult {
        use drivelab_engine::target::{OpenTarget, TargetInfo};
        let opts = ActOptions { time_ns: 100_000_000, ..ActOptions::for_tests() };
        let rates = opts.config.derive(512);
        let spec = streams::plan_for_tests(&opts, &rates).remove(0).2;
        let t = OpenTarget { info: TargetInfo::null(), file: None, start: 0, span: 1 << 30 };
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let mut result = drivelab_engine::run::run(&spec, &[t], EngineKind::Uring, stop, &mut |_| {}).unwrap();
        let counts = |over_1ms: u64| {
            let mut v = vec![0u64; ACT_BUCKETS - 1];
            v[0] = over_1ms;
            v
        };
        let second = SeriesPoint {
            ops: 1000,
            over_threshold_counts: counts(response),
            lat_over_threshold_counts: counts(service),
            ready_over_threshold_counts: Vec::new(),
            ..result.series[0].clone()
        };
        result.series = vec![second; seconds];
        StreamResult { role: Role::Reads, target: "t".into(), result }
    }

    #[test]
    fn one_load_is_judged_by_acts_service_time_and_by_response_time_beside_it() {
        // 1% of reads over 1 ms by service time (ACT's measure: under its 5%), 10% by response
        // time (a late thread's wait counted): ACT's verdict passes, the response-time one fails.
        let opts = ActOptions { time_ns: 100_000_000, slice_secs: 1, ..ActOptions::for_tests() };
        let rates = opts.config.derive(512);
        let run = judge(&opts, rates, vec![read_stream(3, 10, 100)], &["t".to_string()]);
        assert_eq!(run.timing, Timing::Service);
        assert_eq!(run.slices.len(), 3, "a slice a second");
        assert!(run.slices.iter().all(|s| s.over_pct[0] == 1.0 && s.over_pct[1] == 0.0), "{:?}", run.slices);
        assert!(run.passed && run.why.is_empty(), "{}", run.why);
        let resp = run.response.as_ref().expect("the response-time verdict beside");
        assert!(resp.slices.iter().all(|s| s.over_pct[0] == 10.0));
        assert!(!resp.passed && resp.why.contains("10.00% > 1 ms"), "{}", resp.why);
        assert_eq!((run.passed_by(Timing::Service), run.passed_by(Timing::Response)), (Some(true), Some(false)));
        // ACT's log carries ACT's measure: 10 reads a second in bucket 1 (1..2 ms).
        assert!(run.seconds.iter().all(|s| s.reads.counts[0] == 990 && s.reads.counts[1] == 10));
    }

    #[test]
    fn a_response_time_failure_that_is_drivelabs_own_lateness_says_so() {
        let opts = ActOptions { time_ns: 100_000_000, slice_secs: 1, ..ActOptions::for_tests() };
        let rates = opts.config.derive(512);
        // 1% over 1 ms by service time, 10% by response time; without drivelab's own lateness
        // `ready` of 1000: 2% (the drive's) says own lateness failed it, 7% says the drive did.
        let with_ready = |ready: Option<u64>| {
            let mut s = read_stream(3, 10, 100);
            if let Some(r) = ready {
                for p in &mut s.result.series {
                    p.ready_over_threshold_counts = vec![0; ACT_BUCKETS - 1];
                    p.ready_over_threshold_counts[0] = r;
                }
            }
            judge(&opts, rates.clone(), vec![s], &["t".to_string()])
        };
        let run = with_ready(Some(20));
        let resp = run.response.as_ref().unwrap();
        assert!(!resp.passed, "the response-time verdict still fails: it is the verdict, the note says why");
        let moved = run.own_lag_moved.as_ref().expect("own lateness moved it");
        assert_eq!(moved.worst_without_own_lag_pct[0], 2.0);
        assert!(
            resp.why.contains("10.00% > 1 ms") && resp.why.contains("drivelab's own lateness, not the drive"),
            "{}",
            resp.why
        );
        assert!(moved.said().contains("2.00% of reads over 1 ms"), "{}", moved.said());
        let run = with_ready(Some(70));
        assert!(run.own_lag_moved.is_none(), "7% without own lateness: the drive's failure");
        assert!(!run.response.as_ref().unwrap().why.contains("own lateness"));
        let run = with_ready(None);
        assert!(run.own_lag_moved.is_none(), "results without the counts: not known, not said");
        // A passing response-time verdict has nothing to explain.
        let mut s = read_stream(3, 10, 20);
        s.result.series.iter_mut().for_each(|p| p.ready_over_threshold_counts = vec![0; ACT_BUCKETS - 1]);
        assert!(judge(&opts, rates.clone(), vec![s], &["t".to_string()]).own_lag_moved.is_none());
    }

    #[test]
    fn a_backlog_that_keeps_growing_is_noticed_and_jitter_is_not() {
        let ms = |v: &[u64]| v.iter().map(|x| x * 1_000_000).collect::<Vec<_>>();
        assert!(growing_backlog(&ms(&[1, 2, 50, 90, 130, 170, 210])));
        assert!(!growing_backlog(&ms(&[1, 2, 50, 90, 130, 120, 210])), "not rising every second");
        assert!(!growing_backlog(&ms(&[1, 2, 3, 4, 5])), "rising but tiny: timer jitter");
        assert!(!growing_backlog(&ms(&[300, 400, 500])), "too short to tell");
    }

    #[test]
    fn a_load_cut_short_is_never_a_pass() {
        let s = |ran: u64, planned: Option<u64>| ("t reads".to_string(), ran, planned);
        let planned = Some(30_000_000_000);
        assert_eq!(
            cut_short([s(30_000_000_000, planned), s(29_900_000_000, planned)]),
            None,
            "within the window's edges"
        );
        let why = cut_short([s(30_000_000_000, planned), s(20_000_000_000, planned)]).expect("cut short");
        assert!(why.contains("ran 20.0 s of its 30.0 s") && why.contains("never a pass"), "{why}");
        assert_eq!(cut_short([s(1, None)]), None, "a load bound by size has no planned time");
    }
}
