//! `report DIR --format csv` is one tidy table that pandas reads with no options: a row per
//! saved point, a column per field and figure, numbers as numbers, the values those the points
//! saved. And `--format csv --tables` keeps the pivot tables, each block naming its metric and
//! both axes.

use crate::common;

use std::path::PathBuf;
use std::process::Command;

use crate::common::{drivelab, stderr, stdout, Saved, Scratch};

/// A plan over rw x qd on two new 8 MiB files; its results directory.
fn run_plan(s: &Scratch) -> PathBuf {
    let plan = s.path("tidy.toml");
    std::fs::write(
        &plan,
        "name = \"tidy\"\n[defaults]\ntime = \"100ms\"\n[matrix]\nrw = [\"randread\", \"randrw\"]\nqd = [1, 2]\n",
    )
    .unwrap();
    let results = s.path("r");
    let o = drivelab(&["plan", &plan, &s.path("a.dat"), &s.path("b.dat"), "--size", "8m", "--results", &results, "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::read_dir(&results).unwrap().next().unwrap().unwrap().path()
}

/// pandas' view of a CSV file with no options: rows, columns, dtypes and the records.
const PANDAS: &str = r#"
import json, sys
import pandas as pd
df = pd.read_csv(sys.argv[1])
print(json.dumps({
    "rows": len(df),
    "columns": list(df.columns),
    "dtypes": {c: str(t) for c, t in df.dtypes.items()},
    "records": json.loads(df.to_json(orient="records", double_precision=15)),
}))
"#;

/// A python3 that has pandas: the one on PATH, else Debian's (python3-pandas installs there,
/// while PATH may lead to another python first, pyenv's say); Err says why there is none.
fn python_with_pandas() -> Result<&'static str, String> {
    for python in ["python3", "/usr/bin/python3"] {
        if Command::new(python).args(["-c", "import pandas"]).output().is_ok_and(|o| o.status.success()) {
            return Ok(python);
        }
    }
    Err("no python3 with pandas (python3 on PATH nor /usr/bin/python3): .ci/run installs python3-pandas".into())
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

#[test]
fn pandas_reads_the_tidy_csv_of_a_plan_into_a_row_per_point_with_the_saved_values() {
    if !crate::common::full_tier() {
        return;
    }
    let python = match python_with_pandas() {
        Ok(p) => p,
        Err(why) => return common::skip(&why),
    };
    let s = Scratch::new("tidy-csv");
    let dir = run_plan(&s);
    let o = drivelab(&["report", dir.to_str().unwrap(), "--format", "csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = stdout(&o);
    assert!(!csv.contains("\n\n") && !csv.starts_with('#'), "one table, no blank line, no comment: {csv}");
    let file = s.path("tidy.csv");
    std::fs::write(&file, &csv).unwrap();
    let o = Command::new(python).args(["-c", PANDAS, &file]).output().unwrap();
    assert!(o.status.success(), "pandas: {}", stderr(&o));
    let df: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("pandas' JSON");

    let saved = Saved::load(&dir);
    assert!(saved.points.len() >= 8, "4 points on each of two targets: {}", saved.points.len());
    assert_eq!(df["rows"], saved.points.len(), "a row per point");
    let columns: Vec<&str> = df["columns"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
    let numeric = [
        "index",
        "target_count",
        "qd",
        "iops",
        "mb_per_s",
        "ios",
        "bytes",
        "lat_p50_ns",
        "lat_p99_ns",
        "lat_p99.9_ns",
        "lat_max_ns",
        "read_iops",
        "read_lat_p99_ns",
        "write_iops",
        "write_lat_p99_ns",
        "cpu_pct",
        "error_count",
        "spec_bs_bytes",
    ];
    for c in numeric.iter().chain(&["record", "label", "targets", "rw", "first_error", "errored"]) {
        assert!(columns.contains(c), "no column {c}: {columns:?}");
    }
    for c in numeric {
        let t = df["dtypes"][c].as_str().unwrap();
        assert!(t.starts_with("int") || t.starts_with("float"), "{c} read as {t}, not a number");
    }
    assert_eq!(df["dtypes"]["errored"], "bool");

    let records = df["records"].as_array().unwrap();
    for p in &saved.points {
        let index = p["point"]["index"].as_u64().unwrap();
        let row = records.iter().find(|r| r["index"] == index).unwrap_or_else(|| panic!("no row of point {index}"));
        assert_eq!(row["label"], p["point"]["label"]);
        let targets: Vec<&str> =
            p["point"]["targets"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
        assert_eq!(row["targets"], targets.join(";"));
        assert_eq!(row["target_count"], targets.len());
        for (k, v) in p["point"]["fields"].as_array().unwrap().iter().map(|kv| (kv[0].as_str().unwrap(), &kv[1])) {
            assert_eq!(row[k].to_string().trim_matches('"'), v.as_str().unwrap(), "field {k} of point {index}");
        }
        let r = &p["result"];
        let num = |v: &serde_json::Value| v.as_f64().unwrap_or_else(|| panic!("a number: {v}"));
        for (col, saved) in [
            ("iops", &r["total"]["iops"]),
            ("mb_per_s", &r["total"]["bw_mb_per_s"]),
            ("ios", &r["total"]["ops"]),
            ("lat_p99_ns", &r["total"]["lat_ns"]["p99"]),
            ("lat_p99.9_ns", &r["total"]["lat_ns"]["p99.9"]),
            ("lat_max_ns", &r["total"]["lat_ns"]["max"]),
            ("read_iops", &r["read"]["iops"]),
            ("read_lat_p50_ns", &r["read"]["lat_ns"]["p50"]),
        ] {
            assert!(close(num(&row[col]), num(saved)), "point {index} {col}: {} vs saved {saved}", row[col]);
        }
        let cpu = num(&r["cpu"]["usr_pct"]) + num(&r["cpu"]["sys_pct"]);
        assert!(close(num(&row["cpu_pct"]), cpu), "point {index} cpu_pct");
        // A point that wrote has the write columns; one that only read has them empty.
        if num(&r["write"]["ops"]) > 0.0 {
            assert!(close(num(&row["write_lat_p99_ns"]), num(&r["write"]["lat_ns"]["p99"])));
        } else {
            assert!(row["write_lat_p99_ns"].is_null(), "point {index}: {}", row["write_lat_p99_ns"]);
        }
        assert_eq!(row["errored"], false);
    }
}

#[test]
fn csv_tables_name_each_blocks_metric_and_both_axes_and_need_format_csv() {
    let s = Scratch::new("csv-tables");
    let dir = run_plan(&s);
    let d = dir.to_str().unwrap();
    let o = drivelab(&["report", d, "--format", "csv", "--tables"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    // Tables, then (as footnotes) a block of the notes.
    let headers: Vec<&str> = out.split("\n\n").map(|b| b.lines().next().unwrap()).filter(|h| *h != "note").collect();
    assert!(headers.len() > 1, "a block per table: {out}");
    for h in &headers {
        assert!(h.starts_with("table,metric,unit,"), "each block names its metric and unit: {h}");
        assert!(!h.contains(" \\ "), "no `rows \\ cols` header: {h}");
    }
    // Plan tables have a column per qd: the axis is named in every column heading.
    let qd = headers.iter().find(|h| h.contains(",qd=")).unwrap_or_else(|| panic!("a table by qd: {headers:?}"));
    assert!(qd.contains(",qd=1,qd=2"), "{qd}");
    let first = out.lines().nth(1).unwrap();
    assert!(first.split(',').nth(1).is_some_and(|m| m.ends_with("_per_s") || m.contains("iops")), "{first}");

    let o = drivelab(&["report", d, "--tables"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--tables writes the tables as CSV: add --format csv"), "{}", stderr(&o));
}

#[test]
fn several_directories_make_one_tidy_table_whose_rows_name_their_directory() {
    let s = Scratch::new("tidy-many");
    let results = s.path("r");
    for _ in 0..2 {
        let o = drivelab(&["run", "null", "--time", "100ms", "--results", &results, "-q"]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let mut dirs: Vec<String> =
        std::fs::read_dir(&results).unwrap().map(|e| e.unwrap().path().to_string_lossy().into_owned()).collect();
    dirs.sort();
    let o = drivelab(&["report", &dirs[0], &dirs[1], "--format", "csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "one header, a row per run: {out}");
    assert!(lines[0].starts_with("results,record,"), "{out}");
    for (line, dir) in lines[1..].iter().zip(&dirs) {
        assert!(line.starts_with(&format!("{dir},point,")), "{line} is of {dir}");
    }
}
