//! The printer of the lab's events: every command's progress lines come from here. Lines for
//! people go to stdout, or to stderr when stdout carries JSON (`--json -`); the live line and
//! file-creation progress go to stderr and only to a terminal. Every line fits the screen it goes
//! to ([`crate::term`]).
//!
//! `-q` keeps what a script or a reader of the end needs and drops the telling of how it goes:
//! no live line, no `results:` line, no point, round, probe or slice lines. Warnings (notices) and
//! I/O errors are never dropped: they go to stderr, always, as they happen; each command prints
//! its answer (summary, closing line, tables, qos or act answer) itself, quiet or not.
//!
//! `drivelab fio` speaks fio's contract ([`Voice::Fio`]): nothing on stderr for a clean run but
//! the I/O errors fio would print too; the notices are in the saved results (and on stderr with
//! `--drivelab-notices`), the live line only on a terminal unless `--eta=never`.

use drivelab_engine::hist::Pct;
use drivelab_engine::result::RunResult;
use drivelab_engine::units::{fmt_count, fmt_ns};
use drivelab_lab::act::THRESHOLDS_MS;
use drivelab_lab::act_run::{ActRun, Timing};
use drivelab_lab::execute::{Event, WriteWhy};
use drivelab_lab::results::{PointResult, ProbeResult, ProbeRole, QosProbe};

use crate::progress;
use crate::term::{self, Stream};

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

/// Who hears how the run goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Voice {
    /// Every line.
    Normal,
    /// `-q`: no telling of how it goes; notices and errors still.
    Quiet,
    /// `drivelab fio`: what fio writes and nothing else — I/O errors (fio prints its own), the
    /// live line on a terminal (`live`: not `--eta=never`), notices only when `notices`
    /// (`--drivelab-notices`), and with `--status-interval` (`status`) fio's whole report of
    /// the run so far at every interval.
    Fio { notices: bool, live: bool, status: Option<FioStatus> },
}

/// fio's `--status-interval`: every how long, and in which of fio's formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FioStatus {
    pub every_ns: u64,
    pub formats: [Option<drivelab_report::fio_out::FioFormat>; 4],
}

impl Voice {
    /// `-q` or not.
    pub fn quiet_if(quiet: bool) -> Voice {
        if quiet {
            Voice::Quiet
        } else {
            Voice::Normal
        }
    }

    /// Lines that tell how the run goes (points, rounds, `results:`).
    fn tells(self) -> bool {
        self == Voice::Normal
    }

    /// The live lines on a terminal.
    fn live(self) -> bool {
        match self {
            Voice::Normal => true,
            Voice::Quiet => false,
            Voice::Fio { live, .. } => live,
        }
    }

    /// Notices on stderr as they are raised.
    fn notices(self) -> bool {
        match self {
            Voice::Normal | Voice::Quiet => true,
            Voice::Fio { notices, .. } => notices,
        }
    }

    /// fio's `--status-interval` in ns (0: none), for the lab.
    pub fn status_every_ns(self) -> u64 {
        match self {
            Voice::Fio { status: Some(s), .. } => s.every_ns,
            _ => 0,
        }
    }
}

pub struct Printer {
    style: Style,
    voice: Voice,
    /// Human lines to stderr (stdout carries JSON).
    to_stderr: bool,
    live: Option<progress::Live>,
    filling: Option<progress::Filling>,
    probe: String,
    /// The point running (plans and suites), for the notices it raises.
    point: Option<usize>,
    /// A plan's place and time left, on the live line.
    plan: Option<progress::PlanClock>,
    /// Every notice said, each once, with the points (or the number of times) it was raised.
    notices: Vec<Said>,
    /// fio's `--status-interval`: what a report of the run so far is made of.
    status: Option<StatusState>,
    /// A whole-target write in progress (a plan's fill, preconditioning): the live line shows
    /// its bytes and time left instead of a point's figures.
    writing: Option<progress::Writing>,
}

/// fio's `--status-interval`: the results directory (the points finished), the point running,
/// and the plan's points (those not started are reported with zeros, as fio lists its jobs).
#[derive(Default)]
struct StatusState {
    dir: Option<std::path::PathBuf>,
    point: Option<drivelab_lab::plan::Point>,
    all: Vec<drivelab_lab::plan::Point>,
}

