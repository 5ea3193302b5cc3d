use super::*;
use crate::all_ranks::{with_all_ranks, ALL_RANKS};
use crate::grid::human;

/// A saved point of `step` with `fields` that moved `mb` MB/s on each target.
fn point(step: &str, fields: &[(&str, &str)], targets: &[(&str, f64)]) -> PointResult {
    crate::test_support::point("", step, fields, targets)
}

fn spec(rows: Key, cols: Key, metric: Metric) -> TableSpec {
    TableSpec {
        title: "T".into(),
        rows,
        cols,
        metric,
        dir: Dir::Read,
        filter: Vec::new(),
        step: None,
        col_format: None,
    }
}

fn field(k: &str) -> Key {
    Key::Field(k.into())
}

fn row(label: &str, values: &[Option<f64>]) -> (String, Vec<Option<f64>>) {
    (label.to_string(), values.to_vec())
}

/// The seed's "100% Sequential Write Performance": SAS and SATA II at 1, 2, 3 DQL/Disk.
const SEQ: [(&str, [f64; 3]); 2] = [("/dev/sas", [329.0, 333.0, 333.5]), ("/dev/sata2", [242.0, 245.0, 245.25])];

fn iometer_spec() -> TableSpec {
    TableSpec {
        title: "100% Sequential Write Performance".into(),
        col_format: Some("{} DQL/Disk".into()),
        ..spec(Key::Target, field("qd"), Metric::MBps)
    }
}

fn iometer_expected() -> Table {
    Table {
        title: "100% Sequential Write Performance".into(),
        unit: "MB/s".into(),
        row_header: "target".into(),
        col_header: "qd".into(),
        cols: vec!["1 DQL/Disk".into(), "2 DQL/Disk".into(), "3 DQL/Disk".into()],
        rows: vec![
            row("/dev/sas", &[Some(329.0), Some(333.0), Some(333.5)]),
            row("/dev/sata2", &[Some(242.0), Some(245.0), Some(245.25)]),
        ],
        note: None,
        errored: Vec::new(),
        unsteady: Vec::new(),
    }
}

#[test]
fn two_targets_by_qd_together_put_each_targets_mb_per_s_in_its_cell() {
    // together = true: every point ran on both targets; per_target holds each one's numbers.
    let points: Vec<PointResult> = (0..3)
        .map(|i| {
            let qd = (i + 1).to_string();
            point("", &[("rw", "write"), ("qd", &qd)], &[(SEQ[0].0, SEQ[0].1[i]), (SEQ[1].0, SEQ[1].1[i])])
        })
        .collect();
    assert_eq!(build(&iometer_spec(), &points), iometer_expected());
}

#[test]
fn two_targets_by_qd_one_after_another_give_the_same_table() {
    // together = false: target-major order, each point on one target.
    let points: Vec<PointResult> = SEQ
        .iter()
        .flat_map(|&(t, mbs)| {
            (0..3).map(move |i| point("", &[("rw", "write"), ("qd", &(i + 1).to_string())], &[(t, mbs[i])]))
        })
        .collect();
    assert_eq!(build(&iometer_spec(), &points), iometer_expected());
}

#[test]
fn without_a_target_key_cells_use_the_points_aggregate() {
    let points = vec![
        point("", &[("bs", "4k"), ("qd", "1")], &[("/a", 1.0), ("/b", 2.0)]),
        point("", &[("bs", "4k"), ("qd", "2")], &[("/a", 3.0), ("/b", 4.0)]),
        point("", &[("bs", "64k"), ("qd", "1")], &[("/a", 5.0), ("/b", 6.0)]),
    ];
    let t = build(&spec(field("bs"), field("qd"), Metric::MBps), &points);
    assert_eq!(t.row_header, "bs");
    assert_eq!(t.cols, ["1", "2"]);
    assert_eq!(t.rows, vec![row("4k", &[Some(3.0), Some(7.0)]), row("64k", &[Some(11.0), None])]);
    // Target count as a key.
    let t = build(&spec(Key::TargetCount, field("bs"), Metric::Iops), &points);
    assert_eq!((t.row_header.as_str(), t.unit.as_str()), ("targets", "IOPS"));
    assert_eq!(t.rows, vec![row("2", &[Some(5.0 * 256.0), Some(11.0 * 256.0)])]);
}

