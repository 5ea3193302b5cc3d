//! Latency objectives and the search for the highest load that meets them, with no I/O.
//!
//! Datacenter buyers ask "how much load can this drive carry while p99 stays under 1 ms", not
//! "how fast is it". Answering takes a search: run a load, judge it, pick the next load. Three
//! commands search the same way — `drivelab qos` for a rate (IOPS, real-valued, starting at the
//! measured closed-loop maximum) and for a queue depth (whole numbers, 1..max), and `drivelab act
//! --search` for the highest passing ACT load N — so the search is one pure state machine,
//! [`HighestPassing`], that proposes values and is told whether they passed. That keeps it
//! testable with made-up pass functions and synthetic histograms, which is how it is tested here.
//!
//! The search assumes passing is monotone: low loads pass, high loads fail. It starts high, steps
//! down by a factor until something passes (or climbs if the start already passes), bisects
//! between the highest pass and the lowest failure until they are close, and then runs the best
//! value once more to confirm it, because one good run can be luck. A failed confirmation counts
//! as a failure at that value and the search goes on below it.
//!
//! An [`Objective`] is the user's criteria, such as `p99<1ms,p99.9<5ms`, judged on a
//! [`Histogram`]. A histogram without samples fails: no evidence is not a pass.

use std::fmt;

use drivelab_engine::hist::Histogram;
use drivelab_engine::units::{fmt_duration, fmt_ns, fmt_trimmed, parse_duration};
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

/// Parse `p99<1ms,p99.9<5ms`, `p50<200us`, `mean<1ms`, `max<=20ms`. Spaces are allowed anywhere;
/// limits go through [`parse_duration`], so a bare number is refused as ambiguous.
pub fn parse_objective(text: &str) -> Result<Objective, String> {
    if text.trim().is_empty() {
        return Err("empty objective: write latency limits such as p99<1ms,p99.9<5ms".into());
    }
    let clauses = text.split(',').map(|c| parse_clause(c, text)).collect::<Result<Vec<_>, _>>()?;
    Ok(Objective { clauses })
}

fn parse_clause(clause: &str, whole: &str) -> Result<Clause, String> {
    let shown = clause.trim();
    let c: String = shown.split_whitespace().collect();
    if c.is_empty() {
        return Err(format!(
            "'{whole}' has an empty criterion: separate criteria with single commas, e.g. p99<1ms,p99.9<5ms"
        ));
    }
    if c.contains('>') {
        return Err(format!("'{shown}': objectives are upper limits on latency: write e.g. p99<1ms"));
    }
    let Some((lhs, rhs)) = c.split_once('<') else {
        return Err(format!("'{shown}' has no limit: write STAT<LIMIT, e.g. p99<1ms"));
    };
    let (rhs, inclusive) = match rhs.strip_prefix('=') {
        Some(rest) => (rest, true),
        None => (rhs, false),
    };
    let stat = parse_stat(lhs, shown)?;
    let limit_ns = parse_limit(rhs, lhs, shown)?;
    Ok(Clause { stat, limit_ns, inclusive })
}

fn parse_stat(text: &str, clause: &str) -> Result<Stat, String> {
    let lower = text.to_ascii_lowercase();
    match lower.as_str() {
        "mean" | "avg" => return Ok(Stat::Mean),
        "max" => return Ok(Stat::Max),
        _ => {}
    }
    let unknown =
        || format!("'{clause}': unknown statistic '{text}': use p<percentile> (p50, p99, p99.9), mean or max");
    let digits = lower.strip_prefix('p').ok_or_else(unknown)?;
    let p: f64 = digits.parse().map_err(|_| unknown())?;
    if !(p > 0.0 && p <= 100.0) {
        return Err(format!("'{clause}': percentile {digits} is outside 0..100: use e.g. p99 or p99.9"));
    }
    Ok(Stat::Percentile(p))
}

