//! Drawing a block under a skewed distribution ([`Distribution`]), cheaply per I/O.
//!
//! - zipf and pareto: a table of 4097 quantiles of the block's popularity rank (computed once
//!   per distribution and region size, shared by the jobs: 32 KiB, in L1), so a draw is one
//!   random number, a table lookup and a linear interpolation inside a 1/4096 slice of the
//!   probability — no floating point, no division. Zipf's table is exact (popularity ∝ 1/k^θ,
//!   summed directly over the first 2^20 ranks, by the midpoint integral beyond, whose relative
//!   error there is under 1e-12); within a slice ranks are drawn uniformly, so any share of I/Os
//!   (the hottest 1% of blocks, ...) is within 1/4096 of the law. fio draws zipf ranks with Gray
//!   et al.'s approximation instead; both give the same law to within a few tenths of a percent
//!   for the hot set.
//! - normal: fio's own definition, drawn as fio does (12 uniform draws and a deviation).
//! - zoned: a 100-entry table from a percent draw to its zone, then uniform within it.
//!
//! Ranks become blocks as in fio, spread over the region (so hot blocks are scattered, not
//! packed) and then moved by an offset (the seed's, or the center asked for) that places the
//! hottest; unlike fio's hash the spreading is a bijection, so no two ranks share a block.

use std::sync::{Arc, Mutex};

use crate::spec::{Distribution, ZoneSize};

/// Quantile slices of a table.
const SLICES: usize = 4096;
const SLICE_BITS: u32 = 12;
/// Fractional bits of a table entry (a continuous rank position).
const FRAC: u32 = 16;
/// Ranks summed one by one before the integral takes over.
const EXACT_RANKS: u64 = 1 << 20;
/// fio's multiplicative hash constant (the golden ratio).
const GOLDEN: u64 = 0x61C8_8646_80B5_83EB;

pub(crate) enum Skew {
    Uniform,
    /// Rank positions at each 1/4096 of probability, fixed point.
    Table {
        table: Arc<Vec<u64>>,
        n: u64,
        off: u64,
    },
    /// fio's normal: the mean of 12 draws over [0, n], plus a deviation of up to ±stddev/2.
    Normal {
        n: u64,
        stddev: u64,
        off: u64,
    },
    /// Percent draw → zone; zones as (first block, blocks).
    Zoned {
        pick: [u8; 100],
        zones: Vec<(u64, u64)>,
    },
    /// vdbench's hot band: the cache-hit curve in blocks, over a band of the region.
    HotBand {
        curve: Arc<Vec<Segment>>,
        /// The band's first block and its length in blocks.
        start: u64,
        band: u64,
        n: u64,
    },
}

/// One piece of the hot band's curve: from probability `p` (2^32 = 1) at block position `x`
/// (fixed point, 16 fractional bits), rising `slope` positions per unit of probability (fixed
/// point, 32 fractional bits).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Segment {
    p: u64,
    x: u64,
    slope: u128,
}

/// vdbench's HotBand cache-hit curve: the probability that an access lands below each offset
/// (MB = 10^6 bytes) — 8.7% in the first 16 MB, a third in the first GB, two thirds in the first
/// TB; the rest reaches 10 PB. Between the points the curve is linear (so, within a band, the
/// hottest bytes are its first ones). Its points are vdbench's; its slopes are derived from them
/// (vdbench's own table has a last slope that stops short of its last point).
const HOTBAND_CURVE: [(f64, u64); 29] = [
    (0.0, 0),
    (0.087217, 16),
    (0.10101, 32),
    (0.132206, 64),
    (0.159946, 128),
    (0.201713, 256),
    (0.262602, 512),
    (0.32645, 1024),
    (0.366902, 2048),
    (0.386175, 4096),
    (0.436941, 8192),
    (0.482631, 16384),
    (0.523752, 32768),
    (0.56076, 65536),
    (0.594068, 131072),
    (0.624045, 262144),
    (0.651024, 524288),
    (0.675305, 1048576),
    (0.697159, 2097152),
    (0.716827, 4194304),
    (0.734528, 8388608),
    (0.750459, 16777216),
    (0.764797, 33554432),
    (0.777701, 67108864),
    (0.789314, 134217728),
    (0.799767, 268435456),
    (0.809174, 536870912),
    (0.81764, 1073741824),
    (1.0, 10737418240),
];

/// The probability that a hot-band access lands below byte `b` of its curve (before the band
/// wraps it), for tests.
#[cfg(test)]
pub(crate) fn hotband_cdf(b: f64) -> f64 {
    let mb = b / 1e6;
    for w in HOTBAND_CURVE.windows(2) {
        let ((p0, x0), (p1, x1)) = (w[0], w[1]);
        if mb < x1 as f64 {
            return p0 + (p1 - p0) * (mb - x0 as f64) / (x1 - x0) as f64;
        }
    }
    1.0
}

