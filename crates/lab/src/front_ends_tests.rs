//! Every row of the option table, through every front end that takes it: a plan key (and so
//! `run`'s flag of the same name, which the CLI hands over as the same pair), a fio job-file
//! line, an argument of `drivelab fio`, and an entry of fio JSON's `job options`. Each must
//! give the same typed spec, or the same refusal naming the option as the reader wrote it.
//! This is what holds the front ends to the one table: a front end that read an option its own
//! way would fail here by the option's name.

use drivelab_engine::options::{self, Effect, OPTIONS};
use drivelab_engine::spec::AccessSpec;

use crate::fiojob::{self, Cap, Given};
use crate::results::fio_json::{doc::Options, options::workload};

/// A value fio and drivelab both take for an option, where `1` would not do (`-`: none, the
/// option given bare). Rows not listed are given `1`.
const VALUES: &[(&str, &str)] = &[
    ("rw", "randwrite"),
    ("readwrite", "randwrite"),
    ("rwmixread", "70"),
    ("rwmixwrite", "30"),
    ("rw_sequencer", "identical"),
    ("percentage_random", "50"),
    ("bs", "64k"),
    ("blocksize", "64k"),
    ("bsrange", "8k-8k"),
    ("blocksize_range", "8k-8k"),
    ("bssplit", "4k/50:64k/50"),
    ("blockalign", "8k"),
    ("ba", "8k"),
    ("iodepth", "8"),
    ("iodepth_batch", "4"),
    ("iodepth_batch_submit", "4"),
    ("io_size", "512k"),
    ("io_limit", "512k"),
    ("offset", "4k"),
    ("fileoffset", "4k"),
    ("runtime", "2"),
    ("timeout", "2"),
    ("ramp_time", "1"),
    ("startdelay", "0"),
    ("direct", "1"),
    ("buffered", "0"),
    ("ioengine", "psync"),
    ("randseed", "7"),
    ("random_distribution", "zipf:1.2"),
    ("thinktime", "100"),
    ("thinktime_spin", "50"),
    ("thinktime_blocks", "4"),
    ("thinktime_blocks_type", "issue"),
    ("cpus_allowed", "0"),
    ("continue_on_error", "all"),
    ("buffer_pattern", "0xdeadbeef"),
    ("verify_pattern", "0xdeadbeef"),
    ("flow", "8"),
    ("flow_id", "3"),
    ("flow_sleep", "100"),
    ("offset_increment", "64k"),
    ("number_ios", "100"),
    ("latency_target", "500"),
    ("latency_window", "2s"),
    ("latency_percentile", "99.9"),
    ("read_iolog", "-"),
    ("ignore_error", "EIO"),
    ("hipri", "-"),
    ("sqthread_poll", "-"),
    ("sqthread_poll_cpu", "0"),
];

fn value(name: &str) -> Option<&'static str> {
    match VALUES.iter().find(|(k, _)| *k == name).map(|(_, v)| *v) {
        Some("-") => None,
        Some(v) => Some(v),
        None => Some("1"),
    }
}

/// fio's options every job is given first: io_uring, a mixed workload at depth 8 over a region
/// of 1 MiB moved once, at most for a second.
const FIO_BASE: &[(&str, &str)] =
    &[("ioengine", "io_uring"), ("rw", "randrw"), ("iodepth", "8"), ("size", "1m"), ("runtime", "1")];
/// The same workload in drivelab's words, with fio's defaults that differ from drivelab's.
const OWN_BASE: &[(&str, &str)] = &[
    ("engine", "uring"),
    ("rw", "randrw"),
    ("qd", "8"),
    ("span", "1m"),
    ("io_size", "1m"),
    ("time", "1s"),
    ("buffered", "true"),
    ("random_map", "true"),
    ("fadvise", "1"),
];

/// The spec of a job file of one job: FIO_BASE, then `name=value`; or the refusal's words
/// after `FILE:LINE: ` (fio's spelling of the option, then why).
fn job_file(name: &str, value: Option<&str>, target: &str) -> Result<AccessSpec, String> {
    let mut text = String::from("[j]\n");
    for (k, v) in FIO_BASE {
        text += &if v.is_empty() { format!("{k}\n") } else { format!("{k}={v}\n") };
    }
    text += &match value {
        Some(v) => format!("{name}={v}\n"),
        None => format!("{name}\n"),
    };
    let targets = [target.to_string()];
    let given = Given { targets: &targets, vars: &[], cap: Cap::default(), aux: None };
    fiojob::parse(&text, "t.fio", "t", given)
        .map(|f| f.plan.points[0].spec.clone())
        .map_err(|e| e.to_string().split_once(": ").map_or(e.to_string(), |(_, m)| m.to_string()))
}

/// The spec of `drivelab fio --name=j BASE --NAME=VALUE --filename=T`, or the refusal's words
/// after `--NAME=VALUE: ` (or after the line of the job a combined refusal names).
fn fio_argv(name: &str, value: Option<&str>, target: &str) -> Result<AccessSpec, String> {
    let mut args = vec!["--name=j".to_string()];
    for (k, v) in FIO_BASE {
        args.push(if v.is_empty() { format!("--{k}") } else { format!("--{k}={v}") });
    }
    args.push(match value {
        Some(v) => format!("--{name}={v}"),
        None => format!("--{name}"),
    });
    args.push(format!("--filename={target}"));
    let split = fiojob::split_args(&args).map_err(|e| e.to_string())?;
    fiojob::from_args(&split).map(|f| f.plan.points[0].spec.clone()).map_err(|e| e.to_string())
}