/// A notice said once however often it was raised: a `--size` on a device is the same notice
/// for every point of a suite, and eight copies of it hide whatever else was said.
struct Said {
    text: String,
    points: Vec<usize>,
    times: usize,
}

impl Printer {
    pub fn new(style: Style, voice: Voice, to_stderr: bool) -> Printer {
        Printer {
            style,
            voice,
            to_stderr,
            live: None,
            filling: None,
            probe: String::new(),
            point: None,
            plan: None,
            notices: Vec::new(),
            status: matches!(voice, Voice::Fio { status: Some(_), .. }).then(StatusState::default),
            writing: None,
        }
    }

    /// The points a plan will run (index, configured time), for its live line's ETA.
    pub fn plan_points(&mut self, points: Vec<(usize, Option<u64>)>) {
        self.plan = Some(progress::PlanClock::new(points));
    }

    /// The plan's points, for fio's status reports (`--status-interval`).
    pub fn status_points(&mut self, points: &[drivelab_lab::plan::Point]) {
        if let Some(s) = self.status.as_mut() {
            s.all = points.to_vec();
        }
    }

    /// Where lines for people go.
    fn stream(&self) -> Stream {
        if self.to_stderr {
            Stream::Stderr
        } else {
            Stream::Stdout
        }
    }

    /// A line (or several) telling how the run goes; `-q` drops it.
    pub fn say(&mut self, text: &str) {
        if !self.voice.tells() {
            return;
        }
        self.clear();
        let text = term::wrap(text, term::width(self.stream()));
        match self.stream() {
            Stream::Stderr => crate::output::stderr_line(&text),
            Stream::Stdout => crate::output::stdout_line(&text),
        }
    }

    /// A warning or an error: on stderr, quiet or not; wrapped on a terminal (or to `$COLUMNS`),
    /// one line in a log.
    fn warn(&mut self, text: &str) {
        self.clear();
        let line = format!("drivelab: {text}");
        match term::warning_width() {
            Some(w) => crate::output::stderr_line(&term::wrap(&line, w)),
            None => crate::output::stderr_line(&line),
        }
    }

    /// A notice, the first time it is raised; later ones are counted, and [`Self::finish`] says
    /// which points it concerned.
    fn notice(&mut self, text: &str) {
        let point = self.point;
        if let Some(said) = self.notices.iter_mut().find(|s| s.text == text) {
            said.times += 1;
            said.points.extend(point.filter(|p| !said.points.contains(p)));
            return;
        }
        self.notices.push(Said { text: text.to_string(), points: point.into_iter().collect(), times: 1 });
        if self.voice.notices() {
            self.warn(text);
        }
    }

