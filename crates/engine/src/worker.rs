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

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use crate::backend::{Backend, Pending};
use crate::clock::{now_ns, sleep_until, thread_cpu_ns, thread_runq_wait_ns};
use crate::gen::{Generator, Op};
use crate::hist::Histogram;
use crate::pace::Pace;
use crate::pattern::{self, BufferPool, WRITE_TAG};
use crate::result::ErrorStat;
use crate::spec::{AccessSpec, Arrivals, SyncMode};

const SECOND: u64 = 1_000_000_000;
/// An open-loop I/O issued more than this after its intended time counts as late.
pub const LATE_NS: u64 = 1_000_000;
/// Power-of-two millisecond buckets kept per second for open-loop runs (ACT's histogram):
/// bucket 0 is under 1 ms, bucket b covers [2^(b-1), 2^b) ms, the last one everything above.
pub const POW2_MS_BUCKETS: usize = 17;

/// ACT's bucket of a latency: exact at every millisecond boundary.
#[inline]
pub fn pow2_ms_bucket(ns: u64) -> usize {
    let ms = ns / 1_000_000;
    if ms == 0 {
        0
    } else {
        ((64 - ms.leading_zeros()) as usize).min(POW2_MS_BUCKETS - 1)
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
    /// Open loop: response times in ACT's power-of-two millisecond buckets.
    pub resp_pow2_ms: [u32; POW2_MS_BUCKETS],
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
    /// Open loop: the mean gap between intended issue times.
    pub interval_ns: f64,
}

#[derive(Clone, Copy)]
struct Slot {
    op: Op,
    len: u32,
    offset: u64,
    t_submit: u64,
    /// Open loop: when it was meant to be issued.
    t_intended: u64,
}

/// Per-direction counts of the current second.
struct Interval {
    read: Histogram,
    write: Histogram,
    read_bytes: u64,
    write_bytes: u64,
    /// Open loop only (left empty otherwise).
    resp_read: Histogram,
    resp_write: Histogram,
    pow2: [u32; POW2_MS_BUCKETS],
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
            pow2: [0; POW2_MS_BUCKETS],
            lag_max: 0,
        }
    }
    fn clear(&mut self, paced: bool) {
        self.read.clear();
        self.write.clear();
        self.read_bytes = 0;
        self.write_bytes = 0;
        if paced {
            self.resp_read.clear();
            self.resp_write.clear();
            self.pow2 = [0; POW2_MS_BUCKETS];
            self.lag_max = 0;
        }
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

/// Run one job to its end on `backend`, using `pool` for buffers (one slot per queue entry).
pub fn run_job<B: Backend>(ctx: &JobCtx, backend: &mut B, pool: &mut BufferPool) -> JobOutput {
    let spec = &*ctx.spec;
    let qd = spec.qd as usize;
    let mut gen = Generator::new(spec, ctx.start, ctx.span, ctx.job);
    let stamps = spec.has_writes() && pattern::stamps(spec.data);
    let fsync_every = match spec.sync {
        SyncMode::Fsync { every } => every,
        _ => 0,
    };

    let mut slots = vec![Slot { op: Op::Read, len: 0, offset: 0, t_submit: 0, t_intended: 0 }; qd];
    let mut free: Vec<u32> = (0..qd as u32).rev().collect();
    let mut batch: Vec<Pending> = Vec::with_capacity(qd);
    let mut iv = Interval::new();
    let mut out = JobOutput::default();

    let begin = now_ns();
    let mut pace = ctx.pace.map(|(iops, phase)| {
        crate::clock::precise_timers();
        let arrivals = spec.rate.map(|r| r.arrivals).unwrap_or_default();
        Pace::new(iops, arrivals == Arrivals::Poisson, begin, phase, spec.seed ^ ctx.job ^ 0x9ace)
    });
    let paced = pace.is_some();
    let max_lag = spec.rate.and_then(|r| r.max_lag_ns).unwrap_or(u64::MAX);
    out.interval_ns = pace.as_ref().map_or(0.0, |p| p.interval_ns());
    let mut measuring = spec.ramp_ns == 0;
    let ramp_end = begin + spec.ramp_ns;
    let run_ns = spec.time_ns.unwrap_or(u64::MAX / 4);
    let mut measure_start = begin;
    let mut end = if measuring { begin.saturating_add(run_ns) } else { u64::MAX };
    let mut tick_start = begin;
    let mut next_tick = begin + SECOND;
    let mut cpu0 = thread_cpu_ns();
    let mut wait0 = thread_runq_wait_ns();
    let io_limit = spec.io_size_bytes.unwrap_or(u64::MAX);
    let mut issued_bytes = 0u64;
    let mut measured_ops = 0u64;
    let mut measured_bytes = 0u64;
    let mut writes_since_sync = 0u32;
    let mut inflight = 0usize;
    let mut stopping = false;
    let mut last_t = begin;
    ctx.live.measuring.store(measuring, Ordering::Relaxed);

    loop {
        // Fill every free slot (open loop: with the I/Os whose time has come).
        if !stopping {
            let now = if paced { now_ns() } else { 0 };
            while let Some(&slot) = free.last() {
                if fsync_every > 0 && writes_since_sync >= fsync_every {
                    break;
                }
                if measuring && issued_bytes >= io_limit {
                    stopping = true;
                    break;
                }
                let t_intended = match pace.as_mut() {
                    Some(p) => {
                        let due = p.due();
                        if due > now {
                            break;
                        }
                        p.advance();
                        due
                    }
                    None => 0,
                };
                free.pop();
                let io = gen.next_io();
                let buf = pool.slot_ptr(slot as usize);
                if io.op == Op::Write {
                    if stamps {
                        pattern::stamp(&mut pool.slot_mut(slot as usize)[..io.len as usize], io.offset, WRITE_TAG);
                    }
                    writes_since_sync += 1;
                }
                if measuring {
                    issued_bytes += io.len as u64;
                }
                slots[slot as usize] = Slot { op: io.op, len: io.len, offset: io.offset, t_submit: 0, t_intended };
                batch.push(Pending { slot, op: io.op, offset: io.offset, len: io.len, buf });
            }
        }
        let t;
        if batch.is_empty() && inflight == 0 {
            if fsync_every > 0 && writes_since_sync >= fsync_every && !out.interrupted && !out.stopped_by_error {
                let t0 = now_ns();
                let r = backend.fsync();
                let t1 = now_ns();
                if measuring {
                    out.sync.record(t1 - t0);
                }
                if let Err(e) = r {
                    note_error(&mut out.errors, Op::Write, 0, -e.raw_os_error().unwrap_or(libc::EIO));
                    if !spec.continue_on_error {
                        out.stopped_by_error = true;
                        stopping = true;
                    }
                }
                writes_since_sync = 0;
                continue;
            }
            match pace.as_ref() {
                // Idle until the next intended issue time (or the end of the run).
                Some(p) if !stopping => {
                    sleep_until(p.due().min(end).min(if measuring { u64::MAX } else { ramp_end }));
                    t = now_ns();
                }
                _ => break,
            }
        } else {
            // Hand the batch to the kernel `submit_batch` I/Os per call (fio's
            // iodepth_batch_submit), stamping each chunk when its call returns. Synchronous
            // backends take it whole.
            let chunk = if B::SUBMIT_COMPLETES { batch.len().max(1) } else { spec.submit_batch.max(1) as usize };
            let mut failed = None;
            for part in batch.chunks(chunk) {
                let t_before = if B::SUBMIT_COMPLETES { now_ns() } else { 0 };
                if let Err(e) = backend.submit(part) {
                    failed = Some(e);
                    break;
                }
                let t_submit = if B::SUBMIT_COMPLETES { t_before } else { now_ns() };
                for p in part {
                    slots[p.slot as usize].t_submit = t_submit;
                    if paced && measuring {
                        let lag = t_submit.saturating_sub(slots[p.slot as usize].t_intended);
                        out.lag.record(lag);
                        iv.lag_max = iv.lag_max.max(lag);
                        out.late_ops += (lag > LATE_NS) as u64;
                    }
                }
            }
            if let Some(e) = failed {
                out.failure = Some(format!("submitting I/O failed: {e}"));
                // What was pushed may or may not be in the kernel; keep the buffers alive (leak
                // the pool) rather than risk the kernel writing into freed memory.
                std::mem::forget(std::mem::replace(pool, BufferPool::new(1, 4096)));
                break;
            }
            inflight += batch.len();
            batch.clear();
            // Open loop with a free slot: wake for the next intended time if nothing completes.
            let waited = match pace.as_ref() {
                Some(p) if !stopping && !free.is_empty() => {
                    let now = now_ns();
                    let due = p.due();
                    if due <= now {
                        Ok(())
                    } else {
                        backend.wait_timeout(1, due - now)
                    }
                }
                _ => backend.wait(1),
            };
            if let Err(e) = waited {
                out.failure = Some(format!("waiting for I/O failed: {e}"));
                std::mem::forget(std::mem::replace(pool, BufferPool::new(1, 4096)));
                break;
            }

            t = now_ns();
            let mut err_stop = false;
            backend.reap(&mut |slot, res| {
                let s = slots[slot as usize];
                let lat = t - s.t_submit;
                if res == s.len as i32 {
                    if measuring {
                        let h = match s.op {
                            Op::Read => {
                                iv.read.record(lat);
                                iv.read_bytes += s.len as u64;
                                &mut iv.resp_read
                            }
                            Op::Write => {
                                iv.write.record(lat);
                                iv.write_bytes += s.len as u64;
                                &mut iv.resp_write
                            }
                        };
                        if paced {
                            let resp = t.saturating_sub(s.t_intended);
                            h.record(resp);
                            iv.pow2[pow2_ms_bucket(resp)] += 1;
                        }
                        measured_ops += 1;
                        measured_bytes += s.len as u64;
                    }
                } else {
                    note_error(&mut out.errors, s.op, s.offset, res);
                    if !spec.continue_on_error {
                        err_stop = true;
                    }
                }
                free.push(slot);
                inflight -= 1;
            });
            if err_stop && !stopping {
                out.stopped_by_error = true;
                stopping = true;
            }
        }
        last_t = t;

        if !measuring && t >= ramp_end {
            measuring = true;
            iv.clear(paced);
            measure_start = t;
            tick_start = t;
            next_tick = t + SECOND;
            end = t.saturating_add(run_ns);
            cpu0 = thread_cpu_ns();
            wait0 = thread_runq_wait_ns();
            ctx.live.measuring.store(true, Ordering::Relaxed);
        }
        if measuring {
            if t >= next_tick {
                roll(&mut out, &mut iv, t - tick_start, &ctx.live, paced);
                tick_start = t;
                next_tick = t + SECOND;
            }
            if t >= end {
                stopping = true;
            }
            ctx.live.ops.store(measured_ops, Ordering::Relaxed);
            ctx.live.bytes.store(measured_bytes, Ordering::Relaxed);
        }
        if let Some(p) = pace.as_ref() {
            let behind = t.saturating_sub(p.due());
            if !stopping && behind > max_lag {
                out.gave_up = true;
                stopping = true;
            }
            if stopping && out.final_lag_ns == 0 {
                out.final_lag_ns = behind;
            }
        }
        if ctx.stop.load(Ordering::Relaxed) && !stopping {
            stopping = true;
            out.interrupted = true;
        }
    }

    if measuring {
        let (u1, s1) = thread_cpu_ns();
        out.cpu_usr_ns = u1 - cpu0.0;
        out.cpu_sys_ns = s1 - cpu0.1;
        out.runq_wait_ns = thread_runq_wait_ns().saturating_sub(wait0);
        out.window_ns = last_t.saturating_sub(measure_start);
        if iv.read.count() + iv.write.count() > 0 {
            roll(&mut out, &mut iv, last_t - tick_start, &ctx.live, paced);
        }
    }
    out
}

/// Close the current second: save it to the series and fold it into the totals.
fn roll(out: &mut JobOutput, iv: &mut Interval, dur_ns: u64, live: &Live, paced: bool) {
    let mut both = iv.read.clone();
    both.merge(&iv.write);
    live.p99_ns.store(both.percentile(99.0), Ordering::Relaxed);
    let mut resp_buckets = Vec::new();
    if paced {
        let mut resp = iv.resp_read.clone();
        resp.merge(&iv.resp_write);
        resp_buckets = resp.sparse_idx();
        out.resp_read.merge(&iv.resp_read);
        out.resp_write.merge(&iv.resp_write);
    }
    out.series.push(SecondStats {
        dur_ns,
        read_ops: iv.read.count(),
        write_ops: iv.write.count(),
        read_bytes: iv.read_bytes,
        write_bytes: iv.write_bytes,
        lat_sum_ns: both.sum(),
        buckets: both.sparse_idx(),
        resp_buckets,
        resp_pow2_ms: iv.pow2,
        lag_max_ns: iv.lag_max,
    });
    out.read.merge(&iv.read);
    out.write.merge(&iv.write);
    out.read_bytes += iv.read_bytes;
    out.write_bytes += iv.write_bytes;
    iv.clear(paced);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Rate;

    /// A synchronous target that answers at once, except that one I/O takes `stall_ns`.
    struct Stalling {
        done: Option<(u32, i32)>,
        count: u64,
        stall_at: u64,
        stall_ns: u64,
    }

    impl Backend for Stalling {
        const SUBMIT_COMPLETES: bool = true;
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
        let mut b = Stalling { done: None, count: 0, stall_at: 200, stall_ns: 100_000_000 };
        let mut pool = BufferPool::new(1, 4096);
        let out = run_job(&ctx(spec, Some(2000.0)), &mut b, &mut pool);
        let ops = out.read.count();
        assert!((1900..=2010).contains(&ops), "the schedule is kept: {ops} I/Os in 1 s at 2000/s");
        let slow_service = out.read.count() as f64 * out.read.fraction_above(10_000_000);
        let slow_response = out.resp_read.count() as f64 * out.resp_read.fraction_above(10_000_000);
        assert_eq!(slow_service.round(), 1.0, "only the stalled I/O itself is slow to serve");
        // I/Os due in the first 90 ms of the stall waited more than 10 ms: about 180 of them.
        assert!((150.0..=200.0).contains(&slow_response), "{slow_response} I/Os waited > 10 ms");
        assert!(out.resp_read.max() >= 99_000_000, "the first one queued behind the stall waited it all");
        assert!(out.lag.max() >= 95_000_000 && out.late_ops >= 150, "lag {} late {}", out.lag.max(), out.late_ops);
        // The response-time buckets per second agree: ~180 of the ops are over 8 ms (bucket >= 4).
        let over_8ms: u32 = out.series.iter().map(|s| s.resp_pow2_ms[4..].iter().sum::<u32>()).sum();
        assert!((150..=200).contains(&over_8ms), "{over_8ms}");
        assert!(!out.gave_up && out.final_lag_ns < LATE_NS);
    }

    #[test]
    fn a_job_that_falls_too_far_behind_gives_up() {
        // A 300 ms stall with max_lag 50 ms: the job stops and says so.
        let mut spec = paced_spec(2000);
        spec.rate.as_mut().unwrap().max_lag_ns = Some(50_000_000);
        let mut b = Stalling { done: None, count: 0, stall_at: 10, stall_ns: 300_000_000 };
        let mut pool = BufferPool::new(1, 4096);
        let t0 = now_ns();
        let out = run_job(&ctx(spec, Some(2000.0)), &mut b, &mut pool);
        assert!(out.gave_up && out.final_lag_ns > 50_000_000, "{}", out.final_lag_ns);
        assert!(now_ns() - t0 < 1_000_000_000, "it stopped early instead of running 2 s");
    }

    #[test]
    fn the_act_buckets_are_exact_at_millisecond_boundaries() {
        let cases = [
            (999_999, 0),
            (1_000_000, 1),
            (1_999_999, 1),
            (2_000_000, 2),
            (7_999_999, 3),
            (8_000_000, 4),
            (64_000_000, 7),
            (u64::MAX, 16),
        ];
        for (ns, b) in cases {
            assert_eq!(pow2_ms_bucket(ns), b, "{ns} ns");
        }
    }
}
