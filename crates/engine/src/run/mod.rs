//! Running one access spec on one or more open targets: `jobs` threads per target, each with its
//! own backend, started together behind a barrier; the caller's thread watches progress, and
//! when every job has drained, their outputs are merged per target and in total.
//!
//! Several specs can run at once as streams (ACT's small reads, large-block reads and large-block
//! writes on the same drives): every job of every stream starts behind the same barrier, and
//! each stream gets its own result.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crate::backend::{with_backend, Backend, WithBackend};
use crate::clock::now_ns;
use crate::error::Error;
use crate::hist::Histogram;
use crate::pattern::BufferPool;
use crate::replay::FileTrace;
use crate::result::*;
use crate::spec::{AccessSpec, EngineKind, Rate};
use crate::target::{OpenTarget, TargetKind};
use crate::verify::{GenerationMap, Journal};
use crate::worker::{run_job, JobCtx, JobOutput, JobVerify, Live, LATE_NS};

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
    /// An I/O error has stopped a job of the run.
    pub stopped_by_error: bool,
}

/// One workload of a multi-stream run: a spec on its targets.
pub struct Stream<'a> {
    pub spec: &'a AccessSpec,
    pub targets: &'a [OpenTarget],
    /// With `verify`: what the stream's checks start from.
    pub verify: VerifyFrom<'a>,
}

/// With `verify`: what is known of a stream's targets before it runs, and where its writes are
/// journaled. The default: nothing known, no journal.
#[derive(Clone, Copy, Default)]
pub struct VerifyFrom<'a> {
    /// What is known to be written on each target (one map per target, in order), from earlier
    /// runs of the same lab; empty: nothing is known (fresh maps). The maps after the run are in
    /// the result's `verify_maps`.
    pub maps: &'a [GenerationMap],
    /// The id each target's units carry in their headers (one per target); empty: its index in
    /// the stream. A lab gives each path one id, so a unit written in one run reads back right
    /// in another that names its targets in another order.
    pub ids: &'a [u32],
    /// `--journal`: every write's intent and ack, and every fsync, recorded durably.
    pub journal: Option<&'a Arc<Journal>>,
}

struct JobReport {
    stream: usize,
    target: usize,
    /// Where the job's region starts (its slice, with verify).
    job_start: u64,
    output: JobOutput,
    ring: Option<crate::backend::uring::RingFacts>,
    /// The CPU the job was pinned to (None: not asked, or pinning failed: then `pin_notice`).
    pinned: Option<u32>,
    pin_notice: Option<String>,
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
    let mut results =
        run_streams(&[Stream { spec, targets, verify: VerifyFrom::default() }], engine, stop, on_progress)?;
    Ok(results.remove(0))
}

/// Starts a job thread (a test can make it fail).
type Spawner<'s> = dyn FnMut(std::thread::Builder, Box<dyn FnOnce() -> JobReport + Send>) -> std::io::Result<JoinHandle<JobReport>>
    + 's;

/// Run every stream at once, all jobs started together; one result per stream, in order.
pub fn run_streams(
    streams: &[Stream],
    engine: EngineKind,
    stop: Arc<AtomicBool>,
    on_progress: &mut dyn FnMut(&Progress),
) -> Result<Vec<RunResult>, Error> {
    run_streams_with(streams, engine, stop, on_progress, &mut |b, f| b.spawn(f))
}

