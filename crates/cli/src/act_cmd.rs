//! `drivelab act`: Aerospike's ACT storage certification. Options become an ACT config
//! (`lab::act`), `lab::act_run` runs the load and judges it, and `--search` drives
//! `lab::search::HighestPassing` over whole N: start high, step down, refine, confirm at full
//! length. Every probe is printed as it finishes; everything is saved to `results/act-<stamp>/act.json`,
//! and `--act-log` writes the final load's log in ACT's own format.

use std::path::Path;
use std::sync::atomic::Ordering;

use drivelab_engine::spec::{AccessSpec, BlockSize, EngineKind};
use drivelab_engine::units::{fmt_count, parse_duration, parse_size};
use drivelab_engine::Error;
use drivelab_lab::act::{ActConfig, ActLogHeader, ActLogTarget, THRESHOLDS_MS};
use drivelab_lab::act_run::{self, ActOptions, ActRun};
use drivelab_lab::search::{HighestPassing, SearchSpace, Step};
use drivelab_lab::store;

use crate::args::ActArgs;
use crate::progress;
use crate::run_cmd::{stop_flag, Outcome};

#[derive(serde::Serialize)]
struct ProbeRecord {
    scale: f64,
    confirm: bool,
    passed: bool,
    duration_s: f64,
    run: ActRun,
}

#[derive(serde::Serialize)]
struct ActRecord {
    schema: u32,
    kind: &'static str,
    targets: Vec<String>,
    config: ActConfig,
    slice_secs: u32,
    read_qd: u32,
    large_block_qd: u32,
    dsync: bool,
    /// The highest passing N (with --search: the confirmed one).
    score: Option<f64>,
    reason: String,
    probes: Vec<ProbeRecord>,
}

fn dur_ns(flag: &str, v: &str) -> Result<u64, Error> {
    let d = parse_duration(v).map_err(|e| Error::invalid(format!("{flag} {e}")))?;
    if d.is_zero() {
        return Err(Error::invalid(format!("{flag} {v}: give a duration such as 10m")));
    }
    Ok(d.as_nanos() as u64)
}

fn options(args: &ActArgs) -> Result<ActOptions, Error> {
    let size = |flag: &str, v: &str| parse_size(v).map_err(|e| Error::invalid(format!("{flag} {e}")));
    let record = size("--record-bytes", &args.record_bytes)?;
    let large = size("--large-block", &args.large_block)?;
    let slice_ns = dur_ns("--slice", &args.slice)?;
    if slice_ns % 1_000_000_000 != 0 {
        return Err(Error::invalid(format!("--slice {}: slices are whole seconds, e.g. 1h or 60s", args.slice)));
    }
    let max_lag_ns = dur_ns("--max-lag", &args.max_lag)?;
    let scale = args.scale.unwrap_or(1.0);
    let config = ActConfig {
        scale,
        targets: args.targets.len() as u32,
        record_bytes: u32::try_from(record).map_err(|_| Error::invalid("--record-bytes: at most 4g"))?,
        large_block_op_bytes: u32::try_from(large).map_err(|_| Error::invalid("--large-block: at most 2g"))?,
        replication_factor: args.replication_factor,
        update_pct: args.update_pct,
        defrag_lwm_pct: args.defrag_lwm_pct,
        commit_to_device: args.commit_to_device,
        max_lag_secs: (max_lag_ns / 1_000_000_000).max(1) as u32,
        ..ActConfig::default()
    };
    config.validate().map_err(Error::invalid)?;
    if args.read_qd == 0 || args.large_block_qd == 0 {
        return Err(Error::invalid("--read-qd and --large-block-qd must be at least 1"));
    }
    Ok(ActOptions {
        config,
        time_ns: dur_ns("--time", &args.time)?,
        slice_secs: (slice_ns / 1_000_000_000) as u32,
        read_qd: args.read_qd,
        large_block_qd: args.large_block_qd,
        dsync: !args.no_dsync,
        max_lag_ns,
        engine: EngineKind::Uring,
        seed: 0xac7,
    })
}

