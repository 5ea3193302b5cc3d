//! The per-job loop: keep `qd` I/Os in flight on one backend, measure each one, roll per-second
//! intervals, stop on time, bytes, an error or a stop request — and always drain what is in
//! flight before returning, because the kernel may still be writing into our buffers.
//!
//! Hot path rules: no allocation, no lock, no formatting, no floating point per I/O. The clock is
//! read around each submit batch and once after each wait; every I/O of a batch shares the
//! submit stamps and every completion of a reap pass shares the completion stamp. As fio's
//! `lat`, an I/O's latency starts just before its submit call; for asynchronous backends its
//! `clat` (from the call's return) and the call's `slat` are recorded beside it (`stamps.rs`).
//! Time is read through a [`Clock`] the loop is generic over: the machine's, or a test's.
//!
//! With a fixed rate (`spec.rate`) the loop is open: a slot is filled only when the next
//! intended issue time from [`Pace`](crate::pace::Pace) has come, the thread sleeps (in the ring's wait, with a
//! timeout) until then, and each completion is measured twice: from its submission (service time,
//! fio's clat, in `read`/`write`) and from its intended time (response time, in `resp_*`). The
//! difference is the lag, recorded at submission; a job whose lag passes `max_lag` gives up.
//!
//! [`run_job_on`] is a short loop over parts with one job each, one file each:
//! - `stamps.rs` (`stamp_*`, `Slot`): every clock read that feeds a latency, in one place;
//! - `schedule.rs` (`Schedule`): what may be issued when (closed loop, or open loop through
//!   `Pace`) and the fsync cadence;
//! - `window.rs` (`Window`): ramp, measurement start, per-second ticks, the end by time or bytes;
//! - `recorder.rs` (`Recorder`): per-second intervals (rolled into the series and the totals
//!   without cloning: one scratch histogram is reused, the saved sparse second is the only
//!   allocation), latency threshold counters, and the job's output;
//! - `queue.rs` (`Queue`): slots, free list, the batch being built, submit in chunks, reap.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

mod dedupe;
mod files;
mod flow;
mod lat_target;
mod queue;
mod recorder;
mod schedule;
mod split;
mod stamps;
mod verify;
mod window;

pub use flow::FlowGroup;
use queue::Queue;
pub(crate) use recorder::over_counts;
use recorder::Recorder;
use schedule::{Schedule, SpinWindow};
use stamps::stamp_completion;
pub use verify::{JobVerify, VerifyOutput};
use window::Window;

use crate::backend::Backend;
use crate::clock::Clock;
use crate::gen::Op;
use crate::hist::Histogram;
use crate::result::ErrorStat;
use crate::spec::{AccessSpec, PaceMode, MAX_THRESHOLDS};

const SECOND: u64 = 1_000_000_000;
/// An open-loop I/O issued more than this after its intended time counts as late.
pub const LATE_NS: u64 = 1_000_000;
/// Live counters one job publishes for the progress display (relaxed stores once per reap pass,
/// on a cache line of its own).
#[repr(align(128))]
#[derive(Default)]
pub struct Live {
    pub ops: AtomicU64,
    pub bytes: AtomicU64,
    /// The completion latencies (fio's clat: lat for a synchronous backend) of `ops`, summed,
    /// ns: what fio's `steadystate=lat` samples each second.
    pub clat_sum_ns: AtomicU64,
    /// p99 of the last whole second, in ns.
    pub p99_ns: AtomicU64,
    pub measuring: AtomicBool,
    /// An I/O error stopped the job (so an MPI rank can stop the others mid-run).
    pub stopped_by_error: AtomicBool,
    /// The job has ended (its thread is done).
    pub done: AtomicBool,
    /// The job thread's id (`gettid`; 0 until it starts): where the watcher reads how long it
    /// waited for a CPU so far (/proc/self/task/TID/schedstat).
    pub tid: std::sync::atomic::AtomicU32,
}

/// What an error was recorded against (`ErrorStat::op`): an I/O of the target, its fsync, or a
/// step of drivelab's own machinery that failed mid-run (the run stops there, and what was
/// measured until then is kept with the error).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorOp {
    Io(Op),
    Fsync,
    /// Handing I/Os to the kernel (io_uring_enter) failed.
    Submit,
    /// Waiting for completions failed.
    Wait,
    /// Writing `--journal` failed.
    Journal,
}

