//! What a write costs until it is durable, from the figures a result already holds.
//!
//! With `--sync fsync:N` the engine times the write calls (`write`) and the fsync calls (`sync`)
//! apart. A table of the write call's p99 alone makes "fsync after each write" look as fast as
//! plain writes, because the wait is in the fsync. What a reader means by the figure is the time
//! until the write is durable: the write and its fsync.
//!
//! A result keeps the two latency distributions (exact sums, histograms), not which fsync
//! followed which write, so a percentile of their sum cannot be computed from it; their sums
//! can. The figures are therefore:
//!
//! - **until durable, mean per write** = (Σ write latency + Σ fsync latency) / writes. With an
//!   fsync after every write this is exactly the mean of each write's latency plus its fsync's;
//!   with `fsync:N` each fsync's time is shared by the N writes it made durable. The moment
//!   between a write's completion and the fsync call is in neither figure. With O_DSYNC a write
//!   is durable when its call returns, so the figure is the write's own mean latency; without
//!   O_DSYNC or fsync a write is not made durable and there is no figure.
//! - **the fsync alone**: the fsync calls' own latency, any percentile.
//!
//! Per target: the fsyncs of a point on several targets at once are saved merged, so the
//! fsync share of each target is not known; those cells are missing (as CPU is).

use drivelab_engine::hist::Pct;
use drivelab_engine::result::{DirStats, RunResult, TargetResult};
use drivelab_engine::spec::SyncMode;

/// The fsyncs of `r` that belong to `target` (None: the whole point): all of them when the
/// point ran on that target alone.
fn fsyncs<'a>(r: &'a RunResult, target: Option<&TargetResult>) -> Option<&'a DirStats> {
    match target {
        Some(_) if r.per_target.len() != 1 => None,
        _ => r.sync.as_deref(),
    }
}

/// The writes of `target` (None: of the whole point).
fn writes<'a>(r: &'a RunResult, target: Option<&'a TargetResult>) -> &'a DirStats {
    target.map_or(&r.write, |t| &t.write)
}

/// The point made its writes durable with an fsync after every N writes.
pub fn uses_fsync(r: &RunResult) -> bool {
    matches!(r.spec.sync, SyncMode::Fsync { .. } | SyncMode::Fdatasync { .. })
}

/// Mean ns per write until it is durable (see the module docs): write + its share of the
/// fsyncs; the write alone with O_DSYNC; None when writes are not made durable, there were no
/// writes, or the fsync share of this target is not known.
pub fn until_durable_mean_ns(r: &RunResult, target: Option<&TargetResult>) -> Option<f64> {
    let w = writes(r, target);
    if w.ops == 0 {
        return None;
    }
    match r.spec.sync {
        SyncMode::None => None,
        SyncMode::Dsync => Some(w.lat_ns.mean),
        SyncMode::Fsync { .. } | SyncMode::Fdatasync { .. } => {
            let s = fsyncs(r, target)?;
            let total = w.lat_ns.mean * w.ops as f64 + s.lat_ns.mean * s.ops as f64;
            Some(total / w.ops as f64)
        }
    }
}

/// Percentile `p` of the fsync calls alone, in ns; None without fsyncs (or for one target of
/// several).
pub fn fsync_ns(r: &RunResult, target: Option<&TargetResult>, p: Pct) -> Option<f64> {
    let s = fsyncs(r, target).filter(|s| s.ops > 0)?;
    s.lat_ns.get(p).map(|ns| ns as f64)
}

/// The fsync calls' mean, in ns.
pub fn fsync_mean_ns(r: &RunResult) -> Option<f64> {
    r.sync.as_ref().filter(|s| s.ops > 0).map(|s| s.lat_ns.mean)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{point, stats};

    /// A point of `writes` writes of `write_mean` ns each on one target, with `fsyncs` fsyncs of
    /// `fsync_mean` ns (p99 `fsync_p99`), run with `sync`.
    fn synced(sync: SyncMode, writes: u64, write_mean: f64, fsyncs: u64, fsync_mean: f64, fsync_p99: u64) -> RunResult {
        let mut r = point("w", "", &[], &[("/dev/x", 1.0)]).result;
        r.spec.sync = sync;
        r.write = stats(1.0);
        r.write.ops = writes;
        r.write.lat_ns.mean = write_mean;
        r.per_target[0].write = r.write.clone();
        if fsyncs > 0 {
            let mut s = stats(1.0);
            s.ops = fsyncs;
            s.lat_ns.mean = fsync_mean;
            s.lat_ns.percentiles.insert("p99", fsync_p99);
            r.sync = Some(Box::new(s));
        }
        r
    }

    #[test]
    fn an_fsync_after_each_write_adds_its_whole_mean_to_the_write_and_fsync_n_shares_it() {
        let each = synced(SyncMode::Fsync { every: 1 }, 1000, 20_000.0, 1000, 1_500_000.0, 5_000_000);
        assert_eq!(until_durable_mean_ns(&each, None), Some(1_520_000.0));
        assert_eq!(until_durable_mean_ns(&each, Some(&each.per_target[0])), Some(1_520_000.0), "its only target");
        assert_eq!(fsync_ns(&each, None, Pct::P99), Some(5_000_000.0));
        let every4 = synced(SyncMode::Fsync { every: 4 }, 1000, 20_000.0, 250, 1_500_000.0, 5_000_000);
        assert_eq!(until_durable_mean_ns(&every4, None), Some(20_000.0 + 1_500_000.0 / 4.0));
        assert!(uses_fsync(&each) && uses_fsync(&every4));
    }

    #[test]
    fn o_dsync_writes_are_durable_on_return_and_plain_writes_never() {
        let dsync = synced(SyncMode::Dsync, 10, 3_000_000.0, 0, 0.0, 0);
        assert_eq!(until_durable_mean_ns(&dsync, None), Some(3_000_000.0));
        assert_eq!(fsync_ns(&dsync, None, Pct::P99), None, "no fsync call");
        let plain = synced(SyncMode::None, 10, 50_000.0, 0, 0.0, 0);
        assert_eq!(until_durable_mean_ns(&plain, None), None);
        assert!(!uses_fsync(&plain) && !uses_fsync(&dsync));
    }

    #[test]
    fn the_fsync_share_of_one_target_of_several_is_not_known() {
        let mut r = synced(SyncMode::Fsync { every: 1 }, 10, 1.0, 10, 2.0, 3);
        let other = r.per_target[0].clone();
        r.per_target.push(TargetResult { path: "/dev/y".into(), ..other });
        assert_eq!(until_durable_mean_ns(&r, Some(&r.per_target[1])), None);
        assert_eq!(fsync_ns(&r, Some(&r.per_target[1]), Pct::P99), None);
        assert_eq!(until_durable_mean_ns(&r, None), Some(3.0), "the point as a whole");
    }
}
