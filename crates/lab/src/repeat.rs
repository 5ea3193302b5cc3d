//! `--repeat N`: run each point N times and keep one run, as CrystalDiskMark and KDiskMark do
//! (they show the best of 5 by default). The kept run is a real run, never an average: its
//! histogram, series and CPU figures belong together. `best` keeps the run with the highest
//! IOPS (for a fixed block size, also the highest MB/s); `median` keeps the run whose IOPS are
//! the median (for an even N the lower of the two middle runs). Every run's IOPS and MB/s are
//! saved with the point, so the spread is never hidden.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Which of the repeated runs a point keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pick {
    #[default]
    Best,
    Median,
}

impl fmt::Display for Pick {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Pick::Best => "best",
            Pick::Median => "median",
        })
    }
}

/// A `--pick` that is neither `best` nor `median`.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a pick: give best or median")]
pub struct UnknownPick(String);

impl FromStr for Pick {
    type Err = UnknownPick;
    fn from_str(s: &str) -> Result<Pick, UnknownPick> {
        match s {
            "best" => Ok(Pick::Best),
            "median" => Ok(Pick::Median),
            other => Err(UnknownPick(other.to_string())),
        }
    }
}

/// How often each point runs and which run it keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Repeat {
    pub runs: u32,
    pub pick: Pick,
}

impl Default for Repeat {
    fn default() -> Repeat {
        Repeat { runs: 1, pick: Pick::Best }
    }
}

/// The most runs of one point `--repeat` takes (CrystalDiskMark offers 1..9).
pub const MAX_RUNS: u32 = 100;

impl Repeat {
    pub fn validate(&self) -> Result<(), String> {
        if self.runs == 0 || self.runs > MAX_RUNS {
            return Err(format!("{} runs: give 1..{MAX_RUNS}", self.runs));
        }
        Ok(())
    }
}

/// Every run of a repeated point, as saved with it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RepeatRecord {
    pub pick: Pick,
    /// Runs asked for (`runs_iops` is shorter when Ctrl-C or an I/O error ended the repeats).
    pub runs: u32,
    pub runs_iops: Vec<f64>,
    pub runs_bw_bytes_per_s: Vec<f64>,
    /// Index (from 0) of the run kept as the point's result.
    pub kept: usize,
    /// Each run's seed of where its random I/Os landed (`AccessSpec::offset_seed` of round 0,
    /// 1, ...): every run draws new offsets. Empty in results saved before it was kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runs_offset_seed: Vec<u64>,
}

/// The index of the run `pick` keeps among runs with these IOPS (None for no runs).
pub fn pick_index(iops: &[f64], pick: Pick) -> Option<usize> {
    if iops.is_empty() {
        return None;
    }
    let mut order: Vec<usize> = (0..iops.len()).collect();
    order.sort_by(|&a, &b| iops[a].total_cmp(&iops[b]).then(a.cmp(&b)));
    Some(match pick {
        Pick::Best => *order.last().expect("not empty"),
        Pick::Median => order[(order.len() - 1) / 2],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_is_the_highest_and_median_a_real_middle_run() {
        let iops = [300.0, 500.0, 100.0, 400.0, 200.0];
        assert_eq!(pick_index(&iops, Pick::Best), Some(1));
        assert_eq!(pick_index(&iops, Pick::Median), Some(0)); // 300: the third of five
                                                              // Even N: the lower of the two middle runs, a run that happened.
        assert_eq!(pick_index(&[10.0, 40.0, 20.0, 30.0], Pick::Median), Some(2));
        assert_eq!(pick_index(&[], Pick::Best), None);
        assert_eq!(pick_index(&[7.0], Pick::Median), Some(0));
        assert!(Repeat { runs: 0, pick: Pick::Best }.validate().is_err());
        assert_eq!("median".parse::<Pick>(), Ok(Pick::Median));
        assert!("mean".parse::<Pick>().is_err());
    }
}
