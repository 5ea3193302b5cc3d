//! Every rank's part of a measurement into one result per stream: the engine's
//! [`merge_results`] (latency histograms added bucket by bucket with exact extremes, so a merged
//! percentile is the percentile of every rank's I/Os; I/Os and bytes over the longest rank's
//! window; CPU added; seconds added second by second, aligned because every rank started at the
//! same barrier), with each rank's targets named by rank and host, and a rank that was CPU-bound
//! or fell behind its rate named in a notice.

use drivelab_engine::merge::merge_results;
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
            let mine: Vec<RunResult> = parts.iter().map(|p| named(&p.results[i], p.rank, &p.host)).collect();
            let mut merged = merge_results(&mine);
            merged.spec = asked[i].clone();
            if let (Some(o), Some(rate)) = (merged.open_loop.as_mut(), asked[i].rate.as_ref()) {
                if rate.unit == drivelab_engine::spec::RateUnit::Iops {
                    o.target_iops = mine.iter().filter_map(|r| r.open_loop.as_ref()).map(|o| o.target_iops).sum();
                }
                o.kept_up = mine.iter().all(|r| r.open_loop.as_ref().is_none_or(|o| o.kept_up));
            }
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

/// `r` with its targets named by rank and host, so a merged result's per-target rows stay apart.
fn named(r: &RunResult, rank: usize, host: &str) -> RunResult {
    let mut r = r.clone();
    for t in &mut r.per_target {
        t.path = rank_target(rank, host, &t.path);
    }
    for t in &mut r.targets {
        t.path = rank_target(rank, host, &t.path);
    }
    for e in &mut r.errors {
        e.target = rank_target(rank, host, &e.target);
    }
    r
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