/// `suite span A B`: each drive's points under the same step and column were averaged into one
/// cell (issue #38). Figures of different drives are never averaged: each gets its own row, and
/// a repeat of one drive is still the mean of its runs.
#[test]
fn points_of_different_drives_in_one_cell_are_never_averaged() {
    let points = vec![
        point("span", &[("data", "random")], &[("/fast", 900.0)]),
        point("span", &[("data", "random")], &[("/slow", 100.0)]),
        point("span", &[("data", "zero")], &[("/fast", 1000.0)]),
        point("span", &[("data", "zero")], &[("/slow", 110.0)]),
        point("span", &[("data", "zero")], &[("/slow", 130.0)]),
    ];
    let t = build(&spec(Key::Step, field("data"), Metric::MBps), &points);
    assert_eq!(t.cols, ["random", "zero"]);
    assert_eq!(
        t.rows,
        vec![row("span · /fast", &[Some(900.0), Some(1000.0)]), row("span · /slow", &[Some(100.0), Some(120.0)])]
    );
    // One drive's repeats alone: one row, their mean, as before.
    let one: Vec<PointResult> = points.into_iter().filter(|p| p.result.per_target[0].path == "/slow").collect();
    let t = build(&spec(Key::Step, field("data"), Metric::MBps), &one);
    assert_eq!(t.rows, vec![row("span", &[Some(100.0), Some(120.0)])]);
}

#[test]
fn filter_and_step_select_the_points() {
    let points = vec![
        point("seq", &[("rw", "write"), ("qd", "1")], &[("/a", 100.0)]),
        point("seq", &[("rw", "read"), ("qd", "1")], &[("/a", 200.0)]),
        point("rand", &[("rw", "write"), ("qd", "1")], &[("/a", 10.0)]),
        point("rand", &[("rw", "write"), ("qd", "2")], &[("/a", 20.0)]),
        point("rand", &[("qd", "4")], &[("/a", 40.0)]), // no rw: never matches a filter on rw
    ];
    let mut s = spec(Key::Target, field("qd"), Metric::MBps);
    s.filter = vec![("rw".into(), "write".into())];
    let t = build(&s, &points);
    assert_eq!(t.cols, ["1", "2"]);
    assert_eq!(t.rows, vec![row("/a", &[Some(55.0), Some(20.0)])], "seq and rand at qd 1 averaged");

    s.step = Some("rand".into());
    let t = build(&s, &points);
    assert_eq!(t.rows, vec![row("/a", &[Some(10.0), Some(20.0)])]);

    s.filter.clear();
    let t = build(&s, &points);
    assert_eq!(t.cols, ["1", "2", "4"]);
    assert_eq!(t.rows, vec![row("/a", &[Some(10.0), Some(20.0), Some(40.0)])]);

    s.filter = vec![("rw".into(), "write".into()), ("qd".into(), "2".into())];
    assert_eq!(build(&s, &points).rows, vec![row("/a", &[Some(20.0)])]);

    // The points grouped once by step give every table as the filter over all points does.
    let grouped = ByStep::new(&points);
    for step in [None, Some("seq"), Some("rand"), Some("none")] {
        for filter in [vec![], vec![("rw".to_string(), "write".to_string())]] {
            let s = TableSpec { step: step.map(String::from), filter, ..spec(Key::Target, field("qd"), Metric::MBps) };
            let (a, b) = (grouped.build(&s), build(&s, &points));
            assert_eq!((a.cols, a.rows, a.title), (b.cols, b.rows, b.title), "{step:?}");
        }
    }

    let by_step = build(&spec(Key::Step, field("rw"), Metric::MBps), &points);
    assert_eq!(by_step.row_header, "step");
    assert_eq!(by_step.cols, ["write", "read"], "the point without rw is left out");
    assert_eq!(by_step.rows, vec![row("seq", &[Some(100.0), Some(200.0)]), row("rand", &[Some(15.0), None])]);
}

#[test]
fn col_format_replaces_the_placeholder() {
    let points = vec![point("", &[("read", "70")], &[("/a", 1.0)])];
    let mut s = spec(Key::Target, field("read"), Metric::MBps);
    s.col_format = Some("{}% read".into());
    assert_eq!(build(&s, &points).cols, ["70% read"]);
    s.col_format = Some("MB/s".into());
    assert_eq!(build(&s, &points).cols, ["MB/s"]);
}

