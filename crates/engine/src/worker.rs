//! The per-job loop: keep `qd` I/Os in flight on one backend, measure each one, roll per-second
//! intervals, stop on time, bytes, an error or a stop request — and always drain what is in
//! flight before returning, because the kernel may still be writing into our buffers.
//!
//! Hot path rules: no allocation, no lock, no formatting, no floating point per I/O. The clock is
//! read around each submit batch and once after each wait; every I/O of a batch shares the
//! submit stamp and every completion of a reap pass shares the completion stamp. Like fio, an
//! async I/O's latency starts when the submit call returns (fio's clat); a synchronous one's
//! when the call starts.
//!
//! With a fixed rate (`spec.rate`) the loop is open: a slot is filled only when the next
//! intended issue time from [`Pace`] has come, the thread sleeps (in the ring's wait, with a
//! timeout) until then, and each completion is measured twice: from its submission (service time,
//! fio's clat, in `read`/`write`) and from its intended time (response time, in `resp_*`). The
//! difference is the lag, recorded at submission; a job whose lag passes `max_lag` gives up.
//!
//! [`run_job`] is a short loop over parts with one job each:
//! - latency stamps (`stamp_*`, `Slot`): every clock read that feeds a latency, in one place;
//! - `Schedule`: what may be issued when (closed loop, or open loop through [`Pace`]) and the
//!   fsync cadence;
//! - `Window`: ramp, measurement start, per-second ticks, the end by time or bytes;
//! - `Recorder`: per-second intervals (rolled into the series and the totals without cloning:
//!   one scratch histogram is reused, the saved sparse second is the only allocation) and the
//!   job's output;
//! - `Queue`: slots, free list, the batch being built, submit in chunks, reap.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use crate::backend::{Backend, Pending};
use crate::clock::{now_ns, sleep_until, thread_cpu_ns, thread_runq_wait_ns};
use crate::gen::{Generator, Op};
use crate::hist::Histogram;
use crate::pace::Pace;
use crate::pattern::{self, BufferPool, WRITE_TAG};
use crate::result::ErrorStat;
use crate::spec::{AccessSpec, Arrivals, SyncMode, MAX_THRESHOLDS};

const SECOND: u64 = 1_000_000_000;
/// An open-loop I/O issued more than this after its intended time counts as late.
pub const LATE_NS: u64 = 1_000_000;
/// Per-second counters of response times against the spec's thresholds: bucket k counts the
/// I/Os at or over exactly k thresholds (integer compares only, exact at every boundary).
#[derive(Clone, Copy, Debug, Default)]
struct Thresholds {
    ns: [u64; MAX_THRESHOLDS],
    n: usize,
}

impl Thresholds {
    fn new(list: &[u64]) -> Thresholds {
        let mut t = Thresholds::default();
        for (slot, &v) in t.ns.iter_mut().zip(list) {
            *slot = v;
        }
        t.n = list.len().min(MAX_THRESHOLDS);
        t
    }

    /// How many thresholds `ns` is at or over (thresholds ascend).
    #[inline(always)]
    fn bucket(&self, ns: u64) -> usize {
        let mut k = 0;
        while k < self.n && ns >= self.ns[k] {
            k += 1;
        }
        k
    }
}

/// Counts at or over each threshold from per-bucket counts (`buckets[k]`: at or over exactly k).
pub(crate) fn over_counts(buckets: &[u32; MAX_THRESHOLDS + 1], n: usize, into: &mut [u64]) {
    let mut above = 0u64;
    for k in (1..=n).rev() {
        above += buckets[k] as u64;
        into[k - 1] += above;
    }
}

/// Live counters one job publishes for the progress display (relaxed stores once per reap pass,
/// on a cache line of its own).
#[repr(align(128))]
#[derive(Default)]
pub struct Live {
    pub ops: AtomicU64,
    pub bytes: AtomicU64,
    /// p99 of the last whole second, in ns.
    pub p99_ns: AtomicU64,
    pub measuring: AtomicBool,
}

/// What one job needs to run.
pub struct JobCtx {
    pub spec: Arc<AccessSpec>,
    pub job: u64,
    pub start: u64,
    pub span: u64,
    pub stop: Arc<AtomicBool>,
    pub live: Arc<Live>,
    /// Open loop: this job's I/Os per second and its phase (0..1 of an interval).
    pub pace: Option<(f64, f64)>,
}

/// One second (or the last partial second) of one job.
#[derive(Clone, Debug, Default)]
pub struct SecondStats {
    pub dur_ns: u64,
    pub read_ops: u64,
    pub write_ops: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub lat_sum_ns: u128,
    /// Latency buckets of all ops in this second (sparse index, count).
    pub buckets: Vec<(u16, u32)>,
    /// Open loop: response-time buckets of all ops in this second (sparse index, count).
    pub resp_buckets: Vec<(u16, u32)>,
    /// With thresholds: I/Os whose response time was at or over exactly k thresholds, by k.
    pub over_threshold: [u32; MAX_THRESHOLDS + 1],
    /// Open loop: the largest lag of an I/O submitted in this second.
    pub lag_max_ns: u64,
}

