//! The live lines on a terminal: file creation and the running workload. Nothing is drawn when
//! stderr is not a terminal (indicatif hides itself), so logs and pipes stay clean.

use std::time::Duration;

use drivelab_engine::run::Progress;
use drivelab_engine::units::{fmt_count, fmt_elapsed, fmt_ns};
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

/// "3.2s elapsed, 6.8s left · 245.3k IOPS · 958.2 MiB/s · p99 210.0µs".
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
        let el = fmt_elapsed(p.elapsed_ns);
        let when = match p.remaining_ns {
            Some(r) => format!("{el} elapsed, {} left", fmt_elapsed(r)),
            None => format!("{el} elapsed"),
        };
        if p.ramping {
            self.pb.set_message(format!("{when} · ramping (not measured)"));
            return;
        }
        let mib = p.bw_bytes_per_s / 1048576.0;
        let bw = if mib >= 10240.0 { format!("{:.1} GiB/s", mib / 1024.0) } else { format!("{mib:.1} MiB/s") };
        self.pb.set_message(format!("{when} · {} IOPS · {bw} · p99 {}", fmt_count(p.iops), fmt_ns(p.p99_ns as f64)));
    }
    pub fn finish(self) {
        self.pb.finish_and_clear();
    }
}
