//! Log-linear latency histogram: fixed buckets, constant cost per sample, mergeable.
//!
//! # Layout and error bound
//! Values below 256 ns get one bucket each (exact). Above that, every power of two
//! `[2^e, 2^(e+1))` is split into 128 equal sub-buckets of width `2^(e-7)`. A value is reported
//! as the midpoint of its bucket, so the reported value differs from the true one by at most
//! half a bucket width: `2^(e-8) / 2^e = 1/256`, a **relative error of at most 0.39%** (and never
//! more than 1%, the bound the project documents). Percentiles are computed the way fio and
//! HdrHistogram do: the smallest bucket whose cumulative count reaches `ceil(p/100 * n)`.
//!
//! Min, max, sum and sum of squares are kept exactly beside the buckets, so mean, stdev, min and
//! max carry no bucket error at all.
//!
//! 7424 buckets cover every u64 value; recording is a leading-zero count and an add.

use serde::{Deserialize, Serialize};

/// Sub-bucket bits: 2^7 = 128 sub-buckets per power of two.
pub const SUB_BITS: u32 = 7;
const SUB: u64 = 1 << SUB_BITS;
/// Number of buckets needed for the whole u64 range.
pub const BUCKETS: usize = (2 * SUB + (63 - SUB_BITS as u64) * SUB) as usize;

/// A percentile every result reports: typed, so a misspelt one does not compile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pct {
    P1,
    P5,
    P10,
    P25,
    P50,
    P75,
    P90,
    P95,
    P99,
    P99_9,
    P99_99,
    P99_999,
    P99_9999,
}

impl Pct {
    /// Every reported percentile in the order of its name (`p1`, `p10`, `p25`, `p5`, …): the
    /// order of their keys in saved JSON.
    pub const BY_NAME: [Pct; 13] = [
        Pct::P1,
        Pct::P10,
        Pct::P25,
        Pct::P5,
        Pct::P50,
        Pct::P75,
        Pct::P90,
        Pct::P95,
        Pct::P99,
        Pct::P99_9,
        Pct::P99_99,
        Pct::P99_999,
        Pct::P99_9999,
    ];

    /// Every reported percentile, ascending.
    pub const ALL: [Pct; 13] = [
        Pct::P1,
        Pct::P5,
        Pct::P10,
        Pct::P25,
        Pct::P50,
        Pct::P75,
        Pct::P90,
        Pct::P95,
        Pct::P99,
        Pct::P99_9,
        Pct::P99_99,
        Pct::P99_999,
        Pct::P99_9999,
    ];

    /// The percentile, 0..100 (99.9 for `P99_9`).
    pub fn value(self) -> f64 {
        PERCENTILES[self as usize].0
    }

    /// Its key in saved results: `p99.9`.
    pub fn name(self) -> &'static str {
        PERCENTILES[self as usize].1
    }

    /// The percentile saved under `name` (`p99.9`), if it is one.
    pub fn from_name(name: &str) -> Option<Pct> {
        Pct::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// The percentiles every result reports, as (value, key in saved results), in [`Pct`] order.
pub const PERCENTILES: [(f64, &str); 13] = [
    (1.0, "p1"),
    (5.0, "p5"),
    (10.0, "p10"),
    (25.0, "p25"),
    (50.0, "p50"),
    (75.0, "p75"),
    (90.0, "p90"),
    (95.0, "p95"),
    (99.0, "p99"),
    (99.9, "p99.9"),
    (99.99, "p99.99"),
    (99.999, "p99.999"),
    (99.9999, "p99.9999"),
];

#[derive(Clone)]
pub struct Histogram {
    counts: Box<[u64; BUCKETS]>,
    n: u64,
    min: u64,
    max: u64,
    sum: u128,
    sum_sq: u128,
}

/// Equal when every bucket and every exact moment is (what a merge must preserve).
impl PartialEq for Histogram {
    fn eq(&self, other: &Self) -> bool {
        self.n == other.n
            && self.min == other.min
            && self.max == other.max
            && self.sum == other.sum
            && self.sum_sq == other.sum_sq
            && self.counts[..] == other.counts[..]
    }
}

impl Default for Histogram {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Histogram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Histogram").field("n", &self.n).field("min", &self.min).field("max", &self.max).finish()
    }
}

