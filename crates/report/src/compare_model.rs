//! A comparison of plans or suites as a [`Report`], so the one set of exporters writes it:
//! text, Markdown and CSV are the exporters' own (`export/`), as for `report`; compare keeps no
//! renderer of its own beside them. JSON stays the [`Comparison`] itself (scripts read its
//! `tables`, `runs` and `missing`), and the HTML page draws the same model's sections.
//!
//! The model, in order:
//!
//! - the title: which kind of results, the baseline and the others;
//! - notes: how to read a Δ row, how points were paired (by label), "every point is in every
//!   run" where none is missing;
//! - facts: each run's label (the baseline marked) and directory, then each run's settings as
//!   its own report gives them ("A: command line", "A: host"..., from [`settings_grid`]): the
//!   page's facts table and the JSON show them, text, Markdown and CSV (no facts) stay narrow;
//! - a section "Runs compared": a row per run and target with the device model
//!   ([`runs_grid`]), so the page and every format say what is compared before any number;
//! - a section per side-by-side table ([`TableBlock::Compared`]), titled by its heading;
//! - a section "Latency": each run's p50, p99, p99.9 and max per direction of every point, a
//!   row per point, run and direction ([`Comparison::latency`]), for the page's latency panel
//!   (over [`MAX_LATENCY_POINTS`] points, a note instead: the JSON has them all);
//! - a section "Points missing from a run (not compared)" where a run lacks a point, a row per
//!   point and pair (`point`, `is in`, `but not in`).

use drivelab_engine::hist::Pct;
use drivelab_engine::result::DirStats;

use drivelab_engine::result::RunResult;
use drivelab_lab::results::{Manifest, PointResult};

use crate::compare::{Comparison, SideBySide};
use crate::compare_runs::runs_grid;
use crate::model::{Cell, Column, Grid, Report, Section, TableBlock, Unit};
use crate::tables::point_name;

/// The title of the runs' settings section and grid.
pub const SETTINGS: &str = "Run settings";

/// Each run's settings as the run's own report states them (run and kind, start, tool, command
/// line, host, each target's device facts): a row per run and fact, so runs with other targets
/// or facts still line up.
pub fn settings_grid(runs: &[(&str, &Manifest)]) -> Grid {
    let columns = ["run", "setting", "value"].map(|c| Column::new(c, Unit::Count)).to_vec();
    let rows = runs
        .iter()
        .flat_map(|(label, m)| {
            crate::html::fact_rows(m)
                .into_iter()
                .map(move |(k, v)| vec![Cell::text(*label), Cell::text(k), Cell::text(v)])
        })
        .collect();
    Grid { title: SETTINGS.into(), columns, rows }
}

/// The settings grid as facts, "A: command line" = the value: the page's facts table shows
/// them; the text, Markdown and CSV forms, which show no facts, stay as wide as their tables.
pub fn settings_facts(settings: &Grid) -> Vec<(String, String)> {
    settings
        .rows
        .iter()
        .filter_map(|r| match r.as_slice() {
            [Cell::Text(run), Cell::Text(k), Cell::Text(v)] => Some((format!("{run}: {k}"), v.clone())),
            _ => None,
        })
        .collect()
}

/// The title of the latency section and grid.
pub const LATENCY: &str = "Latency";

/// The most points whose latency the report's own section lists (a suite of hundreds of
/// points, iometer's, would bury the tables under it); the JSON always has every point's.
pub const MAX_LATENCY_POINTS: usize = 24;

/// How many points (names) the latency grid has.
fn latency_points(g: &Grid) -> usize {
    let mut names: Vec<&Cell> = g.rows.iter().filter_map(|r| r.first()).collect();
    names.dedup();
    names.len()
}

/// The title of the section of points some run lacks.
pub const MISSING: &str = "Points missing from a run (not compared)";

/// The percentiles the latency grid shows, then max.
const PCTS: [Pct; 3] = [Pct::P50, Pct::P99, Pct::P99_9];

/// Each run's latency of every point of a plan, suite or run (named without target and repeat,
/// so the same point of two runs shares a name): [`latency_grid`].
pub fn points_latency(runs: &[(&str, &[PointResult])]) -> Grid {
    let named: Vec<(&str, Vec<(String, &RunResult)>)> =
        runs.iter().map(|(l, pts)| (*l, pts.iter().map(|p| (point_name(p), &p.result)).collect())).collect();
    latency_grid(&named)
}

