//! Recorder: per-second intervals and the totals.

use std::sync::atomic::Ordering;

use super::stamps::Slot;
use super::window::{Tick, Window};
use super::{ErrorOp, JobOutput, Live, SecondStats, LATE_NS};
use crate::gen::Op;
use crate::hist::Histogram;
use crate::measurement::kinds::prio::PrioRec;
use crate::result::ErrorStat;
use crate::spec::{AccessSpec, MAX_THRESHOLDS};

/// Per-second counters of response times (and, in open loop, of lat beside them) against the
/// spec's thresholds: bucket k counts the I/Os at or over exactly k thresholds (integer compares
/// only, exact at every boundary).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Thresholds {
    pub(super) ns: [u64; MAX_THRESHOLDS],
    pub(super) n: usize,
}

impl Thresholds {
    pub(super) fn new(list: &[u64]) -> Thresholds {
        let mut t = Thresholds::default();
        for (slot, &v) in t.ns.iter_mut().zip(list) {
            *slot = v;
        }
        t.n = list.len().min(MAX_THRESHOLDS);
        t
    }

    /// How many thresholds `ns` is at or over (thresholds ascend).
    #[inline(always)]
    pub(super) fn bucket(&self, ns: u64) -> usize {
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

/// Per-direction counts of the current second.
pub(super) struct Interval {
    pub(super) read: Histogram,
    pub(super) write: Histogram,
    pub(super) read_bytes: u64,
    pub(super) write_bytes: u64,
    /// Trims (discards, punched holes): their own direction.
    pub(super) trim: Histogram,
    pub(super) trim_bytes: u64,
    /// Open loop only (left empty otherwise).
    pub(super) resp_read: Histogram,
    pub(super) resp_write: Histogram,
    pub(super) over_threshold: [u32; MAX_THRESHOLDS + 1],
    /// Open loop only: lat against the thresholds (`over_threshold` holds response times).
    pub(super) lat_over_threshold: [u32; MAX_THRESHOLDS + 1],
    /// Open loop only: the target's share of the response time (`Slot::target_response_ns`)
    /// against the thresholds.
    pub(super) ready_over_threshold: [u32; MAX_THRESHOLDS + 1],
    pub(super) lag_max: u64,
    pub(super) tool_lag_max: u64,
}

impl Interval {
    pub(super) fn new() -> Interval {
        Interval {
            read: Histogram::new(),
            write: Histogram::new(),
            read_bytes: 0,
            write_bytes: 0,
            trim: Histogram::new(),
            trim_bytes: 0,
            resp_read: Histogram::new(),
            resp_write: Histogram::new(),
            over_threshold: [0; MAX_THRESHOLDS + 1],
            lat_over_threshold: [0; MAX_THRESHOLDS + 1],
            ready_over_threshold: [0; MAX_THRESHOLDS + 1],
            lag_max: 0,
            tool_lag_max: 0,
        }
    }
    pub(super) fn clear(&mut self) {
        // Histogram::clear is cheap on an empty histogram, so the open-loop ones cost nothing
        // in closed loop.
        self.read.clear();
        self.write.clear();
        self.read_bytes = 0;
        self.write_bytes = 0;
        self.trim.clear();
        self.trim_bytes = 0;
        self.resp_read.clear();
        self.resp_write.clear();
        self.over_threshold = [0; MAX_THRESHOLDS + 1];
        self.lat_over_threshold = [0; MAX_THRESHOLDS + 1];
        self.ready_over_threshold = [0; MAX_THRESHOLDS + 1];
        self.lag_max = 0;
        self.tool_lag_max = 0;
    }
    pub(super) fn is_empty(&self) -> bool {
        self.read.count() + self.write.count() + self.trim.count() == 0
    }
}

pub(super) struct Recorder {
    /// A file set's paths (`JobCtx::file_names`): an I/O error names its file.
    pub(super) file_names: Vec<String>,
    pub(super) paced: bool,
    /// Record clat beside lat (an asynchronous backend: the two differ by the submit call).
    pub(super) clat: bool,
    pub(super) thresholds: Thresholds,
    pub(super) iv: Interval,
    /// Scratch for the per-second roll (both directions), reused: the roll clones nothing.
    pub(super) both: Histogram,
    pub(super) out: JobOutput,
    /// Measured ops and bytes so far, published for the progress display.
    pub(super) ops: u64,
    pub(super) bytes: u64,
    /// fio's log files, when the spec asks for them.
    pub(super) log: Option<Box<crate::iolog::Recorder>>,
    /// fio's `ignore_error`: the errnos the job continues after.
    pub(super) ignore: crate::spec::ignore_error::IgnoreErrors,
    /// fio's `fill_device`: a write that finds the file system full ends the job cleanly.
    pub(super) fill: bool,
    /// With `fill`: the file system was found full; the job ends (not an error).
    pub(super) full: bool,
    /// With per-I/O priorities: each priority's completion latency.
    prio: Option<PrioRec>,
}

impl Recorder {
    /// What a job of `spec` records (`paced`: open loop; `clat`: beside lat), its series sized
    /// for `seconds_hint` seconds: everything the job records is set up here, from its spec.
    pub(super) fn new(spec: &AccessSpec, paced: bool, clat: bool, seconds_hint: u64) -> Recorder {
        let out = JobOutput { series: Vec::with_capacity(seconds_hint.min(3600) as usize + 1), ..Default::default() };
        let log = spec.io_log.as_ref().map(|l| Box::new(crate::iolog::Recorder::new(l, spec.jobs, clat)));
        Recorder {
            file_names: Vec::new(),
            paced,
            clat,
            thresholds: Thresholds::new(&spec.thresholds_ns),
            iv: Interval::new(),
            both: Histogram::new(),
            out,
            ops: 0,
            bytes: 0,
            log,
            ignore: spec.ignore_errors.as_deref().cloned().unwrap_or_default(),
            fill: spec.fill_device,
            full: false,
            prio: PrioRec::of(spec),
        }
    }

    /// Measurement starts: forget what the ramp recorded.
    pub(super) fn restart(&mut self) {
        self.iv.clear();
    }

    /// Measurement starts over (fio's latency target found its depth): what was measured is
    /// dropped, the errors are kept.
    pub(super) fn restart_measurement(&mut self) {
        let errors = std::mem::take(&mut self.out.errors);
        let seconds = self.out.series.capacity();
        self.out = JobOutput { series: Vec::with_capacity(seconds), errors, ..Default::default() };
        self.iv.clear();
        if let Some(p) = self.prio.as_mut() {
            p.clear();
        }
        (self.ops, self.bytes) = (0, 0);
    }

    /// Open loop: an I/O of the measured part was issued `lag` ns after its intended time,
    /// `tool_lag` of them after it could first have been issued (a slot free).
    #[inline]
    pub(super) fn issued_late(&mut self, lag: u64, tool_lag: u64) {
        self.out.lag.record(lag);
        self.out.tool_lag.record(tool_lag);
        self.iv.lag_max = self.iv.lag_max.max(lag);
        self.iv.tool_lag_max = self.iv.tool_lag_max.max(tool_lag);
        self.out.late_ops += (lag > LATE_NS) as u64;
    }

    /// A measured submit call of `ios` I/Os took `ns`: each I/O's slat (asynchronous backends
    /// only), as fio counts it, so that for the means too lat = slat + clat.
    #[inline]
    pub(super) fn submitted(&mut self, ns: u64, ios: u64) {
        self.out.slat.record_n(ns, ios);
    }

    /// A measured I/O completed in full at `done`: its lat in the second's histograms, its clat
    /// (asynchronous backends) in the totals.
    #[inline]
    pub(super) fn completed(&mut self, s: &Slot, done: u64) {
        let iv = &mut self.iv;
        let service = s.lat_ns(done);
        let clat = s.clat_ns(done);
        let resp = match s.op {
            Op::Read => {
                iv.read.record(service);
                iv.read_bytes += s.len as u64;
                if self.clat {
                    self.out.clat_read.record(clat);
                }
                if let Some(p) = self.prio.as_mut() {
                    p.record(s.op, s.prio, clat);
                }
                &mut iv.resp_read
            }
            Op::Write => {
                iv.write.record(service);
                iv.write_bytes += s.len as u64;
                if self.clat {
                    self.out.clat_write.record(clat);
                }
                if let Some(p) = self.prio.as_mut() {
                    p.record(s.op, s.prio, clat);
                }
                &mut iv.resp_write
            }
            Op::Trim => {
                // Trims run closed loop only (the spec refuses a rate with them).
                iv.trim.record(service);
                iv.trim_bytes += s.len as u64;
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
            if self.paced {
                iv.lat_over_threshold[self.thresholds.bucket(service)] += 1;
                iv.ready_over_threshold[self.thresholds.bucket(s.target_response_ns(done))] += 1;
            }
        }
        self.ops += 1;
        self.bytes += s.len as u64;
        if let Some(log) = self.log.as_mut() {
            let dir = match s.op {
                Op::Read => 0,
                Op::Write => 1,
                Op::Trim => 2,
            };
            log.io(dir, s.len, s.offset, s.prio, service, s.t_submit.saturating_sub(s.t_before), done, s.file);
        }
    }

    /// A failed or short I/O (or fsync): counted; true when it stops the job as an error. An
    /// errno `ignore_error` lists for the I/O's direction is counted as continued (not a
    /// failure); with `fill_device`, a write that finds the file system full (ENOSPC, EDQUOT,
    /// or short) is counted as continued and ends the job cleanly (`full`).
    pub(super) fn failed(
        &mut self,
        op: ErrorOp,
        file: Option<u32>,
        offset: u64,
        res: i32,
        continue_on_error: bool,
    ) -> bool {
        let ignored = self.ignore.continues(matches!(op, ErrorOp::Io(Op::Read)), res);
        let full =
            self.fill && op == ErrorOp::Io(Op::Write) && (res >= 0 || res == -libc::ENOSPC || res == -libc::EDQUOT);
        let name = file.and_then(|f| self.file_names.get(f as usize)).map(String::as_str);
        note_error(&mut self.out.errors, op, name, offset, res, ignored || full);
        if full && !ignored {
            self.full = true;
            return false;
        }
        !continue_on_error && !ignored
    }

    /// A step of the machinery failed mid-run (the job stops): recorded as an error of that
    /// step, with what the system said.
    pub(super) fn machinery_failed(&mut self, op: ErrorOp, e: &std::io::Error) {
        self.out.errors.push(ErrorStat {
            target: String::new(),
            op: op.name().into(),
            errno: e.raw_os_error().unwrap_or(0),
            error: e.to_string(),
            count: 1,
            first_offset_bytes: 0,
            continued: false,
        });
    }

    #[inline]
    pub(super) fn publish(&self, live: &Live) {
        live.ops.store(self.ops, Ordering::Relaxed);
        live.bytes.store(self.bytes, Ordering::Relaxed);
        // The clat totals where they are kept (asynchronous backends), else lat: the seconds
        // closed and the one under way.
        let o = &self.out;
        let sum = if self.clat {
            o.clat_read.sum() + o.clat_write.sum() + self.iv.trim.sum() + o.trim.sum()
        } else {
            o.read.sum() + o.write.sum() + o.trim.sum() + self.iv.read.sum() + self.iv.write.sum() + self.iv.trim.sum()
        };
        live.clat_sum_ns.store(sum.min(u64::MAX as u128) as u64, Ordering::Relaxed);
    }

    /// Close the current second: save it (sparse: the one allocation per second) to the series
    /// and fold it into the totals.
    pub(super) fn roll(&mut self, dur_ns: u64, live: &Live) {
        let iv = &mut self.iv;
        let out = &mut self.out;
        self.both.clear();
        self.both.merge(&iv.read);
        self.both.merge(&iv.write);
        self.both.merge(&iv.trim);
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
            trim_ops: iv.trim.count(),
            trim_bytes: iv.trim_bytes,
            lat_sum_ns,
            buckets,
            resp_buckets,
            over_threshold: iv.over_threshold,
            lat_over_threshold: iv.lat_over_threshold,
            ready_over_threshold: iv.ready_over_threshold,
            lag_max_ns: iv.lag_max,
            tool_lag_max_ns: iv.tool_lag_max,
        });
        out.read.merge(&iv.read);
        out.write.merge(&iv.write);
        out.read_bytes += iv.read_bytes;
        out.write_bytes += iv.write_bytes;
        out.trim.merge(&iv.trim);
        out.trim_bytes += iv.trim_bytes;
        iv.clear();
    }

    /// Follow the window: start over when measurement starts, roll each second. True when the
    /// measured time is up.
    pub(super) fn tick(&mut self, tick: Tick, start: u64, live: &Live) -> bool {
        match tick {
            Tick::Ramping => false,
            Tick::Started => {
                self.restart();
                if let Some(log) = self.log.as_mut() {
                    log.start(start);
                }
                live.measuring.store(true, Ordering::Relaxed);
                self.publish(live);
                false
            }
            Tick::Measuring { rolled, over } => {
                if let Some(dur) = rolled {
                    self.roll(dur, live);
                }
                self.publish(live);
                over
            }
        }
    }

    /// Open loop (`behind` is Some): give up past `max_lag_ns` (true: stop), and note how far
    /// behind the job was when it stopped.
    pub(super) fn check_schedule(&mut self, behind: Option<u64>, max_lag_ns: u64, stopping: bool) -> bool {
        let Some(behind) = behind else { return false };
        let give_up = !stopping && behind > max_lag_ns;
        self.out.gave_up |= give_up;
        if (stopping || give_up) && self.out.final_lag_ns == 0 {
            self.out.final_lag_ns = behind;
        }
        give_up
    }

    /// The job ended at `last_t`: close the last partial second and the window's figures.
    /// The figures so far at `t`, as `finish` gives them at the end, for a status report
    /// (`run/status.rs`): a copy; the job goes on.
    pub(super) fn snapshot(&self, window: &Window, t: u64) -> JobOutput {
        let mut out = self.out.report_copy();
        // The second in progress is in `iv` until it rolls: counted too.
        let iv = &self.iv;
        out.read.merge(&iv.read);
        out.write.merge(&iv.write);
        out.trim.merge(&iv.trim);
        (out.read_bytes, out.write_bytes, out.trim_bytes) =
            (out.read_bytes + iv.read_bytes, out.write_bytes + iv.write_bytes, out.trim_bytes + iv.trim_bytes);
        if self.paced {
            out.resp_read.merge(&iv.resp_read);
            out.resp_write.merge(&iv.resp_write);
        }
        if window.measuring {
            (out.cpu_usr_ns, out.cpu_sys_ns, out.runq_wait_ns) = window.cpu();
            out.usage = crate::usage::ThreadUsage::of_thread().since(window.usage0);
            out.window_ns = t.saturating_sub(window.start);
        }
        out.kinds.clat_prio = self.prio.as_ref().map(PrioRec::finish).unwrap_or_default();
        out
    }

    pub(super) fn finish(mut self, window: &Window, last_t: u64, live: &Live) -> JobOutput {
        if window.measuring {
            (self.out.cpu_usr_ns, self.out.cpu_sys_ns, self.out.runq_wait_ns) = window.cpu();
            self.out.usage = crate::usage::ThreadUsage::of_thread().since(window.usage0);
            self.out.window_ns = last_t.saturating_sub(window.start);
            if !self.iv.is_empty() {
                self.roll(last_t - window.tick_start, live);
            }
        }
        let measured = if window.measuring { self.out.window_ns } else { 0 };
        self.out.io_log = self.log.take().map(|l| l.finish(measured));
        self.out.kinds.clat_prio = self.prio.as_ref().map(PrioRec::finish).unwrap_or_default();
        self.out
    }
}

/// Count an error of `op` (on the file `name` of a file set; None: the job's target) in `errors`:
/// a new entry for its first of a kind (allocated then; errors are rare), a count after.
pub(super) fn note_error(
    errors: &mut Vec<ErrorStat>,
    op: ErrorOp,
    name: Option<&str>,
    offset: u64,
    res: i32,
    continued: bool,
) {
    let errno = if res < 0 { -res } else { 0 };
    let target = name.unwrap_or("");
    let same =
        |e: &&mut ErrorStat| e.errno == errno && e.op == op.name() && e.continued == continued && e.target == target;
    if let Some(e) = errors.iter_mut().find(same) {
        e.count += 1;
        return;
    }
    let error = if errno == 0 {
        format!("short {} ({} bytes)", op.name(), res)
    } else {
        std::io::Error::from_raw_os_error(errno).to_string()
    };
    errors.push(ErrorStat {
        target: target.to_string(),
        op: op.name().into(),
        errno,
        error,
        count: 1,
        first_offset_bytes: offset,
        continued,
    });
}