impl ErrorOp {
    /// Its name in `ErrorStat::op`.
    pub fn name(self) -> &'static str {
        match self {
            ErrorOp::Io(Op::Read) => "read",
            ErrorOp::Io(Op::Write) => "write",
            ErrorOp::Io(Op::Trim) => "trim",
            ErrorOp::Fsync => "fsync",
            ErrorOp::Submit => "submit",
            ErrorOp::Wait => "wait",
            ErrorOp::Journal => "journal",
        }
    }
}

/// A failure of drivelab's machinery mid-run: which step, and what the system said.
pub(crate) struct Failure(pub ErrorOp, pub std::io::Error);

/// What one job needs to run.
pub struct JobCtx {
    pub spec: Arc<AccessSpec>,
    pub job: u64,
    pub start: u64,
    pub span: u64,
    pub stop: Arc<AtomicBool>,
    /// A clean early end asked for (see [`crate::run::EndEarly`]).
    pub end: Arc<crate::run::EndEarly>,
    /// Shared by every job of the run: set by the first job that stops on an error (an I/O's,
    /// or a failure of the machinery); every other job stops at its next loop turn, keeping
    /// what it measured.
    pub failed: Arc<AtomicBool>,
    pub live: Arc<Live>,
    /// Open loop: this job's I/Os per second and its phase (0..1 of an interval).
    pub pace: Option<(f64, f64)>,
    /// A replay: the trace of this job's target (its I/Os, and with `pace` their times).
    pub trace: Option<Arc<crate::replay::FileTrace>>,
    /// fio's flow: the shared counter of this job's flow id (with a `flow` weight).
    pub flow: Option<Arc<FlowGroup>>,
    /// This job's number among every job of the run, and their count (fio's thread number:
    /// `dedupe`'s global working set spans them).
    pub run_job: (u32, u32),
    /// fio's `zonemode=zbd`: the emulated zones of this job's target (shared by its jobs).
    pub zones: Option<Arc<crate::zbd::ZoneTable>>,
    /// `--latency-split`: this job's records in the kernel's stamp table.
    pub split: Option<crate::split::JobTable>,
    /// fio's job over several files (`spec.files`): the regions (`start`, `span`) of its other
    /// files, in order after the first's (`start`, `span` above). Empty: one file.
    pub more_files: Vec<(u64, u64)>,
    /// A file set's paths, in order (empty for a job of one file): an I/O error names its file.
    pub file_names: Vec<String>,
    /// fio's `--status-interval`: where the job posts its figures so far when asked.
    pub status: Option<Arc<crate::run::status::StatusBoard>>,
}

/// One second (or the last partial second) of one job.
#[derive(Clone, Debug, Default)]
pub struct SecondStats {
    pub dur_ns: u64,
    pub read_ops: u64,
    pub write_ops: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub trim_ops: u64,
    pub trim_bytes: u64,
    pub lat_sum_ns: u128,
    /// Latency buckets of all ops in this second (sparse index, count).
    pub buckets: Vec<(u16, u32)>,
    /// Open loop: response-time buckets of all ops in this second (sparse index, count).
    pub resp_buckets: Vec<(u16, u32)>,
    /// With thresholds: I/Os whose response time was at or over exactly k thresholds, by k.
    pub over_threshold: [u32; MAX_THRESHOLDS + 1],
    /// Open loop with thresholds: the same for lat (from just before the submit call: the
    /// service time ACT judges), by k.
    pub lat_over_threshold: [u32; MAX_THRESHOLDS + 1],
    /// Open loop with thresholds: the same for the target's share of the response time (the
    /// response time had drivelab issued every I/O on time: `Slot::target_response_ns`).
    pub ready_over_threshold: [u32; MAX_THRESHOLDS + 1],
    /// Open loop: the largest lag of an I/O submitted in this second.
    pub lag_max_ns: u64,
    /// Open loop: the largest of drivelab's own lateness (see `JobOutput::tool_lag`).
    pub tool_lag_max_ns: u64,
}

