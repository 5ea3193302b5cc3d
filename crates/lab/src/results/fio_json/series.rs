//! Per-interval figures of a fio run: with `--status-interval=N` fio writes a whole JSON
//! document every N seconds, each cumulative since the start. The difference of two
//! consecutive documents is what one interval did: its I/Os, bytes and mean lat (from fio's
//! exact counts and means), and with json+ its p99 (from the bins' counts, within the bound of
//! [`super::lat`]). Without `--status-interval` fio's JSON holds no per-second figures and the
//! series stays empty.

use std::collections::BTreeMap;

use drivelab_engine::hist::Histogram;
use drivelab_engine::result::SeriesPoint;

use serde_json::json;

use super::doc::{Dir, Doc};
use super::from_saved;
use super::group::lat_dist;

/// One group's totals at one document.
#[derive(Default)]
struct Totals {
    /// The group's measured time so far: its jobs' longest direction, ms.
    ms: u64,
    reads: u64,
    writes: u64,
    /// Every I/O: reads, writes, trims, `unified_rw_reporting`'s mixed.
    ops: u64,
    bytes: u64,
    /// Σ lat over every I/O, ns.
    lat_ns: f64,
    /// lat's bins (as [`lat_dist`] picks them), when every direction has them.
    bins: Option<BTreeMap<u64, u64>>,
}

fn totals(doc: &Doc, group: u64) -> Result<Totals, String> {
    let mut t = Totals { bins: Some(BTreeMap::new()), ..Totals::default() };
    for j in doc.jobs.iter().filter(|j| j.groupid == group) {
        let dirs: [(&Option<Dir>, u8); 4] = [(&j.read, 0), (&j.write, 1), (&j.trim, 2), (&j.mixed, 2)];
        for (d, which) in dirs {
            let Some(d) = d else { continue };
            t.ms = t.ms.max(d.runtime);
            t.ops += d.total_ios;
            t.bytes += d.io_bytes;
            match which {
                0 => t.reads += d.total_ios,
                1 => t.writes += d.total_ios,
                _ => {}
            }
            t.lat_ns += d.lat_ns.n as f64 * d.lat_ns.mean;
            match (&mut t.bins, &lat_dist(d).bins) {
                (Some(all), Some(bins)) => {
                    for (v, n) in bins {
                        let v: u64 = v.trim().parse().map_err(|_| format!("bin '{v}' is not a latency in ns"))?;
                        *all.entry(v).or_default() += n;
                    }
                }
                (all, None) if d.total_ios > 0 => *all = None,
                _ => {}
            }
        }
    }
    Ok(t)
}

/// The per-interval series of reporting group `group` over `docs` (empty for a single
/// document), and whether its p99s are known.
pub fn series(docs: &[Doc], group: u64) -> Result<(Vec<SeriesPoint>, bool), String> {
    if docs.len() < 2 {
        return Ok((Vec::new(), false));
    }
    let mut out = Vec::new();
    let mut prev = Totals { bins: Some(BTreeMap::new()), ..Totals::default() };
    let mut p99_known = true;
    for (i, doc) in docs.iter().enumerate() {
        let now = totals(doc, group).map_err(|e| format!("document {}: {e}", i + 1))?;
        let ms = now.ms.saturating_sub(prev.ms);
        if ms == 0 {
            continue;
        }
        let secs = ms as f64 / 1e3;
        let ops = now.ops.saturating_sub(prev.ops);
        let p99 = match (&now.bins, &prev.bins) {
            (Some(a), Some(b)) => {
                let mut h = Histogram::new();
                for (v, n) in a {
                    h.record_n(*v, n.saturating_sub(b.get(v).copied().unwrap_or(0)));
                }
                h.percentile(99.0)
            }
            _ => {
                p99_known = false;
                0
            }
        };
        // A second as saved: the open-loop and threshold figures fio has none of take their
        // defaults.
        let second: SeriesPoint = from_saved(
            json!({
                "t_s": now.ms as f64 / 1e3,
                "dur_ns": ms * 1_000_000,
                "iops": ops as f64 / secs,
                "read_iops": now.reads.saturating_sub(prev.reads) as f64 / secs,
                "write_iops": now.writes.saturating_sub(prev.writes) as f64 / secs,
                "bw_bytes_per_s": now.bytes.saturating_sub(prev.bytes) as f64 / secs,
                "lat_mean_ns": if ops > 0 { (now.lat_ns - prev.lat_ns).max(0.0) / ops as f64 } else { 0.0 },
                "lat_p99_ns": p99,
                "ops": ops,
            }),
            "second",
        )?;
        out.push(second);
        prev = now;
    }
    Ok((out, p99_known))
}
