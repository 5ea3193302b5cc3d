//! The two latency charts a reviewer reads the tail from:
//!
//! - the exceedance chart: for each latency x, the share of I/Os slower than x (1 − CDF), both
//!   axes log, from the saved histograms; a tail that falls off a cliff and one that drags out
//!   over decades look alike on a CDF that ends at 100 %, and nothing alike here;
//! - the hockey stick: IOPS (x) against p99 latency (y, log) for a sweep of load (queue depth,
//!   rate, jobs x qd), a line per device through the points in sweep order, so the knee where
//!   more load buys latency and no IOPS shows, and a drive that loses IOPS past it bends back.

use drivelab_engine::hist::{bucket_of, bucket_width, HistogramData, SUB_BITS};

use super::axes::Kind;
use drivelab_engine::units::{fmt_number, Style};

use super::frame::{draw_lines, draw_lines_labelled, transform, Drawn, LegendAt, Marks};
use super::{Axis, Frame, Size, DEFAULT_SIZE};

/// 1 − CDF of a histogram: `(latency µs, % of I/Os slower than it)`, from 100 % at the lowest
/// bucket's low edge down at each bucket's upper edge, while any I/O is slower (a log axis
/// cannot show 0 %). Empty for an empty histogram.
pub fn exceedance_points(h: &HistogramData) -> Vec<(f64, f64)> {
    let total: u64 = h.buckets.iter().map(|b| b[1]).sum();
    let Some(first) = h.buckets.iter().find(|b| b[1] > 0) else { return Vec::new() };
    let mut out = vec![(first[0] as f64 / 1000.0, 100.0)];
    let mut cum = 0u64;
    for &[low, count] in h.buckets.iter().filter(|b| b[1] > 0) {
        cum += count;
        if cum >= total {
            break;
        }
        let width = if h.sub_bucket_bits == SUB_BITS { bucket_width(bucket_of(low)) } else { 1 };
        let upper = low.saturating_add(width);
        out.push((upper as f64 / 1000.0, 100.0 * (total - cum) as f64 / total as f64));
    }
    out
}

/// One exceedance line per histogram (see the module docs), at [`DEFAULT_SIZE`] plus its
/// legend under the plot.
pub fn exceedance(title: &str, series: &[(String, HistogramData)]) -> String {
    let (xk, yk) = (Kind::Log10, Kind::Log10);
    let t: Vec<Drawn> = series
        .iter()
        .map(|(name, h)| (name.clone(), transform(&exceedance_points(h), &xk, &yk, false), None))
        .collect();
    let x = Axis::fit(xk, t.iter().flat_map(|s| s.1.iter().map(|p| p.0)), false, 0.0).micros();
    let y = Axis::fit(yk, t.iter().flat_map(|s| s.1.iter().map(|p| p.1)), false, 0.0);
    let f = Frame {
        x_label: "latency (log scale)",
        y_label: "I/Os slower than that (%, log scale)",
        x: &x,
        y: &y,
        x_mesh: true,
        y_mesh: true,
    };
    draw_lines(title, DEFAULT_SIZE, &f, &t, Marks::Line, LegendAt::Below)
}

/// IOPS against p99 latency: `(name, [(IOPS, p99 ns)])` per device, points in sweep order
/// (never sorted: past the knee a drive may lose IOPS and the line bends back), each point's
/// load written beside it (`loads[series][point]`: "qd 8"), so the knee's queue depth reads off
/// the chart.
pub fn hockey(title: &str, load: &str, series: &[(String, Vec<(f64, f64)>)], loads: &[Vec<f64>]) -> String {
    let (xk, yk) = (Kind::Linear, Kind::Log10);
    let word = if load == "queue depth" { "qd " } else { "" };
    let labels: Vec<Vec<String>> =
        loads.iter().map(|l| l.iter().map(|v| format!("{word}{}", fmt_number(*v, Style::Label))).collect()).collect();
    let t: Vec<Drawn> = series
        .iter()
        .map(|(name, pts)| {
            let us: Vec<(f64, f64)> = pts.iter().map(|&(iops, ns)| (iops, ns / 1000.0)).collect();
            (name.clone(), transform(&us, &xk, &yk, false), None)
        })
        .collect();
    let x = Axis::fit(xk, t.iter().flat_map(|s| s.1.iter().map(|p| p.0)), true, 0.0);
    let y = Axis::fit(yk, t.iter().flat_map(|s| s.1.iter().map(|p| p.1)), false, 0.0).micros();
    let x_label = format!("throughput (IOPS), each point one {load}, in sweep order");
    let f = Frame { x_label: &x_label, y_label: "p99 latency (log scale)", x: &x, y: &y, x_mesh: true, y_mesh: true };
    draw_lines_labelled(title, Size { h: DEFAULT_SIZE.h, ..DEFAULT_SIZE }, &f, &t, LegendAt::Below, &labels)
}

