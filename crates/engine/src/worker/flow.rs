//! The runtime side of fio's token flow (`spec/flow.rs`): one lock-free counter per flow id,
//! shared by the run's jobs of that id. Per I/O a job reads the counter and the total weight
//! (two relaxed loads) and, when within its share, adds 1 (one atomic add): no lock, no
//! allocation.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

/// One flow id's shared state.
#[derive(Debug)]
pub struct FlowGroup {
    /// I/Os admitted by the flow's running jobs, plus 1 (fio starts it at 1).
    counter: AtomicU64,
    /// The weights of the flow's running jobs.
    total_weight: AtomicU64,
}

impl FlowGroup {
    /// A flow whose jobs that start with the run weigh `starting` together: they are counted
    /// before any of them issues an I/O, as fio's jobs join their flow before the run starts.
    /// Counted when a job's thread reached its queue, a job scheduled late on a busy machine let
    /// the others run unchecked until it came (a ratio of 35 for 8 was seen).
    pub fn new(starting: u64) -> Self {
        FlowGroup { counter: AtomicU64::new(1), total_weight: AtomicU64::new(starting) }
    }
}

/// One job's gate into its flow.
pub struct FlowGate {
    group: Arc<FlowGroup>,
    weight: u64,
    mine: u64,
    sleep_ns: u64,
}

impl FlowGate {
    /// Join `group` with `weight` as the job starts: a job that started with the run is already
    /// counted in its weight (`FlowGroup::new`), a delayed one (fio's `startdelay`) joins now.
    pub fn join(group: Arc<FlowGroup>, weight: u32, sleep_ns: u64, counted: bool) -> FlowGate {
        if !counted {
            group.total_weight.fetch_add(weight as u64, Relaxed);
        }
        FlowGate { group, weight: weight as u64, mine: 0, sleep_ns }
    }

    /// Whether the job may issue its next I/O now (then it is counted): its share of the
    /// flow's I/Os is not above its share of the flow's weight.
    #[inline]
    pub fn admit(&mut self) -> bool {
        let all = self.group.counter.load(Relaxed);
        let total = self.group.total_weight.load(Relaxed).max(1);
        // mine/all > weight/total, in integers.
        if self.mine as u128 * total as u128 > self.weight as u128 * all as u128 {
            return false;
        }
        self.group.counter.fetch_add(1, Relaxed);
        self.mine += 1;
        true
    }

    /// An admitted I/O that was not issued after all: uncounted.
    pub fn unadmit(&mut self) {
        self.group.counter.fetch_sub(1, Relaxed);
        self.mine -= 1;
    }

    /// Wait before trying again, as fio does when a job is ahead of its share.
    pub fn pause(&self) {
        if self.sleep_ns > 0 {
            std::thread::sleep(std::time::Duration::from_nanos(self.sleep_ns));
        } else {
            std::thread::yield_now();
        }
    }
}

impl Drop for FlowGate {
    /// The job ends: its count and weight leave the flow, so the others are not held back.
    fn drop(&mut self) {
        self.group.counter.fetch_sub(self.mine, Relaxed);
        self.group.total_weight.fetch_sub(self.weight, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_jobs_keep_the_ratio_of_their_weights() {
        let g = Arc::new(FlowGroup::new(1));
        let (mut a, mut b) = (FlowGate::join(g.clone(), 1, 0, true), FlowGate::join(g.clone(), 3, 0, false));
        let (mut na, mut nb) = (0, 0);
        // Both try in turn, as fast as they can: b gets three I/Os to a's one.
        for _ in 0..4000 {
            na += a.admit() as u64;
            nb += b.admit() as u64;
        }
        let ratio = nb as f64 / na as f64;
        assert!((2.9..3.1).contains(&ratio), "{nb}/{na} = {ratio}");
        drop(b);
        // Alone now, a is never held back.
        assert!((0..100).all(|_| a.admit()));
    }

    #[test]
    fn a_job_counted_from_the_start_holds_the_others_back_before_it_joins() {
        // Both start with the run (weights 1 and 8); the heavier one's thread is first.
        let g = Arc::new(FlowGroup::new(9));
        let mut b = FlowGate::join(g.clone(), 8, 0, true);
        let admitted = (0..1000).filter(|_| b.admit()).count();
        assert!(admitted <= 9, "the late job's share is kept for it: {admitted} admitted");
        let mut a = FlowGate::join(g.clone(), 1, 0, true);
        assert!(a.admit());
    }
}
