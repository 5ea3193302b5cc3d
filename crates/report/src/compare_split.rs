//! `compare`'s latency split (`--latency-split`): for each point both the baseline and another
//! run split, which stage changed — at p50 and p99, each stage's ns in both runs and the change
//! (ns and percent of the baseline's), under a title that names the stage that moved most
//! ("p99: device +41.0µs (+85%), the rest within 3.0µs"); for a point only some runs split,
//! a note saying which have it. Used by the comparisons of runs, searches and plans alike.
//!
//! What is compared is each run's split *at* the percentile (`latency_split.at`): the mean
//! stages of the I/Os at that lat, so a stage's change is what moved that percentile.

use drivelab_engine::result::{LatencySplitStats, RunResult};
use drivelab_engine::split::STAGES;
use drivelab_engine::units::fmt_ns;
use serde::Serialize;

use crate::model::{Cell, Column, Grid, Section, TableBlock, Unit};

/// The percentiles compared.
const AT: [&str; 2] = ["p50", "p99"];

/// The title of the section.
pub const TITLE: &str = "Where the latency went, compared";

/// The split of every point two runs share, compared.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SplitComparison {
    /// A table per point and run (against the baseline) where both have a split.
    pub compared: Vec<Grid>,
    /// Points some runs split and others did not, in a sentence each.
    pub one_sided: Vec<String>,
}

impl SplitComparison {
    pub fn is_empty(&self) -> bool {
        self.compared.is_empty() && self.one_sided.is_empty()
    }

    /// The section of the compared tables (None without any).
    pub fn section(&self) -> Option<Section> {
        if self.compared.is_empty() {
            return None;
        }
        let mut s = Section::new(TITLE);
        s.note = Some(
            "Each stage at p50 and p99 of lat (the mean of the I/Os at that latency) in the baseline and the \
             other run, and its change; each title names the stage that moved most."
                .into(),
        );
        s.tables = self.compared.iter().cloned().map(TableBlock::Grid).collect();
        Some(s)
    }
}

/// A signed latency: "+41.0µs", "-3.0µs", "0ns".
fn signed(ns: f64) -> String {
    if ns > 0.0 {
        format!("+{}", fmt_ns(ns))
    } else {
        fmt_ns(ns)
    }
}

/// Each stage's ns at `pct` (None where the split has no such percentile).
fn stages_at(s: &LatencySplitStats, pct: &str) -> Option<(f64, [f64; 5])> {
    let a = s.at.iter().find(|a| a.percentile == pct)?;
    Some((a.lat_ns as f64, a.stage_ns.to_array().map(|v| v as f64)))
}

/// Which stage moved most between `a` and `b` at one percentile, in words: "p99: device
/// +41.0µs (+85%), the rest within 3.0µs".
pub fn sentence(pct: &str, a: &[f64; 5], b: &[f64; 5]) -> String {
    let d: [f64; 5] = std::array::from_fn(|k| b[k] - a[k]);
    let most = (0..5).max_by(|&i, &j| d[i].abs().total_cmp(&d[j].abs()).then(j.cmp(&i))).unwrap_or(0);
    if d[most] == 0.0 {
        return format!("{pct}: no stage changed");
    }
    let rel = if a[most] > 0.0 { format!("{:+.0}%", d[most] / a[most] * 100.0) } else { "from 0".into() };
    let rest = (0..5).filter(|&k| k != most).map(|k| d[k].abs()).fold(0.0, f64::max);
    format!("{pct}: {} {} ({rel}), the rest within {}", STAGES[most], signed(d[most]), fmt_ns(rest))
}