#[test]
fn missing_cells_render_as_a_dash_and_an_empty_csv_field() {
    let points = vec![
        point("", &[("qd", "1")], &[("sda", 329.0)]),
        point("", &[("qd", "2")], &[("sda", 333.0)]),
        point("", &[("qd", "1")], &[("sdb", 96.0)]),
    ];
    let t = build(&spec(Key::Target, field("qd"), Metric::MBps), &points);
    assert_eq!(t.rows, vec![row("sda", &[Some(329.0), Some(333.0)]), row("sdb", &[Some(96.0), None])]);
    assert_eq!(t.text(), "T (MB/s)\ntarget \\ qd     1    2\nsda           329  333\nsdb          96.0    —\n");
    assert_eq!(
        t.csv(),
        "table,metric,unit,target,qd=1,qd=2\nT (MB/s),mb_per_s,MB/s,sda,329,333\nT (MB/s),mb_per_s,MB/s,sdb,96,\n"
    );
    assert!(t.markdown().ends_with("| sdb         | 96.0 |   — |\n"), "{}", t.markdown());
}

#[test]
fn repeats_are_averaged_and_the_title_says_so() {
    let p = |qd: &str, mb| point("", &[("qd", qd)], &[("/a", mb)]);
    let points = vec![p("1", 100.0), p("1", 110.0), p("1", 120.0), p("2", 200.0), p("2", 201.0), p("2", 205.0)];
    let t = build(&spec(Key::Target, field("qd"), Metric::MBps), &points);
    assert_eq!(t.title, "T, mean of 3 runs");
    assert_eq!(t.rows, vec![row("/a", &[Some(110.0), Some(202.0)])]);
    assert_eq!(t.heading(), "T, mean of 3 runs (MB/s)");

    // An unfinished repeat (interrupted run): uneven counts.
    let t = build(&spec(Key::Target, field("qd"), Metric::MBps), &points[..4]);
    assert_eq!(t.title, "T, mean of 1–3 runs");
    // No repeats: the title as given.
    assert_eq!(build(&spec(Key::Target, field("qd"), Metric::MBps), &points[2..4]).title, "T");
}

#[test]
fn latency_cpu_and_directions() {
    let points =
        vec![point("", &[("qd", "1")], &[("/a", 2.0)]), point("", &[("qd", "2")], &[("/a", 3.0), ("/b", 4.0)])];
    let t = build(&spec(Key::Target, field("qd"), Metric::LatP99Us), &points);
    assert_eq!(t.unit, "µs");
    assert_eq!(t.rows, vec![row("/a", &[Some(2.0), Some(3.0)]), row("/b", &[None, Some(4.0)])]);
    let t = build(&spec(Key::Target, field("qd"), Metric::LatMeanUs), &points);
    assert_eq!(t.rows[0], row("/a", &[Some(1.0), Some(1.5)]));
    // Nothing was written: no write latency, write throughput 0.
    let mut s = spec(Key::Target, field("qd"), Metric::LatP99Us);
    s.dir = Dir::Write;
    assert_eq!(build(&s, &points).rows[0], row("/a", &[None, None]));
    s.metric = Metric::MBps;
    assert_eq!(build(&s, &points).rows[0], row("/a", &[Some(0.0), Some(0.0)]));
    s.dir = Dir::Total;
    s.metric = Metric::MiBps;
    assert_eq!(build(&s, &points).rows[0], row("/a", &[Some(2e6 / 1048576.0), Some(3e6 / 1048576.0)]));
    // CPU is per point: per target only where the point ran on that target alone.
    let t = build(&spec(Key::Target, field("qd"), Metric::CpuPct), &points);
    assert_eq!(t.unit, "%");
    assert_eq!(t.rows, vec![row("/a", &[Some(15.0), None]), row("/b", &[None, None])]);
    let t = build(&spec(Key::TargetCount, field("qd"), Metric::CpuPct), &points);
    assert_eq!(t.rows, vec![row("1", &[Some(15.0), None]), row("2", &[None, Some(15.0)])]);
}

