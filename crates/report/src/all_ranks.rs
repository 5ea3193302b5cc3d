//! The row that makes a plan's per-target tables whole under MPI. A plan's tables are keyed by
//! target and each rank's targets are its own, so without it a 3-rank run's tables would show
//! each rank but never every rank's I/Os together; it is added to the points a table is built
//! from (`suite_tables::tables`, `compare`), never saved.

use drivelab_engine::result::TargetResult;
use drivelab_lab::results::PointResult;

/// The row of a point run by several MPI ranks that holds every rank's I/Os merged (a target
/// named so in the tables; its CPU and power are the point's, summed over the ranks).
pub const ALL_RANKS: &str = "all ranks";

/// `points` with each point that several MPI ranks ran given a first target row, [`ALL_RANKS`],
/// of its merged figures. It comes first so that
/// `compare` pairs it with a one-host run's only target ([`crate::compare`] pairs targets by
/// position). Points it was added to already are left as they are.
pub fn with_all_ranks(points: &[PointResult]) -> Vec<PointResult> {
    with_all_ranks_cow(points).into_owned()
}

/// [`with_all_ranks`], borrowing `points` where no point needs the row (every run without MPI):
/// a table of 100,000 points copied them all (as much memory again as the points).
pub fn with_all_ranks_cow(points: &[PointResult]) -> std::borrow::Cow<'_, [PointResult]> {
    let needs = |p: &PointResult| p.ranks.len() > 1 && p.result.per_target.first().is_none_or(|t| t.path != ALL_RANKS);
    if !points.iter().any(needs) {
        return std::borrow::Cow::Borrowed(points);
    }
    let mut out = points.to_vec();
    for p in out.iter_mut().filter(|p| p.ranks.len() > 1) {
        if p.result.per_target.first().is_some_and(|t| t.path == ALL_RANKS) {
            continue;
        }
        let r = &p.result;
        let all = TargetResult {
            path: ALL_RANKS.into(),
            read: r.read.clone(),
            write: r.write.clone(),
            total: r.total.clone(),
        };
        p.result.per_target.insert(0, all);
    }
    std::borrow::Cow::Owned(out)
}

/// Whether `t` of `p` stands for the whole point: its only target, or the merged row of its ranks.
pub(crate) fn whole(p: &PointResult, t: &TargetResult) -> bool {
    crate::point_targets::paths(p).len() == 1 || (t.path == ALL_RANKS && p.ranks.len() > 1)
}
