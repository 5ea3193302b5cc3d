//! fio's dedupe (`spec.dedupe`): every write's buffer is made afresh from seeds, so a chosen
//! share of writes repeat data written elsewhere, as fio makes them. A job's unique writes take
//! its seeds in turn (one per `chunk`, the smallest block size); a deduplicated write takes
//! seeds it does not consume: `repeat` the next unique write's (so it and that write match),
//! `working_set` those of a block drawn from the first `working_set_pct`% of the region's
//! blocks' worth of unique writes — with `global`, that set is spread over every job of the run
//! (job `me + m`'s first buffers for the `m`-th part), so jobs repeat each other's data. Each
//! chunk holds random bytes then zeros (`data`'s compressible share), as fio's
//! `buffer_compress_percentage` makes them. Filling costs one pass of a PRNG over the buffer per
//! write, with no allocation.

use super::JobCtx;
use crate::spec::dedupe::{Dedupe, DedupeMode};
use crate::spec::DataPattern;

pub(super) struct DedupeFill {
    d: Dedupe,
    base: u64,
    /// This job's key (with `global`, its number among the run's jobs).
    me: u64,
    /// With `global`: the run's jobs.
    jobs: u64,
    /// The index of the next unique seed.
    next: u64,
    /// Whether a write repeats (fio's 1..100 draw against the share).
    choose: fastrand::Rng,
    /// Which working-set entry a repeating write takes.
    pick: fastrand::Rng,
    working_set: u64,
    /// With `global`: the entries each job contributes (fio's pages per seed).
    per_job: u64,
    zero_pct: usize,
    chunk: usize,
}

impl DedupeFill {
    pub(super) fn new(ctx: &JobCtx, d: Dedupe) -> DedupeFill {
        let spec = &*ctx.spec;
        let (me, jobs) =
            if d.global { (ctx.run_job.0 as u64, (ctx.run_job.1 as u64).max(1)) } else { (ctx.job | 1 << 63, 1) };
        let chunk = spec.bs.iter().map(|b| b.bytes).min().unwrap_or(4096).max(1);
        let working_set = (ctx.span * d.working_set_pct as u64 / 100 / chunk).max(1);
        let zero_pct = match spec.data {
            DataPattern::Compress { pct } => pct.min(100) as usize,
            _ => 0,
        };
        let key = mix(spec.seed, me, u64::MAX);
        DedupeFill {
            d,
            base: spec.seed,
            me,
            jobs,
            next: 0,
            choose: fastrand::Rng::with_seed(key ^ 0xDED0),
            pick: fastrand::Rng::with_seed(key ^ 0x5E7),
            working_set,
            per_job: (working_set / jobs).max(1),
            zero_pct,
            chunk: chunk as usize,
        }
    }

    /// Fill a write's buffer: unique, or a repeat as the share and mode say.
    #[inline]
    pub(super) fn fill(&mut self, buf: &mut [u8]) {
        let repeat = self.d.pct >= 100 || self.choose.u8(1..=100) <= self.d.pct;
        let (job, first) = if !repeat || self.d.mode == DedupeMode::Repeat {
            (self.me, self.next)
        } else {
            let i = self.pick.u64(0..self.working_set);
            if self.d.global {
                let m = i / self.per_job;
                ((self.me + m) % self.jobs, i % self.per_job)
            } else {
                (self.me, i)
            }
        };
        let mut n = first;
        for piece in buf.chunks_mut(self.chunk) {
            let mut rng = fastrand::Rng::with_seed(mix(self.base, job, n));
            let random = piece.len() * (100 - self.zero_pct) / 100;
            rng.fill(&mut piece[..random]);
            piece[random..].fill(0);
            n += 1;
        }
        if !repeat {
            self.next = n;
        }
    }
}

/// The seed of job `job`'s `n`-th chunk (splitmix64 of the three).
#[inline]
fn mix(base: u64, job: u64, n: u64) -> u64 {
    let mut z =
        base.wrapping_add(job.wrapping_mul(0xD1B5_4A32_D192_ED03)).wrapping_add(n.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::from_pairs;
    use std::collections::HashMap;

    /// `blocks` 4 KiB writes of job `no` of `of` with `dedupe`: each block's content hash.
    fn write(dedupe: &str, no: u32, of: u32, blocks: usize) -> Vec<u64> {
        let spec = from_pairs([("dedupe", dedupe), ("rw", "write"), ("span", "16m"), ("data", "compress:50")]).unwrap();
        let mut c = super::super::tests::ctx(spec, None);
        c.span = blocks as u64 * 4096;
        c.run_job = (no, of);
        let d = c.spec.dedupe.unwrap();
        let mut f = DedupeFill::new(&c, d);
        let mut buf = vec![0u8; 4096];
        (0..blocks)
            .map(|_| {
                f.fill(&mut buf);
                let zeros = buf.iter().filter(|&&b| b == 0).count();
                assert!((2048..2100).contains(&zeros), "half of each block is zeros: {zeros}");
                buf.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
            })
            .collect()
    }

    fn duplicates(hashes: &[u64]) -> f64 {
        let mut seen: HashMap<u64, usize> = HashMap::new();
        for h in hashes {
            *seen.entry(*h).or_default() += 1;
        }
        1.0 - seen.len() as f64 / hashes.len() as f64
    }

    #[test]
    fn the_share_of_repeated_blocks_is_the_dedupe_share() {
        for (mode, pct) in [("repeat", 30u32), ("working_set:50", 50), ("repeat", 100)] {
            let h = write(&format!("{pct}:{mode}"), 0, 1, 8000);
            let dup = duplicates(&h);
            let want = pct as f64 / 100.0;
            let want = if pct == 100 { 1.0 - 1.0 / 8000.0 } else { want };
            assert!((dup - want).abs() < 0.03, "{mode} {pct}%: {dup}");
        }
    }

    #[test]
    fn global_jobs_repeat_each_others_blocks() {
        let a = write("50:working_set:50:global", 0, 2, 6400);
        let b = write("50:working_set:50:global", 1, 2, 6400);
        let alone = write("50:working_set:50", 0, 2, 6400);
        let both: Vec<u64> = a.iter().chain(&b).copied().collect();
        let (da, dboth) = (duplicates(&a), duplicates(&both));
        // fio's own example: each file alone ~34% duplicates, the two together ~50%.
        assert!((da - 0.34).abs() < 0.03, "{da}");
        assert!((dboth - 0.50).abs() < 0.03, "{dboth}");
        assert!((duplicates(&alone) - 0.5).abs() < 0.03, "not global: a job repeats its own blocks only");
    }
}
