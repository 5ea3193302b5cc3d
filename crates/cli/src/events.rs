//! The printer of the lab's events: every command's lines come from here. Lines for people go to
//! stdout, or to stderr when stdout carries JSON (`--json -`); the live line and file-creation
//! progress go to stderr and only to a terminal.

use drivelab_engine::hist::Pct;
use drivelab_engine::units::{fmt_count, fmt_ns};
use drivelab_lab::act::THRESHOLDS_MS;
use drivelab_lab::act_run::ActRun;
use drivelab_lab::execute::Event;
use drivelab_lab::results::{PointResult, ProbeResult, ProbeRole};

use crate::progress;

/// What the printer shows of points.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// `drivelab run`: no point lines (the summary follows).
    Run,
    /// plans and suites: a line when a point starts and one with its figures when it ends.
    Points,
    /// qos and act: a line per probe.
    Search,
}

pub struct Printer {
    style: Style,
    quiet: bool,
    /// Human lines to stderr (stdout carries JSON).
    to_stderr: bool,
    live: Option<progress::Live>,
    filling: Option<progress::Filling>,
    probe: String,
}

impl Printer {
    pub fn new(style: Style, quiet: bool, to_stderr: bool) -> Printer {
        Printer { style, quiet, to_stderr, live: None, filling: None, probe: String::new() }
    }

    /// A line for people.
    pub fn say(&mut self, line: &str) {
        self.clear();
        if self.to_stderr {
            eprintln!("{line}");
        } else {
            crate::output::stdout_line(line);
        }
    }

    /// Remove the live lines before printing.
    fn clear(&mut self) {
        if let Some(l) = self.live.take() {
            l.finish();
        }
        if let Some(f) = self.filling.take() {
            f.finish();
        }
    }

    pub fn event(&mut self, e: Event) {
        match e {
            Event::ResultsDir(d) => self.say(&format!("results: {}", d.display())),
            Event::Notice(n) => {
                self.clear();
                eprintln!("drivelab: {n}");
            }
            Event::Fill { path, done_bytes, total_bytes } => {
                let show = !self.quiet;
                self.filling.get_or_insert_with(|| progress::Filling::new(path, total_bytes, show)).update(done_bytes)
            }
            Event::Precondition { target, pass, passes } => {
                self.say(&format!("preconditioning {target}: sequential 128 KiB write, pass {pass} of {passes}"))
            }
            Event::PointStart { point, total } => {
                if self.style == Style::Points {
                    self.say(&format!("[{}/{}] {} on {}", point.index, total, point.label, point.targets.join(" ")))
                }
            }
            Event::PointSkip { point } => {
                self.say(&format!("[{}] {}: done in an earlier run, skipped", point.index, point.label))
            }
            Event::Round { round, iops, window, verdict } => {
                let w = window
                    .map(|w| format!(" · window range {:.1}%, fit change {:.1}%", w.range_pct, w.fit_change_pct))
                    .unwrap_or_default();
                self.say(&format!("      round {round}: {} IOPS{w} · {verdict}", fmt_count(iops)))
            }
            Event::PointDone { record } => {
                if self.style == Style::Points {
                    let line = point_line(record);
                    self.say(&line)
                }
            }
            Event::ProbeStart { what, .. } => self.probe = what.to_string(),
            Event::ActRates { scale: _, rates } => {
                let line = format!(
                    "\n{}: {} reads/s of {} bytes, {:.2} large-block reads/s and {:.2} writes/s of {} KiB per target",
                    self.probe,
                    fmt_count(rates.read_iops),
                    rates.read_bytes,
                    rates.large_block_read_iops,
                    rates.large_block_write_iops,
                    rates.large_block_bytes >> 10
                );
                self.say(&line)
            }
            Event::ProbeDone { record } => {
                let text = match record.act() {
                    Some(run) => act_slices(record, run),
                    None => qos_line(record),
                };
                if let Some(t) = text {
                    self.say(&t)
                }
            }
            Event::Info(line) => self.say(line),
            Event::Progress(p) => {
                if let Some(f) = self.filling.take() {
                    f.finish();
                }
                let show = !self.quiet;
                self.live.get_or_insert_with(|| progress::Live::new(show)).update(p)
            }
            Event::MeasureEnd => self.clear(),
        }
    }

