//! Issue #24 items 12–14, through the binary: bad input is refused with exit code 2 and a
//! message naming the value before anything is measured or saved; an errored point is marked in
//! every report format; and a run stopped while it was creating its target resumes.

use crate::common;

use std::path::Path;
use std::process::Stdio;

use crate::common::*;

/// fio's JSON output of a real run (fio 3.33, json+), as the lab's importer tests keep it.
fn fio_fixture() -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../lab/tests/data/fio/uring-randrw.plus.json");
    let text = std::fs::read_to_string(path).expect("the fio fixture");
    serde_json::from_str(&text[text.find('{').unwrap()..]).expect("fio's JSON")
}

/// Every bad value of the table: exit 2 (never 0, 1 or a panic), a message naming the value
/// (`needle`), and nothing saved in the results directory.
#[test]
fn bad_inputs_exit_2_naming_the_value_before_anything_runs() {
    let s = Scratch::new("checks-bad");
    let results = s.path("results");
    let plan = s.path("plan.toml");
    std::fs::write(&plan, "[defaults]\ntime = \"100ms\"\n").unwrap();
    let job = |option: &str| {
        let p = s.path(&format!("{}.fio", option.split('=').next().unwrap()));
        std::fs::write(&p, format!("[j]\nioengine=null\nsize=1m\nrw=randrw\n{option}\n")).unwrap();
        p
    };
    let fio_json = |name: &str, edit: &dyn Fn(&mut serde_json::Value)| {
        let mut doc = fio_fixture();
        edit(&mut doc);
        let p = s.path(name);
        std::fs::write(&p, doc.to_string()).unwrap();
        p
    };
    let good_json = fio_json("good.json", &|_| {});
    let neg_stddev = fio_json("stddev.json", &|d| d["jobs"][0]["read"]["clat_ns"]["stddev"] = (-5.0).into());
    let null_bins = fio_json("bins.json", &|d| d["jobs"][0]["read"]["clat_ns"]["bins"] = serde_json::Value::Null);
    let huge_bw = fio_json("bw.json", &|d| d["jobs"][0]["read"]["bw_bytes"] = (1u64 << 63).into());
    let neg_mean = fio_json("mean.json", &|d| d["jobs"][0]["write"]["lat_ns"]["mean"] = (-1.0).into());
    let huge_iops = fio_json("iops.json", &|d| d["jobs"][0]["write"]["iops"] = 1e300.into());
    let far_date = fio_json("date.json", &|d| d["timestamp_ms"] = u64::MAX.into());
    let endless = fio_json("elapsed.json", &|d| d["jobs"][0]["elapsed"] = u64::MAX.into());
    let null_pct = fio_json("pct.json", &|d| d["jobs"][0]["read"]["clat_ns"]["percentile"] = serde_json::Value::Null);

    let r = results.as_str();
    let run = |extra: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = ["run", "null", "--time", "100ms", "--results", r, "-q"].map(String::from).to_vec();
        v.extend(extra.iter().map(|x| x.to_string()));
        v
    };
    let argv = |a: &[&str]| a.iter().map(|x| x.to_string()).collect::<Vec<String>>();
    let cases: Vec<(Vec<String>, &str)> = vec![
        // Suite and plan flags, checked before a dry run lists anything.
        (argv(&["suite", "quick", "null", "--dry-run", "--pick", "abc"]), "abc"),
        (argv(&["suite", "quick", "null", "--dry-run", "--repeat", "0"]), "--repeat 0"),
        (argv(&["suite", "quick", "null", "--dry-run", "--repeat", "101"]), "--repeat 101"),
        (argv(&["suite", "quick", "null", "--dry-run", "--steady", "--steady-window", "1"]), "window 1"),
        (argv(&["plan", &plan, "null", "--dry-run", "--pick", "worst"]), "worst"),
        (argv(&["plan", &plan, "null", "--dry-run", "--repeat", "0"]), "--repeat 0"),
        (argv(&["suite", "quick", "null", "--results", r, "--pick", "abc", "--time", "100ms"]), "abc"),
        // fio job options outside fio's own ranges.
        (argv(&["plan", &job("numjobs=0"), "--dry-run"]), "numjobs=0"),
        (argv(&["plan", &job("loops=0"), "--dry-run"]), "loops=0"),
        (argv(&["plan", &job("percentage_random=200"), "--dry-run"]), "percentage_random=200"),
        (argv(&["plan", &job("rwmixread=101"), "--dry-run"]), "rwmixread=101"),
        (argv(&["plan", &job("iodepth=0"), "--dry-run"]), "iodepth=0"),
        (argv(&["plan", &job("buffer_compress_percentage=150"), "--dry-run"]), "buffer_compress_percentage=150"),
        (argv(&["run", &job("numjobs=0"), "--results", r, "-q"]), "numjobs=0"),
        (run(&["--rw", "randread", "--distribution", "zoned:100/0"]), "zoned:100/0"),
        (run(&["--rw", "randread", "--distribution", "zoned:50/100:50/"]), "zoned:50/100:50/"),
        (run(&["--rw", "randread", "--distribution", "zoned_abs:100/0"]), "zoned_abs:100/0"),
        // Empty paths name nothing: refused up front, not after the run.
        (run(&["--json", ""]), "--json"),
        (argv(&["run", "null", "--time", "100ms", "--results", ""]), "--results"),
        (run(&["--destroy", ""]), "--destroy"),
        (run(&["--replay", ""]), "--replay"),
        (argv(&["report", &good_json, "-o", ""]), "--output"),
        (argv(&["report", &good_json, "--png", ""]), "--png"),
        (argv(&["plan", "--resume", ""]), "--resume"),
        (argv(&["qos", "null", "--objective", "p99<1ms", "--time", "100ms", "--results", r, "--max-qd", "0"]), "'0'"),
        // fio's JSON with figures fio never writes: not a valid fio result, by the field's name.
        (argv(&["report", &neg_stddev]), "stddev"),
        (argv(&["report", &null_bins, "--format", "csv"]), "bins"),
        (argv(&["report", &huge_bw, "--format", "md"]), "bw_bytes"),
        (argv(&["report", &neg_mean]), "lat_ns.mean"),
        (argv(&["report", &huge_iops]), "iops"),
        (argv(&["report", &null_pct]), "percentile"),
        (argv(&["report", &far_date]), "timestamp_ms"),
        (argv(&["report", &endless]), "jobs[0].elapsed"),
        (argv(&["compare", &good_json, &neg_stddev]), "stddev"),
        (argv(&["compare", &huge_bw, &good_json]), "bw_bytes"),
    ];
    let mut wrong = Vec::new();
    for (args, needle) in &cases {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = drivelab(&a);
        let err = stderr(&o);
        if o.status.code() != Some(2) || !err.contains(needle) || err.contains("panicked") {
            wrong.push(format!("{args:?}: exit {:?}, wanted 2 naming {needle:?}: {err}", o.status.code()));
        }
    }
    assert!(wrong.is_empty(), "{} of {} bad inputs handled wrongly:\n{}", wrong.len(), cases.len(), wrong.join("\n"));
    assert!(!Path::new(&results).exists(), "nothing was measured or saved");
    // The unedited file is still read.
    let o = drivelab(&["report", &good_json, "--format", "csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// A plan whose first point creates `t.dat` at `size`, started in `s` and stopped by `signal`
/// once the file exists (while it is being filled); returns the results directory.
fn stopped_while_creating(s: &Scratch, signal: i32) -> std::path::PathBuf {
    let plan = s.path("plan.toml");
    std::fs::write(&plan, "[defaults]\nrw = \"randread\"\ntime = \"200ms\"\n[matrix]\nqd = [1, 2]\n").unwrap();
    let (target, results) = (s.0.join("t.dat"), s.path("results"));
    let mut child = crate::common::bin()
        .current_dir(&s.0)
        .args(["plan", &plan, target.to_str().unwrap(), "--size", "512m", "--results", &results, "-q"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Filling has begun (the file is marked as drivelab's unfinished one before its first byte).
    while std::fs::metadata(&target).map_or(true, |m| m.len() == 0) {
        assert!(child.try_wait().unwrap().is_none(), "the run ended before it created its target");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    // SIGKILL is not passed on (nothing can catch it): it goes to every process of drivelab.
    let status = if signal == libc::SIGKILL {
        crate::common::kill_tree(&mut child)
    } else {
        // SAFETY: sending a signal to our own child.
        unsafe { libc::kill(child.id() as i32, signal) };
        child.wait().unwrap()
    };
    assert_ne!(status.code(), Some(0), "stopped before it finished");
    let len = std::fs::metadata(&target).map(|m| m.len()).unwrap_or(0);
    assert!(len < 512 << 20, "stopped while the target was being filled ({len} bytes)");
    let dirs: Vec<_> = std::fs::read_dir(&results).unwrap().filter_map(|e| Some(e.ok()?.path())).collect();
    assert_eq!(dirs.len(), 1, "one results directory");
    dirs[0].clone()
}

fn finished_points(dir: &Path) -> usize {
    std::fs::read_dir(dir.join("points"))
        .map(|d| {
            d.filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|n| n.ends_with(".json") && !n.ends_with(".interrupted.json") && !n.starts_with('.'))
                .count()
        })
        .unwrap_or(0)
}

#[test]
fn a_run_stopped_while_creating_its_target_resumes_after_sigterm_and_sigkill() {
    for (signal, name) in [(libc::SIGTERM, "term"), (libc::SIGKILL, "kill")] {
        let s = Scratch::new(&format!("checks-resume-{name}"));
        let dir = stopped_while_creating(&s, signal);
        let o = drivelab(&["plan", "--resume", dir.to_str().unwrap(), "-q"]);
        assert_eq!(o.status.code(), Some(0), "SIG{name}: resume runs the rest: {}", stderr(&o));
        assert_eq!(finished_points(&dir), 2, "SIG{name}: every point finished");
        let len = std::fs::metadata(s.0.join("t.dat")).unwrap().len();
        assert_eq!(len, 512 << 20, "SIG{name}: the target was made whole");
    }
}

#[test]
fn a_file_put_in_place_of_a_half_made_target_is_never_replaced_by_a_resume() {
    let s = Scratch::new("checks-resume-other");
    let dir = stopped_while_creating(&s, libc::SIGKILL);
    let target = s.0.join("t.dat");
    // Someone else's file now has the name (not drivelab's unfinished one).
    std::fs::remove_file(&target).unwrap();
    std::fs::write(&target, vec![0x5a; 1 << 20]).unwrap();
    let o = drivelab(&["plan", "--resume", dir.to_str().unwrap(), "-q"]);
    assert_eq!(o.status.code(), Some(2), "refused: {}", stderr(&o));
    assert_eq!(std::fs::read(&target).unwrap(), vec![0x5a; 1 << 20], "the file is untouched");
    assert_eq!(finished_points(&dir), 0, "nothing was run");
}

#[test]
fn an_errored_point_is_marked_in_every_report_format() {
    need_loop!();
    let s = Scratch::new("checks-errored");
    // A loop device over a sparse 64 MiB file on a 1 MiB tmpfs: writes past 1 MiB fail (ENOSPC).
    let Some(fs) = TinyTmpfs::new(&s.0.join("tiny"), "1m") else {
        skip("cannot mount a tmpfs");
        return;
    };
    let lo = LoopDev::new(&fs.0.join("sparse"), 64 << 20, None);
    let plan = s.path("plan.toml");
    std::fs::write(&plan, "[defaults]\nrw = \"write\"\nbs = \"64k\"\ntime = \"1s\"\n[matrix]\nqd = [1, 2]\n").unwrap();
    let results = s.path("results");
    // --no-prep: the fill a device gets first would fail past 1 MiB before any point ran.
    let o = drivelab(&[
        "plan",
        &plan,
        &lo.dev,
        "--destroy",
        &lo.dev,
        "--no-prep",
        "--results",
        &results,
        "-q",
        "--continue-on-error",
    ]);
    assert_eq!(o.status.code(), Some(1), "an I/O error is exit 1: {}", stderr(&o));
    let dir = std::fs::read_dir(&results).unwrap().next().unwrap().unwrap().path();
    let d = dir.to_str().unwrap();
    let plan_said = stderr(&o);
    let report = |format: &str| {
        let o = drivelab(&["report", d, "--format", format]);
        assert!(o.status.success(), "{format}: {}\nthe plan said: {plan_said}", stderr(&o));
        stdout(&o)
    };
    for format in ["text", "md"] {
        let out = report(format);
        let cells = out.lines().filter(|l| l.contains(&lo.dev) && l.contains("!err")).count();
        assert!(cells >= 1, "{format}: the errored cells carry !err:\n{out}");
        assert!(out.contains("No space left on device"), "{format}: the footnote says why:\n{out}");
    }
    let o = drivelab(&["report", d, "--format", "csv", "--tables"]);
    let csv = stdout(&o);
    let header = csv.lines().find(|l| l.starts_with("table,metric,unit,target,")).expect("a table");
    assert!(header.ends_with(",errored"), "csv: an errored column: {csv}");
    assert!(csv.lines().any(|l| l.contains(&format!(",{},", lo.dev)) && l.contains("No space left")), "{csv}");
    // The tidy CSV: the errored points say so, with their first error.
    let tidy = report("csv");
    let header: Vec<&str> = tidy.lines().next().unwrap().split(',').collect();
    let errored = header.iter().position(|c| *c == "errored").expect("an errored column");
    let rows: Vec<&str> = tidy.lines().skip(1).filter(|l| l.split(',').nth(errored) == Some("true")).collect();
    assert!(!rows.is_empty() && rows.iter().all(|l| l.contains("No space left")), "tidy csv: {tidy}");
    let json: serde_json::Value = serde_json::from_str(&report("json")).unwrap();
    let marked = json["sections"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["tables"].as_array().unwrap())
        .filter(|t| t["errored"].as_array().is_some_and(|e| e.iter().any(|c| c["error"].is_string())))
        .count();
    assert!(marked >= 1, "json: tables list their errored cells with the error");
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains("class=\"errored\"") && html.contains("!err"), "html: a visible marker");
    assert!(html.contains("I/O error)"), "html: the charts name the errored values");

    // compare: the same plan on a healthy device (A, the baseline) beside the errored run (B).
    let healthy = LoopDev::new(&s.0.join("healthy"), 64 << 20, None);
    let good = s.path("good");
    let o = drivelab(&["plan", &plan, &healthy.dev, "--destroy", &healthy.dev, "--results", &good, "-q"]);
    assert_eq!(o.status.code(), Some(0), "the healthy run: {}", stderr(&o));
    let g = std::fs::read_dir(&good).unwrap().next().unwrap().unwrap().path();
    let g = g.to_str().unwrap();
    let compare = |format: &str| {
        let o = drivelab(&["compare", g, d, "--format", format]);
        assert!(o.status.success(), "compare {format}: {}", stderr(&o));
        stdout(&o)
    };
    for format in ["text", "md"] {
        let out = compare(format);
        let footnote = |l: &&str| l.trim_start_matches('*').starts_with("!err:");
        let marked: Vec<&str> = out.lines().filter(|l| l.contains("!err") && !footnote(l)).collect();
        assert!(!marked.is_empty(), "compare {format}: B's cells carry !err:\n{out}");
        for l in &marked {
            assert!(l.contains('B'), "compare {format}: only B's values and Δs are marked: {l}\n{out}");
        }
        assert!(out.lines().any(|l| footnote(&l)), "compare {format}: a footnote:\n{out}");
        assert!(
            out.contains("B: ") && out.contains("No space left on device"),
            "compare {format}: which run, why:\n{out}"
        );
    }
    let csv = compare("csv");
    assert!(csv.lines().any(|l| l.starts_with("table,") && l.ends_with(",errored")), "compare csv: {csv}");
    assert!(csv.lines().any(|l| l.contains(",B,value,") && l.contains("No space left")), "compare csv: {csv}");
    assert!(!csv.lines().any(|l| l.contains(",A,value,") && l.contains("No space left")), "compare csv: {csv}");
    let json: serde_json::Value = serde_json::from_str(&compare("json")).unwrap();
    let errors: Vec<&str> = json["tables"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["errored"].as_array().into_iter().flatten())
        .filter_map(|c| c["error"].as_str())
        .collect();
    assert!(!errors.is_empty(), "compare json: tables list their errored cells");
    assert!(errors.iter().all(|e| e.starts_with("B: ") && e.contains("No space left")), "compare json: {errors:?}");
    let page = s.path("compare.html");
    let o = drivelab(&["compare", g, d, "-o", &page]);
    assert!(o.status.success(), "compare -o: {}", stderr(&o));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("class=\"errored\"") && html.contains("!err"), "compare html: a visible marker");
    assert!(html.contains("I/O error)") && html.contains("No space left"), "compare html: charts and a note say so");

    // compare of two runs (headline figures): the errored run's columns and a warning say so.
    let run = |dev: &str, results: &str| {
        drivelab(&[
            "run",
            dev,
            "--destroy",
            dev,
            "--rw",
            "write",
            "--bs",
            "64k",
            "--time",
            "1s",
            "--results",
            results,
            "-q",
            "--continue-on-error",
        ])
    };
    assert_eq!(run(&healthy.dev, &s.path("run-good")).status.code(), Some(0));
    assert_eq!(run(&lo.dev, &s.path("run-bad")).status.code(), Some(1), "ENOSPC again");
    let one = |d: &str| std::fs::read_dir(s.path(d)).unwrap().next().unwrap().unwrap().path();
    let (rg, rb) = (one("run-good"), one("run-bad"));
    for format in ["text", "md", "csv", "json"] {
        let o = drivelab(&["compare", rg.to_str().unwrap(), rb.to_str().unwrap(), "--format", format]);
        assert!(o.status.success(), "compare runs {format}: {}", stderr(&o));
        let out = stdout(&o);
        assert!(out.contains("B !err") && out.contains("Δ B vs A !err"), "compare runs {format}: marked:\n{out}");
        assert_eq!(
            out.matches("A !err").count(),
            out.matches("vs A !err").count(),
            "compare runs {format}: the healthy run is not marked:\n{out}"
        );
        assert!(out.contains("No space left on device"), "compare runs {format}: why:\n{out}");
    }
    drop(healthy);
    drop(lo);
    drop(fs);
}
