//! Every built-in suite end to end at a tiny scale, its tables checked against the saved points;
//! `iometer` and `jbod` on three loop devices at once.

use crate::common;

use std::path::{Path, PathBuf};

use crate::common::{drivelab, json, need_loop, stderr, stdout, LoopDev, Scratch};

/// Run a suite; return its results directory and stdout.
fn suite(s: &Scratch, args: &[&str]) -> (PathBuf, String) {
    let results = s.path("results");
    let list = || -> Vec<PathBuf> {
        std::fs::read_dir(&results).map(|r| r.map(|e| e.unwrap().path()).collect()).unwrap_or_default()
    };
    let before = list();
    let mut a = vec!["suite"];
    a.extend_from_slice(args);
    a.extend_from_slice(&["--results", &results, "-q"]);
    let o = drivelab(&a);
    assert!(o.status.success(), "drivelab {a:?}: {}", stderr(&o));
    let new: Vec<PathBuf> = list().into_iter().filter(|d| !before.contains(d)).collect();
    assert_eq!(new.len(), 1, "one new results directory: {new:?}");
    (new[0].clone(), stdout(&o))
}

fn points(dir: &Path) -> Vec<serde_json::Value> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("points")).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files.iter().map(|f| json(f)).collect()
}

fn field<'a>(p: &'a serde_json::Value, name: &str) -> Option<&'a str> {
    p["point"]["fields"].as_array()?.iter().find(|kv| kv[0] == name).and_then(|kv| kv[1].as_str())
}

/// The CSV tables of a results directory (`--format csv --tables`): (header, rows) per table,
/// tables separated by blank lines, each line without the columns every line starts with
/// (`table,metric,unit`: the table's name, what its cells measure, their unit).
fn csv_tables(dir: &Path) -> Vec<Vec<Vec<String>>> {
    let o = drivelab(&["report", dir.to_str().unwrap(), "--format", "csv", "--tables"]);
    assert!(o.status.success(), "{}", stderr(&o));
    stdout(&o)
        .split("\n\n")
        .filter(|t| t.starts_with("table,metric,unit,"))
        .map(|t| t.lines().map(|l| csv_fields(l).into_iter().skip(3).collect()).collect())
        .collect()
}

/// The fields of one CSV line (RFC 4180: a quoted field may hold commas and doubled quotes).
fn csv_fields(line: &str) -> Vec<String> {
    let (mut fields, mut field, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(std::mem::take(&mut field)),
            (c, _) => field.push(c),
        }
    }
    fields.push(field);
    fields
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * b.abs().max(1.0)
}

#[test]
fn quick_prints_reads_and_writes_and_its_tables_match_the_points() {
    let s = Scratch::new("suite-quick");
    let t = s.path("t");
    let (dir, out) = suite(&s, &["quick", &t, "--size", "32m", "--time", "150ms"]);
    for title in ["Reads", "Writes", "SEQ1M Q8T1", "RND4K Q1T1"] {
        assert!(out.contains(title), "{out}");
    }
    let pts = points(&dir);
    assert_eq!(pts.len(), 8);
    let tables = csv_tables(&dir);
    let reads_mb = &tables[0];
    let steps = ["SEQ1M Q8T1", "SEQ128K Q32T1", "RND4K Q32T1", "RND4K Q1T1"];
    let header: Vec<String> = std::iter::once("target".to_string()).chain(steps.map(|s| format!("step={s}"))).collect();
    assert_eq!(reads_mb[0], header, "the columns name their axis");
    for (col, step) in ["SEQ1M Q8T1", "SEQ128K Q32T1", "RND4K Q32T1", "RND4K Q1T1"].iter().enumerate() {
        let p = pts.iter().find(|p| p["point"]["step"] == *step && field(p, "read") == Some("100")).unwrap();
        let want = p["result"]["per_target"][0]["total"]["bw_mb_per_s"].as_f64().unwrap();
        let got: f64 = reads_mb[1][col + 1].parse().unwrap();
        assert!(close(got, want), "{step}: table {got} vs point {want}");
    }
}

