//! Running Aerospike's ACT storage workload with drivelab's engine: the I/O half of `drivelab
//! act` (the arithmetic, slices, verdict and log format live in [`crate::act`], with no I/O).
//!
//! Per target, three open-loop streams run at once, all started behind one barrier:
//! small reads of the record size at `2000 x N` per second, and large-block (128 KiB) reads and
//! writes at the rate ACT derives from `1000 x N` record writes per second. Targets are opened
//! with O_DIRECT and O_DSYNC, as ACT opens them. Every latency counts from the I/O's intended
//! issue time, so a drive that stalls is charged for every request that waited on it (ACT 6
//! measures its synchronous service threads from the call instead, which under-counts stalls).
//! Each stream asks the engine to count, per second, the responses at or over ACT's thresholds
//! (1, 2, 4, ... 32768 ms: [`act_thresholds_ns`]); ACT's power-of-two millisecond buckets are the
//! differences of those counts, and the slices, the verdict and the ACT-format log are built
//! from them.

use drivelab_engine::result::{RunResult, SeriesPoint};
use drivelab_engine::spec::{AccessSpec, BlockSize, DataPattern, EngineKind, Rate, RateScope, SyncMode};
use drivelab_engine::Error;

use crate::act::{self, ActConfig, ActCriteria, ActHist, ActLogSecond, ActRates, ActVerdict, SliceRow, ACT_BUCKETS};

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
    /// Concurrent small reads per target (ACT's service threads).
    pub read_qd: u32,
    /// Concurrent large-block operations of each kind per target.
    pub large_block_qd: u32,
    /// O_DSYNC on every fd (ACT's default; `disable-odsync` turns it off).
    pub dsync: bool,
    /// ACT's max-lag: a stream that falls this far behind its schedule fails the load.
    pub max_lag_ns: u64,
    /// How each stream waits for its next intended time (see `PaceMode`).
    #[serde(default)]
    pub pace: drivelab_engine::spec::PaceMode,
    pub engine: EngineKind,
    pub seed: u64,
    /// Fill every target with random data before the first load (ACT's act_prep).
    pub prep: bool,
    /// Search the highest passing N instead of running `config.scale` once.
    pub search: bool,
    /// With `search`: each probe's length before the confirmation.
    pub probe_time_ns: u64,
    /// With `search`: the N to start from (None: from a short closed-loop read probe).
    pub search_start: Option<u32>,
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

/// One load (one N) run to its end.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ActRun {
    pub scale: f64,
    pub rates: ActRates,
    pub seconds: Vec<ActLogSecond>,
    pub slices: Vec<SliceRow>,
    pub verdict: ActVerdict,
    /// Why the load could not be carried, beside latency: a schedule that fell past max-lag or
    /// a backlog that kept growing.
    pub fell_behind: Option<String>,
    pub passed: bool,
    pub interrupted: bool,
    pub streams: Vec<StreamResult>,
}

/// The latency thresholds whose per-second counts give ACT's buckets: 2^i ms for i in 0..16 (ACT
/// bucket b >= 1 holds [2^(b-1), 2^b) ms, bucket 0 under 1 ms, the last everything from 2^15 ms).
pub fn act_thresholds_ns() -> Vec<u64> {
    (0..ACT_BUCKETS as u32 - 1).map(|i| (1u64 << i) * 1_000_000).collect()
}

/// One second's ACT histogram from the engine's counts at or over [`act_thresholds_ns`].
pub fn act_hist(p: &SeriesPoint) -> ActHist {
    let over = &p.over_threshold_counts;
    let mut h = ActHist::default();
    if over.len() != ACT_BUCKETS - 1 {
        return h;
    }
    h.counts[0] = p.ops.saturating_sub(over[0]);
    for b in 1..ACT_BUCKETS - 1 {
        h.counts[b] = over[b - 1].saturating_sub(over[b]);
    }
    h.counts[ACT_BUCKETS - 1] = over[ACT_BUCKETS - 2];
    h
}

fn stream_spec(opts: &ActOptions, bytes: u64, align: u64, write: bool, iops: f64, qd: u32, seed: u64) -> AccessSpec {
    AccessSpec {
        read_pct: if write { 0 } else { 100 },
        random_pct: 100,
        bs: vec![BlockSize { bytes, pct: 100 }],
        align_bytes: Some(align),
        qd,
        jobs: 1,
        time_ns: Some(opts.time_ns),
        direct: true,
        sync: if opts.dsync { SyncMode::Dsync } else { SyncMode::None },
        data: DataPattern::Random,
        seed,
        engine: opts.engine,
        rate: Some(Rate {
            per_s: iops,
            scope: RateScope::Job,
            max_lag_ns: Some(opts.max_lag_ns),
            pace: opts.pace,
            ..Default::default()
        }),
        thresholds_ns: act_thresholds_ns(),
        ..Default::default()
    }
}

