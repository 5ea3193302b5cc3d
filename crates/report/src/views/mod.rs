//! Which tables and charts each kind of results gets, built as a typed [`Report`] for the
//! exporters: [`qos`], [`act`], [`run`], and [`plan`] for plans and suites (whose tables come
//! from the suite registry, `suite_tables::views`).

pub(crate) mod act;
pub(crate) mod common;
pub mod plan;
pub(crate) mod qos;
pub(crate) mod ranks;
mod run;
pub mod split;
pub mod summary;

pub(crate) use common::notes;
use drivelab_lab::results::{Keep, Kind, Results};

use crate::model::Report;

/// The report model of a results directory of any kind.
pub fn build(r: &Results) -> Report {
    let mut report = match r.manifest.kind {
        Kind::Qos => qos::report(r),
        Kind::Act => act::report(r),
        Kind::Run => run::report(r),
        Kind::Plan | Kind::Suite(_) => plan::report(r),
    };
    // `--latency-split`: where each point's latency went, and what the split left out.
    report.warnings.extend(split::warnings(r));
    report.sections.extend(split::section(r));
    // Under MPI: each rank's part, after the merged figures.
    report.sections.extend(ranks::section(r));
    report
}

/// The points whose latency histograms or per-second series a report of `r` draws: the
/// latency charts' picks (the percentile and CDF panels' and the exceedance's, which may take
/// fewer where points ran on several targets) and the first [`MAX_FULL_SERIES`] points with a
/// latency split. The run, steady-state and per-point series charts draw points of a directory of
/// at most [`MAX_FULL_SERIES`] points, which is always read whole
/// ([`drivelab_lab::results::DETAILED_POINTS`]).
///
/// [`MAX_FULL_SERIES`]: crate::html::MAX_FULL_SERIES
pub fn detailed_points(r: &Results) -> Vec<usize> {
    use crate::html::{pick_indices, MAX_FULL_SERIES, MAX_LATENCY_SERIES};
    let points = &r.points;
    let mut out = pick_indices(points, MAX_LATENCY_SERIES);
    out.extend(pick_indices(points, plan::exceedance_points(points)));
    out.extend(
        points
            .iter()
            .enumerate()
            .filter(|(_, p)| p.result.latency_split.is_some())
            .map(|(i, _)| i)
            .take(MAX_FULL_SERIES),
    );
    out.sort_unstable();
    out.dedup();
    out
}

/// A results directory (or fio's JSON output) read for its report: every point's figures, and
/// where the directory holds many thousand points the histograms and series of only the points
/// the report draws ([`Keep::Summaries`], [`detailed_points`]), so its memory stays bounded.
pub fn open(path: &std::path::Path) -> Result<Results, drivelab_engine::Error> {
    let mut r = drivelab_lab::results::open_keeping(path, Keep::Summaries)?;
    let wanted = detailed_points(&r);
    r.restore_details(&wanted)?;
    Ok(r)
}

#[cfg(test)]
pub(crate) mod tests;
