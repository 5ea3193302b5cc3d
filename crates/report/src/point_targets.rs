//! A point's targets, each once. A point's `per_target` lists a target once per part that ran on
//! it: a fio job file's group of two jobs on one file (or on `null`) saves two entries of the same
//! path. Those are parts of ONE measurement that ran at the same time, not repeats of it, so a
//! table keyed by target must show them merged (their I/Os added over the point's window, their
//! latencies from the merged histogram), never their mean: averaging halved a two-job group's
//! IOPS and labelled the jobs "mean of 2 runs" (issue #25).
//!
//! Where every entry is the same target the point's own aggregate is that target's figure (the
//! engine merged it already, exactly as the live line and `total.iops` show it). Only where a
//! point ran on several targets, some of them twice, are the entries of one path merged here.

use drivelab_engine::hist::LatSummary;
use drivelab_engine::measurement::merge_summaries as merge_lat;
use drivelab_engine::result::{DirStats, TargetResult};
use drivelab_lab::results::PointResult;

/// The distinct target paths of `p`'s `per_target`, in their first order.
pub fn paths(p: &PointResult) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for t in &p.result.per_target {
        if !out.contains(&t.path.as_str()) {
            out.push(&t.path);
        }
    }
    out
}

/// `p`'s targets, one entry per path (see the module docs).
pub fn distinct(p: &PointResult) -> Vec<TargetResult> {
    let paths = paths(p);
    let r = &p.result;
    if paths.len() == r.per_target.len() {
        return r.per_target.clone();
    }
    if let [only] = paths.as_slice() {
        return vec![TargetResult {
            path: only.to_string(),
            read: r.read.clone(),
            write: r.write.clone(),
            total: r.total.clone(),
        }];
    }
    paths
        .into_iter()
        .map(|path| {
            let parts: Vec<&TargetResult> = r.per_target.iter().filter(|t| t.path == path).collect();
            if let [one] = parts.as_slice() {
                return (*one).clone();
            }
            let dir = |pick: fn(&TargetResult) -> &DirStats| merge_dirs(parts.iter().map(|t| pick(t)), r.runtime_ns);
            TargetResult {
                path: path.to_string(),
                read: dir(|t| &t.read),
                write: dir(|t| &t.write),
                total: dir(|t| &t.total),
            }
        })
        .collect()
}

/// Parts of one direction that ran at once as one: I/Os and bytes added over `window_ns`, the
/// latencies merged from their histograms.
fn merge_dirs<'a>(parts: impl Iterator<Item = &'a DirStats> + Clone, window_ns: u64) -> DirStats {
    let ops = parts.clone().map(|d| d.ops).sum();
    let bytes = parts.clone().map(|d| d.bytes).sum();
    let lats: Vec<&LatSummary> = parts.clone().map(|d| &d.lat_ns).collect();
    let clats: Vec<&LatSummary> = parts.filter_map(|d| d.clat_ns.as_ref()).collect();
    let secs = window_ns as f64 / 1e9;
    let per_s = |v: f64| if secs > 0.0 { v / secs } else { 0.0 };
    let bw = per_s(bytes as f64);
    DirStats {
        ops,
        bytes,
        iops: per_s(ops as f64),
        bw_bytes_per_s: bw,
        bw_mb_per_s: bw / 1e6,
        bw_mib_per_s: bw / 1048576.0,
        lat_ns: merge_lat(&lats),
        clat_ns: (!clats.is_empty()).then(|| merge_lat(&clats)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use drivelab_engine::hist::{Histogram, Pct};

    fn dir(lats: &[u64], window_ns: u64) -> DirStats {
        let mut h = Histogram::new();
        lats.iter().for_each(|&v| h.record(v));
        DirStats::from_hist(&h, lats.len() as u64 * 4096, window_ns)
    }

    fn target(path: &str, lats: &[u64]) -> TargetResult {
        TargetResult {
            path: path.into(),
            read: dir(lats, 1_000_000_000),
            write: dir(&[], 1_000_000_000),
            total: dir(lats, 1_000_000_000),
        }
    }

    #[test]
    fn entries_of_one_path_are_merged_not_averaged() {
        let mut p = crate::test_support::point("a", "", &[], &[("/x", 1.0)]);
        p.result.runtime_ns = 1_000_000_000;
        // Two parts on /x (one fast, one slow), one on /y.
        let fast: Vec<u64> = vec![1_000; 99];
        let slow: Vec<u64> = vec![1_000_000; 99];
        p.result.per_target = vec![target("/x", &fast), target("/y", &fast), target("/x", &slow)];
        let t = distinct(&p);
        assert_eq!(t.iter().map(|t| t.path.as_str()).collect::<Vec<_>>(), ["/x", "/y"]);
        assert_eq!(t[0].total.ops, 198, "both parts' I/Os");
        assert_eq!(t[0].total.iops, 198.0, "added over the window, not their mean (99)");
        let p99 = t[0].total.lat_ns.get(Pct::P99).unwrap();
        assert!(p99 >= 990_000, "the p99 of every I/O (the slow half), not a mean of p99s: {p99}");
        assert_eq!(t[1].total.ops, 99, "a path once is as saved");
    }

    #[test]
    fn one_path_twice_is_the_points_own_aggregate() {
        let mut p = crate::test_support::point("a", "", &[], &[("/x", 1.0)]);
        let one = p.result.per_target[0].clone();
        p.result.per_target = vec![one.clone(), one];
        p.result.total.iops = 12345.0;
        let t = distinct(&p);
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].total.iops, 12345.0);
        assert_eq!(paths(&p).len(), 1);
    }
}
