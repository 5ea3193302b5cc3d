//! The coverage table of fio's options (issue #27, item 5): docs/guide/fio-options.md has a row
//! for every job option of fio 3.33's HOWTO.rst (`.. option::` lines, aliases included), and
//! each row says what drivelab does with it. Here every row is held against the binary: a job
//! file of one job with that option is refused exactly when the row says `refused`.

use std::path::Path;

use crate::common::{drivelab_in, skip, stderr, Scratch};

/// A value fio takes for each option that needs one other than `1` (the value the row's claim
/// is checked with; `-` for an option given bare).
const VALUES: &[(&str, &str)] = &[
    ("rw", "randread"),
    ("readwrite", "randwrite"),
    ("rwmixread", "70\nrw=randrw"),
    ("sprandom", "1\nrw=randwrite"),
    ("write_mode", "zeroes\nioengine=io_uring_cmd\nrw=randwrite"),
    ("deac", "1\nioengine=io_uring_cmd"),
    ("readfua", "1\nioengine=io_uring_cmd"),
    ("writefua", "1\nioengine=io_uring_cmd"),
    ("spr_op", "0.2"),
    ("rwmixwrite", "30\nrw=randrw"),
    ("hipri", "1\nioengine=io_uring\ndirect=1"),
    ("atomic", "1\ndirect=1"),
    ("stat_type", "lstat\nioengine=filestat"),
    ("verify_only", "1\nverify=crc32c\nrw=write"),
    // Loading needs the state file of a writer (crates/cli/tests/it/fio_verify_state.rs).
    ("verify_state_load", "0"),
    ("unlink_each_loop", "0"),
    ("read_iolog", "trace.log"),
    ("opendir", "."),
    ("file_service_type", "random"),
    ("percentage_random", "50"),
    ("bs", "64k"),
    ("blocksize", "64k"),
    ("bsrange", "8k-8k"),
    ("blocksize_range", "8k-8k"),
    ("bssplit", "4k/50:64k/50"),
    ("cmdprio_percentage", "20\nioengine=io_uring"),
    ("cmdprio_bssplit", "4k/50\nioengine=io_uring"),
    ("prioclass", "2"),
    ("blockalign", "8k"),
    ("ba", "8k"),
    ("iodepth", "8"),
    ("iodepth_batch", "4"),
    ("iodepth_batch_submit", "4"),
    ("size", "2m"),
    ("filesize", "2m"),
    ("io_size", "512k"),
    ("io_limit", "512k"),
    ("offset", "4k"),
    ("runtime", "2"),
    ("timeout", "2"),
    ("ramp_time", "1"),
    ("loops", "2"),
    ("startdelay", "0"),
    ("buffered", "0"),
    ("ioengine", "io_uring"),
    ("cmd_type", "nvme"),
    ("rate", "1m"),
    ("rate_iops", "100"),
    ("rate_process", "poisson"),
    ("io_submit_mode", "offload"),
    ("sync", "dsync"),
    ("fsync", "4"),
    ("fdatasync", "4"),
    ("buffer_compress_percentage", "50"),
    ("buffer_compress_chunk", "4k"),
    ("random_distribution", "zipf:1.2"),
    ("randseed", "7"),
    ("thinktime", "100"),
    ("thinktime_spin", "50"),
    ("thinktime_blocks", "4"),
    ("thinktime_blocks_type", "issue"),
    ("sqthread_poll_cpu", "0"),
    ("cpus_allowed", "0"),
    ("verify", "crc32c"),
    ("continue_on_error", "all"),
    ("numjobs", "2"),
    ("filename", "other.dat"),
    ("directory", "/tmp"),
    ("name", "k"),
    ("kb_base", "1000"),
    ("unit_base", "8"),
    ("numa_cpu_nodes", "0"),
    ("numa_mem_policy", "local"),
    ("exit_what", "group"),
    ("zonemode", "none"),
    ("wait_for", "w"),
    ("zonesize", "64k"),
    ("zonerange", "128k"),
    ("zoneskip", "64k"),
    ("rw_sequencer", "identical"),
    ("buffer_pattern", "0xdeadbeef"),
    ("dedupe_mode", "working_set"),
    ("offset_increment", "4k"),
    ("write_lat_log", "cov"),
    ("write_bw_log", "cov"),
    ("write_iops_log", "cov"),
    ("write_hist_log", "cov"),
    ("log_avg_msec", "100"),
    ("log_compression", "0"),
    ("log_store_compressed", "0"),
    ("log_hist_msec", "100"),
    ("description", "words"),
    ("percentile_list", "99.0:99.9"),
    ("clocksource", "clock_gettime"),
    ("random_generator", "tausworthe64"),
    ("cpus_allowed_policy", "shared"),
    ("bwavgtime", "500"),
    ("iopsavgtime", "500"),
    ("steadystate", "iops:10%"),
    ("ss", "iops:10%"),
];

/// Every job file begins with this (a region, and a time so `time_based` is whole).
const BASE: &str = "[j]\nsize=1m\nruntime=1\n";

/// io_uring_cmd's options: run on the null target (no NVMe device here; io_uring_cmd refuses
/// every other target before its options are looked at).
const ON_NULL: &[&str] = &["write_mode", "deac", "readfua", "writefua"];

/// Options that name another job: the one-job file is preceded by that job.
const BEFORE: &[(&str, &str)] = &[("wait_for", "[w]\nsize=1m\nruntime=1\n")];

fn value(name: &str) -> &'static str {
    VALUES.iter().find(|(k, _)| *k == name).map_or("1", |(_, v)| *v)
}

