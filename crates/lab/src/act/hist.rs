//! ACT's latency histograms, `act_latency.py`'s slice report, and the pass criteria and verdict
//! on its slices.

use serde::{Deserialize, Serialize};

use super::ACT_BUCKETS;

/// An ACT latency histogram: power-of-two millisecond buckets.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActHist {
    pub counts: [u64; ACT_BUCKETS],
}

impl ActHist {
    pub fn new() -> ActHist {
        ActHist::default()
    }

    /// ACT's bucket for a latency: 0 under 1 ms, else the position of the highest set bit of
    /// the whole milliseconds (1 ms -> 1, 2-3 ms -> 2, 4-7 ms -> 3, ...), at most 16.
    pub fn bucket_of(ns: u64) -> usize {
        let ms = ns / 1_000_000;
        let msb = (u64::BITS - ms.leading_zeros()) as usize;
        msb.min(ACT_BUCKETS - 1)
    }

    pub fn insert(&mut self, ns: u64) {
        self.counts[Self::bucket_of(ns)] += 1;
    }

    pub fn add(&mut self, other: &ActHist) {
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a += b;
        }
    }

    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Percent of ops over each of [`THRESHOLDS_MS`](super::THRESHOLDS_MS) (those in buckets above 0..=6), as
    /// `act_latency.py` computes them: `(total - sum(counts[0..=b])) * 100 / total`. All 0 when
    /// the histogram is empty.
    pub fn over_pct(&self) -> [f64; 7] {
        let total = self.total();
        let mut over = [0.0; 7];
        if total == 0 {
            return over;
        }
        let mut at_or_below = 0;
        for (b, pct) in over.iter_mut().enumerate() {
            at_or_below += self.counts[b];
            *pct = (total - at_or_below) as f64 * 100.0 / total as f64;
        }
        over
    }
}

/// One line of the slice report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SliceRow {
    /// 1-based, as the script numbers slices.
    pub index: usize,
    /// Seconds since the start: the slice covers `start_s..end_s`.
    pub start_s: u64,
    pub end_s: u64,
    pub ops: u64,
    pub rate_per_s: f64,
    /// Percent of ops over 1, 2, 4, 8, 16, 32, 64 ms, unrounded (the script shows 2 decimals).
    pub over_pct: [f64; 7],
    /// Shorter than a slice: only reported when the run had no complete slice.
    pub partial: bool,
    /// The reads the schedule asked for beside those done, from this slice's start to the load's
    /// end (a slice's late reads made up later were delivered): a slice whose reads were not
    /// delivered is never a pass. None in older results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivery: Option<crate::delivery::Delivery>,
}

/// Cut per-second histograms (`per_second[i]` holds second i's ops, not cumulative counts) into
/// slices of `slice_secs` seconds (0 is taken as 1), as `act_latency.py` does: complete slices
/// only, the incomplete one at the end is ignored. Unlike the script, which then reports nothing,
/// a run shorter than one slice gets one slice marked `partial`, so short runs still report.
pub fn slices(per_second: &[ActHist], slice_secs: u32) -> Vec<SliceRow> {
    let len = slice_secs.max(1) as usize;
    if per_second.len() < len {
        return vec![slice_row(1, 0, per_second, true)];
    }
    per_second.chunks_exact(len).enumerate().map(|(i, secs)| slice_row(i + 1, i * len, secs, false)).collect()
}

fn slice_row(index: usize, start: usize, secs: &[ActHist], partial: bool) -> SliceRow {
    let mut sum = ActHist::new();
    secs.iter().for_each(|h| sum.add(h));
    let ops = sum.total();
    let rate_per_s = if secs.is_empty() { 0.0 } else { ops as f64 / secs.len() as f64 };
    SliceRow {
        index,
        start_s: start as u64,
        end_s: (start + secs.len()) as u64,
        ops,
        rate_per_s,
        over_pct: sum.over_pct(),
        partial,
        delivery: None,
    }
}

/// ACT's pass criteria: in every slice, fewer than these percentages of ops over 1, 8, 64 ms.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ActCriteria {
    pub over_1ms_pct: f64,
    pub over_8ms_pct: f64,
    pub over_64ms_pct: f64,
}

impl Default for ActCriteria {
    fn default() -> Self {
        ActCriteria { over_1ms_pct: 5.0, over_8ms_pct: 1.0, over_64ms_pct: 0.1 }
    }
}

impl ActCriteria {
    /// Each limit must be a percentage above 0 (nothing can be under 0%) and at most 100.
    pub fn validate(&self) -> Result<(), String> {
        for (_, ms, pct) in self.limits() {
            if !(pct > 0.0 && pct <= 100.0) {
                return Err(format!("the limit for ops over {ms} ms, {pct}%, must be above 0 and at most 100"));
            }
        }
        Ok(())
    }

    /// (index into [`THRESHOLDS_MS`](super::THRESHOLDS_MS), threshold ms, limit %) for each criterion.
    fn limits(&self) -> [(usize, u64, f64); 3] {
        [(0, 1, self.over_1ms_pct), (3, 8, self.over_8ms_pct), (6, 64, self.over_64ms_pct)]
    }
}

/// The judgement on a run's slices.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ActVerdict {
    pub pass: bool,
    /// The highest percentage over each threshold in any slice.
    pub worst: [f64; 7],
    /// Every violation: (slice index, "slice 3: 6.21% > 1 ms (limit 5%)").
    pub failing_slices: Vec<(usize, String)>,
}

/// Pass when every slice is strictly under every limit; a slice without ops, or no slices at
/// all, fails (no evidence is not a pass).
pub fn verdict(slices: &[SliceRow], c: &ActCriteria) -> ActVerdict {
    let mut worst = [0.0f64; 7];
    let mut failing_slices = Vec::new();
    for s in slices {
        for (w, &pct) in worst.iter_mut().zip(s.over_pct.iter()) {
            *w = w.max(pct);
        }
        failing_slices.extend(slice_failures(s, c).into_iter().map(|msg| (s.index, msg)));
    }
    if slices.is_empty() {
        failing_slices.push((0, "no slices: the run recorded nothing".to_string()));
    }
    ActVerdict { pass: failing_slices.is_empty(), worst, failing_slices }
}

fn slice_failures(s: &SliceRow, c: &ActCriteria) -> Vec<String> {
    if s.ops == 0 {
        return vec![format!("slice {}: no operations completed", s.index)];
    }
    c.limits()
        .iter()
        .filter_map(|&(b, ms, limit)| {
            let pct = s.over_pct[b];
            (pct >= limit || pct.is_nan()).then(|| format!("slice {}: {pct:.2}% > {ms} ms (limit {limit}%)", s.index))
        })
        .collect()
}