/// What a job hands back.
#[derive(Default)]
pub struct JobOutput {
    pub read: Histogram,
    pub write: Histogram,
    pub sync: Histogram,
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// From the start of measurement to the last completion.
    pub window_ns: u64,
    pub cpu_usr_ns: u64,
    pub cpu_sys_ns: u64,
    /// Time the job thread was runnable but waiting for a CPU.
    pub runq_wait_ns: u64,
    pub series: Vec<SecondStats>,
    pub errors: Vec<ErrorStat>,
    pub stopped_by_error: bool,
    pub interrupted: bool,
    /// A failure of the machinery itself (io_uring_enter failing), not of an I/O.
    pub failure: Option<String>,
    /// Open loop: response times (from the intended issue time).
    pub resp_read: Histogram,
    pub resp_write: Histogram,
    /// Open loop: how late each measured I/O was submitted.
    pub lag: Histogram,
    /// Open loop: I/Os submitted more than [`LATE_NS`] late.
    pub late_ops: u64,
    /// Open loop: the job stopped because its lag passed `max_lag`.
    pub gave_up: bool,
    /// Open loop: how far behind its schedule the job was when it stopped.
    pub final_lag_ns: u64,
}

// ---------------------------------------------------------------------------------------------
// Latency stamps: where an I/O's service time and response time start and end. Every clock read
// that feeds a latency is here, so moving where latency starts is a change in this one place.
// ---------------------------------------------------------------------------------------------

/// The stamps of one I/O in flight.
#[derive(Clone, Copy)]
struct Slot {
    op: Op,
    len: u32,
    offset: u64,
    /// When it counts as issued (see [`stamp_before_submit`]).
    t_submit: u64,
    /// Open loop: when it was meant to be issued (0 in closed loop).
    t_intended: u64,
}

/// Read before a submit call: a synchronous backend's I/O starts when its call starts.
#[inline(always)]
fn stamp_before_submit<B: Backend>() -> u64 {
    if B::SUBMIT_COMPLETES {
        now_ns()
    } else {
        0
    }
}

/// The issue stamp shared by every I/O of one submit call: for an asynchronous backend, when
/// the call returns (fio's clat); for a synchronous one, when it started.
#[inline(always)]
fn stamp_after_submit<B: Backend>(before: u64) -> u64 {
    if B::SUBMIT_COMPLETES {
        before
    } else {
        now_ns()
    }
}

/// The completion stamp shared by every completion of one reap pass (read after the wait).
#[inline(always)]
fn stamp_completion() -> u64 {
    now_ns()
}

impl Slot {
    /// Service time: from the issue stamp to the completion stamp.
    #[inline(always)]
    fn service_ns(&self, done: u64) -> u64 {
        done - self.t_submit
    }
    /// Response time: from the intended issue time (open loop) to the completion stamp.
    #[inline(always)]
    fn response_ns(&self, done: u64) -> u64 {
        done.saturating_sub(self.t_intended)
    }
    /// Open loop: how late the I/O was issued.
    #[inline(always)]
    fn lag_ns(&self) -> u64 {
        self.t_submit.saturating_sub(self.t_intended)
    }
}

// ---------------------------------------------------------------------------------------------
// Schedule: what may be issued when (closed or open loop) and the fsync cadence.
// ---------------------------------------------------------------------------------------------

struct Schedule {
    /// Open loop: the intended issue times; None: closed loop (issue whenever a slot is free).
    pace: Option<Pace>,
    /// Open loop: give up when this far behind.
    max_lag_ns: u64,
    /// An fsync after every this many writes (0: never).
    fsync_every: u32,
    writes_since_sync: u32,
}

impl Schedule {
    fn new(ctx: &JobCtx, begin: u64) -> Schedule {
        let spec = &*ctx.spec;
        let pace = ctx.pace.map(|(iops, phase)| {
            crate::clock::precise_timers();
            let arrivals = spec.rate.map(|r| r.arrivals).unwrap_or_default();
            Pace::new(iops, arrivals == Arrivals::Poisson, begin, phase, spec.seed ^ ctx.job ^ 0x9ace)
        });
        let fsync_every = match spec.sync {
            SyncMode::Fsync { every } => every,
            _ => 0,
        };
        let max_lag_ns = spec.rate.and_then(|r| r.max_lag_ns).unwrap_or(u64::MAX);
        Schedule { pace, max_lag_ns, fsync_every, writes_since_sync: 0 }
    }

    fn paced(&self) -> bool {
        self.pace.is_some()
    }