#[test]
fn span_mixed_and_hdparm_run_and_tabulate() {
    if !crate::common::full_tier() {
        return;
    }
    let s = Scratch::new("suite-misc");
    let t = s.path("t");
    let (dir, out) = suite(&s, &["span", &t, "--size", "16m", "--time", "150ms"]);
    assert_eq!(points(&dir).len(), 7);
    assert!(out.contains("write 512-aligned") && out.contains("compress:50"), "{out}");
    let p = &points(&dir)[0];
    assert_eq!(p["result"]["spec"]["span_bytes"], 16 << 20, "the span is the target when smaller than 8 GiB");
    assert_eq!(p["result"]["spec"]["qd"], 3);

    let (dir, out) = suite(&s, &["mixed", &t, "--time", "150ms"]);
    let pts = points(&dir);
    assert_eq!(pts.len(), 11);
    assert_eq!(pts[7]["result"]["spec"]["read_pct"], 70);
    assert_eq!(pts[7]["result"]["spec"]["jobs"], 32);
    assert!(out.contains("70% reads"), "{out}");
    let share = pts[7]["result"]["read"]["ops"].as_f64().unwrap() / pts[7]["result"]["total"]["ops"].as_f64().unwrap();
    assert!((share - 0.7).abs() < 0.03, "{share}");

    let (dir, out) = suite(&s, &["hdparm", &t, "--time", "300ms"]);
    let pts = points(&dir);
    assert_eq!(pts.len(), 3);
    assert_eq!(pts[0]["result"]["spec"]["direct"], false, "cached reads go through the page cache");
    // hdparm -t: buffered, from a cold cache (invalidated as opened), each target read once at
    // most (a second pass would read the cache).
    let buffered = &pts[1]["result"]["spec"];
    assert_eq!((buffered["direct"].as_bool(), buffered["invalidate"].as_bool()), (Some(false), Some(true)));
    assert_eq!(buffered["io_size_bytes"], 16 << 20, "one pass over the 16 MiB target");
    assert_eq!(pts[2]["result"]["spec"]["direct"], true, "hdparm --direct -t");
    for col in ["cached reads", "buffered disk reads", "O_DIRECT disk reads"] {
        assert!(out.contains(col), "{col}: {out}");
    }
}

