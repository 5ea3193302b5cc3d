//! When a job's error stopped the others: what their results say (which targets' jobs stopped
//! on an error), as the MPI ranks' notice does.

use super::feature::{RunFeature, RunInfo, StreamEnd};
use super::{JobReport, Stream};
use crate::error::Error;

struct PeerStop {
    /// Each stream's targets' paths.
    paths: Vec<Vec<String>>,
    notice: Option<String>,
}

pub(super) fn prepare(streams: &[Stream], _: &RunInfo) -> Result<Option<Box<dyn RunFeature>>, Error> {
    let paths = streams.iter().map(|st| st.targets.iter().map(|t| t.info.path.clone()).collect()).collect();
    Ok(Some(Box::new(PeerStop { paths, notice: None })))
}

impl RunFeature for PeerStop {
    fn ended(&mut self, reports: &mut [JobReport]) {
        if !reports.iter().any(|r| r.output.stopped_by_peer) {
            return;
        }
        let mut on: Vec<&str> = Vec::new();
        for r in reports.iter().filter(|r| r.output.stopped_by_error && !r.output.stopped_by_peer) {
            let path = self.paths[r.stream][r.target].as_str();
            if !on.contains(&path) {
                on.push(path);
            }
        }
        self.notice = Some(format!("stopped early with every job: a job on {} stopped on an error", on.join(", ")));
    }

    fn finish(&mut self, s: &mut StreamEnd) {
        if let Some(n) = self.notice.as_ref().filter(|_| s.reports.iter().any(|r| r.output.stopped_by_peer)) {
            s.u.notices.push(n.clone());
        }
    }
}