    /// Writes wait until the fsync that is due has been done.
    #[inline]
    fn sync_due(&self) -> bool {
        self.fsync_every > 0 && self.writes_since_sync >= self.fsync_every
    }

    /// The next I/O, if it may be issued at `now`: its intended time (0 in closed loop).
    #[inline]
    fn take(&mut self, now: u64) -> Option<u64> {
        match self.pace.as_mut() {
            None => Some(0),
            Some(p) => {
                let due = p.due();
                if due > now {
                    return None;
                }
                p.advance();
                Some(due)
            }
        }
    }

    #[inline]
    fn wrote(&mut self) {
        self.writes_since_sync += 1;
    }

    fn synced(&mut self) {
        self.writes_since_sync = 0;
    }

    /// Open loop: when the next I/O is due.
    #[inline]
    fn next_due(&self) -> Option<u64> {
        self.pace.as_ref().map(Pace::due)
    }

    /// Open loop: how far behind its schedule the job is at `t`.
    #[inline]
    fn behind(&self, t: u64) -> Option<u64> {
        self.next_due().map(|due| t.saturating_sub(due))
    }
}

// ---------------------------------------------------------------------------------------------
// Window: ramp, measurement, per-second ticks, and the end by time or bytes.
// ---------------------------------------------------------------------------------------------

struct Window {
    measuring: bool,
    ramp_end: u64,
    run_ns: u64,
    /// Start of measurement (valid once measuring).
    start: u64,
    /// End of measurement by time (u64::MAX until measuring).
    end: u64,
    tick_start: u64,
    next_tick: u64,
    /// Bytes to issue in the measured part, and issued so far.
    io_limit: u64,
    issued_bytes: u64,
    /// Thread CPU time and run-queue wait at the start of measurement.
    cpu0: (u64, u64),
    wait0: u64,
}

/// What moving the window to a new time did.
enum Tick {
    Ramping,
    /// Measurement starts now.
    Started,
    /// Measuring; `rolled`: a second of this length ended; `over`: the time is up.
    Measuring {
        rolled: Option<u64>,
        over: bool,
    },
}

impl Window {
    fn new(spec: &AccessSpec, begin: u64) -> Window {
        let mut w = Window {
            measuring: false,
            ramp_end: begin + spec.ramp_ns,
            run_ns: spec.time_ns.unwrap_or(u64::MAX / 4),
            start: begin,
            end: u64::MAX,
            tick_start: begin,
            next_tick: begin + SECOND,
            io_limit: spec.io_size_bytes.unwrap_or(u64::MAX),
            issued_bytes: 0,
            cpu0: (0, 0),
            wait0: 0,
        };
        if spec.ramp_ns == 0 {
            w.start_at(begin);
        }
        w
    }

    fn start_at(&mut self, t: u64) {
        self.measuring = true;
        self.start = t;
        self.tick_start = t;
        self.next_tick = t + SECOND;
        self.end = t.saturating_add(self.run_ns);
        self.cpu0 = thread_cpu_ns();
        self.wait0 = thread_runq_wait_ns();
    }

    /// The measured part's bytes are all issued: issue no more.
    #[inline]
    fn budget_spent(&self) -> bool {
        self.measuring && self.issued_bytes >= self.io_limit
    }

    #[inline]
    fn issued(&mut self, len: u32) {
        if self.measuring {
            self.issued_bytes += len as u64;
        }
    }

    /// An idle open-loop job sleeps no later than this (the end of the ramp or of the run).
    fn wake_limit(&self) -> u64 {
        if self.measuring {
            self.end
        } else {
            self.ramp_end
        }
    }

    fn advance(&mut self, t: u64) -> Tick {
        if !self.measuring {
            if t < self.ramp_end {
                return Tick::Ramping;
            }
            self.start_at(t);
            return Tick::Started;
        }
        let rolled = (t >= self.next_tick).then(|| {
            let dur = t - self.tick_start;
            self.tick_start = t;
            self.next_tick = t + SECOND;
            dur
        });
        Tick::Measuring { rolled, over: t >= self.end }
    }

    /// CPU (user, system) and run-queue wait since measurement started.
    fn cpu(&self) -> (u64, u64, u64) {
        let (u1, s1) = thread_cpu_ns();
        (u1 - self.cpu0.0, s1 - self.cpu0.1, thread_runq_wait_ns().saturating_sub(self.wait0))
    }
}

// ---------------------------------------------------------------------------------------------
// Recorder: per-second intervals and the totals.
// ---------------------------------------------------------------------------------------------

/// Per-direction counts of the current second.
struct Interval {
    read: Histogram,
    write: Histogram,
    read_bytes: u64,
    write_bytes: u64,
    /// Open loop only (left empty otherwise).
    resp_read: Histogram,
    resp_write: Histogram,
    over_threshold: [u32; MAX_THRESHOLDS + 1],
    lag_max: u64,
}

