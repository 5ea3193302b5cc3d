//! What fio's job entries say about a job thread beyond latency and throughput, counted by the
//! engine so drivelab's fio output writes measured figures where it wrote 0:
//!
//! - [`ThreadUsage`]: context switches and page faults of each job thread over its measured part
//!   (getrusage(RUSAGE_THREAD) when measurement starts and when the job ends: fio's `ctx`,
//!   `majf`, `minf`);
//! - [`DepthCounts`]: fio's three depth distributions, as counts in fio's seven buckets (io_u.c
//!   `io_u_mark_depth`, `io_u_mark_submit`, `io_u_mark_complete`, as facts): the I/Os issued by
//!   the depth they were issued at (the I/Os in flight once the submit call's I/Os are counted),
//!   the submit calls by how many I/Os each carried, the reap passes by how many completions each
//!   took. A fixed array each: an add per call, no allocation.

use serde::{Deserialize, Serialize};

/// Context switches and page faults of the job threads (summed over jobs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadUsage {
    /// Voluntary and involuntary context switches (fio's `ctx`).
    pub context_switches: u64,
    /// Page faults that read from storage (fio's `majf`).
    pub major_faults: u64,
    /// Page faults served from memory (fio's `minf`).
    pub minor_faults: u64,
}

impl ThreadUsage {
    /// The calling thread's counts since it started.
    pub fn of_thread() -> ThreadUsage {
        // SAFETY: getrusage writes the struct it is given; zeroed is a valid rusage.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: a valid pointer to a rusage; RUSAGE_THREAD needs nothing else.
        if unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) } != 0 {
            return ThreadUsage::default();
        }
        ThreadUsage {
            context_switches: (ru.ru_nvcsw + ru.ru_nivcsw) as u64,
            major_faults: ru.ru_majflt as u64,
            minor_faults: ru.ru_minflt as u64,
        }
    }

    /// The counts from `earlier` to `self`.
    pub fn since(self, earlier: ThreadUsage) -> ThreadUsage {
        ThreadUsage {
            context_switches: self.context_switches.saturating_sub(earlier.context_switches),
            major_faults: self.major_faults.saturating_sub(earlier.major_faults),
            minor_faults: self.minor_faults.saturating_sub(earlier.minor_faults),
        }
    }

    pub fn add(&mut self, o: &ThreadUsage) {
        self.context_switches = self.context_switches.saturating_add(o.context_switches);
        self.major_faults = self.major_faults.saturating_add(o.major_faults);
        self.minor_faults = self.minor_faults.saturating_add(o.minor_faults);
    }
}

/// fio's three depth distributions as counts (summed over jobs); fio's JSON writes each bucket
/// as a percentage of its total.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DepthCounts {
    /// I/Os issued at depth 1, 2–3, 4–7, 8–15, 16–31, 32–63, 64 and more (fio's
    /// `iodepth_level` keys 1, 2, 4, 8, 16, 32, >=64).
    pub issued_at_depth: [u64; 7],
    /// Submit calls carrying 0, 1–4, 5–8, 9–16, 17–32, 33–64, more than 64 I/Os (fio's
    /// `iodepth_submit` keys 0, 4, 8, 16, 32, 64, >=64).
    pub submit_calls: [u64; 7],
    /// Reap passes taking 0, 1–4, 5–8, ... completions (fio's `iodepth_complete`, same keys).
    pub reap_passes: [u64; 7],
}

/// fio's bucket of a depth (1, 2–3, 4–7, ...; 0 counts with 1).
#[inline]
pub fn depth_bucket(depth: usize) -> usize {
    match depth {
        0..=1 => 0,
        2..=3 => 1,
        4..=7 => 2,
        8..=15 => 3,
        16..=31 => 4,
        32..=63 => 5,
        _ => 6,
    }
}

/// fio's bucket of a count of I/Os per call (0, 1–4, 5–8, 9–16, ...).
#[inline]
pub fn batch_bucket(n: usize) -> usize {
    match n {
        0 => 0,
        1..=4 => 1,
        5..=8 => 2,
        9..=16 => 3,
        17..=32 => 4,
        33..=64 => 5,
        _ => 6,
    }
}

impl DepthCounts {
    /// `n` I/Os issued with `depth` in flight (theirs included).
    #[inline]
    pub fn issued(&mut self, n: usize, depth: usize) {
        self.issued_at_depth[depth_bucket(depth)] += n as u64;
    }

    /// A submit call carried `n` I/Os.
    #[inline]
    pub fn submitted(&mut self, n: usize) {
        self.submit_calls[batch_bucket(n)] += 1;
    }

    /// A reap pass took `n` completions.
    #[inline]
    pub fn reaped(&mut self, n: usize) {
        self.reap_passes[batch_bucket(n)] += 1;
    }

    pub fn add(&mut self, o: &DepthCounts) {
        for (a, b) in [
            (&mut self.issued_at_depth, &o.issued_at_depth),
            (&mut self.submit_calls, &o.submit_calls),
            (&mut self.reap_passes, &o.reap_passes),
        ] {
            for (x, y) in a.iter_mut().zip(b) {
                *x = x.saturating_add(*y);
            }
        }
    }
}

/// Counts as fio's percentages of their total: a bucket with any count shows at least 0.1
/// (stat.c `stat_calc_dist`); all 0 when nothing was counted.
pub fn fio_pcts(counts: &[u64; 7]) -> [f64; 7] {
    let total: u64 = counts.iter().sum();
    counts.map(|c| {
        if total == 0 {
            return 0.0;
        }
        let p = c as f64 * 100.0 / total as f64;
        if c > 0 && p < 0.1 {
            0.1
        } else {
            p
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fios_buckets_and_percentages() {
        let mut d = DepthCounts::default();
        d.issued(1, 1);
        d.issued(3, 3);
        d.issued(4, 32);
        d.issued(2000, 64);
        assert_eq!(d.issued_at_depth, [1, 3, 0, 0, 0, 4, 2000]);
        for (n, b) in [(0, 0), (1, 1), (4, 1), (5, 2), (16, 3), (17, 4), (64, 5), (65, 6)] {
            assert_eq!(batch_bucket(n), b, "{n}");
        }
        let p = fio_pcts(&d.issued_at_depth);
        assert_eq!(p[0], 0.1, "a bucket with a count shows at least 0.1%");
        assert!((p[6] - 2000.0 * 100.0 / 2008.0).abs() < 1e-9);
        assert_eq!(fio_pcts(&[0; 7]), [0.0; 7]);
        let mut sum = d;
        sum.add(&d);
        assert_eq!(sum.issued_at_depth[6], 4000);
    }

    #[test]
    fn a_threads_usage_grows_with_what_it_does() {
        let a = ThreadUsage::of_thread();
        // Touch fresh pages (minor faults) and yield (a voluntary switch).
        let v = vec![1u8; 8 << 20];
        std::thread::sleep(std::time::Duration::from_millis(2));
        let b = ThreadUsage::of_thread().since(a);
        assert!(v.iter().step_by(4096).all(|&x| x == 1));
        assert!(b.minor_faults > 0 && b.context_switches > 0, "{b:?}");
    }
}