fn run_streams_with(
    streams: &[Stream],
    engine: EngineKind,
    stop: Arc<AtomicBool>,
    on_progress: &mut dyn FnMut(&Progress),
    spawn: &mut Spawner,
) -> Result<Vec<RunResult>, Error> {
    for st in streams {
        st.spec.validate()?;
        if st.targets.is_empty() {
            return Err(Error::invalid("no target: give a file, a block device or null"));
        }
    }
    let maps = verify::maps(streams)?;
    let journal_ids = verify::journal(streams, &maps)?;
    let n_jobs: usize = streams.iter().map(|st| st.targets.len() * st.spec.jobs as usize).sum();
    // Each stream's spec as it runs: an `auto` pace resolved against the CPUs this run may use.
    let allowed = crate::affinity::allowed_cpus();
    let cpus = allowed.len().max(1);
    let spin_cpus: f64 = streams
        .iter()
        .map(|st| {
            let jobs = st.targets.len() as u64 * st.spec.jobs as u64;
            st.spec.hybrid_spin_cpus(jobs, jobs)
        })
        .sum();
    let traces: Vec<Option<Vec<Arc<FileTrace>>>> = streams.iter().map(replay::load_trace).collect::<Result<_, _>>()?;
    let resolved: Vec<AccessSpec> = streams
        .iter()
        .zip(&traces)
        .map(|(st, trace)| {
            let mut s = st.spec.clone();
            if let Some(files) = trace {
                replay::replay_spec(&mut s, files);
            }
            if let Some(r) = s.rate.as_mut() {
                r.pace = r.pace.resolve(spin_cpus, cpus);
            }
            s
        })
        .collect();
    let gate = Arc::new(StartGate::new());
    // Set by the first job that stops on an error: every other job stops with it.
    let failed = Arc::new(AtomicBool::new(false));
    let finished = Arc::new(Finished::new());
    let started_unix_ms =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0);
    let mut lives = Vec::new();
    let mut handles: Vec<JoinHandle<JobReport>> = Vec::new();
    // A failed start releases the jobs already started and waits for them before returning.
    let abort = |handles: Vec<JoinHandle<JobReport>>, e: Error| {
        gate.cancel();
        for h in handles {
            let _ = h.join();
        }
        Err(e)
    };

    for (si, st) in streams.iter().enumerate() {
        let spec = st.spec;
        let spec_arc = Arc::new(resolved[si].clone());
        let stream_jobs = st.targets.len() as u64 * spec.jobs as u64;
        let job_iops = resolved[si].job_iops(stream_jobs);
        // ACT's service threads all count their schedules from the same instant.
        let aligned = spec.rate.is_some_and(|r| r.aligned);
        let format = verify::format(spec);
        for (ti, t) in st.targets.iter().enumerate() {
            for j in 0..spec.jobs as u64 {
                // With verify, each job owns its slice of the region: every unit has one writer.
                let (start, span, verify) = verify::job_region(format.as_ref(), st, &maps[si], &journal_ids[si], ti, j);
                let job_no = handles.len();
                let cpu = crate::affinity::cpu_for_job(&spec.cpus, &allowed, job_no);
                let live = Arc::new(Live::default());
                lives.push(live.clone());
                // Jobs sharing a rate are spread evenly over one interval (unless aligned).
                let index = ti as u64 * spec.jobs as u64 + j;
                let trace = traces[si].as_ref().map(|files| files[ti].clone());
                // A replay ends when its target's share of the trace is done.
                let spec_arc = match &trace {
                    Some(t) => Arc::new(AccessSpec { io_size_bytes: Some(t.bytes()), ..(*spec_arc).clone() }),
                    None => spec_arc.clone(),
                };
                let ctx = JobCtx {
                    spec: spec_arc,
                    job: ((si as u64) << 40) | (ti as u64 * 1_000_003 + j),
                    start,
                    span,
                    stop: stop.clone(),
                    failed: failed.clone(),
                    live,
                    pace: job_iops.map(|iops| (iops, job_phase(aligned, index, stream_jobs))),
                    trace,
                };
                let file = match t.file.as_ref().map(|f| f.try_clone()).transpose() {
                    Ok(f) => f,
                    Err(e) => return abort(handles, Error::io("duplicating fd", e)),
                };
                let kind = t.info.kind;
                let gate = gate.clone();
                let ends = EndsJob(finished.clone());
                let builder = std::thread::Builder::new().name(format!("drivelab-s{si}t{ti}j{j}"));
                let job = Box::new(move || {
                    let _ends = ends;
                    let (pinned, pin_notice) = crate::affinity::pin_job(job_no, cpu);
                    let (output, ring) = job_thread(&ctx, kind, file, engine, &gate, verify);
                    JobReport { stream: si, target: ti, job_start: start, output, ring, pinned, pin_notice }
                });
                match spawn(builder, job) {
                    Ok(h) => handles.push(h),
                    Err(e) => return abort(handles, Error::io("starting a job thread", e)),
                }
            }
        }
    }

    let begin = gate.start(n_jobs).unwrap_or_else(now_ns);
    let mut last = (begin, 0u64, 0u64);
    let limit = streams.iter().filter_map(|st| st.spec.time_ns.map(|t| t + st.spec.ramp_ns)).max();
    loop {
        if finished.wait(handles.len(), Duration::from_millis(250)) {
            break;
        }
        let now = now_ns();
        let ops: u64 = lives.iter().map(|l| l.ops.load(Ordering::Relaxed)).sum();
        let bytes: u64 = lives.iter().map(|l| l.bytes.load(Ordering::Relaxed)).sum();
        let dt = (now - last.0) as f64 / 1e9;
        let p = Progress {
            elapsed_ns: now.saturating_sub(begin),
            remaining_ns: limit.map(|l| l.saturating_sub(now.saturating_sub(begin))),
            iops: ops.saturating_sub(last.1) as f64 / dt,
            bw_bytes_per_s: bytes.saturating_sub(last.2) as f64 / dt,
            p99_ns: lives.iter().map(|l| l.p99_ns.load(Ordering::Relaxed)).max().unwrap_or(0),
            ramping: !lives.iter().all(|l| l.measuring.load(Ordering::Relaxed)),
            stopped_by_error: lives.iter().any(|l| l.stopped_by_error.load(Ordering::Relaxed)),
        };
        last = (now, ops, bytes);
        on_progress(&p);
    }
    let mut reports = Vec::new();
    for h in handles {
        reports.push(h.join().map_err(|_| Error::io("a job thread", std::io::Error::other("panicked")))?);
    }
    // A backend that could not be set up: no job ran (the gate stayed shut), nothing to keep. A
    // failure mid-run is an error of its job, kept with what every job measured.
    if let Some(f) = reports.iter().find_map(|r| r.output.failure.clone()) {
        return Err(Error::io("running the workload", std::io::Error::other(f)));
    }
    let stopped_by_peer = peer_stop_notice(streams, &reports);
    let mut by_stream: Vec<Vec<JobReport>> = streams.iter().map(|_| Vec::new()).collect();
    for r in reports {
        by_stream[r.stream].push(r);
    }
    let mut results = Vec::new();
    for ((st, mut reports), maps) in streams.iter().zip(by_stream).zip(maps) {
        // Pinned as recorded only where pinning succeeded; where it failed, a notice says so.
        let cpus: Vec<Option<u32>> = reports.iter().map(|r| r.pinned).collect();
        let pin_notices: Vec<String> = reports.iter().filter_map(|r| r.pin_notice.clone()).collect();
        let verify = st.spec.verify_unit().map(|unit| verify::stats(st, &mut reports, maps, unit));
        let peer_stopped = reports.iter().any(|r| r.output.stopped_by_peer);
        let mut result = aggregate(&resolved[results.len()], st.targets, engine, reports, started_unix_ms);
        result.engine.job_cpus = cpus;
        result.notices.extend(pin_notices);
        if let Some(notice) = stopped_by_peer.as_ref().filter(|_| peer_stopped) {
            result.notices.push(notice.clone());
        }
        if let Some((stats, maps)) = verify {
            result.verify = Some(stats);
            result.verify_maps = maps;
        }
        results.push(result);
    }
    Ok(results)
}

