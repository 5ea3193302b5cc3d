//! fio's SPRandom (fio 3.41's `sprandom`, `spr_op`, `spr_num_regions`, `spr_cs`): an SSD put
//! into its random-write steady state by one pass over its physical capacity.
//!
//! Why it exists: a flash drive reaches its random-write steady state only once garbage
//! collection finds erase blocks of every validity; writing the drive whole and then randomly
//! until the figures settle (drivelab's `--precondition`) takes two or more drive writes.
//! SPRandom writes the logical blocks once plus the over-provisioning, and picks which blocks
//! to write again so that the regions the drive filled in order are left with the validity they
//! would have at steady state: the oldest region the least valid.
//!
//! The model is P. Desnoyers', "Analytic Models of SSD Write Performance" (ACM Transactions on
//! Storage 8(2), 2012): at steady state, a validity times the share of the drive at that
//! validity is the same for every validity, and greedy GC picks blocks of validity 1 − 1/WA,
//! with WA ≈ 0.5/OP + 0.7. Validities spaced evenly from 1 down to GC's, each holding a share
//! of 1/validity, resampled to equal shares, give one validity per region of the pass.
//! [`SpRandom::layout`] computes it once; `gen/sprandom.rs` walks it per I/O.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Field};

/// An invalid share is kept in 1/10,000ths (fio's precision), so a write is staged with one
/// integer draw.
pub const SHARE_SCALE: u32 = 10_000;
/// The most regions (fio has no bound; a region's validity costs 4 bytes).
pub const MAX_REGIONS: u32 = 1 << 20;
/// The most blocks held for rewriting at once (two lists of this many offsets: 1 GiB each);
/// more regions make a region, and the list, smaller.
pub const MAX_STAGED: u64 = 1 << 27;

/// The options, as fio names them; `on` false: the rest are not used.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpRandom {
    /// fio's `sprandom`.
    pub on: bool,
    /// fio's `spr_op`: the drive's spare capacity as a share of its logical capacity, in (0, 1)
    /// (the maker's figure; fio's default 0.15).
    pub over_provisioning: f64,
    /// fio's `spr_num_regions` (default 100).
    pub regions: u32,
    /// fio's `spr_cs`: the drive's write cache. Not 0: a region's rewrites wait until the
    /// next region's new blocks are written, so a block and its rewrite are never in the cache
    /// together (the drive would drop the first and the region would not lose its validity).
    pub cache_bytes: u64,
}

impl Default for SpRandom {
    fn default() -> SpRandom {
        SpRandom { on: false, over_provisioning: 0.15, regions: 100, cache_bytes: 0 }
    }
}

/// What one pass writes over a region of given bytes and blocks.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    /// Blocks of the region (the logical blocks, each written once).
    pub blocks: u64,
    /// The pass's bytes: the region plus its over-provisioning, in whole blocks (fio's `io_size`
    /// for the job).
    pub physical_bytes: u64,
    /// Writes per region of the pass.
    pub region_writes: u64,
    /// Each region's share of writes written again in the next region, in 1/[`SHARE_SCALE`]:
    /// 1 − its validity.
    pub invalid: Vec<u32>,
    /// Room for one region's blocks to rewrite: the expected count of the least valid region
    /// plus six standard deviations (never more than a region).
    pub staged_capacity: u64,
}

impl SpRandom {
    pub fn is_default(&self) -> bool {
        *self == SpRandom::default()
    }

    /// The values alone, as the options give them.
    pub fn check(&self) -> Result<(), Error> {
        let op = self.over_provisioning;
        if !(op > 0.0 && op < 1.0) {
            let fix = "not a share between 0 and 1: give the drive's over-provisioning, e.g. 0.07 or 0.28";
            return Err(Error::spec(Field::SprOp, op.to_string(), fix));
        }
        if self.regions == 0 || self.regions > MAX_REGIONS {
            let fix = format!("outside 1..{MAX_REGIONS}: give e.g. 100");
            return Err(Error::spec(Field::SprNumRegions, self.regions.to_string(), fix));
        }
        Ok(())
    }

    /// The pass over `target`'s region of `span` bytes written in blocks of `bs`, or why it
    /// cannot run.
    pub fn layout(&self, target: &str, span: u64, bs: u64) -> Result<Layout, Error> {
        self.check()?;
        let regions = || self.regions.to_string();
        let bs = bs.max(1);
        let blocks = span / bs;
        let logical = blocks * bs;
        let spare = (logical as f64 * self.over_provisioning).ceil() as u64;
        let physical = logical.saturating_add(spare);
        let physical_bytes = physical - physical % bs;
        let region_bytes = physical_bytes / self.regions as u64;
        let region_writes = region_bytes / bs;
        if region_writes == 0 {
            let n = physical_bytes / bs;
            let fix = format!(
                "the pass over {target} writes {n} blocks of {bs} bytes, fewer than one per region: give at most {n}"
            );
            return Err(Error::spec(Field::SprNumRegions, regions(), fix));
        }
        if self.cache_bytes > region_bytes {
            let fix = format!(
                "larger than a region ({region_bytes} bytes: {} regions of the {physical_bytes}-byte pass over \
                 {target}): give at most {} {{spr_num_regions}}, or the drive's true cache size",
                self.regions,
                (physical_bytes / self.cache_bytes).max(1)
            );
            return Err(Error::spec(Field::SprCs, self.cache_bytes.to_string(), fix));
        }
        let validity = region_validity(self.over_provisioning, self.regions);
        let invalid: Vec<u32> = validity
            .iter()
            .map(|v| ((1.0 - v) * SHARE_SCALE as f64).round().clamp(0.0, SHARE_SCALE as f64) as u32)
            .collect();
        let least = validity[0];
        let n = region_writes as f64;
        let sigma = (n * least * (1.0 - least)).sqrt();
        let staged_capacity = ((n * (1.0 - least) + 6.0 * sigma).ceil() as u64 + 1).min(region_writes);
        if staged_capacity > MAX_STAGED {
            let fix = format!(
                "a region of {region_bytes} bytes would hold {staged_capacity} blocks to rewrite (at most \
                 {MAX_STAGED}): give more regions, e.g. {}",
                (self.regions as u64 * staged_capacity).div_ceil(MAX_STAGED).min(MAX_REGIONS as u64)
            );
            return Err(Error::spec(Field::SprNumRegions, regions(), fix));
        }
        Ok(Layout { blocks, physical_bytes, region_writes, invalid, staged_capacity })
    }
}

