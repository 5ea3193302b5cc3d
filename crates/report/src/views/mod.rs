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
use drivelab_lab::results::{Kind, Results};

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

#[cfg(test)]
pub(crate) mod tests;