pub fn run(args: &ActArgs) -> Result<Outcome, Error> {
    let mut opts = options(args)?;
    let probe_ns = dur_ns("--probe-time", &args.probe_time)?;
    let full_ns = opts.time_ns;
    let stop = stop_flag();
    let perm = args.safety.permission();
    let new_size = args.safety.new_file_size()?;
    if let Some(log) = &args.act_log {
        if Path::new(log).exists() {
            return Err(Error::invalid(format!("--act-log {log} exists: give a new file name (nothing was run)")));
        }
    }
    act_run::check(&args.targets, &opts, &perm, new_size)?;
    let dir = store::new_dir(Path::new(&args.results), "act", store::now_unix_ms() / 1000)?;

    if !args.no_prep {
        println!("act: filling {} with random data first (ACT's prep; --no-prep skips)", args.targets.join(" "));
        let mut display = progress::Live::new(!args.quiet);
        act_run::fill(&args.targets, &opts, &perm, new_size, &stop, &mut |p| display.update(p))?;
        display.finish();
        if stop.load(Ordering::SeqCst) {
            return Ok(Outcome::Interrupted);
        }
    }

    let mut probes = Vec::new();
    let (score, reason) = if args.search {
        let start = match args.search_start {
            Some(n) => n.max(1),
            None => estimate_start(args, &opts, &stop)?,
        };
        println!("act: searching the highest passing N from {start} down ({} per probe)", args.probe_time);
        let space = SearchSpace {
            min: 1.0,
            max: start as f64,
            start: start as f64,
            integer: true,
            rel_tol: 0.0,
            step_down: 0.5,
            max_probes: 40,
        };
        let mut search = HighestPassing::new(space).map_err(Error::invalid)?;
        let outcome = loop {
            match search.next() {
                Step::Done(o) => break o,
                Step::Probe { value, confirm } => {
                    let time = if confirm { full_ns } else { probe_ns };
                    let Some(passed) = one_load(args, &mut opts, value, time, confirm, &mut probes, &stop)? else {
                        save(&dir, args, &opts, None, "interrupted".into(), probes)?;
                        return Ok(Outcome::Interrupted);
                    };
                    search.record(value, passed);
                }
            }
        };
        (outcome.best, outcome.reason)
    } else {
        let n = opts.config.scale;
        let Some(passed) = one_load(args, &mut opts, n, full_ns, false, &mut probes, &stop)? else {
            save(&dir, args, &opts, None, "interrupted".into(), probes)?;
            return Ok(Outcome::Interrupted);
        };
        (passed.then_some(n), if passed { "passed".into() } else { "failed".into() })
    };
    match score {
        Some(n) => println!("act: PASS at {n}x on {} — {reason}", args.targets.join(" ")),
        None => println!("act: no passing load — {reason}"),
    }
    if let (Some(log), Some(last)) = (&args.act_log, probes.last()) {
        write_log(log, args, &opts, &last.run)?;
        println!("ACT log: {log} (analysis/act_latency.py -l {log})");
    }
    save(&dir, args, &opts, score, reason, probes)?;
    println!("results: {}", dir.display());
    Ok(Outcome::Done)
}