/// fio JSON's job options: the spec the import makes, and what it could not take.
fn fio_json(name: &str, value: Option<&str>, target: &str) -> (AccessSpec, Vec<String>) {
    let mut job: Vec<(String, String)> = FIO_BASE.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    job.push((name.to_string(), value.unwrap_or("").to_string()));
    job.push(("filename".into(), target.into()));
    let w = workload(&Options(Vec::new()), &Options(job), "j", 0);
    (w.spec, w.untranslated)
}

/// A plan's `[defaults]` of OWN_BASE and `key = "value"`: its spec, or the refusal's words.
fn plan_key(key: &str, value: Option<&str>, target: &str) -> Result<AccessSpec, String> {
    let mut text = format!("targets = [\"{target}\"]\n[defaults]\n");
    // A plan refuses two keys for one field: the base's key for the option's field gives way.
    let field = options::by_key(key).and_then(|o| o.field());
    for (k, v) in OWN_BASE.iter().filter(|(k, _)| options::by_key(k).and_then(|o| o.field()) != field) {
        text += &format!("{k} = \"{v}\"\n");
    }
    text += &format!("{key} = \"{}\"\n", value.unwrap_or("true"));
    crate::plan::parse(&text, "p.toml", &[]).map(|p| p.points[0].spec.clone()).map_err(|e| e.to_string())
}

#[test]
fn every_option_gives_the_same_spec_or_refusal_through_every_front_end() {
    let dir = std::env::temp_dir().join(format!("drivelab-front-ends-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let target = dir.join("t.dat");
    std::fs::write(&target, vec![1u8; 1 << 20]).unwrap();
    let trace = dir.join("trace.log");
    std::fs::write(
        &trace,
        format!("fio version 2 iolog\n{0} add\n{0} open\n{0} read 0 4096\n{0} close\n", target.display()),
    )
    .unwrap();
    // opendir's sample: a directory of one file (its one job over its files is one file).
    let opendir = dir.join("od");
    std::fs::create_dir_all(&opendir).unwrap();
    std::fs::write(opendir.join("f"), b"x").unwrap();
    let target = target.to_str().unwrap();
    let mut wrong: Vec<String> = Vec::new();
    let mut checked = 0;
    for opt in OPTIONS.iter().filter(|o| !o.fio.is_empty()) {
        for &name in opt.fio {
            let sample = match name {
                "read_iolog" => Some(trace.to_str().unwrap()),
                "opendir" => Some(opendir.to_str().unwrap()),
                _ => value(name),
            };
            let job = job_file(name, sample, target);
            let argv = fio_argv(name, sample, target);
            let (json, untranslated) = fio_json(name, sample, target);
            checked += 1;
            match (&job, &argv) {
                (Ok(a), Ok(b)) if a != b => wrong.push(format!("{name}: job file and fio's argv give different specs")),
                (Ok(_), Err(e)) => wrong.push(format!("{name}: the job file takes it, fio's argv refuses it: {e}")),
                (Err(e), Ok(_)) => wrong.push(format!("{name}: fio's argv takes it, the job file refuses it: {e}")),
                (Err(a), Err(b)) if !b.contains(a.as_str()) => {
                    wrong.push(format!("{name}: refused differently:\n  job file: {a}\n  argv: {b}"))
                }
                _ => {}
            }
            // Which log files a job wrote is fio's output, not its workload: an imported result
            // keeps fio's logs as fio wrote them.
            let without_logs = |s: &AccessSpec| AccessSpec { io_log: None, ..s.clone() };
            match &job {
                Ok(spec) if json != without_logs(spec) || !untranslated.is_empty() => {
                    wrong.push(format!("{name}: fio JSON's import reads it otherwise: {untranslated:?}"))
                }
                // wait_for names another job of the file; the import reads one job of fio's result.
                Err(e) if name != "wait_for" && !untranslated.iter().any(|u| u.starts_with(&format!("{name}="))) => {
                    wrong.push(format!("{name}: refused by the job file ({e}) but taken by the import"))
                }
                _ => {}
            }
            match opt.effect {
                Effect::Refused(why) if !job.as_ref().is_err_and(|e| e.contains(why)) => {
                    wrong.push(format!("{name}: the table refuses it ({why}); the job file says {job:?}"))
                }
                Effect::NoEffect(_) | Effect::Checked(_)
                    if job.as_ref().is_ok_and(|s| Ok(s) != job_file("description", Some("x"), target).as_ref()) =>
                {
                    wrong.push(format!("{name}: the table says it has no effect, but the spec changed"))
                }
                _ => {}
            }
            // drivelab's own front ends take fio's spelling of an option that sets the spec.
            if opt.in_own() {
                let own = plan_key(name, sample, target);
                match (&job, &own) {
                    (Ok(a), Ok(b)) if a != b => wrong.push(format!(
                        "{name}: a plan key gives another spec than the job file:\n  job:  {a:?}\n  plan: {b:?}"
                    )),
                    (Ok(_), Err(e)) => wrong.push(format!("{name}: the job file takes it, a plan key refuses it: {e}")),
                    (Err(e), Ok(_)) => wrong.push(format!("{name}: a plan key takes it, the job file refuses it: {e}")),
                    _ => {}
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(checked > 300, "{checked} names checked");
    assert!(wrong.is_empty(), "{} of {checked} names disagree:\n{}", wrong.len(), wrong.join("\n"));
}
