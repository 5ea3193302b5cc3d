//! The latency split's raw form (`--latency-split`, see `crate::split`): per-stage histograms and,
//! for every `lat` bucket, the sum of each stage over the I/Os in it, so the split *at* a
//! percentile (the stages of the I/Os whose lat is that percentile) is exact after any merge.
//! Counts and sums add; histograms add bucket by bucket; seconds add second by second.

use super::encoding::{In, Out, R};
use crate::hist::{bucket_of, Histogram, Pct, BUCKETS};
use crate::result::{LatencySplitStats, SplitAt, SplitSecondStats, StageStats};
use crate::split::{Stages, STAGES};

/// One second of the split: its I/Os and each stage's summed ns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SplitSecond {
    pub ios: u64,
    pub sum_ns: [u64; 5],
}

/// Everything the split measured, raw and mergeable.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Split {
    /// Each stage of every cut I/O.
    pub stages: [Histogram; 5],
    /// The lat of every cut I/O (what the split is of).
    pub total: Histogram,
    /// (lat bucket, each stage's summed ns over the cut I/Os in that bucket), ascending.
    pub by_lat: Vec<(u16, [u64; 5])>,
    /// Cut I/Os io_uring handed to an io-wq worker.
    pub io_wq: u64,
    /// Measured I/Os (cut or not).
    pub ios: u64,
    /// Cut I/Os with no block request (page cache, tmpfs).
    pub without_device: u64,
    /// Measured I/Os the kernel's stamps were missing for.
    pub unmatched: u64,
    /// Cut I/Os whose stamps had to be put in order.
    pub clamped: u64,
    /// Kernel events the BPF side could not keep or match.
    pub lost_events: u64,
    /// The BPF programs' CPU time over the run's measured I/Os (from the I/Os they timed
    /// themselves, one in 64, ramp included), and how many I/Os they timed.
    pub bpf_ns: u64,
    pub bpf_runs: u64,
    pub series: Vec<SplitSecond>,
}

/// `a` and `b` as one.
pub fn merge(a: &Split, b: &Split) -> Split {
    let hist = |x: &Histogram, y: &Histogram| {
        let mut h = x.clone();
        h.merge(y);
        h
    };
    let add5 = |x: [u64; 5], y: [u64; 5]| std::array::from_fn(|k| x[k].saturating_add(y[k]));
    let mut by_lat: Vec<(u16, [u64; 5])> = a.by_lat.clone();
    for &(i, s) in &b.by_lat {
        match by_lat.binary_search_by_key(&i, |e| e.0) {
            Ok(k) => by_lat[k].1 = add5(by_lat[k].1, s),
            Err(k) => by_lat.insert(k, (i, s)),
        }
    }
    Split {
        stages: std::array::from_fn(|k| hist(&a.stages[k], &b.stages[k])),
        total: hist(&a.total, &b.total),
        by_lat,
        io_wq: a.io_wq.saturating_add(b.io_wq),
        ios: a.ios.saturating_add(b.ios),
        without_device: a.without_device.saturating_add(b.without_device),
        unmatched: a.unmatched.saturating_add(b.unmatched),
        clamped: a.clamped.saturating_add(b.clamped),
        lost_events: a.lost_events.saturating_add(b.lost_events),
        bpf_ns: a.bpf_ns.saturating_add(b.bpf_ns),
        bpf_runs: a.bpf_runs.saturating_add(b.bpf_runs),
        series: (0..a.series.len().max(b.series.len()))
            .map(|k| match (a.series.get(k), b.series.get(k)) {
                (Some(x), Some(y)) => {
                    SplitSecond { ios: x.ios.saturating_add(y.ios), sum_ns: add5(x.sum_ns, y.sum_ns) }
                }
                (x, y) => x.or(y).cloned().unwrap_or_default(),
            })
            .collect(),
    }
}

/// Packed as the measurement's other fields are (see `encoding`).
impl super::encoding::Packed for Split {
    const FIELD: &'static str = "split";

    fn write(&self, o: &mut Out) {
        write(self, o)
    }

    fn read(i: &mut In) -> R<Split> {
        read(i)
    }
}

fn write(s: &Split, o: &mut Out) {
    for h in s.stages.iter().chain([&s.total]) {
        o.hist(h);
    }
    for v in [s.ios, s.without_device, s.unmatched, s.clamped, s.lost_events, s.io_wq, s.bpf_ns, s.bpf_runs] {
        o.u(v as u128);
    }
    o.u(s.by_lat.len() as u128);
    for (i, sums) in &s.by_lat {
        o.u(*i as u128);
        sums.iter().for_each(|&v| o.u(v as u128));
    }
    o.u(s.series.len() as u128);
    for sec in &s.series {
        o.u(sec.ios as u128);
        sec.sum_ns.iter().for_each(|&v| o.u(v as u128));
    }
}

