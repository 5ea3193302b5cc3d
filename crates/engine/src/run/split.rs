//! `--latency-split` in a run (see `crate::split`): the kernel's stamp table for every job of the
//! run, attached until the run ends, and its run-wide figures once every job has ended.

use std::sync::Arc;

use super::feature::{JobSetup, JobSlot, RunFeature, RunInfo};
use super::{JobReport, Stream};
use crate::error::Error;
use crate::split::{JobTable, SplitTable};
use crate::target::TargetKind;

struct Split(Arc<dyn SplitTable>);

/// The table for the run's jobs when a stream asks for the split (None when none does).
pub(super) fn prepare(streams: &[Stream], run: &RunInfo) -> Result<Option<Box<dyn RunFeature>>, Error> {
    Ok(table(streams, run.n_jobs)?.map(|t| Box::new(Split(t)) as Box<dyn RunFeature>))
}

impl RunFeature for Split {
    fn attach(&mut self, slot: &JobSlot, job: &mut JobSetup) {
        if slot.st.spec.latency_split {
            job.ctx.split = Some(JobTable { table: self.0.clone(), job: slot.job_no as u32 });
        }
    }

    /// The table's own figures (events the kernel side could not match, its programs' CPU), read
    /// once every job has ended, into the first job's split: so a merge counts them once.
    fn ended(&mut self, reports: &mut [JobReport]) {
        let ios: u64 = reports.iter().filter_map(|r| r.output.split.as_ref()).map(|s| s.ios).sum();
        if let Some(s) = reports.iter_mut().find_map(|r| r.output.split.as_mut()) {
            s.lost_events = self.0.lost_events();
            // The sample's cost per I/O, over every measured I/O of the run.
            if let Some((ns, timed)) = self.0.kernel_cost() {
                s.bpf_ns = (ns as u128 * ios as u128 / timed.max(1) as u128).min(u64::MAX as u128) as u64;
                s.bpf_runs = timed;
            }
        }
    }
}

fn table(streams: &[Stream], n_jobs: usize) -> Result<Option<Arc<dyn SplitTable>>, Error> {
    if !streams.iter().any(|st| st.spec.latency_split) {
        return Ok(None);
    }
    if streams.iter().any(|st| st.spec.latency_split && st.targets.iter().any(|t| t.info.kind == TargetKind::Null)) {
        return Err(Error::invalid(
            "--latency-split on the null target: no I/O of it reaches the kernel; give a file or a block device",
        ));
    }
    let slots = streams.iter().map(|st| st.spec.qd).max().unwrap_or(1);
    let jobs = u32::try_from(n_jobs).unwrap_or(u32::MAX);
    crate::split::begin(jobs, slots).map(Some).map_err(|why| Error::invalid(format!("--latency-split: {why}")))
}