/// The specs of every stream on every target: (role, target index, spec).
pub fn streams(opts: &ActOptions, rates: &ActRates, min_op: u64, targets: usize) -> Vec<(Role, usize, AccessSpec)> {
    let mut out = Vec::new();
    for t in 0..targets {
        let seed = opts.seed ^ (t as u64) << 20;
        let lb = rates.large_block_bytes;
        let s = |bytes, align, write, iops, qd, k: u64| stream_spec(opts, bytes, align, write, iops, qd, seed ^ k);
        out.push((Role::Reads, t, s(rates.read_bytes, min_op, false, rates.read_iops, opts.read_qd, 1)));
        if rates.large_block_read_iops > 0.0 {
            let q = opts.large_block_qd;
            out.push((Role::LargeBlockReads, t, s(lb, lb, false, rates.large_block_read_iops, q, 2)));
        }
        if rates.large_block_write_iops > 0.0 {
            let q = opts.large_block_qd;
            out.push((Role::LargeBlockWrites, t, s(lb, lb, true, rates.large_block_write_iops, q, 3)));
        }
        if rates.commit_write_iops > 0.0 {
            let (b, a) = (rates.commit_write_bytes, min_op);
            out.push((Role::Writes, t, s(b, a, true, rates.commit_write_iops, opts.read_qd, 4)));
        }
    }
    out
}

/// The smallest O_DIRECT I/O every target accepts (ACT's min-op-bytes: 512 or 4096).
pub fn min_op_bytes(names: &[String]) -> Result<u64, Error> {
    let infos = crate::prepare::probe_all(names)?;
    Ok(infos.iter().map(|i| i.dio_align_bytes.max(512)).max().unwrap_or(512))
}

/// One stream of a load: what it does, the index of its target, its spec.
pub type StreamPlan = (Role, usize, AccessSpec);

/// The load's rates on its targets and its streams, after checking the config.
pub fn plan(opts: &ActOptions) -> Result<(ActRates, Vec<StreamPlan>), Error> {
    opts.config.validate().map_err(Error::invalid)?;
    opts.criteria.validate().map_err(Error::invalid)?;
    let min_op = min_op_bytes(&opts.targets)?;
    let rates = opts.config.derive(min_op);
    let streams = streams(opts, &rates, min_op, opts.targets.len());
    Ok((rates, streams))
}

/// Slices, verdict and ACT log seconds from the streams' per-second response times.
pub fn judge(opts: &ActOptions, rates: ActRates, streams: Vec<StreamResult>, names: &[String]) -> ActRun {
    let seconds_of = |s: &StreamResult| -> Vec<ActHist> { s.result.series.iter().map(act_hist).collect() };
    let n = streams.iter().map(|s| s.result.series.len()).min().unwrap_or(0);
    let mut seconds: Vec<ActLogSecond> = (0..n)
        .map(|_| ActLogSecond {
            target_reads: vec![ActHist::default(); names.len()],
            target_writes: vec![ActHist::default(); names.len()],
            ..Default::default()
        })
        .collect();
    for s in &streams {
        let t = names.iter().position(|n| *n == s.target).unwrap_or(0);
        for (k, h) in seconds_of(s).into_iter().take(n).enumerate() {
            let sec = &mut seconds[k];
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
    let reads: Vec<ActHist> = seconds.iter().map(|s| s.reads.clone()).collect();
    let slices = act::slices(&reads, opts.slice_secs);
    let mut verdict = act::verdict(&slices, &opts.criteria);
    // A load cut short leaves slices that were never run, or run in part: never a pass.
    let ran = streams
        .iter()
        .map(|s| (format!("{} {}", s.target, role_name(s.role)), s.result.runtime_ns, s.result.spec.time_ns));
    if let Some(why) = cut_short(ran) {
        verdict.pass = false;
        verdict.failing_slices.push((0, why));
    }
    let fell_behind = fell_behind(&streams, opts.max_lag_ns);
    let interrupted = streams.iter().any(|s| s.result.interrupted);
    // An I/O error is never a pass, whatever the latency of the I/Os that did complete.
    let errored = streams.iter().any(|s| s.result.stopped_by_error || !s.result.errors.is_empty());
    let passed = verdict.pass && fell_behind.is_none() && !interrupted && !errored;
    ActRun { scale: opts.config.scale, rates, seconds, slices, verdict, fell_behind, passed, interrupted, streams }
}

/// A stream that gave up (lag past max-lag), or whose lag grew through each of its last five
/// seconds to over 100 ms (a backlog that keeps growing: the drive is not keeping up, it is only
/// not yet max-lag behind).
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

fn fell_behind(streams: &[StreamResult], max_lag_ns: u64) -> Option<String> {
    for s in streams {
        let name = format!("{} {}", s.target, role_name(s.role));
        if let Some(o) = &s.result.open_loop {
            if o.gave_up {
                return Some(format!(
                    "{name} fell more than {} behind schedule (max-lag): the drive can't keep up",
                    drivelab_engine::units::fmt_duration(max_lag_ns, 1)
                ));
            }
        }
        let lags: Vec<u64> = s.result.series.iter().filter_map(|p| p.lag_max_ns).collect();
        if growing_backlog(&lags) {
            return Some(format!(
                "{name}: the schedule lag grew every second to {:.0} ms: the drive can't keep up",
                *lags.last().unwrap_or(&0) as f64 / 1e6
            ));
        }
    }
    None
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
            ops: lat_ns.len() as u64,
            over_threshold_counts: over,
            resp_pow2_ms: None,
        };
        let mut expected = ActHist::default();
        for l in lat_ns {
            expected.insert(l);
        }
        assert_eq!(act_hist(&p), expected);
        assert_eq!(expected.counts[16], 1, "40 s lands in ACT's last bucket");
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