/// Bucket index of a value.
#[inline(always)]
pub fn bucket_of(v: u64) -> usize {
    if v < 2 * SUB {
        v as usize
    } else {
        let e = 63 - v.leading_zeros() as u64; // >= SUB_BITS + 1
        let shift = e - SUB_BITS as u64;
        let sub = (v >> shift) - SUB;
        (2 * SUB + (e - SUB_BITS as u64 - 1) * SUB + sub) as usize
    }
}

/// Lowest value that falls into bucket `i`.
pub fn bucket_low(i: usize) -> u64 {
    let i = i as u64;
    if i < 2 * SUB {
        i
    } else {
        let group = (i - 2 * SUB) / SUB; // 0 for e = SUB_BITS + 1
        let sub = (i - 2 * SUB) % SUB;
        let shift = group + 1;
        (SUB + sub) << shift
    }
}

/// Width of bucket `i` in value units.
pub fn bucket_width(i: usize) -> u64 {
    let i = i as u64;
    if i < 2 * SUB {
        1
    } else {
        1 << ((i - 2 * SUB) / SUB + 1)
    }
}

/// The value reported for bucket `i`: its midpoint (exact for the unit-width buckets).
pub fn bucket_value(i: usize) -> u64 {
    let w = bucket_width(i);
    bucket_low(i) + (w - 1) / 2
}

impl Histogram {
    pub fn new() -> Self {
        Histogram {
            counts: vec![0u64; BUCKETS].into_boxed_slice().try_into().expect("fixed length"),
            n: 0,
            min: u64::MAX,
            max: 0,
            sum: 0,
            sum_sq: 0,
        }
    }

    #[inline(always)]
    pub fn record(&mut self, v: u64) {
        self.record_n(v, 1);
    }

    /// Record `count` samples of the same value (one reap pass shares one completion time).
    #[inline(always)]
    pub fn record_n(&mut self, v: u64, count: u64) {
        self.counts[bucket_of(v)] += count;
        self.n += count;
        if v < self.min {
            self.min = v;
        }
        if v > self.max {
            self.max = v;
        }
        self.sum += v as u128 * count as u128;
        self.sum_sq += (v as u128 * v as u128) * count as u128;
    }