/// The write amplification of greedy GC at over-provisioning `op` (the usual fit of
/// Desnoyers' exact form, as fio uses).
fn write_amplification(op: f64) -> f64 {
    0.5 / op + 0.7
}

/// Each region's validity at steady state, the first region of the pass (the oldest data) first:
/// validities evenly spaced from 1 down to GC's pick, each holding a share 1/validity of the
/// drive, cut into `regions` equal shares (linear between the points).
pub fn region_validity(op: f64, regions: u32) -> Vec<f64> {
    let n = regions.max(1) as usize;
    if n == 1 {
        return vec![1.0];
    }
    let gc = 1.0 - 1.0 / write_amplification(op);
    let v: Vec<f64> = (0..n).map(|i| 1.0 + (gc - 1.0) * i as f64 / (n - 1) as f64).collect();
    let mut x = Vec::with_capacity(n);
    let mut acc = 0.0;
    for vi in &v {
        acc += 1.0 / vi;
        x.push(acc);
    }
    let (x0, x1) = (x[0], x[n - 1]);
    let mut out = Vec::with_capacity(n);
    let mut k = 0;
    for j in 0..n {
        let xj = x0 + (x1 - x0) * j as f64 / (n - 1) as f64;
        while k + 2 < n && x[k + 1] < xj {
            k += 1;
        }
        let t = ((xj - x[k]) / (x[k + 1] - x[k])).clamp(0.0, 1.0);
        out.push(v[k] + (v[k + 1] - v[k]) * t);
    }
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_region_is_left_at_gcs_validity_and_the_newest_whole() {
        let v = region_validity(0.15, 100);
        assert_eq!(v.len(), 100);
        let gc = 1.0 - 1.0 / (0.5 / 0.15 + 0.7);
        assert!((v[0] - gc).abs() < 1e-12, "{} vs {gc}", v[0]);
        assert!((v[99] - 1.0).abs() < 1e-12);
        assert!(v.windows(2).all(|w| w[0] <= w[1] + 1e-12), "validity rises from the oldest region");
        // Low validities hold more of the drive (share 1/v): more regions sit below the middle
        // validity than above it.
        let mid = (1.0 + gc) / 2.0;
        assert!(v.iter().filter(|&&x| x < mid).count() > 50);
        assert_eq!(region_validity(0.15, 1), vec![1.0]);
        assert_eq!(region_validity(0.5, 2), vec![1.0 - 1.0 / 1.7, 1.0]);
    }

    #[test]
    fn a_pass_writes_the_region_and_its_spare_in_whole_blocks() {
        // fio 3.42's t/sprandom.py test 1: 32 MiB, spr_op 0.10, 50 regions: fio writes 9,011
        // blocks (35.2 MiB), 180 per region.
        let s = SpRandom { on: true, over_provisioning: 0.10, regions: 50, cache_bytes: 0 };
        let l = s.layout("t", 32 << 20, 4096).unwrap();
        assert_eq!((l.blocks, l.physical_bytes / 4096, l.region_writes), (8192, 9011, 180));
        assert_eq!(l.invalid.len(), 50);
        assert_eq!(*l.invalid.last().unwrap(), 0);
        assert!(l.staged_capacity >= 180 / 5 && l.staged_capacity <= 180);
    }

    #[test]
    fn what_cannot_run_is_refused_with_the_bound() {
        let s = |op, regions, cache| SpRandom { on: true, over_provisioning: op, regions, cache_bytes: cache };
        let msg = |r: Result<Layout, Error>| r.unwrap_err().to_string();
        // fio's tests 7 and 8: a cache larger than a region.
        let e = msg(s(0.10, 2000, 32 << 10).layout("t", 32 << 20, 4096));
        assert!(e.contains("spr_cs 32768") && e.contains("give at most 1126 spr_num_regions"), "{e}");
        assert!(s(0.10, 50, 32 << 20).layout("t", 32 << 20, 4096).is_err());
        assert!(s(0.10, 100, 32 << 10).layout("t", 32 << 20, 4096).is_ok(), "fio's test 6 runs");
        assert!(msg(s(0.0, 10, 0).layout("t", 1 << 20, 4096)).contains("spr_op 0"));
        assert!(s(1.0, 10, 0).check().is_err());
        assert!(s(f64::NAN, 10, 0).check().is_err());
        assert!(s(0.1, 0, 0).check().is_err());
        let e = msg(s(0.1, 300, 0).layout("t", 1 << 20, 4096));
        assert!(e.contains("spr_num_regions 300") && e.contains("give at most 281"), "{e}");
        // A huge region in two pieces: the first's rewrite list would not fit.
        let e = msg(s(0.5, 2, 0).layout("t", 1 << 50, 4096));
        assert!(e.contains("give more regions"), "{e}");
    }
}