/// The curve in blocks of `block` bytes.
fn hotband_curve(block: u64) -> Vec<Segment> {
    let pos = |mb: u64| (((mb as u128 * 1_000_000) << FRAC) / block.max(1) as u128).min(u64::MAX as u128) as u64;
    HOTBAND_CURVE
        .windows(2)
        .map(|w| {
            let (p0, p1) = ((w[0].0 * 4294967296.0) as u64, (w[1].0 * 4294967296.0) as u64);
            let (x0, x1) = (pos(w[0].1), pos(w[1].1));
            Segment { p: p0, x: x0, slope: (((x1 - x0) as u128) << 32) / (p1 - p0).max(1) as u128 }
        })
        .collect()
}

impl Skew {
    /// The sampler of `d` over `n` blocks (each `block` bytes), placed by `seed`.
    pub(crate) fn new(d: &Distribution, n: u64, block: u64, seed: u64) -> Skew {
        let n = n.max(1);
        let placed = |center: &Option<f64>| match center {
            Some(c) => ((n as f64 * c) as u64).min(n - 1),
            None => mix(seed) % n,
        };
        match d {
            Distribution::Uniform => Skew::Uniform,
            Distribution::Zipf { theta, center } => {
                Skew::Table { table: cached(0, *theta, n, || zipf_table(*theta, n)), n, off: placed(center) }
            }
            Distribution::Pareto { h, center } => {
                Skew::Table { table: cached(1, *h, n, || pareto_table(*h, n)), n, off: placed(center) }
            }
            Distribution::Normal { dev_pct, center } => {
                let stddev = ((n as f64 * dev_pct / 100.0).ceil() as u64).min(n / 2);
                let off = center.map_or(0, |c| ((n as f64 * (c - 0.5)).rem_euclid(n as f64)) as u64 % n);
                Skew::Normal { n, stddev, off }
            }
            Distribution::Zoned(list) => {
                let mut pick = [0u8; 100];
                let mut zones = Vec::new();
                let (mut pct_at, mut start) = (0usize, 0u64);
                for (i, z) in list.iter().enumerate() {
                    let len = match z.size {
                        ZoneSize::Pct(p) => n * p as u64 / 100,
                        ZoneSize::Bytes(b) => b / block.max(1),
                    }
                    .clamp(1, n - start.min(n - 1));
                    zones.push((start.min(n - 1), len));
                    start += len;
                    for slot in pick.iter_mut().skip(pct_at).take(z.io_pct as usize) {
                        *slot = i as u8;
                    }
                    pct_at += z.io_pct as usize;
                }
                Skew::Zoned { pick, zones }
            }
            Distribution::HotBand { from, to } => {
                let region = n * block.max(1);
                let first = from.bytes(region) / block.max(1);
                let band = (to.bytes(region) / block.max(1)).saturating_sub(first).clamp(1, n);
                // 28 pieces, made per job: nothing worth sharing.
                Skew::HotBand { curve: Arc::new(hotband_curve(block)), start: first % n, band, n }
            }
        }
    }

    /// A block in [0, n) (None: uniform, drawn by the caller as before); `write`: the I/O is a
    /// write (a hot band moves writes 1% of the band on, as vdbench does, off the hottest blocks).
    #[inline]
    pub(crate) fn block(&self, rng: &mut fastrand::Rng, write: bool) -> Option<u64> {
        match self {
            Skew::Uniform => None,
            Skew::Table { table, n, off } => {
                let u = rng.u64(..);
                let i = (u >> (64 - SLICE_BITS)) as usize;
                let frac = (u >> (64 - SLICE_BITS - 32)) & 0xffff_ffff;
                let (a, b) = (table[i], table[i + 1]);
                let x = a + (((b - a) as u128 * frac as u128) >> 32) as u64;
                Some(scatter(x >> FRAC, *n, *off))
            }
            Skew::Normal { n, stddev, off } => {
                let mut sum = 0u64;
                for _ in 0..12 {
                    sum += rng.u64(0..=*n);
                }
                let mut v = sum.div_ceil(12) as i64;
                if *stddev > 0 {
                    let mut dev = (rng.u64(0..*stddev) as i64) - (*stddev / 2) as i64;
                    while v + dev >= *n as i64 || v + dev < 0 {
                        dev /= 2;
                    }
                    v += dev;
                }
                Some(scatter(v as u64, *n, *off))
            }
            Skew::Zoned { pick, zones } => {
                let (start, len) = zones[pick[rng.usize(0..100)] as usize];
                Some(start + mulhi(rng.u64(..), len))
            }
            Skew::HotBand { curve, start, band, n } => {
                let u = rng.u32(..) as u64;
                // The piece of the curve the draw falls in (28 pieces: 5 steps).
                let i = curve.partition_point(|s| s.p <= u).saturating_sub(1);
                let s = &curve[i];
                let x = s.x as u128 + ((s.slope * (u - s.p) as u128) >> 32);
                let mut rec = (x >> FRAC) as u64;
                if write {
                    rec += band / 100;
                }
                // The curve reaches far past any band: it wraps over the band (one division).
                let b = start + rec % band;
                Some(if b >= *n { b - n } else { b })
            }
        }
    }
}