/// The job options of HOWTO.rst: for each `.. option::` line not of the command line, its
/// names (first the option, then its aliases) and the engines it belongs to (none: every one).
fn howto_options(text: &str) -> Vec<(Vec<String>, Vec<String>)> {
    let mut out: Vec<(Vec<String>, Vec<String>)> = Vec::new();
    for line in text.lines() {
        let Some(spec) = line.strip_prefix(".. option:: ") else { continue };
        if spec.starts_with('-') {
            continue;
        }
        let (names, engines) = spec.split_once(" : ").unwrap_or((spec, ""));
        let names: Vec<String> = names
            .split(", ")
            .map(|n| n.split('=').next().unwrap().trim().to_string())
            .filter(|n| !n.is_empty())
            .collect();
        let engines: Vec<String> = engines
            .split(|c: char| c == '[' || c == ']' || c == ',' || c.is_whitespace())
            .filter(|e| !e.is_empty())
            .map(str::to_string)
            .collect();
        match out.iter_mut().find(|(n, _)| n[0] == names[0]) {
            Some((_, e)) => e.extend(engines),
            None => out.push((names, engines)),
        }
    }
    out
}

/// The table's rows: (names in the first cell, status).
fn table_rows(text: &str) -> Vec<(Vec<String>, String)> {
    text.lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.split(" | ").collect();
            let names =
                cells[0].trim_start_matches("| ").split(", ").map(|n| n.trim_matches('`').to_string()).collect();
            (names, cells[1].trim().to_string())
        })
        .collect()
}

fn fio_src() -> Option<std::path::PathBuf> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/fio-src/fio-3.33");
    d.join("HOWTO.rst").is_file().then_some(d)
}

fn table() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/guide/fio-options.md")).unwrap()
}

#[test]
fn every_job_option_of_fios_howto_has_a_row_and_the_binary_agrees_with_it() {
    if !crate::common::full_tier() {
        return;
    }
    let Some(src) = fio_src() else {
        skip("fio 3.33's source is not downloaded: run scripts/fio-src");
        return;
    };
    let howto = howto_options(&std::fs::read_to_string(src.join("HOWTO.rst")).unwrap());
    assert!(howto.len() > 250, "HOWTO.rst read: {} options", howto.len());
    let rows = table_rows(&table());
    let mut missing = Vec::new();
    for (names, _) in &howto {
        for n in names {
            if !rows.iter().any(|(r, _)| r.contains(n)) {
                missing.push(n.clone());
            }
        }
    }
    assert!(missing.is_empty(), "options of HOWTO.rst without a row in docs/guide/fio-options.md: {missing:?}");
    let s = Scratch::new("fio-coverage");
    let trace = "fio version 2 iolog\n/tmp/drivelab-coverage.dat add\n/tmp/drivelab-coverage.dat open\n\
/tmp/drivelab-coverage.dat read 0 4096\n/tmp/drivelab-coverage.dat close\n";
    std::fs::write(s.0.join("trace.log"), trace).unwrap();
    let mut wrong = Vec::new();
    let (mut refused, mut taken) = (0, 0);
    for (names, status) in &rows {
        let engines = howto.iter().find(|(n, _)| n[0] == names[0]).map(|(_, e)| e.clone()).unwrap_or_default();
        let engine = if engines.iter().any(|e| e == "io_uring") { "ioengine=io_uring\n" } else { "" };
        for n in names {
            let opt = match value(n) {
                "-" => n.clone(),
                v => format!("{n}={v}"),
            };
            let file = s.0.join("one.fio");
            let before = BEFORE.iter().find(|(k, _)| k == n).map_or("", |(_, b)| *b);
            std::fs::write(&file, format!("{before}{BASE}{engine}{opt}\n")).unwrap();
            let target = if ON_NULL.contains(&n.as_str()) { "null" } else { "/tmp/drivelab-coverage.dat" };
            let o = drivelab_in(&s.0, &["plan", file.to_str().unwrap(), target, "--dry-run"]);
            let is_refused = o.status.code() == Some(2);
            if is_refused {
                refused += 1;
                // A refusal names the line of the option, or of the job for what it combines.
                if !stderr(&o).contains("one.fio:") {
                    wrong.push(format!("{opt}: refused without FILE:LINE: {}", stderr(&o)));
                }
            } else {
                taken += 1;
                if !o.status.success() {
                    wrong.push(format!("{opt}: exit {:?}: {}", o.status.code(), stderr(&o)));
                }
            }
            if is_refused != status.starts_with("refused") {
                wrong.push(format!(
                    "{opt}: the table says '{status}', the binary {}",
                    if is_refused { "refuses it" } else { "takes it" }
                ));
            }
        }
    }
    eprintln!("fio 3.33 job options: {} rows, {taken} names taken, {refused} refused", rows.len());
    assert!(wrong.is_empty(), "the table and the binary disagree:\n{}", wrong.join("\n"));
}

#[test]
fn howto_lines_give_names_aliases_and_engines() {
    let text = ".. option:: --debug=type\n.. option:: readwrite=str, rw=str\n\
.. option:: hipri : [io_uring] [io_uring_cmd]\n.. option:: hipri : [psyncv2]\n\
.. option:: random_distribution=str:float[:float][,str:float][,str:float]\n";
    let o = howto_options(text);
    assert_eq!(o.len(), 3, "command-line options are not job options; a repeated option is one row");
    assert_eq!(o[0].0, ["readwrite", "rw"]);
    assert_eq!(o[1].1, ["io_uring", "io_uring_cmd", "psyncv2"]);
    assert_eq!(o[2].0, ["random_distribution"]);
    let rows = table_rows("| option | status | drivelab |\n| `readwrite`, `rw` | mapped | x |\n");
    assert_eq!(rows, vec![(vec!["readwrite".to_string(), "rw".to_string()], "mapped".to_string())]);
}
