//! The kinds of measurement beside the core histograms: each its own type with its own merge
//! ([`Mergeable`]: associative, commutative, `Default` the identity), held in [`Kinds`] and
//! merged, saved and summarized there, one line each. Why this shape: every figure of a result
//! must come through the one merge and the one saved encoding, or it is merged a second time by
//! hand (as these once were, in a struct literal beside the merge) and drifts from the rest. A
//! new kind of measurement is its own file under `kinds/` (its type, merge, saved form and figure:
//! `prio.rs`, fio's per-priority latency, is one), its lines here (the field, its merge, its
//! figure), and where the job records it (`worker/recorder.rs`).
//!
//! What is a job's fact rather than a count (where a latency target's search ended, why a job
//! ended early, a steady-state verdict) keeps the job's (or the part's) place in the run beside
//! it ([`First`], [`Last`]), so "the last job's" or "the first part's" is the same whichever way
//! the parts are merged. What is not a measurement at all (the targets' list, notices, the
//! generation maps, fio's log records) is attached to a result elsewhere (`crate::merge`).

pub mod prio;

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use super::Measurement;
use crate::diskstat::DiskUtil;
use crate::result::{Checks, EndReason, RunResult, SteadyStateStats, VerifyStats};
use crate::usage::{DepthCounts, ThreadUsage};

/// A kind of measurement that merges: `merge` is associative and commutative, and merging
/// `Default` changes nothing, so parts merge in any grouping and order (property-tested with the
/// rest of the measurement in `tests.rs`).
pub trait Mergeable: Clone + Default + PartialEq + std::fmt::Debug {
    /// `other` folded into `self`.
    fn merge(&mut self, other: &Self);
}

/// Absent is the identity: a part that did not measure it (or was saved before it was measured)
/// leaves the others' as they are.
impl<T: Mergeable> Mergeable for Option<T> {
    fn merge(&mut self, other: &Self) {
        match (self.as_mut(), other) {
            (Some(a), Some(b)) => a.merge(b),
            (None, Some(b)) => *self = Some(b.clone()),
            _ => {}
        }
    }
}

impl Mergeable for ThreadUsage {
    fn merge(&mut self, other: &Self) {
        self.add(other);
    }
}

/// fio's `nr_zone_resets` (`zonemode=zbd`): zones reset by the writes, summed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ZoneResets(pub u64);

impl Mergeable for ZoneResets {
    fn merge(&mut self, other: &Self) {
        self.0 += other.0;
    }
}

impl Mergeable for DepthCounts {
    fn merge(&mut self, other: &Self) {
        self.add(other);
    }
}

/// How two values of a job's fact at the same place compare (they are the same fact measured
/// twice, so in a real run equal): a total order, so even a forged pair merges the same both
/// ways.
pub trait Tie {
    fn tie(&self, other: &Self) -> Ordering;
}

impl Tie for u32 {
    fn tie(&self, other: &Self) -> Ordering {
        self.cmp(other)
    }
}

impl Tie for EndReason {
    fn tie(&self, other: &Self) -> Ordering {
        self.cmp(other)
    }
}

impl Tie for SteadyStateStats {
    fn tie(&self, o: &Self) -> Ordering {
        (self.attained, self.duration_s, &self.ss, &self.criterion, &self.iops, &self.bw_bytes_per_s)
            .cmp(&(o.attained, o.duration_s, &o.ss, &o.criterion, &o.iops, &o.bw_bytes_per_s))
            .then(self.max_deviation.total_cmp(&o.max_deviation))
            .then(self.slope.total_cmp(&o.slope))
    }
}

/// A job's (or a part's) fact and its place in the run (`at`: the job's number among every job of
/// the run, its rank in the high 32 bits; a part's stream or rank), of which a merge keeps one:
/// the first place's ([`First`]) or the last's ([`Last`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Placed<T, const LAST: bool> {
    pub at: u64,
    pub value: T,
}

/// The fact of the first place that has one.
pub type First<T> = Placed<T, false>;
/// The fact of the last place that has one.
pub type Last<T> = Placed<T, true>;

impl<T, const LAST: bool> Placed<T, LAST> {
    pub fn new(at: u64, value: T) -> Self {
        Placed { at, value }
    }
}

impl<T: Tie + Clone + PartialEq + std::fmt::Debug, const LAST: bool> Mergeable for Option<Placed<T, LAST>> {
    fn merge(&mut self, other: &Self) {
        let (Some(a), Some(b)) = (self.as_ref(), other.as_ref()) else {
            if self.is_none() {
                *self = other.clone();
            }
            return;
        };
        let by_place = if LAST { b.at.cmp(&a.at) } else { a.at.cmp(&b.at) };
        if by_place == Ordering::Greater || (by_place == Ordering::Equal && b.value.tie(&a.value) == Ordering::Greater)
        {
            *self = other.clone();
        }
    }
}

/// The disks under the targets (fio's `disk_util`): each disk once, with the place of its first
/// target (`order`, as a target's in [`super::TargetPart`]) to list them in target order. Parts
/// that ran together saw the same disk over the same time, so they hold the same entry; a merge
/// keeps one per name (the earliest place, the larger counts: the same entry in a real run).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Disks(pub Vec<(u64, DiskUtil)>);

