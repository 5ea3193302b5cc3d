//! Running one access spec on one or more open targets: `jobs` threads per target, each with its
//! own backend, started together behind a barrier; the caller's thread watches progress, and
//! when every job has drained, their outputs are merged per target and in total.
//!
//! Several specs can run at once as streams (ACT's small reads, large-block reads and large-block
//! writes on the same drives): every job of every stream starts behind the same barrier, and
//! each stream gets its own result.
//!
//! What a feature adds to a run (verify's maps and journal, fio's flows and zones, the latency
//! split's stamp table, the disks' statistics, pinning, the notice of a job stopped by another's
//! error) takes part through one hook (`feature.rs`), so the loop here only makes jobs, follows
//! them and assembles each stream's result (`crate::merge::assemble`).

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crate::backend::{with_backend, Backend, Wiring, WithBackend};
use crate::clock::{now_ns, Clock, Monotonic};
use crate::error::Error;
use crate::measurement::kinds::{JobPart, Jobs};
use crate::measurement::{JobPlace, Measurement};
use crate::pattern::BufferPool;
use crate::replay::FileTrace;
use crate::result::*;
use crate::spec::{AccessSpec, EngineKind};
use crate::target::{OpenTarget, TargetKind};
use crate::verify::{GenerationMap, Journal};
use crate::worker::{run_job_on, JobCtx, JobOutput, JobVerify, Live};

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
    /// Over the last interval: the share of it the running job threads waited for a CPU
    /// (runnable, not running), on average, as the result's `cpu.runq_wait_pct` counts the whole
    /// run. None when it could not be read.
    pub cpu_wait_pct: Option<f64>,
    pub ramping: bool,
    /// An I/O error has stopped a job of the run.
    pub stopped_by_error: bool,
    /// Since the start, ramp included: I/Os and bytes completed by every job of the run.
    pub ops: u64,
    pub bytes: u64,
    /// Since the start, ramp included: the completion latencies of `ops` summed, ns.
    pub clat_sum_ns: u64,
    /// Streams whose every job has ended (fio's `exitall` ends the others then).
    pub streams_done: usize,
    /// Each stream's jobs: (ended, all). fio's `exitall` acts on a job's end, a clone's included.
    pub stream_jobs: Vec<(usize, usize)>,
    /// fio's `--status-interval` ([`EndEarly::report_every`]): on the ticks a report is due,
    /// each stream's result so far, made as the final one is (the I/O logs, verify's maps and
    /// the latency split aside).
    pub status: Option<Vec<RunResult>>,
}

/// A clean early end of a run, asked for by whoever watches its progress (fio's
/// `steadystate`, `rate_min`, `exitall`): every job stops at its next loop turn, keeping what
/// it measured, and the results of the streams it stopped say why (`RunResult::ended`), not
/// "interrupted". The first reason given is kept. fio's `exitall` with `exit_what=group` ends
/// some streams only ([`EndEarly::end_streams`]); the others run on.
#[derive(Default)]
pub struct EndEarly {
    code: AtomicU8,
    /// The streams asked to end: bit k is stream k (streams 63 and later share bit 63).
    streams: AtomicU64,
    /// What the watcher also asks of the run: each stream's result so far every this many ns
    /// (fio's `--status-interval`; 0: never).
    status_every_ns: AtomicU64,
}

impl EndEarly {
    /// End every stream.
    pub fn end(&self, why: EndReason) {
        self.end_streams(why, u64::MAX);
    }

    /// End the streams of `mask` ([`stream_bit`]s), keeping the first reason given.
    pub fn end_streams(&self, why: EndReason, mask: u64) {
        let _ = self.code.compare_exchange(0, why.code(), Ordering::SeqCst, Ordering::SeqCst);
        self.streams.fetch_or(mask, Ordering::SeqCst);
    }

    /// Ask for each stream's result so far every `ns` (fio's `--status-interval`), in
    /// [`Progress::status`]; set before the run starts.
    pub fn report_every(&self, ns: u64) {
        self.status_every_ns.store(ns, Ordering::SeqCst);
    }