fn small() -> Table {
    Table {
        title: "Random read".into(),
        unit: "IOPS".into(),
        row_header: "target".into(),
        col_header: "qd".into(),
        cols: vec!["1 DQL".into(), "32 DQL".into()],
        rows: vec![row("sda", &[Some(12.345), Some(245312.4)]), row("nvme0n1", &[Some(1.5), None])],
        note: None,
        errored: Vec::new(),
        unsteady: Vec::new(),
    }
}

#[test]
fn text_is_aligned_with_sensible_precision() {
    assert_eq!(
        small().text(),
        "Random read (IOPS)\n\
         target \\ qd  1 DQL   32 DQL\n\
         sda           12.3  245,312\n\
         nvme0n1       1.50        —\n",
        "the header names the rows' axis and the columns'"
    );
    let mut t = small();
    t.unit = "MB/s".into();
    t.rows[0].1[1] = Some(1234.5);
    assert!(t.text().contains("sda           12.3    1234\n"), "no separators outside IOPS:\n{}", t.text());
    // Columns without an axis of their own: the rows' axis alone.
    t.col_header = String::new();
    assert!(t.text().contains("\ntarget   1 DQL"), "{}", t.text());
}

#[test]
fn markdown_is_a_github_table() {
    assert_eq!(
        small().markdown(),
        "**Random read (IOPS)**\n\
         \n\
         | target \\ qd | 1 DQL |  32 DQL |\n\
         | ----------- | ----: | ------: |\n\
         | sda         |  12.3 | 245,312 |\n\
         | nvme0n1     |  1.50 |       — |\n"
    );
    assert!(small().markdown_untitled().starts_with("| target \\ qd |"), "{}", small().markdown_untitled());
    let mut t = small();
    t.rows[0].0 = "a|b".into();
    assert!(t.markdown().contains("| a\\|b        |"), "{}", t.markdown());
}

#[test]
fn csv_has_raw_numbers_and_quotes_where_needed() {
    // Each row names its table, metric and unit; each column its axis and value.
    assert_eq!(
        small().csv(),
        "table,metric,unit,target,qd=1 DQL,qd=32 DQL\n\
         Random read (IOPS),iops,IOPS,sda,12.345,245312.4\n\
         Random read (IOPS),iops,IOPS,nvme0n1,1.5,\n"
    );
    let mut t = small();
    t.row_header = "bs rw".into();
    t.cols[0] = "4k,70%".into();
    t.rows[0].0 = "say \"hi\"".into();
    t.rows[1].0 = "two\nlines".into();
    let rows = "Random read (IOPS),iops,IOPS";
    assert_eq!(
        t.csv(),
        format!(
            "table,metric,unit,bs rw,\"qd=4k,70%\",qd=32 DQL\n{rows},\"say \"\"hi\"\"\",12.345,245312.4\n{rows},\"two\nlines\",1.5,\n"
        )
    );
}

#[test]
fn numbers_for_people() {
    assert_eq!(human(329.4, "MB/s"), "329");
    assert_eq!(human(96.04, "MB/s"), "96.0");
    assert_eq!(human(5.678, "µs"), "5.68");
    assert_eq!(human(245_312.4, "IOPS"), "245,312");
    assert_eq!(human(1_234_567.0, "IOPS"), "1,234,567");
    assert_eq!(human(999.0, "IOPS"), "999");
    assert_eq!(human(1000.0, "IOPS"), "1,000");
    assert_eq!(human(12.25, "IOPS"), "12.2");
}

/// A qd x bs plan (`[matrix] qd = [1, 2]`, `bs = ["4k", "64k"]`) on `targets`, target-major.
fn qd_bs_plan(targets: &[&str], repeat: usize) -> Vec<PointResult> {
    let mut out = Vec::new();
    for (ti, t) in targets.iter().enumerate() {
        for (qi, qd) in ["1", "2"].iter().enumerate() {
            for (bi, bs) in ["4k", "64k"].iter().enumerate() {
                for r in 0..repeat {
                    let mb = (100 * ti + 10 * qi + bi) as f64 + r as f64;
                    out.push(point("", &[("rw", "randread"), ("time", "30s"), ("qd", qd), ("bs", bs)], &[(t, mb)]));
                }
            }
        }
    }
    out
}

