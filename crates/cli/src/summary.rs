//! Glue: the run's summary is the report model's text ([`drivelab_report::views::summary`]),
//! the same `drivelab report RUNDIR` prints, fitted to the stream it goes to.

use std::path::Path;

use drivelab_engine::Error;
use drivelab_lab::results::PointResult;
use drivelab_report::fit;

use crate::term::{self, Stream};

/// The text of the run in `dir` (whose last point is `p`) for `stream`, with `notes` the
/// command adds to the saved ones. A rank that writes no results directory (MPI) renders its
/// point's summary block alone.
pub fn text(dir: &Path, p: &PointResult, notes: &[String], stream: Stream) -> Result<String, Error> {
    fit::set_width(term::width(stream));
    let text = if crate::mpi::writes() {
        let saved = drivelab_lab::results::load(dir)?;
        Ok(drivelab_report::run_text(&saved, notes)?)
    } else {
        let s = drivelab_report::views::summary::summary(&p.result, &p.point.label, &p.point.names, p.power_w);
        let mut t = s.text(fit::width());
        for n in p.result.notices.iter().chain(notes) {
            t += &fit::hanging("  note: ", n, fit::width(), 8);
        }
        Ok(t)
    };
    // Tables printed after this (none today) fit stdout again.
    fit::set_width(term::width(Stream::Stdout));
    text
}