impl Interval {
    fn new() -> Interval {
        Interval {
            read: Histogram::new(),
            write: Histogram::new(),
            read_bytes: 0,
            write_bytes: 0,
            resp_read: Histogram::new(),
            resp_write: Histogram::new(),
            over_threshold: [0; MAX_THRESHOLDS + 1],
            lag_max: 0,
        }
    }
    fn clear(&mut self) {
        // Histogram::clear is cheap on an empty histogram, so the open-loop ones cost nothing
        // in closed loop.
        self.read.clear();
        self.write.clear();
        self.read_bytes = 0;
        self.write_bytes = 0;
        self.resp_read.clear();
        self.resp_write.clear();
        self.over_threshold = [0; MAX_THRESHOLDS + 1];
        self.lag_max = 0;
    }
    fn is_empty(&self) -> bool {
        self.read.count() + self.write.count() == 0
    }
}

struct Recorder {
    paced: bool,
    thresholds: Thresholds,
    iv: Interval,
    /// Scratch for the per-second roll (both directions), reused: the roll clones nothing.
    both: Histogram,
    out: JobOutput,
    /// Measured ops and bytes so far, published for the progress display.
    ops: u64,
    bytes: u64,
}

impl Recorder {
    fn new(paced: bool, thresholds: &[u64], seconds_hint: u64) -> Recorder {
        let out = JobOutput { series: Vec::with_capacity(seconds_hint.min(3600) as usize + 1), ..Default::default() };
        let thresholds = Thresholds::new(thresholds);
        Recorder { paced, thresholds, iv: Interval::new(), both: Histogram::new(), out, ops: 0, bytes: 0 }
    }

    /// Measurement starts: forget what the ramp recorded.
    fn restart(&mut self) {
        self.iv.clear();
    }

    /// Open loop: an I/O of the measured part was issued `lag` ns after its intended time.
    #[inline]
    fn issued_late(&mut self, lag: u64) {
        self.out.lag.record(lag);
        self.iv.lag_max = self.iv.lag_max.max(lag);
        self.out.late_ops += (lag > LATE_NS) as u64;
    }

    /// A measured I/O completed in full at `done`.
    #[inline]
    fn completed(&mut self, s: &Slot, done: u64) {
        let iv = &mut self.iv;
        let service = s.service_ns(done);
        let resp = match s.op {
            Op::Read => {
                iv.read.record(service);
                iv.read_bytes += s.len as u64;
                &mut iv.resp_read
            }
            Op::Write => {
                iv.write.record(service);
                iv.write_bytes += s.len as u64;
                &mut iv.resp_write
            }
        };
        let response = if self.paced {
            let r = s.response_ns(done);
            resp.record(r);
            r
        } else {
            service
        };
        if self.thresholds.n > 0 {
            iv.over_threshold[self.thresholds.bucket(response)] += 1;
        }
        self.ops += 1;
        self.bytes += s.len as u64;
    }

    /// A failed or short I/O (or fsync): counted; true when it stops the job.
    fn failed(&mut self, op: Op, offset: u64, res: i32, continue_on_error: bool) -> bool {
        note_error(&mut self.out.errors, op, offset, res);
        !continue_on_error
    }

    #[inline]
    fn publish(&self, live: &Live) {
        live.ops.store(self.ops, Ordering::Relaxed);
        live.bytes.store(self.bytes, Ordering::Relaxed);
    }

    /// Close the current second: save it (sparse: the one allocation per second) to the series
    /// and fold it into the totals.
    fn roll(&mut self, dur_ns: u64, live: &Live) {
        let iv = &mut self.iv;
        let out = &mut self.out;
        self.both.clear();
        self.both.merge(&iv.read);
        self.both.merge(&iv.write);
        live.p99_ns.store(self.both.percentile(99.0), Ordering::Relaxed);
        let lat_sum_ns = self.both.sum();
        let buckets = self.both.sparse_idx();
        let resp_buckets = if self.paced {
            out.resp_read.merge(&iv.resp_read);
            out.resp_write.merge(&iv.resp_write);
            // Both directions' response times, through the same scratch histogram.
            self.both.clear();
            self.both.merge(&iv.resp_read);
            self.both.merge(&iv.resp_write);
            self.both.sparse_idx()
        } else {
            Vec::new()
        };
        out.series.push(SecondStats {
            dur_ns,
            read_ops: iv.read.count(),
            write_ops: iv.write.count(),
            read_bytes: iv.read_bytes,
            write_bytes: iv.write_bytes,
            lat_sum_ns,
            buckets,
            resp_buckets,
            over_threshold: iv.over_threshold,
            lag_max_ns: iv.lag_max,
        });
        out.read.merge(&iv.read);
        out.write.merge(&iv.write);
        out.read_bytes += iv.read_bytes;
        out.write_bytes += iv.write_bytes;
        iv.clear();
    }

