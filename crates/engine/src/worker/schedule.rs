//! Schedule: what may be issued when (closed or open loop) and the fsync cadence.

use super::JobCtx;
use crate::pace::Pace;
use crate::spec::{Arrivals, PaceMode, SyncMode};

pub(super) struct Schedule {
    /// Open loop: the intended issue times; None: closed loop (issue whenever a slot is free).
    pub(super) pace: Option<Pace>,
    /// Open loop: give up when this far behind.
    pub(super) max_lag_ns: u64,
    /// Open loop: how to wait for the next intended time.
    pub(super) mode: PaceMode,
    /// An fsync after every this many writes (0: never).
    pub(super) fsync_every: u32,
    pub(super) writes_since_sync: u32,
}

impl Schedule {
    pub(super) fn new(ctx: &JobCtx, begin: u64) -> Schedule {
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
        // `auto` is resolved when a run starts (`run_streams`); a job started alone counts as one
        // job on the CPUs this thread may use.
        let cpus = crate::affinity::allowed_cpus().len().max(1);
        let mode = spec.rate.map(|r| r.pace).unwrap_or_default().resolve(1, cpus);
        Schedule { pace, max_lag_ns, mode, fsync_every, writes_since_sync: 0 }
    }

    pub(super) fn paced(&self) -> bool {
        self.pace.is_some()
    }

    /// Writes wait until the fsync that is due has been done.
    #[inline]
    pub(super) fn sync_due(&self) -> bool {
        self.fsync_every > 0 && self.writes_since_sync >= self.fsync_every
    }

    /// The next I/O, if it may be issued at `now`: its intended time (0 in closed loop).
    #[inline]
    pub(super) fn take(&mut self, now: u64) -> Option<u64> {
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
    pub(super) fn wrote(&mut self) {
        self.writes_since_sync += 1;
    }

    pub(super) fn synced(&mut self) {
        self.writes_since_sync = 0;
    }

    /// Open loop: when the next I/O is due.
    #[inline]
    pub(super) fn next_due(&self) -> Option<u64> {
        self.pace.as_ref().map(Pace::due)
    }

    /// Open loop: how far behind its schedule the job is at `t`.
    #[inline]
    pub(super) fn behind(&self, t: u64) -> Option<u64> {
        self.next_due().map(|due| t.saturating_sub(due))
    }
}