/// When a job's error stopped others: what their results say (which targets' jobs stopped on an
/// error), as the MPI ranks' notice does.
fn peer_stop_notice(streams: &[Stream], reports: &[JobReport]) -> Option<String> {
    reports.iter().any(|r| r.output.stopped_by_peer).then_some(())?;
    let mut on: Vec<&str> = Vec::new();
    for r in reports.iter().filter(|r| r.output.stopped_by_error && !r.output.stopped_by_peer) {
        let path = streams[r.stream].targets[r.target].info.path.as_str();
        if !on.contains(&path) {
            on.push(path);
        }
    }
    Some(format!("stopped early with every job: a job on {} stopped on an error", on.join(", ")))
}

/// Where in the first interval job `index` of `jobs` sharing a rate starts its schedule: spread
/// evenly, or all at the start when `aligned` (ACT's service threads).
fn job_phase(aligned: bool, index: u64, jobs: u64) -> f64 {
    if aligned {
        0.0
    } else {
        index as f64 / jobs as f64
    }
}

/// One job thread (pinned as asked): build its backend, wait at the start gate with everyone, run.
fn job_thread(
    ctx: &JobCtx,
    kind: TargetKind,
    file: Option<std::fs::File>,
    engine: EngineKind,
    gate: &StartGate,
    verify: Option<JobVerify>,
) -> (JobOutput, Option<crate::backend::uring::RingFacts>) {
    let spec = ctx.spec.clone();
    let mut pool = BufferPool::new(spec.qd as usize, spec.max_bs() as usize);
    pool.fill(spec.data, spec.seed ^ ctx.job);
    /// Wait at the gate with everyone, then run the job loop on the backend.
    struct Job<'a> {
        ctx: &'a JobCtx,
        gate: &'a StartGate,
        verify: Option<JobVerify>,
    }
    impl WithBackend for Job<'_> {
        type Out = (JobOutput, Option<crate::backend::uring::RingFacts>);
        fn run<B: Backend>(self, b: &mut B) -> Self::Out {
            let Some(t0) = self.gate.arrive(true) else {
                return (JobOutput::default(), None);
            };
            let helper0 = b.helper_cpu_ns();
            let mut out = run_job(self.ctx, b, t0, self.verify);
            out.helper_cpu_ns = helper0.zip(b.helper_cpu_ns()).map(|(a, z)| z.saturating_sub(a));
            (out, b.ring_facts())
        }
        fn failed(self, why: String) -> Self::Out {
            self.gate.arrive(false);
            (JobOutput { failure: Some(why), ..Default::default() }, None)
        }
    }
    let ring =
        crate::backend::uring::RingOptions { iopoll: spec.hipri, sqpoll: spec.sqpoll, sqpoll_cpu: spec.sqpoll_cpu };
    with_backend(engine, kind, file, spec.qd, ring, pool, Job { ctx, gate, verify })
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
    let (mut all_t, mut tb) = (Histogram::new(), 0u64);
    let (mut rb, mut wb) = (0u64, 0u64);
    for (ti, t) in targets.iter().enumerate() {
        let mine: Vec<&JobReport> = reports.iter().filter(|r| r.target == ti).collect();
        let tw = mine.iter().map(|r| r.output.window_ns).max().unwrap_or(0);
        let (mut r, mut w, mut tr) = (Histogram::new(), Histogram::new(), Histogram::new());
        let (mut trb, mut twb, mut ttb) = (0, 0, 0);
        for j in &mine {
            r.merge(&j.output.read);
            w.merge(&j.output.write);
            tr.merge(&j.output.trim);
            all_s.merge(&j.output.sync);
            trb += j.output.read_bytes;
            twb += j.output.write_bytes;
            ttb += j.output.trim_bytes;
        }
        let mut both = r.clone();
        both.merge(&w);
        both.merge(&tr);
        per_target.push(TargetResult {
            path: t.info.path.clone(),
            read: DirStats::from_hist(&r, trb, tw),
            write: DirStats::from_hist(&w, twb, tw),
            total: DirStats::from_hist(&both, trb + twb + ttb, tw),
        });
        all_r.merge(&r);
        all_w.merge(&w);
        all_t.merge(&tr);
        rb += trb;
        wb += twb;
        tb += ttb;
    }
    let mut all = all_r.clone();
    all.merge(&all_w);
    all.merge(&all_t);
    let (mut clat_r, mut clat_w, mut slat) = (Histogram::new(), Histogram::new(), Histogram::new());
    for r in &reports {
        clat_r.merge(&r.output.clat_read);
        clat_w.merge(&r.output.clat_write);
        slat.merge(&r.output.slat);
    }
    let mut clat_all = clat_r.clone();
    clat_all.merge(&clat_w);

    // CPU of the job threads over their measured windows, and of io_uring's SQPOLL threads (the
    // kernel's work of submitting, moved off the job threads: system time).
    let usr: u64 = reports.iter().map(|r| r.output.cpu_usr_ns).sum();
    let helpers: Option<u64> = reports.iter().filter_map(|r| r.output.helper_cpu_ns).reduce(|a, b| a + b);
    let sys: u64 = reports.iter().map(|r| r.output.cpu_sys_ns).sum::<u64>() + helpers.unwrap_or(0);
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
        sqpoll_pct: helpers.map(pct),
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
        let (mut ro, mut wo, mut to, mut by, mut lat) = (0u64, 0u64, 0u64, 0u64, 0u128);
        for p in &pts {
            h.add_sparse_idx(&p.buckets);
            ro += p.read_ops;
            wo += p.write_ops;
            to += p.trim_ops;
            by += p.read_bytes + p.write_bytes + p.trim_bytes;
            lat += p.lat_sum_ns;
        }
        t_s += secs;
        let ops = ro + wo + to;
        let open = spec.rate.is_some().then(|| {
            let mut resp = Histogram::new();
            for p in &pts {
                resp.add_sparse_idx(&p.resp_buckets);
            }
            let lag_max = pts.iter().map(|p| p.lag_max_ns).max().unwrap_or(0);
            (resp.percentile(99.0), lag_max, pts.iter().map(|p| p.tool_lag_max_ns).max().unwrap_or(0))
        });
        let n_th = spec.thresholds_ns.len();
        let mut over_threshold_counts = vec![0u64; n_th];
        let mut lat_over_threshold_counts = vec![0u64; if open.is_some() { n_th } else { 0 }];
        for p in &pts {
            crate::worker::over_counts(&p.over_threshold, n_th, &mut over_threshold_counts);
            if open.is_some() {
                crate::worker::over_counts(&p.lat_over_threshold, n_th, &mut lat_over_threshold_counts);
            }
        }
        series.push(SeriesPoint {
            t_s: (t_s * 1000.0).round() / 1000.0,
            dur_ns: dur,
            iops: ops as f64 / secs,
            read_iops: ro as f64 / secs,
            write_iops: wo as f64 / secs,
            bw_bytes_per_s: by as f64 / secs,
            lat_mean_ns: if ops > 0 { lat as f64 / ops as f64 } else { 0.0 },
            lat_p99_ns: h.percentile(99.0),
            resp_p99_ns: open.map(|o| o.0),
            lag_max_ns: open.map(|o| o.1),
            tool_lag_max_ns: open.map(|o| o.2),
            ops,
            over_threshold_counts,
            lat_over_threshold_counts,
            resp_pow2_ms: None,
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
    // What the ring was asked for and the kernel refused: said, never silently dropped.
    let notices: Vec<String> = ring
        .iter()
        .flat_map(|r| r.refused.iter())
        .map(|why| format!("io_uring refused {why}; running without it"))
        .collect();
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
        read: DirStats::from_hist(&all_r, rb, window).with_clat(&clat_r),
        write: DirStats::from_hist(&all_w, wb, window).with_clat(&clat_w),
        total: DirStats::from_hist(&all, rb + wb + tb, window).with_clat(&clat_all),
        trim: (all_t.count() > 0).then(|| DirStats::from_hist(&all_t, tb, window)),
        sync: (all_s.count() > 0).then(|| DirStats::from_hist(&all_s, 0, window)),
        per_target,
        cpu,
        qd_mean,
        series,
        errors,
        interrupted: reports.iter().any(|r| r.output.interrupted),
        stopped_by_error: reports.iter().any(|r| r.output.stopped_by_error),
        notices,
        open_loop: spec.rate.map(|rate| open_loop_stats(spec, rate, &reports, window, all.count())),
        slat_ns: (slat.count() > 0).then(|| slat.summary()),
        verify: None,
        verify_maps: Vec::new(),
    }
}