    /// The job ended at `last_t`: close the last partial second and the window's figures.
    fn finish(mut self, window: &Window, last_t: u64, live: &Live) -> JobOutput {
        if window.measuring {
            (self.out.cpu_usr_ns, self.out.cpu_sys_ns, self.out.runq_wait_ns) = window.cpu();
            self.out.window_ns = last_t.saturating_sub(window.start);
            if !self.iv.is_empty() {
                self.roll(last_t - window.tick_start, live);
            }
        }
        self.out
    }
}

fn note_error(errors: &mut Vec<ErrorStat>, op: Op, offset: u64, res: i32) {
    let errno = if res < 0 { -res } else { 0 };
    if let Some(e) = errors.iter_mut().find(|e| e.errno == errno && e.op == op_name(op)) {
        e.count += 1;
        return;
    }
    let error = if errno == 0 {
        format!("short {} ({} bytes)", op_name(op), res)
    } else {
        std::io::Error::from_raw_os_error(errno).to_string()
    };
    errors.push(ErrorStat {
        target: String::new(),
        op: op_name(op).into(),
        errno,
        error,
        count: 1,
        first_offset_bytes: offset,
    });
}

fn op_name(op: Op) -> &'static str {
    match op {
        Op::Read => "read",
        Op::Write => "write",
    }
}

// ---------------------------------------------------------------------------------------------
// Queue: the slots (one per queue entry), the free list, the batch being built, what is in flight.
// ---------------------------------------------------------------------------------------------

struct Queue {
    gen: Generator,
    /// Writes carry stamps (offset, tag) per 4 KiB.
    stamp_writes: bool,
    slots: Vec<Slot>,
    free: Vec<u32>,
    batch: Vec<Pending>,
    inflight: usize,
    /// I/Os per submit call (synchronous backends take the batch whole).
    chunk: usize,
}

impl Queue {
    fn new<B: Backend>(ctx: &JobCtx) -> Queue {
        let spec = &*ctx.spec;
        let qd = spec.qd as usize;
        Queue {
            gen: Generator::new(spec, ctx.start, ctx.span, ctx.job),
            stamp_writes: spec.has_writes() && pattern::stamps(spec.data),
            slots: vec![Slot { op: Op::Read, len: 0, offset: 0, t_submit: 0, t_intended: 0 }; qd],
            free: (0..qd as u32).rev().collect(),
            batch: Vec::with_capacity(qd),
            inflight: 0,
            chunk: if B::SUBMIT_COMPLETES { qd.max(1) } else { spec.submit_batch.max(1) as usize },
        }
    }

    /// Nothing queued and nothing in flight.
    fn idle(&self) -> bool {
        self.batch.is_empty() && self.inflight == 0
    }

    /// Fill free slots with the I/Os the schedule allows now. False when the window's byte
    /// budget is spent (the job stops issuing).
    #[inline]
    fn fill(&mut self, sched: &mut Schedule, window: &mut Window, pool: &mut BufferPool) -> bool {
        let now = if sched.paced() { now_ns() } else { 0 };
        while let Some(&slot) = self.free.last() {
            if sched.sync_due() {
                break;
            }
            if window.budget_spent() {
                return false;
            }
            let Some(t_intended) = sched.take(now) else { break };
            self.free.pop();
            let io = self.gen.next_io();
            if io.op == Op::Write {
                if self.stamp_writes {
                    // The slot came off the free list: its buffer is ours until it is submitted.
                    pattern::stamp(&mut pool.slot_mut(slot as usize)[..io.len as usize], io.offset, WRITE_TAG);
                }
                sched.wrote();
            }
            window.issued(io.len);
            self.slots[slot as usize] = Slot { op: io.op, len: io.len, offset: io.offset, t_submit: 0, t_intended };
            self.batch.push(Pending { slot, op: io.op, offset: io.offset, len: io.len });
        }
        true
    }

    /// Hand the batch to the backend `chunk` I/Os per call (fio's iodepth_batch_submit),
    /// stamping each chunk's I/Os as issued when its call returns.
    #[inline]
    fn submit<B: Backend>(&mut self, backend: &mut B, rec: &mut Recorder, measuring: bool) -> std::io::Result<()> {
        for part in self.batch.chunks(self.chunk) {
            let before = stamp_before_submit::<B>();
            backend.submit(part)?;
            let t_submit = stamp_after_submit::<B>(before);
            for p in part {
                let s = &mut self.slots[p.slot as usize];
                s.t_submit = t_submit;
                if rec.paced && measuring {
                    rec.issued_late(s.lag_ns());
                }
            }
        }
        self.inflight += self.batch.len();
        self.batch.clear();
        Ok(())
    }