/// Each run's latency of every measured thing it has: a row per name (the baseline's order,
/// then names only other runs have), run and direction that did I/O (read, write, trim; the
/// total where none did), with IOPS, p50, p99, p99.9 and max in ns (empty where the result has
/// no such percentile, as fio's default JSON for lat).
pub fn latency_grid(runs: &[(&str, Vec<(String, &RunResult)>)]) -> Grid {
    let mut columns = vec![
        Column::new("point", Unit::Count),
        Column::new("run", Unit::Count),
        Column::new("direction", Unit::Count),
        Column::new("IOPS", Unit::Iops),
    ];
    columns.extend(PCTS.iter().map(|q| Column::new(q.name(), Unit::Ns)));
    columns.push(Column::new("max", Unit::Ns));
    let mut names: Vec<String> = Vec::new();
    for (n, _) in runs.iter().flat_map(|r| &r.1) {
        if !names.contains(n) {
            names.push(n.clone());
        }
    }
    let mut rows = Vec::new();
    for name in &names {
        for (label, measured) in runs {
            for (_, res) in measured.iter().filter(|(n, _)| n == name) {
                let dirs: Vec<(&str, &DirStats)> =
                    [("read", Some(&res.read)), ("write", Some(&res.write)), ("trim", res.trim.as_deref())]
                        .into_iter()
                        .filter_map(|(n, d)| Some((n, d?)).filter(|(_, d)| d.ops > 0))
                        .collect();
                let dirs = if dirs.is_empty() { vec![("total", &res.total)] } else { dirs };
                for (dir, d) in dirs {
                    let mut row = vec![Cell::text(name), Cell::text(*label), Cell::text(dir), Cell::Num(d.iops)];
                    let lat = (d.ops > 0).then_some(&d.lat_ns);
                    row.extend(PCTS.iter().map(|q| Cell::num(lat.and_then(|l| l.get(*q)).map(|ns| ns as f64))));
                    row.push(Cell::num(lat.map(|l| l.max as f64)));
                    rows.push(row);
                }
            }
        }
    }
    Grid { title: LATENCY.into(), columns, rows }
}

impl Comparison {
    /// The comparison as a report model (see the module docs).
    pub fn report(&self) -> Report {
        let mut notes = vec![Self::DELTA_NOTE.to_string()];
        notes.extend(self.matching_note().map(str::to_string));
        if self.tables.is_empty() {
            notes.push("No table has points in any run.".into());
        }
        if self.missing.is_empty() {
            notes.push("Every point is in every run.".into());
        }
        let mut facts: Vec<(String, String)> = self
            .run_info
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let role = if i == 0 { format!("{} (baseline)", r.label) } else { r.label.clone() };
                (role, r.dir.clone())
            })
            .collect();
        facts.extend(settings_facts(&self.settings));
        let mut runs = Section::new(crate::compare_runs::RUNS_COMPARED);
        runs.tables.push(TableBlock::Grid(runs_grid(&self.run_info)));
        let mut sections = vec![runs];
        sections.extend(self.tables.iter().map(|t| Section {
            title: t.heading(),
            note: None,
            charts: Vec::new(),
            tables: vec![TableBlock::Compared(t.clone())],
        }));
        let points = latency_points(&self.latency);
        if points > MAX_LATENCY_POINTS {
            notes.push(format!(
                "Latency of {points} points per run: in --format json (latency) and the HTML page (-o), not here."
            ));
        } else if points > 0 {
            let mut s = Section::new(LATENCY);
            s.tables.push(TableBlock::Grid(self.latency.clone()));
            sections.push(s);
        }
        notes.extend(self.latency_split.one_sided.iter().cloned());
        sections.extend(self.latency_split.section());
        if !self.missing.is_empty() {
            let mut s = Section::new(MISSING);
            let columns = ["point", "is in", "but not in"].map(|c| Column::new(c, Unit::Count)).to_vec();
            let rows = self
                .missing
                .iter()
                .map(|m| {
                    vec![Cell::text(&m.point), Cell::text(&self.runs[m.present]), Cell::text(&self.runs[m.absent])]
                })
                .collect();
            s.tables.push(TableBlock::Grid(Grid { title: MISSING.into(), columns, rows }));
            sections.push(s);
        }
        Report { title: self.intro(), answer: Vec::new(), facts, warnings: Vec::new(), notes, sections }
    }
}

