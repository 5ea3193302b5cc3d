//! The latency split's raw form: merged in any grouping it is the split of every I/O at once;
//! saved, it reads back exactly; forged, it is refused; summarized, the stages at a percentile
//! add up to that percentile's lat.

use super::split::{merge, summarize, Split, SplitSecond};
use super::Measurement;
use crate::hist::bucket_of;

/// One cut I/O: its five stages and the second it completed in.
fn io(rng: &mut fastrand::Rng) -> ([u64; 5], usize) {
    let device = if rng.u8(0..10) == 0 { rng.u64(1_000_000..5_000_000) } else { rng.u64(10_000..200_000) };
    ([rng.u64(200..5_000), rng.u64(500..20_000), device, rng.u64(1_000..50_000), rng.u64(100..3_000)], rng.usize(0..4))
}

/// The split of `ios` as the worker records it (worker/split.rs).
fn split_of(ios: &[([u64; 5], usize)]) -> Split {
    let mut s = Split::default();
    let mut by_lat = std::collections::BTreeMap::<u16, [u64; 5]>::new();
    for (ns, sec) in ios {
        let lat: u64 = ns.iter().sum();
        s.ios += 1;
        s.total.record(lat);
        let sums = by_lat.entry(bucket_of(lat) as u16).or_default();
        for k in 0..5 {
            s.stages[k].record(ns[k]);
            sums[k] += ns[k];
        }
        if s.series.len() <= *sec {
            s.series.resize(sec + 1, SplitSecond::default());
        }
        s.series[*sec].ios += 1;
        (0..5).for_each(|k| s.series[*sec].sum_ns[k] += ns[k]);
    }
    s.by_lat = by_lat.into_iter().collect();
    s
}

#[test]
fn merged_in_any_grouping_it_is_the_split_of_every_io() {
    let mut rng = fastrand::Rng::with_seed(28);
    let ios: Vec<_> = (0..3000).map(|_| io(&mut rng)).collect();
    let whole = split_of(&ios);
    for _ in 0..20 {
        let cuts = {
            let mut c: Vec<usize> = (0..rng.usize(1..6)).map(|_| rng.usize(0..ios.len())).collect();
            c.push(0);
            c.push(ios.len());
            c.sort();
            c
        };
        let mut parts: Vec<Split> = cuts.windows(2).map(|w| split_of(&ios[w[0]..w[1]])).collect();
        rng.shuffle(&mut parts);
        let merged = parts.iter().skip(1).fold(parts[0].clone(), |a, b| merge(&a, b));
        assert_eq!(merged, whole);
    }
}

#[test]
fn a_saved_split_reads_back_exactly_and_a_forged_one_is_refused() {
    let mut rng = fastrand::Rng::with_seed(7);
    let ios: Vec<_> = (0..500).map(|_| io(&mut rng)).collect();
    let mut split = split_of(&ios);
    (split.unmatched, split.clamped, split.lost_events, split.io_wq, split.without_device) = (3, 2, 1, 4, 5);
    (split.bpf_ns, split.bpf_runs) = (123_456, 789);
    let m = Measurement { split: Some(split), ..Default::default() };
    let text = serde_json::to_string(&m).unwrap();
    let back: Measurement = serde_json::from_str(&text).unwrap();
    assert_eq!(back, m);

    // A bucket of stage sums that holds no I/O of `total`: refused with the reason.
    let mut forged = m.clone();
    let s = forged.split.as_mut().unwrap();
    let empty = (0..7000u16).find(|&b| s.total.nonempty().all(|(k, _)| k != b as usize)).unwrap();
    s.by_lat.push((empty, [1; 5]));
    s.by_lat.sort();
    let err = serde_json::from_str::<Measurement>(&serde_json::to_string(&forged).unwrap()).unwrap_err();
    assert!(err.to_string().contains("split"), "{err}");
}

#[test]
fn the_stages_at_a_percentile_add_up_to_its_lat() {
    let mut rng = fastrand::Rng::with_seed(3);
    let ios: Vec<_> = (0..20_000).map(|_| io(&mut rng)).collect();
    let s = summarize(&split_of(&ios));
    assert_eq!(s.at.iter().map(|a| a.percentile.as_str()).collect::<Vec<_>>(), ["p50", "p99", "p99.9"]);
    for a in &s.at {
        let err = (a.sum_ns as f64 - a.lat_ns as f64).abs() / a.lat_ns as f64;
        // Both are inside the bucket holding the percentile: within its width (0.78%).
        assert!(err < 0.008, "{}: stages add up to {} for a lat of {}", a.percentile, a.sum_ns, a.lat_ns);
        assert!(a.bucket_ios > 0);
    }
    // The stage means add up to the mean lat (exact sums; f64 rounding only).
    let means: f64 = s.stages.iter().map(|st| st.mean_ns).sum();
    let total: f64 = ios.iter().map(|(ns, _)| ns.iter().sum::<u64>() as f64).sum::<f64>() / ios.len() as f64;
    assert!((means - total).abs() < 1e-6 * total, "{means} vs {total}");
    let shares: f64 = s.stages.iter().map(|st| st.share_pct).sum();
    assert!((shares - 100.0).abs() < 1e-6);
    // The slow tenth of I/Os (long device stage) dominates p99: the device stage is its biggest.
    let p99 = &s.at[1];
    assert!(p99.stage_ns.device > p99.stage_ns.completion && p99.stage_ns.device > p99.stage_ns.kernel);
    assert_eq!(s.series.iter().map(|x| x.ios).sum::<u64>(), 20_000);
}
