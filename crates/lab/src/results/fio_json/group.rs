//! One reporting group of a fio run (the jobs that ran at once between two `stonewall`s, as fio
//! numbers them in `groupid`) as one drivelab engine result: what a drivelab point of the same
//! group measures. fio's entries are either the group's jobs one by one or, with
//! `group_reporting`, the group already summed; either way the point is the whole group.
//!
//! Reads, writes and trims are drivelab's directions of the same names (trims counted in the
//! total, as drivelab counts its own). A direction of one job keeps fio's own IOPS and bandwidth. Anything combined — read and
//! write into the total, the jobs of a group — adds I/Os and bytes over the point's window (its
//! longest direction), as fio's group reporting does; latencies combine as [`super::lat`] says.

use drivelab_engine::result::{
    CpuStats, DirStats, EngineFacts, ErrorStat, RunResult, TargetResult, ToolInfo, SCHEMA as RESULT_SCHEMA,
};
use drivelab_engine::target::{TargetInfo, TargetKind};

use serde_json::json;

use super::doc::{Dir, Job, Lat, Options};
use super::from_saved;
use super::lat::{self, Part, Shape};
use super::notes::Notes;
use super::options::{workload, Workload};

/// A group as drivelab's pieces of a point.
pub struct Imported {
    /// The group's job names, once each, joined by " + " (how drivelab labels a point of a fio
    /// job file's group).
    pub label: String,
    /// The first job's workload: the point's fields and spec.
    pub workload: Workload,
    /// Every target of the group, once each.
    pub targets: Vec<String>,
    pub result: RunResult,
}

/// What every group of one fio output shares.
pub struct Context<'a> {
    pub tool: &'a ToolInfo,
    pub global: &'a Options,
    pub started_unix_ms: u64,
    /// The output was json+ (some statistic has bins).
    pub plus: bool,
}

/// The directions of one job entry.
#[derive(Clone, Copy)]
struct JobDirs<'a> {
    read: Option<&'a Dir>,
    write: Option<&'a Dir>,
    trim: Option<&'a Dir>,
    /// `unified_rw_reporting`.
    mixed: Option<&'a Dir>,
}

impl<'a> JobDirs<'a> {
    fn of(job: &'a Job) -> Result<JobDirs<'a>, String> {
        let d = JobDirs {
            read: job.read.as_ref(),
            write: job.write.as_ref(),
            trim: job.trim.as_ref(),
            mixed: job.mixed.as_ref(),
        };
        if d.read.is_none() && d.write.is_none() && d.mixed.is_none() {
            return Err(format!("job '{}' has no read, write or mixed statistics", job.jobname));
        }
        Ok(d)
    }

    /// Reads, writes, trims and mixed: everything that is in the total.
    fn all(&self) -> impl Iterator<Item = &'a Dir> {
        [self.read, self.write, self.trim, self.mixed].into_iter().flatten()
    }
}

/// The statistic lat's percentiles come from: lat's own where fio computed them; for a
/// synchronous engine (fio records no slat) its clat, which then spans the same I/O; else lat,
/// without percentiles.
pub fn lat_dist(d: &Dir) -> &Lat {
    let has = |l: &Lat| l.bins.is_some() || l.percentile.is_some();
    if has(&d.lat_ns) || d.clat_ns.n == 0 || d.slat_ns.n > 0 {
        &d.lat_ns
    } else {
        &d.clat_ns
    }
}

/// The measured window of a job entry, ms: its longest direction (its runtime when it did no
/// I/O).
fn window_ms(job: &Job) -> u64 {
    let dirs = [&job.read, &job.write, &job.trim, &job.mixed];
    dirs.into_iter().flatten().map(|d| d.runtime).max().filter(|&ms| ms > 0).unwrap_or(job.job_runtime)
}

/// Per second over `window_ns`.
fn per_s(v: f64, window_ns: u64) -> f64 {
    if window_ns == 0 {
        0.0
    } else {
        v / (window_ns as f64 / 1e9)
    }
}

/// Directions of job entries as one [`DirStats`] over `window_ns`; what its lat's and clat's
/// percentiles came from noted in `notes`.
fn dir_stats(dirs: &[&Dir], window_ns: u64, notes: &mut Notes) -> Result<DirStats, String> {
    let live: Vec<&&Dir> = dirs.iter().filter(|d| d.total_ios > 0 || d.io_bytes > 0).collect();
    let ops: u64 = dirs.iter().map(|d| d.total_ios).sum();
    let bytes: u64 = dirs.iter().map(|d| d.io_bytes).sum();
    let (iops, bw) = match live.as_slice() {
        [one] => (one.iops, one.bw_bytes),
        _ => (per_s(ops as f64, window_ns), per_s(bytes as f64, window_ns)),
    };
    let lat_parts: Vec<Part> = dirs.iter().map(|d| Part { stats: &d.lat_ns, dist: lat_dist(d) }).collect();
    let (lat, shape) = lat::summary(&lat_parts).map_err(|e| format!("lat_ns: {e}"))?;
    notes.shape(shape, live.len());
    let clat_parts: Vec<Part> = dirs.iter().map(|d| Part::of(&d.clat_ns)).collect();
    let (clat, clat_shape) = lat::summary(&clat_parts).map_err(|e| format!("clat_ns: {e}"))?;
    notes.shape(clat_shape, live.len());
    Ok(DirStats {
        ops,
        bytes,
        iops,
        bw_bytes_per_s: bw,
        bw_mb_per_s: bw / 1e6,
        bw_mib_per_s: bw / 1048576.0,
        lat_ns: lat,
        clat_ns: (clat_shape != Shape::Empty).then_some(clat),
    })
}

