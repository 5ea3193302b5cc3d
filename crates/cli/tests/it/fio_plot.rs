//! fio-plot (1.1.21, the plotter of fio's JSON most people use) charts drivelab's fio-format
//! JSON: runs of a job file at queue depths 1 and 2, exported with `drivelab report DIR
//! --fio-format json` into one directory as bench-fio lays its output out (one JSON file per
//! run; fio-plot picks them by the "job options" rw, iodepth and numjobs), then `fio-plot -l`
//! (IOPS and latency per queue depth), `-H` (latency histogram) and `-C` (two runs compared)
//! each write a PNG.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{drivelab_in, stderr, stdout, Scratch};

fn fio_plot() -> Option<PathBuf> {
    ["/usr/local/bin/fio-plot", "/usr/bin/fio-plot"].iter().map(PathBuf::from).find(|p| p.is_file())
}

/// Run the job at `iodepth` with drivelab and export it in fio's JSON into `out`.
fn export(cwd: &Path, iodepth: u32, out: &Path) {
    let job = cwd.join(format!("qd{iodepth}.fio"));
    let text = format!(
        "[global]\nioengine=null\nrw=randread\nbs=4k\nsize=1g\nruntime=1\ntime_based\niodepth={iodepth}\nnumjobs=1\n[randread-{iodepth}]\n"
    );
    std::fs::write(&job, text).unwrap();
    let base = cwd.join(format!("res{iodepth}"));
    let o = drivelab_in(cwd, &["run", job.to_str().unwrap(), "--results", base.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let dir = std::fs::read_dir(&base).unwrap().flatten().next().unwrap().path();
    let o = drivelab_in(cwd, &["report", dir.to_str().unwrap(), "--fio-format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::create_dir_all(out).unwrap();
    // bench-fio's name for a run's output: <rw>-<iodepth>-<numjobs>.json.
    std::fs::write(out.join(format!("randread-{iodepth}-1.json")), stdout(&o)).unwrap();
}

fn pngs(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "png"))
        .collect();
    out.sort();
    out
}

#[test]
fn fio_plot_charts_drivelabs_fio_json() {
    if !crate::common::full_tier() {
        return;
    }
    let Some(exe) = fio_plot() else {
        common::skip("fio-plot is not installed (.ci/run installs it from PyPI)");
        return;
    };
    let s = Scratch::new("fioplot");
    let a = s.0.join("bench-a");
    let b = s.0.join("bench-b");
    for qd in [1, 2] {
        export(&s.0, qd, &a);
    }
    export(&s.0, 1, &b);
    let charts = s.0.join("charts");
    std::fs::create_dir_all(&charts).unwrap();
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    for args in [
        vec!["-i", a, "-T", "t", "-l", "-r", "randread", "-d", "1", "2", "-n", "1"],
        vec!["-i", a, "-T", "t", "-H", "-r", "randread", "-d", "1", "-n", "1"],
        vec!["-i", a, b, "-T", "t", "-C", "-r", "randread", "-d", "1", "-n", "1"],
    ] {
        let before = pngs(&charts).len();
        let o = Command::new(&exe).args(&args).current_dir(&charts).output().unwrap();
        assert!(
            o.status.success(),
            "fio-plot {args:?}: {}\n{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        let now = pngs(&charts);
        assert_eq!(now.len(), before + 1, "fio-plot {args:?} wrote one PNG: {now:?}");
        assert!(now.iter().all(|p| p.metadata().unwrap().len() > 1000), "{now:?}");
    }
}
