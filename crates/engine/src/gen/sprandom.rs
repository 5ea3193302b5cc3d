//! SPRandom's pass, block by block (the model and its layout: `spec/sprandom.rs`).
//!
//! The pass writes the drive in regions of equal writes. Each region writes first the blocks the
//! region before it staged (rewriting them leaves their earlier copies, in that region, invalid),
//! then blocks never written yet, until the region is full; every write of region `r` is staged
//! for region `r + 1` with the share of writes `r` must lose. With a cache size, a region's
//! staged blocks are written after the next region's new blocks instead of before them. The pass
//! ends once every block was written and nothing is left to rewrite, or after its last region
//! and the blocks not written yet: every block is written (fio stops at the pass's bytes, which
//! can leave a few blocks unwritten: 8 of 8,192 in fio's own test 1).
//!
//! New blocks come from [`Permutation`]: every block of the region once, in an order no pattern
//! of offsets shows, in O(1) memory (fio takes its LFSR). Per write: one staging draw, a push
//! into a list sized once; no allocation.

use crate::spec::sprandom::{Layout, SHARE_SCALE};

/// A bijection of `0..n`: a four-round Feistel network over the smallest even-bit domain that
/// holds `n`, walked until it lands below `n` (cycle walking: at most 4 steps on average).
pub struct Permutation {
    n: u64,
    half: u32,
    mask: u64,
    keys: [u64; 4],
    next: u64,
}

impl Permutation {
    pub fn new(n: u64, seed: u64) -> Permutation {
        let bits = (64 - n.saturating_sub(1).leading_zeros()).max(2);
        let half = bits.div_ceil(2);
        let mut k = seed;
        let keys = [(); 4].map(|_| {
            k = splitmix(k);
            k
        });
        Permutation { n, half, mask: (1u64 << half) - 1, keys, next: 0 }
    }

    /// The next block of the permutation; None once all `n` were given.
    #[inline]
    pub fn next(&mut self) -> Option<u64> {
        if self.next >= self.n {
            return None;
        }
        let mut x = self.next;
        self.next += 1;
        loop {
            x = self.round_trip(x);
            if x < self.n {
                return Some(x);
            }
        }
    }

    #[inline]
    fn round_trip(&self, x: u64) -> u64 {
        let (mut l, mut r) = (x >> self.half, x & self.mask);
        for k in self.keys {
            let t = l ^ (splitmix(r ^ k) & self.mask);
            l = r;
            r = t;
        }
        (l << self.half) | r
    }
}

#[inline]
fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

pub struct SpWalk {
    blocks: Permutation,
    invalid: Box<[u32]>,
    region_writes: u64,
    region: usize,
    /// New blocks still to write in this region.
    new_left: u64,
    /// The blocks the previous region staged, rewritten in this one; the next to write.
    pending: Vec<u64>,
    pending_at: usize,
    /// This region's writes staged for the next (capacity fixed at the start).
    staged: Vec<u64>,
    /// The rewrites come after the region's new blocks (a cache size was given).
    deferred: bool,
    /// Every block was written once.
    exhausted: bool,
    /// Stagings that found the list full (six standard deviations past the expected count).
    pub dropped: u64,
    rng: fastrand::Rng,
}

impl SpWalk {
    pub fn new(layout: &Layout, deferred: bool, seed: u64) -> SpWalk {
        let cap = layout.staged_capacity as usize;
        SpWalk {
            blocks: Permutation::new(layout.blocks, seed),
            invalid: layout.invalid.clone().into_boxed_slice(),
            region_writes: layout.region_writes,
            region: 0,
            new_left: layout.region_writes,
            pending: Vec::with_capacity(cap),
            pending_at: 0,
            staged: Vec::with_capacity(cap),
            deferred,
            exhausted: false,
            dropped: 0,
            rng: fastrand::Rng::with_seed(splitmix(seed ^ 0x5350_5241_4e44)),
        }
    }

    /// The next block to write; None when the pass is done.
    #[inline]
    pub fn next(&mut self) -> Option<u64> {
        loop {
            if !self.deferred || self.new_left == 0 || self.exhausted {
                if let Some(&b) = self.pending.get(self.pending_at) {
                    self.pending_at += 1;
                    self.stage(b);
                    return Some(b);
                }
            }
            if self.exhausted {
                return None;
            }
            if self.new_left == 0 {
                if self.region + 1 >= self.invalid.len() {
                    // The regions are done; blocks never written yet (the rewrites came out
                    // above the model's count) are written now, so every block is.
                    return self.blocks.next();
                }
                self.region += 1;
                std::mem::swap(&mut self.pending, &mut self.staged);
                self.staged.clear();
                self.pending_at = 0;
                self.new_left = self.region_writes.saturating_sub(self.pending.len() as u64);
                continue;
            }
            match self.blocks.next() {
                Some(b) => {
                    self.new_left -= 1;
                    self.stage(b);
                    return Some(b);
                }
                None => self.exhausted = true,
            }
        }
    }

