//! fio's latency statistics as drivelab's [`LatSummary`]: fio's exact min, max, mean and
//! deviation kept as fio gives them, percentiles recomputed from fio's histogram where json+
//! gives it (drivelab's, and every one fio listed), fio's own percentiles kept where plain json
//! gives only those.
//!
//! # fio's histogram and the error bound
//!
//! fio keeps latencies in 29 groups of 64 bins (`FIO_IO_U_PLAT_BITS` = 6 in fio's `stat.h`):
//! values below 128 ns one bin each, then every power of two `[2^e, 2^(e+1))` in 64 equal bins.
//! json+ writes each non-empty bin as its middle value (`plat_idx_to_val`) and its count, so a
//! bin's value is within half a bin, **1/2^7 = 1/128 (0.78%)**, of every latency in it; fio's
//! own percentiles are those bin values. drivelab adds each bin's count at the bin's value into
//! its own histogram, whose buckets put a value within **1/256 (0.39%)** of it (`hist.rs`). A
//! percentile recomputed here is therefore within 1/256 of the percentile fio reports from the
//! same bins (the rank rule is the same: the smallest value whose cumulative count reaches
//! p% of all), and within (1 + 1/128)(1 + 1/256) − 1 ≈ 1.17% of the true latency ([`IMPORTED`]).
//! The exception is a percentile drivelab clamps to fio's exact min or max (fio does not clamp),
//! which only moves it closer to the truth.

use std::collections::BTreeMap;

use drivelab_engine::hist::{Histogram, HistogramData, LatSummary, Pct, SUB_BITS};

use super::doc::Lat;

/// fio's bin error: a bin's value is within this share of every latency in the bin.
pub const FIO_BIN: f64 = 1.0 / 128.0;
/// drivelab's bucket error ([`drivelab_engine::hist`]).
pub const DRIVELAB_BUCKET: f64 = 1.0 / 256.0;
/// A percentile recomputed from fio's bins against the true latency: both errors at once.
pub const IMPORTED: f64 = (1.0 + FIO_BIN) * (1.0 + DRIVELAB_BUCKET) - 1.0;

/// One part of a latency figure: `stats` gives min, max, mean and deviation, `dist` the
/// percentiles or bins (the same statistic, except where a synchronous engine's clat stands for
/// its lat).
#[derive(Clone, Copy)]
pub struct Part<'a> {
    pub stats: &'a Lat,
    pub dist: &'a Lat,
}

impl<'a> Part<'a> {
    /// A statistic on its own.
    pub fn of(lat: &'a Lat) -> Part<'a> {
        Part { stats: lat, dist: lat }
    }
}

/// Where a summary's percentiles came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// No I/O: nothing to summarize.
    Empty,
    /// json+: recomputed from fio's bins (every drivelab percentile, and the histogram kept).
    Binned,
    /// Plain json: fio's own percentiles, no histogram.
    FioPercentiles,
    /// fio gave none for this statistic (or gave several parts' percentiles, which cannot be
    /// combined without their bins).
    None,
}

/// An empty summary (no I/O).
pub fn empty() -> LatSummary {
    LatSummary {
        min: 0,
        mean: 0.0,
        stdev: 0.0,
        max: 0,
        percentiles: Default::default(),
        histogram: HistogramData {
            sub_bucket_bits: SUB_BITS,
            max_relative_error: DRIVELAB_BUCKET,
            buckets: Vec::new(),
        },
    }
}

/// fio's percentile key (`"99.900000"`) as drivelab names percentiles (`p99.9`).
pub fn percentile_name(key: &str) -> Result<String, String> {
    let p: f64 = key.trim().parse().map_err(|_| format!("percentile '{key}' is not a number"))?;
    if !(p > 0.0 && p <= 100.0) {
        return Err(format!("percentile '{key}' is not within (0, 100]"));
    }
    Ok(match Pct::ALL.into_iter().find(|q| (q.value() - p).abs() < 1e-9) {
        Some(q) => q.name().to_string(),
        None => format!("p{p}"),
    })
}

/// fio's bins added into a drivelab histogram.
pub fn histogram(bins: &BTreeMap<String, u64>) -> Result<Histogram, String> {
    let mut h = Histogram::new();
    for (value, count) in bins {
        let v: u64 = value.trim().parse().map_err(|_| format!("bin '{value}' is not a latency in ns"))?;
        h.record_n(v, *count);
    }
    Ok(h)
}