    /// Every I/O error of `r`, on stderr (`what`: which point or probe it was, if several run).
    fn errors(&mut self, what: &str, r: &RunResult) {
        for e in &r.errors {
            let times = if e.count == 1 { "once".to_string() } else { format!("{} times", e.count) };
            self.warn(&format!(
                "{what}I/O error on {} ({}): {}, {times}, the first at offset {}",
                e.target, e.op, e.error, e.first_offset_bytes
            ));
        }
        // Errors the job went on after (fio's ignore_error, fill_device's full file system):
        // shown, said not to be failures.
        for e in &r.continued_errors {
            let times = if e.count == 1 { "once".to_string() } else { format!("{} times", e.count) };
            self.warn(&format!(
                "{what}went on after {} on {} ({}), {times}, the first at offset {} (ignore_error or \
                 fill_device: not a failure)",
                e.error, e.target, e.op, e.first_offset_bytes
            ));
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
            Event::ResultsDir(d) => {
                // Every check passed: fio's opening lines, held until now, go out.
                crate::output::release_fio_opening();
                if let Some(s) = self.status.as_mut() {
                    s.dir = Some(d.to_path_buf());
                }
                self.say(&format!("results: {}", d.display()))
            }
            Event::Notice(n) => self.notice(n),
            Event::Fill { path, done_bytes, total_bytes } => {
                let show = self.voice.live();
                self.filling.get_or_insert_with(|| progress::Filling::new(path, total_bytes, show)).update(done_bytes)
            }
            Event::Writing { why, target, pass, passes, bytes, after_bytes } => {
                // A fill was announced by its notice (which devices, why, how to skip it).
                if why == WriteWhy::Precondition {
                    self.say(&format!("preconditioning {target}: sequential 128 KiB write, pass {pass} of {passes}"))
                }
                self.writing = Some(progress::Writing::new(why, target, bytes, after_bytes));
            }
            Event::PointStart { point, total } => {
                self.writing = None;
                self.point = Some(point.index);
                if let Some(s) = self.status.as_mut() {
                    s.point = Some(point.clone());
                }
                if let Some(c) = &mut self.plan {
                    c.start(point.index, std::time::Instant::now());
                }
                if self.style == Style::Points {
                    let width = term::width(self.stream());
                    self.say(&format!("[{}/{}] {}", point.index, total, point_on(point, width)))
                }
            }
            Event::PointSkip { point } => {
                if let Some(c) = &mut self.plan {
                    c.skip(point.index);
                }
                self.say(&format!("[{}] {}: done in an earlier run, skipped", point.index, point.label))
            }
            Event::Round { round, iops, window, verdict } => {
                let w = window
                    .map(|w| format!(" · range {:.1}% · slope {:.1}%", w.range_pct, w.fit_change_pct))
                    .unwrap_or_default();
                self.say(&format!("      round {round}: {} IOPS{w} · {verdict}", fmt_count(iops)))
            }
            Event::PointDone { record } => self.point_done(record),
            Event::ProbeStart { what, .. } => {
                self.writing = None;
                self.probe = what.to_string()
            }
            Event::ActRates { scale: _, rates } => {
                let line = format!(
                    "\n{}: per target {} reads/s of {} bytes, {:.2} large-block reads/s and {:.2} writes/s of {} KiB",
                    self.probe,
                    fmt_count(rates.read_iops),
                    rates.read_bytes,
                    rates.large_block_read_iops,
                    rates.large_block_write_iops,
                    rates.large_block_bytes >> 10
                );
                self.say(&line)
            }
            Event::ProbeDone { record } => self.probe_done(record),
            Event::Info(line) => self.say(line),
            Event::Progress(p) => {
                if let Some(f) = self.filling.take() {
                    f.finish();
                }
                if let Some(streams) = &p.status {
                    self.clear();
                    self.fio_status(streams);
                }
                let show = self.voice.live();
                let now = std::time::Instant::now();
                let live = self.live.get_or_insert_with(|| progress::Live::new(show));
                match &self.writing {
                    Some(w) => live.writing(w, p, self.plan.as_ref(), now),
                    None => live.update(p, self.plan.as_ref().map(|c| c.line(now, p.remaining_ns)).as_deref()),
                }
            }
            Event::MeasureEnd => self.clear(),
        }
    }

    /// fio's report of the run so far (`--status-interval`): the points finished (as saved)
    /// and the one running with each stream's result so far, in each of the formats asked.
    fn fio_status(&mut self, streams: &[RunResult]) {
        let (Some(StatusState { dir: Some(dir), point: Some(point), all }), Voice::Fio { status: Some(s), .. }) =
            (&self.status, self.voice)
        else {
            return;
        };
        let Ok(mut saved) = drivelab_lab::results::load(dir) else { return };
        let result = match streams {
            [one] => one.clone(),
            _ => drivelab_engine::merge::merge_results(streams),
        };
        let jobs = if streams.len() > 1 { streams.to_vec() } else { Vec::new() };
        saved.points.retain(|p| p.point.index < point.index);
        saved.points.push(PointResult::of(point.clone(), result, jobs));
        saved.points.extend(all.iter().filter(|p| p.index > point.index).cloned().map(PointResult::not_started));
        let mut text = String::new();
        for f in s.formats.into_iter().flatten() {
            if let Ok(t) = drivelab_report::fio_out::render(&saved, f) {
                text.push_str(&t);
            }
        }
        crate::output::fio_status_text(&text);
    }

    fn point_done(&mut self, record: &PointResult) {
        if let Some(c) = &mut self.plan {
            c.finish(std::time::Instant::now());
        }
        if self.style == Style::Points {
            self.say(&point_line(record));
            let what = format!("point {} ({}): ", record.point.index, record.point.label);
            self.errors(&what, &record.result);
        } else {
            self.errors("", &record.result);
        }
    }

