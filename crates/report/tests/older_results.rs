//! Reports and tables render from results written by an earlier drivelab of the same schema:
//! `fixtures/schema1-hdparm` is a results directory written by drivelab 0.1.0 (schema 1) and
//! kept as it was written. Later versions may add fields, never require new ones.

use std::path::Path;

use drivelab_lab::results::{self, Kind, Manifest, PointResult};
use drivelab_lab::suites::SuiteId;
use drivelab_report::{html, series_csv, suite_tables};

fn saved() -> results::Results {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/schema1-hdparm");
    results::load(&dir).expect("a schema-1 results directory still loads")
}

fn fixture() -> (Manifest, Vec<PointResult>) {
    let saved = saved();
    (saved.manifest, saved.points)
}

#[test]
fn tables_from_schema_1_results_match_their_points() {
    let (m, points) = fixture();
    assert_eq!(m.schema, 1);
    assert_eq!(m.kind, Kind::Suite(SuiteId::Hdparm));
    let plan = m.plan().expect("a suite has a plan");
    assert_eq!(plan.targets.len(), 1, "schema 1 had no target list: it is rebuilt from the points");
    for p in &points {
        assert_eq!(p.point.spec.bs, p.result.spec.bs, "the spec is derived again from the saved fields");
    }
    assert_eq!(points.len(), 2);
    let tables = suite_tables::tables(m.kind, &points);
    assert_eq!(tables.len(), 1);
    let t = &tables[0];
    assert_eq!(t.cols, vec!["cached reads", "disk reads"]);
    for (c, p) in points.iter().enumerate() {
        let want = p.result.per_target[0].total.bw_mb_per_s;
        assert_eq!(t.rows[0].1[c], Some(want), "cell {c}");
    }
}

#[test]
fn the_html_report_renders_from_schema_1_results() {
    let (m, points) = fixture();
    let page = html::report(&m, &points);
    assert!(page.starts_with("<!doctype html>") && page.trim_end().ends_with("</html>"));
    assert!(page.contains("cached reads") && page.contains("disk reads"));
    assert!(page.matches("<svg").count() >= 3, "a chart per table plus latency charts");
    assert!(page.contains(&m.host.kernel), "run facts at the top");
}

#[test]
fn the_per_second_series_of_schema_1_results_export_as_csv_with_their_saved_figures() {
    let saved = saved();
    let text = series_csv::csv(&saved);
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(series_csv::COLUMNS.join(",").as_str()));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let seconds: usize = saved.points.iter().map(|p| p.result.series.len()).sum();
    assert_eq!(rows.len(), seconds, "a row per saved second");
    let col = |name: &str| series_csv::COLUMNS.iter().position(|c| *c == name).unwrap();
    let mut i = 0;
    for p in &saved.points {
        for s in &p.result.series {
            let r = &rows[i];
            assert_eq!((r[col("record")], r[col("label")]), ("point", p.point.label.as_str()));
            assert_eq!(r[col("time_s")].parse::<f64>().unwrap(), s.t_s);
            assert_eq!(r[col("iops")].parse::<f64>().unwrap(), s.iops);
            assert_eq!(r[col("mb_per_s")].parse::<f64>().unwrap(), s.bw_bytes_per_s / 1e6);
            assert_eq!(r[col("lat_p99_ns")].parse::<u64>().unwrap(), s.lat_p99_ns);
            assert_eq!(r[col("resp_p99_ns")], "", "closed loop: no response time");
            i += 1;
        }
    }
}
