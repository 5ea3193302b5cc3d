//! One result from several that ran at the same time: the streams of a fio group (a point of a
//! fio job file with several jobs), ACT's streams, and the ranks of a run spread over hosts.
//!
//! The figures are never merged here: each part's raw [`Measurement`] (saved in the result) is
//! merged by the one `measurement::merge` and the merged figures derived by the one
//! `measurement::summarize`, so a merged p99 is the p99 of every I/O of every part, a merged
//! second's p99 is exact, and an open loop's figures cover every part (target and achieved rates
//! summed, lateness over every part's I/Os). What is not measured is combined here: the targets
//! listed, the notices, data verification's counts.

use crate::measurement::{merge::merge_all, summarize, Measurement};
use crate::result::{Checks, RunResult, VerifyStats};

/// `parts` as one result (the first part's spec, tool, engine and start). `parts` must not be
/// empty; a single part comes back unchanged.
pub fn merge_results(parts: &[RunResult]) -> RunResult {
    assert!(!parts.is_empty(), "merge_results needs at least one result");
    if parts.len() == 1 {
        return parts[0].clone();
    }
    let measurements: Vec<Measurement> = parts.iter().map(Measurement::of_result).collect();
    merge_parts(parts, &measurements)
}

/// `parts` as one result, their measurements given (a rank's with its targets renamed): the
/// measurements merged and summarized as the first part's spec, the rest combined.
pub fn merge_parts(parts: &[RunResult], measurements: &[Measurement]) -> RunResult {
    let first = &parts[0];
    let mut m = merge_all(measurements).unwrap_or_default();
    // How each part ended is its result's to say (a rank stopped by another's error is not
    // interrupted, though its engine saw the stop flag): taken from the parts as they stand.
    m.interrupted = parts.iter().any(|p| p.interrupted);
    m.stopped_by_error = parts.iter().any(|p| p.stopped_by_error);
    let mut notices: Vec<String> = Vec::new();
    for n in parts.iter().flat_map(|p| &p.notices) {
        if !notices.contains(n) {
            notices.push(n.clone());
        }
    }
    let all_verify = parts.iter().all(|p| !p.verify_maps.is_empty());
    let mut out = RunResult {
        started_unix_ms: parts.iter().map(|p| p.started_unix_ms).min().unwrap_or(first.started_unix_ms),
        targets: parts.iter().flat_map(|p| p.targets.iter().cloned()).collect(),
        notices,
        verify: merge_verify(parts),
        // Why a part ended early: the first part's that did (an exitall'd job is one of them).
        ended: parts.iter().find_map(|p| p.ended),
        steadystate: parts.iter().find_map(|p| p.steadystate.clone()),
        // fio's logs: each part is one stream (a job of a fio group), in order.
        io_logs: parts
            .iter()
            .enumerate()
            .flat_map(|(i, p)| p.io_logs.iter().map(move |(_, l)| (i, l.clone())))
            .collect(),
        verify_maps: if all_verify {
            parts.iter().flat_map(|p| p.verify_maps.iter().cloned()).collect()
        } else {
            Vec::new()
        },
        thread_usage: parts.iter().filter_map(|p| p.thread_usage).reduce(|mut a, b| {
            a.add(&b);
            a
        }),
        iodepths: parts.iter().filter_map(|p| p.iodepths).reduce(|mut a, b| {
            a.add(&b);
            a
        }),
        clones: parts.iter().flat_map(|p| p.clones.iter().cloned()).collect(),
        // Parts that ran together saw the same disk over the same time: each disk once.
        disk_util: {
            let mut seen: Vec<crate::diskstat::DiskUtil> = Vec::new();
            for d in parts.iter().flat_map(|p| &p.disk_util) {
                if !seen.iter().any(|s| s.name == d.name) {
                    seen.push(d.clone());
                }
            }
            seen
        },
        ..first.clone()
    };
    summarize(&m, &first.spec).apply(&mut out);
    out.measurement = Some(m);
    out
}

/// The mean and (population) standard deviation of several parts' samples together, exactly,
/// from each part's (count, mean, deviation): a part's sum of squares is n·(σ² + μ²). (For
/// foreign results that keep no samples: fio's JSON.)
pub fn combine_moments(parts: impl IntoIterator<Item = (u64, f64, f64)>) -> (f64, f64) {
    let (mut n, mut sum, mut sq) = (0u64, 0.0f64, 0.0f64);
    for (k, mean, stdev) in parts.into_iter().filter(|p| p.0 > 0) {
        n += k;
        sum += k as f64 * mean;
        sq += k as f64 * (stdev * stdev + mean * mean);
    }
    if n == 0 {
        return (0.0, 0.0);
    }
    let mean = sum / n as f64;
    (mean, (sq / n as f64 - mean * mean).max(0.0).sqrt())
}

fn merge_verify(parts: &[RunResult]) -> Option<VerifyStats> {
    let mut it = parts.iter().filter_map(|p| p.verify.as_ref());
    let mut out = it.next()?.clone();
    // Target ids follow the merged target list: each part's own, or its indices.
    out.target_ids = Vec::new();
    for other in it {
        out.written_units += other.written_units;
        out.unchecked_units += other.unchecked_units;
        out.held_ios += other.held_ios;
        out.inline.merge(&other.inline, Checks::KEEP_PER_RUN);
        match (&mut out.after, &other.after) {
            (Some(a), Some(b)) => a.merge(b, Checks::KEEP_PER_RUN),
            (None, Some(b)) => out.after = Some(b.clone()),
            _ => {}
        }
    }
    let ids: Vec<u32> = parts
        .iter()
        .flat_map(|p| (0..p.targets.len()).map(move |ti| p.verify.as_ref().map_or(ti as u32, |v| v.target_id(ti))))
        .collect();
    out.target_ids = ids;
    Some(out)
}