#[test]
fn sync_tables_show_each_write_until_durable_and_the_fsync_alone() {
    // The point lines as it runs: the fsync point names its write and fsync p99 apart.
    let o = drivelab(&["suite", "sync", "null", "--time", "100ms", "--results", &Scratch::new("sync-lines").path("r")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().filter(|l| l.contains(" IOPS ")).map(str::trim).collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(lines[0].contains("p50") && !lines[0].contains("fsync"), "{lines:?}");
    assert!(lines[2].contains("write p99") && lines[2].contains("fsync p99"), "{lines:?}");
    let s = Scratch::new("suite-sync");
    let t = s.path("t");
    let (dir, out) = suite(&s, &["sync", &t, "--size", "16m", "--time", "150ms"]);
    let pts = points(&dir);
    let r = |i: usize| &pts[i]["result"];
    assert_eq!(r(2)["sync"]["ops"].as_u64(), r(2)["write"]["ops"].as_u64(), "one fsync per write");
    // The terminal's tables name what each figure is.
    for heading in [
        "4K writes at QD1, until durable (write + fsync), mean per write (µs)",
        "4K writes at QD1, fsync call alone, p99 (µs)",
        "4K writes at QD1, write call alone, p99 (µs)",
    ] {
        assert!(out.contains(heading), "{heading}: {out}");
    }
    assert!(out.contains("until durable: with fsync, each write's latency plus its share"), "{out}");

    // Every figure from the saved points: write + fsync per write for fsync, the write for
    // O_DSYNC, nothing for plain writes; the fsync's own p99; the write call's own p99.
    // CSV tables in the suite's order: IOPS, until durable, the fsync alone, the write call alone.
    let tables = csv_tables(&dir);
    let f = |v: &serde_json::Value| v.as_f64().unwrap();
    let (w, sync) = (&r(2)["write"], &r(2)["sync"]);
    let until_fsync =
        (f(&w["lat_ns"]["mean"]) * f(&w["ops"]) + f(&sync["lat_ns"]["mean"]) * f(&sync["ops"])) / f(&w["ops"]) / 1000.0;
    let until = &tables[1];
    assert_eq!(until[0], ["target", "step=plain", "step=O_DSYNC", "step=fsync each write"]);
    assert_eq!(until[1][1], "", "plain writes are not made durable");
    assert!(close(until[1][2].parse().unwrap(), f(&r(1)["write"]["lat_ns"]["mean"]) / 1000.0), "{until:?}");
    assert!(close(until[1][3].parse().unwrap(), until_fsync), "{until:?} vs {until_fsync}");
    let fsync_only = &tables[2];
    assert_eq!(fsync_only[0], ["target", "step=fsync each write"]);
    assert!(close(fsync_only[1][1].parse().unwrap(), f(&sync["lat_ns"]["p99"]) / 1000.0), "{fsync_only:?}");
    let calls = &tables[3];
    for i in 0..3 {
        assert!(close(calls[1][i + 1].parse().unwrap(), f(&r(i)["write"]["lat_ns"]["p99"]) / 1000.0), "{calls:?}");
    }

    // `run --sync fsync:1` reports the same figures: its answer and a row each.
    let results = s.path("runs");
    let o = drivelab(&[
        "run",
        &t,
        "--rw",
        "randwrite",
        "--sync",
        "fsync:1",
        "--time",
        "150ms",
        "--results",
        &results,
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let run = std::fs::read_dir(&results).unwrap().next().unwrap().unwrap().path();
    let p = &points(&run)[0]["result"];
    let (w, sync) = (&p["write"], &p["sync"]);
    let until = (f(&w["lat_ns"]["mean"]) * f(&w["ops"]) + f(&sync["lat_ns"]["mean"]) * f(&sync["ops"])) / f(&w["ops"]);
    let o = drivelab(&["report", run.to_str().unwrap()]);
    let text = stdout(&o);
    let want = drivelab_engine::units::fmt_ns(until);
    let answer = |l: &str| l.trim().starts_with("until durable (write + fsync), mean per write") && l.ends_with(&want);
    assert!(text.lines().any(answer), "{want}: {text}");
    // The report's text is the run's summary: the fsync calls' row of its table, the fsync
    // alone's p99 as the line beside the one above says it.
    let p99 = drivelab_engine::units::fmt_ns(f(&sync["lat_ns"]["p99"]));
    assert!(text.lines().any(|l| l.starts_with("  fsync ") && l.contains('│')), "{text}");
    assert!(text.lines().any(|l| l.trim() == format!("fsync call alone, p99 {p99}")), "{p99}: {text}");
}

#[test]
fn bsqd_sweeps_block_size_by_queue_depth() {
    if !crate::common::full_tier() {
        return;
    }
    let s = Scratch::new("suite-bsqd");
    let t = s.path("t");
    let (dir, _) = suite(&s, &["bsqd", &t, "--size", "8m", "--time", "30ms"]);
    assert_eq!(points(&dir).len(), 192);
    let tables = csv_tables(&dir);
    assert_eq!(tables.len(), 4);
    let iops = &tables[0];
    assert_eq!(iops[0].len(), 1 + 8, "qd 1..128: {:?}", iops[0]);
    assert_eq!(iops.len(), 1 + 12, "bs 512..1m");
    assert_eq!(iops[1][0], "512");
    assert_eq!(iops[12][0], "1m");
}

#[test]
fn iometer_measures_each_named_drive_alone_or_all_together_and_jbod_together() {
    need_loop!();
    let s = Scratch::new("suite-loops");
    let devs: Vec<LoopDev> = (0..3).map(|i| LoopDev::new(&s.0.join(format!("b{i}")), 16 << 20, Some(0))).collect();
    let names: Vec<&str> = devs.iter().map(|d| d.dev.as_str()).collect();
    let shown = ["SAS", "SATA II", "SCSI"];
    let labels: Vec<String> = names.iter().zip(shown).map(|(d, n)| format!("{d}={n}")).collect();
    let destroy: Vec<&str> = names.iter().flat_map(|d| ["--destroy", *d]).collect();

    // The seed's way, by default: each drive alone, one after another, shown by its name.
    let mut args = vec!["iometer"];
    args.extend(&names);
    args.extend(["--dql", "1", "--time", "150ms"]);
    args.extend(&destroy);
    for l in &labels {
        args.extend(["--label", l.as_str()]);
    }
    let (dir, out) = suite(&s, &args);
    let pts = points(&dir);
    assert_eq!(pts.len(), 3 * 4 * 2, "every access spec once per drive");
    assert!(pts.iter().all(|p| p["result"]["per_target"].as_array().unwrap().len() == 1), "each drive alone");
    assert!(out.contains("each of the 3 drives ran alone, one after another (--each)"), "{out}");
    assert!(out.contains("SATA II") && !out.contains(names[1]), "rows by name, not path: {out}");
    let seq_reads = &csv_tables(&dir)[0];
    assert_eq!(seq_reads.iter().skip(1).map(|r| r[0].as_str()).collect::<Vec<_>>(), shown);
    for (r, dev) in names.iter().enumerate() {
        let p = pts
            .iter()
            .find(|p| {
                p["point"]["targets"][0] == *dev && field(p, "random") == Some("0") && field(p, "read") == Some("100")
            })
            .unwrap();
        let got: f64 = seq_reads[r + 1][1].parse().unwrap();
        assert!(close(got, p["result"]["total"]["bw_mb_per_s"].as_f64().unwrap()), "{dev}: its own point");
        assert_eq!(p["point"]["names"][0]["name"], shown[r], "the name is saved with the point");
    }
    let run = json(&dir.join("run.json"));
    assert_eq!(run["targets"][2]["name"], "SCSI", "and with the run's targets");
    // The tidy CSV names the drive of each point.
    let csv = drivelab(&["report", dir.to_str().unwrap(), "--format", "csv"]);
    assert!(stdout(&csv).lines().filter(|l| l.contains(",SATA II,")).count() == 8, "{}", stdout(&csv));

    // --together: every point on all three at once, each drive's figures its own.
    let mut args = vec!["iometer"];
    args.extend(&names);
    args.extend(["--dql", "2", "--time", "150ms", "--together"]);
    args.extend(&destroy);
    let (dir, out) = suite(&s, &args);
    let pts = points(&dir);
    assert_eq!(pts.len(), 4 * 2 * 2);
    assert!(pts.iter().all(|p| p["result"]["per_target"].as_array().unwrap().len() == 3), "all disks at once");
    assert!(out.contains("64K 95% Sequential Reads") && out.contains("2 DQL/Disk"), "{out}");
    assert!(out.contains("Drop from 100% to 95% sequential"), "{out}");
    assert!(out.contains("the 3 drives ran at once in every point"), "{out}");
    // Device x DQL cells are the per-target numbers of the right points.
    let tables = csv_tables(&dir);
    let seq_reads = &tables[0];
    assert_eq!(seq_reads.len(), 4, "header + 3 devices");
    for (r, dev) in names.iter().enumerate() {
        assert_eq!(seq_reads[r + 1][0], *dev);
        for (c, qd) in ["1", "2"].iter().enumerate() {
            let p = pts
                .iter()
                .find(|p| {
                    field(p, "qd") == Some(qd) && field(p, "random") == Some("0") && field(p, "read") == Some("100")
                })
                .unwrap();
            let t = p["result"]["per_target"].as_array().unwrap().iter().find(|t| t["path"] == *dev).unwrap();
            let got: f64 = seq_reads[r + 1][c + 1].parse().unwrap();
            assert!(close(got, t["total"]["bw_mb_per_s"].as_f64().unwrap()), "{dev} qd {qd}");
        }
    }
    // The tidy CSV: the point's row, then each drive's own.
    let csv = stdout(&drivelab(&["report", dir.to_str().unwrap(), "--format", "csv"]));
    let rows: Vec<&str> = csv.lines().filter(|l| l.contains(",target,1,")).collect();
    assert_eq!(rows.len(), 3, "a row per drive of point 1: {csv}");

    let mut args = vec!["jbod"];
    args.extend(&names);
    args.extend(["--time", "150ms"]);
    for d in &names {
        args.extend(["--destroy", d]);
    }
    let (dir, out) = suite(&s, &args);
    let pts = points(&dir);
    let counts: Vec<usize> = pts.iter().map(|p| p["point"]["targets"].as_array().unwrap().len()).collect();
    let mut each = vec!["suite", "jbod", names[0], "--each"];
    each.extend(["--destroy", names[0]]);
    let o = drivelab(&each);
    assert_eq!(o.status.code(), Some(2), "jbod is drives at once: {}", stderr(&o));
    assert_eq!(counts, vec![1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]);
    assert!(out.contains("Aggregate MB/s by number of drives") && out.contains("Scaling efficiency"), "{out}");
    let agg = &csv_tables(&dir)[0];
    assert_eq!(agg.iter().skip(1).map(|r| r[0].as_str()).collect::<Vec<_>>(), vec!["1", "2", "3"]);
}

#[test]
fn unknown_suites_and_bad_options_exit_2() {
    let o = drivelab(&["suite", "crystal", "null"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("quick"), "{}", stderr(&o));
    let o = drivelab(&["suite", "quick", "null", "--scale", "0"]);
    assert_eq!(o.status.code(), Some(2));
    let o = drivelab(&["report", "/nonexistent-dir"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not a results directory"), "{}", stderr(&o));
}

#[test]
fn no_arguments_runs_the_quick_suite_on_a_scratch_file_here() {
    if !crate::common::full_tier() {
        return;
    }
    let s = Scratch::new("default");
    let o = common::drivelab_in(&s.0, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("quick suite") && out.contains("Reads") && out.contains("SEQ1M Q8T1"), "{out}");
    assert_eq!(std::fs::metadata(s.0.join("drivelab-scratch.dat")).unwrap().len(), 1 << 30);
    let results: Vec<PathBuf> = std::fs::read_dir(s.0.join("results")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(results.len(), 1);
    assert_eq!(points(&results[0]).len(), 8);
}

#[test]
fn power_readings_give_watts_and_mb_per_s_per_watt() {
    if !crate::common::full_tier() {
        return;
    }
    let s = Scratch::new("suite-power");
    let (dir, out) = suite(&s, &["mixed", "null", "--time", "150ms", "--power-cmd", "echo 5"]);
    assert!(out.contains("average power") && out.contains("power efficiency"), "{out}");
    let pts = points(&dir);
    assert!(pts.iter().all(|p| p["power_w"] == 5.0), "every point sampled");
    let tables = csv_tables(&dir);
    let eff = tables.last().unwrap();
    for (c, p) in pts.iter().enumerate() {
        let want = p["result"]["total"]["bw_mb_per_s"].as_f64().unwrap() / 5.0;
        let got: f64 = eff[1][c + 1].parse().unwrap();
        assert!(close(got, want), "column {c}: {got} vs {want}");
    }
    let o =
        drivelab(&["suite", "mixed", "null", "--time", "100ms", "--power-cmd", "echo n/a", "--results", &s.path("r2")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not a number of watts"), "{}", stderr(&o));
    assert!(!Path::new(&s.path("r2")).exists(), "refused before anything ran");
}

/// `--dql` (issue #26): N is Iometer's 1..N; a list and ranges as a plan's axis takes them. The
/// point count is 8 per depth, however many disks (each point runs on all of them), as the guide
/// says.
#[test]
fn iometer_dql_takes_lists_and_ranges_and_counts_8_points_per_depth() {
    let s = Scratch::new("suite-dql");
    let (a, b) = (s.path("a"), s.path("b"));
    let count = |args: &[&str]| {
        let mut all = vec!["suite", "iometer", &a, &b, "--dry-run"];
        all.extend_from_slice(args);
        let o = drivelab(&all);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let out = stdout(&o);
        let qds: Vec<String> = out
            .lines()
            .filter_map(|l| l.split_whitespace().find_map(|w| w.strip_prefix("qd=")).map(str::to_string))
            .collect();
        assert!(out.contains(&format!("{} points", qds.len())), "{out}");
        qds
    };
    assert_eq!(count(&["--dql", "32", "--together"]).len(), 256, "--dql 32 on two disks at once");
    assert_eq!(count(&["--dql", "32"]).len(), 512, "--dql 32 on each of two disks");
    assert_eq!(count(&[]).len(), 48, "the default, 1..3, each disk");
    let qds = count(&["--dql", "1,2,4..32 x2", "--together"]);
    assert_eq!(qds.len(), 48);
    assert_eq!(qds[..6], ["1", "2", "4", "8", "16", "32"]);
    for bad in ["0", "4..1 x2", "1,1"] {
        let o = drivelab(&["suite", "iometer", &a, "--dry-run", "--dql", bad]);
        assert_eq!(o.status.code(), Some(2), "--dql {bad}: {}", stderr(&o));
        assert!(stderr(&o).contains(&format!("--dql {bad}: ")), "{}", stderr(&o));
    }
    let guide = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/guide/suites.md")).unwrap();
    let row = guide.lines().find(|l| l.starts_with("| `iometer` |")).expect("the guide's iometer row");
    assert!(row.contains("8 per depth and disk") && row.contains("`--dql 32` on two disks: 512"), "{row}");
}
