//! Window: ramp, measurement, per-second ticks, and the end by time, bytes or I/O count.

use super::SECOND;
use crate::clock::{thread_cpu_ns, thread_runq_wait_ns};
use crate::spec::AccessSpec;

pub(super) struct Window {
    pub(super) measuring: bool,
    pub(super) ramp_end: u64,
    pub(super) run_ns: u64,
    /// Start of measurement (valid once measuring).
    pub(super) start: u64,
    /// End of measurement by time (u64::MAX until measuring).
    pub(super) end: u64,
    pub(super) tick_start: u64,
    pub(super) next_tick: u64,
    /// Bytes to issue in the measured part, and issued so far.
    pub(super) io_limit: u64,
    pub(super) issued_bytes: u64,
    /// fio's `number_ios`: I/Os to issue in the measured part (u64::MAX: no bound), and issued
    /// so far.
    pub(super) ops_limit: u64,
    pub(super) issued_ops: u64,
    /// Thread CPU time and run-queue wait at the start of measurement.
    pub(super) cpu0: (u64, u64),
    pub(super) wait0: u64,
    /// Context switches and page faults at the start of measurement.
    pub(super) usage0: crate::usage::ThreadUsage,
}

/// What moving the window to a new time did.
pub(super) enum Tick {
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
    pub(super) fn new(spec: &AccessSpec, begin: u64) -> Window {
        let mut w = Window {
            measuring: false,
            ramp_end: begin + spec.ramp_ns,
            run_ns: spec.time_ns.unwrap_or(u64::MAX / 4),
            start: begin,
            end: u64::MAX,
            tick_start: begin,
            next_tick: begin + SECOND,
            // SPRandom's pass is the job's bytes (fio sets its io_size so): it ends the job.
            io_limit: if spec.sprandom.on { u64::MAX } else { spec.io_size_bytes.unwrap_or(u64::MAX) },
            issued_bytes: 0,
            ops_limit: spec.number_ios.unwrap_or(u64::MAX),
            issued_ops: 0,
            cpu0: (0, 0),
            wait0: 0,
            usage0: Default::default(),
        };
        if spec.ramp_ns == 0 {
            w.start_at(begin);
        }
        w
    }

    pub(super) fn start_at(&mut self, t: u64) {
        self.measuring = true;
        self.start = t;
        self.tick_start = t;
        self.next_tick = t + SECOND;
        self.end = t.saturating_add(self.run_ns);
        self.cpu0 = thread_cpu_ns();
        self.wait0 = thread_runq_wait_ns();
        self.usage0 = crate::usage::ThreadUsage::of_thread();
    }

    /// Measurement starts over at `t` (fio's latency target found its depth): a new measured
    /// time and byte budget from `t`.
    pub(super) fn restart_at(&mut self, t: u64) {
        self.start_at(t);
        self.issued_bytes = 0;
    }

    /// The measured part's bytes are all issued: issue no more.
    #[inline]
    pub(super) fn budget_spent(&self) -> bool {
        self.measuring && (self.issued_bytes >= self.io_limit || self.issued_ops >= self.ops_limit)
    }

    #[inline]
    pub(super) fn issued(&mut self, len: u32) {
        if self.measuring {
            self.issued_bytes += len as u64;
            self.issued_ops += 1;
        }
    }

    /// An idle open-loop job sleeps no later than this (the end of the ramp or of the run).
    pub(super) fn wake_limit(&self) -> u64 {
        if self.measuring {
            self.end
        } else {
            self.ramp_end
        }
    }

    pub(super) fn advance(&mut self, t: u64) -> Tick {
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
            // Seconds stay on the grid counted from the start (a quiet gap skips grid points):
            // jobs that started together keep their k-th seconds over the same wall-clock second,
            // however their I/Os fall.
            self.next_tick += SECOND * ((t - self.next_tick) / SECOND + 1);
            dur
        });
        Tick::Measuring { rolled, over: t >= self.end }
    }

    /// CPU (user, system) and run-queue wait since measurement started.
    pub(super) fn cpu(&self) -> (u64, u64, u64) {
        let (u1, s1) = thread_cpu_ns();
        (u1 - self.cpu0.0, s1 - self.cpu0.1, thread_runq_wait_ns().saturating_sub(self.wait0))
    }
}
