//! Latency stamps: where an I/O's latencies start and end. Every clock read that feeds a latency
//! is here, so moving where latency starts is a change in this one place.
//!
//! Three figures, fio's names and definitions:
//! - `lat`: from just before the submit call to the completion stamp — the primary latency, what
//!   the I/O cost its issuer. An I/O that completes inside the submit call (a page-cache hit,
//!   the null target) still shows the time the call took, not tens of nanoseconds.
//! - `clat`: from the return of the submit call to the completion stamp (asynchronous backends
//!   only; a synchronous call's I/O is complete when it returns, so its clat would be its lat).
//! - `slat`: the submit call itself, once per call (every I/O of a batch shares it).

use crate::backend::Backend;
use crate::clock::Clock;
use crate::gen::Op;

/// The stamps of one I/O in flight.
#[derive(Clone, Copy)]
pub(super) struct Slot {
    pub(super) op: Op,
    pub(super) len: u32,
    pub(super) offset: u64,
    /// Its I/O priority (ioprio; 0: the thread's).
    pub(super) prio: u16,
    /// Which of the job's files (0 for a job of one).
    pub(super) file: u32,
    /// A trim's ranges (fio's `num_range`; 1 for every other I/O): `len` is their sum.
    pub(super) ranges: u16,
    /// Just before its submit call (where `lat` starts).
    pub(super) t_before: u64,
    /// When its submit call returned (where `clat` starts; for a synchronous backend, the same
    /// as `t_before`).
    pub(super) t_submit: u64,
    /// Open loop: when it was meant to be issued (0 in closed loop).
    pub(super) t_intended: u64,
    /// Open loop: when it could first have been issued: its intended time, or later, when a
    /// queue slot was first free (before that the target held every slot).
    pub(super) t_ready: u64,
    /// When the slot's previous I/O completed (its completion stamp; 0 before any).
    pub(super) t_freed: u64,
    /// Open loop: when it would have been issued had drivelab never been late itself: its
    /// intended time, or later, when the slot's previous I/O would have completed (`v_freed`).
    /// Each I/O's own time is its real one; only drivelab's lateness is taken out, and with it
    /// the queue that lateness built behind it.
    pub(super) t_virtual: u64,
    /// Open loop: when the slot's previous I/O would have completed so (its `t_virtual` plus
    /// its lat; 0 before any).
    pub(super) v_freed: u64,
    /// Off the free list: queued, held or in flight (verify's overlap check looks at these).
    pub(super) busy: bool,
}

/// Read just before a submit call: where every I/O of the call starts its `lat`.
#[inline(always)]
pub(super) fn stamp_before_submit(clock: &impl Clock) -> u64 {
    clock.now()
}

/// Read when a submit call returns: where an asynchronous I/O starts its `clat`. A synchronous
/// backend's I/O is complete by then, so its clat is its lat: `before`, with no clock read.
#[inline(always)]
pub(super) fn stamp_after_submit<B: Backend>(before: u64, clock: &impl Clock) -> u64 {
    if B::SUBMIT_COMPLETES {
        before
    } else {
        clock.now()
    }
}

/// The completion stamp shared by every completion of one reap pass (read after the wait).
#[inline(always)]
pub(super) fn stamp_completion(clock: &impl Clock) -> u64 {
    clock.now()
}

impl Slot {
    /// `lat`: from just before the submit call to the completion stamp.
    #[inline(always)]
    pub(super) fn lat_ns(&self, done: u64) -> u64 {
        done - self.t_before
    }
    /// `clat`: from the submit call's return to the completion stamp.
    #[inline(always)]
    pub(super) fn clat_ns(&self, done: u64) -> u64 {
        done.saturating_sub(self.t_submit)
    }
    /// Response time: from the intended issue time (open loop) to the completion stamp.
    #[inline(always)]
    pub(super) fn response_ns(&self, done: u64) -> u64 {
        done.saturating_sub(self.t_intended)
    }
    /// Open loop: how late the I/O was issued (its submit call began), for whatever reason.
    #[inline(always)]
    pub(super) fn lag_ns(&self) -> u64 {
        self.t_before.saturating_sub(self.t_intended)
    }
    /// Open loop: how late drivelab itself was: from when the I/O could first have been issued
    /// (intended time and a free slot) to its submit call. The rest of the lag is the target's:
    /// every slot was busy.
    #[inline(always)]
    pub(super) fn tool_lag_ns(&self) -> u64 {
        self.t_before.saturating_sub(self.t_ready)
    }
    /// Open loop: the response time had drivelab never been late itself (see `t_virtual`): the
    /// target's share of the response time, from the intended time to the completion.
    #[inline(always)]
    pub(super) fn target_response_ns(&self, done: u64) -> u64 {
        (self.t_virtual + self.lat_ns(done)).saturating_sub(self.t_intended)
    }
}