/// The table of one point of `run` against the baseline: a row per percentile and stage (lat
/// first), both runs' ns and the change.
fn grid(point: &str, (base, a): (&str, &LatencySplitStats), (run, b): (&str, &LatencySplitStats)) -> Option<Grid> {
    let columns = vec![
        Column::new("at", Unit::Count),
        Column::new("stage", Unit::Count),
        Column::new(base, Unit::Ns),
        Column::new(run, Unit::Ns),
        Column::new("change", Unit::Ns),
        Column::new("change", Unit::DeltaPct),
    ];
    let mut rows = Vec::new();
    let mut said = Vec::new();
    for pct in AT {
        let (Some((lat_a, sa)), Some((lat_b, sb))) = (stages_at(a, pct), stages_at(b, pct)) else { continue };
        let names = std::iter::once("lat").chain(STAGES);
        let values = std::iter::once((lat_a, lat_b)).chain(sa.into_iter().zip(sb));
        for (stage, (x, y)) in names.zip(values) {
            let rel = crate::compare_figures::delta(Unit::Ns, Some(x), Some(y)).unwrap_or(Cell::Empty);
            let rel = match rel {
                Cell::Quantity { value, .. } => Cell::Num(value),
                other => other,
            };
            rows.push(vec![Cell::text(pct), Cell::text(stage), Cell::Num(x), Cell::Num(y), Cell::Num(y - x), rel]);
        }
        said.push(sentence(pct, &sa, &sb));
    }
    (!rows.is_empty()).then(|| Grid { title: format!("{run} vs {base}, {point}: {}", said.join("; ")), columns, rows })
}

