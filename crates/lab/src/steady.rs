//! Steady-state detection as SNIA's Solid State Storage Performance Test Specification (PTS)
//! defines it, as a pure state machine: the runner pushes one number per round (IOPS, MB/s) and
//! is told whether to go on, whether the drive has settled, or whether to give up.
//!
//! A fresh or freshly filled SSD is not yet where it will stay: garbage collection starts, the
//! write cliff comes, and the first minutes say little about the weeks after. The PTS repeats a
//! workload in rounds until the measurement stops moving, and only then reports it. Its
//! definitions, over a *measurement window* of the last `window` rounds (5 in the PTS):
//!
//! - **data excursion**: `max - min` of the window's values must be at most `max_range_pct`
//!   (20%) of the window's average;
//! - **slope excursion**: the least-squares line through the window (round number against value)
//!   changes by `|slope| * (window - 1)` from its first round to its last; that change must be at
//!   most `max_slope_pct` (10%) of the window's average.
//!
//! Both must hold on the same window. The drive is in steady state from the window's first round
//! on, and the window's average is the steady-state value. If `max_rounds` rounds (25 in the PTS)
//! pass without that, the drive did not settle, and the report says so instead of pretending.
//!
//! A window whose average is not above zero is never steady: zero IOPS is a stall, not a state.

use serde::{Deserialize, Serialize};

/// When a series counts as steady: the PTS criteria and how long to try.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SteadyRule {
    /// Rounds in the measurement window (PTS: 5).
    pub window: usize,
    /// Largest allowed `max - min` in the window, in percent of its average (PTS: 20).
    pub max_range_pct: f64,
    /// Largest allowed change of the best-fit line across the window, in percent of its
    /// average (PTS: 10).
    pub max_slope_pct: f64,
    /// Give up after this many rounds without steady state (PTS: 25).
    pub max_rounds: usize,
}

/// The PTS's rule, defined here once: [`SteadyRule::default`] and the CLI's `--steady-window`
/// and `--steady-rounds` defaults read these.
pub const PTS_WINDOW: usize = 5;
pub const PTS_MAX_RANGE_PCT: f64 = 20.0;
pub const PTS_MAX_SLOPE_PCT: f64 = 10.0;
pub const PTS_MAX_ROUNDS: usize = 25;

impl Default for SteadyRule {
    fn default() -> Self {
        SteadyRule {
            window: PTS_WINDOW,
            max_range_pct: PTS_MAX_RANGE_PCT,
            max_slope_pct: PTS_MAX_SLOPE_PCT,
            max_rounds: PTS_MAX_ROUNDS,
        }
    }
}

impl SteadyRule {
    /// Refuse rules that cannot work, naming the value and the fix.
    pub fn validate(&self) -> Result<(), String> {
        if self.window < 2 {
            return Err(format!(
                "steady-state window {} is too short: a best-fit line needs at least 2 rounds (the PTS uses \
                 {PTS_WINDOW})",
                self.window
            ));
        }
        if self.max_rounds < self.window {
            return Err(format!(
                "at most {} rounds cannot fill a window of {}: allow at least {} rounds (the PTS uses {PTS_MAX_ROUNDS})",
                self.max_rounds, self.window, self.window
            ));
        }
        check_pct("range", self.max_range_pct, PTS_MAX_RANGE_PCT)?;
        check_pct("slope", self.max_slope_pct, PTS_MAX_SLOPE_PCT)
    }

    /// Whether a window meets both excursion criteria (and has an average above zero).
    pub fn holds(&self, stats: &WindowStats) -> bool {
        stats.avg > 0.0 && stats.range_pct <= self.max_range_pct && stats.fit_change_pct <= self.max_slope_pct
    }
}

fn check_pct(what: &str, pct: f64, pts: f64) -> Result<(), String> {
    if pct.is_finite() && pct > 0.0 {
        Ok(())
    } else {
        Err(format!("steady-state {what} limit {pct}% must be a positive percentage (the PTS uses {pts}%)"))
    }
}

