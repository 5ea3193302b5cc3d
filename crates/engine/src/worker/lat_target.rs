//! fio's latency target in the loop (io_u.c `lat_target_*`, as facts): the job starts at depth
//! 1 and judges each window (`latency_window`) by the share of its completed I/Os whose lat was
//! within the target. A window that meets `latency_percentile` raises the depth — doubling until
//! a depth fails, then bisecting between the highest depth that met it (`low`) and the lowest
//! that failed (`high`); a window that misses lowers it to the middle of `low` and the depth,
//! and every I/O in flight completes before the next window starts (fio's quiesce). With a
//! percentile of 100 a single I/O over the target fails at once, and at depth 1 it is an error
//! (ETIMEDOUT, fio's "max latency exceeded"). When a success leaves the depth where it was, the
//! depth is found: without `latency_run` the measurement starts over for one more window at
//! that depth (fio resets its statistics), and the job ends when that window is met too.
//!
//! Per I/O only two integer adds and a compare (`completed`); the decisions are taken once per
//! loop turn (`step`), floating point once per window.

use crate::gen::Op;
use crate::spec::lat_target::LatTarget;

/// What the loop does after a [`LatControl::step`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// Keep going at [`LatControl::limit`] I/Os in flight.
    Go,
    /// The depth changed: issue nothing until every I/O in flight has completed.
    Quiesce,
    /// The depth is found: measurement starts over now, for one more window.
    Restart,
    /// The depth is found and its last window met the target: the job ends.
    Done,
    /// An I/O over the target at depth 1 with a percentile of 100: the job errors (ETIMEDOUT).
    Fatal { op: Op, offset: u64 },
}

pub(super) struct LatControl {
    target_ns: u64,
    window_ns: u64,
    percentile: f64,
    run: bool,
    /// The spec's depth: the highest tried.
    max: u32,
    /// The depth now (fio's `latency_qd`), what the job reports.
    pub(super) qd: u32,
    low: u32,
    high: u32,
    /// Successes in a row with `qd + 1 == high` (three raise `high` by one).
    stable: u32,
    window_start: u64,
    /// Completions in this window, and those over the target.
    ios: u64,
    failed: u64,
    /// The first I/O over the target this window (an error at depth 1 with percentile 100).
    over: (Op, u64),
    quiescing: bool,
    /// The depth was found once: the final window is running.
    end_run: bool,
    /// Measurement starts over once the quiesce is done.
    restart: bool,
}

impl LatControl {
    pub(super) fn new(t: &LatTarget, max_qd: u32, begin: u64) -> LatControl {
        LatControl {
            target_ns: t.target_ns,
            window_ns: t.window_ns,
            percentile: t.percentile,
            run: t.run,
            max: max_qd.max(1),
            qd: 1,
            low: 1,
            high: max_qd.max(1),
            stable: 0,
            window_start: begin,
            ios: 0,
            failed: 0,
            over: (Op::Read, 0),
            quiescing: false,
            end_run: false,
            restart: false,
        }
    }

    /// The job starts at `t`: its first window starts.
    pub(super) fn start(&mut self, t: u64) {
        self.new_cycle(t);
    }

    /// How many I/Os may be in flight now.
    #[inline]
    pub(super) fn limit(&self) -> usize {
        if self.quiescing {
            0
        } else {
            self.qd as usize
        }
    }

    /// An I/O completed in full with this lat.
    #[inline]
    pub(super) fn completed(&mut self, lat_ns: u64, op: Op, offset: u64) {
        self.ios += 1;
        if lat_ns > self.target_ns {
            if self.failed == 0 {
                self.over = (op, offset);
            }
            self.failed += 1;
        }
    }

    /// The loop's turn at `now` with `inflight` I/Os in flight; windows are judged only while
    /// `measuring` (fio: not in the ramp).
    pub(super) fn step(&mut self, now: u64, inflight: usize, measuring: bool) -> Step {
        if !self.quiescing {
            if self.percentile >= 100.0 && self.failed > 0 {
                if self.qd == 1 {
                    self.failed = 0;
                    return Step::Fatal { op: self.over.0, offset: self.over.1 };
                }
                self.fail();
            } else if measuring && now.saturating_sub(self.window_start) >= self.window_ns {
                if self.window_met() {
                    if self.succeed() {
                        return Step::Done;
                    }
                    if !self.quiescing {
                        self.new_cycle(now);
                        return Step::Go;
                    }
                } else if self.qd > 1 {
                    self.fail();
                } else {
                    // fio: at depth 1 a missed window changes nothing, and the window goes on.
                    return Step::Go;
                }
            } else {
                return Step::Go;
            }
        }
        if inflight > 0 {
            return Step::Quiesce;
        }
        self.quiescing = false;
        self.new_cycle(now);
        if std::mem::take(&mut self.restart) {
            Step::Restart
        } else {
            Step::Go
        }
    }

    /// The window's share of I/Os within the target reaches the percentile (an empty window
    /// does not: fio's 0/0).
    fn window_met(&self) -> bool {
        self.ios > 0 && (self.ios - self.failed) as f64 * 100.0 / self.ios as f64 >= self.percentile
    }