    fn probe_done(&mut self, record: &ProbeResult) {
        let text = match (record.act(), record.qos()) {
            (Some(run), _) => Some(act_slices(record, run)),
            (None, Some(q)) => qos_line(record, q, self.stream()),
            (None, None) => None,
        };
        if let Some(t) = text {
            self.say(&t)
        }
        let what = format!("{}: ", self.probe);
        for r in record.results() {
            self.errors(&what, r);
        }
    }

    /// Where the lab's events go while this printer prints them.
    pub fn sink(&mut self) -> impl FnMut(Event) + '_ {
        move |e: Event<'_>| self.event(e)
    }

    pub fn finish(mut self) {
        self.clear();
        if !self.voice.notices() {
            return;
        }
        let repeated: Vec<String> = self.notices.iter().filter(|s| s.times > 1).map(said_once).collect();
        for line in repeated {
            self.warn(&line);
        }
    }
}

/// The line closing a notice raised more than once: which points it concerned (or how often it
/// was raised, outside a plan), naming it by its first words.
fn said_once(s: &Said) -> String {
    let start: Vec<&str> = s.text.split_whitespace().take(6).collect();
    let start = start.join(" ");
    let ellipsis = if start.len() < s.text.trim().len() { "…" } else { "" };
    let which = if s.points.len() > 1 {
        format!("it concerns points {}", point_ranges(&s.points))
    } else {
        format!("it was raised {} times", s.times)
    };
    format!("the notice \"{start}{ellipsis}\" above was said once; {which}")
}

/// `1-8, 10`: point numbers, consecutive ones as a range.
fn point_ranges(points: &[usize]) -> String {
    let mut sorted = points.to_vec();
    sorted.sort_unstable();
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i;
        while j + 1 < sorted.len() && sorted[j + 1] == sorted[j] + 1 {
            j += 1;
        }
        parts.push(if j > i { format!("{}-{}", sorted[i], sorted[j]) } else { sorted[i].to_string() });
        i = j + 1;
    }
    parts.join(", ")
}

/// "      12.3k IOPS  48.1 MB/s  p50 80.0µs  p99 1.20ms  cpu 14%  4.10 W".
fn point_line(r: &PointResult) -> String {
    let t = &r.result.total;
    let flag = if r.result.interrupted {
        "  INTERRUPTED"
    } else if r.result.mismatches() > 0 {
        "  WRONG DATA"
    } else if r.result.kinds.ended == Some(drivelab_engine::result::EndReason::RateMin) {
        "  MINIMUM RATE NOT MET"
    } else if r.result.errored() {
        "  I/O ERRORS"
    } else {
        ""
    };
    // With fsync, the write call's latency alone would make fsync look fastest: show the fsync's
    // p99 beside the write's (the report adds each write's time until durable).
    let lat = match &r.result.sync {
        Some(sync) => format!(
            "write p99 {}  fsync p99 {}",
            fmt_ns(t.lat_ns.p(Pct::P99) as f64),
            fmt_ns(sync.lat_ns.p(Pct::P99) as f64)
        ),
        None => format!("p50 {}  p99 {}", fmt_ns(t.lat_ns.p(Pct::P50) as f64), fmt_ns(t.lat_ns.p(Pct::P99) as f64)),
    };
    format!(
        "      {} IOPS  {}  {lat}  cpu {:.0}%{}{flag}",
        fmt_count(t.iops),
        progress::fmt_rate(t.bw_mb_per_s * 1e6),
        r.result.cpu.usr_pct + r.result.cpu.sys_pct,
        r.power_w.map(|w| format!("  {w:.2} W")).unwrap_or_default(),
    )
}