/// The numbers the criteria look at, for one window; saved for the report's convergence chart.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WindowStats {
    /// 0-based index, in the whole series, of the window's first round.
    pub first_round: usize,
    pub avg: f64,
    pub min: f64,
    pub max: f64,
    /// `(max - min) / avg`, in percent: the data excursion.
    pub range_pct: f64,
    /// Slope of the least-squares line, per round.
    pub slope_per_round: f64,
    /// The line's value at round 0 of the whole series: `value(round) = intercept +
    /// slope_per_round * round`, with `round` the 0-based index in the whole series.
    pub intercept: f64,
    /// `|slope| * (window - 1) / avg`, in percent: the slope excursion.
    pub fit_change_pct: f64,
}

/// Statistics of the last `window` values of `series`; `None` when the series is shorter than
/// the window or the window is shorter than 2 (no line fits one point).
pub fn window_stats(series: &[f64], window: usize) -> Option<WindowStats> {
    if window < 2 || series.len() < window {
        return None;
    }
    let first_round = series.len() - window;
    let values = &series[first_round..];
    let avg = values.iter().sum::<f64>() / window as f64;
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (slope, intercept_at_first) = least_squares(values);
    Some(WindowStats {
        first_round,
        avg,
        min,
        max,
        range_pct: pct_of(max - min, avg),
        slope_per_round: slope,
        intercept: intercept_at_first - slope * first_round as f64,
        fit_change_pct: pct_of(slope.abs() * (window - 1) as f64, avg),
    })
}

/// Least-squares line through `(i, values[i])`: (slope, value at i = 0). Needs 2 or more values.
fn least_squares(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let x_mean = (n - 1.0) / 2.0;
    let y_mean = values.iter().sum::<f64>() / n;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (i, &y) in values.iter().enumerate() {
        let dx = i as f64 - x_mean;
        sxy += dx * (y - y_mean);
        sxx += dx * dx;
    }
    let slope = sxy / sxx;
    (slope, y_mean - slope * x_mean)
}

/// `part` in percent of `|whole|`. Kept finite (JSON has no infinity): 0% of nothing is 0%, and
/// anything of nothing is `f64::MAX`, which no limit allows.
fn pct_of(part: f64, whole: f64) -> f64 {
    if whole != 0.0 {
        part / whole.abs() * 100.0
    } else if part == 0.0 {
        0.0
    } else {
        f64::MAX
    }
}

/// What the runner should do after a round.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum SteadyVerdict {
    /// Run another round: the window is not full yet, or it does not meet the criteria.
    NeedMore,
    /// The last window meets both criteria; its average is the steady-state value.
    Steady(WindowStats),
    /// `max_rounds` rounds without steady state; the last window's numbers, if it was full.
    GaveUp(Option<WindowStats>),
}

/// Feeds rounds one at a time and judges the series after each.
#[derive(Clone, Debug)]
pub struct SteadyDetector {
    rule: SteadyRule,
    values: Vec<f64>,
}

impl SteadyDetector {
    /// A detector for `rule`. Check the rule with [`SteadyRule::validate`] first; an invalid rule
    /// does not panic but never finds steady state (a window under 2 rounds has no statistics).
    pub fn new(rule: SteadyRule) -> SteadyDetector {
        SteadyDetector { rule, values: Vec::new() }
    }

    /// Record one round's value and judge the series. The caller stops at `Steady` or `GaveUp`.
    pub fn push(&mut self, value: f64) -> SteadyVerdict {
        self.values.push(value);
        let stats = window_stats(&self.values, self.rule.window);
        match stats {
            Some(s) if self.rule.holds(&s) => SteadyVerdict::Steady(s),
            stats if self.values.len() >= self.rule.max_rounds => SteadyVerdict::GaveUp(stats),
            _ => SteadyVerdict::NeedMore,
        }
    }

    /// Every round's value so far, in order.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// The current window's statistics, for progress output between rounds.
    pub fn last_window(&self) -> Option<WindowStats> {
        window_stats(&self.values, self.rule.window)
    }