/// What a job hands back.
#[derive(Default)]
pub struct JobOutput {
    pub read: Histogram,
    pub write: Histogram,
    pub sync: Histogram,
    /// Asynchronous backends: completion latency from the submit call's return (fio's clat).
    pub clat_read: Histogram,
    pub clat_write: Histogram,
    /// Asynchronous backends: each measured submit call's duration (fio's slat, per call).
    pub slat: Histogram,
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// Trims: discards or punched holes.
    pub trim: Histogram,
    pub trim_bytes: u64,
    /// From the start of measurement to the last completion.
    pub window_ns: u64,
    pub cpu_usr_ns: u64,
    pub cpu_sys_ns: u64,
    /// Time the job thread was runnable but waiting for a CPU.
    pub runq_wait_ns: u64,
    pub series: Vec<SecondStats>,
    pub errors: Vec<ErrorStat>,
    /// An error stopped the job: its own (then in `errors`), or another job's (`stopped_by_peer`).
    pub stopped_by_error: bool,
    /// Another job of the run stopped on an error, and this one stopped with it.
    pub stopped_by_peer: bool,
    pub interrupted: bool,
    /// The job stopped because a clean early end was asked (`JobCtx::end`).
    pub ended: bool,
    /// The backend could not be set up (io_uring refused the ring): the job never ran. A
    /// failure mid-run is an error in `errors` instead, beside what was measured.
    pub failure: Option<String>,
    /// fio's `zonemode=zbd`: the job ended with nothing left to do in its zones (a read job on
    /// zones holding no data below their write pointers), as fio's job ends.
    pub zbd_ended: bool,
    /// Open loop: response times (from the intended issue time).
    pub resp_read: Histogram,
    pub resp_write: Histogram,
    /// Open loop: how late each measured I/O was submitted.
    pub lag: Histogram,
    /// Open loop: how late drivelab itself submitted each measured I/O: from the later of its
    /// intended time and the moment a queue slot was free (the rest of `lag` is the target
    /// holding every slot).
    pub tool_lag: Histogram,
    /// Open loop: I/Os submitted more than [`LATE_NS`] late.
    pub late_ops: u64,
    /// Open loop: the job stopped because its lag passed `max_lag`.
    pub gave_up: bool,
    /// Open loop: how far behind its schedule the job was when it stopped.
    pub final_lag_ns: u64,
    /// Open loop: time spent spinning towards intended times (hybrid and spin pacing).
    pub spin_ns: u64,
    /// io_uring SQPOLL: CPU time of the ring's kernel submission thread over the job (ramp
    /// included).
    pub helper_cpu_ns: Option<u64>,
    /// With `verify`: what was stamped and checked, and the job's map back.
    pub verify: Option<VerifyOutput>,
    /// With fio's logging options (`spec.io_log`): what the job recorded for its log files.
    pub io_log: Option<crate::iolog::JobLog>,
    /// With fio's latency target (`spec.lat_target`): the depth the job's search ended at.
    pub latency_depth: Option<u32>,
    /// The job thread's context switches and page faults over the measured part (fio's `ctx`,
    /// `majf`, `minf`).
    pub usage: crate::usage::ThreadUsage,
    /// fio's depth distributions over the measured part, as counts.
    pub depths: crate::usage::DepthCounts,
    /// `--latency-split`: where each measured I/O's lat went.
    pub split: Option<crate::measurement::split::Split>,
    /// Kinds of measurement the job records as they are (see `measurement::kinds`); those above
    /// are put into it by `Measurement::of_job`.
    pub kinds: crate::measurement::kinds::Kinds,
}

impl JobOutput {
    /// A copy of the figures a report shows (`--status-interval`): everything but verify's
    /// maps, the I/O log and the latency split, which only the end gives.
    pub(crate) fn report_copy(&self) -> JobOutput {
        JobOutput {
            read: self.read.clone(),
            write: self.write.clone(),
            sync: self.sync.clone(),
            clat_read: self.clat_read.clone(),
            clat_write: self.clat_write.clone(),
            slat: self.slat.clone(),
            trim: self.trim.clone(),
            resp_read: self.resp_read.clone(),
            resp_write: self.resp_write.clone(),
            lag: self.lag.clone(),
            tool_lag: self.tool_lag.clone(),
            series: self.series.clone(),
            errors: self.errors.clone(),
            failure: self.failure.clone(),
            kinds: self.kinds.clone(),
            verify: None,
            io_log: None,
            split: None,
            ..*self
        }
    }
}

/// [`run_job_on`] on the machine's clock (the tests' shorthand).
#[cfg(test)]
pub(crate) fn run_job<B: Backend>(ctx: &JobCtx, backend: &mut B, begin: u64, verify: Option<JobVerify>) -> JobOutput {
    run_job_on(ctx, backend, &crate::clock::Monotonic, begin, verify)
}