    pub fn merge(&mut self, other: &Histogram) {
        if other.n == 0 {
            return;
        }
        // Saturating: a histogram read back from a forged saved result cannot overflow a merge.
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a = a.saturating_add(*b);
        }
        self.n = self.n.saturating_add(other.n);
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.sum = self.sum.saturating_add(other.sum);
        self.sum_sq = self.sum_sq.saturating_add(other.sum_sq);
    }

    pub fn clear(&mut self) {
        if self.n != 0 {
            self.counts.fill(0);
        }
        self.n = 0;
        self.min = u64::MAX;
        self.max = 0;
        self.sum = 0;
        self.sum_sq = 0;
    }

    pub fn count(&self) -> u64 {
        self.n
    }
    pub fn min(&self) -> u64 {
        if self.n == 0 {
            0
        } else {
            self.min
        }
    }
    pub fn max(&self) -> u64 {
        self.max
    }
    pub fn sum(&self) -> u128 {
        self.sum
    }
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum as f64 / self.n as f64
        }
    }
    /// Population standard deviation (as fio reports it).
    pub fn stdev(&self) -> f64 {
        if self.n < 2 {
            return 0.0;
        }
        let n = self.n as f64;
        let mean = self.sum as f64 / n;
        let var = (self.sum_sq as f64 / n) - mean * mean;
        var.max(0.0).sqrt()
    }

    /// Value at percentile `p` (0 < p <= 100), within the documented relative error.
    pub fn percentile(&self, p: f64) -> u64 {
        if self.n == 0 {
            return 0;
        }
        let rank = ((p / 100.0) * self.n as f64).ceil().max(1.0) as u64;
        let mut seen = 0u64;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                // Never report beyond the exact extremes.
                return bucket_value(i).clamp(self.min, self.max);
            }
        }
        self.max
    }

    /// Share of samples strictly above `threshold` (for QoS criteria), in 0..=1, to bucket precision.
    pub fn fraction_above(&self, threshold: u64) -> f64 {
        if self.n == 0 {
            return 0.0;
        }
        let b = bucket_of(threshold);
        let above: u64 = self.counts[b + 1..].iter().sum();
        above as f64 / self.n as f64
    }

    /// Non-empty buckets as (lowest value, count), for saving.
    pub fn sparse(&self) -> Vec<[u64; 2]> {
        self.counts.iter().enumerate().filter(|(_, &c)| c != 0).map(|(i, &c)| [bucket_low(i), c]).collect()
    }

    /// Non-empty buckets as (index, count): the compact form kept per second in time series.
    pub fn sparse_idx(&self) -> Vec<(u16, u32)> {
        self.counts
            .iter()
            .enumerate()
            .filter(|(_, &c)| c != 0)
            .map(|(i, &c)| (i as u16, c.min(u32::MAX as u64) as u32))
            .collect()
    }

    /// Add sparse (index, count) buckets; min/max/sum follow bucket values (used for series).
    pub fn add_sparse_idx(&mut self, buckets: &[(u16, u32)]) {
        for &(i, c) in buckets {
            self.record_n(bucket_value(i as usize), c as u64);
        }
    }

    /// Set the exact extremes of samples whose buckets were added from saved data (which keeps
    /// bucket values only), so percentiles are clamped to them as for the original histogram.
    pub fn set_extremes(&mut self, min: u64, max: u64) {
        if self.n > 0 {
            (self.min, self.max) = (min, max);
        }
    }

    /// Rebuild from saved sparse buckets (bucket lows); exact stats are lost, bucket stats kept.
    pub fn from_sparse(buckets: &[[u64; 2]]) -> Histogram {
        let mut h = Histogram::new();
        for &[low, c] in buckets {
            h.record_n(bucket_value(bucket_of(low)), c);
        }
        h
    }

    /// Non-empty buckets as (index, exact count), ascending: the raw form a measurement keeps.
    pub fn nonempty(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        self.counts.iter().enumerate().filter(|(_, &c)| c != 0).map(|(i, &c)| (i, c))
    }

    /// The exact moments beside the buckets: (sum, sum of squares).
    pub fn moments(&self) -> (u128, u128) {
        (self.sum, self.sum_sq)
    }

    /// Rebuild exactly from raw parts (as [`Histogram::nonempty`], min, max, [`Histogram::moments`]
    /// gave them); None when a bucket index is out of range or the counts overflow. The caller
    /// checks that the parts agree with each other.
    pub fn from_raw(buckets: &[(usize, u64)], min: u64, max: u64, sum: u128, sum_sq: u128) -> Option<Histogram> {
        let mut h = Histogram::new();
        for &(i, c) in buckets {
            *h.counts.get_mut(i)? += c;
            h.n = h.n.checked_add(c)?;
        }
        if h.n > 0 {
            (h.min, h.max, h.sum, h.sum_sq) = (min, max, sum, sum_sq);
        }
        Some(h)
    }

    pub fn summary(&self) -> LatSummary {
        LatSummary {
            min: self.min(),
            mean: self.mean(),
            stdev: self.stdev(),
            max: self.max(),
            percentiles: Pct::ALL.iter().map(|&p| (p.name(), self.percentile(p.value()))).collect(),
            histogram: HistogramData {
                sub_bucket_bits: SUB_BITS,
                max_relative_error: 1.0 / 256.0,
                buckets: self.sparse(),
            },
        }
    }
}

/// What a result file holds of a histogram: the buckets themselves, so any percentile or QoS
/// criterion can be computed again later.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct HistogramData {
    pub sub_bucket_bits: u32,
    pub max_relative_error: f64,
    /// `[lowest value of the bucket in ns, count]`, ascending, non-empty buckets only.
    pub buckets: Vec<[u64; 2]>,
}

