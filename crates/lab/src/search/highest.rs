//! [`HighestPassing`], the search state machine: propose a value, be told whether it passed,
//! converge on the highest passing value and confirm it.

use drivelab_engine::units::fmt_trimmed;
use serde::{Deserialize, Serialize};

/// Where and how to search. See [`HighestPassing`].
/// What a searched value is: how a reason says it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// An I/O rate: "11.82 IOPS".
    #[default]
    Iops,
    /// A queue depth: "qd 4".
    Qd,
    /// ACT's load multiplier: "4x".
    Load,
}

impl Unit {
    /// `v` said with its unit, to two decimals at most.
    pub fn say(self, v: f64) -> String {
        let n = fmt_trimmed(v, 2);
        match self {
            Unit::Iops => format!("{n} IOPS"),
            Unit::Qd => format!("qd {n}"),
            Unit::Load => format!("{n}x"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchSpace {
    /// What a value is, to say it with its unit ("even the minimum 11.82 IOPS fails"); absent in
    /// results saved before it was kept.
    #[serde(default)]
    pub unit: Unit,
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
                Plan::Done(None, format!("even the minimum {} fails", self.space.unit.say(self.lo())))
            }
            (None, Some(fail)) => Plan::Probe(self.step_down_from(fail), false),
            (Some(pass), None) if pass >= self.hi() => {
                self.converge_at(pass, format!("even the maximum {} passes", self.space.unit.say(self.hi())))
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
            format!("converged: {} passes, {} fails", self.space.unit.say(pass), self.space.unit.say(fail))
        } else {
            format!(
                "converged within {}%: {} passes, {} fails",
                fmt_trimmed(self.space.rel_tol * 100.0, 2),
                self.space.unit.say(pass),
                self.space.unit.say(fail)
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
