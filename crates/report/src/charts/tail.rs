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
use super::frame::{draw_lines, transform, Drawn, LegendAt};
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
    let x = Axis::fit(xk, t.iter().flat_map(|s| s.1.iter().map(|p| p.0)), false, 0.0);
    let y = Axis::fit(yk, t.iter().flat_map(|s| s.1.iter().map(|p| p.1)), false, 0.0);
    let f = Frame {
        x_label: "latency (µs, log scale)",
        y_label: "I/Os slower than that (%, log scale)",
        x: &x,
        y: &y,
        x_mesh: true,
        y_mesh: true,
    };
    draw_lines(title, DEFAULT_SIZE, &f, &t, false, LegendAt::Below)
}

/// IOPS against p99 latency: `(name, [(IOPS, p99 ns)])` per device, points in sweep order
/// (never sorted: past the knee a drive may lose IOPS and the line bends back).
pub fn hockey(title: &str, load: &str, series: &[(String, Vec<(f64, f64)>)]) -> String {
    let (xk, yk) = (Kind::Linear, Kind::Log10);
    let t: Vec<Drawn> = series
        .iter()
        .map(|(name, pts)| {
            let us: Vec<(f64, f64)> = pts.iter().map(|&(iops, ns)| (iops, ns / 1000.0)).collect();
            (name.clone(), transform(&us, &xk, &yk, false), None)
        })
        .collect();
    let x = Axis::fit(xk, t.iter().flat_map(|s| s.1.iter().map(|p| p.0)), true, 0.0);
    let y = Axis::fit(yk, t.iter().flat_map(|s| s.1.iter().map(|p| p.1)), false, 0.0);
    let x_label = format!("throughput (IOPS), each point one {load}, in sweep order");
    let f =
        Frame { x_label: &x_label, y_label: "p99 latency (µs, log scale)", x: &x, y: &y, x_mesh: true, y_mesh: true };
    draw_lines(title, Size { h: DEFAULT_SIZE.h, ..DEFAULT_SIZE }, &f, &t, true, LegendAt::Below)
}
