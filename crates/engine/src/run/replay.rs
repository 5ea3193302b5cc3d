//! A replaying stream as the run starts it: the trace read again (the spec holds only its path),
//! checked against the stream's targets, and the spec as it runs (buffers, the trace's rate).

use std::sync::Arc;

use super::Stream;
use crate::error::Error;
use crate::fields::Field;
use crate::replay::{FileTrace, Trace};
use crate::spec::AccessSpec;
use crate::target::TargetKind;

/// A replaying stream's trace, one file's I/Os per target, checked against the targets (one
/// target per file of the trace, every I/O inside its target).
pub(super) fn load_trace(st: &Stream) -> Result<Option<Vec<Arc<FileTrace>>>, Error> {
    let Some(r) = &st.spec.replay else { return Ok(None) };
    let bad = |why: String| Error::spec(Field::Replay, r.path.clone(), why);
    let trace = Trace::load(&r.path).map_err(|e| Error::spec(Field::Replay, "", e))?;
    if trace.files.len() != st.targets.len() {
        let names: Vec<&str> = trace.files.iter().map(|f| f.name.as_str()).collect();
        return Err(bad(format!(
            "the trace has I/Os for {} file(s) ({}) and the run {} target(s): give one target per file, in that \
             order",
            trace.files.len(),
            names.join(", "),
            st.targets.len()
        )));
    }
    for (f, t) in trace.files.iter().zip(st.targets) {
        let size = t.info.size_bytes;
        if t.info.kind != TargetKind::Null && f.extent() > size {
            return Err(bad(format!(
                "its I/Os of {} reach byte {}, past the end of {} ({size} bytes): give a larger target",
                f.name,
                f.extent(),
                t.info.path
            )));
        }
    }
    Ok(Some(trace.files.into_iter().map(Arc::new).collect()))
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
