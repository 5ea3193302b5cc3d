//! Which tables and charts each kind of results gets, built as a typed [`Report`] for the
//! exporters. qos, act and run directories are described here ([`qos`], [`act`], [`run`]);
//! plans and suites still go through `suite_tables` and `html` (their chart per table).

pub(crate) mod act;
mod common;
pub mod plan;
pub(crate) mod qos;
mod run;

use drivelab_lab::results::{Kind, Results};

use crate::model::Report;

/// The report of a results directory whose kind has views in the model: qos, act and run.
pub fn build(r: &Results) -> Option<Report> {
    match r.manifest.kind {
        Kind::Qos => Some(qos::report(r)),
        Kind::Act => Some(act::report(r)),
        Kind::Run => Some(run::report(r)),
        Kind::Plan | Kind::Suite(_) => None,
    }
}

#[cfg(test)]
pub(crate) mod tests;
