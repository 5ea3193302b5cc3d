//! Pinning job threads to CPUs (`spec.cpus`): each job's CPU chosen as it is set up (its thread
//! pins itself when it starts), and in the result the CPU each job ran on, or a notice where the
//! kernel refused the pin.

use super::feature::{JobSetup, JobSlot, RunFeature, RunInfo, StreamEnd};
use super::Stream;
use crate::error::Error;

struct Pins(Vec<u32>);

pub(super) fn prepare(_: &[Stream], run: &RunInfo) -> Result<Option<Box<dyn RunFeature>>, Error> {
    Ok(Some(Box::new(Pins(run.allowed.to_vec()))))
}

impl RunFeature for Pins {
    fn attach(&mut self, slot: &JobSlot, job: &mut JobSetup) {
        job.cpu = crate::affinity::cpu_for_job(&slot.st.spec.cpus, &self.0, slot.job_no);
    }

    fn finish(&mut self, s: &mut StreamEnd) {
        // Pinned as recorded only where pinning succeeded; where it failed, a notice says so.
        s.u.engine.job_cpus = s.reports.iter().map(|r| r.pinned).collect();
        s.u.notices.extend(s.reports.iter().filter_map(|r| r.pin_notice.clone()));
    }
}
