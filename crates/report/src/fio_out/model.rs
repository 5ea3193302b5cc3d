//! Saved results as fio's list of job entries: which result each entry shows, its name,
//! reporting group and options.
//!
//! Each point (or probe) is one fio reporting group (`groupid`, from 0). fio writes one entry
//! per job of a group unless `group_reporting` sums the group into one: a point of several jobs
//! keeps each job's own result (`PointResult::jobs`), so both are written as fio would. A fio
//! job's `numjobs` clones run as one drivelab job whose result keeps each clone's own
//! (`RunResult::clones`): without `group_reporting` each clone is an entry of the job's name,
//! as fio writes them. (A point of drivelab's own plan is one entry per job of its group.)

use drivelab_engine::result::RunResult;
use drivelab_engine::Error;
use drivelab_lab::fiojob::reporting::Reporting;
use drivelab_lab::results::{PointResult, Results};

/// One of fio's `jobs` entries.
pub(super) struct Entry<'a> {
    pub name: String,
    pub groupid: usize,
    /// The job's own options, as given (fio's "job options").
    pub options: Vec<(String, String)>,
    pub result: &'a RunResult,
    /// Jobs summed into this entry (fio's `jobs=N` of the normal output).
    pub jobs: usize,
    /// fio's reporting options of the job: which latencies list which percentiles, and whether
    /// the directions are summed as `mixed`.
    pub rep: Reporting,
}

/// What fio's output is written from.
pub(super) struct Model<'a> {
    /// The `[global]` options of the job file (fio's "global options"), as given.
    pub global: Vec<(String, String)>,
    pub entries: Vec<Entry<'a>>,
    /// When the last entry's run ended, Unix epoch ms (fio's timestamp: when it wrote).
    pub ended_ms: u64,
    /// fio's `disk_util`: each disk under the targets, over every point and probe (summed: they
    /// ran one after another).
    pub disks: Vec<drivelab_engine::diskstat::DiskUtil>,
}

/// Options fio lists: those with a value (fio leaves flags such as `time_based` out).
fn listed(options: &[(String, String)]) -> Vec<(String, String)> {
    options.iter().filter(|(_, v)| !v.is_empty()).cloned().collect()
}

fn point_entries<'a>(p: &'a PointResult, groupid: usize, out: &mut Vec<Entry<'a>>) {
    let names: Vec<String> =
        std::iter::once(if p.point.step.is_empty() { p.point.label.clone() } else { p.point.step.clone() })
            .chain(p.point.concurrent.iter().map(|c| c.name.clone()))
            .collect();
    let own = |k: usize| -> Vec<(String, String)> {
        match &p.point.fio {
            Some(f) => f.jobs.get(k).map(|o| listed(o)).unwrap_or_default(),
            None if k == 0 => listed(&p.point.fields),
            None => p.point.concurrent.get(k - 1).map(|c| listed(&c.fields)).unwrap_or_default(),
        }
    };
    let pct = |k: usize| match &p.point.fio {
        Some(f) => Reporting::of(f.global.iter().chain(f.jobs.get(k).into_iter().flatten())),
        None => Reporting::default(),
    };
    let grouped = p.point.fio.as_ref().is_some_and(|f| f.group_reporting());
    // fio's numjobs clones, one entry each (fio job files only).
    let clones = |r: &'a RunResult| -> Vec<&'a RunResult> {
        if p.point.fio.is_some() && r.clones.len() > 1 {
            r.clones.iter().collect()
        } else {
            vec![r]
        }
    };
    if !grouped && p.jobs.len() < 2 && clones(&p.result).len() > 1 {
        for r in clones(&p.result) {
            out.push(Entry { name: names[0].clone(), groupid, options: own(0), result: r, jobs: 1, rep: pct(0) });
        }
        return;
    }
    if grouped || p.jobs.len() < 2 {
        // fio names a summed group after its first job and lists its last job's options.
        let last = names.len().saturating_sub(1);
        out.push(Entry {
            name: names[0].clone(),
            groupid,
            options: own(last),
            result: &p.result,
            jobs: names.len(),
            rep: pct(last),
        });
        return;
    }
    for (k, job) in p.jobs.iter().enumerate() {
        let name = names.get(k).cloned().unwrap_or_else(|| format!("job{k}"));
        for r in clones(job) {
            out.push(Entry { name: name.clone(), groupid, options: own(k), result: r, jobs: 1, rep: pct(k) });
        }
    }
}

/// The entries of `saved`, refused when nothing finished.
pub(super) fn build(saved: &Results) -> Result<Model<'_>, Error> {
    let mut entries = Vec::new();
    for (g, p) in saved.points.iter().enumerate() {
        point_entries(p, g, &mut entries);
    }
    let groups = saved.points.len();
    for (k, probe) in saved.probes.iter().enumerate() {
        for r in probe.results() {
            let name = format!("probe{}", probe.index);
            let rep = Reporting::default();
            entries.push(Entry { name, groupid: groups + k, options: Vec::new(), result: r, jobs: 1, rep });
        }
    }
    if entries.is_empty() {
        return Err(Error::invalid(format!(
            "{} holds no finished point or probe: nothing to write in fio's format; give a results directory with results",
            saved.dir.display()
        )));
    }
    let global = saved.points.iter().find_map(|p| p.point.fio.as_ref()).map(|f| listed(&f.global)).unwrap_or_default();
    let ended_ms = entries
        .iter()
        .map(|e| e.result.started_unix_ms + (e.result.spec.ramp_ns + e.result.runtime_ns) / 1_000_000)
        .max()
        .unwrap_or(0);
    let mut disks: Vec<drivelab_engine::diskstat::DiskUtil> = Vec::new();
    let runs = saved.points.iter().map(|p| &p.result).chain(saved.probes.iter().flat_map(|p| p.results()));
    for d in runs.flat_map(|r| &r.kinds.disk_util) {
        match disks.iter_mut().find(|s| s.name == d.name) {
            Some(s) => s.add(d),
            None => disks.push(d.clone()),
        }
    }
    Ok(Model { global, entries, ended_ms, disks })
}