#[test]
fn default_tables_key_columns_by_the_innermost_varying_field() {
    let points = qd_bs_plan(&["/dev/sda"], 1);
    let specs = default_tables(&points);
    let metrics: Vec<Metric> = specs.iter().map(|s| s.metric).collect();
    assert_eq!(metrics, [Metric::MBps, Metric::Iops, Metric::LatP99Us]);
    for s in &specs {
        assert_eq!((&s.rows, &s.cols, s.dir), (&field("qd"), &field("bs"), Dir::Total));
        assert_eq!((s.step.as_ref(), s.col_format.as_ref(), s.filter.len()), (None, None, 0));
    }
    assert_eq!(specs[0].title, "Throughput, rw=randread");
    assert_eq!(specs[2].title, "p99 latency, rw=randread");
    let t = build(&specs[0], &points);
    assert_eq!((t.row_header.as_str(), t.cols.clone()), ("qd", vec!["4k".to_string(), "64k".to_string()]));
    assert_eq!(t.rows, vec![row("1", &[Some(0.0), Some(1.0)]), row("2", &[Some(10.0), Some(11.0)])]);

    // Several targets: the target leads the row key; repeats are averaged.
    let points = qd_bs_plan(&["/dev/sda", "/dev/sdb"], 2);
    let specs = default_tables(&points);
    assert_eq!(specs[0].rows, Key::Join(vec![Key::Target, field("qd")]));
    let t = build(&specs[0], &points);
    assert_eq!(t.title, "Throughput, rw=randread, mean of 2 runs");
    assert_eq!(t.row_header, "target qd");
    let labels: Vec<&str> = t.rows.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(labels, ["/dev/sda qd=1", "/dev/sda qd=2", "/dev/sdb qd=1", "/dev/sdb qd=2"]);
    assert_eq!(t.rows[3].1, [Some(110.5), Some(111.5)]);
}

#[test]
fn default_tables_with_one_or_no_varying_field_key_rows_by_target() {
    let points: Vec<PointResult> = ["/dev/sas", "/dev/scsi"]
        .iter()
        .flat_map(|t| ["1", "2", "3"].map(|qd| point("", &[("rw", "write"), ("bs", "64k"), ("qd", qd)], &[(t, 1.0)])))
        .collect();
    let specs = default_tables(&points);
    assert_eq!((&specs[0].rows, &specs[0].cols), (&Key::Target, &field("qd")));
    assert_eq!(specs[0].title, "Throughput, rw=write bs=64k");
    assert_eq!(build(&specs[0], &points).rows.len(), 2);

    let one = vec![point("", &[("rw", "read"), ("bs", "1m")], &[("/a", 3.0), ("/b", 4.0)])];
    let specs = default_tables(&one);
    assert_eq!((&specs[1].rows, &specs[1].cols), (&Key::Target, &Key::Step));
    let t = build(&specs[1], &one);
    assert_eq!(t.cols, ["IOPS"]);
    assert_eq!(t.rows, vec![row("/a", &[Some(768.0)]), row("/b", &[Some(1024.0)])]);
    assert_eq!(default_tables(&[]), []);
}

#[test]
fn default_tables_go_step_by_step() {
    let mut points = Vec::new();
    for qd in ["1", "32"] {
        points.push(point("random read", &[("rw", "randread"), ("qd", qd)], &[("/a", 1.0)]));
    }
    for read in ["0", "50", "100"] {
        points.push(point("mixed", &[("rw", "randrw"), ("read", read)], &[("/a", 2.0)]));
    }
    let specs = default_tables(&points);
    assert_eq!(specs.len(), 6);
    assert_eq!((specs[0].step.as_deref(), &specs[0].cols), (Some("random read"), &field("qd")));
    assert_eq!(specs[0].title, "random read: Throughput, rw=randread");
    assert_eq!((specs[3].step.as_deref(), &specs[3].cols), (Some("mixed"), &field("read")));
    assert_eq!(build(&specs[3], &points).cols, ["0", "50", "100"]);
}

#[test]
fn join_labels_skip_missing_parts() {
    let points = vec![
        point("s", &[("bs", "4k"), ("rw", "randread")], &[("/a", 1.0)]),
        point("s", &[("bs", "8k")], &[("/a", 2.0)]),
    ];
    let rows = Key::Join(vec![field("bs"), field("rw"), Key::Step, Key::TargetCount]);
    let t = build(&spec(rows, Key::Target, Metric::MBps), &points);
    assert_eq!(t.row_header, "bs rw step targets");
    let labels: Vec<&str> = t.rows.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(labels, ["bs=4k rw=randread s targets=1", "bs=8k s targets=1"]);
}