/// Latency statistics in nanoseconds (the unit is in the field name of whoever holds this:
/// `lat_ns`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct LatSummary {
    pub min: u64,
    pub mean: f64,
    pub stdev: f64,
    pub max: u64,
    /// `p1` ... `p99.9999`, flattened into the same object.
    #[serde(flatten)]
    pub percentiles: Percentiles,
    pub histogram: HistogramData,
}

impl LatSummary {
    /// Forget the buckets (the percentiles and moments stay): [`crate::result::RunResult::drop_details`].
    pub fn drop_histogram(&mut self) {
        self.histogram.buckets = Vec::new();
    }

    /// The value of percentile `p` (0 only if the saved data lacks it, e.g. foreign results).
    pub fn p(&self, p: Pct) -> u64 {
        self.percentiles.get(p.name()).copied().unwrap_or(0)
    }

    /// The value of percentile `p`, None where the saved data lacks it (fio's JSON gives some
    /// percentiles and no histogram, or none for its `lat`): reports show it as missing, not 0.
    pub fn get(&self, p: Pct) -> Option<u64> {
        self.percentiles.get(p.name()).copied()
    }
}

/// The percentiles of a [`LatSummary`] by name: each of [`Pct`] in a fixed slot (no
/// allocation), any other a foreign result saved (fio's `p97.5`) beside them. Iterated and
/// saved in the names' order (`p1`, `p10`, `p25`, `p5`, …), as a map of strings keeps them, so
/// saved JSON is unchanged. A report of 100,000 points holds about a million of these: as a
/// `BTreeMap<String, u64>` each took about 1.7 KB in a dozen allocations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Percentiles {
    /// By [`Pct`] index; [`ABSENT`] where not recorded.
    std: [u64; PERCENTILES.len()],
    other: Vec<(Box<str>, u64)>,
}

/// A [`Percentiles`] slot with no value (no latency is `u64::MAX` ns: such a value is refused).
const ABSENT: u64 = u64::MAX;

impl Default for Percentiles {
    fn default() -> Percentiles {
        Percentiles { std: [ABSENT; PERCENTILES.len()], other: Vec::new() }
    }
}

impl Percentiles {
    pub fn get(&self, name: &str) -> Option<&u64> {
        match Pct::from_name(name) {
            Some(p) => Some(&self.std[p as usize]).filter(|v| **v != ABSENT),
            None => self.other.iter().find(|(k, _)| &**k == name).map(|(_, v)| v),
        }
    }

    pub fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// Set `name` to `ns`, returning the value it replaced. A `ns` of `u64::MAX` (584 years, only
    /// ever in a forged file; [`Percentiles`]' own JSON refuses it) is kept as one less.
    pub fn insert(&mut self, name: impl AsRef<str>, ns: u64) -> Option<u64> {
        let name = name.as_ref();
        let ns = ns.min(ABSENT - 1);
        match Pct::from_name(name) {
            Some(p) => Some(std::mem::replace(&mut self.std[p as usize], ns)).filter(|v| *v != ABSENT),
            None => match self.other.iter_mut().find(|(k, _)| &**k == name) {
                Some((_, v)) => Some(std::mem::replace(v, ns)),
                None => {
                    let at = self.other.partition_point(|(k, _)| &**k < name);
                    self.other.insert(at, (name.into(), ns));
                    None
                }
            },
        }
    }

    pub fn remove(&mut self, name: &str) -> Option<u64> {
        match Pct::from_name(name) {
            Some(p) => Some(std::mem::replace(&mut self.std[p as usize], ABSENT)).filter(|v| *v != ABSENT),
            None => {
                let i = self.other.iter().position(|(k, _)| &**k == name)?;
                Some(self.other.remove(i).1)
            }
        }
    }

    pub fn clear(&mut self) {
        *self = Percentiles::default();
    }

