//! How a feature takes part in a run: one small hook ([`RunFeature`]) instead of a table of its
//! own beside the run loop. A feature is prepared once for the run's streams (shared state: the
//! flows' counters, the zone tables, the split's stamp table, verify's maps and journal), sets up
//! each job as it is made (what the job's context carries), looks at the run when the jobs start
//! and when they have all ended, and finally puts what it has into each stream's result: its
//! measurement's kinds, or what is not measured (notices, verify's maps, the CPUs jobs ran on).
//!
//! Why dynamic: features act per run and per job, never per I/O; what a job does per I/O is in
//! its [`JobCtx`] (plain fields the worker reads), so the hot path knows nothing of this. A new
//! feature is its own file and one line in [`FEATURES`].

use super::{JobReport, Stream};
use crate::error::Error;
use crate::measurement::Measurement;
use crate::merge::Unmeasured;
use crate::worker::{JobCtx, JobVerify};

/// What every feature may know of the run as it is prepared.
pub(super) struct RunInfo<'a> {
    /// Jobs of every stream.
    pub n_jobs: usize,
    /// The CPUs this run may use.
    pub allowed: &'a [u32],
}

/// Where a job sits: stream `stream` (`st`), its target `target`, its number `j` among that
/// target's jobs, and `job_no` among every job of the run.
pub(super) struct JobSlot<'s, 'a> {
    pub stream: usize,
    pub st: &'s Stream<'a>,
    pub target: usize,
    pub j: u64,
    pub job_no: usize,
}

/// A job as it is set up: its context, and what its thread is handed besides.
pub(super) struct JobSetup {
    pub ctx: JobCtx,
    /// With `verify`: the job's stamps, checks and map slice.
    pub verify: Option<JobVerify>,
    /// The CPU to pin the job's thread to.
    pub cpu: Option<u32>,
}

/// One stream's result as it is made: its jobs' reports, its measurement and what is not
/// measured of it.
pub(super) struct StreamEnd<'s, 'a> {
    pub index: usize,
    pub st: &'s Stream<'a>,
    pub reports: &'s mut [JobReport],
    pub m: &'s mut Measurement,
    pub u: &'s mut Unmeasured,
}

/// A feature's part in a run (see the module docs); each hook does nothing unless the feature
/// needs it.
pub(super) trait RunFeature {
    /// Set up job `slot`.
    fn attach(&mut self, _slot: &JobSlot, _job: &mut JobSetup) {}
    /// Every job is set up and about to start.
    fn starting(&mut self) {}
    /// Every job has ended (`reports` of every stream, in job order).
    fn ended(&mut self, _reports: &mut [JobReport]) {}
    /// Put what the feature has into stream `s`'s result.
    fn finish(&mut self, _s: &mut StreamEnd) {}
}

/// A feature prepared for a run's streams (None: no stream uses it), or why the run cannot be.
pub(super) type Prepare = fn(&[Stream], &RunInfo) -> Result<Option<Box<dyn RunFeature>>, Error>;

/// Every feature, in the order they are prepared, set up each job and finish each result (the
/// notices they add come in this order).
pub(super) const FEATURES: &[Prepare] = &[
    super::verify::prepare,
    super::flow::prepare,
    super::zbd::prepare,
    super::split::prepare,
    super::disks::prepare,
    super::pins::prepare,
    super::peer::prepare,
];
