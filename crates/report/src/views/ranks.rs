//! Under MPI: the per-host breakdown of every point and probe whose result merges several ranks
//! — IOPS by rank as grouped bars (a group per point), each rank's own figures, the slowest host
//! called out, and what the start barrier cost. A merged figure that hides one struggling host
//! would mislead; this section is where it shows.

use drivelab_engine::merge::merge_results;
use drivelab_engine::result::RunResult;
use drivelab_engine::units::{fmt_count, fmt_latency, Style};
use drivelab_lab::ranks::{RankPart, StartSync};
use drivelab_lab::results::{PointResult, Results};

use crate::model::{Cell, ChartSpec, Column, Grid, Section, Unit};
use crate::tables::Table;

/// The section of a results directory of any kind, or None when no rank parts were saved.
pub fn section(r: &Results) -> Option<Section> {
    let mut runs = from_points(&r.points);
    runs.extend(r.probes.iter().filter(|p| !p.ranks.is_empty()).map(|p| {
        let merged: Vec<RunResult> = p.results().into_iter().cloned().collect();
        (format!("probe {} ({})", p.index, fmt_count(p.value)), p.ranks.as_slice(), merge_results(&merged))
    }));
    section_of(&runs)
}

/// The section of a plan's points (the plan page's).
pub fn section_for_points(points: &[PointResult]) -> Option<Section> {
    section_of(&from_points(points))
}

/// Each run with rank parts: its label, the parts, and the merged result (all streams).
type RankedRun<'a> = (String, &'a [RankPart], RunResult);

fn from_points(points: &[PointResult]) -> Vec<RankedRun<'_>> {
    points
        .iter()
        .filter(|p| !p.ranks.is_empty())
        .map(|p| (p.point.label.clone(), p.ranks.as_slice(), p.result.clone()))
        .collect()
}

/// One rank's figures of a run: its streams merged (a fio group's jobs, ACT's streams).
fn rank_total(p: &RankPart) -> RunResult {
    merge_results(&p.results)
}

/// A rank's flags for its row, from its results' typed fields (never from the wording of
/// `rank_flags`' notices): "CPU-bound" (`cpu.cpu_bound`), "fell behind" (an open loop that did
/// not keep up), a stream after another.
pub(crate) fn flag_words(p: &RankPart) -> Vec<&'static str> {
    let mut out = Vec::new();
    for r in &p.results {
        if r.cpu.cpu_bound {
            out.push("CPU-bound");
        }
        if r.open_loop.as_ref().is_some_and(|o| !o.kept_up) {
            out.push("fell behind");
        }
    }
    out
}

fn section_of(runs: &[RankedRun]) -> Option<Section> {
    let (_, first, _) = runs.first()?;
    let names: Vec<String> = first.iter().map(|p| format!("rank {} ({})", p.rank, p.host)).collect();
    let mut bars = Table {
        title: "IOPS by rank".into(),
        unit: "IOPS".into(),
        row_header: "rank".into(),
        col_header: "point".into(),
        cols: runs.iter().map(|(label, _, _)| label.clone()).collect(),
        rows: names.iter().map(|n| (n.clone(), Vec::new())).collect(),
        note: None,
        errored: Vec::new(),
        unsteady: Vec::new(),
    };
    let mut grid = Grid {
        title: "Each rank's part, and all ranks merged".into(),
        columns: vec![
            Column::new("point", Unit::Count),
            Column::new("rank", Unit::Count),
            Column::new("host", Unit::Count),
            Column::new("IOPS", Unit::Iops),
            Column::new("MB/s", Unit::MBps),
            Column::new("mean", Unit::Ns),
            Column::new("p99", Unit::Ns),
            Column::new("vs fastest", Unit::DeltaPct),
            Column::new("CPU of a core", Unit::Pct),
            Column::new("waited at start", Unit::Ns),
            Column::new("flags", Unit::Count),
        ],
        rows: Vec::new(),
    };
    // Each rank's IOPS summed over every run: the slowest host is the one with the least.
    let mut sums = vec![0.0; names.len()];
    let mut overheads = Vec::new();
    let mut skews = Vec::new();
    for (label, parts, merged) in runs {
        let totals: Vec<RunResult> = parts.iter().map(rank_total).collect();
        let fastest = totals.iter().map(|r| r.total.iops).fold(0.0, f64::max);
        for (k, (p, r)) in parts.iter().zip(&totals).enumerate() {
            if let Some(row) = bars.rows.get_mut(k) {
                row.1.push(Some(r.total.iops));
            }
            if let Some(s) = sums.get_mut(k) {
                *s += r.total.iops;
            }
            let flags = flag_words(p);
            grid.rows.push(vec![
                Cell::Text(label.clone()),
                Cell::Num(p.rank as f64),
                Cell::Text(p.host.clone()),
                Cell::Num(r.total.iops),
                Cell::Num(r.total.bw_mb_per_s),
                Cell::Num(r.total.lat_ns.mean),
                Cell::Num(r.total.lat_ns.p(drivelab_engine::hist::Pct::P99) as f64),
                if fastest > 0.0 { Cell::Num((r.total.iops / fastest - 1.0) * 100.0) } else { Cell::Empty },
                Cell::Num(r.cpu.usr_pct + r.cpu.sys_pct),
                Cell::Num(p.start.wait_ns() as f64),
                if flags.is_empty() { Cell::Empty } else { Cell::Text(flags.join(", ")) },
            ]);
        }
        // The merged result: every rank's I/Os, one histogram.
        grid.rows.push(vec![
            Cell::Text(label.clone()),
            Cell::Text("all".into()),
            Cell::Empty,
            Cell::Num(merged.total.iops),
            Cell::Num(merged.total.bw_mb_per_s),
            Cell::Num(merged.total.lat_ns.mean),
            Cell::Num(merged.total.lat_ns.p(drivelab_engine::hist::Pct::P99) as f64),
            Cell::Empty,
            Cell::Num(merged.cpu.usr_pct + merged.cpu.sys_pct),
            Cell::Empty,
            Cell::Empty,
        ]);
        let starts: Vec<StartSync> = parts.iter().map(|p| p.start).collect();
        overheads.push(StartSync::overhead_ns(&starts));
        skews.push(StartSync::skew_ns(&starts));
    }
    let slowest = (0..sums.len()).min_by(|&a, &b| sums[a].total_cmp(&sums[b]))?;
    let fastest = (0..sums.len()).max_by(|&a, &b| sums[a].total_cmp(&sums[b]))?;
    overheads.sort_unstable();
    let mut note = format!(
        "{} ranks. Slowest host: {}, {} IOPS over {} against {} for the fastest, {} ({:+.1}%).",
        names.len(),
        names[slowest],
        fmt_count(sums[slowest]),
        if runs.len() == 1 { "its run".to_string() } else { format!("all {} runs", runs.len()) },
        fmt_count(sums[fastest]),
        names[fastest],
        if sums[fastest] > 0.0 { (sums[slowest] / sums[fastest] - 1.0) * 100.0 } else { 0.0 }
    );
    note += &format!(
        " Start barrier: {} median from the last rank's arrival to the last release, ranks released within {} of \
         each other (worst run; on each host's clock).",
        fmt_latency(overheads[overheads.len() / 2] as f64, Style::Label),
        fmt_latency(skews.iter().copied().max().unwrap_or(0) as f64, Style::Label)
    );
    let mut s = Section::new("Ranks (MPI)");
    s.note = Some(note);
    s.charts.push(ChartSpec::Bars { table: bars.clone() });
    s.tables.push(crate::model::TableBlock::Table(bars));
    s.tables.push(grid.into());
    Some(s)
}
