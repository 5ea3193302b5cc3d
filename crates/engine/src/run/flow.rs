//! fio's `flow` in a run: one shared counter per flow id, which every job of that id joins.

use std::collections::HashMap;
use std::sync::Arc;

use super::feature::{JobSetup, JobSlot, RunFeature, RunInfo};
use super::Stream;
use crate::error::Error;
use crate::worker::FlowGroup;

struct Flows(HashMap<u32, Arc<FlowGroup>>);

pub(super) fn prepare(streams: &[Stream], _: &RunInfo) -> Result<Option<Box<dyn RunFeature>>, Error> {
    let flows: HashMap<u32, Arc<FlowGroup>> = streams
        .iter()
        .filter_map(|st| st.spec.flow.filter(|f| f.weight > 0))
        .map(|f| (f.id, Arc::new(FlowGroup::default())))
        .collect();
    Ok((!flows.is_empty()).then(|| Box::new(Flows(flows)) as Box<dyn RunFeature>))
}

impl RunFeature for Flows {
    fn attach(&mut self, slot: &JobSlot, job: &mut JobSetup) {
        job.ctx.flow = slot.st.spec.flow.filter(|f| f.weight > 0).and_then(|f| self.0.get(&f.id).cloned());
    }
}