    pub fn len(&self) -> usize {
        self.std.iter().filter(|v| **v != ABSENT).count() + self.other.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// (name, ns) in the names' order: the fixed slots in [`Pct::BY_NAME`]'s order merged with
    /// the others (kept sorted by `insert`), without allocating.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &u64)> {
        let mut fixed =
            Pct::BY_NAME.iter().map(|&p| (p.name(), &self.std[p as usize])).filter(|(_, v)| **v != ABSENT).peekable();
        let mut other = self.other.iter().map(|(k, v)| (&**k, v)).peekable();
        std::iter::from_fn(move || match (fixed.peek(), other.peek()) {
            (Some(a), Some(b)) if b.0 < a.0 => other.next(),
            (Some(_), _) => fixed.next(),
            (None, _) => other.next(),
        })
    }
}

impl<K: AsRef<str>> FromIterator<(K, u64)> for Percentiles {
    fn from_iter<I: IntoIterator<Item = (K, u64)>>(iter: I) -> Percentiles {
        let mut out = Percentiles::default();
        for (k, v) in iter {
            out.insert(k, v);
        }
        out
    }
}

impl Serialize for Percentiles {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.len()))?;
        for (k, v) in self.iter() {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for Percentiles {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Percentiles, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Percentiles;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("percentiles by name (\"p99\": ns)")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<Percentiles, A::Error> {
                let mut out = Percentiles::default();
                while let Some((k, v)) = m.next_entry::<std::borrow::Cow<'de, str>, u64>()? {
                    if v == ABSENT {
                        return Err(serde::de::Error::custom(format!("percentile {k} = {v} ns is not a latency")));
                    }
                    out.insert(&*k, v);
                }
                out.other.shrink_to_fit();
                Ok(out)
            }
        }
        d.deserialize_map(Visit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_keep_a_maps_order_and_json_and_allocate_no_standard_name() {
        let json = r#"{"p1":1,"p10":10,"p5":5,"p97.5":97,"p99.9":999}"#;
        let p: Percentiles = serde_json::from_str(json).unwrap();
        assert_eq!(serde_json::to_string(&p).unwrap(), json, "the same JSON, in the same order");
        assert_eq!((p.get("p10"), p.get("p97.5"), p.get("p2")), (Some(&10), Some(&97), None));
        assert_eq!((p.std[Pct::P1 as usize], p.other.len()), (1, 1), "p1 in its slot, p97.5 beside");
        assert!(serde_json::from_str::<Percentiles>(r#"{"p99":18446744073709551615}"#).is_err());
        let mut q = p.clone();
        assert_eq!((q.insert("p5", 6), q.remove("p97.5"), q.len()), (Some(5), Some(97), 4));
        let map: std::collections::BTreeMap<String, u64> = q.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        assert_eq!(map.keys().collect::<Vec<_>>(), q.iter().map(|(k, _)| k).collect::<Vec<_>>(), "a map's order");
        // Every standard name and others between them, inserted out of order: a map's order.
        let names = ["p99.9999", "p97.5", "p0.5", "p5", "p1", "p99.5", "p10", "p25", "p50", "p75", "p90", "p95"];
        let names = names.iter().chain(&["p99", "p99.9", "p99.99", "p99.999", "p2", "p99.95", "p100"]);
        let mut all = Percentiles::default();
        let mut map = std::collections::BTreeMap::new();
        for (i, name) in names.enumerate() {
            all.insert(name, i as u64);
            map.insert(name.to_string(), i as u64);
        }
        let got: Vec<(String, u64)> = all.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        assert_eq!(got, map.into_iter().collect::<Vec<_>>());
    }

    #[test]
    fn typed_percentiles_read_the_saved_keys() {
        for (i, p) in Pct::ALL.into_iter().enumerate() {
            assert_eq!((p.value(), p.name()), PERCENTILES[i]);
            assert_eq!(Pct::from_name(p.name()), Some(p));
        }
        assert_eq!(Pct::from_name("p99.99x"), None);
        let mut h = Histogram::new();
        for v in 1..=200u64 {
            h.record(v); // exact buckets below 256
        }
        let s = h.summary();
        assert_eq!((s.p(Pct::P50), s.p(Pct::P99), s.p(Pct::P99_9)), (100, 198, 200));
        // The JSON shape is unchanged: percentiles flattened under their names.
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!((json["p99"].as_u64(), json["p99.9"].as_u64()), (Some(198), Some(200)));
    }

    #[test]
    fn buckets_tile_the_value_range_without_gaps() {
        let mut expected_low = 0u64;
        for i in 0..BUCKETS {
            assert_eq!(bucket_low(i), expected_low, "bucket {i}");
            assert_eq!(bucket_of(bucket_low(i)), i);
            let w = bucket_width(i);
            assert_eq!(bucket_of(bucket_low(i) + (w - 1)), i);
            expected_low = expected_low.wrapping_add(w);
        }
        assert_eq!(expected_low, 0, "the last bucket ends at u64::MAX");
        assert_eq!(bucket_of(u64::MAX), BUCKETS - 1);
    }

    #[test]
    fn every_value_is_reported_within_the_documented_error() {
        let mut rng = fastrand::Rng::with_seed(7);
        for _ in 0..200_000 {
            let bits = rng.u32(1..50);
            let v = rng.u64(1..(1 << bits));
            let r = bucket_value(bucket_of(v));
            let err = (r as f64 - v as f64).abs() / v as f64;
            assert!(err <= 1.0 / 256.0 + 1e-12, "v={v} reported={r} err={err}");
        }
    }

    #[test]
    fn percentiles_match_exact_ones_within_the_error_bound() {
        let mut rng = fastrand::Rng::with_seed(42);
        // A latency-like distribution: lognormal-ish body plus a long tail.
        let mut values: Vec<u64> = (0..100_000)
            .map(|_| {
                let base = 20_000.0 * (1.0 + rng.f64() * 4.0).powi(2);
                let tail = if rng.u32(0..1000) == 0 { rng.f64() * 5e7 } else { 0.0 };
                (base + tail) as u64
            })
            .collect();
        let mut h = Histogram::new();
        for &v in &values {
            h.record(v);
        }
        values.sort_unstable();
        for &(p, name) in PERCENTILES.iter() {
            let rank = ((p / 100.0) * values.len() as f64).ceil() as usize;
            let exact = values[rank.max(1) - 1];
            let got = h.percentile(p);
            let err = (got as f64 - exact as f64).abs() / exact as f64;
            assert!(err <= 1.0 / 256.0 + 1e-9, "{name}: exact {exact} got {got} err {err}");
        }
        assert_eq!(h.min(), values[0]);
        assert_eq!(h.max(), *values.last().unwrap());
        let mean = values.iter().map(|&v| v as f64).sum::<f64>() / values.len() as f64;
        assert!((h.mean() - mean).abs() < 1e-6 * mean);
    }

    #[test]
    fn merge_equals_recording_everything_in_one() {
        let mut a = Histogram::new();
        let mut b = Histogram::new();
        let mut all = Histogram::new();
        for v in 1..5000u64 {
            let x = v * 37 % 100_003;
            if v % 3 == 0 {
                a.record(x)
            } else {
                b.record(x)
            }
            all.record(x);
        }
        a.merge(&b);
        assert_eq!(a.sparse(), all.sparse());
        assert_eq!((a.min(), a.max(), a.count()), (all.min(), all.max(), all.count()));
        assert_eq!(a.percentile(99.0), all.percentile(99.0));
    }

    #[test]
    fn sparse_roundtrip_keeps_percentiles() {
        let mut h = Histogram::new();
        for v in (1..10_000u64).map(|v| v * v) {
            h.record(v);
        }
        let back = Histogram::from_sparse(&h.sparse());
        for &(p, _) in PERCENTILES.iter() {
            assert_eq!(back.percentile(p), h.percentile(p).clamp(back.min(), back.max()));
        }
    }

    #[test]
    fn fraction_above_counts_the_tail() {
        let mut h = Histogram::new();
        for v in 0..1000u64 {
            h.record(v * 10_000); // 0 .. 9.99 ms
        }
        let f = h.fraction_above(8_000_000);
        assert!((f - 0.199).abs() < 0.005, "{f}");
        h.clear();
        assert_eq!(h.count(), 0);
        assert_eq!(h.percentile(50.0), 0);
    }
}
