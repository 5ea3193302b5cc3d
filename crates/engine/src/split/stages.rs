//! Cutting one I/O's `lat` into stages from its stamps: drivelab's two (before the submit call,
//! the reap) and the kernel's between them. Pure, so every case is tested without a kernel.
//!
//! The cut always adds up to `lat` exactly: each kernel stamp is clamped into the span between
//! the stamp before it and the reap, and an I/O whose stamps had to be clamped is counted
//! (`clamped`), so an impossible order is visible, never silently absorbed. The completion stamp
//! of a reap pass is read before the pass takes its completions, so a completion posted during
//! the pass has `cqe` after it: the commonest clamp, worth 0 ns to its reap stage.

use super::KernelStamps;

/// The stages, in order: their names in results.
pub const STAGES: [&str; 5] = ["tool", "kernel", "device", "completion", "reap"];

/// One value per stage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Stages<T> {
    /// drivelab's stamp before its submit call → io_uring took the SQE.
    pub tool: T,
    /// → the block request was dispatched to the driver (io-wq hand-off, throttling, the
    /// scheduler's queue); with no block request (page cache, tmpfs): → the completion posted.
    pub kernel: T,
    /// Dispatch → the request completed (0 with no block request).
    pub device: T,
    /// The request completed → its completion was posted to the ring (task work).
    pub completion: T,
    /// Posted → drivelab's reap stamp.
    pub reap: T,
}

impl<T: Copy> Stages<T> {
    pub fn to_array(self) -> [T; 5] {
        [self.tool, self.kernel, self.device, self.completion, self.reap]
    }
    pub fn from_array(a: [T; 5]) -> Stages<T> {
        Stages { tool: a[0], kernel: a[1], device: a[2], completion: a[3], reap: a[4] }
    }
}

/// How one I/O was cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// Every stamp there, in order (or clamped into order: `clamped`).
    Whole { ns: [u64; 5], device: bool, clamped: bool },
    /// A stamp the split needs is missing (the kernel never saw the SQE, or never posted its
    /// completion, or a request was dispatched and never completed): not cut, counted.
    Unmatched,
}

/// Cut the I/O that started at `before` and was reaped at `reaped` by its kernel stamps `k`.
#[inline]
pub fn cut(before: u64, k: &KernelStamps, reaped: u64) -> Cut {
    if k.accept == 0 || k.cqe == 0 || (k.issue == 0) != (k.done == 0) || reaped < before {
        return Cut::Unmatched;
    }
    let mut clamped = false;
    let mut at = |t: u64, lo: u64| {
        let c = t.clamp(lo, reaped);
        clamped |= c != t;
        c
    };
    let accept = at(k.accept, before);
    let ns = if k.issue != 0 {
        let issue = at(k.issue, accept);
        let done = at(k.done, issue);
        let cqe = at(k.cqe, done);
        [accept - before, issue - accept, done - issue, cqe - done, reaped - cqe]
    } else {
        let cqe = at(k.cqe, accept);
        [accept - before, cqe - accept, 0, 0, reaped - cqe]
    };
    Cut::Whole { ns, device: k.issue != 0, clamped }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(accept: u64, issue: u64, done: u64, cqe: u64) -> KernelStamps {
        KernelStamps { accept, issue, done, cqe, ..Default::default() }
    }

    #[test]
    fn stamps_in_order_give_each_stage_its_span() {
        let c = cut(1000, &k(1010, 1030, 1130, 1140), 1200);
        assert_eq!(c, Cut::Whole { ns: [10, 20, 100, 10, 60], device: true, clamped: false });
    }

    #[test]
    fn without_a_block_request_the_kernel_stage_runs_to_the_completion() {
        let c = cut(1000, &k(1010, 0, 0, 1500), 1600);
        assert_eq!(c, Cut::Whole { ns: [10, 490, 0, 0, 100], device: false, clamped: false });
    }

    #[test]
    fn a_completion_posted_after_the_reap_stamp_is_clamped_and_still_adds_up() {
        let Cut::Whole { ns, clamped, .. } = cut(1000, &k(1010, 1030, 1130, 1250), 1200) else { panic!() };
        assert!(clamped);
        assert_eq!(ns, [10, 20, 100, 70, 0]);
        assert_eq!(ns.iter().sum::<u64>(), 200);
    }

    #[test]
    fn every_cut_adds_up_to_lat_whatever_the_stamps() {
        let mut x = 0x2545F4914F6CDD1Du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % 3000
        };
        let mut whole = 0;
        for _ in 0..100_000 {
            let before = 1000 + next();
            let reaped = before + next();
            let s = k(next(), next() * (next() % 2), next(), next());
            if let Cut::Whole { ns, .. } = cut(before, &s, reaped) {
                assert_eq!(ns.iter().sum::<u64>(), reaped - before, "{s:?} {before} {reaped}");
                whole += 1;
            }
        }
        assert!(whole > 10_000, "the generator made too few cuttable stamp sets: {whole}");
    }

    #[test]
    fn missing_stamps_are_unmatched_not_zero() {
        assert_eq!(cut(1000, &k(0, 1030, 1130, 1140), 1200), Cut::Unmatched);
        assert_eq!(cut(1000, &k(1010, 1030, 1130, 0), 1200), Cut::Unmatched);
        assert_eq!(cut(1000, &k(1010, 1030, 0, 1140), 1200), Cut::Unmatched);
    }
}
