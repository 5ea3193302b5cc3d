//! The report as data: facts, warnings and sections of tables and chart specs, every number in
//! a typed unit. Views (`views/`) build a [`Report`] from saved results; exporters (`export/`)
//! turn one into text, Markdown, CSV, JSON, HTML or PNG. Keeping the two apart means a chart is
//! described once (a [`ChartSpec`]) and drawn by the HTML and PNG exporters alike, and a number
//! is formatted by its [`Unit`], never by guessing from a string.

use drivelab_engine::hist::HistogramData;
use drivelab_engine::units::fmt_ns;
use drivelab_lab::results::Kind;
use serde::Serialize;

use crate::charts::{LineChart, Size};
use crate::grid;
use crate::tables::Table;

/// The unit of a number in a table or chart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// A count or a label-like number (probe index, slice).
    Count,
    Iops,
    /// Queue depth (I/Os in flight).
    Qd,
    /// ACT's load multiplier N.
    ActN,
    /// Latency in nanoseconds (shown as µs/ms).
    Ns,
    /// Percent: a delta of two is in percentage points.
    Pct,
    MBps,
    Watts,
    /// ACT's score per watt (N / W).
    NPerWatt,
    /// IOPS per watt.
    IopsPerWatt,
    Seconds,
    /// Latency in µs (comparisons, where a row's unit is written out).
    Us,
    /// A change in percent of the baseline: "+12.3%".
    DeltaPct,
    /// A change of a percentage, in percentage points: "+1.20 pp".
    DeltaPp,
}

impl Unit {
    /// The unit as a heading shows it ("" for plain counts).
    pub fn label(self) -> &'static str {
        match self {
            Unit::Count => "",
            Unit::Iops => "IOPS",
            Unit::Qd => "qd",
            Unit::ActN => "N",
            Unit::Ns => "",
            Unit::Pct => "%",
            Unit::MBps => "MB/s",
            Unit::Watts => "W",
            Unit::NPerWatt => "N/W",
            Unit::IopsPerWatt => "IOPS/W",
            Unit::Seconds => "s",
            Unit::Us => "µs",
            Unit::DeltaPct => "%",
            Unit::DeltaPp => "pp",
        }
    }

    /// Already a percentage: differences are percentage points, not relative changes.
    pub fn is_percent(self) -> bool {
        self == Unit::Pct
    }

    /// A value for people.
    pub fn fmt(self, v: f64) -> String {
        if !v.is_finite() {
            return "—".into();
        }
        match self {
            Unit::Ns => fmt_ns(v),
            Unit::Pct => format!("{v:.2}"),
            Unit::Iops => grid::human(v, "IOPS"),
            Unit::Count | Unit::Qd if v.fract() == 0.0 => format!("{v:.0}"),
            Unit::ActN if v.fract() == 0.0 => format!("{v:.0}"),
            Unit::Watts => format!("{v:.1}"),
            Unit::NPerWatt => format!("{v:.3}"),
            Unit::DeltaPct => format!("{v:+.1}"),
            Unit::DeltaPp => format!("{v:+.2}"),
            _ => grid::human(v, self.label()),
        }
    }
}

/// One cell of a [`Grid`]. In JSON: null, a string, a number or a boolean.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Cell {
    Empty,
    Text(String),
    Num(f64),
    /// A verdict: PASS or FAIL.
    Pass(bool),
    /// A number with its own unit, where a column mixes units (comparisons; a column next to
    /// it names the unit, deltas carry theirs: "+1.2%", "-0.50 pp").
    Quantity {
        value: f64,
        unit: Unit,
    },
}

impl Cell {
    pub fn num(v: Option<f64>) -> Cell {
        v.map_or(Cell::Empty, Cell::Num)
    }

    pub fn text(s: impl Into<String>) -> Cell {
        Cell::Text(s.into())
    }

    /// For people, in the column's unit.
    pub fn show(&self, unit: Unit) -> String {
        match self {
            Cell::Empty => "—".into(),
            Cell::Text(s) => s.clone(),
            Cell::Num(v) => unit.fmt(*v),
            Cell::Pass(true) => "PASS".into(),
            Cell::Pass(false) => "FAIL".into(),
            Cell::Quantity { value, unit: u } => match u {
                Unit::DeltaPct => format!("{}%", u.fmt(*value)),
                Unit::DeltaPp => format!("{} pp", u.fmt(*value)),
                _ => u.fmt(*value),
            },
        }
    }