/// Reads, writes, trims (None without any) and total of some jobs.
struct Directions {
    read: DirStats,
    write: DirStats,
    trim: Option<DirStats>,
    total: DirStats,
}

fn directions(jobs: &[(&Job, JobDirs)], window_ns: u64, notes: &mut Notes) -> Result<Directions, String> {
    let reads: Vec<&Dir> = jobs.iter().filter_map(|(_, d)| d.read).collect();
    let writes: Vec<&Dir> = jobs.iter().filter_map(|(_, d)| d.write).collect();
    let trims: Vec<&Dir> = jobs.iter().filter_map(|(_, d)| d.trim).collect();
    let read = dir_stats(&reads, window_ns, notes).map_err(|e| format!("read {e}"))?;
    let write = dir_stats(&writes, window_ns, notes).map_err(|e| format!("write {e}"))?;
    let trim = if trims.iter().any(|t| t.total_ios > 0) {
        Some(dir_stats(&trims, window_ns, notes).map_err(|e| format!("trim {e}"))?)
    } else {
        None
    };
    let all: Vec<&Dir> = jobs.iter().flat_map(|(_, d)| d.all()).collect();
    let total = dir_stats(&all, window_ns, notes).map_err(|e| format!("total {e}"))?;
    Ok(Directions { read, write, trim, total })
}

/// A target as a result describes it: the null target, else a file or device fio opened (what
/// fio's JSON says of it: nothing but its name and the size the job used).
fn target_info(path: &str, size: Option<u64>) -> TargetInfo {
    if path == "null" {
        return TargetInfo::null();
    }
    TargetInfo {
        path: path.to_string(),
        // As its name says: fio's JSON has nothing else on it.
        kind: if path.starts_with("/dev/") && !path.starts_with("/dev/shm/") {
            TargetKind::Block
        } else {
            TargetKind::File
        },
        exists: true,
        size_bytes: size.unwrap_or(0),
        logical_block_bytes: 0,
        physical_block_bytes: 0,
        dio_align_bytes: 0,
        rotational: None,
        model: None,
        disk: None,
        created_by_drivelab: false,
        identity: None,
    }
}

/// fio's usr and sys per job (each % of its own runtime; a reporting group's of its jobs'
/// summed runtime) as drivelab's: % of one core over the point's window, added over the jobs.
fn cpu(jobs: &[(&Job, JobDirs)], ops: u64) -> CpuStats {
    let (mut usr, mut sys, mut busiest, mut cpu_ns) = (0.0, 0.0, 0.0f64, 0.0);
    for (j, _) in jobs {
        let wall = window_ms(j).max(1) as f64;
        usr += j.usr_cpu * j.job_runtime as f64 / wall;
        sys += j.sys_cpu * j.job_runtime as f64 / wall;
        busiest = busiest.max(j.usr_cpu + j.sys_cpu);
        cpu_ns += (j.usr_cpu + j.sys_cpu) / 100.0 * j.job_runtime as f64 * 1e6;
    }
    CpuStats {
        usr_pct: usr,
        sys_pct: sys,
        sqpoll_pct: None,
        machine_pct: 0.0,
        busiest_job_pct: busiest,
        ns_per_io: if ops > 0 { cpu_ns / ops as f64 } else { 0.0 },
        cores: 0,
        runnable_pct: 0.0,
        cpu_bound: false,
        spin_pct: 0.0,
        runnable_less_spin_pct: 0.0,
        runq_wait_pct: 0.0,
        cpu_starved: false,
    }
}

/// I/Os in flight per job on average, by Little's law as drivelab measures it: the sum of every
/// I/O's lat over the jobs' time running.
fn qd_mean(jobs: &[(&Job, JobDirs)]) -> f64 {
    let lat_sum: f64 = jobs.iter().flat_map(|(_, d)| d.all()).map(|d| d.lat_ns.n as f64 * d.lat_ns.mean).sum();
    let run_ns: f64 = jobs.iter().map(|(j, _)| j.job_runtime as f64 * 1e6).sum();
    if run_ns > 0.0 {
        lat_sum / run_ns
    } else {
        0.0
    }
}