impl SideBySide {
    /// The table for the HTML page: a row per run and Δ row, errored cells shaded and marked
    /// as [`crate::html::table_html`] marks them, the note and the errored cells' footnote under it.
    pub fn html(&self) -> String {
        use crate::html::{errored_note_html, esc, value_td};
        let mut h = String::from("<table><thead><tr>");
        h += &format!("<th>{}</th>", esc(&self.axes()));
        for col in &self.cols {
            h += &format!("<th>{}</th>", esc(col));
        }
        h += "</tr></thead><tbody>";
        for (ri, r) in self.rows.iter().enumerate() {
            h += &format!("<tr><td>{}</td>", esc(&r.label));
            for (ci, v) in r.cells.iter().enumerate() {
                match v {
                    Some(x) => h += &value_td(&self.show(r.delta, *x), self.is_errored(ri, ci)),
                    None => h += "<td>—</td>",
                }
            }
            h += "</tr>";
        }
        h += "</tbody></table>";
        if let Some(n) = &self.note {
            h += &format!("<p class=\"note\">{}</p>", esc(n));
        }
        h + &errored_note_html(&self.errored)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::{compare, render};
    use crate::test_support::{manifest, point};
    use crate::Format;

    fn run(label: &str, mb: &[(&str, f64)]) -> crate::compare::Run {
        let points: Vec<_> =
            mb.iter().map(|&(qd, mb)| point(&format!("qd={qd}"), "", &[("qd", qd)], &[("/dev/x", mb)])).collect();
        crate::compare::Run {
            label: label.into(),
            dir: format!("results/{label}"),
            manifest: manifest("plan", &points),
            points,
        }
    }

    #[test]
    fn the_model_has_the_runs_each_table_the_latency_and_the_missing_points_in_order() {
        let mut runs = [run("A", &[("1", 1.0), ("2", 2.0)]), run("B", &[("1", 3.0)])];
        // fio's JSON may give no p50 of lat.
        runs[1].points[0].result.read.lat_ns.percentiles.remove("p50");
        let cmp = compare(&runs).unwrap();
        let r = cmp.report();
        let titles: Vec<&str> = r.sections.iter().map(|s| s.title.as_str()).collect();
        assert_eq!(titles[0], "Runs compared");
        assert_eq!(titles[titles.len() - 2..], [LATENCY, MISSING]);
        assert_eq!(titles.len(), 3 + cmp.tables.len(), "a section per table: {titles:?}");
        // Each run's settings, as its own report states them.
        let setting = |run: &str, k: &str| {
            cmp.settings.rows.iter().find(|r| r[0] == Cell::text(run) && r[1] == Cell::text(k)).map(|r| r[2].clone())
        };
        let tool =
            |r: &crate::compare::Run| Cell::text(format!("{} {}", r.manifest.tool.name, r.manifest.tool.version));
        assert_eq!(setting("B", "tool"), Some(tool(&runs[1])));
        assert!(setting("A", "run").is_some() && setting("B", "started").is_some(), "{:?}", cmp.settings);
        // The page's facts: each run's settings after the runs.
        let fact = r.facts.iter().find(|(k, _)| k == "B: tool").map(|(_, v)| Cell::text(v));
        assert_eq!(fact, Some(tool(&runs[1])));
        assert_eq!(r.facts[0], ("A (baseline)".to_string(), "results/A".to_string()));

        // Latency: qd=1 in A and B, then qd=2 in A only; reads only, so a read row each.
        let lat = &cmp.latency;
        let who: Vec<(&Cell, &Cell)> = lat.rows.iter().map(|r| (&r[0], &r[1])).collect();
        assert_eq!(
            who,
            [
                (&Cell::text("qd=1"), &Cell::text("A")),
                (&Cell::text("qd=1"), &Cell::text("B")),
                (&Cell::text("qd=2"), &Cell::text("A"))
            ]
        );
        let p99 = lat.columns.iter().position(|c| c.name == "p99").unwrap();
        assert_eq!(lat.rows[1][p99], Cell::Num(3000.0), "B's p99 at qd=1, in ns, as saved");
        assert_eq!(lat.rows[1][2], Cell::text("read"));
        assert_eq!(lat.rows[1][p99 - 1], Cell::Empty, "no p50 saved: empty, never 0");

        // Many points: a note says where their latency is, the tables stay on top.
        let many: Vec<(String, f64)> = (1..=MAX_LATENCY_POINTS + 1).map(|q| (q.to_string(), 1.0)).collect();
        let many: Vec<(&str, f64)> = many.iter().map(|(q, mb)| (q.as_str(), *mb)).collect();
        let big = compare(&[run("A", &many), run("B", &many)]).unwrap();
        assert_eq!(latency_points(&big.latency), MAX_LATENCY_POINTS + 1, "the JSON has every point");
        let r = big.report();
        assert!(!r.sections.iter().any(|s| s.title == LATENCY), "no section of {} points", MAX_LATENCY_POINTS + 1);
        assert!(r.notes.iter().any(|n| n.contains("--format json")), "{:?}", r.notes);

        // The text is the text exporter's: the title first, each table once, the missing point.
        let text = render(&runs, Format::Text).unwrap();
        assert!(text.starts_with("Comparing plan results: A (baseline) with B\n"), "{text}");
        assert!(text.contains("\npoint  is in  but not in\nqd=2   A      B\n"), "{text}");
        for t in &cmp.tables {
            assert_eq!(text.matches(&format!("{}\n", t.heading())).count(), 1, "{text}");
        }
    }
}