    /// For machines (CSV): numbers at full precision, nothing for empty.
    pub fn raw(&self) -> String {
        match self {
            Cell::Empty => String::new(),
            Cell::Num(v) | Cell::Quantity { value: v, .. } => format!("{v}"),
            other => other.show(Unit::Count),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Column {
    pub name: String,
    pub unit: Unit,
}

impl Column {
    pub fn new(name: impl Into<String>, unit: Unit) -> Column {
        Column { name: name.into(), unit }
    }

    /// "p99 (µs)" style heading; latency columns say nothing (their cells carry the unit).
    pub fn heading(&self) -> String {
        match self.unit.label() {
            "" => self.name.clone(),
            u if self.name == u => self.name.clone(),
            u => format!("{} ({u})", self.name),
        }
    }
}

/// A table: columns with units, rows of cells.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Grid {
    pub title: String,
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<Cell>>,
}

impl Grid {
    /// The columns that hold words only (paths, names, reasons): read left to right, as the
    /// HTML page sets them.
    pub fn word_columns(&self) -> Vec<bool> {
        (0..self.columns.len())
            .map(|i| {
                let mut cells = self.rows.iter().filter_map(|r| r.get(i)).filter(|c| **c != Cell::Empty).peekable();
                cells.peek().is_some() && cells.all(|c| matches!(c, Cell::Text(_)))
            })
            .collect()
    }

    /// For a terminal: the title, then aligned columns (words left, numbers right).
    pub fn text(&self) -> String {
        grid::text_aligned(&self.title, &self.display(), &self.word_columns())
    }

    /// A GitHub Markdown table under the title in bold (words left, numbers right).
    pub fn markdown(&self) -> String {
        grid::markdown_aligned(&self.title, &self.display(), &self.word_columns())
    }

    /// Header row then rows, as people read them.
    pub fn display(&self) -> Vec<Vec<String>> {
        let mut g = vec![self.columns.iter().map(Column::heading).collect::<Vec<_>>()];
        for r in &self.rows {
            g.push(r.iter().zip(&self.columns).map(|(c, col)| c.show(col.unit)).collect());
        }
        g
    }
}

/// A chart described in data units; the HTML and PNG exporters draw it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "chart", rename_all = "snake_case")]
pub enum ChartSpec {
    Ladder(Ladder),
    SliceBars(SliceBars),
    /// Latency (ns) at each percentile, a line per series, on log axes.
    Percentiles {
        title: String,
        series: Vec<(String, Vec<(f64, f64)>)>,
    },
    /// Latency CDFs from saved histograms.
    Cdf {
        series: Vec<(String, HistogramData)>,
    },
    Line {
        line: LineChart,
        size: Size,
    },
    /// A dot per point and no line (a long run's IOPS of every second: its consistency).
    Scatter {
        line: LineChart,
        size: Size,
    },
    /// A plan or suite table, charted the way its suite's views say: value axes linear; `log`
    /// the second panel a report adds where the values span more than 20 times (log10 value
    /// axis, its title saying so).
    Table {
        kind: Kind,
        table: Table,
        #[serde(default)]
        log: bool,
        /// A panel drawn another way than the suite's own (`crate::views::plan::table_charts`:
        /// bsqd's IOPS lines per block size beside its heatmap, JBOD's bars per workload, the
        /// mixed curve's 70/30 bars per drive). None: the suite's style.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        style: Option<crate::suite_tables::ChartStyle>,
    },
    /// A table as grouped bars: a group per column, a bar per row (MPI ranks by point).
    Bars {
        table: Table,
    },
    /// The share of I/Os slower than each latency (1 − CDF), log on both axes, a line per
    /// saved histogram (per device, or per point where one device).
    Exceedance {
        title: String,
        series: Vec<(String, HistogramData)>,
    },
    /// IOPS against p99 latency for a sweep of load: a line per device, points in sweep order.
    Hockey(Hockey),
    /// `--latency-split`: a bar per percentile, stacked by stage (see `crate::views::split`).
    SplitBars(SplitBars),
    /// `--latency-split`: each stage's mean per second, stacked.
    SplitSeconds(SplitSeconds),
}

/// A point's latency split at p50, p99, p99.9: one bar each, its stages stacked in order
/// (tool at the bottom, reap on top), each stage in its own colour, named in the legend.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SplitBars {
    pub title: String,
    /// (percentile, each stage's ns in `drivelab_engine::split::STAGES` order; with `shares`,
    /// each stage's % of the percentile's lat).
    pub bars: Vec<(String, [f64; 5])>,
    /// The bars are shares (each 100% tall), not µs.
    #[serde(default)]
    pub shares: bool,
}

/// A point's latency split per second: each stage's mean ns over the second's cut I/Os,
/// stacked, so the top edge is the second's mean lat.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SplitSeconds {
    pub title: String,
    /// (seconds since measurement started, at the end of the second; each stage's mean ns).
    pub seconds: Vec<(f64, [f64; 5])>,
}