/// The group `jobs` (fio's entries with one `groupid`, in fio's order) as one result.
pub fn import(jobs: &[&Job], ctx: &Context) -> Result<Imported, String> {
    let first = jobs.first().ok_or("an empty reporting group")?;
    let mut names: Vec<&str> = Vec::new();
    let mut workloads = Vec::new();
    let mut with_dirs = Vec::new();
    for (i, j) in jobs.iter().enumerate() {
        // fio's clones of a job (numjobs) share its name; fio numbers their files.
        let clone = jobs[..i].iter().filter(|k| k.jobname == j.jobname).count();
        workloads.push(workload(ctx.global, &j.options, &j.jobname, clone));
        if !names.contains(&j.jobname.as_str()) {
            names.push(&j.jobname);
        }
        with_dirs.push((*j, JobDirs::of(j)?));
    }
    let window_ns = jobs.iter().map(|j| window_ms(j)).max().unwrap_or(0).saturating_mul(1_000_000);
    let mut notes = Notes::new(ctx, first.groupid, jobs.len(), &names);
    let Directions { read, write, trim, total } = directions(&with_dirs, window_ns, &mut notes)?;
    notes.lat_source(&with_dirs.iter().flat_map(|(_, d)| d.all()).collect::<Vec<_>>());

    // Per target: the jobs that ran on it (a job with several files is one target, named by
    // its list: fio does not count per file).
    let mut targets: Vec<String> = Vec::new();
    let mut per_target = Vec::new();
    for w in &workloads {
        let key = w.targets.join(":");
        if targets.contains(&key) {
            continue;
        }
        let on: Vec<(&Job, JobDirs)> =
            with_dirs.iter().zip(&workloads).filter(|(_, w)| w.targets.join(":") == key).map(|(jd, _)| *jd).collect();
        let d = directions(&on, window_ns, &mut Notes::quiet())?;
        per_target.push(TargetResult { path: key.clone(), read: d.read, write: d.write, total: d.total });
        targets.push(key);
    }
    let paths: Vec<String> = {
        let mut p: Vec<String> = Vec::new();
        for t in workloads.iter().flat_map(|w| &w.targets) {
            if !p.contains(t) {
                p.push(t.clone());
            }
        }
        p
    };

    let sync_parts: Vec<Part> = jobs.iter().filter_map(|j| j.sync.as_ref()).map(|s| Part::of(&s.lat_ns)).collect();
    let sync_ops: u64 = jobs.iter().filter_map(|j| j.sync.as_ref()).map(|s| s.total_ios).sum();
    let sync = if sync_ops > 0 {
        let (lat, shape) = lat::summary(&sync_parts).map_err(|e| format!("sync lat_ns: {e}"))?;
        notes.shape(shape, sync_parts.iter().filter(|p| p.stats.n > 0).count());
        let iops = per_s(sync_ops as f64, window_ns);
        Some(DirStats {
            ops: sync_ops,
            bytes: 0,
            iops,
            bw_bytes_per_s: 0.0,
            bw_mb_per_s: 0.0,
            bw_mib_per_s: 0.0,
            lat_ns: lat,
            clat_ns: None,
        })
    } else {
        None
    };
    let slat_parts: Vec<Part> = with_dirs.iter().flat_map(|(_, d)| d.all()).map(|d| Part::of(&d.slat_ns)).collect();
    let (slat, slat_shape) = lat::summary(&slat_parts).map_err(|e| format!("slat_ns: {e}"))?;

    let mut errors = Vec::new();
    for (j, w) in jobs.iter().zip(&workloads) {
        if j.error != 0 {
            let errno = i32::try_from(j.error).unwrap_or(i32::MAX);
            errors.push(ErrorStat {
                target: w.targets.join(":"),
                op: "io".into(),
                errno,
                error: std::io::Error::from_raw_os_error(errno).to_string(),
                count: j.total_err.filter(|&n| n > 0).unwrap_or(1),
                first_offset_bytes: 0,
                continued: false,
            });
        }
    }
    for (j, w) in jobs.iter().zip(&workloads) {
        notes.job(j, w);
    }
    notes.workloads(&workloads, &names);
    let spec = &workloads[0].spec;
    let targets: Vec<TargetInfo> = paths.iter().map(|p| target_info(p, spec.span_bytes)).collect();
    // What fio's output gives; every other field of a result (open loop, verification) takes its
    // default, as when a saved result lacks it.
    let result: RunResult = from_saved(
        json!({
            "schema": RESULT_SCHEMA,
            "tool": ctx.tool,
            "started_unix_ms": ctx.started_unix_ms,
            "spec": spec,
            "engine": EngineFacts { backend: workloads[0].engine.clone(), ring: None, looks_before_sleep: None, job_cpus: Vec::new() },
            "targets": targets,
            "runtime_ns": window_ns,
            "read": read,
            "write": write,
            "cpu": cpu(&with_dirs, total.ops),
            "total": total,
            "trim": trim,
            "sync": sync,
            "per_target": per_target,
            "qd_mean": qd_mean(&with_dirs),
            "series": [],
            "stopped_by_error": !errors.is_empty(),
            "errors": errors,
            "interrupted": false,
            "notices": notes.finish(),
            "slat_ns": (slat_shape != Shape::Empty).then_some(slat),
        }),
        "result",
    )?;
    let label = names.join(" + ");
    Ok(Imported { label, workload: workloads.swap_remove(0), targets: paths, result })
}