/// Run one job to its end on `backend`, using its buffer pool (one slot per queue entry), from
/// `begin` (the start every job of the run shares; a job that is early waits for it, one that
/// is late finds its first I/Os already due), reading the time from `clock` (the caller's: see
/// `crate::clock::Clock`). What is still in flight after a failure of the machinery is the
/// backend's to drain.
pub(crate) fn run_job_on<B: Backend, C: Clock>(
    ctx: &JobCtx,
    backend: &mut B,
    clock: &C,
    begin: u64,
    verify: Option<JobVerify>,
) -> JobOutput {
    let spec = &*ctx.spec;
    // fio's startdelay: the job's window, ramp and schedule all count from its own start.
    let begin = begin.saturating_add(spec.start_delay_ns);
    if spec.start_delay_ns > 0 {
        if let Some(out) = wait_start(ctx, begin, clock) {
            return out;
        }
    }
    if ctx.pace.is_none() {
        // Open loop waits for its first intended time in the loop, as for every other.
        clock.sleep_until(begin);
    }
    let mut sched = Schedule::new(ctx, begin);
    let mut window = Window::new(spec, begin);
    let mut rec = Recorder::new(spec, sched.paced(), !B::SUBMIT_COMPLETES, window.run_ns / SECOND);
    rec.file_names = ctx.file_names.clone();
    if let Some(log) = rec.log.as_mut() {
        log.start(window.start);
    }
    let mut q = Queue::new::<B>(ctx, verify);
    if let Some(s) = q.split.as_mut() {
        s.start = window.start;
    }
    if let Some(l) = q.lat.as_mut() {
        l.start(begin);
    }
    let mut stopping = false;
    let mut last_t = begin;
    ctx.live.measuring.store(window.measuring, Ordering::Relaxed);
    let data_only = matches!(spec.sync, crate::spec::SyncMode::Fdatasync { .. });
    let mut status_seen = 0;

    loop {
        if !stopping && !q.fill(&mut sched, &mut window, backend.pool_mut(), clock) {
            stopping = true;
        }
        let t = if q.idle() {
            if sched.sync_due() && !rec.out.interrupted && !rec.out.stopped_by_error {
                let (synced, stops) = fsync(backend, &mut rec, &window, spec.continue_on_error, data_only, clock);
                if stops {
                    stop_on_error(ctx, &mut rec);
                }
                stopping |= stops;
                sched.synced();
                // With a journal: every write acknowledged before the fsync is now durable.
                if let Err(e) = if synced { q.journal_durable() } else { Ok(()) } {
                    rec.machinery_failed(ErrorOp::Journal, &e);
                    stop_on_error(ctx, &mut rec);
                    break;
                }
                continue;
            }
            if !stopping && sched.think_due() {
                // Think time: everything in flight has completed; stall before issuing more.
                let t = think(sched.think.unwrap_or_default(), window.wake_limit(), &mut rec, clock);
                sched.thought();
                t
            } else {
                match sched.next_due(&q.free) {
                    // fio's flow: held back with nothing in flight (a paced I/O already due
                    // too: it is late); pause, then try again.
                    _ if !stopping && q.flow_held => {
                        q.flow_pause();
                        clock.now()
                    }
                    // Open loop: idle until the next intended issue time (or the end of the run).
                    Some(due) if !stopping => {
                        wait_idle(sched.mode, &mut sched.spin, due.min(window.wake_limit()), &mut rec, clock)
                    }
                    _ => break,
                }
            }
        } else {
            match exchange(
                &mut q,
                backend,
                &mut sched,
                &mut rec,
                window.measuring,
                stopping,
                spec.continue_on_error,
                clock,
            ) {
                Ok((done, error_stops)) => {
                    if error_stops && !stopping {
                        stop_on_error(ctx, &mut rec);
                        stopping = true;
                    }
                    done
                }
                Err(Failure(op, e)) => {
                    // What is in flight is the backend's to drain; what was measured is kept.
                    rec.machinery_failed(op, &e);
                    stop_on_error(ctx, &mut rec);
                    break;
                }
            }
        };
        last_t = t;
        // fio's fill_device: the file system is full, the job's end (not an error).
        stopping |= rec.full;
        stopping |= rec.tick(window.advance(t), window.start, &ctx.live);
        stopping |= rec.check_schedule(sched.behind(t), sched.max_lag_ns, stopping);
        if !stopping {
            if ctx.failed.load(Ordering::Relaxed) {
                // Another job stopped on an error: the run stops with it.
                stopping = true;
                rec.out.stopped_by_error = true;
                rec.out.stopped_by_peer = true;
            } else if ctx.stop.load(Ordering::Relaxed) {
                stopping = true;
                rec.out.interrupted = true;
            } else if ctx.end.asked_by((ctx.job >> 40) as usize) {
                stopping = true;
                rec.out.ended = true;
            }
        }
        if !stopping {
            stopping = lat_step(ctx, &mut q, &mut window, &mut rec, t);
        }
        // fio's --status-interval: the figures so far, when the watcher asks (one load a turn).
        if let Some(b) = ctx.status.as_deref() {
            if let Some(generation) = b.wanted(status_seen) {
                status_seen = generation;
                b.post(ctx.run_job.0 as usize, generation, rec.snapshot(&window, t));
            }
        }
    }
    // fio's end_fsync: the writes made durable once the job's I/O is done (nothing in flight).
    // As in fio, it is waited for but in no latency figure (fio's `sync` counts none).
    if spec.end_fsync && spec.has_writes() && q.idle() && !rec.out.interrupted && !rec.out.stopped_by_error {
        if let Err(e) = backend.fsync(false) {
            rec.failed(ErrorOp::Fsync, None, 0, -e.raw_os_error().unwrap_or(libc::EIO), spec.continue_on_error);
        }
    }
    let mut out = rec.finish(&window, last_t, &ctx.live);
    out.zbd_ended = q.exhausted;
    out.latency_depth = q.lat.as_ref().map(|l| l.qd);
    out.split = q.split.take().map(|s| s.finish());
    out.verify = q.verify.map(|v| v.finish());
    out
}