/// Compare the splits of `runs` (label, each measured thing by name; the first run is the
/// baseline): each name of the baseline against the same name of every other run.
pub fn compare(runs: &[(&str, Vec<(String, &RunResult)>)]) -> SplitComparison {
    let mut out = SplitComparison::default();
    let Some((base, measured)) = runs.first() else { return out };
    let mut names: Vec<&String> = Vec::new();
    for (n, _) in runs.iter().flat_map(|r| &r.1) {
        if !names.contains(&n) {
            names.push(n);
        }
    }
    // Runs of one point each are compared whatever their points are called (a qd1 run beside a
    // qd32 run), as their headline figures are; otherwise point by point, by name.
    let single = runs.iter().all(|(_, m)| m.len() == 1);
    let split_of = |m: &[(String, &RunResult)], name: &str| -> Option<Option<LatencySplitStats>> {
        let found = if single { m.first() } else { m.iter().find(|(n, _)| n == name) };
        found.map(|(_, r)| r.latency_split.as_deref().cloned())
    };
    let names = if single { names[..1].to_vec() } else { names };
    for name in names {
        let a = split_of(measured, name);
        for (run, m) in &runs[1..] {
            let name = match m.first() {
                Some((other, _)) if single && other != name => format!("{name} → {other}"),
                _ => name.clone(),
            };
            let name = name.as_str();
            match (&a, split_of(m, name)) {
                (Some(Some(sa)), Some(Some(sb))) => out.compared.extend(grid(name, (base, sa), (run, &sb))),
                (Some(Some(_)), Some(None)) => out.one_sided.push(format!(
                    "latency split of {name}: only {base} has one ({run} ran without --latency-split), so where the latency went is not compared"
                )),
                (Some(None), Some(Some(_))) => out.one_sided.push(format!(
                    "latency split of {name}: only {run} has one ({base} ran without --latency-split), so where the latency went is not compared"
                )),
                _ => {}
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{point, results, split};

    const P50: [u64; 5] = [2_000, 5_000, 40_000, 3_000, 1_000];
    const P99: [u64; 5] = [3_000, 6_000, 48_000, 4_000, 2_000];

    fn run(p99: [u64; 5], with: bool) -> drivelab_lab::results::Results {
        let mut p = point("randread qd=1", "", &[], &[("/dev/x", 1.0)]);
        p.result.latency_split = with.then(|| Box::new(split(P50, p99, 0)));
        results("run", vec![p])
    }

    #[test]
    fn the_sentence_names_the_stage_that_moved_most_and_bounds_the_rest() {
        let a = P99.map(|v| v as f64);
        let mut b = a;
        b[2] += 41_000.0;
        b[0] += 3_000.0;
        b[4] -= 1_000.0;
        assert_eq!(sentence("p99", &a, &b), "p99: device +41.0µs (+85%), the rest within 3.0µs");
        // A stage that was 0 has no percentage to grow by.
        let mut c = a;
        c[3] = 0.0;
        let mut d = c;
        d[3] = 9_000.0;
        assert_eq!(sentence("p50", &c, &d), "p50: completion +9.0µs (from 0), the rest within 0ns");
    }

    #[test]
    fn compare_of_two_runs_says_which_stage_changed_and_when_only_one_has_a_split() {
        let mut slower = P99;
        slower[2] += 41_000;
        let report =
            crate::compare_figures::compare(&[("A".into(), run(P99, true)), ("B".into(), run(slower, true))]).unwrap();
        let s = report.sections.iter().find(|s| s.title == TITLE).expect("a split section");
        let TableBlock::Grid(g) = &s.tables[0] else { panic!("a grid") };
        assert!(g.title.contains("p99: device +41.0µs (+85%), the rest within 0ns"), "{}", g.title);
        assert!(g.title.starts_with("B vs A, randread qd=1: p50: "), "{}", g.title);
        let device99 = g.rows.iter().find(|r| r[0] == Cell::text("p99") && r[1] == Cell::text("device")).unwrap();
        assert_eq!(device99[2..5], [Cell::Num(48_000.0), Cell::Num(89_000.0), Cell::Num(41_000.0)]);
        let text = crate::export::export_text(crate::Format::Text, &report).unwrap();
        assert!(text.contains("device +41.0µs (+85%)"), "{text}");
        // Only B has one: said, nothing compared.
        let report =
            crate::compare_figures::compare(&[("A".into(), run(P99, false)), ("B".into(), run(P99, true))]).unwrap();
        assert!(report.sections.iter().all(|s| s.title != TITLE));
        assert!(report.notes.iter().any(|n| n.contains("only B has one")), "{:?}", report.notes);
        let text = crate::export::export_text(crate::Format::Text, &report).unwrap();
        assert!(text.contains("only B has one"), "{text}");
        // Neither: nothing said.
        let report =
            crate::compare_figures::compare(&[("A".into(), run(P99, false)), ("B".into(), run(P99, false))]).unwrap();
        assert!(report.notes.iter().all(|n| !n.contains("latency split")));
    }

    #[test]
    fn two_runs_of_other_workloads_are_compared_as_their_figures_are() {
        let mut b = run(P99, true);
        b.points[0].point.label = "randread qd=32".into();
        let mut slower = P50;
        slower[1] += 30_000;
        b.points[0].result.latency_split = Some(Box::new(split(slower, P99, 0)));
        let report = crate::compare_figures::compare(&[("A".into(), run(P99, true)), ("B".into(), b)]).unwrap();
        let s = report.sections.iter().find(|s| s.title == TITLE).expect("a split section");
        let TableBlock::Grid(g) = &s.tables[0] else { panic!("a grid") };
        assert!(
            g.title.starts_with("B vs A, randread qd=1 → randread qd=32: p50: kernel +30.0µs (+600%)"),
            "{}",
            g.title
        );
    }

    #[test]
    fn compare_of_plans_says_it_point_by_point() {
        let plan = |p99: [u64; 5]| {
            let mut p = point("randread qd=1", "", &[("qd", "1")], &[("/dev/x", 1.0)]);
            p.result.latency_split = Some(Box::new(split(P50, p99, 0)));
            crate::compare::Run {
                label: String::new(),
                dir: "d".into(),
                manifest: crate::test_support::manifest("plan", std::slice::from_ref(&p)),
                points: vec![p],
            }
        };
        let mut slower = P99;
        slower[1] += 20_000;
        let mut runs = vec![plan(P99), plan(slower)];
        runs[0].label = "A".into();
        runs[1].label = "B".into();
        let c = crate::compare::compare(&runs).unwrap();
        assert_eq!(c.latency_split.compared.len(), 1);
        let report = c.report();
        let s = report.sections.iter().find(|s| s.title == TITLE).expect("a split section");
        let TableBlock::Grid(g) = &s.tables[0] else { panic!("a grid") };
        assert!(g.title.contains("p99: kernel +20.0µs (+333%)"), "{}", g.title);
    }
}
