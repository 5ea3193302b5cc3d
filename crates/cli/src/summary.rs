//! The human summary of a result: what ran, on what, and the numbers, in a few lines.

use std::fmt::Write;

use drivelab_engine::hist::{LatSummary, Pct};
use drivelab_engine::result::{DirStats, OpenLoopStats, RunResult};
use drivelab_engine::spec::Arrivals;
use drivelab_engine::target::TargetKind;
use drivelab_engine::units::{fmt_count, fmt_ns};

fn dir_line(out: &mut String, name: &str, d: &DirStats) {
    if d.ops == 0 {
        return;
    }
    let rates = [fmt_count(d.iops), format!("{:.1}", d.bw_mb_per_s), format!("{:.1}", d.bw_mib_per_s)];
    lat_row(out, name, d.ops, &rates, &d.lat_ns);
}

/// One row of the table: name, ops, three rate cells, then the latency columns.
fn lat_row(out: &mut String, name: &str, ops: u64, rates: &[String; 3], l: &LatSummary) {
    let _ = writeln!(
        out,
        "  {name:<6} {ops:>9} {:>9} {:>9} {:>9} │ {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}",
        rates[0],
        rates[1],
        rates[2],
        fmt_ns(l.min as f64),
        fmt_ns(l.mean),
        fmt_ns(l.p(Pct::P50) as f64),
        fmt_ns(l.p(Pct::P99) as f64),
        fmt_ns(l.p(Pct::P99_9) as f64),
        fmt_ns(l.max as f64),
    );
}

/// Response times and how the schedule held, for a fixed-rate run.
fn open_loop_lines(out: &mut String, o: &OpenLoopStats) {
    let l = &o.total_resp_lat_ns;
    let arrivals = match o.arrivals {
        Arrivals::Uniform => "uniform",
        Arrivals::Poisson => "poisson",
    };
    let _ = writeln!(
        out,
        "\n  fixed rate {} IOPS ({arrivals}), achieved {} IOPS; above: service time from submission",
        fmt_count(o.target_iops),
        fmt_count(o.achieved_iops)
    );
    let ops = l.histogram.buckets.iter().map(|b| b[1]).sum::<u64>();
    lat_row(out, "resp", ops, &Default::default(), l);
    let _ = writeln!(
        out,
        "  (resp: from each I/O's intended issue time; schedule lag p99 {}, max {}; {:.2}% of I/Os over {} late)",
        fmt_ns(o.lag_ns.p(Pct::P99) as f64),
        fmt_ns(o.lag_ns.max as f64),
        o.late_pct,
        fmt_ns(o.late_threshold_ns as f64)
    );
    if o.gave_up {
        let _ = writeln!(
            out,
            "  GAVE UP: the schedule fell {} behind (limit {}): the target could not carry this rate",
            fmt_ns(o.final_lag_ns as f64),
            fmt_ns(o.max_lag_ns.unwrap_or(0) as f64)
        );
    } else if !o.kept_up {
        let _ = writeln!(
            out,
            "  BEHIND: the schedule was {} behind at the end: the target could not keep up with this rate",
            fmt_ns(o.final_lag_ns as f64)
        );
    }
}

pub fn render(r: &RunResult) -> String {
    let mut out = String::new();
    let s = &r.spec;
    let mode = if s.direct { "O_DIRECT" } else { "buffered" };
    let ring = r
        .engine
        .ring
        .as_ref()
        .map(|f| {
            let mut parts = f.flags.clone();
            if f.fixed_file {
                parts.push("fixed file".into());
            }
            if f.fixed_buffers {
                parts.push("fixed buffers".into());
            }
            format!(" ({})", parts.join(", "))
        })
        .unwrap_or_default();
    let _ = writeln!(out, "drivelab {} · {} · {}{} · {}", r.tool.version, s.label(), r.engine.backend, ring, mode);
    for t in &r.targets {
        let kind = match t.kind {
            TargetKind::File => "file",
            TargetKind::Block => "block device",
            TargetKind::Null => "null",
        };
        let mut facts = vec![kind.to_string(), format!("{} bytes", t.size_bytes)];
        if let Some(m) = &t.model {
            facts.push(m.clone());
        }
        if let Some(rot) = t.rotational {
            facts.push(if rot { "rotational".into() } else { "non-rotational".into() });
        }
        facts.push(format!("lbs {}", t.logical_block_bytes));
        let _ = writeln!(out, "  target {}: {}", t.path, facts.join(", "));
    }
    let _ = writeln!(
        out,
        "  measured {:.2}s{}{}",
        r.runtime_ns as f64 / 1e9,
        if s.ramp_ns > 0 { format!(" after {:.1}s ramp", s.ramp_ns as f64 / 1e9) } else { String::new() },
        if r.interrupted { " — INTERRUPTED, partial result" } else { "" }
    );
    let _ = writeln!(
        out,
        "\n  {:<6} {:>9} {:>9} {:>9} {:>9} │ {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}",
        "", "ops", "IOPS", "MB/s", "MiB/s", "min", "mean", "p50", "p99", "p99.9", "max"
    );
    dir_line(&mut out, "read", &r.read);
    dir_line(&mut out, "write", &r.write);
    if r.read.ops > 0 && r.write.ops > 0 {
        dir_line(&mut out, "total", &r.total);
    }
    if let Some(sync) = &r.sync {
        dir_line(&mut out, "fsync", sync);
    }
    if let Some(o) = &r.open_loop {
        open_loop_lines(&mut out, o);
    }
    if r.per_target.len() > 1 {
        let _ = writeln!(out, "\n  per target:");
        for t in &r.per_target {
            let _ = writeln!(
                out,
                "  {:<24} {:>9} IOPS {:>9.1} MB/s  p99 {}",
                t.path,
                fmt_count(t.total.iops),
                t.total.bw_mb_per_s,
                fmt_ns(t.total.lat_ns.p(Pct::P99) as f64)
            );
        }
    }
    let c = &r.cpu;
    let _ = writeln!(
        out,
        "\n  cpu    usr {:.1}% sys {:.1}% of a core ({:.1}% of {} cores), {} per I/O; achieved qd {:.1} per job",
        c.usr_pct,
        c.sys_pct,
        c.machine_pct,
        c.cores,
        fmt_ns(c.ns_per_io),
        r.qd_mean
    );
    if c.cpu_bound {
        let _ = writeln!(
            out,
            "  CPU-bound: a job thread was running {:.0}% and waiting for a CPU {:.0}% of the time — the CPU, not the target, was the limit",
            c.busiest_job_pct,
            (c.runnable_pct - c.busiest_job_pct).max(0.0)
        );
    }
    for e in &r.errors {
        let _ = writeln!(
            out,
            "  ERROR  {} {}: {} × {} (first at offset {})",
            e.target, e.op, e.count, e.error, e.first_offset_bytes
        );
    }
    if r.stopped_by_error {
        let _ = writeln!(out, "  the run stopped at the first I/O error (use --continue-on-error to keep going)");
    }
    for n in &r.notices {
        let _ = writeln!(out, "  note: {n}");
    }
    out
}
