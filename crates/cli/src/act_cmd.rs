//! `drivelab act`: flags → an ACT setup ([`ActOptions`]) → the lab's certification driver
//! (`drivelab_lab::act_cert`), with every load's slice table as it finishes and the score at
//! the end.

use std::path::Path;

use drivelab_engine::units::{parse_duration, parse_size};
use drivelab_engine::Error;
use drivelab_lab::act::{ActConfig, ActCriteria};
use drivelab_lab::act_cert;
use drivelab_lab::act_run::ActOptions;
use drivelab_lab::execute::Lab;

use crate::args::ActArgs;
use crate::events::{Printer, Style, Voice};
use crate::run_cmd::{lab_setup, Outcome};
use crate::term::{self, Stream};

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
    let config = ActConfig {
        scale: args.scale.unwrap_or(1.0),
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
    let criteria = ActCriteria {
        over_1ms_pct: args.max_over_1ms,
        over_8ms_pct: args.max_over_8ms,
        over_64ms_pct: args.max_over_64ms,
    };
    criteria.validate().map_err(|e| Error::invalid(format!("--max-over-*: {e}")))?;
    let service_threads = args.service_threads.unwrap_or_else(drivelab_lab::act_run::default_service_threads);
    if service_threads == 0 || args.large_block_threads == 0 {
        return Err(Error::invalid("--service-threads and --large-block-threads must be at least 1"));
    }
    Ok(ActOptions {
        config,
        criteria,
        targets: args.targets.clone(),
        time_ns: dur_ns("--time", &args.time)?,
        slice_secs: (slice_ns / 1_000_000_000) as u32,
        service_threads,
        large_block_threads: args.large_block_threads,
        dsync: !args.no_dsync,
        max_lag_ns,
        pace: drivelab_engine::spec::PaceMode::from_name(&args.pace)
            .ok_or_else(|| Error::invalid(format!("--pace {}: use auto, hybrid, sleep or spin", args.pace)))?,
        engine: drivelab_engine::options::parse_engine(&args.engine)?,
        seed: 0xac7,
        prep: !args.no_prep,
        search: args.search,
        probe_time_ns: dur_ns("--probe-time", &args.probe_time)?,
        search_start: args.search_start,
        latency_split: args.latency_split,
    })
}

pub fn run(args: &ActArgs) -> Result<Outcome, Error> {
    let opts = options(args)?;
    if let Some(j) = &args.safety.journal {
        return Err(Error::invalid(format!(
            "--journal {j}: act's streams do not verify their data, so there is nothing to journal: journal a \
             verifying run, plan, suite or qos (--verify --journal FILE)"
        )));
    }
    if let Some(log) = &args.act_log {
        drivelab_lab::store::check_new_file("--act-log", log)?;
    }
    let setup = lab_setup(&args.safety, args.power_cmd.as_ref(), &opts.targets, false)?;
    let mut printer = Printer::new(Style::Search, Voice::quiet_if(args.quiet), false);
    let mut sink = printer.sink();
    let mut lab = Lab::new(setup, &mut sink);
    let log = args.act_log.as_deref().map(Path::new);
    let end = act_cert::run(&mut lab, Path::new(&args.results), crate::command_line(), &opts, log)?;
    drop(lab);
    drop(sink);
    printer.finish();
    let o = &end.outcome;
    let targets = args.targets.join(" ");
    let line = match o.best {
        _ if o.interrupted => "act: interrupted; no score".to_string(),
        _ if o.errored => format!("act: FAIL, an I/O error: {}", o.reason),
        Some(n) => format!(
            "act: PASS at {n}x on {targets} by ACT's measure (service time) — {}{}",
            o.reason,
            o.power_w.map(|w| format!(" · {w:.2} W, {:.3}x per W", n / w)).unwrap_or_default()
        ),
        None => format!("act: no passing load — {}", o.reason),
    };
    // The stricter score beside ACT's: judged by response time from each intended issue time.
    let mut lines = vec![line];
    if let Some(r) = o.response.as_ref().filter(|_| !o.interrupted && !o.errored) {
        let verdict = match r.best {
            Some(n) => format!("PASS at {n}x"),
            None => "no passing load".into(),
        };
        lines.push(format!("act: by response time (a late thread's wait counts): {verdict} — {}", r.reason));
    }
    let width = term::width(Stream::Stdout);
    let answer: Vec<String> = lines.iter().map(|l| term::wrap(l, width)).collect();
    crate::report_cmd::end_search(end.dir.path(), &answer.join("\n"), o)
}
