//! fio's `flow` in a run: one shared counter per flow id, which every job of that id joins;
//! the jobs that start with the run are counted in it before any starts.

use std::collections::HashMap;
use std::sync::Arc;

use super::feature::{JobSetup, JobSlot, RunFeature, RunInfo};
use super::Stream;
use crate::error::Error;
use crate::worker::FlowGroup;

struct Flows(HashMap<u32, Arc<FlowGroup>>);

pub(super) fn prepare(streams: &[Stream], _: &RunInfo) -> Result<Option<Box<dyn RunFeature>>, Error> {
    // Each flow's weight of the jobs that start with the run (every target's `jobs` clones).
    let mut starting: HashMap<u32, u64> = HashMap::new();
    for st in streams {
        if let Some(f) = st.spec.flow.filter(|f| f.weight > 0) {
            let jobs = st.n_jobs() as u64;
            let w = if st.spec.start_delay_ns == 0 { f.weight as u64 * jobs } else { 0 };
            *starting.entry(f.id).or_default() += w;
        }
    }
    let flows: HashMap<u32, Arc<FlowGroup>> =
        starting.into_iter().map(|(id, w)| (id, Arc::new(FlowGroup::new(w)))).collect();
    Ok((!flows.is_empty()).then(|| Box::new(Flows(flows)) as Box<dyn RunFeature>))
}

impl RunFeature for Flows {
    fn attach(&mut self, slot: &JobSlot, job: &mut JobSetup) {
        job.ctx.flow = slot.st.spec.flow.filter(|f| f.weight > 0).and_then(|f| self.0.get(&f.id).cloned());
    }
}
