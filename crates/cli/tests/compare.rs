//! `drivelab compare` on real results directories: side-by-side deltas, points missing from one
//! run called out, different kinds refused; and `report -o` writing the HTML once only.

mod common;

use std::path::{Path, PathBuf};

use common::{drivelab, stderr, stdout, Scratch};

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
    for words in ["bs 4 KiB", "bs 64 KiB", "queue depth (I/Os per job)", "throughput (MB/s)", "I/Os per second (IOPS)"]
    {
        assert!(page.contains(&svg_text(words)), "no {words:?} on a chart");
    }
    for bare in ["4k", "64k"] {
        assert!(!page.contains(&svg_text(bare)), "a bare {bare:?} on a chart");
    }
}