    fn new_cycle(&mut self, now: u64) {
        self.window_start = now;
        self.ios = 0;
        self.failed = 0;
    }

    /// fio's ramp down: the middle of `low` and the depth, after a quiesce.
    fn fail(&mut self) {
        self.high = self.qd;
        if self.qd == self.low {
            self.low -= 1;
        }
        self.qd = ((self.qd + self.low) / 2).max(1);
        self.stable = 0;
        self.quiescing = true;
    }

    /// fio's ramp up; true when the job is done.
    fn succeed(&mut self) -> bool {
        let was = self.qd;
        self.low = self.qd;
        if self.qd + 1 == self.high {
            self.stable += 1;
            if self.stable >= 3 {
                self.high += 1;
                self.stable = 0;
            }
        }
        self.qd = if self.high != self.max { (self.qd + self.high) / 2 } else { self.qd * 2 };
        self.qd = self.qd.min(self.max);
        if !self.run && self.qd == was {
            if self.end_run {
                return true;
            }
            self.end_run = true;
            self.restart = true;
            self.quiescing = true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// Run the controller against a device whose every I/O takes `per_depth_ns` times the depth,
    /// one step per window: the depths tried and how it ended.
    fn search(t: LatTarget, max: u32, per_depth_ns: u64, windows: usize) -> (Vec<u32>, Option<Step>, bool) {
        let mut c = LatControl::new(&t, max, 0);
        let mut now = 0;
        let mut tried = vec![c.qd];
        let mut restarted = false;
        for _ in 0..windows {
            for _ in 0..10 {
                c.completed(per_depth_ns * u64::from(c.qd), Op::Read, 0);
            }
            now += t.window_ns;
            let mut s = c.step(now, c.limit().max(1), true);
            if s == Step::Quiesce {
                assert_eq!(c.limit(), 0, "nothing issued while quiescing");
                s = c.step(now, 0, true);
            }
            match s {
                Step::Restart => restarted = true,
                Step::Done | Step::Fatal { .. } => return (tried, Some(s), restarted),
                _ => {}
            }
            if tried.last() != Some(&c.qd) {
                tried.push(c.qd);
            }
        }
        (tried, None, restarted)
    }

    fn target(ms: u64, pct: f64) -> LatTarget {
        LatTarget { target_ns: ms * MS, window_ns: 100 * MS, percentile: pct, run: false }
    }

    #[test]
    fn doubles_until_a_depth_fails_then_bisects_and_ends_after_one_more_window() {
        // 1 ms per depth, target 5 ms: depth 5 meets it, 6 does not.
        let (tried, end, restarted) = search(target(5, 99.0), 64, MS, 50);
        assert_eq!(&tried[..5], &[1, 2, 4, 8, 6]);
        assert_eq!(*tried.last().unwrap(), 5, "{tried:?}");
        assert_eq!(end, Some(Step::Done));
        assert!(restarted, "the found depth is measured over a window of its own");
    }

    #[test]
    fn a_loose_target_reaches_the_spec_depth_and_a_tight_one_stays_at_one() {
        let (tried, end, _) = search(target(1000, 99.0), 32, MS, 50);
        assert_eq!(tried, vec![1, 2, 4, 8, 16, 32]);
        assert_eq!(end, Some(Step::Done));
        let (tried, end, _) = search(target(1, 50.0), 32, 2 * MS, 5);
        assert_eq!(tried, vec![1], "depth 1 misses: fio keeps it and goes on");
        assert_eq!(end, None);
    }

    #[test]
    fn with_percentile_100_one_late_io_fails_at_once_and_at_depth_1_is_an_error() {
        let mut c = LatControl::new(&target(5, 100.0), 16, 0);
        c.completed(MS, Op::Read, 0);
        assert_eq!(c.step(MS, 1, true), Step::Go, "within the target, window not over");
        c.completed(6 * MS, Op::Write, 4096);
        assert_eq!(c.step(2 * MS, 1, true), Step::Fatal { op: Op::Write, offset: 4096 });
        let mut c = LatControl::new(&target(5, 100.0), 16, 0);
        c.completed(MS, Op::Read, 0);
        assert_eq!(c.step(200 * MS, 1, true), Step::Go);
        assert_eq!(c.qd, 2);
        c.completed(9 * MS, Op::Read, 0);
        assert_eq!(c.step(201 * MS, 2, true), Step::Quiesce, "fails before its window is over");
        assert_eq!((c.qd, c.limit()), (1, 0));
        assert_eq!(c.step(202 * MS, 0, true), Step::Go);
        assert_eq!(c.limit(), 1);
    }

    #[test]
    fn latency_run_keeps_adjusting_and_windows_wait_for_the_ramp() {
        let t = LatTarget { run: true, ..target(1000, 99.0) };
        let (tried, end, restarted) = search(t, 4, MS, 20);
        assert_eq!((tried, end, restarted), (vec![1, 2, 4], None, false));
        let mut c = LatControl::new(&target(5, 99.0), 8, 0);
        c.completed(MS, Op::Read, 0);
        assert_eq!((c.step(500 * MS, 1, false), c.qd), (Step::Go, 1), "no window is judged in the ramp");
    }
}