    pub fn rule(&self) -> &SteadyRule {
        &self.rule
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    /// Push every value, returning the verdict of each push.
    fn run(rule: SteadyRule, values: &[f64]) -> Vec<SteadyVerdict> {
        let mut d = SteadyDetector::new(rule);
        values.iter().map(|&v| d.push(v)).collect()
    }

    #[test]
    fn least_squares_matches_a_hand_computed_fit() {
        // Window 2, 4, 5, 4, 5 after three rounds of 9 (so first_round = 3).
        // Within the window x = 0..4: x mean 2, y mean 20/5 = 4.
        // Sxy = (-2)(2-4) + (-1)(4-4) + 0 + (1)(4-4) + (2)(5-4) = 4 + 2 = 6; Sxx = 4+1+0+1+4 = 10.
        // slope = 0.6; value at window x = 0 is 4 - 0.6 * 2 = 2.8, so at series round 0 it is
        // 2.8 - 0.6 * 3 = 1.0. Range (5 - 2) / 4 = 75%; fit change 0.6 * 4 / 4 = 60%.
        let s = window_stats(&[9.0, 9.0, 9.0, 2.0, 4.0, 5.0, 4.0, 5.0], 5).unwrap();
        assert_eq!(s.first_round, 3);
        assert!(close(s.avg, 4.0) && close(s.min, 2.0) && close(s.max, 5.0), "{s:?}");
        assert!(close(s.slope_per_round, 0.6), "{s:?}");
        assert!(close(s.intercept, 1.0), "{s:?}");
        assert!(close(s.range_pct, 75.0), "{s:?}");
        assert!(close(s.fit_change_pct, 60.0), "{s:?}");
    }

    #[test]
    fn flat_noise_is_steady_at_exactly_the_window_round() {
        // 1000 +- 1%: range at most 2% of the average and a slope far below 10%.
        let values = [1005.0, 995.0, 1010.0, 990.0, 1000.0, 1003.0];
        let verdicts = run(SteadyRule::default(), &values);
        assert!(verdicts[..4].iter().all(|v| *v == SteadyVerdict::NeedMore), "{verdicts:?}");
        let SteadyVerdict::Steady(s) = &verdicts[4] else { panic!("round 5 should be steady: {verdicts:?}") };
        // avg = 5000 / 5 = 1000; range = (1010 - 990) / 1000 = 2%.
        assert_eq!(s.first_round, 0);
        assert!(close(s.avg, 1000.0) && close(s.range_pct, 2.0), "{s:?}");
    }

    #[test]
    fn a_ramp_inside_the_range_limit_but_too_steep_is_not_steady() {
        // 100, 104, 108, 112, 116: avg 108, range 16 = 14.8% (within 20%), but the fit rises
        // 4 per round, 16 across the window = 14.8% of the average (over 10%).
        let verdicts = run(SteadyRule::default(), &[100.0, 104.0, 108.0, 112.0, 116.0]);
        assert_eq!(verdicts[4], SteadyVerdict::NeedMore);
        let s = window_stats(&[100.0, 104.0, 108.0, 112.0, 116.0], 5).unwrap();
        assert!(close(s.range_pct, 16.0 / 108.0 * 100.0) && s.range_pct <= 20.0, "{s:?}");
        assert!(close(s.slope_per_round, 4.0) && close(s.fit_change_pct, 16.0 / 108.0 * 100.0), "{s:?}");
    }

    #[test]
    fn a_drive_that_settles_after_warm_up_is_detected_at_the_right_round() {
        // Warm-up 100k, 80k, 60k, 50k, then 45k +- 2%. Windows (rounds are 0-based):
        //  0-4 [100k 80k 60k 50k 45.9k]: range 54.1k, far over 20%.
        //  1-5 [80k 60k 50k 45.9k 44.1k]: range 35.9k of avg 56k = 64%.
        //  2-6 [60k 50k 45.9k 44.1k 45k]: range 15.9k of avg 49k = 32%.
        //  3-7 [50k 45.9k 44.1k 45k 44.4k]: avg 45.88k, range 5.9k = 12.9% (ok), but
        //      Sxy = -2*50000 - 45900 + 0 + 45000 + 2*44400 = -12100, slope -1210/round,
        //      change 4840 = 10.55% of the average (over 10%).
        //  4-8 [45.9k 44.1k 45k 44.4k 45.6k]: avg 225000 / 5 = 45000, range 1.8k = 4%,
        //      Sxy = -2*45900 - 44100 + 0 + 44400 + 2*45600 = -300, slope -30, change 120 = 0.27%.
        // So the 9th push (round 8) is the first steady one, window starting at round 4.
        let values = [100e3, 80e3, 60e3, 50e3, 45.9e3, 44.1e3, 45.0e3, 44.4e3, 45.6e3];
        let verdicts = run(SteadyRule::default(), &values);
        assert!(verdicts[..8].iter().all(|v| *v == SteadyVerdict::NeedMore), "{verdicts:?}");
        let SteadyVerdict::Steady(s) = &verdicts[8] else { panic!("{verdicts:?}") };
        assert_eq!(s.first_round, 4);
        assert!(close(s.avg, 45_000.0) && close(s.slope_per_round, -30.0), "{s:?}");
        let before = window_stats(&values[..8], 5).unwrap();
        assert!(close(before.fit_change_pct, 4840.0 / 45_880.0 * 100.0), "{before:?}");
    }

    #[test]
    fn gives_up_after_max_rounds_with_the_last_window() {
        // Alternating 100/150: range 50 of an average near 125 (40%) in every window.
        let rule = SteadyRule { max_rounds: 7, ..SteadyRule::default() };
        let values = [100.0, 150.0, 100.0, 150.0, 100.0, 150.0, 100.0];
        let verdicts = run(rule, &values);
        assert!(verdicts[..6].iter().all(|v| *v == SteadyVerdict::NeedMore), "{verdicts:?}");
        // Last window: rounds 2-6 = 100 150 100 150 100, avg 600 / 5 = 120, range 50/120 = 41.7%.
        let SteadyVerdict::GaveUp(Some(s)) = &verdicts[6] else { panic!("{verdicts:?}") };
        assert_eq!(s.first_round, 2);
        assert!(close(s.avg, 120.0) && close(s.range_pct, 50.0 / 120.0 * 100.0), "{s:?}");
    }

    #[test]
    fn zero_throughput_is_never_steady() {
        let rule = SteadyRule { max_rounds: 5, ..SteadyRule::default() };
        let verdicts = run(rule, &[0.0; 5]);
        // Flat at zero: no excursion at all, yet not a steady state.
        let SteadyVerdict::GaveUp(Some(s)) = &verdicts[4] else { panic!("{verdicts:?}") };
        assert_eq!((s.avg, s.range_pct, s.fit_change_pct), (0.0, 0.0, 0.0));
    }

    #[test]
    fn invalid_rules_are_refused_with_the_fix_and_do_not_panic() {
        let short = SteadyRule { window: 1, ..SteadyRule::default() };
        assert!(short.validate().unwrap_err().contains("at least 2 rounds"));
        let few = SteadyRule { max_rounds: 3, ..SteadyRule::default() };
        assert!(few.validate().unwrap_err().contains("allow at least 5 rounds"));
        let neg = SteadyRule { max_slope_pct: -1.0, ..SteadyRule::default() };
        assert!(neg.validate().unwrap_err().contains("-1%"));
        assert!(SteadyRule::default().validate().is_ok());
        // Unvalidated, a one-round window never has statistics and gives up without them.
        let verdicts = run(SteadyRule { window: 1, max_rounds: 2, ..SteadyRule::default() }, &[1.0, 1.0]);
        assert_eq!(verdicts, vec![SteadyVerdict::NeedMore, SteadyVerdict::GaveUp(None)]);
    }
}
