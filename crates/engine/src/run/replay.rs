//! A replaying stream as the run starts it: the trace read again (the spec holds only its path),
//! checked against the stream's targets' regions, and the spec as it runs (buffers, the trace's
//! rate).
//!
//! A trace's offsets count from the start of the region (`--offset`), and every I/O must end
//! inside it (`--span`, by default the rest of the target): a replay writes where it was told
//! to, never at the trace's own offsets over the rest of the target.

use std::sync::Arc;

use super::Stream;
use crate::error::Error;
use crate::options::Field;
use crate::replay::{FileTrace, Region, Trace};
use crate::spec::AccessSpec;
use crate::target::TargetKind;

/// A replaying stream's trace, one file's I/Os per target, checked against the targets' regions
/// (one target per file of the trace, every I/O inside its region) and moved to the region's
/// start.
pub(super) fn load_trace(st: &Stream) -> Result<Option<Vec<Arc<FileTrace>>>, Error> {
    let Some(r) = &st.spec.replay else { return Ok(None) };
    let trace = Trace::load(&r.path).map_err(|e| crate::replay::refusal(Field::Replay, e))?;
    let regions: Vec<Region> = st
        .targets
        .iter()
        .map(|t| Region { path: &t.info.path, start: t.start, span: t.span, null: t.info.kind == TargetKind::Null })
        .collect();
    trace.check_fit(&regions).map_err(|why| Error::spec(Field::Replay, r.path.clone(), why.to_string()))?;
    let files = trace.files.into_iter().zip(&regions).map(|(mut f, r)| {
        if !r.null {
            // Inside [0, span) checked above, and start + span inside the target: no overflow.
            for io in &mut f.ios {
                io.offset += r.start;
            }
        }
        Arc::new(f)
    });
    Ok(Some(files.collect()))
}

/// What a replaying spec runs as: buffers for the trace's longest I/O, and with the original
/// timing an open loop at the trace's average rate (its own times pace it; response times and
/// lateness are then measured as for any fixed-rate run).
pub(super) fn replay_spec(s: &mut AccessSpec, files: &[Arc<FileTrace>]) {
    crate::replay::fit_buffers(s, files.iter().map(|f| &**f));
    if !s.replay.as_ref().is_some_and(|r| r.fast) {
        let n: usize = files.iter().map(|f| f.ios.len()).sum();
        let end = files.iter().filter_map(|f| f.t_ns.last()).max().copied().unwrap_or(0);
        let per_s = if end > 0 { n as f64 / (end as f64 / 1e9) } else { n as f64 };
        s.rate = Some(crate::spec::Rate { per_s, ..Default::default() });
    }
}
