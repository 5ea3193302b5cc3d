//! A result from its measurement, and one result from several that ran at the same time (the
//! streams of a fio group, ACT's streams, the ranks of a run spread over hosts).
//!
//! A result is two things: its [`Measurement`] (every figure, raw and mergeable) and what is
//! not measured ([`Unmeasured`]: who ran it, as what, on which targets, what was said, the
//! generation maps and fio's log records, the ids verify's units carry). [`assemble`] is the one
//! way a result is made from the two: the figures summarized from the measurement
//! (`measurement::summarize`), each job's own result (fio's numjobs clones) from each job's own
//! measurement, and the rest attached. Several results merge the same way: their measurements by
//! the one `measurement::merge` (so a merged p99 is the p99 of every I/O of every part, and an
//! open loop's figures cover every part), what is not measured side by side here
//! ([`Unmeasured::merge`]), then assembled.

use crate::iolog::Logs;
use crate::measurement::{merge::merge_all, summarize, Measurement};
use crate::result::{EngineFacts, RunResult, ToolInfo, SCHEMA};
use crate::spec::AccessSpec;
use crate::target::TargetInfo;
use crate::verify::GenerationMap;

/// What a result holds that is not measured: set when it is made, listed (not merged) when
/// results merge.
#[derive(Clone, Debug)]
pub struct Unmeasured {
    pub tool: ToolInfo,
    pub started_unix_ms: u64,
    pub spec: AccessSpec,
    pub engine: EngineFacts,
    pub targets: Vec<TargetInfo>,
    pub notices: Vec<String>,
    /// With `verify`: the id each target's units carry (one per target, in order), given by the
    /// lab.
    pub verify_ids: Vec<u32>,
    /// With `verify`: each target's generation map after the run.
    pub verify_maps: Vec<GenerationMap>,
    /// fio's log records of each job.
    pub io_logs: Logs,
    /// Each verifying job's writes, for fio's verify state files.
    pub verify_writes: Vec<(usize, crate::result::JobWrites)>,
}

impl Unmeasured {
    /// A fresh result's: this drivelab, `spec` on `targets`.
    pub fn new(spec: AccessSpec, engine: EngineFacts, targets: Vec<TargetInfo>, started_unix_ms: u64) -> Unmeasured {
        Unmeasured {
            tool: ToolInfo { name: "drivelab".into(), version: env!("CARGO_PKG_VERSION").into() },
            started_unix_ms,
            spec,
            engine,
            targets,
            notices: Vec::new(),
            verify_ids: Vec::new(),
            verify_maps: Vec::new(),
            io_logs: Logs::new(),
            verify_writes: Vec::new(),
        }
    }

    /// Several parts' side by side: the first part's tool, spec and engine, the earliest start,
    /// every part's targets in order (and verify's ids with them: a part that verified nothing
    /// counts its targets by index), every notice once, the maps when every part has them, and
    /// fio's logs, each part one stream of them.
    pub fn merge(parts: &[RunResult]) -> Unmeasured {
        let first = &parts[0];
        let mut notices: Vec<String> = Vec::new();
        for n in parts.iter().flat_map(|p| &p.notices) {
            if !notices.contains(n) {
                notices.push(n.clone());
            }
        }
        let ids = |p: &RunResult| -> Vec<u32> {
            (0..p.targets.len()).map(|ti| p.kinds.verify.as_ref().map_or(ti as u32, |v| v.target_id(ti))).collect()
        };
        let all_maps = parts.iter().all(|p| !p.verify_maps.is_empty());
        Unmeasured {
            tool: first.tool.clone(),
            started_unix_ms: parts.iter().map(|p| p.started_unix_ms).min().unwrap_or(first.started_unix_ms),
            spec: first.spec.clone(),
            engine: first.engine.clone(),
            targets: parts.iter().flat_map(|p| p.targets.iter().cloned()).collect(),
            notices,
            verify_ids: parts.iter().flat_map(ids).collect(),
            verify_maps: if all_maps {
                parts.iter().flat_map(|p| p.verify_maps.iter().cloned()).collect()
            } else {
                Vec::new()
            },
            io_logs: parts
                .iter()
                .enumerate()
                .flat_map(|(i, p)| p.io_logs.iter().map(move |(_, l)| (i, l.clone())))
                .collect(),
            verify_writes: parts
                .iter()
                .enumerate()
                .flat_map(|(i, p)| p.verify_writes.iter().map(move |(_, w)| (i, w.clone())))
                .collect(),
        }
    }

    /// One job's own: its target alone, none of the run's maps, ids or logs.
    fn of_job(&self, job: &Measurement) -> Unmeasured {
        let path = job.targets.first().map(|t| t.path.as_str());
        Unmeasured {
            targets: self.targets.iter().filter(|t| Some(t.path.as_str()) == path).take(1).cloned().collect(),
            verify_ids: Vec::new(),
            verify_maps: Vec::new(),
            io_logs: Logs::new(),
            verify_writes: Vec::new(),
            ..self.clone()
        }
    }
}

/// The result of measurement `m` with what is not measured, `u`: the one way a result is made.
/// With several jobs (`m.kinds.per_job`), each job's own result beside it (fio's numjobs clones),
/// without a measurement of its own.
/// The result of `spec` before it has run: nothing measured (what fio's status report shows of
/// a job not started yet).
pub fn not_started(spec: &crate::spec::AccessSpec) -> RunResult {
    let engine =
        EngineFacts { backend: spec.engine.name().into(), ring: None, looks_before_sleep: None, job_cpus: Vec::new() };
    assemble(Measurement::default(), Unmeasured::new(spec.clone(), engine, Vec::new(), 0))
}

