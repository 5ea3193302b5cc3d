//! The live lines on a terminal: file creation and the running workload. Nothing is drawn when
//! stderr is not a terminal (indicatif hides itself), so logs and pipes stay clean.

use std::time::Duration;

use drivelab_engine::run::Progress;
use drivelab_engine::spec::AccessSpec;
use drivelab_engine::units::{fmt_count, fmt_ns};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

fn bar(show: bool) -> ProgressBar {
    let target = if show { ProgressDrawTarget::stderr() } else { ProgressDrawTarget::hidden() };
    let pb = ProgressBar::with_draw_target(None, target);
    pb.set_style(ProgressStyle::with_template("{msg}").expect("static template"));
    pb
}

/// "creating f: 384 MiB of 1024 MiB".
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
        self.pb.set_message(format!(
            "creating {}: {} of {} MiB written with incompressible data",
            self.path,
            done >> 20,
            self.size >> 20
        ));
    }
    pub fn finish(self) {
        self.pb.finish_and_clear();
    }
}

/// "[ 3.2s / 10.0s] 245.3k IOPS  958.2 MiB/s  p99 210.0µs".
pub struct Live {
    pb: ProgressBar,
    total_s: Option<f64>,
}

impl Live {
    pub fn new(spec: &AccessSpec, show: bool) -> Live {
        let pb = bar(show);
        pb.enable_steady_tick(Duration::from_millis(500));
        Live { pb, total_s: spec.time_ns.map(|t| (t + spec.ramp_ns) as f64 / 1e9) }
    }
    pub fn update(&mut self, p: &Progress) {
        let el = p.elapsed_ns as f64 / 1e9;
        let when = match self.total_s {
            Some(t) => format!("[{el:5.1}s / {t:.1}s]"),
            None => format!("[{el:5.1}s]"),
        };
        let state = if p.ramping { " ramping" } else { "" };
        self.pb.set_message(format!(
            "{when}{state} {} IOPS  {:.1} MiB/s  p99 {}",
            fmt_count(p.iops),
            p.bw_bytes_per_s / 1048576.0,
            fmt_ns(p.p99_ns as f64)
        ));
    }
    pub fn finish(self) {
        self.pb.finish_and_clear();
    }
}
