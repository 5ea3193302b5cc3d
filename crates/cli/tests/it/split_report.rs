//! `--latency-split` in what drivelab shows (issue #28, "Reports"): `info` says whether the
//! split can run here (and the run agrees), and a run with the split has its stages in
//! `report`'s text, in `report.html` as charts, and in `compare`.

use crate::common::{drivelab, results_dir, skip, stderr, stdout, Scratch};

/// `info`'s line and JSON on the split: (available, the reason when not).
fn split_here() -> (bool, Option<String>) {
    let o = drivelab(&["info", "null"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let line = flat.split("latency split: ").nth(1).unwrap_or_else(|| panic!("no latency split line in:\n{text}"));
    let o = drivelab(&["info", "--json", "null"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let s = &v[0]["latency_split"];
    let available = s["available"].as_bool().unwrap_or_else(|| panic!("no latency_split in {v}"));
    let reason = s["reason"].as_str().map(str::to_string);
    assert_eq!(available, reason.is_none(), "{s}");
    if available {
        assert!(line.starts_with("available"), "the line says what the JSON says: {line}");
    } else {
        let why = reason.clone().unwrap();
        assert!(why.len() > 10, "a reason, not a bare no: {why:?}");
        assert!(line.starts_with(&format!("unavailable: {}", why.split_whitespace().collect::<Vec<_>>().join(" "))));
    }
    (available, reason)
}

/// A 300 ms random-read run of a tmpfs file with `extra`, its results under `base`.
fn run(s: &Scratch, base: &str, extra: &[&str]) -> std::process::Output {
    let mut a = vec!["run", "--size", "1m", "--rw", "randread", "--bs", "4k", "--time", "300ms", "-q"];
    let file = s.path("f.dat");
    a.insert(1, &file);
    a.extend_from_slice(&["--results", base]);
    a.extend_from_slice(extra);
    drivelab(&a)
}

#[test]
fn info_says_whether_the_split_is_available_and_a_run_agrees() {
    let (available, reason) = split_here();
    let s = Scratch::new("split-info");
    let o = run(&s, &s.path("r"), &["--latency-split"]);
    if available {
        assert!(o.status.success(), "info said available: {}", stderr(&o));
    } else {
        assert_eq!(o.status.code(), Some(2), "refused as bad input: {}", stderr(&o));
        let first = reason.unwrap().split(':').next().unwrap().to_string();
        assert!(stderr(&o).contains(&first), "the run gives info's reason ({first}): {}", stderr(&o));
    }
}

#[test]
fn a_split_run_has_its_stages_in_the_report_the_page_and_compare() {
    if let (false, Some(why)) = split_here() {
        skip(&format!("the latency split is unavailable here: {why}"));
        return;
    }
    let s = Scratch::new("split-report");
    let (with, without) = (s.path("with"), s.path("without"));
    let o = run(&s, &with, &["--latency-split"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&s, &without, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (with, without) = (results_dir(std::path::Path::new(&with)), results_dir(std::path::Path::new(&without)));
    let w = with.to_str().unwrap();

    let o = drivelab(&["report", w]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("Where the latency goes"), "{text}");
    // The title wraps where its counts make it long (on a busy machine every I/O may go through
    // io-wq): words are looked for across line ends.
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for words in ["I/Os,", "cut", "unmatched", "clamped", "kernel events lost", "p50", "p99", "device", "reap"] {
        assert!(flat.contains(words), "{words:?} in:\n{text}");
    }
    let page = std::fs::read_to_string(with.join("report.html")).unwrap();
    assert!(page.contains("each stage at p50, p99, p99.9"), "the stacked bars are on the run's page");

    let o = drivelab(&["compare", w, w]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(text.contains("B vs A") && text.contains("p99: no stage changed"), "{text}");
    let o = drivelab(&["compare", without.to_str().unwrap(), w]);
    let text = stdout(&o).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(text.contains("only B has one"), "{text}");
}
