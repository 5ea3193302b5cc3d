//! The live lines on a terminal: file creation and the running workload. Nothing is drawn when
//! stderr is not a terminal (indicatif hides itself), so logs and pipes stay clean. Each line is
//! cut to the terminal's width ([`term::fit`]): a live line that wraps scrolls instead of being
//! redrawn in place. A figure is shown only once there is one: the engine publishes a p99 when
//! a second closes, so during the first second (or a second in which nothing completed) the
//! line says nothing about p99 rather than `p99 0ns`. Rates are in MB/s (10^6 bytes), like every
//! other rate drivelab prints.
//!
//! A plan or suite's live line starts with the whole run's place and time left ([`PlanClock`]:
//! "point 12/40, ETA 3m10s"): a 43-minute suite that shows only its current point leaves the
//! reader guessing. The ETA comes from the points' configured times (time + ramp), scaled by how
//! long the finished points really took against theirs (preparation, steady-state rounds and
//! pauses make a point longer than its time), so it corrects itself as the run goes.

use std::time::{Duration, Instant};

use drivelab_engine::measurement::summarize::CPU_STARVED_PCT;
use drivelab_engine::printable::printable;
use drivelab_engine::run::Progress;
use drivelab_engine::units::{fmt_count, fmt_elapsed, fmt_ns};
use drivelab_lab::execute::WriteWhy;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::term::{self, Stream};

fn bar(show: bool) -> ProgressBar {
    let target = if show { ProgressDrawTarget::stderr() } else { ProgressDrawTarget::hidden() };
    let pb = ProgressBar::with_draw_target(None, target);
    pb.set_style(ProgressStyle::with_template("{msg}").expect("static template"));
    pb
}

/// "creating f: 384 of 1024 MiB written with incompressible data".
pub struct Filling {
    pb: ProgressBar,
    path: String,
    size: u64,
}

impl Filling {
    pub fn new(path: &str, size: u64, show: bool) -> Filling {
        Filling { pb: bar(show), path: path.to_string(), size }
    }
    pub fn update(&mut self, done: u64) {
        let width = term::width(Stream::Stderr);
        let tail = format!(": {} of {} MiB written with incompressible data", done >> 20, self.size >> 20);
        // The path gives way first (its end names the file), then the line is cut.
        let room = width.saturating_sub(1 + "creating ".len() + term::columns(&tail));
        let line = format!("creating {}{tail}", term::keep_end(&self.path, room));
        self.pb.set_message(printable(&term::fit(&line, width)).into_owned());
    }
    pub fn finish(self) {
        self.pb.finish_and_clear();
    }
}

/// A whole-target write in progress (a plan's fill, ACT's prep, a preconditioning pass): what
/// its live line is made of.
pub struct Writing {
    why: WriteWhy,
    target: String,
    bytes: u64,
    after_bytes: u64,
}

impl Writing {
    pub fn new(why: WriteWhy, target: &str, bytes: u64, after_bytes: u64) -> Writing {
        Writing { why, target: target.to_string(), bytes, after_bytes }
    }

    /// The step's time left at `p` (this write's bytes left and the writes after it, at the
    /// mean rate of this write so far); None before a rate is known.
    pub fn left_ns(&self, p: &Progress) -> Option<u64> {
        if p.bytes == 0 || p.elapsed_ns == 0 {
            return None;
        }
        let rate = p.bytes as f64 / p.elapsed_ns as f64;
        let left = self.bytes.saturating_sub(p.bytes).saturating_add(self.after_bytes);
        Some((left as f64 / rate).round() as u64)
    }

    /// "filling /dev/loop3: 412 of 1024 MiB, 8.1s left · 2510.2 MB/s", led by the plan's
    /// "prep, ETA 1m12s" (the fill's time left plus the points') at `width`.
    pub fn line(&self, p: &Progress, plan: Option<&PlanClock>, now: Instant, width: usize) -> String {
        let left = self.left_ns(p);
        let lead = plan.map(|c| {
            let points = c.eta_ns(now, None);
            match (left, points) {
                (Some(l), Some(pts)) => format!("prep, ETA {} · ", fmt_elapsed(l.saturating_add(pts))),
                _ => "prep · ".to_string(),
            }
        });
        let verb = match self.why {
            WriteWhy::Fill => "filling",
            WriteWhy::Precondition => "preconditioning",
        };
        let left = left.map(|l| format!(", {} left", fmt_elapsed(l))).unwrap_or_default();
        let bytes = format!(": {} of {} MiB{left}", p.bytes.min(self.bytes) >> 20, self.bytes >> 20);
        let lead = lead.unwrap_or_default();
        let whole = format!("{lead}{verb} {}{bytes} · {}", self.target, fmt_rate(p.bw_bytes_per_s));
        if term::columns(&whole) < width {
            return whole;
        }
        // Too wide: the rate goes first, then the path gives way (its end names the device).
        let room = width.saturating_sub(1 + term::columns(&lead) + verb.len() + 1 + term::columns(&bytes));
        term::fit(&format!("{lead}{verb} {}{bytes}", term::keep_end(&self.target, room)), width)
    }
}