/// Read back bounded and checked: buckets in range and ascending, and no bucket holding stage
/// sums without I/Os of its own.
fn read(i: &mut In) -> R<Split> {
    let mut hists = Vec::with_capacity(6);
    for _ in 0..6 {
        hists.push(i.hist()?);
    }
    let total = hists.pop().unwrap_or_default();
    let stages: [Histogram; 5] = hists.try_into().map_err(|_| "the split's stages are missing".to_string())?;
    let (ios, without_device, unmatched, clamped, lost_events, io_wq) =
        (i.u64()?, i.u64()?, i.u64()?, i.u64()?, i.u64()?, i.u64()?);
    let (bpf_ns, bpf_runs) = (i.u64()?, i.u64()?);
    let n = i.len(6, BUCKETS)?;
    let mut holds_ios = vec![false; BUCKETS];
    total.nonempty().for_each(|(k, _)| holds_ios[k] = true);
    let mut by_lat: Vec<(u16, [u64; 5])> = Vec::with_capacity(n);
    for _ in 0..n {
        let b = i.u64()?;
        if b >= BUCKETS as u64 || by_lat.last().is_some_and(|l| u64::from(l.0) >= b) {
            return Err("a split bucket is out of range or out of order".into());
        }
        if !holds_ios[b as usize] {
            return Err("a split bucket holds no I/O".into());
        }
        let mut sums = [0u64; 5];
        for v in &mut sums {
            *v = i.u64()?;
        }
        by_lat.push((b as u16, sums));
    }
    let n = i.len(6, 1 << 24)?;
    let mut series = Vec::with_capacity(n);
    for _ in 0..n {
        let ios = i.u64()?;
        let mut sum_ns = [0u64; 5];
        for v in &mut sum_ns {
            *v = i.u64()?;
        }
        series.push(SplitSecond { ios, sum_ns });
    }
    Ok(Split {
        stages,
        total,
        by_lat,
        io_wq,
        ios,
        without_device,
        unmatched,
        clamped,
        lost_events,
        bpf_ns,
        bpf_runs,
        series,
    })
}

/// The percentiles the split is given at.
const AT: [Pct; 3] = [Pct::P50, Pct::P99, Pct::P99_9];

/// The figures of a split.
pub fn summarize(s: &Split) -> LatencySplitStats {
    let cut = s.total.count();
    let mean_total = s.total.mean();
    let stages = STAGES
        .iter()
        .zip(&s.stages)
        .map(|(name, h)| StageStats {
            stage: (*name).to_string(),
            lat_ns: h.summary(),
            mean_ns: h.mean(),
            share_pct: if mean_total > 0.0 { 100.0 * h.mean() / mean_total } else { 0.0 },
        })
        .collect();
    let at = AT
        .iter()
        .filter(|_| cut > 0)
        .map(|&p| {
            let lat = s.total.percentile(p.value());
            let b = bucket_of(lat);
            let n = s.total.nonempty().find(|&(k, _)| k == b).map(|(_, c)| c).unwrap_or(0);
            let sums = s.by_lat.iter().find(|e| e.0 as usize == b).map(|e| e.1).unwrap_or_default();
            let ns: [u64; 5] = std::array::from_fn(|k| if n > 0 { (sums[k] as u128 / n as u128) as u64 } else { 0 });
            let sum: u64 = ns.iter().sum();
            SplitAt {
                percentile: p.name().to_string(),
                lat_ns: lat,
                bucket_ios: n,
                stage_ns: Stages::from_array(ns),
                share_pct: Stages::from_array(std::array::from_fn(|k| {
                    if sum > 0 {
                        100.0 * ns[k] as f64 / sum as f64
                    } else {
                        0.0
                    }
                })),
                sum_ns: sum,
            }
        })
        .collect();
    let series = s
        .series
        .iter()
        .map(|sec| SplitSecondStats {
            ios: sec.ios,
            mean_ns: Stages::from_array(std::array::from_fn(|k| {
                if sec.ios > 0 {
                    (sec.sum_ns[k] as u128 / sec.ios as u128) as u64
                } else {
                    0
                }
            })),
        })
        .collect();
    LatencySplitStats {
        ios: s.ios,
        cut,
        without_device: s.without_device,
        unmatched: s.unmatched,
        clamped: s.clamped,
        lost_events: s.lost_events,
        io_wq: s.io_wq,
        bpf_ns: s.bpf_ns,
        bpf_ns_per_io: if s.ios > 0 { s.bpf_ns as f64 / s.ios as f64 } else { 0.0 },
        stages,
        at,
        series,
    }
}