fn parse_limit(text: &str, stat: &str, clause: &str) -> Result<u64, String> {
    if text.is_empty() {
        return Err(format!("'{clause}' has no limit after '<': write e.g. {stat}<1ms"));
    }
    if text.parse::<f64>().is_ok() {
        return Err(format!(
            "'{clause}': the limit {text} has no unit: write a unit, e.g. {stat}<{text}ms or {stat}<{text}us"
        ));
    }
    let ns = parse_duration(text).map_err(|e| format!("'{clause}': {e}"))?.as_nanos();
    if ns == 0 {
        return Err(format!("'{clause}': a limit of 0 can never be met: give a positive duration, e.g. {stat}<1ms"));
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

/// One line per probe: `p99 812.3µs < 1ms ok, p99.9 6.10ms >= 5ms FAIL`.
impl fmt::Display for Evaluation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self
            .clauses
            .iter()
            .map(|c| {
                let stat = c.label.split('<').next().unwrap_or(&c.label);
                let verdict = if c.pass { "ok" } else { "FAIL" };
                format!("{stat} {} (limit {}) {verdict}", fmt_ns(c.measured_ns as f64), fmt_duration(c.limit_ns, 3))
            })
            .collect();
        write!(f, "{}", parts.join(", "))
    }
}

/// Where and how to search. See [`HighestPassing`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchSpace {
    /// Lowest value to try (above 0).
    pub min: f64,
    /// Highest value to try.
    pub max: f64,
    /// First value to try, clamped into `[min, max]`: start high.
    pub start: f64,
    /// Whole numbers only (queue depth, ACT's N): every probe is quantized, rounding down when
    /// stepping down or bisecting.
    pub integer: bool,
    /// Real-valued spaces stop when `lowest_fail - best <= rel_tol * best` (0.05 = within 5%).
    /// Integer spaces stop when the two are adjacent.
    pub rel_tol: f64,
    /// On a failure before any pass, the next value is `value * step_down` (0.5 halves it); on
    /// passes before any failure, it is `value / step_down`.
    pub step_down: f64,
    /// Stop after this many probes (confirmation included) with the best value so far.
    pub max_probes: usize,
}

impl SearchSpace {
    /// Refuse spaces the search cannot work in, naming the value and the fix.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.min.is_finite() && self.min > 0.0) {
            return Err(format!("search minimum {} must be above 0: a load of 0 runs nothing", self.min));
        }
        if !(self.max.is_finite() && self.max >= self.min) {
            return Err(format!("search maximum {} is below the minimum {}: give max >= min", self.max, self.min));
        }
        if self.integer && self.min.ceil() > self.max.floor() {
            return Err(format!("no whole number lies in {}..{}: widen the range", self.min, self.max));
        }
        if !self.start.is_finite() {
            return Err(format!("search start {} is not a number: start at the highest load worth trying", self.start));
        }
        if !self.integer && !between_0_and_1(self.rel_tol) {
            return Err(format!("search tolerance {} must be between 0 and 1 (0.05 = within 5%)", self.rel_tol));
        }
        if !between_0_and_1(self.step_down) {
            return Err(format!(
                "search step factor {} must be between 0 and 1 (0.5 halves the load after a failure)",
                self.step_down
            ));
        }
        if self.max_probes == 0 {
            return Err("max_probes 0 allows no run at all: allow at least 1 probe".into());
        }
        Ok(())
    }
}

fn between_0_and_1(x: f64) -> bool {
    x > 0.0 && x < 1.0
}

/// What to do next.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Step {
    /// Run a load of `value` and [`HighestPassing::record`] the result. `confirm` marks the
    /// confirming run of the best value found.
    Probe {
        value: f64,
        confirm: bool,
    },
    Done(SearchOutcome),
}

/// How a search ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchOutcome {
    /// Highest value that passed (and was not failed by its confirmation); `None` if nothing did.
    pub best: Option<f64>,
    /// Lowest value that failed, if any did.
    pub lowest_fail: Option<f64>,
    /// Every probe in order: (value, passed, was the confirming run).
    pub probes: Vec<(f64, bool, bool)>,
    /// Why it stopped, for people: "converged within 5%: ...", "even the minimum 1 fails",
    /// "max_probes reached ...".
    pub reason: String,
    /// Whether `best` passed its confirming run.
    pub confirmed: bool,
}

/// The search state machine: ask [`next`](Self::next), run the load, [`record`](Self::record)
/// the result, repeat until `Step::Done`.
///
/// Never proposes a value twice except for the confirmation. Results that contradict
/// monotonicity are resolved conservatively: a value that failed once counts as failing, and
/// passes above the lowest failure are ignored.
#[derive(Clone, Debug)]
pub struct HighestPassing {
    space: SearchSpace,
    probes: Vec<(f64, bool, bool)>,
}