/// Run one load at scale `n` for `time_ns`, print its slices, keep it. None when interrupted.
fn one_load(
    args: &ActArgs,
    opts: &mut ActOptions,
    n: f64,
    time_ns: u64,
    confirm: bool,
    probes: &mut Vec<ProbeRecord>,
    stop: &std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> Result<Option<bool>, Error> {
    opts.config.scale = n;
    opts.time_ns = time_ns;
    let perm = args.safety.permission();
    let new_size = args.safety.new_file_size()?;
    let rates = opts.config.derive(act_run::min_op_bytes(&args.targets)?);
    println!(
        "\n{} {n}x for {:.0} s: {} reads/s of {} bytes, {:.2} large-block reads/s and {:.2} writes/s of {} KiB per target",
        if confirm { "confirming" } else { "load" },
        time_ns as f64 / 1e9,
        fmt_count(rates.read_iops),
        rates.read_bytes,
        rates.large_block_read_iops,
        rates.large_block_write_iops,
        rates.large_block_bytes >> 10
    );
    let mut display = progress::Live::new(!args.quiet);
    let run = act_run::run(&args.targets, opts, &perm, new_size, stop, &mut |p| display.update(p))?;
    display.finish();
    print_slices(&run);
    let passed = run.passed;
    let interrupted = run.interrupted;
    probes.push(ProbeRecord { scale: n, confirm, passed, duration_s: time_ns as f64 / 1e9, run });
    Ok((!interrupted).then_some(passed))
}

/// act_latency.py's table: per slice, the percent of reads over 1, 2, 4 ... 64 ms.
fn print_slices(run: &ActRun) {
    let head: String = THRESHOLDS_MS.iter().map(|t| format!("{t:>7}")).collect();
    println!("        reads %>(ms)");
    println!("slice {head}      reads/s");
    for s in &run.slices {
        let cells: String = s.over_pct.iter().map(|p| format!("{p:>7.2}")).collect();
        let note = if s.partial { "  (partial slice: the run was shorter than --slice)" } else { "" };
        println!("{:>5} {cells} {:>12.1}{note}", s.index, s.rate_per_s);
    }
    let worst: String = run.verdict.worst.iter().map(|p| format!("{p:>7.2}")).collect();
    println!("  max {worst}");
    for (_, why) in &run.verdict.failing_slices {
        println!("  FAIL {why}");
    }
    if let Some(why) = &run.fell_behind {
        println!("  FAIL {why}");
    }
    println!(
        "  {} (limits: under 5% over 1 ms, 1% over 8 ms, 0.1% over 64 ms in every slice)",
        if run.passed { "PASS" } else { "FAIL" }
    );
}

/// A short closed-loop read probe: N where the small reads alone would use the measured
/// throughput. The search starts there and steps down (large-block traffic and latency limits
/// only lower it).
fn estimate_start(
    args: &ActArgs,
    opts: &ActOptions,
    stop: &std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> Result<u32, Error> {
    let rates = opts.config.derive(act_run::min_op_bytes(&args.targets)?);
    let spec = AccessSpec {
        bs: vec![BlockSize { bytes: rates.read_bytes, pct: 100 }],
        qd: opts.read_qd,
        time_ns: Some(3_000_000_000),
        ..Default::default()
    };
    let perm = args.safety.permission();
    let prepared = drivelab_lab::prepare::prepare(
        &spec,
        &args.targets,
        args.safety.new_file_size()?,
        &perm,
        stop,
        &mut |_, _, _| {},
    )?;
    let r =
        drivelab_engine::run::run(&prepared.spec, &prepared.targets, prepared.spec.engine, stop.clone(), &mut |_| {})?;
    let per_target = r.total.iops / args.targets.len() as f64;
    let n = (per_target / drivelab_lab::act::READS_PER_N).floor().max(1.0) as u32;
    println!(
        "act: {} small reads/s per target at qd {} closed loop: start at {n}x",
        fmt_count(per_target),
        opts.read_qd
    );
    Ok(n)
}

fn write_log(path: &str, args: &ActArgs, opts: &ActOptions, run: &ActRun) -> Result<(), Error> {
    let infos = drivelab_lab::prepare::probe_all(&args.targets)?;
    let min_op = act_run::min_op_bytes(&args.targets)?;
    let header = ActLogHeader {
        drivelab_version: env!("CARGO_PKG_VERSION").into(),
        targets: infos
            .iter()
            .map(|i| ActLogTarget { name: i.path.clone(), size_bytes: i.size_bytes, min_op_bytes: min_op })
            .collect(),
        config: ActConfig { scale: run.scale, ..opts.config.clone() },
        rates: run.rates.clone(),
        service_threads: opts.read_qd,
        duration_secs: (opts.time_ns / 1_000_000_000).max(1),
        // ACT sets the scheduler; drivelab reports the one it found.
        scheduler: infos
            .iter()
            .find_map(|i| i.disk.as_deref().and_then(drivelab_lab::sysinfo::device).and_then(|d| d.scheduler))
            .unwrap_or_else(|| "none".into()),
    };
    let mut text = Vec::new();
    drivelab_lab::act::write_act_log(&mut text, &header, &run.seconds)
        .map_err(|e| Error::io(format!("writing the ACT log {path}"), e))?;
    store::write_new(Path::new(path), &text)
}

fn save(
    dir: &Path,
    args: &ActArgs,
    opts: &ActOptions,
    score: Option<f64>,
    reason: String,
    probes: Vec<ProbeRecord>,
) -> Result<(), Error> {
    let rec = ActRecord {
        schema: drivelab_engine::result::SCHEMA,
        kind: "act",
        targets: args.targets.clone(),
        config: opts.config.clone(),
        slice_secs: opts.slice_secs,
        read_qd: opts.read_qd,
        large_block_qd: opts.large_block_qd,
        dsync: opts.dsync,
        score,
        reason,
        probes,
    };
    store::write_json(&dir.join("act.json"), &rec)
}