/// "3.2s elapsed, 6.8s left · 245.3k IOPS · 1004.7 MB/s · p99 210.0µs".
pub struct Live {
    pb: ProgressBar,
}

impl Live {
    pub fn new(show: bool) -> Live {
        let pb = bar(show);
        pb.enable_steady_tick(Duration::from_millis(500));
        Live { pb }
    }
    pub fn update(&mut self, p: &Progress, plan: Option<&str>) {
        self.pb.set_message(printable(&fitted_line(p, plan, term::width(Stream::Stderr))).into_owned());
    }
    /// The line of a whole-target write ([`Writing::line`]).
    pub fn writing(&mut self, w: &Writing, p: &Progress, plan: Option<&PlanClock>, now: Instant) {
        self.pb.set_message(printable(&w.line(p, plan, now, term::width(Stream::Stderr))).into_owned());
    }
    pub fn finish(self) {
        self.pb.finish_and_clear();
    }
}

/// The live line at `width`: as much of it as fits, the figures kept before the words about
/// time (a plan's line at 80 columns lost its p99 to "3.2s elapsed, 6.8s left"): the whole
/// line; then the point's time as what is left only; then without it; then without MB/s.
fn fitted_line(p: &Progress, plan: Option<&str>, width: usize) -> String {
    let with_plan = |rest: String| match plan {
        Some(at) => format!("{at} · {rest}"),
        None => rest,
    };
    let full = with_plan(live_line(p));
    if term::columns(&full) <= width || p.ramping {
        return term::fit(&full, width);
    }
    let p99 = if p.p99_ns > 0 { format!(" · p99 {}", fmt_ns(p.p99_ns as f64)) } else { Default::default() };
    let wait = waited(p);
    let (iops, mb) = (format!("{} IOPS", fmt_count(p.iops)), fmt_rate(p.bw_bytes_per_s));
    let left = p.remaining_ns.map(|r| format!("{} left · ", fmt_elapsed(r))).unwrap_or_default();
    let shorter = [
        with_plan(format!("{left}{iops} · {mb}{p99}{wait}")),
        with_plan(format!("{iops} · {mb}{p99}{wait}")),
        with_plan(format!("{iops}{p99}{wait}")),
        with_plan(format!("{iops}{wait}")),
    ];
    let line = shorter
        .into_iter()
        .find(|l| term::columns(l) <= width)
        .unwrap_or_else(|| with_plan(format!("{iops}{wait}{p99}")));
    term::fit(&line, width)
}

/// The live line's text: time, then (once measuring) the last interval's rates and, once a
/// second has closed with I/Os in it, that second's p99.
fn live_line(p: &Progress) -> String {
    let el = fmt_elapsed(p.elapsed_ns);
    let when = match p.remaining_ns {
        Some(r) => format!("{el} elapsed, {} left", fmt_elapsed(r)),
        None => format!("{el} elapsed"),
    };
    if p.ramping {
        return format!("{when} · ramping (not measured)");
    }
    let mut line = format!("{when} · {} IOPS · {}", fmt_count(p.iops), fmt_rate(p.bw_bytes_per_s));
    if p.p99_ns > 0 {
        line += &format!(" · p99 {}", fmt_ns(p.p99_ns as f64));
    }
    line + &waited(p)
}

/// " · busy: CPU wait 32%" while the job threads wait for a CPU as long as the result's
/// starvation warning counts ([`CPU_STARVED_PCT`]), over the last interval: the figures beside
/// it hold that wait. Kept in every width of the line.
fn waited(p: &Progress) -> String {
    match p.cpu_wait_pct {
        Some(w) if w >= CPU_STARVED_PCT => format!(" · busy: CPU wait {w:.0}%"),
        _ => String::new(),
    }
}

/// Where a plan is and how long the rest should take: each point's configured time, and the
/// measured durations of the points done. Instants are passed in, so a test controls the clock.
pub struct PlanClock {
    /// Each point still to finish: its index and configured time (None: it ends by its I/O
    /// size), in run order.
    left: Vec<(usize, Option<u64>)>,
    /// The points' total (including any done in an earlier run).
    total: usize,
    /// The point running and when it started.
    current: Option<(usize, Option<u64>, Instant)>,
    /// The finished points: configured time (if any) and how long each took.
    done: Vec<(Option<u64>, u64)>,
}