/// The next move before the probe budget is applied.
enum Plan {
    Probe(f64, bool),
    Done(Option<f64>, String),
}

impl HighestPassing {
    /// A search over `space`, refused if [`SearchSpace::validate`] refuses it.
    pub fn new(space: SearchSpace) -> Result<HighestPassing, String> {
        space.validate()?;
        Ok(HighestPassing { space, probes: Vec::new() })
    }

    pub fn space(&self) -> &SearchSpace {
        &self.space
    }

    /// Every probe recorded so far: (value, passed, was the confirming run).
    pub fn probes(&self) -> &[(f64, bool, bool)] {
        &self.probes
    }

    /// The next value to run, or the outcome.
    pub fn next(&self) -> Step {
        match self.plan() {
            Plan::Probe(_, confirm) if self.probes.len() >= self.space.max_probes => {
                let n = self.probes.len();
                let before = if confirm { "before the confirming run" } else { "before the search converged" };
                self.finish(self.best_pass(), format!("max_probes reached ({n} probes) {before}"))
            }
            Plan::Probe(value, confirm) => Step::Probe { value, confirm },
            Plan::Done(best, reason) => self.finish(best, reason),
        }
    }

    /// Record whether a run at `value` passed. Normally `value` is what [`next`](Self::next)
    /// proposed; it is the confirming run if `next` proposed it as one. Ignored once the search
    /// is done, and for values that are not finite numbers.
    pub fn record(&mut self, value: f64, passed: bool) {
        if !value.is_finite() {
            return;
        }
        let confirm = match self.next() {
            Step::Done(_) => return,
            Step::Probe { value: proposed, confirm } => confirm && proposed == value,
        };
        self.probes.push((value, passed, confirm));
    }

    fn plan(&self) -> Plan {
        let lowest_fail = self.lowest_fail();
        match (self.best_pass(), lowest_fail) {
            (None, None) => Plan::Probe(self.first_value(), false),
            (None, Some(fail)) if fail <= self.lo() => {
                Plan::Done(None, format!("even the minimum {} fails", fmt_trimmed(self.lo(), 2)))
            }
            (None, Some(fail)) => Plan::Probe(self.step_down_from(fail), false),
            (Some(pass), None) if pass >= self.hi() => {
                self.converge_at(pass, format!("even the maximum {} passes", fmt_trimmed(self.hi(), 2)))
            }
            (Some(pass), None) => Plan::Probe(self.step_up_from(pass), false),
            (Some(pass), Some(fail)) if self.close_enough(pass, fail) => {
                self.converge_at(pass, self.converged_reason(pass, fail))
            }
            (Some(pass), Some(fail)) => Plan::Probe(self.bisect(pass, fail), false),
        }
    }

    /// Confirm `pass` unless that has been done.
    fn converge_at(&self, pass: f64, reason: String) -> Plan {
        if self.confirmed(pass) {
            Plan::Done(Some(pass), reason)
        } else {
            Plan::Probe(pass, true)
        }
    }

    fn finish(&self, best: Option<f64>, reason: String) -> Step {
        Step::Done(SearchOutcome {
            best,
            lowest_fail: self.lowest_fail(),
            probes: self.probes.clone(),
            reason,
            confirmed: best.is_some_and(|b| self.confirmed(b)),
        })
    }

    fn converged_reason(&self, pass: f64, fail: f64) -> String {
        if self.space.integer {
            format!("converged: {} passes, {} fails", fmt_trimmed(pass, 2), fmt_trimmed(fail, 2))
        } else {
            format!(
                "converged within {}%: {} passes, {} fails",
                fmt_trimmed(self.space.rel_tol * 100.0, 2),
                fmt_trimmed(pass, 2),
                fmt_trimmed(fail, 2)
            )
        }
    }

    fn lo(&self) -> f64 {
        if self.space.integer {
            self.space.min.ceil()
        } else {
            self.space.min
        }
    }

    fn hi(&self) -> f64 {
        if self.space.integer {
            self.space.max.floor()
        } else {
            self.space.max
        }
    }