    #[inline]
    fn stage(&mut self, block: u64) {
        if self.rng.u32(0..SHARE_SCALE) < self.invalid[self.region] {
            if self.staged.len() < self.staged.capacity() {
                self.staged.push(block);
            } else {
                self.dropped += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::sprandom::{region_validity, SpRandom};

    #[test]
    fn a_permutation_gives_every_block_once() {
        for n in [1u64, 2, 3, 5, 64, 1000, 4097] {
            let mut p = Permutation::new(n, 7);
            let mut seen = vec![false; n as usize];
            while let Some(b) = p.next() {
                assert!(!std::mem::replace(&mut seen[b as usize], true), "{b} twice of {n}");
            }
            assert!(seen.iter().all(|&s| s), "every block of {n}");
        }
        // Not the identity nor a stride: neighbours in the order are far apart on average.
        let mut p = Permutation::new(1 << 16, 1);
        let v: Vec<u64> = std::iter::from_fn(|| p.next()).collect();
        let mean_gap = v.windows(2).map(|w| w[0].abs_diff(w[1])).sum::<u64>() / (v.len() as u64 - 1);
        assert!(mean_gap > (1 << 16) / 4, "{mean_gap}");
    }

    /// The validity each region is left with: the blocks whose last write fell in it.
    fn left_validity(writes: &[u64], per_region: u64, regions: usize) -> Vec<f64> {
        let mut last = std::collections::HashMap::new();
        for (i, &b) in writes.iter().enumerate() {
            last.insert(b, i as u64);
        }
        let mut live = vec![0u64; regions + 1];
        for &i in last.values() {
            live[((i / per_region) as usize).min(regions)] += 1;
        }
        live[..regions].iter().map(|&l| l as f64 / per_region as f64).collect()
    }

    fn pass(s: SpRandom, span: u64) -> (Layout, Vec<u64>, u64) {
        let l = s.layout("t", span, 4096).unwrap();
        let mut w = SpWalk::new(&l, s.cache_bytes > 0, 42);
        let writes: Vec<u64> = std::iter::from_fn(|| w.next()).collect();
        (l, writes, w.dropped)
    }

    #[test]
    fn a_pass_writes_its_physical_capacity_and_leaves_the_models_validity() {
        for cache in [0, 64 << 10] {
            let s = SpRandom { on: true, over_provisioning: 0.15, regions: 40, cache_bytes: cache };
            let (l, writes, dropped) = pass(s, 256 << 20);
            assert_eq!(dropped, 0);
            let blocks = l.blocks as usize;
            assert!(writes.iter().all(|&b| b < l.blocks));
            // The pass is the region plus its spare, within a region's worth of rounding.
            let total = (l.physical_bytes / 4096) as usize;
            let slack = l.region_writes as usize;
            assert!(writes.len() <= total + slack && writes.len() + slack >= total, "{}", writes.len());
            // Every block, whatever the draws.
            let unique: std::collections::HashSet<_> = writes.iter().collect();
            assert_eq!(unique.len(), blocks);
            // Each region is left near the model's validity (region 0 the least valid).
            let got = left_validity(&writes, l.region_writes, 40);
            let want = region_validity(0.15, 40);
            for r in 0..39 {
                assert!((got[r] - want[r]).abs() < 0.03, "cache {cache}: region {r}: {} vs {}", got[r], want[r]);
            }
            let mean: f64 = got.iter().sum::<f64>() / 40.0;
            let want_mean: f64 = want.iter().sum::<f64>() / 40.0;
            assert!((mean - want_mean).abs() < 0.01, "{mean} vs {want_mean}");
        }
    }

    #[test]
    fn every_block_is_written_whichever_way_the_draws_fall() {
        // 50 regions of 180 writes: the rewrites vary by ±30 around the model's 814, so some
        // seeds finish the regions before every block was written (fio's test 1).
        let s = SpRandom { on: true, over_provisioning: 0.10, regions: 50, cache_bytes: 0 };
        let l = s.layout("t", 32 << 20, 4096).unwrap();
        let mut ended_by_regions = 0;
        for seed in 0..16 {
            let mut w = SpWalk::new(&l, false, seed);
            let v: Vec<u64> = std::iter::from_fn(|| w.next()).collect();
            let unique: std::collections::HashSet<_> = v.iter().collect();
            assert_eq!(unique.len(), 8192, "seed {seed}");
            ended_by_regions += usize::from(v.len() > 50 * 180);
        }
        assert!(ended_by_regions > 0, "a seed whose regions end first is among these");
    }

    #[test]
    fn with_a_cache_a_block_is_never_rewritten_within_a_region_of_its_write() {
        let s = SpRandom { on: true, over_provisioning: 0.2, regions: 20, cache_bytes: 64 << 10 };
        let (l, writes, _) = pass(s, 64 << 20);
        let mut at = std::collections::HashMap::new();
        let mut closest = u64::MAX;
        for (i, &b) in writes.iter().enumerate() {
            if let Some(j) = at.insert(b, i as u64) {
                closest = closest.min(i as u64 - j);
            }
        }
        // Without the cache a rewrite can follow its first write within a few writes (region
        // end, next region start); deferred, at least the next region's new blocks lie between.
        assert!(closest >= l.region_writes / 2, "{closest} of {}", l.region_writes);
        let (_, writes, _) = pass(SpRandom { cache_bytes: 0, ..s }, 64 << 20);
        let mut at = std::collections::HashMap::new();
        let mut closest = u64::MAX;
        for (i, &b) in writes.iter().enumerate() {
            if let Some(j) = at.insert(b, i as u64) {
                closest = closest.min(i as u64 - j);
            }
        }
        assert!(closest < l.region_writes / 2);
    }
}