/// fio's startdelay: wait until `begin`, a few times a second looking whether the run stopped
/// meanwhile; then the output of a job that never started (None: it starts).
fn wait_start(ctx: &JobCtx, begin: u64, clock: &impl Clock) -> Option<JobOutput> {
    const LOOK_NS: u64 = 50_000_000;
    loop {
        let now = clock.now();
        if now >= begin {
            return None;
        }
        let mut out = JobOutput::default();
        if ctx.failed.load(Ordering::Relaxed) {
            (out.stopped_by_error, out.stopped_by_peer) = (true, true);
        } else if ctx.stop.load(Ordering::Relaxed) {
            out.interrupted = true;
        } else if ctx.end.asked_by((ctx.job >> 40) as usize) {
            out.ended = true;
        } else {
            clock.sleep_until(begin.min(now + LOOK_NS));
            continue;
        }
        return Some(out);
    }
}

/// fio's latency target, once per loop turn at `t`: the depth now allowed in flight, the
/// measurement started over when the depth is found; true when the job ends (the depth is found
/// and measured, or an I/O over the target at depth 1 is an error that stops it).
fn lat_step(ctx: &JobCtx, q: &mut Queue, window: &mut Window, rec: &mut Recorder, t: u64) -> bool {
    let Some(l) = q.lat.as_mut() else { return false };
    let mut stops = false;
    match l.step(t, q.inflight, window.measuring) {
        lat_target::Step::Go | lat_target::Step::Quiesce => {}
        lat_target::Step::Restart => {
            // fio resets its statistics: what was measured during the search is dropped.
            if window.measuring {
                window.restart_at(t);
                rec.restart_measurement();
                if let Some(s) = q.split.as_mut() {
                    s.restart(window.start);
                }
            }
        }
        lat_target::Step::Done => stops = true,
        lat_target::Step::Fatal { op, offset } => {
            if rec.failed(ErrorOp::Io(op), None, offset, -libc::ETIMEDOUT, ctx.spec.continue_on_error) {
                stop_on_error(ctx, rec);
                stops = true;
            }
        }
    }
    q.limit = l.limit();
    stops
}

/// This job stops on an error (its own, already recorded): say so, live and to every other job
/// of the run.
fn stop_on_error(ctx: &JobCtx, rec: &mut Recorder) {
    rec.out.stopped_by_error = true;
    ctx.live.stopped_by_error.store(true, Ordering::Relaxed);
    ctx.failed.store(true, Ordering::Relaxed);
}