    fn failed(&self, value: f64) -> bool {
        self.probes.iter().any(|&(v, passed, _)| v == value && !passed)
    }

    fn confirmed(&self, value: f64) -> bool {
        !self.failed(value) && self.probes.iter().any(|&(v, passed, confirm)| v == value && passed && confirm)
    }

    fn lowest_fail(&self) -> Option<f64> {
        self.probes.iter().filter(|p| !p.1).map(|p| p.0).reduce(f64::min)
    }

    /// Highest value that passed, never failed, and lies below the lowest failure.
    fn best_pass(&self) -> Option<f64> {
        let below = self.lowest_fail().unwrap_or(f64::INFINITY);
        self.probes.iter().filter(|p| p.1 && p.0 < below && !self.failed(p.0)).map(|p| p.0).reduce(f64::max)
    }

    fn first_value(&self) -> f64 {
        let start = if self.space.integer { self.space.start.floor() } else { self.space.start };
        start.clamp(self.lo(), self.hi())
    }

    fn step_down_from(&self, fail: f64) -> f64 {
        let mut v = fail * self.space.step_down;
        if self.space.integer {
            v = v.floor();
            if v >= fail {
                v = fail - 1.0;
            }
        }
        v.max(self.lo())
    }

    fn step_up_from(&self, pass: f64) -> f64 {
        let mut v = pass / self.space.step_down;
        if self.space.integer {
            v = v.ceil();
            if v <= pass {
                v = pass + 1.0;
            }
        }
        v.min(self.hi())
    }

    fn bisect(&self, pass: f64, fail: f64) -> f64 {
        let mid = (pass + fail) / 2.0;
        if self.space.integer {
            mid.floor()
        } else {
            mid
        }
    }