/// What an open-loop run adds: response times, how late the schedule ran, whether it kept up.
fn open_loop_stats(spec: &AccessSpec, rate: Rate, reports: &[JobReport], window: u64, ops: u64) -> OpenLoopStats {
    let (mut rr, mut rw, mut lag, mut tool_lag) =
        (Histogram::new(), Histogram::new(), Histogram::new(), Histogram::new());
    for r in reports {
        rr.merge(&r.output.resp_read);
        rw.merge(&r.output.resp_write);
        lag.merge(&r.output.lag);
        tool_lag.merge(&r.output.tool_lag);
    }
    let mut all = rr.clone();
    all.merge(&rw);
    let late: u64 = reports.iter().map(|r| r.output.late_ops).sum();
    let gave_up = reports.iter().any(|r| r.output.gave_up);
    let final_lag = reports.iter().map(|r| r.output.final_lag_ns).max().unwrap_or(0);
    let target_iops = spec.job_iops(reports.len() as u64).unwrap_or(0.0) * reports.len() as f64;
    OpenLoopStats {
        target_iops,
        target_bw_bytes_per_s: target_iops * spec.mean_bs(),
        arrivals: rate.arrivals,
        achieved_iops: if window > 0 { ops as f64 / (window as f64 / 1e9) } else { 0.0 },
        read_resp_lat_ns: rr.summary(),
        write_resp_lat_ns: rw.summary(),
        total_resp_lat_ns: all.summary(),
        lag_ns: lag.summary(),
        tool_lag_ns: Some(tool_lag.summary()),
        late_threshold_ns: LATE_NS,
        late_ops: late,
        late_pct: if lag.count() > 0 { late as f64 * 100.0 / lag.count() as f64 } else { 0.0 },
        pace: rate.pace,
        spin_pct: {
            let spun: u64 = reports.iter().map(|r| r.output.spin_ns).sum();
            let windows: u64 = reports.iter().map(|r| r.output.window_ns).sum();
            if windows > 0 {
                spun as f64 * 100.0 / windows as f64
            } else {
                0.0
            }
        },
        final_lag_ns: final_lag,
        max_lag_ns: rate.max_lag_ns,
        gave_up,
        kept_up: !gave_up && final_lag <= LATE_NS,
    }
}

mod gate;
mod replay;
#[cfg(test)]
mod tests;
mod verify;

use gate::{EndsJob, Finished, StartGate};
