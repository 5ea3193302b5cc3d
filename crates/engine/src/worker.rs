//! The per-job loop: keep `qd` I/Os in flight on one backend, measure each one, roll per-second
//! intervals, stop on time, bytes, an error or a stop request — and always drain what is in
//! flight before returning, because the kernel may still be writing into our buffers.
//!
//! Hot path rules: no allocation, no lock, no formatting, no floating point per I/O. The clock is
//! read around each submit batch and once after each wait; every I/O of a batch shares the
//! submit stamp and every completion of a reap pass shares the completion stamp. Like fio, an
//! async I/O's latency starts when the submit call returns (fio's clat); a synchronous one's
//! when the call starts.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use crate::backend::{Backend, Pending};
use crate::clock::{now_ns, thread_cpu_ns, thread_runq_wait_ns};
use crate::gen::{Generator, Op};
use crate::hist::Histogram;
use crate::pattern::{self, BufferPool, WRITE_TAG};
use crate::result::ErrorStat;
use crate::spec::{AccessSpec, SyncMode};

const SECOND: u64 = 1_000_000_000;

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
}

#[derive(Clone, Copy)]
struct Slot {
    op: Op,
    len: u32,
    offset: u64,
    t_submit: u64,
}

/// Per-direction counts of the current second.
struct Interval {
    read: Histogram,
    write: Histogram,
    read_bytes: u64,
    write_bytes: u64,
}

impl Interval {
    fn new() -> Interval {
        Interval { read: Histogram::new(), write: Histogram::new(), read_bytes: 0, write_bytes: 0 }
    }
    fn clear(&mut self) {
        self.read.clear();
        self.write.clear();
        self.read_bytes = 0;
        self.write_bytes = 0;
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

    let mut slots = vec![Slot { op: Op::Read, len: 0, offset: 0, t_submit: 0 }; qd];
    let mut free: Vec<u32> = (0..qd as u32).rev().collect();
    let mut batch: Vec<Pending> = Vec::with_capacity(qd);
    let mut iv = Interval::new();
    let mut out = JobOutput::default();

    let begin = now_ns();
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
        // Fill every free slot.
        if !stopping {
            while let Some(&slot) = free.last() {
                if fsync_every > 0 && writes_since_sync >= fsync_every {
                    break;
                }
                if measuring && issued_bytes >= io_limit {
                    stopping = true;
                    break;
                }
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
                slots[slot as usize] = Slot { op: io.op, len: io.len, offset: io.offset, t_submit: 0 };
                batch.push(Pending { slot, op: io.op, offset: io.offset, len: io.len, buf });
            }
        }
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
            break;
        }

        // Hand the batch to the kernel `submit_batch` I/Os per call (fio's iodepth_batch_submit),
        // stamping each chunk when its call returns. Synchronous backends take it whole.
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
            }
        }
        if let Some(e) = failed {
            out.failure = Some(format!("submitting I/O failed: {e}"));
            // What was pushed may or may not be in the kernel; keep the buffers alive (leak the
            // pool) rather than risk the kernel writing into freed memory.
            std::mem::forget(std::mem::replace(pool, BufferPool::new(1, 4096)));
            break;
        }
        inflight += batch.len();
        batch.clear();
        if let Err(e) = backend.wait(1) {
            out.failure = Some(format!("waiting for I/O failed: {e}"));
            std::mem::forget(std::mem::replace(pool, BufferPool::new(1, 4096)));
            break;
        }

        let t = now_ns();
        last_t = t;
        let mut err_stop = false;
        backend.reap(&mut |slot, res| {
            let s = slots[slot as usize];
            let lat = t - s.t_submit;
            if res == s.len as i32 {
                if measuring {
                    match s.op {
                        Op::Read => {
                            iv.read.record(lat);
                            iv.read_bytes += s.len as u64;
                        }
                        Op::Write => {
                            iv.write.record(lat);
                            iv.write_bytes += s.len as u64;
                        }
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

        if !measuring && t >= ramp_end {
            measuring = true;
            iv.clear();
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
                roll(&mut out, &mut iv, t - tick_start, &ctx.live);
                tick_start = t;
                next_tick = t + SECOND;
            }
            if t >= end {
                stopping = true;
            }
            ctx.live.ops.store(measured_ops, Ordering::Relaxed);
            ctx.live.bytes.store(measured_bytes, Ordering::Relaxed);
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
            roll(&mut out, &mut iv, last_t - tick_start, &ctx.live);
        }
    }
    out
}

/// Close the current second: save it to the series and fold it into the totals.
fn roll(out: &mut JobOutput, iv: &mut Interval, dur_ns: u64, live: &Live) {
    let mut both = iv.read.clone();
    both.merge(&iv.write);
    live.p99_ns.store(both.percentile(99.0), Ordering::Relaxed);
    out.series.push(SecondStats {
        dur_ns,
        read_ops: iv.read.count(),
        write_ops: iv.write.count(),
        read_bytes: iv.read_bytes,
        write_bytes: iv.write_bytes,
        lat_sum_ns: both.sum(),
        buckets: both.sparse_idx(),
    });
    out.read.merge(&iv.read);
    out.write.merge(&iv.write);
    out.read_bytes += iv.read_bytes;
    out.write_bytes += iv.write_bytes;
    iv.clear();
}
