//! `drivelab compare` on real results directories: side-by-side deltas, points missing from one
//! run called out, different kinds refused; and `report -o` writing the HTML once only.

use crate::common;

use std::path::{Path, PathBuf};

use crate::common::{drivelab, json, stderr, stdout, Scratch};

/// drivelab on a screen wide enough for whole directory paths in the text tables, which these
/// tests compare with the directories (at 80 columns a long path is abbreviated from the left:
/// width80.rs).
fn drivelab_wide(args: &[&str]) -> std::process::Output {
    crate::common::bin()
        .current_dir(common::scratch_cwd())
        .env("COLUMNS", "300")
        .args(args)
        .output()
        .expect("run drivelab")
}

fn run_plan(s: &Scratch, name: &str, qds: &str) -> PathBuf {
    let plan = s.path(&format!("{name}.toml"));
    std::fs::write(&plan, format!("name = \"{name}\"\n[defaults]\ntime = \"150ms\"\n[matrix]\nqd = [{qds}]\n"))
        .unwrap();
    let results = s.path(name);
    let o = drivelab(&["plan", &plan, "null", "--results", &results, "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::read_dir(&results).unwrap().next().unwrap().unwrap().path()
}

#[test]
fn compare_shows_deltas_and_points_missing_from_a_run() {
    let s = Scratch::new("compare");
    let a = run_plan(&s, "a", "1, 2");
    let b = run_plan(&s, "b", "1");
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let o = drivelab(&["compare", a, b]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("Δ"), "{out}");
    assert!(out.contains("%"), "deltas in percent: {out}");
    assert!(out.contains("qd=2") && out.contains("but not in"), "the missing point is named: {out}");
    let o = drivelab(&["compare", a, b, "--format", "csv"]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("delta_pct"), "{}", stdout(&o));

    let page = s.path("cmp.html");
    let o = drivelab(&["compare", a, b, "-o", &page]);
    assert!(o.status.success(), "{}", stderr(&o));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("<svg") && html.contains("Δ") && html.contains("but not in"),
        "overlaid charts, deltas, missing points"
    );

    // A suite is not comparable with a plan.
    let results = s.path("suite");
    assert!(drivelab(&["suite", "hdparm", "null", "--time", "100ms", "--results", &results, "-q"]).status.success());
    let q = std::fs::read_dir(&results).unwrap().next().unwrap().unwrap().path();
    let o = drivelab(&["compare", a, q.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("same kind"), "{}", stderr(&o));
}

#[test]
fn report_writes_html_once_and_never_over_a_file() {
    if !crate::common::full_tier() {
        return;
    }
    let s = Scratch::new("report-html");
    let dir = run_plan(&s, "r", "1, 4");
    let d = dir.to_str().unwrap();
    assert!(Path::new(&dir.join("report.html")).is_file(), "every plan run leaves its report.html");
    let out = s.path("out.html");
    let o = drivelab(&["report", d, "-o", &out]);
    assert!(o.status.success(), "{}", stderr(&o));
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.contains("<svg") && html.contains("qd"), "charts and tables");
    let o = drivelab(&["report", d, "-o", &out]);
    assert_eq!(o.status.code(), Some(2), "never overwrites");
    let pngs = s.path("png");
    let o = drivelab(&["report", d, "--png", &pngs]);
    assert!(o.status.success(), "{}", stderr(&o));
    let files: Vec<_> =
        std::fs::read_dir(&pngs).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert!(files.len() >= 3 && files.iter().all(|f| f.ends_with(".png")), "{files:?}");
    let o = drivelab(&["report", d, "--png", &pngs]);
    assert_eq!(o.status.code(), Some(2), "PNGs are never overwritten either");
    let o = drivelab(&["report", d, "--format", "md"]);
    assert!(stdout(&o).contains("| "), "{}", stdout(&o));
}

#[test]
fn plan_charts_say_what_each_legend_entry_and_axis_is() {
    let s = Scratch::new("legend");
    let plan = s.path("p.toml");
    std::fs::write(
        &plan,
        "name = \"legend\"\n[defaults]\ntime = \"100ms\"\n[matrix]\nbs = [\"4k\", \"64k\"]\nqd = [1, 2, 4]\n",
    )
    .unwrap();
    let results = s.path("r");
    let o = drivelab(&["plan", &plan, "null", "--results", &results, "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let dir = std::fs::read_dir(&results).unwrap().next().unwrap().unwrap().path();
    let page = std::fs::read_to_string(dir.join("report.html")).unwrap();
    // SVG text as plotters writes it: the words on a line of their own.
    let svg_text = |t: &str| format!(">\n{t}\n</text>");
    for words in ["bs 4 KiB", "bs 64 KiB", "queue depth (I/Os per job)", "I/Os per second (IOPS)"] {
        assert!(page.contains(&svg_text(words)), "no {words:?} on a chart");
    }
    // 4k and 64k MB/s on null may be more than 20x apart: then the axis is log and says so.
    let mbps = ["throughput (MB/s)", "throughput (MB/s, log scale)"];
    assert!(mbps.iter().any(|w| page.contains(&svg_text(w))), "no MB/s axis on a chart");
    for bare in ["4k", "64k"] {
        assert!(!page.contains(&svg_text(bare)), "a bare {bare:?} on a chart");
    }
}

/// A plan over qd 1, 2 on a new 16 MiB file `file` in the scratch directory; its results directory.
fn plan_on_file(s: &Scratch, name: &str, file: &str) -> PathBuf {
    let plan = s.path(&format!("{name}.toml"));
    std::fs::write(&plan, format!("name = \"{name}\"\n[defaults]\ntime = \"100ms\"\n[matrix]\nqd = [1, 2]\n")).unwrap();
    let results = s.path(name);
    let o = drivelab(&["plan", &plan, &s.path(file), "--size", "16m", "--results", &results, "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::read_dir(&results).unwrap().next().unwrap().unwrap().path()
}

/// The model the runs table must show for a results directory's only target, from its run.json.
fn model_of(dir: &Path) -> (String, String) {
    let t = &json(&dir.join("run.json"))["targets"][0];
    let model = match (&t["device"]["model"], &t["file"]["filesystem"]) {
        (serde_json::Value::String(m), _) => m.clone(),
        (_, serde_json::Value::String(fs)) => format!("— ({fs} file)"),
        _ => "—".into(),
    };
    (t["path"].as_str().unwrap().to_string(), model)
}

#[test]
fn compare_names_runs_by_label_and_shows_their_targets_and_models_in_every_format() {
    let s = Scratch::new("compare-labels");
    let a = plan_on_file(&s, "a", "one.dat");
    let b = plan_on_file(&s, "b", "two.dat");
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let (ta, ma) = model_of(Path::new(a));
    let (tb, mb) = model_of(Path::new(b));
    let cmp = |extra: &[&str]| {
        let mut args = vec!["compare", a, b, "--label", "fast", "--label", "slow"];
        args.extend_from_slice(extra);
        let o = drivelab_wide(&args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        stdout(&o)
    };

    let text = cmp(&[]);
    assert!(text.starts_with("Comparing plan results: fast (baseline) with slow\n"), "{text}");
    let row = |label: &str, dir: &str, t: &str, m: &str| {
        text.lines().any(|l| l.split("  ").map(str::trim).filter(|c| !c.is_empty()).eq([label, dir, t, m]))
    };
    assert!(row("fast", a, &ta, &ma) && row("slow", b, &tb, &mb), "targets and models: {text}");
    assert!(text.contains("\nΔ slow vs fast "), "short Δ rows: {text}");
    assert!(!text.contains(&format!("Δ {b}")), "no directory in a Δ row: {text}");

    let md = cmp(&["--format", "md"]);
    assert!(md.contains(&format!("| slow | {b} | {tb} | {mb} |")), "{md}");
    let csv = cmp(&["--format", "csv"]);
    assert!(
        csv.starts_with(&format!(
            "table,run,results directory,target,model\nRuns compared,fast,{a},{ta},{ma}\nRuns compared,slow,{b},{tb},{mb}\n"
        )),
        "{csv}"
    );
    assert!(csv.contains(",slow,slow,delta_pct,fast,"), "{csv}");
    let js: serde_json::Value = serde_json::from_str(&cmp(&["--format", "json"])).expect("JSON");
    assert_eq!(js["runs"], serde_json::json!(["fast", "slow"]));
    assert_eq!(js["run_info"][1]["targets"][0]["model"], mb.as_str());
    assert_eq!(js["run_info"][1]["dir"], b);
    let page = s.path("cmp.html");
    cmp(&["-o", &page]);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains(&format!("<td class=\"t\">{ma}</td>")) && html.contains(">slow</td>"), "{html}");

    // Without --label: A and B, still with targets and models.
    let o = drivelab(&["compare", a, b]);
    let text = stdout(&o);
    assert!(text.contains("\nΔ B vs A ") && text.contains(&mb), "{text}");

    // One --label for two directories: refused, naming the fix, nothing printed.
    let o = drivelab(&["compare", a, b, "--label", "fast"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("1 --label for 2 results directories: give one --label NAME per directory"),
        "{}",
        stderr(&o)
    );
    assert!(stdout(&o).is_empty());
}

#[test]
fn compare_of_runs_lists_each_runs_target_under_its_label() {
    let s = Scratch::new("compare-run-labels");
    let results = s.path("r");
    for _ in 0..2 {
        let o = drivelab(&["run", "null", "--time", "100ms", "--results", &results, "-q"]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&results).unwrap().map(|e| e.unwrap().path()).collect();
    dirs.sort();
    let (a, b) = (dirs[0].to_str().unwrap(), dirs[1].to_str().unwrap());
    for format in ["text", "md", "csv", "json"] {
        let o = drivelab_wide(&["compare", a, b, "--label", "before", "--label", "after", "--format", format]);
        assert!(o.status.success(), "{format}: {}", stderr(&o));
        let out = stdout(&o);
        for want in ["before", "after", "Δ after vs before", "— (null target)", a] {
            assert!(out.contains(want), "{format}: no {want:?} in {out}");
        }
    }
}
