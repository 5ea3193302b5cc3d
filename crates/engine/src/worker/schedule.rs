//! Schedule: what may be issued when (closed or open loop) and the fsync cadence.
//!
//! An open loop has one schedule per job, whose I/Os any free slot takes, or (`Rate::per_slot`,
//! ACT's service threads) one per slot at the job's rate / qd: a slot's next I/O is due at its own
//! next intended time, and goes out only once the slot's previous I/O is done.

use super::JobCtx;
use crate::pace::Pace;
use crate::spec::{Arrivals, PaceMode, Think, HYBRID_SPIN_NS};

/// Hybrid pacing's spin: how long before an intended time the thread stops sleeping and spins.
/// It follows how late this thread's timer wake-ups have been: twice the worst recent lateness
/// plus 5 µs, between 10 µs and [`HYBRID_SPIN_NS`]. One late wake-up widens it at once; it
/// narrows by 1/64 a wake-up, so a machine whose timers are punctual pays for little spinning
/// (a fixed 100 µs spent half a core at 5000 I/Os per second).
pub(super) struct SpinWindow {
    worst_late_ns: u64,
}

impl SpinWindow {
    fn new() -> SpinWindow {
        SpinWindow { worst_late_ns: HYBRID_SPIN_NS / 2 }
    }

    /// How long before an intended time to start spinning.
    #[inline]
    pub(super) fn ns(&self) -> u64 {
        (2 * self.worst_late_ns + 5_000).clamp(10_000, HYBRID_SPIN_NS)
    }

    /// A wake-up meant for `target` came at `now`.
    #[inline]
    pub(super) fn woke(&mut self, target: u64, now: u64) {
        let late = now.saturating_sub(target);
        self.worst_late_ns = late.max(self.worst_late_ns - self.worst_late_ns / 64);
    }
}

/// When the I/Os of an open loop are due.
pub(super) enum Pacing {
    /// One schedule for the job.
    Shared(Pace),
    /// One schedule per slot.
    PerSlot(Vec<Pace>),
}

pub(super) struct Schedule {
    /// Open loop: the intended issue times; None: closed loop (issue whenever a slot is free).
    pub(super) pace: Option<Pacing>,
    /// Open loop: give up when this far behind.
    pub(super) max_lag_ns: u64,
    /// Open loop: how to wait for the next intended time.
    pub(super) mode: PaceMode,
    /// Hybrid pacing: when to stop sleeping and spin.
    pub(super) spin: SpinWindow,
    /// An fsync after every this many writes (0: never).
    pub(super) fsync_every: u32,
    pub(super) writes_since_sync: u32,
    /// Think time, and the I/Os issued so far and counted at the last think.
    pub(super) think: Option<Think>,
    issued: u64,
    think_from: u64,
}

impl Schedule {
    pub(super) fn new(ctx: &JobCtx, begin: u64) -> Schedule {
        let spec = &*ctx.spec;
        let pace = ctx.pace.map(|(iops, phase)| {
            crate::clock::precise_timers();
            let rate = spec.rate.unwrap_or_default();
            let poisson = rate.arrivals == Arrivals::Poisson;
            let seed = spec.offset_seed() ^ ctx.job ^ 0x9ace;
            if let Some(t) = &ctx.trace {
                return Pacing::Shared(Pace::trace(t.clone(), begin));
            }
            if !rate.per_slot {
                return Pacing::Shared(Pace::new(iops, poisson, begin, phase, seed));
            }
            // Slot k at iops / qd; aligned slots all start at once (ACT), others take turns.
            let qd = spec.qd.max(1) as f64;
            let slots = (0..spec.qd.max(1) as u64).map(|k| {
                let slot_phase = if rate.aligned { 0.0 } else { (k as f64 + phase) / qd };
                Pace::new(iops / qd, poisson, begin, slot_phase, seed ^ (k << 32))
            });
            Pacing::PerSlot(slots.collect())
        });
        if spec.think.is_some() {
            // Think times are short sleeps: the default 50 µs timer slack would lengthen each.
            crate::clock::precise_timers();
        }
        let fsync_every = spec.sync.every();
        let max_lag_ns = spec.rate.and_then(|r| r.max_lag_ns).unwrap_or(u64::MAX);
        // `auto` is resolved when a run starts (`run_streams`); a job started alone counts as one
        // job on the CPUs this thread may use.
        let cpus = crate::affinity::allowed_cpus().len().max(1);
        let spin = spec.hybrid_spin_cpus(1, 1);
        let mode = spec.rate.map(|r| r.pace).unwrap_or_default().resolve(spin, cpus);
        Schedule {
            pace,
            max_lag_ns,
            mode,
            spin: SpinWindow::new(),
            fsync_every,
            writes_since_sync: 0,
            think: spec.think,
            issued: 0,
            think_from: 0,
        }
    }

    pub(super) fn paced(&self) -> bool {
        self.pace.is_some()
    }

    /// Writes wait until the fsync that is due has been done.
    #[inline]
    pub(super) fn sync_due(&self) -> bool {
        self.fsync_every > 0 && self.writes_since_sync >= self.fsync_every
    }