/// A load sweep's hockey stick: each line's points are `(IOPS, p99 ns)` in sweep order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Hockey {
    pub title: String,
    /// What one point of the sweep is: "queue depth", "rate", "jobs x qd".
    pub load: String,
    pub series: Vec<(String, Vec<(f64, f64)>)>,
    /// Each series' points' load (the queue depth, rate or jobs x qd), written beside each
    /// point so a reader sees where the knee is.
    #[serde(default)]
    pub loads: Vec<Vec<f64>>,
}

impl ChartSpec {
    /// The title the chart shows (for file names).
    pub fn title(&self) -> String {
        match self {
            ChartSpec::Ladder(l) => l.title.clone(),
            ChartSpec::SliceBars(s) => s.title.clone(),
            ChartSpec::Percentiles { title, .. } => title.clone(),
            ChartSpec::Cdf { .. } => "Latency CDF".into(),
            ChartSpec::Line { line, .. } | ChartSpec::Scatter { line, .. } => line.title.clone(),
            ChartSpec::Table { table, .. } | ChartSpec::Bars { table } => table.heading(),
            ChartSpec::Exceedance { title, .. } => title.clone(),
            ChartSpec::Hockey(h) => h.title.clone(),
            ChartSpec::SplitBars(b) => b.title.clone(),
            ChartSpec::SplitSeconds(s) => s.title.clone(),
        }
    }
}

/// A qos search's probes: offered load against each objective statistic, with its limit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Ladder {
    pub title: String,
    /// `Iops` (rate search, linear axis) or `Qd` (queue-depth search, powers of two).
    pub load_unit: Unit,
    pub clauses: Vec<LadderClause>,
}

/// One clause of the objective across the probes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LadderClause {
    /// The statistic, e.g. "p99".
    pub stat: String,
    pub limit_ns: f64,
    pub points: Vec<LadderPoint>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LadderPoint {
    pub probe: usize,
    pub load: f64,
    pub latency_ns: f64,
    /// The whole probe passed (every clause).
    pub pass: bool,
    /// The confirming run that set the answer.
    pub confirm: bool,
}

/// ACT's slices of one load: % of reads over each threshold, with the limits.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SliceBars {
    pub title: String,
    /// What a group is: a slice in time order, or a run in a comparison.
    pub x_label: String,
    pub thresholds_ms: Vec<u32>,
    /// (slice label, % over each threshold).
    pub slices: Vec<(String, Vec<f64>)>,
    /// (threshold ms, limit %): ACT's pass criteria.
    pub limits: Vec<(u32, f64)>,
}

/// A table of a section: a grid of typed cells (qos, act, run, compare), or a plan or suite
/// table (rows and columns keyed by targets and plan fields, one unit), which renders itself.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum TableBlock {
    Grid(Grid),
    Table(Table),
    /// A plan or suite table of several runs side by side, with Δ rows (`compare`).
    Compared(crate::compare::SideBySide),
    /// One run's summary: the terminal's compact table and lines, the documents' full table.
    Summary(Box<crate::views::summary::RunSummary>),
}

impl From<Grid> for TableBlock {
    fn from(g: Grid) -> TableBlock {
        TableBlock::Grid(g)
    }
}

/// A part of the report: a heading, an optional note, its charts and tables.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Section {
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub charts: Vec<ChartSpec>,
    pub tables: Vec<TableBlock>,
}

impl Section {
    pub fn new(title: impl Into<String>) -> Section {
        Section { title: title.into(), note: None, charts: Vec::new(), tables: Vec::new() }
    }
}

/// A whole report of one results directory.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    pub title: String,
    /// What the run answered (best load, verdict, score): shown first.
    pub answer: Vec<(String, String)>,
    /// Host, targets, tool, command line, what was asked.
    pub facts: Vec<(String, String)>,
    pub warnings: Vec<String>,
    /// What the results say about how they were made (each point's notices, once each, with the
    /// points they concern where not all): fio's results say where their figures came from.
    pub notes: Vec<String>,
    pub sections: Vec<Section>,
}

impl Report {
    /// Every chart, in order.
    pub fn charts(&self) -> impl Iterator<Item = &ChartSpec> {
        self.sections.iter().flat_map(|s| s.charts.iter())
    }
}
