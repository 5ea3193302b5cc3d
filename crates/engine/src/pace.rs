//! The schedule of an open-loop (fixed-rate) job: when each I/O is meant to be issued.
//!
//! Intended times are fixed in advance from the job's start and never move because of what the
//! target does. A worker issues an I/O once its intended time has come and a queue slot is free,
//! and latency counts from the intended time as well as from the actual submission. So a stall
//! charges every I/O scheduled during it (no coordinated omission), and how far the worker fell
//! behind (lag) shows when the target could not keep up.
//!
//! Hot-path rules hold: no floating point and no allocation per I/O. Times are kept in fixed
//! point (1/65536 ns) in a u128, so a uniform schedule does not drift over days of running.
//! Poisson gaps come from a 4096-entry table of exponential quantiles (bucket midpoints,
//! rescaled so their mean is exactly the interval); the tail is cut at about 8.7x the mean
//! interval, which affects 1 gap in 4096 and not the rate.

const FP_SHIFT: u32 = 16;
const TABLE: usize = 4096;

pub struct Pace {
    /// A replay's own times (ns from `start`) and the next one's index, instead of a rate.
    trace: Option<(std::sync::Arc<crate::replay::FileTrace>, usize, u64)>,
    /// Intended time of the next I/O, fixed point.
    next_fp: u128,
    interval_fp: u64,
    /// Poisson gaps (fixed point); empty for uniform arrivals.
    gaps: Vec<u64>,
    rng: fastrand::Rng,
}

impl Pace {
    /// A schedule of `iops` I/Os per second from `start_ns`, the first one `phase` (0..1) of an
    /// interval late so that jobs sharing a total rate interleave instead of issuing together.
    pub fn new(iops: f64, poisson: bool, start_ns: u64, phase: f64, seed: u64) -> Pace {
        let interval = 1e9 / iops * (1u64 << FP_SHIFT) as f64;
        let interval_fp = interval.round().clamp(1.0, u64::MAX as f64 / 16.0) as u64;
        let gaps = if poisson {
            let raw: Vec<f64> = (0..TABLE).map(|i| -(1.0 - (i as f64 + 0.5) / TABLE as f64).ln()).collect();
            let mean = raw.iter().sum::<f64>() / TABLE as f64;
            raw.iter().map(|g| (g / mean * interval_fp as f64) as u64).collect()
        } else {
            Vec::new()
        };
        let first = ((start_ns as u128) << FP_SHIFT) + (phase.clamp(0.0, 1.0) * interval_fp as f64) as u128;
        Pace { trace: None, next_fp: first, interval_fp, gaps, rng: fastrand::Rng::with_seed(seed) }
    }

    /// The intended times of a replay: each I/O of `trace` at its own time from `start_ns`.
    pub fn trace(trace: std::sync::Arc<crate::replay::FileTrace>, start_ns: u64) -> Pace {
        let mut p = Pace::new(1.0, false, start_ns, 0.0, 0);
        p.trace = Some((trace, 0, start_ns));
        p
    }

    /// When the next I/O is due, in ns.
    #[inline]
    pub fn due(&self) -> u64 {
        if let Some((t, i, start)) = &self.trace {
            // Past the trace's end (its bytes are done, the job is ending): never due.
            return t.t_ns.get(*i).map_or(u64::MAX, |&x| start + x);
        }
        (self.next_fp >> FP_SHIFT) as u64
    }

    /// Move on to the I/O after it.
    #[inline]
    pub fn advance(&mut self) {
        if let Some((_, i, _)) = self.trace.as_mut() {
            *i += 1;
            return;
        }
        let gap = if self.gaps.is_empty() { self.interval_fp } else { self.gaps[self.rng.usize(..TABLE)] };
        self.next_fp += gap as u128;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn times(p: &mut Pace, n: usize) -> Vec<u64> {
        (0..n)
            .map(|_| {
                let t = p.due();
                p.advance();
                t
            })
            .collect()
    }

    #[test]
    fn a_uniform_schedule_is_evenly_spaced_and_does_not_drift() {
        // 3 I/Os per second: gaps of 333,333,333.33 ns, kept to 1/65536 ns, so the intended
        // times stay within a nanosecond of exact ones, and after 3 million I/Os (10^6 s, eleven
        // days) within 3e6 * 0.5/65536 = 23 ns.
        let mut p = Pace::new(3.0, false, 1000, 0.0, 1);
        let t = times(&mut p, 4);
        for (k, t) in t.into_iter().enumerate() {
            let exact = 1000.0 + k as f64 * 1e9 / 3.0;
            assert!((t as f64 - exact).abs() <= 1.0, "I/O {k} at {t}, exact {exact}");
        }
        let mut p = Pace::new(3.0, false, 0, 0.0, 1);
        for _ in 0..3_000_000 {
            p.advance();
        }
        assert!(p.due().abs_diff(1_000_000_000_000_000) <= 23, "{}", p.due());
    }

    #[test]
    fn phases_interleave_jobs() {
        // Two jobs at 1000/s each (2000/s in total): the second starts half an interval later.
        let a = Pace::new(1000.0, false, 0, 0.0, 1);
        let b = Pace::new(1000.0, false, 0, 0.5, 1);
        assert_eq!((a.due(), b.due()), (0, 500_000));
    }

    #[test]
    fn poisson_gaps_have_the_right_mean_and_spread() {
        // Exponential gaps: mean = 1/rate and coefficient of variation 1 (uniform has 0).
        let mut p = Pace::new(10_000.0, true, 0, 0.0, 42);
        let t = times(&mut p, 200_001);
        let gaps: Vec<f64> = t.windows(2).map(|w| (w[1] - w[0]) as f64).collect();
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        let var = gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / gaps.len() as f64;
        assert!((mean - 100_000.0).abs() < 1000.0, "mean gap {mean} ns, expected 100000");
        let cv = var.sqrt() / mean;
        assert!((cv - 1.0).abs() < 0.05, "coefficient of variation {cv}, expected about 1");
        // About e^-1 of exponential gaps exceed the mean.
        let above = gaps.iter().filter(|&&g| g > 100_000.0).count() as f64 / gaps.len() as f64;
        assert!((above - (-1f64).exp()).abs() < 0.01, "{above}");
    }
}