impl Mergeable for Disks {
    fn merge(&mut self, other: &Self) {
        for (order, d) in &other.0 {
            match self.0.iter_mut().find(|(_, x)| x.name == d.name) {
                Some(x) => {
                    x.0 = x.0.min(*order);
                    if d > &x.1 {
                        x.1 = d.clone();
                    }
                }
                None => self.0.push((*order, d.clone())),
            }
        }
        self.0.sort_by(|a, b| (a.0, &a.1.name).cmp(&(b.0, &b.1.name)));
    }
}

/// Data verification's counts (`verify`): what was stamped and checked, and every mismatch
/// counted by kind. The first mismatches are kept in (target, offset) order, at most
/// [`Checks::KEEP_PER_RUN`], so which are kept does not depend on the order of the parts. The
/// ids the targets' units carry are not measured: they are attached with the targets
/// (`crate::merge`), and left empty here.
impl Mergeable for VerifyStats {
    fn merge(&mut self, o: &Self) {
        // The same in every part of one run (its unit and seed); a total order all the same.
        self.unit_bytes = self.unit_bytes.max(o.unit_bytes);
        self.seed = self.seed.max(o.seed);
        self.journal = match (self.journal.take(), &o.journal) {
            (Some(a), Some(b)) => Some(a.min(b.clone())),
            (a, b) => a.or_else(|| b.clone()),
        };
        self.written_units = self.written_units.saturating_add(o.written_units);
        self.unchecked_units = self.unchecked_units.saturating_add(o.unchecked_units);
        self.held_ios = self.held_ios.saturating_add(o.held_ios);
        Mergeable::merge(&mut self.inline, &o.inline);
        self.after.merge(&o.after);
    }
}

impl Mergeable for Checks {
    fn merge(&mut self, o: &Self) {
        self.checked_units = self.checked_units.saturating_add(o.checked_units);
        self.mismatches = self.mismatches.saturating_add(o.mismatches);
        for (k, n) in &o.by_kind {
            let e = self.by_kind.entry(*k).or_default();
            *e = e.saturating_add(*n);
        }
        self.first.extend(o.first.iter().cloned());
        self.first.sort();
        self.first.truncate(Checks::KEEP_PER_RUN);
        self.unreadable_units = self.unreadable_units.saturating_add(o.unreadable_units);
        self.first_unreadable_offsets_bytes.extend(&o.first_unreadable_offsets_bytes);
        self.first_unreadable_offsets_bytes.sort_unstable();
        self.first_unreadable_offsets_bytes.truncate(Checks::KEEP_PER_RUN);
    }
}

/// One job's own measurement (fio's numjobs clones, which fio reports one entry each without
/// group_reporting), at its place in the run. Kept for streams of several jobs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JobPart {
    pub at: u64,
    pub m: Measurement,
}

/// Each job's own measurement, by place: a job's parts merge into the job.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Jobs(pub Vec<JobPart>);

impl Mergeable for Jobs {
    fn merge(&mut self, other: &Self) {
        for j in &other.0 {
            match self.0.iter_mut().find(|x| x.at == j.at) {
                Some(x) => x.m = super::merge(&x.m, &j.m),
                None => self.0.push(j.clone()),
            }
        }
        self.0.sort_by_key(|j| j.at);
    }
}

/// Every kind of measurement beside the core histograms. Saved in the measurement's JSON object
/// (each absent when empty: a measurement saved before a kind was kept reads as not having it).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Kinds {
    /// The job threads' context switches and page faults (fio's `ctx`, `majf`, `minf`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread_usage: Option<ThreadUsage>,
    /// fio's depth distributions, as counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iodepths: Option<DepthCounts>,
    /// fio's latency target: the depth its search ended at, the last job's (as fio's group).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_depth: Option<Last<u32>>,
    /// Why jobs were ended early and cleanly: the first job's that was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<First<EndReason>>,
    /// fio's steady-state check (judged over the run by the lab): the first part's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steadystate: Option<First<SteadyStateStats>>,
    /// The disks under the targets over the run.
    #[serde(default, skip_serializing_if = "is_empty_disks")]
    pub disks: Disks,
    /// Data verification's counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<VerifyStats>,
    /// Each job's own measurement, with several jobs.
    #[serde(default, skip_serializing_if = "is_empty_jobs")]
    pub per_job: Jobs,
    /// With per-I/O priorities: each priority's completion latency (`prio.rs`).
    #[serde(default, skip_serializing_if = "prio::PrioClat::is_empty")]
    #[serde(serialize_with = "prio::save", deserialize_with = "prio::load")]
    pub clat_prio: prio::PrioClat,
    /// With `zonemode=zbd` and writes: the zones reset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zone_resets: Option<ZoneResets>,
}

fn is_empty_disks(d: &Disks) -> bool {
    d.0.is_empty()
}

fn is_empty_jobs(j: &Jobs) -> bool {
    j.0.is_empty()
}

