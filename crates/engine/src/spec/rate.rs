//! Fixed-rate (open-loop) load: what a rate counts, whom it is for, how I/Os arrive, and how a
//! job waits for its next intended time.

use serde::{Deserialize, Serialize};

/// What a fixed rate counts.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum RateUnit {
    #[default]
    Iops,
    /// Bytes per second; turned into I/Os per second with the mean block size.
    Bytes,
}

/// Whom a fixed rate is for.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum RateScope {
    /// The whole run: shared evenly by every job on every target.
    #[default]
    Total,
    /// Each job.
    Job,
}

impl RateScope {
    /// `rate_scope`'s word for it (what `set` reads).
    pub fn name(self) -> &'static str {
        match self {
            RateScope::Total => "total",
            RateScope::Job => "job",
        }
    }
}

/// When scheduled I/Os arrive.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Arrivals {
    /// Evenly spaced: one every 1/rate seconds.
    #[default]
    Uniform,
    /// A Poisson process: exponential gaps with mean 1/rate, as independent clients produce.
    Poisson,
}

impl Arrivals {
    /// `arrivals`' word for it (what `set` reads).
    pub fn name(self) -> &'static str {
        match self {
            Arrivals::Uniform => "uniform",
            Arrivals::Poisson => "poisson",
        }
    }
}

/// How an open-loop job waits for the next intended issue time.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum PaceMode {
    /// `hybrid` while its spinning (100 µs before each wake-up, over every job of the run) leaves
    /// a whole CPU free, else `sleep` (resolved when the run starts; the result names what ran).
    #[default]
    Auto,
    /// Sleep until it (a timer's wake-up is late by tens of µs on a busy or virtual machine).
    Sleep,
    /// Sleep until shortly before it, then spin (on time, at the cost of the spin's CPU). On this
    /// 2-core VM at 20k IOPS on null: lag p99 3.6 µs against sleep's 13 µs. But a spinning job
    /// takes a CPU from the others: ACT's three streams on 2 CPUs at 10x had a read-stream lag
    /// p99 of 9.7 ms with hybrid and 35 µs with sleep — hence `auto`.
    Hybrid,
    /// Spin all the way (on time, one core per job).
    Spin,
}

impl PaceMode {
    pub const ALL: [PaceMode; 4] = [PaceMode::Auto, PaceMode::Sleep, PaceMode::Hybrid, PaceMode::Spin];

    pub fn name(self) -> &'static str {
        match self {
            PaceMode::Auto => "auto",
            PaceMode::Sleep => "sleep",
            PaceMode::Hybrid => "hybrid",
            PaceMode::Spin => "spin",
        }
    }

    /// What `Auto` means for a run whose hybrid pacing would keep `spin_cpus` CPUs spinning
    /// (see [`AccessSpec::hybrid_spin_cpus`](super::AccessSpec::hybrid_spin_cpus)) on `cpus` CPUs: hybrid while that leaves a whole
    /// CPU for everything else, else sleep (a spinning job would take a CPU the others need).
    /// Other modes as they are.
    pub fn resolve(self, spin_cpus: f64, cpus: usize) -> PaceMode {
        match self {
            PaceMode::Auto if spin_cpus <= cpus.saturating_sub(1) as f64 => PaceMode::Hybrid,
            PaceMode::Auto => PaceMode::Sleep,
            other => other,
        }
    }

    pub fn from_name(s: &str) -> Option<PaceMode> {
        PaceMode::ALL.into_iter().find(|m| m.name() == s)
    }
}

/// Open-loop load: I/Os are issued at intended times fixed in advance, whether or not earlier
/// ones have completed, so a stall delays (and is charged to) every I/O scheduled during it.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub struct Rate {
    /// I/Os (or bytes, see `unit`) per second.
    pub per_s: f64,
    pub unit: RateUnit,
    pub scope: RateScope,
    pub arrivals: Arrivals,
    /// Give up when the schedule falls this far behind (ACT's max-lag); None: never.
    pub max_lag_ns: Option<u64>,
    /// How each job waits for its next intended time.
    #[serde(default)]
    pub pace: PaceMode,
    /// Every job's schedule starts at the shared start (ACT's service threads), instead of the
    /// jobs sharing a rate taking turns over one interval.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub aligned: bool,
    /// Every queue slot keeps its own schedule at the job's rate / qd and issues only once its
    /// previous I/O is done (ACT's service threads, one I/O at a time each), instead of the
    /// job's I/Os sharing one schedule that any free slot takes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub per_slot: bool,
}

impl Default for Rate {
    fn default() -> Self {
        Rate {
            per_s: 0.0,
            unit: RateUnit::Iops,
            scope: RateScope::Total,
            arrivals: Arrivals::Uniform,
            max_lag_ns: None,
            pace: PaceMode::Auto,
            aligned: false,
            per_slot: false,
        }
    }
}

impl Rate {
    /// `per_s` and `unit` as `rate`'s value, what [`parse_rate`](crate::options::parse_rate)
    /// reads back to the same number: I/Os per second as the shortest decimal that is the same
    /// `f64` (`2000`, `2.5`), bytes per second as a size (`200m/s`). Bytes per second that are
    /// not a whole number (never read from text) are written as the number (`1.5/s`), which the
    /// parser refuses rather than rounds.
    pub fn per_s_text(&self) -> String {
        match self.unit {
            RateUnit::Iops => format!("{}", self.per_s),
            RateUnit::Bytes => {
                let whole = self.per_s.fract() == 0.0 && (0.0..18_446_744_073_709_551_616.0).contains(&self.per_s);
                if whole {
                    format!("{}/s", crate::units::fmt_size(self.per_s as u64))
                } else {
                    format!("{}/s", self.per_s)
                }
            }
        }
    }
}

/// Hybrid pacing spins for the last this-many ns before an intended time: longer than a timer's
/// usual wake-up delay on a busy or virtual machine, short enough to cost little CPU at low rates.
pub const HYBRID_SPIN_NS: u64 = 100_000;
