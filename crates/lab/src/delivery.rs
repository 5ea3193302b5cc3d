//! Whether a fixed-rate load was delivered: the one definition every verdict uses (ACT's slices
//! and streams, qos probes, steady-state rounds).
//!
//! A latency verdict only says something about the load that was carried. A drive that completed
//! 11k of the 4M reads/s scheduled can show fine latencies for the few it did, and ACT's own
//! max-lag (10 s by default) never trips in a load that short. So a load counts as delivered only
//! when its I/Os completed at [`DELIVERED_MIN_PCT`] of its schedule or more; anything under is
//! never a pass, whatever the latency or `--max-lag` says.
//!
//! The count is of completed I/Os against the I/Os the schedule asked for over the same measured
//! window. The I/Os each slot (a job's queue entry, one of ACT's threads) still has in flight when
//! the window closes were issued on time and are not held against the load: they are allowed as
//! `in_flight`, so a slow stream of a few I/Os a second (ACT's large-block streams at low N) is not
//! failed for the one I/O the window's end cut.

use drivelab_engine::result::RunResult;
use drivelab_engine::units::fmt_count;
use serde::{Deserialize, Serialize};

/// A load whose completed I/Os are under this percentage of its schedule was not delivered.
pub const DELIVERED_MIN_PCT: f64 = 99.0;

/// What a schedule asked for over a window and what completed in it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Delivery {
    /// I/Os per second the schedule asked for.
    pub scheduled_iops: f64,
    /// I/Os per second that completed over the window.
    pub achieved_iops: f64,
    /// The window's length, in ns.
    pub window_ns: u64,
    /// I/Os that can be in flight at once (every slot of every job): issued on time, completed
    /// after the window, not held against the load.
    pub in_flight: u64,
}

impl Delivery {
    /// From a fixed-rate run's own figures (`open_loop.target_iops`, `open_loop.achieved_iops`,
    /// its measured window); None for a closed-loop run, which has no schedule.
    pub fn of_run(r: &RunResult) -> Option<Delivery> {
        let o = r.open_loop.as_ref()?;
        let slots = r.spec.jobs.max(1) as u64 * r.spec.qd.max(1) as u64 * r.targets.len().max(1) as u64;
        Some(Delivery {
            scheduled_iops: o.target_iops,
            achieved_iops: o.achieved_iops,
            window_ns: r.runtime_ns,
            in_flight: slots,
        })
    }

    /// From counts: `done` I/Os completed over `window_ns` of a schedule of `scheduled_iops`.
    pub fn of_counts(scheduled_iops: f64, done: u64, window_ns: u64, in_flight: u64) -> Delivery {
        let secs = window_ns as f64 / 1e9;
        let achieved_iops = if secs > 0.0 { done as f64 / secs } else { 0.0 };
        Delivery { scheduled_iops, achieved_iops, window_ns, in_flight }
    }

    /// Achieved as a percentage of the schedule (100 when nothing was scheduled).
    pub fn pct(&self) -> f64 {
        if self.scheduled_iops > 0.0 {
            self.achieved_iops * 100.0 / self.scheduled_iops
        } else {
            100.0
        }
    }

    /// The load was delivered: its completed I/Os, with the ones still in flight at the end,
    /// reach [`DELIVERED_MIN_PCT`] of what its schedule asked for over the window.
    pub fn delivered(&self) -> bool {
        let secs = self.window_ns as f64 / 1e9;
        let scheduled = self.scheduled_iops * secs;
        let done = self.achieved_iops * secs;
        done + self.in_flight as f64 >= scheduled * DELIVERED_MIN_PCT / 100.0
    }

    /// `11.0k of 4.00M I/Os/s scheduled (0.3%)`, `what` naming the I/Os.
    pub fn said(&self, what: &str) -> String {
        format!(
            "{} of {} {what}/s scheduled ({:.1}%)",
            fmt_count(self.achieved_iops),
            fmt_count(self.scheduled_iops),
            self.pct()
        )
    }

    /// Why an undelivered load fails, for people: `reads: 11.0k of 4.00M reads/s scheduled (0.3%):
    /// not delivered (under 99%), never a pass`. `who` names the stream or probe.
    pub fn why_not(&self, who: &str, what: &str) -> String {
        format!("{who}{}: not delivered (under {DELIVERED_MIN_PCT}% of the schedule), never a pass", self.said(what))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_load_under_99_percent_of_its_schedule_is_not_delivered() {
        // 2000x on a file: 11k of 4M reads/s over 2 s, ten threads.
        let d = Delivery::of_counts(4e6, 22_000, 2_000_000_000, 10);
        assert!(!d.delivered());
        assert!(
            d.why_not("reads: ", "reads").contains("11.0k of 4.00M reads/s scheduled (0.3%)"),
            "{}",
            d.why_not("", "reads")
        );
        // 98.9% of 20000/s over 1 s with one slot: short by 220, more than the one in flight.
        assert!(!Delivery::of_counts(20_000.0, 19_780, 1_000_000_000, 1).delivered());
        // 99.0% is delivered.
        assert!(Delivery::of_counts(20_000.0, 19_800, 1_000_000_000, 1).delivered());
    }

    #[test]
    fn the_ios_in_flight_at_the_end_are_not_held_against_a_slow_stream() {
        // ACT's large-block reads at 1x: 23.5/s over 2 s = 47 scheduled, 46 done, one in flight.
        let d = Delivery::of_counts(1000.0 / 85.0 * 2.0, 46, 2_000_000_000, 1);
        assert!(d.delivered(), "{d:?}");
        // Two short with one slot is not.
        assert!(!Delivery::of_counts(1000.0 / 85.0 * 2.0, 45, 2_000_000_000, 1).delivered());
    }

    #[test]
    fn nothing_scheduled_is_delivered() {
        let d = Delivery::of_counts(0.0, 0, 1_000_000_000, 1);
        assert!(d.delivered() && d.pct() == 100.0);
    }
}