    /// Where the lab's events go while this printer prints them.
    pub fn sink(&mut self) -> impl FnMut(Event) + '_ {
        move |e: Event<'_>| self.event(e)
    }

    pub fn finish(mut self) {
        self.clear();
    }
}

/// "      12.3k IOPS  48.1 MB/s  p50 80µs  p99 1.2ms  cpu 14%  4.10 W".
fn point_line(r: &PointResult) -> String {
    let t = &r.result.total;
    let flag = if r.result.interrupted {
        "  INTERRUPTED"
    } else if r.result.stopped_by_error || !r.result.errors.is_empty() {
        "  I/O ERRORS"
    } else {
        ""
    };
    format!(
        "      {} IOPS  {:.1} MB/s  p50 {}  p99 {}  cpu {:.0}%{}{flag}",
        fmt_count(t.iops),
        t.bw_mb_per_s,
        fmt_ns(t.lat_ns.p(Pct::P50) as f64),
        fmt_ns(t.lat_ns.p(Pct::P99) as f64),
        r.result.cpu.usr_pct + r.result.cpu.sys_pct,
        r.power_w.map(|w| format!("  {w:.2} W")).unwrap_or_default(),
    )
}

/// "  probe      12.3k IOPS: PASS · achieved 12.3k IOPS · p99 310µs".
fn qos_line(p: &ProbeResult) -> Option<String> {
    let q = p.qos()?;
    if p.role == ProbeRole::Saturation {
        return None;
    }
    let measured: Vec<String> =
        q.evaluation.clauses.iter().map(|c| format!("{} {}", c.label, fmt_ns(c.measured_ns as f64))).collect();
    let verdict = if p.interrupted {
        "INTERRUPTED"
    } else if p.pass {
        "PASS"
    } else {
        "FAIL"
    };
    let role = if p.role == ProbeRole::Confirm { "confirm " } else { "probe   " };
    let load =
        if q.result.open_loop.is_some() { format!("{} IOPS", fmt_count(p.value)) } else { format!("qd {}", p.value) };
    Some(format!(
        "  {role}{load:>14}: {verdict} · achieved {} IOPS · {}{}",
        fmt_count(q.result.total.iops),
        measured.join(", "),
        // The clauses show a latency failure already; say why only when it was something else.
        if !p.pass && !p.interrupted && q.evaluation.pass && !p.why.is_empty() {
            format!(" · {}", p.why)
        } else {
            String::new()
        }
    ))
}

/// act_latency.py's table: per slice, the percent of reads over 1, 2, 4 ... 64 ms, then the
/// verdict.
fn act_slices(p: &ProbeResult, run: &ActRun) -> Option<String> {
    use std::fmt::Write;
    let mut s = String::new();
    let head: String = THRESHOLDS_MS.iter().map(|t| format!("{t:>7}")).collect();
    let _ = writeln!(s, "        reads %>(ms)");
    let _ = writeln!(s, "slice {head}      reads/s");
    for sl in &run.slices {
        let cells: String = sl.over_pct.iter().map(|p| format!("{p:>7.2}")).collect();
        let note = if sl.partial { "  (partial slice: the run was shorter than --slice)" } else { "" };
        let _ = writeln!(s, "{:>5} {cells} {:>12.1}{note}", sl.index, sl.rate_per_s);
    }
    let worst: String = run.verdict.worst.iter().map(|p| format!("{p:>7.2}")).collect();
    let _ = writeln!(s, "  max {worst}");
    if !p.pass && !p.why.is_empty() {
        for why in p.why.split("; ") {
            let _ = writeln!(s, "  FAIL {why}");
        }
    }
    let verdict = if p.interrupted {
        "INTERRUPTED (not judged)"
    } else if p.pass {
        "PASS"
    } else {
        "FAIL"
    };
    let _ = write!(s, "  {verdict}{}", p.power_w.map(|w| format!(" · {w:.2} W")).unwrap_or_default());
    Some(s)
}