    fn status_every(&self) -> Option<u64> {
        Some(self.status_every_ns.load(Ordering::SeqCst)).filter(|&ns| ns > 0)
    }

    pub fn reason(&self) -> Option<EndReason> {
        EndReason::from_code(self.code.load(Ordering::SeqCst))
    }

    /// Asked of stream `stream` (one relaxed load: the worker checks it every loop turn).
    #[inline]
    pub fn asked_by(&self, stream: usize) -> bool {
        self.streams.load(Ordering::Relaxed) & stream_bit(stream) != 0
    }
}

/// Stream `stream`'s bit in an [`EndEarly`] mask.
pub fn stream_bit(stream: usize) -> u64 {
    1 << stream.min(63)
}

/// One workload of a multi-stream run: a spec on its targets.
pub struct Stream<'a> {
    pub spec: &'a AccessSpec,
    pub targets: &'a [OpenTarget],
    /// With `verify`: what the stream's checks start from.
    pub verify: VerifyFrom<'a>,
}

impl Stream<'_> {
    /// Targets per job: 1, or a file set's (`spec.files`: fio's job over several files).
    fn per_job(&self) -> usize {
        self.spec.files.each()
    }

    /// The stream's jobs: `jobs` per target, or per file set.
    pub(crate) fn n_jobs(&self) -> usize {
        self.targets.len().div_ceil(self.per_job()) * self.spec.jobs as usize
    }
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

impl JobReport {
    /// Where a job is, before it has output.
    fn place(stream: usize, target: usize, job_no: usize, job_start: u64) -> JobReport {
        JobReport {
            stream,
            target,
            job_no,
            job_start,
            output: JobOutput::default(),
            facts: JobFacts::default(),
            pinned: None,
            pin_notice: None,
        }
    }
}

struct JobReport {
    stream: usize,
    target: usize,
    /// The job's number among every job of the run.
    job_no: usize,
    /// Where the job's region starts (its slice, with verify).
    job_start: u64,
    output: JobOutput,
    facts: JobFacts,
    /// The CPU the job was pinned to (None: not asked, or pinning failed: then `pin_notice`).
    pinned: Option<u32>,
    pin_notice: Option<String>,
}

/// How a job's backend was set up, for the result's engine facts.
#[derive(Default)]
struct JobFacts {
    ring: Option<crate::backend::uring::RingFacts>,
    /// Whether the job looked for completions before sleeping (None: its backend does not wait).
    looks_before_sleep: Option<bool>,
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
    run_streams_until(streams, engine, stop, Arc::new(EndEarly::default()), on_progress)
}

/// [`run_streams`] that `end` can end early and cleanly (see [`EndEarly`]).
pub fn run_streams_until(
    streams: &[Stream],
    engine: EngineKind,
    stop: Arc<AtomicBool>,
    end: Arc<EndEarly>,
    on_progress: &mut dyn FnMut(&Progress),
) -> Result<Vec<RunResult>, Error> {
    run_streams_on(streams, engine, stop, end, Monotonic, on_progress)
}

/// [`run_streams_until`] with every job reading the time from `clock` (each job a copy): the
/// machine's ([`Monotonic`]), or one a test chooses as a type (a clock that stalls, so the jobs
/// are slow to reap what completed).
pub fn run_streams_on<C: Clock + Clone + Send + 'static>(
    streams: &[Stream],
    engine: EngineKind,
    stop: Arc<AtomicBool>,
    end: Arc<EndEarly>,
    clock: C,
    on_progress: &mut dyn FnMut(&Progress),
) -> Result<Vec<RunResult>, Error> {
    run_streams_with(streams, engine, stop, end, clock, on_progress, &mut |b, f| b.spawn(f))
}

