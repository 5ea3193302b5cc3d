//! fio's latency target (`latency_target`, `latency_window`, `latency_percentile`,
//! `latency_run`): the job searches, while it runs, for the highest queue depth at which the
//! share `percentile` of each window's I/Os completes within `target` (lat: from just before the
//! submit call). The search itself is the worker's (`worker/lat_target.rs`); this is what the
//! spec says. fio's units: the target in ns, the window in µs in fio's JSON; drivelab keeps both
//! in ns.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Field};

/// What a job's latency target asks.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LatTarget {
    /// fio's `latency_target`: the latency each I/O should stay within (0: not set).
    pub target_ns: u64,
    /// fio's `latency_window`: how long each queue depth is tried before it is judged.
    #[serde(default)]
    pub window_ns: u64,
    /// fio's `latency_percentile`: the share of a window's I/Os that must be within the target,
    /// 0 to 100 (fio's default: 100, every I/O).
    #[serde(default = "all")]
    pub percentile: f64,
    /// fio's `latency_run`: keep adjusting the depth for the whole run instead of ending the job
    /// once the depth is found (and measured over one more window).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub run: bool,
}

fn all() -> f64 {
    100.0
}

impl Default for LatTarget {
    fn default() -> LatTarget {
        LatTarget { target_ns: 0, window_ns: 0, percentile: 100.0, run: false }
    }
}

impl LatTarget {
    /// The checks of the target's own fields.
    pub fn validate(&self) -> Result<(), Error> {
        if self.target_ns == 0 {
            return Err(Error::spec(
                Field::LatencyTarget,
                String::new(),
                "is not set: {latency_window}, {latency_percentile} and {latency_run} shape {latency_target}; give it too, e.g. 10ms",
            ));
        }
        if !(0.0..=100.0).contains(&self.percentile) {
            return Err(Error::spec(
                Field::LatencyPercentile,
                self.percentile.to_string(),
                "give a percentage from 0 to 100, e.g. 99.9",
            ));
        }
        Ok(())
    }
}