/// Rank `v` (0 the most popular, below `n`) as a block: spread over [0, n) by a permutation and
/// moved by `off`. fio hashes (v·φ mod 2^64, mod n), which maps some ranks onto one block; here
/// the map is a bijection — an odd multiplier modulo the next power of two (rank 0 stays at 0,
/// so the hottest block is at `off`), walked until it
/// lands below n (under two steps on average) — so each block has exactly one rank's share.
#[inline(always)]
fn scatter(v: u64, n: u64, off: u64) -> u64 {
    let mask = n.next_power_of_two() - 1;
    let mut x = v;
    loop {
        x = x.wrapping_mul(GOLDEN) & mask;
        if x < n {
            break;
        }
    }
    let b = x + off;
    if b >= n {
        b - n
    } else {
        b
    }
}

impl Skew {
    /// The block that rank (or, for normal, value) `v` lands on.
    #[cfg(test)]
    pub(crate) fn place(&self, v: u64) -> u64 {
        match self {
            Skew::Table { n, off, .. } | Skew::Normal { n, off, .. } => scatter(v, *n, *off),
            _ => v,
        }
    }
}

#[cfg(test)]
pub(crate) fn scatter_for_test(v: u64, n: u64, off: u64) -> u64 {
    scatter(v, n, off)
}

/// `x * n / 2^64`: a 64-bit value mapped onto [0, n) with no division.
#[inline(always)]
fn mulhi(x: u64, n: u64) -> u64 {
    ((x as u128 * n as u128) >> 64) as u64
}

/// splitmix64's finalizer.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

type TableKey = (u8, u64, u64);

/// The table of (`kind`, `param`, `n`), made once per process and shared by every job.
fn cached(kind: u8, param: f64, n: u64, make: impl FnOnce() -> Vec<u64>) -> Arc<Vec<u64>> {
    static TABLES: Mutex<Vec<(TableKey, Arc<Vec<u64>>)>> = Mutex::new(Vec::new());
    let key = (kind, param.to_bits(), n);
    let mut tables = TABLES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, t)) = tables.iter().find(|(k, _)| *k == key) {
        return t.clone();
    }
    let t = Arc::new(make());
    tables.push((key, t.clone()));
    if tables.len() > 16 {
        tables.remove(0);
    }
    t
}

/// A continuous rank position (rank r spans [r−1, r)) as a table entry, below `n`.
fn fixed(x: f64, n: u64) -> u64 {
    let max = (n << FRAC) - 1;
    ((x * (1u64 << FRAC) as f64) as u64).min(max)
}

/// Zipf: the rank position at each quantile i/4096 of P(rank = k) ∝ k^−θ over ranks 1..=n.
pub(crate) fn zipf_table(theta: f64, n: u64) -> Vec<u64> {
    let p = |k: f64| k.powf(-theta);
    let exact = n.min(EXACT_RANKS);
    // ∫ t^−θ dt from a to b: the midpoint rule's sum of ranks (a+½ .. b−½).
    let integral = |a: f64, b: f64| {
        if (theta - 1.0).abs() < 1e-12 {
            (b / a).ln()
        } else {
            (b.powf(1.0 - theta) - a.powf(1.0 - theta)) / (1.0 - theta)
        }
    };
    let head: f64 = (1..=exact).map(|k| p(k as f64)).sum();
    let tail_from = exact as f64 + 0.5;
    let total = head + if n > exact { integral(tail_from, n as f64 + 0.5) } else { 0.0 };
    let mut table = vec![0u64; SLICES + 1];
    let mut i = 1;
    let mut below = 0.0; // H(k − 1)
    for k in 1..=exact {
        let pk = p(k as f64);
        while i < SLICES && (i as f64 / SLICES as f64) * total < below + pk {
            let q = i as f64 / SLICES as f64 * total;
            table[i] = fixed((k - 1) as f64 + (q - below) / pk, n);
            i += 1;
        }
        below += pk;
    }
    // Quantiles past the exact ranks: invert the integral in closed form.
    while i < SLICES {
        let rest = i as f64 / SLICES as f64 * total - head;
        let t = if (theta - 1.0).abs() < 1e-12 {
            tail_from * rest.exp()
        } else {
            (tail_from.powf(1.0 - theta) + (1.0 - theta) * rest).powf(1.0 / (1.0 - theta))
        };
        table[i] = fixed(t - 0.5, n);
        i += 1;
    }
    table[SLICES] = n << FRAC;
    table
}

/// fio's pareto: position (n−1)·u^(ln h / ln(1−h)) at each quantile u = i/4096.
pub(crate) fn pareto_table(h: f64, n: u64) -> Vec<u64> {
    let pow = h.ln() / (1.0 - h).ln();
    let mut table: Vec<u64> =
        (0..=SLICES).map(|i| fixed((n - 1) as f64 * (i as f64 / SLICES as f64).powf(pow), n)).collect();
    table[SLICES] = n << FRAC;
    table
}