fn run_streams_with<C: Clock + Clone + Send + 'static>(
    streams: &[Stream],
    engine: EngineKind,
    stop: Arc<AtomicBool>,
    end: Arc<EndEarly>,
    clock: C,
    on_progress: &mut dyn FnMut(&Progress),
    spawn: &mut Spawner,
) -> Result<Vec<RunResult>, Error> {
    for st in streams {
        st.spec.validate()?;
        if st.targets.is_empty() {
            return Err(Error::invalid("no target: give a file, a block device or null"));
        }
        // Torn-write protection is the target's to give: asked of each before anything runs.
        if st.spec.engine_opts.atomic && st.spec.has_writes() {
            for t in st.targets {
                let Some(f) = t.file.as_ref() else { continue };
                let units = crate::backend::atomic::units(f)
                    .map_err(|e| Error::io(format!("asking {} for its torn-write limits (statx)", t.info.path), e))?;
                crate::backend::atomic::check_target(&t.info.path, units, st.spec, t.start)?;
            }
        }
    }
    if let Some(st) = streams.iter().find(|st| st.targets.len() % st.per_job() != 0) {
        let (n, k) = (st.targets.len(), st.per_job());
        return Err(Error::invalid(format!("{n} targets cannot be run {k} files per job")));
    }
    let n_jobs: usize = streams.iter().map(Stream::n_jobs).sum();
    let allowed = crate::affinity::allowed_cpus();
    let info = RunInfo { n_jobs, allowed: &allowed };
    let mut features: Vec<Box<dyn RunFeature>> = Vec::new();
    for prepare in FEATURES {
        features.extend(prepare(streams, &info)?);
    }
    // Each stream's spec as it runs: an `auto` pace resolved against the CPUs this run may use.
    let cpus = allowed.len().max(1);
    let spin_cpus: f64 = streams
        .iter()
        .map(|st| {
            let jobs = st.n_jobs() as u64;
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
    // fio's --status-interval: where jobs post their figures so far, and where each job is.
    let board = end.status_every().map(|_| Arc::new(status::StatusBoard::new(n_jobs)));
    let mut places: Vec<JobReport> = Vec::new();
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
        let stream_jobs = st.n_jobs() as u64;
        let per_job = st.per_job();
        let job_iops = resolved[si].job_iops(stream_jobs);
        // ACT's service threads all count their schedules from the same instant.
        let aligned = spec.rate.is_some_and(|r| r.aligned);
        // Each target its own jobs, or (fio's job over a file set) each group of `per_job`.
        for (gi, set) in st.targets.chunks(per_job).enumerate() {
            let (ti, t) = (gi * per_job, &set[0]);
            for j in 0..spec.jobs as u64 {
                let job_no = handles.len();
                let live = Arc::new(Live::default());
                lives.push(live.clone());
                // Jobs sharing a rate are spread evenly over one interval (unless aligned).
                let index = gi as u64 * spec.jobs as u64 + j;
                let trace = traces[si].as_ref().map(|files| files[ti].clone());
                // A replay ends when its target's share of the trace is done.
                let spec_arc = match &trace {
                    Some(t) => Arc::new(AccessSpec { io_size_bytes: Some(t.bytes()), ..(*spec_arc).clone() }),
                    None => spec_arc.clone(),
                };
                let (start, span) = spec.clone_region(t.start, t.span, j);
                let more_files = set[1..].iter().map(|t| spec.clone_region(t.start, t.span, j)).collect();
                let ctx = JobCtx {
                    spec: spec_arc,
                    job: ((si as u64) << 40) | (ti as u64 * 1_000_003 + j),
                    run_job: (job_no as u32, n_jobs as u32),
                    start,
                    span,
                    stop: stop.clone(),
                    end: end.clone(),
                    failed: failed.clone(),
                    live,
                    pace: job_iops.map(|iops| (iops, job_phase(aligned, index, stream_jobs))),
                    trace,
                    flow: None,
                    zones: None,
                    split: None,
                    more_files,
                    file_names: if set.len() > 1 {
                        set.iter().map(|t| t.info.path.clone()).collect()
                    } else {
                        Vec::new()
                    },
                    status: board.clone(),
                };
                let mut job = JobSetup { ctx, verify: None, cpu: None };
                let slot = JobSlot { stream: si, st, target: ti, j, job_no };
                features.iter_mut().for_each(|f| f.attach(&slot, &mut job));
                let files = match set.iter().filter_map(|t| t.file.as_ref().map(|f| f.try_clone())).collect() {
                    Ok(f) => f,
                    Err(e) => return abort(handles, Error::io("duplicating fd", e)),
                };
                // The metadata engines reach their files by name (they are not opened before).
                let names: Vec<String> =
                    if engine.is_meta() { set.iter().map(|t| t.info.path.clone()).collect() } else { Vec::new() };
                let kind = t.info.kind;
                let gate = gate.clone();
                let ends = EndsJob(finished.clone());
                let builder = std::thread::Builder::new().name(format!("drivelab-s{si}t{ti}j{j}"));
                let clock = clock.clone();
                places.push(JobReport::place(si, ti, job_no, job.ctx.start));
                let run = Box::new(move || {
                    let _ends = ends;
                    let JobSetup { ctx, verify, cpu } = job;
                    let (pinned, pin_notice) = crate::affinity::pin_job(job_no, cpu);
                    let (output, facts) = job_thread(&ctx, kind, (files, &names), engine, &gate, verify, clock);
                    if let Some(b) = ctx.status.as_deref() {
                        b.ended(job_no, output.report_copy());
                    }
                    ctx.live.done.store(true, Ordering::Relaxed);
                    let job_start = ctx.start;
                    JobReport { stream: si, target: ti, job_no, job_start, output, facts, pinned, pin_notice }
                });
                match spawn(builder, run) {
                    Ok(h) => handles.push(h),
                    Err(e) => return abort(handles, Error::io("starting a job thread", e)),
                }
            }
        }
    }

    features.iter_mut().for_each(|f| f.starting());
    let begin = gate.start(n_jobs).unwrap_or_else(now_ns);
    // A status report: each stream's result so far, from what every job posted, merged and
    // assembled as the final results are.
    let report = |board: &status::StatusBoard| -> Vec<RunResult> {
        let outs = board.collect(|j| !lives[j].done.load(Ordering::Relaxed), JobOutput::report_copy);
        let mut by_stream: Vec<Vec<JobReport>> = streams.iter().map(|_| Vec::new()).collect();
        for (p, out) in places.iter().zip(outs) {
            if let Some(output) = out {
                by_stream[p.stream]
                    .push(JobReport { output, ..JobReport::place(p.stream, p.target, p.job_no, p.job_start) });
            }
        }
        let reason = end.reason();
        let mut results = Vec::with_capacity(streams.len());
        for (i, (st, mut reports)) in streams.iter().zip(by_stream).enumerate() {
            let (m, u) = aggregate(&resolved[i], st.targets, engine, &mut reports, started_unix_ms, reason);
            results.push(crate::merge::assemble(m, u));
        }
        results
    };
    let status = board.as_deref().zip(end.status_every()).map(|(b, every)| (every, move || report(b)));
    follow(streams, &lives, &finished, begin, on_progress, status);
    let mut reports = Vec::new();
    for h in handles {
        reports.push(h.join().map_err(|_| Error::io("a job thread", std::io::Error::other("panicked")))?);
    }
    // A backend that could not be set up: no job ran (the gate stayed shut), nothing to keep. A
    // failure mid-run is an error of its job, kept with what every job measured.
    if let Some(f) = reports.iter().find_map(|r| r.output.failure.clone()) {
        return Err(Error::io("running the workload", std::io::Error::other(f)));
    }
    features.iter_mut().for_each(|f| f.ended(&mut reports));
    let mut by_stream: Vec<Vec<JobReport>> = streams.iter().map(|_| Vec::new()).collect();
    for r in reports {
        by_stream[r.stream].push(r);
    }
    let mut results = Vec::new();
    for (index, (st, mut reports)) in streams.iter().zip(by_stream).enumerate() {
        let (mut m, mut u) =
            aggregate(&resolved[index], st.targets, engine, &mut reports, started_unix_ms, end.reason());
        let mut s = StreamEnd { index, st, reports: &mut reports, m: &mut m, u: &mut u };
        features.iter_mut().for_each(|f| f.finish(&mut s));
        results.push(crate::merge::assemble(m, u));
    }
    Ok(results)
}

/// Report the progress of the jobs `lives` (of `streams`, in order) about every 250 ms from
/// `begin` until every job has ended (`finished`); with `status` (every N ns, and what makes a
/// report), each stream's result so far every N.
fn follow(
    streams: &[Stream],
    lives: &[Arc<Live>],
    finished: &Finished,
    begin: u64,
    on_progress: &mut dyn FnMut(&Progress),
    mut status: Option<(u64, impl FnMut() -> Vec<RunResult>)>,
) {
    // Each stream's jobs in `lives`, in order.
    let mut stream_jobs = Vec::with_capacity(streams.len());
    let mut first = 0;
    for st in streams {
        let n = st.n_jobs();
        stream_jobs.push(first..first + n);
        first += n;
    }
    let mut last = (begin, 0u64, 0u64);
    // Each job thread's run-queue wait at the last tick (None: not read yet).
    let mut waited: Vec<Option<u64>> = vec![None; lives.len()];
    let limit =
        streams.iter().filter_map(|st| st.spec.time_ns.map(|t| t + st.spec.ramp_ns + st.spec.start_delay_ns)).max();
    let done =
        |r: &std::ops::Range<usize>| lives[r.start..r.end].iter().filter(|l| l.done.load(Ordering::Relaxed)).count();
    let mut next_status = status.as_ref().map(|(every, _)| begin.saturating_add(*every));
    let tick = |now: u64, due: Option<u64>| {
        let ns = due.map_or(250_000_000, |d| d.saturating_sub(now).clamp(1_000_000, 250_000_000));
        Duration::from_nanos(ns)
    };
    while !finished.wait(lives.len(), tick(now_ns(), next_status)) {
        let now = now_ns();
        let report = match (&mut status, next_status) {
            (Some((every, make)), Some(due)) if now >= due => {
                next_status = Some(due.saturating_add(*every).max(now));
                Some(make())
            }
            _ => None,
        };
        let ops: u64 = lives.iter().map(|l| l.ops.load(Ordering::Relaxed)).sum();
        let bytes: u64 = lives.iter().map(|l| l.bytes.load(Ordering::Relaxed)).sum();
        let dt = (now - last.0) as f64 / 1e9;
        let cpu_wait_pct = cpu_wait(lives, &mut waited, now - last.0);
        let p = Progress {
            elapsed_ns: now.saturating_sub(begin),
            remaining_ns: limit.map(|l| l.saturating_sub(now.saturating_sub(begin))),
            iops: ops.saturating_sub(last.1) as f64 / dt,
            bw_bytes_per_s: bytes.saturating_sub(last.2) as f64 / dt,
            p99_ns: lives.iter().map(|l| l.p99_ns.load(Ordering::Relaxed)).max().unwrap_or(0),
            cpu_wait_pct,
            ramping: !lives.iter().all(|l| l.measuring.load(Ordering::Relaxed)),
            stopped_by_error: lives.iter().any(|l| l.stopped_by_error.load(Ordering::Relaxed)),
            ops,
            bytes,
            clat_sum_ns: lives.iter().map(|l| l.clat_sum_ns.load(Ordering::Relaxed)).fold(0, u64::saturating_add),
            streams_done: stream_jobs.iter().filter(|r| done(r) == r.len()).count(),
            stream_jobs: stream_jobs.iter().map(|r| (done(r), r.len())).collect(),
            status: report,
        };
        last = (now, ops, bytes);
        on_progress(&p);
    }
}

/// The share of the last `dt_ns` the running job threads waited for a CPU, on average: each
/// thread's run-queue wait since the last tick (`waited`, updated), over the threads read at
/// both ticks. None when no thread was.
fn cpu_wait(lives: &[Arc<Live>], waited: &mut [Option<u64>], dt_ns: u64) -> Option<f64> {
    let (mut sum, mut n) = (0u64, 0u64);
    for (l, last) in lives.iter().zip(waited.iter_mut()) {
        let tid = l.tid.load(Ordering::Relaxed);
        let now = (tid != 0 && !l.done.load(Ordering::Relaxed)).then(|| crate::clock::task_runq_wait_ns(tid)).flatten();
        if let (Some(a), Some(b)) = (*last, now) {
            sum += b.saturating_sub(a);
            n += 1;
        }
        *last = now;
    }
    (n > 0 && dt_ns > 0).then(|| (sum as f64 / n as f64 / dt_ns as f64 * 100.0).min(100.0))
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

/// One job thread (pinned as asked): build its backend, wait at the start gate with everyone, run
/// (reading the time from `clock`).
fn job_thread<C: Clock>(
    ctx: &JobCtx,
    kind: TargetKind,
    (files, names): (Vec<std::fs::File>, &[String]),
    engine: EngineKind,
    gate: &StartGate,
    verify: Option<JobVerify>,
    clock: C,
) -> (JobOutput, JobFacts) {
    // SAFETY: gettid has no preconditions.
    ctx.live.tid.store(unsafe { libc::gettid() } as u32, Ordering::Relaxed);
    let spec = ctx.spec.clone();
    // A trim of several ranges holds them in its slot (16 bytes each), whatever its block size.
    let slot_bytes = spec.max_bs().max(u64::from(spec.trim_ranges()) * crate::backend::DSM_RANGE_BYTES as u64);
    let mut pool = BufferPool::new(spec.qd as usize, slot_bytes as usize);
    pool.fill(spec.data, spec.seed ^ ctx.job);
    if let Some(bytes) = spec.buffer_pattern() {
        pool.fill_repeating(&bytes);
    }
    /// Wait at the gate with everyone, then run the job loop on the backend.
    struct Job<'a, C> {
        ctx: &'a JobCtx,
        gate: &'a StartGate,
        verify: Option<JobVerify>,
        clock: C,
    }
    impl<C: Clock> WithBackend for Job<'_, C> {
        type Out = (JobOutput, JobFacts);
        fn run<B: Backend>(self, b: &mut B) -> Self::Out {
            // fio's prioclass/prio: the thread's own priority, set before any I/O.
            if let Some(p) = self.ctx.spec.prio.as_ref().filter(|p| p.job != 0) {
                if let Err(e) = crate::ioprio::set_thread(p.job) {
                    let (class, level) = crate::spec::prio::parts(p.job);
                    return self.failed(format!(
                        "ioprio_set to class {class} level {level} failed: {e} (the real-time class needs root or \
                         CAP_SYS_ADMIN)"
                    ));
                }
            }
            let Some(t0) = self.gate.arrive(true) else {
                return (JobOutput::default(), JobFacts::default());
            };
            let helper0 = b.helper_cpu_ns();
            let mut out = run_job_on(self.ctx, b, &self.clock, t0, self.verify);
            out.helper_cpu_ns = helper0.zip(b.helper_cpu_ns()).map(|(a, z)| z.saturating_sub(a));
            (out, JobFacts { ring: b.ring_facts(), looks_before_sleep: b.looks_before_sleep() })
        }
        fn failed(self, why: String) -> Self::Out {
            self.gate.arrive(false);
            (JobOutput { failure: Some(why), ..Default::default() }, JobFacts::default())
        }
    }
    let split_tag = ctx.split.as_ref().map_or(0, |t| crate::split::user_data_tag(t.job));
    let wiring = Wiring { qd: spec.qd, split_tag };
    with_backend(engine, &spec.engine_opts, wiring, kind, files, names, pool, Job { ctx, gate, verify, clock })
}