    /// Take every completion at `done`; true when an error stops the job.
    #[inline]
    fn reap<B: Backend>(
        &mut self,
        backend: &mut B,
        done: u64,
        rec: &mut Recorder,
        measuring: bool,
        continue_on_error: bool,
    ) -> bool {
        let mut err_stop = false;
        let (slots, free, inflight) = (&self.slots, &mut self.free, &mut self.inflight);
        backend.reap(&mut |slot, res| {
            let s = &slots[slot as usize];
            if res == s.len as i32 {
                if measuring {
                    rec.completed(s, done);
                }
            } else {
                err_stop |= rec.failed(s.op, s.offset, res, continue_on_error);
            }
            free.push(slot);
            *inflight -= 1;
        });
        err_stop
    }
}

/// Run one job to its end on `backend`, using its buffer pool (one slot per queue entry).
/// What is still in flight after a failure of the machinery is the backend's to drain.
pub(crate) fn run_job<B: Backend>(ctx: &JobCtx, backend: &mut B) -> JobOutput {
    let spec = &*ctx.spec;
    let begin = now_ns();
    let mut sched = Schedule::new(ctx, begin);
    let mut window = Window::new(spec, begin);
    let mut rec = Recorder::new(sched.paced(), &spec.thresholds_ns, window.run_ns / SECOND);
    let mut q = Queue::new::<B>(ctx);
    let mut stopping = false;
    let mut last_t = begin;
    ctx.live.measuring.store(window.measuring, Ordering::Relaxed);

    loop {
        if !stopping && !q.fill(&mut sched, &mut window, backend.pool_mut()) {
            stopping = true;
        }
        let t = if q.idle() {
            if sched.sync_due() && !rec.out.interrupted && !rec.out.stopped_by_error {
                stopping |= fsync(backend, &mut rec, &window, spec.continue_on_error);
                sched.synced();
                continue;
            }
            match sched.next_due() {
                // Open loop: idle until the next intended issue time (or the end of the run).
                Some(due) if !stopping => {
                    sleep_until(due.min(window.wake_limit()));
                    now_ns()
                }
                _ => break,
            }
        } else {
            if let Err(e) = q.submit(backend, &mut rec, window.measuring) {
                rec.out.failure = Some(format!("submitting I/O failed: {e}"));
                break;
            }
            // Open loop with a free slot: wake for the next intended time if nothing completes.
            let waited = match sched.next_due() {
                Some(due) if !stopping && !q.free.is_empty() => {
                    let now = now_ns();
                    if due <= now {
                        Ok(())
                    } else {
                        backend.wait_timeout(1, due - now)
                    }
                }
                _ => backend.wait(1),
            };
            if let Err(e) = waited {
                rec.out.failure = Some(format!("waiting for I/O failed: {e}"));
                break;
            }
            let done = stamp_completion();
            if q.reap(backend, done, &mut rec, window.measuring, spec.continue_on_error) && !stopping {
                rec.out.stopped_by_error = true;
                stopping = true;
            }
            done
        };
        last_t = t;

        match window.advance(t) {
            Tick::Ramping => {}
            Tick::Started => {
                rec.restart();
                ctx.live.measuring.store(true, Ordering::Relaxed);
                rec.publish(&ctx.live);
            }
            Tick::Measuring { rolled, over } => {
                if let Some(dur) = rolled {
                    rec.roll(dur, &ctx.live);
                }
                stopping |= over;
                rec.publish(&ctx.live);
            }
        }
        if let Some(behind) = sched.behind(t) {
            if !stopping && behind > sched.max_lag_ns {
                rec.out.gave_up = true;
                stopping = true;
            }
            if stopping && rec.out.final_lag_ns == 0 {
                rec.out.final_lag_ns = behind;
            }
        }
        if ctx.stop.load(Ordering::Relaxed) && !stopping {
            stopping = true;
            rec.out.interrupted = true;
        }
    }
    rec.finish(&window, last_t, &ctx.live)
}