impl Mergeable for Kinds {
    fn merge(&mut self, o: &Self) {
        self.thread_usage.merge(&o.thread_usage);
        self.iodepths.merge(&o.iodepths);
        self.latency_depth.merge(&o.latency_depth);
        self.ended.merge(&o.ended);
        self.steadystate.merge(&o.steadystate);
        self.disks.merge(&o.disks);
        self.verify.merge(&o.verify);
        self.per_job.merge(&o.per_job);
        self.clat_prio.merge(&o.clat_prio);
        self.zone_resets.merge(&o.zone_resets);
    }
}

/// The figures of the kinds, as a result holds them (flattened into [`RunResult`]: each is a
/// top-level field of the saved result, as documented in docs/RESULTS.md).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KindFigures {
    /// With `verify`: what was stamped and checked, and every mismatch counted by kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<VerifyStats>,
    /// The run was ended early, cleanly (not interrupted), and why (fio's `steadystate`,
    /// `rate_min`, `exitall`); absent when it ran to its end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<EndReason>,
    /// fio's steady-state check of the run (`steadystate`/`ss`): the window judged last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steadystate: Option<SteadyStateStats>,
    /// fio's latency target (`spec.lat_target`): the queue depth its search ended at (fio's
    /// `latency_depth`; of the last job, with several).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_depth: Option<u32>,
    /// The job threads' context switches and page faults over the measured part, summed (fio's
    /// `ctx`, `majf`, `minf`); absent in results saved before they were counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread_usage: Option<ThreadUsage>,
    /// fio's depth distributions as counts, summed over jobs (fio's `iodepth_level`,
    /// `iodepth_submit`, `iodepth_complete` are their percentages); absent in older results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iodepths: Option<DepthCounts>,
    /// The disks under the targets, over the run (fio's `disk_util`); empty for targets with no
    /// disk (tmpfs, null) and in older results.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disk_util: Vec<DiskUtil>,
    /// With per-I/O priorities (fio's `cmdprio_*`): each priority's completion latency, by
    /// direction (fio's `prios` entries).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clat_prio: Option<prio::PrioLats>,
    /// With `zonemode=zbd` and writes: the zones the writes reset (fio's `nr_zone_resets`, its
    /// write line's "zone resets").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zone_resets: Option<u64>,
}

impl Kinds {
    /// Their figures (what `summarize` puts in a result).
    pub fn figures(&self) -> KindFigures {
        KindFigures {
            verify: self.verify.clone(),
            ended: self.ended.as_ref().map(|e| e.value),
            steadystate: self.steadystate.as_ref().map(|s| s.value.clone()),
            latency_depth: self.latency_depth.as_ref().map(|l| l.value),
            thread_usage: self.thread_usage,
            iodepths: self.iodepths,
            disk_util: self.disks.0.iter().map(|(_, d)| d.clone()).collect(),
            clat_prio: self.clat_prio.figures(),
            zone_resets: self.zone_resets.map(|z| z.0),
        }
    }

    /// Each kind `self` lacks taken from `r`'s figures (a result saved before that kind was kept
    /// in its measurement, or with none): as near as the figures allow (a fact at place 0, the
    /// last job's at the last place; each clone's measurement rebuilt from its figures).
    pub(super) fn fill_from(&mut self, r: &RunResult) {
        fn or<T>(a: &mut Option<T>, b: impl FnOnce() -> Option<T>) {
            if a.is_none() {
                *a = b();
            }
        }
        let k = &r.kinds;
        or(&mut self.thread_usage, || k.thread_usage);
        or(&mut self.iodepths, || k.iodepths);
        or(&mut self.latency_depth, || k.latency_depth.map(|d| Last::new(u64::MAX, d)));
        or(&mut self.ended, || k.ended.map(|e| First::new(0, e)));
        or(&mut self.zone_resets, || k.zone_resets.map(ZoneResets));
        or(&mut self.steadystate, || k.steadystate.clone().map(|s| First::new(0, s)));
        or(&mut self.verify, || k.verify.clone().map(|v| VerifyStats { target_ids: Vec::new(), ..v }));
        if self.disks.0.is_empty() {
            self.disks = Disks(k.disk_util.iter().map(|d| (0, d.clone())).collect());
        }
        if self.per_job.0.is_empty() {
            let clone = |(i, c): (usize, &RunResult)| JobPart { at: i as u64, m: Measurement::of_result(c) };
            self.per_job = Jobs(r.clones.iter().enumerate().map(clone).collect());
        }
    }

    /// Put every place in group `group` (a rank), its jobs' targets renamed by `rename`.
    pub(super) fn regroup(&mut self, group: u64, rename: &dyn Fn(&str) -> String) {
        let at = |a: u64| (group << 32) | (a & 0xffff_ffff);
        if let Some(l) = self.latency_depth.as_mut() {
            l.at = at(l.at);
        }
        if let Some(e) = self.ended.as_mut() {
            e.at = at(e.at);
        }
        if let Some(s) = self.steadystate.as_mut() {
            s.at = at(s.at);
        }
        for j in &mut self.per_job.0 {
            j.at = at(j.at);
            j.m.regroup_with(group, rename);
        }
        self.per_job.0.sort_by_key(|j| j.at);
    }
}