#[cfg(test)]
mod tests {
    use super::*;
    use drivelab_engine::hist::Histogram;

    fn tail_of(counts: &[(u64, u64)]) -> HistogramData {
        let mut h = Histogram::new();
        for &(ns, n) in counts {
            h.record_n(ns, n);
        }
        h.summary().histogram
    }

    #[test]
    fn exceedance_falls_from_every_io_to_the_slowest_share_at_each_bucket_edge() {
        // 90 I/Os at 100 µs, 9 at 1 ms, 1 at 10 ms.
        let h = tail_of(&[(100_000, 90), (1_000_000, 9), (10_000_000, 1)]);
        let pts = exceedance_points(&h);
        let shares: Vec<f64> = pts.iter().map(|p| p.1).collect();
        assert_eq!(shares, [100.0, 10.0, 1.0], "{pts:?}");
        assert!(pts.windows(2).all(|w| w[0].0 < w[1].0), "latency ascends: {pts:?}");
        // 10% are slower than the 100 µs bucket's upper edge, 1% than the 1 ms bucket's.
        assert!(pts[1].0 > 100.0 && pts[1].0 < 101.0, "{pts:?}");
        assert!(pts[2].0 > 1000.0 && pts[2].0 < 1010.0, "{pts:?}");
        assert!(exceedance_points(&tail_of(&[])).is_empty());
        let svg = exceedance("tail", &[("a".into(), h)]);
        let doc = roxmltree::Document::parse(&svg).expect("well-formed");
        let texts: Vec<&str> = doc.descendants().filter_map(|n| n.text()).map(str::trim).collect();
        assert!(texts.contains(&"I/Os slower than that (%, log scale)"), "{texts:?}");
        assert!(texts.contains(&"latency (log scale)"), "{texts:?}");
        assert!(texts.contains(&"1 ms") && texts.contains(&"100 µs"), "ticks name their unit: {texts:?}");
    }

    #[test]
    fn a_hockey_sticks_points_carry_their_queue_depth() {
        let pts = vec![(100.0, 50_000.0), (200.0, 60_000.0), (300.0, 200_000.0)];
        let svg = hockey("h", "queue depth", &[("dev".into(), pts)], &[vec![1.0, 2.0, 32.0]]);
        let doc = roxmltree::Document::parse(&svg).expect("well-formed");
        let texts: Vec<&str> = doc.descendants().filter_map(|n| n.text()).map(str::trim).collect();
        for qd in ["qd 1", "qd 2", "qd 32"] {
            assert!(texts.contains(&qd), "{qd}: {texts:?}");
        }
    }

    #[test]
    fn a_hockey_stick_keeps_sweep_order_where_iops_fall_back() {
        // qd 1, 2, 4, 8: IOPS 100, 200, 300 then 250 (past the knee).
        let pts = vec![(100.0, 50_000.0), (200.0, 60_000.0), (300.0, 200_000.0), (250.0, 2_000_000.0)];
        let svg = hockey("h", "queue depth", &[("dev".into(), pts)], &[]);
        let doc = roxmltree::Document::parse(&svg).expect("well-formed");
        // The line's vertices in drawing order: x goes up three times, then back.
        let line = doc
            .descendants()
            .filter(|n| n.has_tag_name("polyline"))
            .find(|n| n.attribute("points").is_some_and(|p| p.split(' ').filter(|s| !s.is_empty()).count() == 4))
            .expect("a 4-point line");
        let xs: Vec<f64> = line
            .attribute("points")
            .unwrap()
            .split_whitespace()
            .map(|p| p.split(',').next().unwrap().parse().unwrap())
            .collect();
        assert!(xs[0] < xs[1] && xs[1] < xs[2] && xs[3] < xs[2], "sweep order, not sorted by IOPS: {xs:?}");
        let texts: Vec<&str> = doc.descendants().filter_map(|n| n.text()).map(str::trim).collect();
        assert!(texts.contains(&"p99 latency (log scale)"), "{texts:?}");
    }
}