pub fn assemble(m: Measurement, u: Unmeasured) -> RunResult {
    let f = summarize(&m, &u.spec);
    let clones = if m.kinds.per_job.0.len() > 1 {
        let one = |j: &crate::measurement::kinds::JobPart| RunResult {
            measurement: None,
            ..assemble(j.m.clone(), u.of_job(&j.m))
        };
        m.kinds.per_job.0.iter().map(one).collect()
    } else {
        Vec::new()
    };
    let mut kinds = f.kinds;
    if let Some(v) = kinds.verify.as_mut() {
        v.target_ids = u.verify_ids;
    }
    RunResult {
        schema: SCHEMA,
        tool: u.tool,
        started_unix_ms: u.started_unix_ms,
        spec: u.spec,
        engine: u.engine,
        targets: u.targets,
        runtime_ns: f.runtime_ns,
        read: f.read,
        write: f.write,
        total: f.total,
        trim: f.trim.map(Box::new),
        sync: f.sync.map(Box::new),
        per_target: f.per_target,
        cpu: f.cpu,
        qd_mean: f.qd_mean,
        series: f.series,
        errors: f.errors,
        continued_errors: f.continued_errors,
        interrupted: f.interrupted,
        stopped_by_error: f.stopped_by_error,
        notices: u.notices,
        open_loop: f.open_loop.map(Box::new),
        slat_ns: f.slat_ns.map(Box::new),
        verify_maps: u.verify_maps,
        measurement: Some(Box::new(m)),
        io_logs: u.io_logs,
        verify_writes: u.verify_writes,
        latency_split: f.latency_split.map(Box::new),
        kinds,
        clones,
    }
}

impl RunResult {
    /// Change what the run measured after it ended (the lab's steady-state verdict, verify's
    /// re-read of every written unit): its measurement's kinds, and their figures with them.
    pub fn amend(&mut self, change: impl FnOnce(&mut crate::measurement::kinds::Kinds)) {
        if self.measurement.is_none() {
            self.measurement = Some(Box::new(Measurement::of_result(self)));
        }
        let Some(m) = self.measurement.as_mut() else { return };
        change(&mut m.kinds);
        let ids = self.kinds.verify.as_ref().map(|v| v.target_ids.clone()).unwrap_or_default();
        self.kinds = m.kinds.figures();
        if let Some(v) = self.kinds.verify.as_mut() {
            v.target_ids = ids;
        }
    }
}

/// `parts` as one result (the first part's spec, tool, engine; the earliest start). `parts` must
/// not be empty; a single part comes back unchanged.
pub fn merge_results(parts: &[RunResult]) -> RunResult {
    assert!(!parts.is_empty(), "merge_results needs at least one result");
    if parts.len() == 1 {
        return parts[0].clone();
    }
    let measurements: Vec<Measurement> = parts.iter().map(Measurement::of_result).collect();
    merge_parts(parts, &measurements)
}

/// Results of one workload that ran one after the other (a steady-state window's rounds) as one
/// result: their measurements joined by `measurement::merge::then` (windows and seconds follow
/// each other), what is not measured the last part's (its targets, maps and logs: the state the
/// rounds left), started when the first did, every notice once. `parts` must not be empty.
pub fn consecutive(parts: &[RunResult]) -> RunResult {
    assert!(!parts.is_empty(), "consecutive needs at least one result");
    if parts.len() == 1 {
        return parts[0].clone();
    }
    let measurements: Vec<Measurement> = parts.iter().map(Measurement::of_result).collect();
    let joined =
        measurements[1..].iter().fold(measurements[0].clone(), |acc, m| crate::measurement::merge::then(&acc, m));
    let mut u = Unmeasured::merge(&parts[parts.len() - 1..]);
    u.started_unix_ms = parts[0].started_unix_ms;
    u.notices = Unmeasured::merge(parts).notices;
    assemble(joined, u)
}

/// `parts` as one result, their measurements given (a rank's with its targets renamed): the
/// measurements merged, what is not measured side by side, assembled.
pub fn merge_parts(parts: &[RunResult], measurements: &[Measurement]) -> RunResult {
    assemble(merge_all(measurements).unwrap_or_default(), Unmeasured::merge(parts))
}

/// The mean and (population) standard deviation of several parts' samples together, exactly,
/// from each part's (count, mean, deviation): a part's sum of squares is n·(σ² + μ²). (For
/// foreign results that keep no samples: fio's JSON.)
pub fn combine_moments(parts: impl IntoIterator<Item = (u64, f64, f64)>) -> (f64, f64) {
    let (mut n, mut sum, mut sq) = (0u64, 0.0f64, 0.0f64);
    for (k, mean, stdev) in parts.into_iter().filter(|p| p.0 > 0) {
        n += k;
        sum += k as f64 * mean;
        sq += k as f64 * (stdev * stdev + mean * mean);
    }
    if n == 0 {
        return (0.0, 0.0);
    }
    let mean = sum / n as f64;
    (mean, (sq / n as f64 - mean * mean).max(0.0).sqrt())
}
