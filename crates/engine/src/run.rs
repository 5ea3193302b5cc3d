//! Running one access spec on one or more open targets: `jobs` threads per target, each with its
//! own backend, started together behind a barrier; the caller's thread watches progress, and
//! when every job has drained, their outputs are merged per target and in total.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::time::Duration;

use crate::backend::{null::Null, psync::Psync, uring::Uring};
use crate::clock::now_ns;
use crate::error::Error;
use crate::hist::Histogram;
use crate::pattern::BufferPool;
use crate::result::*;
use crate::spec::{AccessSpec, EngineKind};
use crate::target::{OpenTarget, TargetKind};
use crate::worker::{run_job, JobCtx, JobOutput, Live};

/// What the progress callback sees, about every 250 ms.
#[derive(Clone, Debug, Default)]
pub struct Progress {
    pub elapsed_ns: u64,
    /// Time left, when the run is bounded by time.
    pub remaining_ns: Option<u64>,
    /// Rates over the last interval.
    pub iops: f64,
    pub bw_bytes_per_s: f64,
    /// Highest per-job p99 of the last whole second.
    pub p99_ns: u64,
    pub ramping: bool,
}

struct JobReport {
    target: usize,
    output: JobOutput,
    ring: Option<crate::backend::uring::RingFacts>,
}

/// Run `spec` on `targets` with `engine` (null targets always use the null backend). `stop` ends
/// the run early (Ctrl-C); what finished is kept and the result is marked interrupted.
pub fn run(
    spec: &AccessSpec,
    targets: &[OpenTarget],
    engine: EngineKind,
    stop: Arc<AtomicBool>,
    on_progress: &mut dyn FnMut(&Progress),
) -> Result<RunResult, Error> {
    spec.validate()?;
    if targets.is_empty() {
        return Err(Error::invalid("no target: give a file, a block device or null"));
    }
    let spec_arc = Arc::new(spec.clone());
    let n_jobs = targets.len() * spec.jobs as usize;
    let barrier = Arc::new(Barrier::new(n_jobs + 1));
    let setup_failed = Arc::new(AtomicBool::new(false));
    let started_unix_ms =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0);
    let allowed = crate::affinity::allowed_cpus();
    let mut job_cpus = Vec::new();
    let mut lives = Vec::new();
    let mut handles = Vec::new();

    for (ti, t) in targets.iter().enumerate() {
        for j in 0..spec.jobs as u64 {
            let cpu = crate::affinity::cpu_for_job(&spec.cpus, &allowed, handles.len());
            job_cpus.push(cpu);
            let live = Arc::new(Live::default());
            lives.push(live.clone());
            let ctx = JobCtx {
                spec: spec_arc.clone(),
                job: ti as u64 * 1_000_003 + j,
                start: t.start,
                span: t.span,
                stop: stop.clone(),
                live,
            };
            let file =
                t.file.as_ref().map(|f| f.try_clone()).transpose().map_err(|e| Error::io("duplicating fd", e))?;
            let kind = t.info.kind;
            let barrier = barrier.clone();
            let setup_failed = setup_failed.clone();
            let h = std::thread::Builder::new()
                .name(format!("drivelab-t{ti}j{j}"))
                .spawn(move || {
                    if let Some(c) = cpu {
                        crate::affinity::pin_current_thread(c);
                    }
                    let spec = ctx.spec.clone();
                    let mut pool = BufferPool::new(spec.qd as usize, spec.max_bs() as usize);
                    pool.fill(spec.data, spec.seed ^ ctx.job);
                    let go = |failed: bool| {
                        if failed {
                            setup_failed.store(true, Ordering::SeqCst);
                        }
                        barrier.wait();
                        !setup_failed.load(Ordering::SeqCst)
                    };
                    let (output, ring) = match (kind, engine) {
                        (TargetKind::Null, _) => {
                            let mut b = Null::new(spec.qd);
                            if !go(false) {
                                return JobReport { target: ti, output: JobOutput::default(), ring: None };
                            }
                            (run_job(&ctx, &mut b, &mut pool), None)
                        }
                        (_, EngineKind::Psync) => {
                            let f = file.expect("file target has a file");
                            let mut b = Psync::new(&f);
                            if !go(false) {
                                return JobReport { target: ti, output: JobOutput::default(), ring: None };
                            }
                            (run_job(&ctx, &mut b, &mut pool), None)
                        }
                        (_, EngineKind::Uring) => {
                            use std::os::fd::AsRawFd;
                            let f = file.expect("file target has a file");
                            match Uring::new(f.as_raw_fd(), spec.qd, &pool.iovecs()) {
                                Ok(mut b) => {
                                    if !go(false) {
                                        return JobReport { target: ti, output: JobOutput::default(), ring: None };
                                    }
                                    let facts = b.facts.clone();
                                    let out = run_job(&ctx, &mut b, &mut pool);
                                    drop(b); // the ring goes before the buffers it registered
                                    (out, Some(facts))
                                }
                                Err(e) => {
                                    go(true);
                                    let out = JobOutput {
                                        failure: Some(format!("io_uring setup failed: {e}")),
                                        ..Default::default()
                                    };
                                    (out, None)
                                }
                            }
                        }
                    };
                    JobReport { target: ti, output, ring }
                })
                .map_err(|e| Error::io("starting a job thread", e))?;
            handles.push(h);
        }
    }

    barrier.wait();
    let begin = now_ns();
    let mut last = (begin, 0u64, 0u64);
    let limit = spec.time_ns.map(|t| t + spec.ramp_ns);
    while !handles.iter().all(|h| h.is_finished()) {
        std::thread::sleep(Duration::from_millis(250));
        let now = now_ns();
        let ops: u64 = lives.iter().map(|l| l.ops.load(Ordering::Relaxed)).sum();
        let bytes: u64 = lives.iter().map(|l| l.bytes.load(Ordering::Relaxed)).sum();
        let dt = (now - last.0) as f64 / 1e9;
        let p = Progress {
            elapsed_ns: now - begin,
            remaining_ns: limit.map(|l| l.saturating_sub(now - begin)),
            iops: ops.saturating_sub(last.1) as f64 / dt,
            bw_bytes_per_s: bytes.saturating_sub(last.2) as f64 / dt,
            p99_ns: lives.iter().map(|l| l.p99_ns.load(Ordering::Relaxed)).max().unwrap_or(0),
            ramping: !lives.iter().all(|l| l.measuring.load(Ordering::Relaxed)),
        };
        last = (now, ops, bytes);
        on_progress(&p);
    }
    let mut reports = Vec::new();
    for h in handles {
        reports.push(h.join().map_err(|_| Error::io("a job thread", std::io::Error::other("panicked")))?);
    }
    if let Some(f) = reports.iter().find_map(|r| r.output.failure.clone()) {
        return Err(Error::io("running the workload", std::io::Error::other(f)));
    }
    let mut result = aggregate(spec, targets, engine, reports, started_unix_ms);
    result.engine.job_cpus = job_cpus;
    Ok(result)
}