    fn close_enough(&self, pass: f64, fail: f64) -> bool {
        if self.space.integer {
            fail - pass <= 1.0
        } else {
            fail - pass <= self.space.rel_tol * pass
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Drive a search to the end with `pass`, returning the outcome.
    fn drive(space: SearchSpace, mut pass: impl FnMut(f64, bool) -> bool) -> SearchOutcome {
        let mut s = HighestPassing::new(space).unwrap();
        for _ in 0..1000 {
            match s.next() {
                Step::Probe { value, confirm } => {
                    let ok = pass(value, confirm);
                    s.record(value, ok);
                }
                Step::Done(outcome) => return outcome,
            }
        }
        panic!("search did not finish: {:?}", s.probes());
    }

    fn qd_space() -> SearchSpace {
        SearchSpace { min: 1.0, max: 256.0, start: 256.0, integer: true, rel_tol: 0.05, step_down: 0.5, max_probes: 30 }
    }

    fn values(o: &SearchOutcome) -> Vec<f64> {
        o.probes.iter().map(|p| p.0).collect()
    }

    /// No value probed twice, except a confirmation repeating an earlier probe.
    fn assert_no_repeats(o: &SearchOutcome) {
        for (i, &(v, _, confirm)) in o.probes.iter().enumerate() {
            let earlier = o.probes[..i].iter().filter(|p| p.0 == v).count();
            assert!(earlier == 0 || (confirm && earlier == 1), "{v} repeated: {:?}", o.probes);
        }
    }

    #[test]
    fn queue_depth_search_finds_the_highest_passing_depth_and_confirms_it() {
        // pass(qd) = qd <= 37 on 1..256 from 256, halving on failure:
        // 256 F, 128 F, 64 F, 32 P; bisect 32|64 -> 48 F, 32|48 -> 40 F, 32|40 -> 36 P,
        // 36|40 -> 38 F, 36|38 -> 37 P; 37 and 38 are adjacent -> confirm 37 P. 10 probes.
        let o = drive(qd_space(), |v, _| v <= 37.0);
        assert_eq!(values(&o), [256.0, 128.0, 64.0, 32.0, 48.0, 40.0, 36.0, 38.0, 37.0, 37.0]);
        assert_eq!((o.best, o.lowest_fail, o.confirmed), (Some(37.0), Some(38.0), true));
        assert_eq!(o.probes.last(), Some(&(37.0, true, true)));
        assert!(o.probes.len() <= 15);
        assert!(o.reason.contains("converged"), "{}", o.reason);
        assert_no_repeats(&o);
    }

    #[test]
    fn act_scale_search_finds_the_highest_whole_n() {
        // pass(N) = N <= 11 on 1..48 from 48: 48 F, 24 F, 12 F, 6 P; bisect 6|12 -> 9 P,
        // 9|12 -> 10 P, 10|12 -> 11 P; 11|12 adjacent -> confirm 11.
        let space = SearchSpace { max: 48.0, start: 48.0, ..qd_space() };
        let o = drive(space, |n, _| n <= 11.0);
        assert_eq!(values(&o), [48.0, 24.0, 12.0, 6.0, 9.0, 10.0, 11.0, 11.0]);
        assert_eq!((o.best, o.lowest_fail, o.confirmed), (Some(11.0), Some(12.0), true));
    }

    #[test]
    fn rate_search_converges_within_the_tolerance_of_the_threshold() {
        // pass(rate) = rate <= 9876.5 on 100..100000 from 50000 (a closed-loop maximum):
        // 50000 F, 25000 F, 12500 F, 6250 P; bisect -> 9375 P, 10937.5 F, 10156.25 F, 9765.625 P;
        // gap 10156.25 - 9765.625 = 390.6 <= 5% of 9765.625 (488.3) -> confirm 9765.625.
        let threshold = 9876.5;
        let space = SearchSpace {
            min: 100.0,
            max: 100_000.0,
            start: 50_000.0,
            integer: false,
            rel_tol: 0.05,
            step_down: 0.5,
            max_probes: 30,
        };
        let o = drive(space, |r, _| r <= threshold);
        let (best, fail) = (o.best.unwrap(), o.lowest_fail.unwrap());
        assert_eq!((best, fail), (9765.625, 10156.25));
        assert!(best <= threshold && fail > threshold && fail - best <= 0.05 * best);
        assert!(o.confirmed && o.reason.starts_with("converged within 5%"), "{}", o.reason);
        assert_eq!(o.probes.len(), 9);
    }

    #[test]
    fn a_passing_start_climbs_to_the_maximum() {
        // Everything passes on 10..500 from 100: 100, 200, 400, then 800 clamped to 500, which
        // passes; confirm 500.
        let space = SearchSpace { min: 10.0, max: 500.0, start: 100.0, integer: false, ..qd_space() };
        let o = drive(space, |_, _| true);
        assert_eq!(values(&o), [100.0, 200.0, 400.0, 500.0, 500.0]);
        assert_eq!((o.best, o.lowest_fail, o.confirmed), (Some(500.0), None, true));
        assert!(o.reason.contains("maximum 500 passes"), "{}", o.reason);
    }

    #[test]
    fn nothing_passing_ends_with_no_best_and_says_why() {
        // 256, 128, 64, 32, 16, 8, 4, 2, 1 all fail; 1 is the minimum.
        let o = drive(qd_space(), |_, _| false);
        assert_eq!(values(&o), [256.0, 128.0, 64.0, 32.0, 16.0, 8.0, 4.0, 2.0, 1.0]);
        assert_eq!((o.best, o.lowest_fail, o.confirmed), (None, Some(1.0), false));
        assert_eq!(o.reason, "even the minimum 1 fails");
    }

    #[test]
    fn a_failed_confirmation_continues_below_and_confirms_a_lower_value() {
        // As the qd search, but the first confirmation of 37 fails: 37 now counts as failing,
        // the highest pass below it is 36, adjacent, so 36 is confirmed instead.
        let mut flaked = false;
        let o = drive(qd_space(), |v, confirm| {
            if confirm && v == 37.0 && !flaked {
                flaked = true;
                return false;
            }
            v <= 37.0
        });
        assert_eq!(values(&o), [256.0, 128.0, 64.0, 32.0, 48.0, 40.0, 36.0, 38.0, 37.0, 37.0, 36.0]);
        assert_eq!(o.probes[9], (37.0, false, true));
        assert_eq!((o.best, o.lowest_fail, o.confirmed), (Some(36.0), Some(37.0), true));
        assert_no_repeats(&o);
    }

    #[test]
    fn a_failed_confirmation_with_nothing_below_ends_with_none() {
        // On 1..4 from 4: 4 F, 2 F, 1 P; 1 and 2 adjacent -> confirm 1, which fails: the lowest
        // failing value is the minimum.
        let space = SearchSpace { max: 4.0, start: 4.0, ..qd_space() };
        let o = drive(space, |v, confirm| v <= 1.0 && !confirm);
        assert_eq!(values(&o), [4.0, 2.0, 1.0, 1.0]);
        assert_eq!((o.best, o.lowest_fail), (None, Some(1.0)));
        assert_eq!(o.reason, "even the minimum 1 fails");
    }

    #[test]
    fn max_probes_stops_with_the_best_so_far() {
        // The qd search cut after 6 probes: 256 F, 128 F, 64 F, 32 P, 48 F, 40 F -> best 32.
        let o = drive(SearchSpace { max_probes: 6, ..qd_space() }, |v, _| v <= 37.0);
        assert_eq!(o.probes.len(), 6);
        assert_eq!((o.best, o.lowest_fail, o.confirmed), (Some(32.0), Some(40.0), false));
        assert!(o.reason.starts_with("max_probes reached (6 probes)"), "{}", o.reason);
    }

    #[test]
    fn recording_after_the_end_changes_nothing() {
        let mut s = HighestPassing::new(SearchSpace { max_probes: 1, ..qd_space() }).unwrap();
        s.record(256.0, false);
        s.record(128.0, true);
        s.record(f64::NAN, true);
        assert_eq!(s.probes(), &[(256.0, false, false)]);
        assert!(matches!(s.next(), Step::Done(SearchOutcome { best: None, .. })));
    }

    #[test]
    fn bad_spaces_are_refused_with_the_fix() {
        let bad = |s: SearchSpace| HighestPassing::new(s).unwrap_err();
        assert!(bad(SearchSpace { min: 0.0, ..qd_space() }).contains("above 0"));
        assert!(bad(SearchSpace { max: 0.5, ..qd_space() }).contains("below the minimum"));
        assert!(bad(SearchSpace { min: 1.2, max: 1.8, ..qd_space() }).contains("no whole number"));
        assert!(bad(SearchSpace { step_down: 1.0, ..qd_space() }).contains("between 0 and 1"));
        assert!(bad(SearchSpace { integer: false, rel_tol: 0.0, ..qd_space() }).contains("0.05"));
        assert!(bad(SearchSpace { max_probes: 0, ..qd_space() }).contains("at least 1"));
        assert!(bad(SearchSpace { start: f64::NAN, ..qd_space() }).contains("start"));
    }

    #[test]
    fn objectives_parse_in_the_usual_spellings() {
        let o = parse_objective(" p99 < 1ms , p99.9<=5 ms,mean<200us,MAX<20ms").unwrap();
        let expect = [
            Clause { stat: Stat::Percentile(99.0), limit_ns: 1_000_000, inclusive: false },
            Clause { stat: Stat::Percentile(99.9), limit_ns: 5_000_000, inclusive: true },
            Clause { stat: Stat::Mean, limit_ns: 200_000, inclusive: false },
            Clause { stat: Stat::Max, limit_ns: 20_000_000, inclusive: false },
        ];
        assert_eq!(o.clauses, expect);
        assert_eq!(o.to_string(), "p99<1ms,p99.9<=5ms,mean<200us,max<20ms");
        assert_eq!(parse_objective(&o.to_string()).unwrap(), o);
        // 1.5 ms prints as 1.5ms, 1234567 ns as 1234.567us; both read back exactly.
        let odd = parse_objective("p50<1.5ms,p90<1234567ns").unwrap();
        assert_eq!(odd.to_string(), "p50<1.5ms,p90<1234.567us");
        assert_eq!(parse_objective(&odd.to_string()).unwrap(), odd);
    }

    #[test]
    fn bad_objectives_name_the_clause_and_the_fix() {
        let err = |t: &str| parse_objective(t).unwrap_err();
        assert!(err("p99<1").contains("'p99<1'") && err("p99<1").contains("p99<1ms"), "{}", err("p99<1"));
        assert!(err("").contains("p99<1ms"));
        assert!(err("p99<1ms,").contains("empty criterion"));
        assert!(err("p99>1ms").contains("upper limits"));
        assert!(err("p99").contains("no limit"));
        assert!(err("q99<1ms").contains("unknown statistic 'q99'"));
        assert!(err("p101<1ms").contains("outside 0..100"));
        assert!(err("p0<1ms").contains("outside 0..100"));
        assert!(err("p99<1parsec").contains("unknown unit"));
        assert!(err("p99<0ms").contains("never be met"));
    }

    #[test]
    fn evaluation_reads_the_histogram() {
        // 1000 samples of 1, 2, ..., 1000 µs. p99 = the 990th = 990 µs (within the 0.39% bucket
        // error, so under 994 µs); p99.9 = the 999th = 999 µs (over 995 µs even after the error);
        // mean = 500.5 µs exactly; max = 1000 µs exactly.
        let mut h = Histogram::new();
        for us in 1..=1000u64 {
            h.record(us * 1000);
        }
        let e = parse_objective("p99<1ms,p99.9<995us,mean<500us,max<1ms,max<=1ms").unwrap().evaluate(&h);
        let passes: Vec<bool> = e.clauses.iter().map(|c| c.pass).collect();
        assert_eq!(passes, [true, false, false, false, true]);
        assert!(!e.pass);
        assert!((986_139..994_000).contains(&e.clauses[0].measured_ns), "{:?}", e.clauses[0]);
        assert_eq!((e.clauses[2].measured_ns, e.clauses[3].measured_ns), (500_500, 1_000_000));
        assert_eq!(e.clauses[1].label, "p99.9<995us");
        assert!(e.to_string().contains("p99.9 ") && e.to_string().contains("FAIL"), "{e}");
        let empty = parse_objective("p99<1s").unwrap().evaluate(&Histogram::new());
        assert!(!empty.pass && !empty.clauses[0].pass);
    }

    /// Latencies of 1000 requests at `rate` on a device with `capacity` IOPS: service times
    /// spread evenly over base..2*base, stretched by the queueing factor 1 / (1 - rate/capacity).
    /// At or beyond capacity the queue grows without bound: every request takes an hour.
    fn queue_model(rate: f64, capacity: f64, base_ns: f64) -> Histogram {
        let mut h = Histogram::new();
        let rho = rate / capacity;
        for i in 0..1000 {
            let service = base_ns * (1.0 + i as f64 / 1000.0);
            let latency = if rho < 1.0 { service / (1.0 - rho) } else { 3.6e12 };
            h.record(latency as u64);
        }
        h
    }

    #[test]
    fn rate_search_on_synthetic_histograms_finds_where_p99_crosses_the_limit() {
        // Capacity 100k IOPS, base 100 µs. p99 is the 990th sample (i = 989): 198.9 µs / (1 - rho).
        // It reaches 1 ms at 1 - rho = 0.1989, rate = 80110 IOPS. The histogram reports within
        // 1/256, which moves the crossing to between 100000 * (1 - 0.1989 * (1 + 1/256)) = 80032
        // and 100000 * (1 - 0.1989 * (1 - 1/256)) = 80188. p99.9 (199.8 µs / (1 - rho) < 5 ms up
        // to rho = 0.96) does not bind.
        let (capacity, base) = (100_000.0, 100_000.0);
        let objective = parse_objective("p99<1ms,p99.9<5ms").unwrap();
        let space = SearchSpace {
            min: 1.0,
            max: capacity,
            start: capacity,
            integer: false,
            rel_tol: 0.05,
            step_down: 0.5,
            max_probes: 20,
        };
        let o = drive(space, |rate, _| objective.evaluate(&queue_model(rate, capacity, base)).pass);
        let (best, fail) = (o.best.unwrap(), o.lowest_fail.unwrap());
        let crossing_lo = capacity * (1.0 - 0.1989 * (1.0 + 1.0 / 256.0));
        let crossing_hi = capacity * (1.0 - 0.1989 * (1.0 - 1.0 / 256.0));
        assert!(best < crossing_hi && fail >= crossing_lo, "best {best} fail {fail}");
        assert!(fail - best <= 0.05 * best && best >= crossing_lo / 1.05, "best {best} fail {fail}");
        assert!(o.confirmed, "{o:?}");
    }
}