/// A qos probe in a line, what it carried beside what it asked, saying which way it went:
/// `  probe     12.3k IOPS  12.3k done  met    p99 310.0µs < 500µs, p99.9 1.20ms < 5.00ms`,
/// `  probe     50.0k IOPS  31.0k done  missed p99 191.37ms > 500µs`, or `not judged: ` and why (drivelab
/// fell behind its schedule, an I/O error, Ctrl-C). A failed probe's words are the lab's own
/// ([`ProbeResult::why`], which the report shows too); the closed-loop maximum has a line of its
/// own from the driver.
fn qos_line(p: &ProbeResult, q: &QosProbe, stream: Stream) -> Option<String> {
    if p.role == ProbeRole::Saturation {
        return None;
    }
    let role = if p.role == ProbeRole::Confirm { "confirm" } else { "probe" };
    let load =
        if q.result.open_loop.is_some() { format!("{} IOPS", fmt_count(p.value)) } else { format!("qd {}", p.value) };
    // What was carried beside what was asked: a rate's I/Os done, a queue depth's IOPS.
    let done = match &q.result.open_loop {
        Some(o) => format!("{} done", fmt_count(o.achieved_iops)),
        None => format!("{} IOPS", fmt_count(q.result.total.iops)),
    };
    let verdict = if p.interrupted {
        "not judged: interrupted".to_string()
    } else if p.pass {
        let met: Vec<String> = q.evaluation.clauses.iter().map(|c| c.compared()).collect();
        format!("met    {}", met.join(", "))
    } else {
        p.why.clone()
    };
    let power = p.power_w.map(|w| format!(" · {w:.2} W")).unwrap_or_default();
    let line = format!("  {role:<7} {load:>12} {done:>11}  {verdict}{power}");
    // Continued under the verdict, so the probes read as a table.
    Some(term::wrap_under(&line, term::width(stream), Some(VERDICT_COLUMN)))
}

/// Where a qos probe line's verdict starts: after `  probe   `, the load and what was done.
const VERDICT_COLUMN: usize = 36;

/// act_latency.py's table: per slice, the percent of reads over 1, 2, 4 ... 64 ms by ACT's
/// service time, then its verdict, and the worst slice and verdict by response time beside.
fn act_slices(p: &ProbeResult, run: &ActRun) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let head: String = THRESHOLDS_MS.iter().map(|t| format!("{t:>7}")).collect();
    let timing = match run.timing {
        Timing::Service => "service time, as ACT measures it",
        Timing::Response => "response time from intended issue times",
    };
    let _ = writeln!(s, "        reads %>(ms), {timing}");
    // Reads done beside reads scheduled: a slice that did not carry its schedule never passes.
    let _ = writeln!(s, "slice {head}    reads/s  scheduled");
    for sl in &run.slices {
        let cells: String = sl.over_pct.iter().map(|p| format!("{p:>7.2}")).collect();
        let scheduled = sl.delivery.map_or("—".to_string(), |d| fmt_count(d.scheduled_iops));
        let _ = writeln!(s, "{:>5} {cells} {:>10} {:>10}", sl.index, fmt_count(sl.rate_per_s), scheduled);
        if sl.partial {
            let _ = writeln!(s, "      (partial slice: the run was shorter than --slice)");
        }
    }
    let worst: String = run.verdict.worst.iter().map(|p| format!("{p:>7.2}")).collect();
    let _ = writeln!(s, "  max {worst}");
    if !p.pass {
        for why in run.fail_reasons() {
            let _ = writeln!(s, "  FAIL {why}");
        }
    }
    let verdict = |interrupted: bool, pass: bool| match (interrupted, pass) {
        (true, _) => "INTERRUPTED (not judged)",
        (false, true) => "PASS",
        (false, false) => "FAIL",
    };
    let power = p.power_w.map(|w| format!(" · {w:.2} W")).unwrap_or_default();
    let Some(r) = run.response.as_ref() else {
        let _ = write!(s, "  {}{power}", verdict(p.interrupted, p.pass));
        return s;
    };
    let _ = writeln!(s, "  ACT's verdict: {}{power}", verdict(p.interrupted, p.pass));
    let worst: String = r.verdict.worst.iter().map(|p| format!("{p:>7.2}")).collect();
    let _ = writeln!(s, "  max {worst}   by response time (from each read's intended issue time)");
    let why = if r.passed || p.interrupted { String::new() } else { format!(": {}", r.why) };
    let _ = write!(s, "  response-time verdict: {}{why}", verdict(p.interrupted, r.passed));
    s
}

