//! fio's JSON output as results (issue #14): `drivelab report FIO.json` in every format and
//! `drivelab compare` of fio's results beside drivelab's of the same job, on the real fio 3.33
//! outputs in crates/lab/tests/data/fio (README.md there has their commands), and once on a
//! fio run made here when fio is installed. Figures are checked against fio's own in the same
//! file, never written in the test.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{drivelab, stderr, stdout, Scratch};
use serde_json::Value;

fn fixture(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../lab/tests/data/fio").join(name);
    p.canonicalize().expect("the fixture").to_string_lossy().into_owned()
}

/// The last JSON document of fio's output in `path`, as fio wrote it.
fn fio_doc(path: &str) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    let docs: Vec<Value> = serde_json::Deserializer::from_str(&text).into_iter().map(Result::unwrap).collect();
    docs.last().unwrap().clone()
}

/// `drivelab report ARGS`, which must succeed; its standard output.
fn report(args: &[&str]) -> String {
    let mut all = vec!["report"];
    all.extend_from_slice(args);
    let o = drivelab(&all);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stdout(&o)
}

/// The row of the report model's grid whose first cell is `first`.
fn grid_row(model: &Value, first: &str) -> Vec<Value> {
    let rows = model["sections"].as_array().unwrap().iter().flat_map(|s| s["tables"].as_array().unwrap().iter());
    rows.flat_map(|t| t["rows"].as_array().cloned().unwrap_or_default())
        .filter_map(|r| r.as_array().cloned())
        .find(|r| r.first().and_then(Value::as_str) == Some(first))
        .unwrap_or_else(|| panic!("no row {first}"))
}

/// fio's output `path` reported in text, CSV, JSON and HTML: the figures are fio's own.
fn check_report(s: &Scratch, path: &str, tag: &str) {
    let job = &fio_doc(path)["jobs"][0];
    let name = job["jobname"].as_str().unwrap();
    let version = fio_doc(path)["fio version"].as_str().unwrap().trim_start_matches("fio-").to_string();

    let text = report(&[path]);
    // The text is the run's summary: fio's version, the job's name and what it did.
    assert!(text.starts_with(&format!("fio {version} · {name}: ")), "{text}");
    assert!(text.contains(&format!("note: fio {version} results, read from fio's JSON output")), "{text}");

    let model: Value = serde_json::from_str(&report(&[path, "--format", "json"])).unwrap();
    for dir in ["read", "write"] {
        if job[dir]["total_ios"].as_u64() == Some(0) {
            continue;
        }
        let row = grid_row(&model, &format!("{dir} lat"));
        assert_eq!(row[1].as_f64(), job[dir]["iops"].as_f64(), "{dir} IOPS as fio's: {row:?}");
        assert_eq!(row[3].as_f64(), job[dir]["lat_ns"]["mean"].as_f64(), "{dir} mean lat as fio's");
    }
    let facts: Vec<String> = model["facts"].as_array().unwrap().iter().map(|f| format!("{} {}", f[0], f[1])).collect();
    assert!(facts.iter().any(|f| f.contains(&format!("\"fio {version}\""))), "{facts:?}");

    let csv = report(&[path, "--format", "csv", "--tables"]);
    assert!(csv.starts_with("answer,value\n") && csv.contains("\nnote\n"), "{csv}");
    // The tidy CSV: the job is one row, with fio's own IOPS per direction.
    let tidy = report(&[path, "--format", "csv"]);
    assert_eq!(tidy.lines().count(), 2, "a header and the job: {tidy}");
    let header: Vec<&str> = tidy.lines().next().unwrap().split(',').collect();
    let row: Vec<&str> = tidy.lines().nth(1).unwrap().split(',').collect();
    for dir in ["read", "write"] {
        if job[dir]["total_ios"].as_u64() != Some(0) {
            let i = header.iter().position(|c| *c == format!("{dir}_iops")).expect("an IOPS column");
            assert_eq!(row[i].parse::<f64>().ok(), job[dir]["iops"].as_f64(), "{dir}_iops as fio's: {tidy}");
        }
    }

    let page = s.path(&format!("{tag}.html"));
    assert!(report(&[path, "-o", &page]).contains("wrote"));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<svg") && html.contains("<div class=\"note\">") && html.contains(&format!("fio {version}")));
}