/// The parts as one summary (see the module docs), and where its percentiles came from.
pub fn summary(parts: &[Part]) -> Result<(LatSummary, Shape), String> {
    let live: Vec<&Part> = parts.iter().filter(|p| p.stats.n > 0).collect();
    let Some(first) = live.first() else { return Ok((empty(), Shape::Empty)) };
    let min = live.iter().map(|p| p.stats.min).min().unwrap_or(0);
    let max = live.iter().map(|p| p.stats.max).max().unwrap_or(0);
    let (mean, stdev) = if live.len() == 1 {
        (first.stats.mean, first.stats.stddev)
    } else {
        drivelab_engine::merge::combine_moments(live.iter().map(|p| (p.stats.n, p.stats.mean, p.stats.stddev)))
    };
    let mut s = empty();
    (s.min, s.max, s.mean, s.stdev) = (min, max, mean, stdev);
    // Within fio's exact extremes, without assuming fio's file has min <= max.
    let within = |v: u64| v.max(min).min(max.max(min));
    let shape = if live.iter().all(|p| p.dist.bins.is_some()) {
        let mut h = Histogram::new();
        for p in &live {
            h.merge(&histogram(p.dist.bins.as_ref().expect("checked"))?);
        }
        s.percentiles = Pct::ALL.iter().map(|&q| (q.name().to_string(), within(h.percentile(q.value())))).collect();
        // Every percentile fio was asked for (`--percentile_list`: p97.5, say) too, from the
        // same bins, so none fio recorded is lost.
        for key in live.iter().filter_map(|p| p.dist.percentile.as_ref()).flat_map(|m| m.keys()) {
            let name = percentile_name(key)?;
            if !s.percentiles.contains_key(&name) {
                let p: f64 = key.trim().parse().map_err(|_| format!("percentile '{key}' is not a number"))?;
                s.percentiles.insert(name, within(h.percentile(p)));
            }
        }
        s.histogram.buckets = h.sparse();
        s.histogram.max_relative_error = IMPORTED;
        Shape::Binned
    } else if let (1, Some(given)) = (live.len(), first.dist.percentile.as_ref()) {
        for (key, v) in given {
            s.percentiles.insert(percentile_name(key)?, *v);
        }
        s.histogram.max_relative_error = FIO_BIN;
        Shape::FioPercentiles
    } else {
        Shape::None
    };
    Ok((s, shape))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lat(n: u64, min: u64, max: u64, mean: f64, stddev: f64) -> Lat {
        Lat { n, min, max, mean, stddev, ..Lat::default() }
    }

    #[test]
    fn percentile_keys_read_as_drivelabs_names() {
        assert_eq!(percentile_name("99.000000").unwrap(), "p99");
        assert_eq!(percentile_name("99.900000").unwrap(), "p99.9");
        assert_eq!(percentile_name("99.500000").unwrap(), "p99.5");
        assert_eq!(percentile_name("20.000000").unwrap(), "p20");
        assert!(percentile_name("high").is_err());
        assert!(percentile_name("0").is_err());
    }

    #[test]
    fn parts_combine_exactly_from_their_counts_means_and_deviations() {
        // Two parts of 1, 2, 3 and 10, 20, 30: population deviations, as combined.
        let mean_dev = |v: &[f64]| {
            let m = v.iter().sum::<f64>() / v.len() as f64;
            (m, (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / v.len() as f64).sqrt())
        };
        let (ma, da) = mean_dev(&[1.0, 2.0, 3.0]);
        let (mb, db) = mean_dev(&[10.0, 20.0, 30.0]);
        let (m, d) = mean_dev(&[1.0, 2.0, 3.0, 10.0, 20.0, 30.0]);
        let (a, b) = (lat(3, 1, 3, ma, da), lat(3, 10, 30, mb, db));
        let (s, shape) = summary(&[Part::of(&a), Part::of(&b)]).unwrap();
        assert_eq!((s.min, s.max), (1, 30));
        assert!((s.mean - m).abs() < 1e-9 && (s.stdev - d).abs() < 1e-9, "{} {}", s.mean, s.stdev);
        assert_eq!(shape, Shape::None, "two parts' percentiles without bins cannot be combined");
        let (s, shape) = summary(&[Part::of(&lat(0, 0, 0, 0.0, 0.0))]).unwrap();
        assert_eq!((shape, s.percentiles.len()), (Shape::Empty, 0));
    }

    #[test]
    fn json_plus_keeps_every_percentile_fio_listed_from_the_bins() {
        // fio run with --percentile_list=97.5: a percentile drivelab does not compute itself.
        let mut l = lat(100, 1, 100, 50.5, 28.9);
        l.bins = Some((1..=100u64).map(|v| (v.to_string(), 1)).collect());
        l.percentile = Some([("97.500000".to_string(), 98)].into_iter().collect());
        let (s, shape) = summary(&[Part::of(&l)]).unwrap();
        assert_eq!(shape, Shape::Binned);
        assert_eq!(s.percentiles.get("p97.5"), Some(&98), "fio's p97.5, from the same bins");
        assert_eq!(s.percentiles.len(), Pct::ALL.len() + 1);
    }

    #[test]
    fn a_bad_bin_is_an_error_and_odd_extremes_do_not_panic() {
        let mut l = lat(1, 900, 100, 5.0, 0.0);
        l.bins = Some([("x".to_string(), 1)].into_iter().collect());
        assert!(summary(&[Part::of(&l)]).unwrap_err().contains("bin 'x'"));
        l.bins = Some([("500".to_string(), 1)].into_iter().collect());
        let (s, _) = summary(&[Part::of(&l)]).unwrap();
        assert_eq!(s.p(Pct::P50), 900, "min above max: held at min, no panic");
    }
}
