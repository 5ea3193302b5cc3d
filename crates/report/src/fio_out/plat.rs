//! fio's latency histogram buckets (stat.h `FIO_IO_U_PLAT_BITS` = 6: 64 buckets per power of
//! two, exact below 128 ns) and the `bins` of json+ made from drivelab's histogram.
//!
//! drivelab's histogram ([`drivelab_engine::hist`]) has 128 buckets per power of two, exact
//! below 256 ns, all aligned on the same powers of two: every drivelab bucket lies inside one
//! fio bucket. Mapping each onto fio's adds no error: the bins are exactly what fio's own
//! histogram would have counted for the same latencies.

use drivelab_engine::hist::HistogramData;

/// fio's `FIO_IO_U_PLAT_BITS`.
const BITS: u32 = 6;
/// fio's `FIO_IO_U_PLAT_VAL`.
const VAL: u64 = 1 << BITS;
/// fio's `FIO_IO_U_PLAT_NR` (29 groups of 64): larger values land in the last bucket.
const NR: usize = 29 * VAL as usize;

/// fio's bucket index of `ns`.
pub(super) fn idx(ns: u64) -> usize {
    if ns < 2 * VAL {
        return ns as usize;
    }
    let msb = 63 - ns.leading_zeros();
    let error_bits = msb - BITS;
    let base = ((error_bits + 1) as u64) << BITS;
    ((base + ((VAL - 1) & (ns >> error_bits))) as usize).min(NR - 1)
}

/// The value fio writes for bucket `i` (its midpoint; exact below 128), as json+'s bin key.
pub(super) fn value(i: usize) -> u64 {
    let i = i as u64;
    if i < 2 * VAL {
        return i;
    }
    let error_bits = (i >> BITS) - 1;
    let base = 1u64 << (error_bits + BITS as u64);
    let k = i % VAL;
    base + ((k as f64 + 0.5) * (1u64 << error_bits) as f64) as u64
}

/// json+'s `bins` of a drivelab histogram: (fio's bucket value in ns, count), ascending,
/// non-empty buckets only (as fio writes them).
pub(super) fn bins(h: &HistogramData) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for &[low, count] in &h.buckets {
        let v = value(idx(low));
        match out.last_mut() {
            Some((last, c)) if *last == v => *c += count,
            _ => out.push((v, count)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use drivelab_engine::hist::{bucket_low, bucket_width, Histogram};

    #[test]
    fn values_are_fios_keys() {
        // Keys fio 3.33 wrote in a json+ run (clat_ns bins of a psync randread).
        for v in [2224u64, 2256, 3760, 55040, 78336, 144384] {
            assert_eq!(value(idx(v)), v);
        }
        assert_eq!((idx(127), value(127)), (127, 127));
        assert_eq!((value(idx(128)), value(idx(129))), (129, 129));
    }

    #[test]
    fn every_drivelab_bucket_lies_in_one_fio_bucket() {
        for i in 0..4000usize {
            let (lo, w) = (bucket_low(i), bucket_width(i));
            if lo > 1 << 40 {
                break;
            }
            assert_eq!(idx(lo), idx(lo + w - 1), "drivelab bucket {i} [{lo}, {}] straddles fio buckets", lo + w - 1);
        }
    }

    #[test]
    fn bins_count_every_sample_once() {
        let mut h = Histogram::new();
        for v in [100u64, 101, 2224, 2230, 2250, 1_000_000] {
            h.record(v);
        }
        let b = bins(&h.summary().histogram);
        assert_eq!(b, vec![(100, 1), (101, 1), (2224, 2), (2256, 1), (value(idx(1_000_000)), 1)]);
    }
}