#[test]
fn report_reads_fios_json_and_json_plus_in_every_format() {
    let s = Scratch::new("fio-report");
    check_report(&s, &fixture("uring-randrw.json"), "plain");
    check_report(&s, &fixture("uring-randrw.plus.json"), "plus");

    // Several reporting groups are a plan: a column per group, named as fio names its jobs.
    let path = fixture("null-groups.plus.json");
    let text = report(&[&path]);
    assert!(text.contains("seqread") && text.contains("randwrite") && text.contains("mix + randread"), "{text}");
    let model: Value = serde_json::from_str(&report(&[&path, "--format", "json"])).unwrap();
    let iops = model["sections"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["tables"].as_array().unwrap())
        .find(|t| t["unit"] == "IOPS")
        .expect("an IOPS table")
        .clone();
    let seqread = fio_doc(&path)["jobs"][0]["read"]["iops"].as_f64();
    assert_eq!(iops["cols"][0], "seqread");
    assert_eq!(iops["rows"][0][1][0].as_f64(), seqread, "{iops}");
    assert!(report(&[&path, "--format", "md"]).contains("## Notes"));
    let series = report(&[&fixture("status-interval.plus.json"), "--format", "csv", "--series"]);
    assert!(series.lines().count() >= 4, "fio's --status-interval seconds: {series}");
}

/// A drivelab results directory made by `args` under `s`.
fn drivelab_results(s: &Scratch, tag: &str, args: &[&str]) -> String {
    let base = s.path(tag);
    let mut all = args.to_vec();
    all.extend_from_slice(&["--results", &base, "-q"]);
    let o = drivelab(&all);
    assert!(o.status.success(), "{all:?}: {}", stderr(&o));
    let dir: PathBuf = std::fs::read_dir(&base).unwrap().next().unwrap().unwrap().path();
    dir.to_string_lossy().into_owned()
}