fn aggregate(
    spec: &AccessSpec,
    targets: &[OpenTarget],
    engine: EngineKind,
    reports: Vec<JobReport>,
    started_unix_ms: u64,
) -> RunResult {
    let cores = std::thread::available_parallelism().map(|n| n.get() as u32).unwrap_or(1);
    let window = reports.iter().map(|r| r.output.window_ns).max().unwrap_or(0);
    let mut per_target = Vec::new();
    let (mut all_r, mut all_w, mut all_s) = (Histogram::new(), Histogram::new(), Histogram::new());
    let (mut rb, mut wb) = (0u64, 0u64);
    for (ti, t) in targets.iter().enumerate() {
        let mine: Vec<&JobReport> = reports.iter().filter(|r| r.target == ti).collect();
        let tw = mine.iter().map(|r| r.output.window_ns).max().unwrap_or(0);
        let (mut r, mut w) = (Histogram::new(), Histogram::new());
        let (mut trb, mut twb) = (0, 0);
        for j in &mine {
            r.merge(&j.output.read);
            w.merge(&j.output.write);
            all_s.merge(&j.output.sync);
            trb += j.output.read_bytes;
            twb += j.output.write_bytes;
        }
        let mut both = r.clone();
        both.merge(&w);
        per_target.push(TargetResult {
            path: t.info.path.clone(),
            read: DirStats::from_hist(&r, trb, tw),
            write: DirStats::from_hist(&w, twb, tw),
            total: DirStats::from_hist(&both, trb + twb, tw),
        });
        all_r.merge(&r);
        all_w.merge(&w);
        rb += trb;
        wb += twb;
    }
    let mut all = all_r.clone();
    all.merge(&all_w);

    // CPU of the job threads over their measured windows.
    let usr: u64 = reports.iter().map(|r| r.output.cpu_usr_ns).sum();
    let sys: u64 = reports.iter().map(|r| r.output.cpu_sys_ns).sum();
    let pct = |ns: u64| if window > 0 { ns as f64 / window as f64 * 100.0 } else { 0.0 };
    let share = |r: &JobReport, ns: u64| {
        let w = r.output.window_ns;
        if w > 0 {
            ns as f64 / w as f64 * 100.0
        } else {
            0.0
        }
    };
    let busiest = reports.iter().map(|r| share(r, r.output.cpu_usr_ns + r.output.cpu_sys_ns)).fold(0.0, f64::max);
    // Running or waiting for a CPU the whole time: the thread never waited for the target.
    let never_slept = reports
        .iter()
        .map(|r| share(r, r.output.cpu_usr_ns + r.output.cpu_sys_ns + r.output.runq_wait_ns))
        .fold(0.0, f64::max);
    let cpu = CpuStats {
        usr_pct: pct(usr),
        sys_pct: pct(sys),
        machine_pct: pct(usr + sys) / cores as f64,
        busiest_job_pct: busiest,
        ns_per_io: if all.count() > 0 { (usr + sys) as f64 / all.count() as f64 } else { 0.0 },
        cores,
        runnable_pct: never_slept,
        cpu_bound: never_slept >= 90.0,
    };

    // Time series: second k of every job, summed.
    let seconds = reports.iter().map(|r| r.output.series.len()).max().unwrap_or(0);
    let mut series = Vec::with_capacity(seconds);
    let mut t_s = 0.0;
    for k in 0..seconds {
        let pts: Vec<_> = reports.iter().filter_map(|r| r.output.series.get(k)).collect();
        let dur = pts.iter().map(|p| p.dur_ns).max().unwrap_or(1).max(1);
        let secs = dur as f64 / 1e9;
        let mut h = Histogram::new();
        let (mut ro, mut wo, mut by, mut lat) = (0u64, 0u64, 0u64, 0u128);
        for p in &pts {
            h.add_sparse_idx(&p.buckets);
            ro += p.read_ops;
            wo += p.write_ops;
            by += p.read_bytes + p.write_bytes;
            lat += p.lat_sum_ns;
        }
        t_s += secs;
        let ops = ro + wo;
        series.push(SeriesPoint {
            t_s: (t_s * 1000.0).round() / 1000.0,
            dur_ns: dur,
            iops: ops as f64 / secs,
            read_iops: ro as f64 / secs,
            write_iops: wo as f64 / secs,
            bw_bytes_per_s: by as f64 / secs,
            lat_mean_ns: if ops > 0 { lat as f64 / ops as f64 } else { 0.0 },
            lat_p99_ns: h.percentile(99.0),
        });
    }

    let mut errors = Vec::new();
    for r in &reports {
        for e in &r.output.errors {
            let path = &targets[r.target].info.path;
            match errors.iter_mut().find(|x: &&mut ErrorStat| &x.target == path && x.errno == e.errno && x.op == e.op) {
                Some(x) => {
                    x.count += e.count;
                    x.first_offset_bytes = x.first_offset_bytes.min(e.first_offset_bytes);
                }
                None => errors.push(ErrorStat { target: path.clone(), ..e.clone() }),
            }
        }
    }

    let n_jobs = reports.len().max(1) as f64;
    let qd_mean = if window > 0 { all.sum() as f64 / window as f64 / n_jobs } else { 0.0 };
    let uses_null = targets.iter().all(|t| t.info.kind == TargetKind::Null);
    let ring = reports.iter().find_map(|r| r.ring.clone());
    RunResult {
        schema: SCHEMA,
        tool: ToolInfo { name: "drivelab".into(), version: env!("CARGO_PKG_VERSION").into() },
        started_unix_ms,
        spec: spec.clone(),
        engine: EngineFacts {
            backend: if uses_null { "null".into() } else { engine.name().into() },
            ring,
            job_cpus: Vec::new(),
        },
        targets: targets.iter().map(|t| t.info.clone()).collect(),
        runtime_ns: window,
        read: DirStats::from_hist(&all_r, rb, window),
        write: DirStats::from_hist(&all_w, wb, window),
        total: DirStats::from_hist(&all, rb + wb, window),
        sync: (all_s.count() > 0).then(|| DirStats::from_hist(&all_s, 0, window)),
        per_target,
        cpu,
        qd_mean,
        series,
        errors,
        interrupted: reports.iter().any(|r| r.output.interrupted),
        stopped_by_error: reports.iter().any(|r| r.output.stopped_by_error),
        notices: Vec::new(),
    }
}