    /// One schedule per slot: `take` only for the slot it names.
    pub(super) fn per_slot(&self) -> bool {
        matches!(self.pace, Some(Pacing::PerSlot(_)))
    }

    /// The next I/O (of `slot`, with one schedule per slot), if it may be issued at `now`: its
    /// intended time (0 in closed loop).
    #[inline]
    pub(super) fn take(&mut self, slot: u32, now: u64) -> Option<u64> {
        let p = match self.pace.as_mut() {
            None => return Some(0),
            Some(Pacing::Shared(p)) => p,
            Some(Pacing::PerSlot(ps)) => &mut ps[slot as usize],
        };
        let due = p.due();
        if due > now {
            return None;
        }
        p.advance();
        Some(due)
    }

    #[inline]
    pub(super) fn wrote(&mut self) {
        self.writes_since_sync += 1;
    }

    /// An I/O was issued (think time counts them).
    #[inline]
    pub(super) fn issued_one(&mut self) {
        self.issued += 1;
    }

    /// Think time is due: `blocks` I/Os issued since the last think (as fio does, whatever the
    /// queue depth: no more are issued until the job has drained and stalled).
    #[inline]
    pub(super) fn think_due(&self) -> bool {
        self.think.is_some_and(|t| self.issued - self.think_from >= t.blocks as u64)
    }

    /// The think was taken.
    pub(super) fn thought(&mut self) {
        self.think_from = self.issued;
    }

    pub(super) fn synced(&mut self) {
        self.writes_since_sync = 0;
    }

    /// Open loop: when the next I/O that one of the `free` slots may issue is due.
    #[inline]
    pub(super) fn next_due(&self, free: &[u32]) -> Option<u64> {
        match self.pace.as_ref()? {
            Pacing::Shared(p) => Some(p.due()),
            Pacing::PerSlot(ps) => free.iter().map(|&s| ps[s as usize].due()).min(),
        }
    }

    /// Open loop: how far behind its schedule the job (its furthest-behind slot) is at `t`.
    #[inline]
    pub(super) fn behind(&self, t: u64) -> Option<u64> {
        let due = match self.pace.as_ref()? {
            Pacing::Shared(p) => p.due(),
            Pacing::PerSlot(ps) => ps.iter().map(Pace::due).min().unwrap_or(u64::MAX),
        };
        Some(t.saturating_sub(due))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{AccessSpec, Rate};

    fn schedule(per_slot: bool, aligned: bool) -> Schedule {
        let spec = AccessSpec {
            qd: 4,
            rate: Some(Rate { per_s: 4000.0, per_slot, aligned, ..Default::default() }),
            ..Default::default()
        };
        let ctx = crate::worker::tests::ctx(spec, Some(4000.0));
        Schedule::new(&ctx, 1_000_000)
    }

    #[test]
    fn aligned_slots_are_all_due_at_the_start_and_then_every_qd_intervals() {
        // 4000/s over 4 slots: each slot every 1 ms, all four first due at the start.
        let mut s = schedule(true, true);
        let t0 = 1_000_000;
        assert_eq!((0..4).map(|k| s.take(k, t0)).collect::<Vec<_>>(), vec![Some(t0); 4]);
        assert_eq!(s.take(0, t0), None, "slot 0's next is 1 ms later");
        assert_eq!(s.next_due(&[0, 1]), Some(t0 + 1_000_000));
        assert_eq!(s.take(2, t0 + 1_000_000), Some(t0 + 1_000_000));
        // The furthest-behind slot sets how far behind the job is.
        assert_eq!(s.behind(t0 + 1_500_000), Some(500_000));
    }

    #[test]
    fn the_spin_window_follows_how_late_wake_ups_are() {
        let mut w = SpinWindow::new();
        assert_eq!(w.ns(), HYBRID_SPIN_NS, "it starts wide");
        // Punctual wake-ups (3 µs late): it narrows to 2 x 3 + 5 = 11 µs, slowly.
        for _ in 0..2000 {
            w.woke(1_000, 4_000);
        }
        assert_eq!(w.ns(), 11_000);
        // One wake-up 40 µs late widens it at once to 85 µs.
        w.woke(1_000, 41_000);
        assert_eq!(w.ns(), 85_000);
        // Never past the cap, never under 10 µs.
        w.woke(0, 10_000_000);
        assert_eq!(w.ns(), HYBRID_SPIN_NS);
        let mut w = SpinWindow { worst_late_ns: 0 };
        w.woke(5, 5);
        assert_eq!(w.ns(), 10_000);
    }

    #[test]
    fn spread_slots_take_turns_and_a_shared_schedule_serves_any_slot() {
        let t0 = 1_000_000;
        let s = schedule(true, false);
        let firsts: Vec<u64> = (0..4).map(|k| s.next_due(&[k]).unwrap() - t0).collect();
        assert_eq!(firsts, vec![0, 250_000, 500_000, 750_000]);
        let mut s = schedule(false, false);
        assert_eq!(s.take(3, t0), Some(t0));
        assert_eq!(s.take(0, t0 + 250_000), Some(t0 + 250_000), "the next I/O of the job, whichever slot");
    }
}