#[test]
fn compare_puts_fio_beside_drivelab_of_the_same_job() {
    let s = Scratch::new("fio-compare");
    // drivelab runs fio's own job file (shorter): its points are labelled as fio names the jobs.
    let job = s.path("null-groups.fio");
    let text = std::fs::read_to_string(fixture("null-groups.fio")).unwrap();
    assert!(text.contains("runtime=1\n"));
    std::fs::write(&job, text.replace("runtime=1\n", "runtime=200ms\n")).unwrap();
    let ours = drivelab_results(&s, "job", &["run", &job]);
    let fio = fixture("null-groups.plus.json");
    for (a, b) in [(&fio, &ours), (&ours, &fio)] {
        let o = drivelab(&["compare", a, b, "--label", "first", "--label", "second"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        assert!(out.contains("matched by label"), "{out}");
        assert!(out.contains("Every point is in every run."), "each fio group pairs with drivelab's: {out}");
        assert!(out.contains("mix + randread") && out.contains("Δ second vs first"), "{out}");
    }
    let page = s.path("cmp.html");
    assert!(drivelab(&["compare", &fio, &ours, "-o", &page]).status.success());
    assert!(std::fs::read_to_string(&page).unwrap().contains("<svg"));
    let o = drivelab(&["compare", &fio, &ours, "--format", "json"]);
    let cmp: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(cmp["matched_by"], "labels");

    // Two fio outputs: with group_reporting fio names a group after its first job only.
    let o = drivelab(&["compare", &fio, &fixture("null-groups.grouped.json")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let missing = |l: &str| l.split("  ").map(str::trim).filter(|c| !c.is_empty()).eq(["mix + randread", "A", "B"]);
    assert!(stdout(&o).lines().any(missing), "in A, not in B: {}", stdout(&o));

    // One fio job beside one drivelab run: their headline figures.
    let file = s.path("target");
    let run = drivelab_results(
        &s,
        "run",
        &["run", "--rw", "randrw", "--bs", "4k", "--iodepth", "8", "--size", "16m", "--time", "200ms", &file],
    );
    let fio = fixture("uring-randrw.plus.json");
    let o = drivelab(&["compare", &fio, &run, "--format", "csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let fios = fio_doc(&fio)["jobs"][0].clone();
    let total = fios["read"]["total_ios"].as_u64().unwrap() + fios["write"]["total_ios"].as_u64().unwrap();
    assert!(out.contains("p99 clat"), "{out}");
    let iops_row = out.lines().find(|l| l.contains(",IOPS,")).unwrap_or_else(|| panic!("{out}"));
    let fio_iops: f64 = iops_row.split(',').nth(4).unwrap().parse().unwrap();
    let window_s = [&fios["read"]["runtime"], &fios["write"]["runtime"]].iter().map(|r| r.as_u64().unwrap()).max();
    assert!((fio_iops - total as f64 / (window_s.unwrap() as f64 / 1e3)).abs() < 1e-6, "{iops_row}");
}

#[test]
fn a_file_that_is_not_fios_json_is_refused_by_name() {
    let s = Scratch::new("fio-refused");
    let other = s.path("notes.txt");
    std::fs::write(&other, "hello\n").unwrap();
    let o = drivelab(&["report", &other]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(&other) && stderr(&o).contains("fio --output-format=json"), "{}", stderr(&o));

    let cut = s.path("cut.json");
    let whole = std::fs::read(fixture("uring-randrw.plus.json")).unwrap();
    std::fs::write(&cut, &whole[..whole.len() / 2]).unwrap();
    for cmd in [vec!["report", &cut], vec!["compare", &cut, &cut]] {
        let o = drivelab(&cmd);
        assert_eq!(o.status.code(), Some(2), "{cmd:?}");
        assert!(stderr(&o).contains(&cut) && stderr(&o).contains("cut short"), "{}", stderr(&o));
    }
}

#[test]
fn a_real_fio_run_is_reported_with_fios_own_figures() {
    if Command::new("fio").arg("--version").output().is_err() {
        common::skip("fio is not installed (.ci/run installs it)");
        return;
    }
    let s = Scratch::new("fio-real");
    let out = s.path("fio.json");
    let o = Command::new("fio")
        .args(["--name=real", "--rw=randread", "--bs=4k", "--size=16m", "--runtime=1", "--time_based"])
        .args(["--ioengine=psync", "--output-format=json+"])
        .arg(format!("--filename={}", s.path("file")))
        .arg(format!("--output={out}"))
        .output()
        .expect("run fio");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let model: Value = serde_json::from_str(&report(&[&out, "--format", "json"])).unwrap();
    let job = &fio_doc(&out)["jobs"][0];
    assert_eq!(grid_row(&model, "read lat")[1].as_f64(), job["read"]["iops"].as_f64());
    assert!(report(&[&out]).contains("percentiles recomputed from fio's json+ histogram"));
}

/// fio's percentile list of `stat` (`"99.000000"` -> ns) as drivelab names them (`p99`).
fn fio_percentiles(stat: &Value) -> Vec<(String, f64)> {
    let list = stat["percentile"].as_object().unwrap_or_else(|| panic!("no percentiles in {stat}"));
    list.iter()
        .map(|(k, v)| {
            let p: f64 = k.parse().unwrap();
            let name = format!("p{p}");
            (name, v.as_f64().unwrap())
        })
        .collect()
}

/// The grid of the report model titled starting with `title`.
fn grid<'a>(model: &'a Value, title: &str) -> &'a Value {
    let tables = model["sections"].as_array().unwrap().iter().flat_map(|s| s["tables"].as_array().unwrap());
    tables
        .into_iter()
        .find(|t| t["title"].as_str().is_some_and(|t| t.starts_with(title)))
        .unwrap_or_else(|| panic!("no table '{title}' in {model}"))
}

/// Every percentile fio wrote for each direction's `stat` is in the report's table of them.
fn assert_every_percentile_shown(model: &Value, job: &Value, stat: &str, row: &str) {
    let table = grid(model, "Every percentile fio recorded");
    let names: Vec<&str> = table["columns"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    for dir in ["read", "write"] {
        let cells = table["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r[0] == format!("{dir} {row}"))
            .unwrap_or_else(|| panic!("no row {dir} {row}: {table}"));
        for (name, ns) in fio_percentiles(&job[dir][stat]) {
            let col = names.iter().position(|n| *n == name).unwrap_or_else(|| panic!("no column {name}: {names:?}"));
            assert_eq!(cells[col].as_f64(), Some(ns), "{dir} {stat} {name}: fio's own figure");
        }
    }
}

#[test]
fn fios_default_json_keeps_every_percentile_fio_recorded_in_report_and_compare() {
    // Issue #25: `report` and `compare` showed "—" for p99 of fio's default JSON (clat's
    // percentiles per direction only). The stored sample and, with fio installed, a run here.
    let s = Scratch::new("fio-percentiles");
    let mut outputs = vec![(fixture("uring-randrw.json"), false)];
    if Command::new("fio").arg("--version").output().is_ok() {
        for (tag, extra) in [("plain", &[][..]), ("lat", &["--lat_percentiles=1", "--percentile_list=50:97.5:99"][..])]
        {
            let out = s.path(&format!("{tag}.json"));
            let o = Command::new("fio")
                .args(["--name=mixed", "--rw=randrw", "--bs=4k", "--size=8m", "--runtime=300ms", "--time_based"])
                // An asynchronous engine: fio records slat, so lat is not clat (as a sync
                // engine's is) and plain json gives clat's percentiles only.
                .args(["--ioengine=libaio", "--output-format=json"])
                .args(extra)
                .arg(format!("--filename={}", s.path("file")))
                .arg(format!("--output={out}"))
                .output()
                .expect("run fio");
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            outputs.push((out, tag == "lat"));
        }
    } else {
        common::skip_part("a fio run made here", "fio is not installed (.ci/run installs it)");
    }
    let file = s.path("target");
    let ours =
        drivelab_results(&s, "run", &["run", "--rw", "randrw", "--bs", "4k", "--size", "8m", "--time", "200ms", &file]);
    for (path, lat_too) in &outputs {
        let job = &fio_doc(path)["jobs"][0];
        let model: Value = serde_json::from_str(&report(&[path, "--format", "json"])).unwrap();
        assert_every_percentile_shown(&model, job, "clat_ns", "clat");
        // The answer: each direction's p99, named by which latency it is.
        let answer: Vec<(String, String)> = serde_json::from_value(model["answer"].clone()).unwrap();
        let word = if *lat_too { "latency" } else { "clat" };
        for dir in ["read", "write"] {
            let label = format!("{dir} p99 {word}");
            assert!(answer.iter().any(|(k, v)| *k == label && v != "—"), "{label}: {answer:?}");
        }
        if !lat_too {
            // fio's default list has p50, p99 and p99.9: none of the answer's is missing.
            assert!(answer.iter().all(|(_, v)| v != "—"), "no figure missing: {answer:?}");
        }
        if *lat_too {
            assert_every_percentile_shown(&model, job, "lat_ns", "lat");
        }
        // compare: fio's own p99 of each direction beside drivelab's, with a Δ.
        let o = drivelab(&["compare", path, &ours, "--format", "csv"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        for dir in ["read", "write"] {
            for (stat, word) in [("clat_ns", "clat"), ("lat_ns", "latency")] {
                if stat == "lat_ns" && !lat_too {
                    continue;
                }
                let fio_p99 = fio_percentiles(&job[dir][stat]).into_iter().find(|(n, _)| n == "p99").unwrap().1;
                let row = out
                    .lines()
                    .find(|l| l.contains(&format!(",{dir} p99 {word},")))
                    .unwrap_or_else(|| panic!("no {dir} p99 {word}: {out}"));
                let cells: Vec<&str> = row.split(',').collect();
                assert_eq!(cells[4].parse::<f64>().unwrap(), fio_p99 / 1e3, "{row}");
                assert!(!cells[5].is_empty() && !cells[6].is_empty(), "drivelab's figure and the Δ: {row}");
            }
        }
    }
}

#[test]
fn a_plan_of_fio_groups_without_lat_percentiles_gets_tables_of_the_p99s_fio_recorded() {
    // fio's default JSON of several groups: the p99 latency table was all "—" where fio had only
    // clat's percentiles (and a mixed group's per direction).
    let path = fixture("null-groups.grouped.json");
    let model: Value = serde_json::from_str(&report(&[&path, "--format", "json"])).unwrap();
    let jobs = fio_doc(&path)["jobs"].as_array().unwrap().clone();
    let tables: Vec<&Value> =
        model["sections"].as_array().unwrap().iter().flat_map(|s| s["tables"].as_array().unwrap()).collect();
    let table = |title: &str| {
        *tables
            .iter()
            .find(|t| t["title"].as_str().is_some_and(|t| t.starts_with(title)))
            .unwrap_or_else(|| panic!("no table '{title}': {tables:?}"))
    };
    let p99 = |stat: &Value| fio_percentiles(stat).into_iter().find(|(n, _)| n == "p99").map(|(_, ns)| ns / 1e3);
    for (title, dir) in [("p99 clat, reads", "read"), ("p99 clat, writes", "write")] {
        let t = table(title);
        for (i, job) in jobs.iter().enumerate() {
            let cell = t["rows"][0][1][i].as_f64();
            let fios = (job[dir]["total_ios"].as_u64() > Some(0)).then(|| p99(&job[dir]["clat_ns"])).flatten();
            assert_eq!(cell, fios, "{title} of {}: fio's own p99", job["jobname"]);
        }
    }
    // The one-direction groups' clat p99 is their total's.
    let total = table("p99 clat, bs");
    assert_eq!(total["rows"][0][1][0].as_f64(), p99(&jobs[0]["read"]["clat_ns"]), "{total}");
}
