//! Reports and tables render from results written by an earlier drivelab of the same schema:
//! `fixtures/schema1-hdparm` is a results directory written by drivelab 0.1.0 (schema 1) and
//! kept as it was written. Later versions may add fields, never require new ones.

use std::path::Path;

use drivelab_lab::results::{self, Kind, Manifest, PointResult};
use drivelab_lab::suites::SuiteId;
use drivelab_report::{html, suite_tables};

fn fixture() -> (Manifest, Vec<PointResult>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/schema1-hdparm");
    let saved = results::load(&dir).expect("a schema-1 results directory still loads");
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
