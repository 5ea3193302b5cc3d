//! Latency objectives (`p99<1ms,p99.9<5ms`): parsing them and judging them on a histogram.

use std::fmt;

use drivelab_engine::hist::Histogram;
use drivelab_engine::units::{fmt_duration, fmt_ns, parse_duration};
use serde::{Deserialize, Serialize};

/// A latency statistic an objective can limit.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Stat {
    /// Percentile in (0, 100], e.g. 99.9.
    Percentile(f64),
    Mean,
    Max,
}

/// One criterion: `stat < limit` (or `<=` when `inclusive`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Clause {
    pub stat: Stat,
    pub limit_ns: u64,
    /// Written with `<=`: a value equal to the limit passes. Mean and max are exact, so the
    /// difference can matter there; percentiles carry the histogram's 0.39% bucket error anyway.
    #[serde(default)]
    pub inclusive: bool,
}

/// The user's criteria; all clauses must hold.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Objective {
    pub clauses: Vec<Clause>,
}

/// Why an objective was refused: the kind, with the clause as written (every message here, once).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ObjectiveError {
    #[error("empty objective: write latency limits such as p99<1ms,p99.9<5ms")]
    Empty,
    #[error("'{0}' has an empty criterion: separate criteria with single commas, e.g. p99<1ms,p99.9<5ms")]
    EmptyClause(String),
    #[error("'{0}': objectives are upper limits on latency: write e.g. p99<1ms")]
    LowerLimit(String),
    #[error("'{0}' has no limit: write STAT<LIMIT, e.g. p99<1ms")]
    NoLimit(String),
    #[error("'{clause}': unknown statistic '{stat}': use p<percentile> (p50, p99, p99.9), mean or max")]
    UnknownStat { clause: String, stat: String },
    #[error("'{clause}': percentile {digits} is outside 0..100: use e.g. p99 or p99.9")]
    Percentile { clause: String, digits: String },
    #[error("'{clause}' has no limit after '<': write e.g. {stat}<1ms")]
    EmptyLimit { clause: String, stat: String },
    #[error("'{clause}': the limit {limit} has no unit: write a unit, e.g. {stat}<{limit}ms or {stat}<{limit}us")]
    NoUnit { clause: String, stat: String, limit: String },
    #[error("'{clause}': {why}")]
    Duration { clause: String, why: drivelab_engine::units::ValueError },
    #[error("'{clause}': a limit of 0 can never be met: give a positive duration, e.g. {stat}<1ms")]
    Zero { clause: String, stat: String },
}

/// Parse `p99<1ms,p99.9<5ms`, `p50<200us`, `mean<1ms`, `max<=20ms`. Spaces are allowed anywhere;
/// limits go through [`parse_duration`], so a bare number is refused as ambiguous.
pub fn parse_objective(text: &str) -> Result<Objective, ObjectiveError> {
    if text.trim().is_empty() {
        return Err(ObjectiveError::Empty);
    }
    let clauses = text.split(',').map(|c| parse_clause(c, text)).collect::<Result<Vec<_>, _>>()?;
    Ok(Objective { clauses })
}

fn parse_clause(clause: &str, whole: &str) -> Result<Clause, ObjectiveError> {
    let shown = clause.trim();
    let c: String = shown.split_whitespace().collect();
    if c.is_empty() {
        return Err(ObjectiveError::EmptyClause(whole.to_string()));
    }
    if c.contains('>') {
        return Err(ObjectiveError::LowerLimit(shown.to_string()));
    }
    let Some((lhs, rhs)) = c.split_once('<') else {
        return Err(ObjectiveError::NoLimit(shown.to_string()));
    };
    let (rhs, inclusive) = match rhs.strip_prefix('=') {
        Some(rest) => (rest, true),
        None => (rhs, false),
    };
    let stat = parse_stat(lhs, shown)?;
    let limit_ns = parse_limit(rhs, lhs, shown)?;
    Ok(Clause { stat, limit_ns, inclusive })
}

fn parse_stat(text: &str, clause: &str) -> Result<Stat, ObjectiveError> {
    let lower = text.to_ascii_lowercase();
    match lower.as_str() {
        "mean" | "avg" => return Ok(Stat::Mean),
        "max" => return Ok(Stat::Max),
        _ => {}
    }
    let unknown = || ObjectiveError::UnknownStat { clause: clause.to_string(), stat: text.to_string() };
    let digits = lower.strip_prefix('p').ok_or_else(unknown)?;
    let p: f64 = digits.parse().map_err(|_| unknown())?;
    if !(p > 0.0 && p <= 100.0) {
        return Err(ObjectiveError::Percentile { clause: clause.to_string(), digits: digits.to_string() });
    }
    Ok(Stat::Percentile(p))
}

