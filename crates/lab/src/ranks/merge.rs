//! Every rank's part of a measurement into one result per stream: each rank's raw measurement
//! (its targets named by rank and host) merged by the engine's one merge and summarized
//! (`drivelab_engine::merge::merge_parts`): a merged percentile is the percentile of every rank's
//! I/Os, a merged second's p99 is exact (seconds are aligned: every rank started at the same
//! barrier), and an open loop's target and achieved rates are every rank's, its lateness every
//! rank's I/Os', kept up only if the furthest-behind rank did. A rank that was CPU-bound or fell
//! behind its rate is named in a notice.

use drivelab_engine::measurement::Measurement;
use drivelab_engine::merge::merge_parts;
use drivelab_engine::result::RunResult;
use drivelab_engine::spec::AccessSpec;
use drivelab_engine::units::fmt_count;

use super::RankPart;

/// How a target of `rank` on `host` is named in a merged result: `r2@node3:/dev/loop5`.
pub fn rank_target(rank: usize, host: &str, path: &str) -> String {
    format!("r{rank}@{host}:{path}")
}

/// One merged result per stream of `parts` (every rank ran the same streams); `asked[i]` is
/// stream i's spec as the command asked it (before a rank's share of a total rate or region),
/// which the merged result carries. Identical on every rank: every rank merges the same bytes.
pub fn merge_ranks(parts: &[RankPart], asked: &[AccessSpec]) -> Vec<RunResult> {
    (0..asked.len())
        .map(|i| {
            let (mine, measurements): (Vec<RunResult>, Vec<Measurement>) =
                parts.iter().map(|p| named(&p.results[i], p.rank, &p.host)).unzip();
            let mut merged = merge_parts(&mine, &measurements);
            merged.spec = asked[i].clone();
            // fio's logs (of the ranks that kept them): all of stream i, whichever rank ran them.
            merged.io_logs.iter_mut().for_each(|l| l.0 = i);
            let mut flags = rank_flags(parts, i);
            flags.extend(uneven_windows(parts, i));
            merged.notices.splice(0..0, flags);
            merged.notices.insert(
                0,
                format!(
                    "{} ranks ran this together, merged into this result (latency histograms added, I/Os summed): {}",
                    parts.len(),
                    parts
                        .iter()
                        .zip(&mine)
                        .map(|(p, r)| format!("rank {} ({}) {} IOPS", p.rank, p.host, fmt_count(r.total.iops)))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
            merged
        })
        .collect()
}

/// `r` with its targets named by rank and host, so a merged result's per-target rows stay apart,
/// and its measurement so named, its targets after those of lower ranks.
fn named(r: &RunResult, rank: usize, host: &str) -> (RunResult, Measurement) {
    let mut r = r.clone();
    let mut m = Measurement::of_result(&r);
    m.regroup(rank as u64, |path| rank_target(rank, host, path));
    for t in &mut r.per_target {
        t.path = rank_target(rank, host, &t.path);
    }
    for t in &mut r.targets {
        t.path = rank_target(rank, host, &t.path);
    }
    for e in &mut r.errors {
        e.target = rank_target(rank, host, &e.target);
    }
    (r, m)
}

/// Notices naming each rank whose own stream `i` was CPU-bound or fell behind its rate: a merged
/// figure that hides a struggling host would mislead.
pub fn rank_flags(parts: &[RankPart], i: usize) -> Vec<String> {
    let mut out = Vec::new();
    for p in parts {
        let r = &p.results[i];
        if r.cpu.cpu_bound {
            out.push(format!(
                "rank {} ({}) was CPU-bound: a job thread of it ran or waited for a CPU {:.0}% of the time, so its \
                 host, not its target, limited its load",
                p.rank, p.host, r.cpu.runnable_pct
            ));
        }
        if let Some(starved) = r.cpu.starved_warning() {
            out.push(format!("rank {} ({}): {starved}", p.rank, p.host));
        }
        if let Some(o) = r.open_loop.as_ref().filter(|o| !o.kept_up) {
            out.push(format!(
                "rank {} ({}) fell behind its rate: {} of {} IOPS",
                p.rank,
                p.host,
                fmt_count(o.achieved_iops),
                fmt_count(o.target_iops)
            ));
        }
    }
    out
}

/// A notice when the ranks' windows for stream `i` differ by more than 5%: the merged rates are
/// the I/Os of every rank over the longest rank's window (every rank started at one barrier), so a
/// rank that ran late, descheduled or slow to drain, leaves them below the ranks' own rates added.
pub fn uneven_windows(parts: &[RankPart], i: usize) -> Option<String> {
    let (long, short) = window_extremes(parts, i)?;
    let (lns, sns) = (long.results[i].runtime_ns, short.results[i].runtime_ns);
    (sns > 0 && lns as f64 > sns as f64 * 1.05).then(|| {
        format!(
            "rank {} ({}) ran {:.3} s and rank {} ({}) {:.3} s: merged rates are every rank's I/Os over the longest \
             window, below the ranks' own rates added",
            long.rank,
            long.host,
            lns as f64 / 1e9,
            short.rank,
            short.host,
            sns as f64 / 1e9
        )
    })
}

/// The ranks whose stream `i` ran longest and shortest.
fn window_extremes(parts: &[RankPart], i: usize) -> Option<(&RankPart, &RankPart)> {
    let window = |p: &&RankPart| p.results[i].runtime_ns;
    Some((parts.iter().max_by_key(window)?, parts.iter().min_by_key(window)?))
}

/// The sum of every rank's power reading (watts add across hosts); None unless every rank read one.
pub fn total_power(parts: &[RankPart]) -> Option<f64> {
    parts.iter().map(|p| p.power_w).sum()
}