#[test]
fn specs_round_trip_through_json() {
    let s = TableSpec {
        title: "Random Write Performance".into(),
        rows: Key::Join(vec![Key::Target, field("bs")]),
        cols: field("qd"),
        metric: Metric::LatP999Us,
        dir: Dir::Write,
        filter: vec![("rw".into(), "randwrite".into())],
        step: Some("rand".into()),
        col_format: Some("{} DQL/Disk".into()),
    };
    let json = serde_json::to_string(&s).unwrap();
    assert_eq!(
        json,
        r#"{"title":"Random Write Performance","rows":{"join":["target",{"field":"bs"}]},"cols":{"field":"qd"},"metric":"lat_p99.9_us","dir":"write","filter":[["rw","randwrite"]],"step":"rand","col_format":"{} DQL/Disk"}"#
    );
    assert_eq!(serde_json::from_str::<TableSpec>(&json).unwrap(), s);
    let short: TableSpec =
        serde_json::from_str(r#"{"title":"","rows":"target_count","cols":"step","metric":"mb_per_s","dir":"total"}"#)
            .unwrap();
    let expected =
        TableSpec { title: String::new(), dir: Dir::Total, ..spec(Key::TargetCount, Key::Step, Metric::MBps) };
    assert_eq!(short, expected);
}

#[test]
fn points_whose_fields_are_not_axes_get_a_column_per_label() {
    // fio's jobs: each gives its own options, so a key one point has and another lacks is no
    // axis; each point is a column, named by its label.
    let mk =
        |label: &str, fields: &[(&str, &str)], mb: f64| crate::test_support::point(label, "", fields, &[("null", mb)]);
    let points = vec![
        mk("seqread", &[("rw", "read"), ("iodepth", "4")], 10.0),
        mk("randwrite", &[("rw", "randwrite"), ("numjobs", "2")], 20.0),
        mk("randwrite #2", &[("rw", "randwrite"), ("numjobs", "2")], 40.0),
    ];
    let specs = default_tables(&points);
    assert_eq!((&specs[0].rows, &specs[0].cols), (&Key::Target, &Key::Label));
    let t = build(&specs[0], &points);
    assert_eq!(t.cols, ["seqread", "randwrite"], "a repeat shares its point's column");
    assert_eq!(t.rows, [row("null", &[Some(10.0), Some(30.0)])]);
    assert!(t.title.contains("mean of 1–2 runs"), "{}", t.title);
}

#[test]
fn a_point_of_several_ranks_has_every_ranks_ios_merged_in_a_first_row_with_its_cpu() {
    let ranked = |qd: &str, a: f64, b: f64| {
        crate::test_support::ranked(point("", &[("qd", qd)], &[("/dev/sda", a), ("/dev/sdb", b)]), "n1")
    };
    let points = with_all_ranks(&[ranked("1", 100.0, 50.0), ranked("2", 180.0, 90.0)]);
    assert_eq!(with_all_ranks(&points), points, "added once");
    let t = build(&spec(Key::Target, field("qd"), Metric::MBps), &points);
    assert_eq!(
        t.rows,
        [
            row(ALL_RANKS, &[Some(150.0), Some(270.0)]),
            row("r0@n1:/dev/sda", &[Some(100.0), Some(180.0)]),
            row("r1@n1:/dev/sdb", &[Some(50.0), Some(90.0)])
        ]
    );
    // The point's CPU belongs to the merged row, not to any one rank's target.
    let cpu = build(&spec(Key::Target, field("qd"), Metric::CpuPct), &points);
    assert_eq!(cpu.rows[0].1, [Some(cpu_pct(&points[0])), Some(cpu_pct(&points[1]))]);
    assert_eq!(cpu.rows[1].1, [None, None]);
    // A point of one host is left as it was.
    let plain = point("", &[("qd", "1")], &[("/dev/sda", 100.0), ("/dev/sdb", 50.0)]);
    assert_eq!(with_all_ranks(std::slice::from_ref(&plain)), [plain]);
}