fn parse_limit(text: &str, stat: &str, clause: &str) -> Result<u64, ObjectiveError> {
    let (clause, stat) = (clause.to_string(), stat.to_string());
    if text.is_empty() {
        return Err(ObjectiveError::EmptyLimit { clause, stat });
    }
    if text.parse::<f64>().is_ok() {
        return Err(ObjectiveError::NoUnit { clause, stat, limit: text.to_string() });
    }
    let ns = match parse_duration(text) {
        Ok(d) => d.as_nanos(),
        Err(why) => return Err(ObjectiveError::Duration { clause, why }),
    };
    if ns == 0 {
        return Err(ObjectiveError::Zero { clause, stat });
    }
    Ok(u64::try_from(ns).unwrap_or(u64::MAX))
}

impl fmt::Display for Stat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stat::Percentile(p) => write!(f, "p{p}"),
            Stat::Mean => write!(f, "mean"),
            Stat::Max => write!(f, "max"),
        }
    }
}

impl fmt::Display for Clause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let op = if self.inclusive { "<=" } else { "<" };
        write!(f, "{}{op}{}", self.stat, fmt_duration(self.limit_ns, 3))
    }
}

impl fmt::Display for Objective {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.clauses.iter().map(Clause::to_string).collect();
        write!(f, "{}", parts.join(","))
    }
}

/// One clause judged on one histogram.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClauseResult {
    /// The clause as written back, e.g. `p99<1ms`.
    pub label: String,
    pub measured_ns: u64,
    pub limit_ns: u64,
    pub pass: bool,
}

/// An objective judged on one histogram.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    pub pass: bool,
    pub clauses: Vec<ClauseResult>,
}

impl Clause {
    /// The statistic's value in `h` (0 for an empty histogram).
    pub fn measure(&self, h: &Histogram) -> u64 {
        match self.stat {
            Stat::Percentile(p) => h.percentile(p),
            Stat::Mean => h.mean().round() as u64,
            Stat::Max => h.max(),
        }
    }

    fn holds(&self, measured_ns: u64) -> bool {
        measured_ns < self.limit_ns || (self.inclusive && measured_ns == self.limit_ns)
    }
}

impl Objective {
    /// Judge every clause on `h`. A histogram with no samples fails every clause.
    pub fn evaluate(&self, h: &Histogram) -> Evaluation {
        let has_samples = h.count() > 0;
        let clauses: Vec<ClauseResult> = self
            .clauses
            .iter()
            .map(|c| {
                let measured_ns = c.measure(h);
                let pass = has_samples && c.holds(measured_ns);
                ClauseResult { label: c.to_string(), measured_ns, limit_ns: c.limit_ns, pass }
            })
            .collect();
        Evaluation { pass: has_samples && clauses.iter().all(|c| c.pass), clauses }
    }
}

impl ClauseResult {
    /// The statistic's name: `p99`, `mean`, `max`.
    pub fn stat(&self) -> &str {
        self.label.split('<').next().unwrap_or(&self.label)
    }

    /// The measured figure against the limit, the comparison saying how it went:
    /// `p99 310.0µs < 500µs` (met), `p99 191.37ms > 500µs` (missed), `max 5ms = 5ms` (missed,
    /// or met when the clause was written with `<=`).
    pub fn compared(&self) -> String {
        let op = match self.measured_ns.cmp(&self.limit_ns) {
            std::cmp::Ordering::Less => "<",
            std::cmp::Ordering::Equal => "=",
            std::cmp::Ordering::Greater => ">",
        };
        format!("{} {} {op} {}", self.stat(), fmt_ns(self.measured_ns as f64), fmt_ns(self.limit_ns as f64))
    }
}

/// One line per probe: `p99 812.3µs < 1ms ok, p99.9 6.10ms >= 5ms FAIL`.
impl fmt::Display for Evaluation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self
            .clauses
            .iter()
            .map(|c| {
                let stat = c.stat();
                let verdict = if c.pass { "ok" } else { "FAIL" };
                format!("{stat} {} (limit {}) {verdict}", fmt_ns(c.measured_ns as f64), fmt_duration(c.limit_ns, 3))
            })
            .collect();
        write!(f, "{}", parts.join(", "))
    }
}