/// A point and where it runs: `LABEL on TARGET...`, each target by its name where it has one;
/// a label that already ends in its one target's name gets the path in parentheses instead.
/// A path longer than half the line keeps its end (which names the file): a point line of a
/// 120-character path stays within 80 columns.
fn point_on(point: &drivelab_lab::plan::Point, width: usize) -> String {
    let label = &point.label;
    let fit = |t: &str| term::keep_end(t, (width / 2).max(16));
    if let [t] = point.targets.as_slice() {
        let name = point.shown(t);
        let on = format!(" on {name}");
        if name != t && (label.ends_with(&on) || label.contains(&format!("{on} #"))) {
            return format!("{label} ({})", fit(t));
        }
    }
    let shown: Vec<String> = point.targets.iter().map(|t| fit(point.shown(t))).collect();
    format!("{label} on {}", shown.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use drivelab_lab::act::{self, ActConfig, ActCriteria};

    #[test]
    fn a_point_line_names_its_drive_and_keeps_a_long_path_within_the_line() {
        let long = format!("/srv/{}/disk.img", "d".repeat(100));
        let mut plan = drivelab_lab::plan::Plan::single(Default::default(), vec![long.clone()]);
        let p = &mut plan.points[0];
        assert!(term::columns(&point_on(p, 80)) < 80, "{}", point_on(p, 80));
        assert!(point_on(p, 80).ends_with("/disk.img"));
        p.label = "read on SATA II".into();
        p.names = vec![drivelab_lab::names::DriveName { target: long.clone(), name: "SATA II".into() }];
        let line = point_on(p, 80);
        assert!(line.starts_with("read on SATA II (…") && line.ends_with("disk.img)"), "{line}");
    }
    use drivelab_lab::results::ProbeData;

    fn failed_load(why: &str, reasons: Vec<String>) -> ProbeResult {
        let c = ActCriteria::default();
        let run = ActRun {
            scale: 1.0,
            rates: ActConfig::default().derive(4096),
            timing: Timing::Service,
            seconds: Vec::new(),
            slices: Vec::new(),
            verdict: act::verdict(&[], &c),
            fell_behind: None,
            passed: false,
            why: why.into(),
            reasons,
            interrupted: false,
            response: None,
            own_lag_moved: None,
            streams: Vec::new(),
        };
        ProbeResult {
            schema: 1,
            index: 1,
            role: ProbeRole::Probe,
            value: 1.0,
            pass: false,
            why: why.into(),
            duration_ns: 0,
            interrupted: false,
            power_w: None,
            data: ProbeData::Act(Box::new(run)),
            ranks: Vec::new(),
        }
    }

    fn fail_lines(p: &ProbeResult) -> Vec<String> {
        let run = p.act().unwrap();
        act_slices(p, run).lines().filter(|l| l.starts_with("  FAIL ")).map(str::to_string).collect()
    }

    #[test]
    fn a_repeated_notice_is_said_once_naming_its_points() {
        assert_eq!(point_ranges(&[3, 1, 2, 5, 7, 8]), "1-3, 5, 7-8");
        let s =
            Said { text: "/dev/loop7 is a block device of 512 MiB; --size".into(), points: vec![1, 2, 3], times: 3 };
        assert_eq!(
            said_once(&s),
            "the notice \"/dev/loop7 is a block device of…\" above was said once; it concerns points 1-3"
        );
        let s = Said { text: "short one".into(), points: Vec::new(), times: 4 };
        assert_eq!(said_once(&s), "the notice \"short one\" above was said once; it was raised 4 times");
    }

    #[test]
    fn an_act_loads_reasons_are_printed_one_a_line_from_the_typed_list_not_split_on_text() {
        // A reason holding "; " (a target so named) is one reason: it was split in two.
        let one = "/srv/a; b.dat reads: Input/output error".to_string();
        let p = failed_load(&one, vec![one.clone()]);
        assert_eq!(fail_lines(&p), [format!("  FAIL {one}")]);
        let two = vec!["slice 1: 7.0% > 1 ms".to_string(), "slice 2: 9.0% > 1 ms".to_string()];
        let p = failed_load(&two.join("; "), two.clone());
        assert_eq!(fail_lines(&p), two.iter().map(|w| format!("  FAIL {w}")).collect::<Vec<_>>());
        // Saved before the list: its why, whole.
        let p = failed_load(&one, Vec::new());
        assert_eq!(fail_lines(&p), [format!("  FAIL {one}")]);
    }
}
