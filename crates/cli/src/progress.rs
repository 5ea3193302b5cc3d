//! The live lines on a terminal: file creation and the running workload. Nothing is drawn when
//! stderr is not a terminal (indicatif hides itself), so logs and pipes stay clean. Each line is
//! cut to the terminal's width ([`term::fit`]): a live line that wraps scrolls instead of being
//! redrawn in place. A figure is shown only once there is one: the engine publishes a p99 when
//! a second closes, so during the first second (or a second in which nothing completed) the
//! line says nothing about p99 rather than `p99 0ns`. Rates are in MB/s (10^6 bytes), like every
//! other rate drivelab prints.

use std::time::Duration;

use drivelab_engine::run::Progress;
use drivelab_engine::units::{fmt_count, fmt_elapsed, fmt_ns};
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
        self.pb.set_message(term::fit(&line, width));
    }
    pub fn finish(self) {
        self.pb.finish_and_clear();
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
    pub fn update(&mut self, p: &Progress) {
        self.pb.set_message(term::fit(&live_line(p), term::width(Stream::Stderr)));
    }
    pub fn finish(self) {
        self.pb.finish_and_clear();
    }
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
    line
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
            ramping: false,
            stopped_by_error: false,
        }
    }

    #[test]
    fn the_live_line_shows_a_p99_only_once_there_is_one() {
        assert_eq!(live_line(&progress(0)), "0.5s elapsed, 1.5s left · 250.0k IOPS · 1024.0 MB/s");
        assert_eq!(live_line(&progress(63_100)), "0.5s elapsed, 1.5s left · 250.0k IOPS · 1024.0 MB/s · p99 63.1µs");
        assert_eq!(fmt_rate(12.5e9), "12.5 GB/s");
    }
}