/// The host's online cores: the machine the CPU share is "of". Not this process's affinity mask
/// (`available_parallelism`), which under `mpirun` binds each rank to one core and made two
/// ranks' CPU read "of 1 cores" on a 2-core host.
fn host_cores() -> u32 {
    // SAFETY: sysconf reads a system value and touches no memory of ours.
    let online = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    if online > 0 {
        return u32::try_from(online).unwrap_or(u32::MAX);
    }
    std::thread::available_parallelism().map(|n| n.get() as u32).unwrap_or(1)
}

/// A stream's jobs as one measurement (each job's output as a [`Measurement`], merged by the one
/// merge; each job's own kept beside, with several) and what is not measured of it.
fn aggregate(
    spec: &AccessSpec,
    targets: &[OpenTarget],
    engine: EngineKind,
    reports: &mut [JobReport],
    started_unix_ms: u64,
    end_reason: Option<EndReason>,
) -> (Measurement, crate::merge::Unmeasured) {
    let cores = host_cores();
    let per_job = spec.files.each();
    // fio's logs: each job's, numbered among its target's jobs.
    let mut io_logs = crate::iolog::Logs::new();
    let mut per_target = vec![0u64; targets.len()];
    for r in reports.iter_mut() {
        let job = per_target[r.target];
        per_target[r.target] += 1;
        if let Some(mut l) = r.output.io_log.take() {
            (l.target, l.job) = (r.target, job);
            io_logs.push((0, Arc::new(l)));
        }
    }
    let job_iops = spec.job_iops(reports.len() as u64);
    let parts: Vec<Measurement> = reports
        .iter()
        .map(|r| {
            // A file set's job: its files' paths, as fio names them (`a:b`).
            let set = &targets[r.target..(r.target + per_job).min(targets.len())];
            let path = match set {
                [one] => std::borrow::Cow::Borrowed(one.info.path.as_str()),
                _ => set.iter().map(|t| t.info.path.as_str()).collect::<Vec<_>>().join(":").into(),
            };
            let at = JobPlace {
                target_path: &path,
                target_index: r.target,
                job_iops,
                thresholds: spec.thresholds_ns.len(),
                cores,
                job: r.job_no as u64,
                end_reason,
            };
            Measurement::of_job(&r.output, &at)
        })
        .collect();
    let mut measurement = crate::measurement::merge::merge_all(&parts).unwrap_or_default();
    if parts.len() > 1 {
        // Each job's own (fio's numjobs clones: one entry each without group_reporting).
        let jobs = reports.iter().zip(parts).map(|(r, m)| JobPart { at: r.job_no as u64, m });
        measurement.kinds.per_job = Jobs(jobs.collect());
    }
    let uses_null = targets.iter().all(|t| t.info.kind == TargetKind::Null);
    let ring = reports.iter().find_map(|r| r.facts.ring.clone());
    // Any job that looked: the run's CPU figures hold its looking.
    let looks = reports.iter().filter_map(|r| r.facts.looks_before_sleep).reduce(|a, b| a || b);
    let facts = EngineFacts {
        backend: if uses_null { "null".into() } else { engine.name().into() },
        ring: ring.clone(),
        looks_before_sleep: looks,
        job_cpus: Vec::new(),
    };
    let infos = targets.iter().map(|t| t.info.clone()).collect();
    let mut u = crate::merge::Unmeasured::new(spec.clone(), facts, infos, started_unix_ms);
    // What the ring was asked for and the kernel refused: said, never silently dropped.
    u.notices = ring
        .iter()
        .flat_map(|r| r.refused.iter())
        .map(|why| format!("io_uring refused {why}; running without it"))
        .collect();
    u.io_logs = io_logs;
    (measurement, u)
}

mod disks;
mod feature;
mod flow;
mod gate;
mod peer;
mod pins;
mod replay;
mod split;
pub(crate) mod status;
#[cfg(test)]
mod tests;
mod verify;
mod zbd;

use feature::{JobSetup, JobSlot, RunFeature, RunInfo, StreamEnd, FEATURES};
use gate::{EndsJob, Finished, StartGate};