impl PlanClock {
    pub fn new(points: Vec<(usize, Option<u64>)>) -> PlanClock {
        PlanClock { total: points.len(), left: points, current: None, done: Vec::new() }
    }

    /// A point done in an earlier run (resume): nothing left of it.
    pub fn skip(&mut self, index: usize) {
        self.left.retain(|(i, _)| *i != index);
    }

    pub fn start(&mut self, index: usize, now: Instant) {
        let est = self.left.iter().find(|(i, _)| *i == index).and_then(|(_, e)| *e);
        self.left.retain(|(i, _)| *i != index);
        self.current = Some((index, est, now));
    }

    pub fn finish(&mut self, now: Instant) {
        if let Some((_, est, at)) = self.current.take() {
            self.done.push((est, now.saturating_duration_since(at).as_nanos() as u64));
        }
    }

    /// How long the finished points took for each configured nanosecond (1 before any).
    fn ratio(&self) -> f64 {
        let (est, took) = self
            .done
            .iter()
            .filter_map(|(e, took)| e.map(|e| (e, *took)))
            .fold((0u64, 0u64), |(a, b), (e, t)| (a.saturating_add(e), b.saturating_add(t)));
        if est == 0 {
            1.0
        } else {
            took as f64 / est as f64
        }
    }

    /// The mean duration of a finished point: the guess for one with no configured time.
    fn mean_took(&self) -> Option<f64> {
        (!self.done.is_empty()).then(|| self.done.iter().map(|(_, t)| *t as f64).sum::<f64>() / self.done.len() as f64)
    }

    /// The time left of the whole run at `now`; `point_left_ns`, the running point's measurement
    /// time left when the engine knows it. None when a point's time cannot be guessed yet.
    pub fn eta_ns(&self, now: Instant, point_left_ns: Option<u64>) -> Option<u64> {
        let ratio = self.ratio();
        let guess = |est: Option<u64>| est.map(|e| e as f64 * ratio).or_else(|| self.mean_took());
        let mut left = 0.0;
        if let Some((_, est, at)) = &self.current {
            let elapsed = now.saturating_duration_since(*at).as_nanos() as f64;
            let by_estimate = guess(*est).map(|g| (g - elapsed).max(0.0));
            left += match (point_left_ns, by_estimate) {
                (Some(l), Some(g)) => g.max(l as f64),
                (Some(l), None) => l as f64,
                (None, g) => g?,
            };
        }
        for (_, est) in &self.left {
            left += guess(*est)?;
        }
        Some(left.round() as u64)
    }

    /// "point 12/40, ETA 3m10s" (no ETA while it cannot be guessed).
    pub fn line(&self, now: Instant, point_left_ns: Option<u64>) -> String {
        let at = self.current.as_ref().map_or(0, |c| c.0);
        let mut s = format!("point {at}/{}", self.total);
        if let Some(eta) = self.eta_ns(now, point_left_ns) {
            s += &format!(", ETA {}", fmt_elapsed(eta));
        }
        s
    }
}