/// Submit the batch, wait for a completion (open loop with a free slot: no later than the next
/// intended issue time), reap: the completion stamp and whether an I/O error stops the job, or
/// what failed in the machinery itself.
#[allow(clippy::too_many_arguments)]
fn exchange<B: Backend, C: Clock>(
    q: &mut Queue,
    backend: &mut B,
    sched: &mut Schedule,
    rec: &mut Recorder,
    measuring: bool,
    stopping: bool,
    continue_on_error: bool,
    clock: &C,
) -> Result<(u64, bool), Failure> {
    q.journal_intents().map_err(|e| Failure(ErrorOp::Journal, e))?;
    q.submit(backend, rec, measuring, clock).map_err(|e| Failure(ErrorOp::Submit, e))?;
    let waited = match sched.next_due(&q.free) {
        Some(due) if !stopping && !q.free.is_empty() => {
            let now = clock.now();
            match sched.mode {
                _ if due <= now => Ok(()),
                PaceMode::Sleep | PaceMode::Auto => backend.wait_timeout(1, due - now),
                PaceMode::Hybrid if due - now > sched.spin.ns() => {
                    let wake = due - sched.spin.ns();
                    let r = backend.wait_timeout(1, wake - now);
                    sched.spin.woke(wake, clock.now());
                    r
                }
                PaceMode::Hybrid | PaceMode::Spin => spin_poll(backend, due, rec, clock),
            }
        }
        _ => match q.completions_wanted() {
            0 => backend.poll().map(drop),
            n => backend.wait(n),
        },
    };
    waited.map_err(|e| Failure(ErrorOp::Wait, e))?;
    let done = stamp_completion(clock);
    let error_stops = q.reap(backend, done, rec, measuring, continue_on_error);
    let wrong_data_stops = q
        .after_reap(backend.pool_mut(), continue_on_error || rec.ignore.continues_verify())
        .map_err(|e| Failure(ErrorOp::Journal, e))?;
    Ok((done, error_stops || wrong_data_stops))
}

/// Open loop, nothing in flight: wait until `due` as `mode` says; the time after.
fn wait_idle(mode: PaceMode, spin: &mut SpinWindow, due: u64, rec: &mut Recorder, clock: &impl Clock) -> u64 {
    match mode {
        PaceMode::Sleep | PaceMode::Auto => clock.sleep_until(due),
        PaceMode::Hybrid => {
            if due > clock.now() + spin.ns() {
                let wake = due - spin.ns();
                clock.sleep_until(wake);
                spin.woke(wake, clock.now());
            }
            spin_until(due, rec, clock);
        }
        PaceMode::Spin => spin_until(due, rec, clock),
    }
    clock.now()
}

/// fio's thinktime: spin its first `spin_ns`, sleep the rest, never past `limit` (the end of the
/// ramp or of the run); the time after.
fn think(t: crate::spec::Think, limit: u64, rec: &mut Recorder, clock: &impl Clock) -> u64 {
    let start = clock.now();
    let end = (start + t.ns).min(limit.max(start));
    spin_until((start + t.spin_ns).min(end), rec, clock);
    clock.sleep_until(end);
    clock.now()
}

/// Spin until `due`, counting the time spun.
fn spin_until(due: u64, rec: &mut Recorder, clock: &impl Clock) {
    let t0 = clock.now();
    let mut now = t0;
    while now < due {
        std::hint::spin_loop();
        now = clock.now();
    }
    rec.out.spin_ns += now - t0;
}

/// Spin until `due` or until a completion can be taken, counting the time spun.
fn spin_poll<B: Backend>(backend: &mut B, due: u64, rec: &mut Recorder, clock: &impl Clock) -> std::io::Result<()> {
    let t0 = clock.now();
    let mut now = t0;
    while now < due {
        if backend.poll()? {
            break;
        }
        std::hint::spin_loop();
        now = clock.now();
    }
    rec.out.spin_ns += now.max(t0) - t0;
    Ok(())
}

/// The fsync that is due (nothing in flight): timed when measuring; whether it succeeded, and
/// whether its failure stops the job.
fn fsync<B: Backend>(
    backend: &mut B,
    rec: &mut Recorder,
    window: &Window,
    continue_on_error: bool,
    data_only: bool,
    clock: &impl Clock,
) -> (bool, bool) {
    let t0 = clock.now();
    let r = backend.fsync(data_only);
    let t1 = clock.now();
    if window.measuring {
        rec.out.sync.record(t1 - t0);
    }
    if let Err(e) = r {
        // An fsync has no offset: recorded at 0, as the fsync it was.
        let stops = rec.failed(ErrorOp::Fsync, None, 0, -e.raw_os_error().unwrap_or(libc::EIO), continue_on_error);
        return (false, stops);
    }
    (true, false)
}

#[cfg(test)]
mod delay_tests;
#[cfg(test)]
mod log_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod verify_tests;