/// The fsync that is due (nothing in flight): timed when measuring; true when its failure stops
/// the job.
fn fsync<B: Backend>(backend: &mut B, rec: &mut Recorder, window: &Window, continue_on_error: bool) -> bool {
    let t0 = now_ns();
    let r = backend.fsync();
    let t1 = now_ns();
    if window.measuring {
        rec.out.sync.record(t1 - t0);
    }
    if let Err(e) = r {
        if rec.failed(Op::Write, 0, -e.raw_os_error().unwrap_or(libc::EIO), continue_on_error) {
            rec.out.stopped_by_error = true;
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Rate;

    /// A synchronous target that answers at once, except that one I/O takes `stall_ns`.
    struct Stalling {
        pool: BufferPool,
        done: Option<(u32, i32)>,
        count: u64,
        stall_at: u64,
        stall_ns: u64,
    }

    // SAFETY: completes every I/O inside `submit` without touching the buffers.
    unsafe impl Backend for Stalling {
        const SUBMIT_COMPLETES: bool = true;
        fn pool_mut(&mut self) -> &mut BufferPool {
            &mut self.pool
        }
        fn submit(&mut self, batch: &[Pending]) -> std::io::Result<()> {
            if let Some(p) = batch.first() {
                self.count += 1;
                if self.count == self.stall_at {
                    sleep_until(now_ns() + self.stall_ns);
                }
                self.done = Some((p.slot, p.len as i32));
            }
            Ok(())
        }
        fn wait(&mut self, _n: u32) -> std::io::Result<()> {
            Ok(())
        }
        fn reap(&mut self, f: &mut impl FnMut(u32, i32)) {
            if let Some((slot, res)) = self.done.take() {
                f(slot, res);
            }
        }
        fn fsync(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn ctx(spec: AccessSpec, iops: Option<f64>) -> JobCtx {
        JobCtx {
            spec: Arc::new(spec),
            job: 0,
            start: 0,
            span: 1 << 30,
            stop: Arc::new(AtomicBool::new(false)),
            live: Arc::new(Live::default()),
            pace: iops.map(|i| (i, 0.0)),
        }
    }

    fn paced_spec(time_ms: u64) -> AccessSpec {
        AccessSpec {
            time_ns: Some(time_ms * 1_000_000),
            thresholds_ns: vec![8_000_000],
            rate: Some(Rate { per_s: 2000.0, ..Default::default() }),
            ..Default::default()
        }
    }

    #[test]
    fn a_stall_counts_in_response_time_for_every_io_scheduled_during_it_but_once_in_service_time() {
        // 2000 I/Os per second, one I/O every 0.5 ms; the 200th takes 100 ms. During the stall
        // about 200 more I/Os fall due: each waits for it, so each has a response time of up to
        // 100 ms, while each one's own service time stays tiny. A closed-loop tool (or service
        // time alone) would show one slow I/O: coordinated omission.
        let spec = paced_spec(1000);
        let mut b =
            Stalling { pool: BufferPool::new(1, 4096), done: None, count: 0, stall_at: 200, stall_ns: 100_000_000 };
        let out = run_job(&ctx(spec, Some(2000.0)), &mut b);
        let ops = out.read.count();
        assert!((1900..=2010).contains(&ops), "the schedule is kept: {ops} I/Os in 1 s at 2000/s");
        let slow_service = out.read.count() as f64 * out.read.fraction_above(10_000_000);
        let slow_response = out.resp_read.count() as f64 * out.resp_read.fraction_above(10_000_000);
        assert_eq!(slow_service.round(), 1.0, "only the stalled I/O itself is slow to serve");
        // I/Os due in the first 90 ms of the stall waited more than 10 ms: about 180 of them.
        assert!((150.0..=200.0).contains(&slow_response), "{slow_response} I/Os waited > 10 ms");
        assert!(out.resp_read.max() >= 99_000_000, "the first one queued behind the stall waited it all");
        assert!(out.lag.max() >= 95_000_000 && out.late_ops >= 150, "lag {} late {}", out.lag.max(), out.late_ops);
        // The per-second threshold counters agree: ~180 of the ops are at or over 8 ms.
        let over_8ms: u32 = out.series.iter().map(|s| s.over_threshold[1..].iter().sum::<u32>()).sum();
        assert!((150..=200).contains(&over_8ms), "{over_8ms}");
        assert!(!out.gave_up && out.final_lag_ns < LATE_NS);
    }

    #[test]
    fn a_job_that_falls_too_far_behind_gives_up() {
        // A 300 ms stall with max_lag 50 ms: the job stops and says so.
        let mut spec = paced_spec(2000);
        spec.rate.as_mut().unwrap().max_lag_ns = Some(50_000_000);
        let mut b =
            Stalling { pool: BufferPool::new(1, 4096), done: None, count: 0, stall_at: 10, stall_ns: 300_000_000 };
        let t0 = now_ns();
        let out = run_job(&ctx(spec, Some(2000.0)), &mut b);
        assert!(out.gave_up && out.final_lag_ns > 50_000_000, "{}", out.final_lag_ns);
        assert!(now_ns() - t0 < 1_000_000_000, "it stopped early instead of running 2 s");
    }

    /// Completes every I/O at once and counts writes and fsyncs.
    struct Counting {
        pool: BufferPool,
        done: Vec<(u32, i32)>,
        writes: u64,
        fsyncs: u64,
        writes_at_fsync: Vec<u64>,
    }

    impl Counting {
        fn new(qd: usize) -> Counting {
            Counting {
                pool: BufferPool::new(qd, 4096),
                done: Vec::new(),
                writes: 0,
                fsyncs: 0,
                writes_at_fsync: Vec::new(),
            }
        }
    }

    // SAFETY: completes every I/O inside `submit` without touching the buffers.
    unsafe impl Backend for Counting {
        const SUBMIT_COMPLETES: bool = true;
        fn pool_mut(&mut self) -> &mut BufferPool {
            &mut self.pool
        }
        fn submit(&mut self, batch: &[Pending]) -> std::io::Result<()> {
            for p in batch {
                self.writes += (p.op == Op::Write) as u64;
                self.done.push((p.slot, p.len as i32));
            }
            Ok(())
        }
        fn wait(&mut self, _n: u32) -> std::io::Result<()> {
            Ok(())
        }
        fn reap(&mut self, f: &mut impl FnMut(u32, i32)) {
            for (slot, res) in self.done.drain(..) {
                f(slot, res);
            }
        }
        fn fsync(&mut self) -> std::io::Result<()> {
            self.fsyncs += 1;
            self.writes_at_fsync.push(self.writes);
            Ok(())
        }
    }

    #[test]
    fn a_closed_loop_job_ends_at_its_bytes_with_an_fsync_after_every_n_writes() {
        // 1000 writes of 4 KiB at qd 8, an fsync after every 4: no write is issued while an fsync
        // is due, so fsyncs happen at exactly 4, 8, 12... writes; the series holds every op.
        let spec = AccessSpec {
            read_pct: 0,
            qd: 8,
            time_ns: None,
            io_size_bytes: Some(1000 * 4096),
            sync: SyncMode::Fsync { every: 4 },
            ..Default::default()
        };
        let mut b = Counting::new(8);
        let out = run_job(&ctx(spec, None), &mut b);
        assert_eq!((out.write.count(), out.write_bytes, b.writes), (1000, 1000 * 4096, 1000));
        assert_eq!(b.fsyncs, 250);
        assert!(b.writes_at_fsync.iter().enumerate().all(|(i, &w)| w == 4 * (i as u64 + 1)), "{:?}", b.writes_at_fsync);
        assert_eq!(out.sync.count(), 250);
        let in_series: u64 = out.series.iter().map(|s| s.write_ops).sum();
        assert_eq!(in_series, 1000);
        assert!(out.resp_write.count() == 0 && out.lag.count() == 0, "closed loop records no response time");
    }

    #[test]
    fn io_in_the_ramp_is_not_counted_and_the_stop_flag_interrupts() {
        let spec = AccessSpec { ramp_ns: 100_000_000, time_ns: Some(60_000_000_000), ..Default::default() };
        let c = ctx(spec, None);
        let stop = c.stop.clone();
        let stopper = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(300));
            stop.store(true, Ordering::Relaxed);
        });
        let mut b = Counting::new(1);
        let t0 = now_ns();
        let out = run_job(&c, &mut b);
        stopper.join().unwrap();
        let took = now_ns() - t0;
        assert!(out.interrupted && took < 2_000_000_000, "stopped after {took} ns");
        // Measured for about 200 of the 300 ms.
        assert!((150_000_000..290_000_000).contains(&out.window_ns), "window {}", out.window_ns);
        assert!(out.read.count() > 0 && c.live.measuring.load(Ordering::Relaxed));
        assert_eq!(c.live.ops.load(Ordering::Relaxed), out.read.count());
    }

    #[test]
    fn threshold_counters_are_exact_at_the_boundaries() {
        // ACT's thresholds, 1, 2, 4, ... 32768 ms: a latency at a threshold counts as over it.
        let act: Vec<u64> = (0..16).map(|i| (1u64 << i) * 1_000_000).collect();
        let t = Thresholds::new(&act);
        let cases =
            [(0, 0), (999_999, 0), (1_000_000, 1), (1_999_999, 1), (2_000_000, 2), (7_999_999, 3), (8_000_000, 4)];
        for (ns, k) in cases {
            assert_eq!(t.bucket(ns), k, "{ns} ns");
        }
        assert_eq!((t.bucket(64_000_000), t.bucket(u64::MAX)), (7, 16));
        assert_eq!(Thresholds::new(&[]).bucket(u64::MAX), 0);
        // Buckets to counts at or over each threshold: cumulative from the top.
        let mut b = [0u32; MAX_THRESHOLDS + 1];
        (b[0], b[1], b[2], b[3]) = (5, 4, 3, 2);
        let mut over = vec![0u64; 3];
        over_counts(&b, 3, &mut over);
        assert_eq!(over, vec![9, 5, 2]);
    }

    #[test]
    fn closed_loop_counts_service_times_against_the_thresholds() {
        // Every null I/O takes well under 1 s and at least 0 ns: all at or over 0, none over 1 s.
        let spec =
            AccessSpec { time_ns: Some(50_000_000), thresholds_ns: vec![0, 1_000_000_000], ..Default::default() };
        let mut b = Counting::new(1);
        let out = run_job(&ctx(spec, None), &mut b);
        let at_or_over_0: u64 = out.series.iter().map(|s| s.over_threshold[1] as u64).sum();
        assert_eq!(at_or_over_0, out.read.count());
        assert!(out.series.iter().all(|s| s.over_threshold[2] == 0 && s.over_threshold[0] == 0));
    }
}