/// A rate in MB/s (10^6 bytes per second), or GB/s from 10 000 MB/s.
pub fn fmt_rate(bytes_per_s: f64) -> String {
    let mb = bytes_per_s / 1e6;
    if mb >= 10_000.0 {
        format!("{:.1} GB/s", mb / 1000.0)
    } else {
        format!("{mb:.1} MB/s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn progress(p99_ns: u64) -> Progress {
        Progress {
            elapsed_ns: 500_000_000,
            remaining_ns: Some(1_500_000_000),
            iops: 250_000.0,
            bw_bytes_per_s: 1.024e9,
            p99_ns,
            cpu_wait_pct: Some(3.0),
            ramping: false,
            stopped_by_error: false,
            ops: 0,
            bytes: 0,
            clat_sum_ns: 0,
            streams_done: 0,
            stream_jobs: Vec::new(),
            status: None,
        }
    }

    #[test]
    fn a_plans_eta_comes_from_the_points_times_then_from_how_long_they_took() {
        const S: u64 = 1_000_000_000;
        let t0 = Instant::now();
        let at = |s: f64| t0 + Duration::from_secs_f64(s);
        let mut c = PlanClock::new(vec![(1, Some(10 * S)), (2, Some(10 * S)), (3, Some(20 * S))]);
        c.start(1, at(0.0));
        // By the configured times: 10s of point 1 (4 already gone), then 10 + 20.
        assert_eq!(c.eta_ns(at(4.0), None), Some(36 * S));
        assert_eq!(c.line(at(4.0), None), format!("point 1/3, ETA {}", fmt_elapsed(36 * S)));
        // Point 1 took 15s for its 10 (preparation, say): the rest are guessed 1.5 times longer.
        c.finish(at(15.0));
        c.start(2, at(15.0));
        assert_eq!(c.eta_ns(at(15.0), None), Some(45 * S));
        // The engine's own time left of the running point counts when it says more.
        assert_eq!(c.eta_ns(at(29.0), Some(5 * S)), Some(35 * S));
        c.finish(at(30.0));
        c.start(3, at(30.0));
        assert_eq!(c.eta_ns(at(40.0), None), Some(20 * S));
    }

    #[test]
    fn a_point_without_a_time_is_guessed_from_the_points_done() {
        const S: u64 = 1_000_000_000;
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let mut c = PlanClock::new(vec![(1, None), (2, None), (3, Some(4 * S))]);
        c.skip(1);
        c.start(2, at(0));
        assert_eq!(c.line(at(1), None), "point 2/3", "no guess before a point is done");
        c.finish(at(6));
        c.start(3, at(6));
        assert_eq!(c.eta_ns(at(6), None), Some(4 * S));
    }

    #[test]
    fn a_plans_live_line_keeps_its_p99_at_80_columns() {
        let at = "point 12/40, ETA 3m10s";
        let p = progress(210_000);
        let full = fitted_line(&p, Some(at), 200);
        assert!(full.contains("elapsed") && full.contains("p99"), "{full}");
        let line = fitted_line(&p, Some(at), 80);
        assert!(term::columns(&line) <= 80 && line.contains("p99 210.0µs") && line.starts_with(at), "{line}");
        let narrow = fitted_line(&p, Some(at), 50);
        assert!(term::columns(&narrow) <= 50 && narrow.contains("IOPS"), "{narrow}");
    }

    #[test]
    fn the_live_line_says_when_the_job_threads_wait_for_a_cpu_at_every_width() {
        let mut p = progress(210_000);
        assert!(!live_line(&p).contains("CPU"), "3% is a quiet machine's");
        p.cpu_wait_pct = Some(CPU_STARVED_PCT);
        assert!(live_line(&p).ends_with("p99 210.0µs · busy: CPU wait 20%"), "{}", live_line(&p));
        p.cpu_wait_pct = Some(62.4);
        for width in [200, 80, 60] {
            let line = fitted_line(&p, Some("point 12/40, ETA 3m10s"), width);
            assert!(line.contains("busy: CPU wait 62%") && term::columns(&line) <= width, "{width}: {line}");
        }
    }

    #[test]
    fn the_live_line_shows_a_p99_only_once_there_is_one() {
        assert_eq!(live_line(&progress(0)), "0.5s elapsed, 1.5s left · 250.0k IOPS · 1024.0 MB/s");
        assert_eq!(live_line(&progress(63_100)), "0.5s elapsed, 1.5s left · 250.0k IOPS · 1024.0 MB/s · p99 63.1µs");
        assert_eq!(fmt_rate(12.5e9), "12.5 GB/s");
    }

    #[test]
    fn a_fill_before_the_points_shows_its_bytes_and_is_counted_in_the_plans_eta() {
        const S: u64 = 1_000_000_000;
        const MIB: u64 = 1 << 20;
        let now = Instant::now();
        let plan = PlanClock::new(vec![(1, Some(10 * S)), (2, Some(10 * S))]);
        // The first of two 1 GiB devices: 256 MiB written in 1 s, so 768 + 1024 MiB are left: 7 s.
        let w = Writing::new(WriteWhy::Fill, "/dev/loop3", 1024 * MIB, 1024 * MIB);
        let mut p = progress(0);
        p.elapsed_ns = S;
        p.bytes = 256 * MIB;
        p.bw_bytes_per_s = 268.4e6;
        p.remaining_ns = None;
        assert_eq!(w.left_ns(&p), Some(7 * S));
        assert_eq!(
            w.line(&p, Some(&plan), now, 100),
            "prep, ETA 27.0s · filling /dev/loop3: 256 of 1024 MiB, 7.0s left · 268.4 MB/s"
        );
        // No rate yet: no time said.
        p.bytes = 0;
        assert_eq!(w.line(&p, None, now, 100), "filling /dev/loop3: 0 of 1024 MiB · 268.4 MB/s");
        // Narrow: the path gives way first, keeping its end.
        p.bytes = 256 * MIB;
        let long =
            Writing::new(WriteWhy::Precondition, "/dev/disk/by-id/nvme-VENDOR_MODEL_SERIAL0123456789", 1024 * MIB, 0);
        let line = long.line(&p, None, now, 60);
        assert!(line.starts_with("preconditioning …") && line.ends_with("256 of 1024 MiB, 3.0s left"), "{line}");
    }
}
