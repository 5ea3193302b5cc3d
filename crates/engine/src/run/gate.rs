//! The start gate and the end count of a run's job threads: every job starts from one shared
//! time once all are set up (or none runs), and the caller hears of the last job's end at once.

use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use crate::clock::now_ns;

/// Where every job thread waits after its setup until all are ready, so that all start
/// together. Unlike a `Barrier` it can be cancelled: a start that fails half way (a thread that
/// cannot be spawned, an fd that cannot be duplicated) releases the threads already waiting —
/// they return without running — instead of leaving them blocked forever.
///
/// Opening the gate sets one start time for every job, a little in the future ([`start_margin`]):
/// threads wake from the gate one after another, so a schedule that began at each thread's own
/// wake-up would put the streams out of step by however long the wake-ups took, and a job's first
/// I/Os would be charged for the others' set-up. Every job's schedule, ramp and measured seconds
/// count from the shared start instead.
pub(super) struct StartGate {
    state: Mutex<GateState>,
    cv: Condvar,
}

struct GateState {
    arrived: usize,
    /// A job's setup failed: nobody runs.
    failed: bool,
    /// Some(start time): run from then; Some(None): cancelled.
    open: Option<Option<u64>>,
}

/// How far ahead of the gate's opening the shared start lies: long enough for every job thread
/// to wake from the gate (about 1 ms plus 100 µs a job on a small VM), at most 50 ms.
pub(super) fn start_margin(jobs: usize) -> u64 {
    (1_000_000 + 100_000 * jobs as u64).min(50_000_000)
}

impl StartGate {
    pub(super) fn new() -> StartGate {
        StartGate { state: Mutex::new(GateState { arrived: 0, failed: false, open: None }), cv: Condvar::new() }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, GateState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A job thread whose setup succeeded (`ok`) or not waits for the start: the shared start
    /// time to run from, or None.
    pub(super) fn arrive(&self, ok: bool) -> Option<u64> {
        let mut g = self.lock();
        g.arrived += 1;
        g.failed |= !ok;
        self.cv.notify_all();
        while g.open.is_none() {
            g = self.cv.wait(g).unwrap_or_else(|p| p.into_inner());
        }
        g.open.flatten()
    }

    /// The starter: once `jobs` threads have arrived, open the gate (unless a setup failed):
    /// the shared start time, or None.
    pub(super) fn start(&self, jobs: usize) -> Option<u64> {
        let mut g = self.lock();
        while g.arrived < jobs && g.open.is_none() {
            g = self.cv.wait(g).unwrap_or_else(|p| p.into_inner());
        }
        let go = g.open.unwrap_or_else(|| (!g.failed).then(|| now_ns() + start_margin(jobs)));
        g.open = Some(go);
        self.cv.notify_all();
        go
    }

    /// Release every waiting (and later arriving) thread without running.
    pub(super) fn cancel(&self) {
        self.lock().open = Some(None);
        self.cv.notify_all();
    }
}

/// Counts job threads that have ended, so the main thread learns of the last one at once
/// instead of at its next progress tick (a sleep of 250 ms cost every point of a plan about
/// 150 ms of idle on average).
pub(super) struct Finished {
    count: Mutex<usize>,
    cv: Condvar,
}

impl Finished {
    pub(super) fn new() -> Finished {
        Finished { count: Mutex::new(0), cv: Condvar::new() }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, usize> {
        self.count.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Wait until `jobs` threads have ended (true) or `timeout` has passed (false).
    pub(super) fn wait(&self, jobs: usize, timeout: Duration) -> bool {
        let g = self.lock();
        let (g, _) = self.cv.wait_timeout_while(g, timeout, |n| *n < jobs).unwrap_or_else(|p| p.into_inner());
        *g >= jobs
    }
}

/// Tells [`Finished`] when its job thread ends, however it ends (a panic included).
pub(super) struct EndsJob(pub(super) Arc<Finished>);

impl Drop for EndsJob {
    fn drop(&mut self) {
        *self.0.lock() += 1;
        self.0.cv.notify_all();
    }
}
