//! Latency stamps: where an I/O's service time and response time start and end. Every clock read
//! that feeds a latency is here, so moving where latency starts is a change in this one place.

use crate::backend::Backend;
use crate::clock::now_ns;
use crate::gen::Op;

/// The stamps of one I/O in flight.
#[derive(Clone, Copy)]
pub(super) struct Slot {
    pub(super) op: Op,
    pub(super) len: u32,
    pub(super) offset: u64,
    /// When it counts as issued (see [`stamp_before_submit`]).
    pub(super) t_submit: u64,
    /// Open loop: when it was meant to be issued (0 in closed loop).
    pub(super) t_intended: u64,
}

/// Read before a submit call: a synchronous backend's I/O starts when its call starts.
#[inline(always)]
pub(super) fn stamp_before_submit<B: Backend>() -> u64 {
    if B::SUBMIT_COMPLETES {
        now_ns()
    } else {
        0
    }
}

/// The issue stamp shared by every I/O of one submit call: for an asynchronous backend, when
/// the call returns (fio's clat); for a synchronous one, when it started.
#[inline(always)]
pub(super) fn stamp_after_submit<B: Backend>(before: u64) -> u64 {
    if B::SUBMIT_COMPLETES {
        before
    } else {
        now_ns()
    }
}

/// The completion stamp shared by every completion of one reap pass (read after the wait).
#[inline(always)]
pub(super) fn stamp_completion() -> u64 {
    now_ns()
}

impl Slot {
    /// Service time: from the issue stamp to the completion stamp.
    #[inline(always)]
    pub(super) fn service_ns(&self, done: u64) -> u64 {
        done - self.t_submit
    }
    /// Response time: from the intended issue time (open loop) to the completion stamp.
    #[inline(always)]
    pub(super) fn response_ns(&self, done: u64) -> u64 {
        done.saturating_sub(self.t_intended)
    }
    /// Open loop: how late the I/O was issued.
    #[inline(always)]
    pub(super) fn lag_ns(&self) -> u64 {
        self.t_submit.saturating_sub(self.t_intended)
    }
}
