use super::*;
use crate::test_support::{manifest, point};
use crate::Format;

/// The comparison as the exporters write it.
fn text(cmp: &Comparison) -> String {
    crate::export::export_text(Format::Text, &cmp.report()).unwrap()
}

fn markdown(cmp: &Comparison) -> String {
    crate::export::export_text(Format::Markdown, &cmp.report()).unwrap()
}

fn csv(cmp: &Comparison) -> String {
    crate::export::export_text(Format::Csv, &cmp.report()).unwrap()
}

fn run(name: &str, kind: &str, points: Vec<PointResult>) -> Run {
    Run { label: name.into(), dir: format!("results/{name}"), manifest: manifest(kind, &points), points }
}

/// A plan over qd 1, 2, 4 (the last only when `with_qd4`) on one target, `mb[i]` MB/s at qd i.
fn plan_run(name: &str, target: &str, mb: [f64; 3], with_qd4: bool) -> Run {
    let qds = if with_qd4 { 3 } else { 2 };
    let points = (0..qds)
        .map(|i| {
            let qd = ["1", "2", "4"][i];
            // Fields in another order than the baseline's must not matter.
            let fields = if name == "B" { [("qd", qd), ("rw", "read")] } else { [("rw", "read"), ("qd", qd)] };
            point(&format!("seq qd={qd}"), "seq", &fields, &[(target, mb[i])])
        })
        .collect();
    run(name, "plan", points)
}

fn quick_run(name: &str, target: &str, read: f64, write: f64) -> Run {
    run(
        name,
        "suite:quick",
        vec![
            point("seq-read", "seq-read", &[("read", "100"), ("random", "0")], &[(target, read)]),
            point("seq-write", "seq-write", &[("read", "0"), ("random", "0")], &[(target, write)]),
        ],
    )
}

fn find<'a>(t: &'a SideBySide, label: &str) -> &'a CompareRow {
    t.rows.iter().find(|r| r.label == label).unwrap_or_else(|| panic!("no row '{label}' in {:#?}", t.rows))
}

fn close(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() < 1e-9)
}

#[test]
fn plan_on_two_devices_gives_run_rows_and_deltas_in_percent() {
    let runs = [
        plan_run("A", "/dev/sda", [100.0, 200.0, 400.0], true),
        plan_run("B", "/dev/nvme0n1", [110.0, 150.0, 0.0], true),
    ];
    let cmp = compare(&runs).unwrap();
    let t = &cmp.tables[0];
    assert_eq!(t.title, "Throughput, rw=read");
    assert_eq!(t.unit, "MB/s");
    assert_eq!(t.row_header, "run", "rows keyed by target become runs");
    assert_eq!(t.cols, ["1", "2", "4"]);
    let labels: Vec<&str> = t.rows.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(labels, ["A", "B", "Δ B vs A"]);
    assert_eq!(find(t, "A").cells, [Some(100.0), Some(200.0), Some(400.0)]);
    let d = find(t, "Δ B vs A");
    assert!(d.delta && d.run == 1);
    assert!(close(d.cells[0], 10.0) && close(d.cells[1], -25.0) && close(d.cells[2], -100.0), "{:?}", d.cells);
    assert!(cmp.missing.is_empty());

    let text = render(&runs, Format::Text).unwrap();
    assert!(text.contains("Comparing plan results: A (baseline) with B"), "{text}");
    assert!(
        text.contains("Throughput, rw=read (MB/s)\nrun \\ qd       1       2        4\n"),
        "the column axis named: {text}"
    );
    assert!(text.contains("\nΔ B vs A  +10.0%  -25.0%  -100.0%\n"), "{text}");
    assert!(text.contains("Every point is in every run."), "{text}");
    // IOPS get thousands separators like the single-run tables.
    assert!(text.contains("\nA         25,600  51,200  102,400\n"), "{text}");
}

#[test]
fn a_point_missing_in_one_run_is_reported_and_its_delta_is_a_dash() {
    let runs =
        [plan_run("A", "/dev/sda", [100.0, 200.0, 400.0], true), plan_run("B", "/dev/sdb", [110.0, 220.0, 0.0], false)];
    let cmp = compare(&runs).unwrap();
    assert_eq!(cmp.missing, [Missing { point: "seq qd=4".into(), present: 0, absent: 1 }]);
    let t = &cmp.tables[0];
    assert_eq!(find(t, "B").cells[2], None);
    assert_eq!(find(t, "Δ B vs A").cells[2], None);
    let text = render(&runs, Format::Text).unwrap();
    assert!(
        text.contains("Points missing from a run (not compared)\npoint     is in  but not in\nseq qd=4  A      B\n"),
        "{text}"
    );
    assert!(text.contains("\nΔ B vs A  +10.0%  +10.0%    —\n"), "{text}");

    // The other way round, with the target and repeat taken off the label.
    let mut c = plan_run("C", "/dev/sdc", [1.0, 2.0, 3.0], true);
    c.points[2].point.label = "seq qd=8 on sdc #2".into();
    c.points[2].point.fields = vec![("rw".into(), "read".into()), ("qd".into(), "8".into())];
    c.points[2].point.spec = crate::test_support::spec_of(&[("rw", "read"), ("qd", "8")]);
    let cmp = compare(&[plan_run("A", "/dev/sda", [100.0, 200.0, 400.0], true), c]).unwrap();
    assert_eq!(
        cmp.missing,
        [
            Missing { point: "seq qd=4".into(), present: 0, absent: 1 },
            Missing { point: "seq qd=8".into(), present: 1, absent: 0 },
        ]
    );
    let md = markdown(&cmp);
    assert!(
        md.ends_with(
            "## Points missing from a run (not compared)\n\n\
             | point    | is in | but not in |\n\
             | -------- | ----- | ---------- |\n\
             | seq qd=4 | A     | C          |\n\
             | seq qd=8 | C     | A          |\n"
        ),
        "{md}"
    );
}

#[test]
fn runs_that_differ_only_in_how_long_they_ran_are_compared_point_for_point() {
    // A 10 s run against a 60 s run with a ramp of the same plan: every point matches.
    let timed = |name: &str, time: &str, ramp: Option<&str>| {
        let mut r = plan_run(name, "/dev/sda", [100.0, 200.0, 400.0], true);
        for p in &mut r.points {
            p.point.fields.push(("time".into(), time.into()));
            if let Some(ramp) = ramp {
                p.point.fields.push(("ramp".into(), ramp.into()));
            }
        }
        r
    };
    let runs = [timed("A", "10s", None), timed("B", "60s", Some("5s"))];
    let cmp = compare(&runs).unwrap();
    assert!(cmp.missing.is_empty(), "{:?}", cmp.missing);
    let t = &cmp.tables[0];
    assert_eq!(t.title, "Throughput, rw=read", "durations are not part of the title");
    assert_eq!(find(t, "B").cells, [Some(100.0), Some(200.0), Some(400.0)]);
}

#[test]
fn suite_quick_compares_steps_per_run() {
    let runs = [quick_run("A", "/dev/sda", 100.0, 50.0), quick_run("B", "/dev/sdb", 110.0, 48.0)];
    let cmp = compare(&runs).unwrap();
    assert_eq!(cmp.tables.len(), 4, "reads and writes, MB/s and IOPS");
    let reads = &cmp.tables[0];
    assert_eq!((reads.title.as_str(), reads.row_header.as_str()), ("Reads", "run"));
    assert_eq!(reads.cols, ["seq-read"]);
    assert!(close(find(reads, "Δ B vs A").cells[0], 10.0));
    let writes = &cmp.tables[1];
    assert!(close(find(writes, "Δ B vs A").cells[0], -4.0));
    let text = text(&cmp);
    assert!(text.contains("\nΔ B vs A        -4.0%\n"), "{text}");
    assert!(text.contains("Δ B vs A      +10.0%\n"), "{text}");
    assert!(text.contains("\nrun \\ step  seq-read\n"), "the column axis named: {text}");
}

#[test]
fn runs_with_several_targets_name_them_and_compare_by_position() {
    let a = run(
        "A",
        "suite:quick",
        vec![point("seq-read", "seq-read", &[("read", "100")], &[("/dev/sda", 100.0), ("/dev/sdb", 200.0)])],
    );
    let b = run(
        "B",
        "suite:quick",
        vec![point("seq-read", "seq-read", &[("read", "100")], &[("/dev/sdc", 150.0), ("/dev/sdd", 100.0)])],
    );
    let cmp = compare(&[a, b]).unwrap();
    let labels: Vec<&str> = cmp.tables[0].rows.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(
        labels,
        ["A: /dev/sda", "B: /dev/sdc", "Δ B vs A", "A: /dev/sdb", "B: /dev/sdd", "Δ B vs A"],
        "Δ rows name the runs only, under the pair of targets they compare"
    );
    assert!(close(cmp.tables[0].rows[2].cells[0], 50.0));
    assert!(close(cmp.tables[0].rows[5].cells[0], -50.0));
}

#[test]
fn rows_not_keyed_by_target_get_a_row_per_run_and_a_delta_row() {
    // Two varying fields: rows by bs, columns by qd.
    let mk = |name: &str, target: &str, k: f64| {
        let points = [("4k", "1", 10.0), ("4k", "2", 20.0), ("64k", "1", 100.0)]
            .iter()
            .map(|&(bs, qd, mb)| point(&format!("bs={bs} qd={qd}"), "", &[("bs", bs), ("qd", qd)], &[(target, mb * k)]))
            .collect();
        run(name, "plan", points)
    };
    let cmp = compare(&[mk("A", "/dev/sda", 1.0), mk("B", "/dev/sdb", 2.0)]).unwrap();
    let t = &cmp.tables[0];
    assert_eq!(t.row_header, "bs");
    let labels: Vec<&str> = t.rows.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(labels, ["4k [A]", "4k [B]", "4k Δ B vs A", "64k [A]", "64k [B]", "64k Δ B vs A"]);
    assert!(close(t.rows[2].cells[0], 100.0) && close(t.rows[2].cells[1], 100.0));
    assert_eq!(t.rows[5].cells[1], None, "no 64k at qd 2 in either run");
    assert_eq!(t.rows[4].row, "64k", "CSV's row column is the bare row key");
}

#[test]
fn different_kinds_are_refused() {
    let runs = [quick_run("A", "/dev/sda", 1.0, 1.0), plan_run("B", "/dev/sdb", [1.0, 1.0, 1.0], true)];
    let err = render(&runs, Format::Text).unwrap_err().to_string();
    assert!(err.contains("A is suite:quick but B is plan: compare results of the same kind"), "{err}");
    assert!(render(&[], Format::Text).is_err());
    assert!(render(&[quick_run("A", "/a", 1.0, 1.0), quick_run("B", "/b", 1.0, 1.0)], Format::Html).is_err(), "-o");
}

#[test]
fn csv_has_a_block_per_table_with_delta_pct_rows_and_a_missing_block() {
    let runs =
        [plan_run("A", "/dev/sda", [100.0, 200.0, 400.0], true), plan_run("B", "/dev/sdb", [110.0, 150.0, 0.0], false)];
    let csv = render(&runs, Format::Csv).unwrap();
    let blocks: Vec<&str> = csv.split("\n\n").collect();
    assert_eq!(blocks.len(), 7, "the runs, three tables, latency, the missing points and the notes: {csv}");
    assert_eq!(
        blocks[0],
        "table,run,results directory,target,model\nRuns compared,A,results/A,/dev/sda,—\nRuns compared,B,results/B,/dev/sdb,—"
    );
    assert_eq!(
        blocks[1],
        "table,metric,unit,run,run,measure,vs,qd=1,qd=2,qd=4\n\
         \"Throughput, rw=read\",mb_per_s,MB/s,A,A,value,,100,200,400\n\
         \"Throughput, rw=read\",mb_per_s,MB/s,B,B,value,,110,150,\n\
         \"Throughput, rw=read\",mb_per_s,MB/s,B,B,delta_pct,A,10.000000000000009,-25,"
    );
    assert!(blocks[4].starts_with("table,point,run,direction,IOPS,p50 (ns),p99 (ns),p99.9 (ns),max (ns)\n"), "{csv}");
    assert_eq!(blocks[5], "table,point,is in,but not in\nPoints missing from a run (not compared),seq qd=4,A,B");
    assert!(blocks[6].starts_with("note\n"), "notes last: {csv}");
    assert!(!csv.contains('%'), "{csv}");
}

#[test]
fn markdown_has_a_table_per_spec_and_a_missing_section() {
    let runs = [quick_run("A", "/dev/sda", 100.0, 50.0), quick_run("B", "/dev/sdb", 110.0, 48.0)];
    let md = render(&runs, Format::Markdown).unwrap();
    assert_eq!(md, render(&runs, Format::Markdown).unwrap());
    assert!(md.starts_with("# Comparing suite:quick results: A (baseline) with B\n"), "{md}");
    assert!(
        md.contains(
            "## Reads (MB/s)\n\n\
             | run \\ step | seq-read |\n\
             | ---------- | -------: |\n\
             | A          |      100 |\n\
             | B          |      110 |\n\
             | Δ B vs A   |   +10.0% |\n"
        ),
        "{md}"
    );
    assert_eq!(md.matches("**").count(), 0, "each heading once, never again in bold under itself: {md}");
    assert!(md.contains("\n- Every point is in every run.\n"), "{md}");
    assert!(!md.contains("Points missing"), "{md}");
}

#[test]
fn deltas_format_with_sign_and_one_decimal() {
    assert_eq!(fmt_delta(12.34), "+12.3%");
    assert_eq!(fmt_delta(-4.0), "-4.0%");
    assert_eq!(fmt_delta(-0.01), "+0.0%");
    assert_eq!(delta(Some(0.0), Some(0.0)), Some(0.0));
    assert_eq!(delta(Some(0.0), Some(1.0)), None);
    assert_eq!(delta(None, Some(1.0)), None);
}

/// An iometer run on one disk, DQL 1 and 2, 100% and 95% sequential: `mb[read][random][qd]`
/// with read 0 = reads, 1 = writes, random 0 = 0%, 1 = 5%; None leaves the point out.
fn iometer_run(name: &str, disk: &str, mb: [[[Option<f64>; 2]; 2]; 2]) -> Run {
    let mut points = Vec::new();
    for (ri, read) in ["100", "0"].iter().enumerate() {
        for (xi, random) in ["0", "5"].iter().enumerate() {
            for (qi, qd) in ["1", "2"].iter().enumerate() {
                if let Some(v) = mb[ri][xi][qi] {
                    let label = format!("random={random} read={read} qd={qd}");
                    points.push(point(&label, "", &[("random", random), ("read", read), ("qd", qd)], &[(disk, v)]));
                }
            }
        }
    }
    run(name, "suite:iometer", points)
}

fn table<'a>(cmp: &'a Comparison, title: &str) -> &'a SideBySide {
    cmp.tables.iter().find(|t| t.title == title).unwrap_or_else(|| {
        let titles: Vec<&str> = cmp.tables.iter().map(|t| t.title.as_str()).collect();
        panic!("no table {title:?} in {titles:?}")
    })
}

fn cells_close(got: &[Option<f64>], want: &[Option<f64>]) -> bool {
    got.len() == want.len()
        && got.iter().zip(want).all(|(g, w)| match (g, w) {
            (Some(g), Some(w)) => (g - w).abs() < 1e-9,
            (None, None) => true,
            _ => false,
        })
}

#[test]
fn iometer_drop_to_95_percent_sequential_is_compared_with_deltas() {
    let a = iometer_run(
        "A",
        "/dev/sas",
        [
            [[Some(200.0), Some(220.0)], [Some(150.0), Some(176.0)]],
            [[Some(100.0), Some(100.0)], [Some(90.0), Some(80.0)]],
        ],
    );
    // B lacks the 95% sequential read at DQL 2.
    let b = iometer_run(
        "B",
        "/dev/sata",
        [[[Some(100.0), Some(110.0)], [Some(90.0), None]], [[Some(50.0), Some(60.0)], [Some(40.0), Some(45.0)]]],
    );
    let runs = [a, b];
    let cmp = compare(&runs).unwrap();
    let reads = table(&cmp, "Drop from 100% to 95% sequential, 64K reads");
    assert_eq!((reads.unit.as_str(), reads.row_header.as_str()), ("%", "run"));
    assert_eq!(reads.cols, ["1 DQL/Disk", "2 DQL/Disk"]);
    // A: 1 - 150/200 = 25%, 1 - 176/220 = 20%; B: 1 - 90/100 = 10%, and nothing at DQL 2.
    assert!(cells_close(&find(reads, "A").cells, &[Some(25.0), Some(20.0)]), "{reads:?}");
    assert!(cells_close(&find(reads, "B").cells, &[Some(10.0), None]), "{reads:?}");
    assert!(cells_close(&find(reads, "Δ B vs A").cells, &[Some(-60.0), None]), "{reads:?}");
    let writes = table(&cmp, "Drop from 100% to 95% sequential, 64K writes");
    // A: 10%, 20%; B: 20%, 25%.
    assert!(cells_close(&find(writes, "Δ B vs A").cells, &[Some(100.0), Some(25.0)]), "{writes:?}");
    assert_eq!(cmp.missing, [Missing { point: "random=5 read=100 qd=2".into(), present: 0, absent: 1 }]);

    // In every form: text, Markdown, CSV and the HTML page.
    let text = text(&cmp);
    assert!(
        text.contains("Drop from 100% to 95% sequential, 64K reads (%)\nrun \\ qd  1 DQL/Disk  2 DQL/Disk\n"),
        "{text}"
    );
    assert!(text.contains("\nΔ B vs A      -60.0%           —\n"), "{text}");
    assert!(markdown(&cmp).contains("| Δ B vs A |     -60.0% |          — |"), "{}", markdown(&cmp));
    let csv = csv(&cmp);
    let line = csv
        .lines()
        .find(|l| l.starts_with("\"Drop from 100% to 95% sequential, 64K writes\",pct,%,B,B,delta_pct,A,"))
        .unwrap_or_else(|| panic!("{csv}"));
    let nums: Vec<f64> = line.rsplitn(3, ',').take(2).map(|v| v.parse().unwrap()).collect();
    assert!((nums[1] - 100.0).abs() < 1e-9 && (nums[0] - 25.0).abs() < 1e-9, "{line}");
    let page = crate::export::html::page(&crate::compare_page::with_runs(&cmp, &[]));
    assert!(page.contains("<h2>Drop from 100% to 95% sequential, 64K reads (%)</h2><div class=\"chart\"><svg"));
}

/// A JBOD run over 1..=`mb.len()` drives at once: `mb[k-1]` = (128K read MB/s, 4K random
/// read MB/s) in aggregate, split evenly over the drives.
fn jbod_run(name: &str, mb: &[(f64, f64)]) -> Run {
    let disks = ["/dev/sda", "/dev/sdb", "/dev/sdc"];
    let mut points = Vec::new();
    for (i, &(seq, rnd)) in mb.iter().enumerate() {
        let k = i + 1;
        for (step, rw, bs, total) in [("128K seq read", "read", "128k", seq), ("4K random read", "randread", "4k", rnd)]
        {
            let targets: Vec<(&str, f64)> = disks[..k].iter().map(|d| (*d, total / k as f64)).collect();
            let label = format!("{step} on {k} target(s)");
            points.push(point(&label, step, &[("rw", rw), ("bs", bs), ("qd", "32")], &targets));
        }
    }
    run(name, "suite:jbod", points)
}

#[test]
fn jbod_scaling_efficiency_and_where_it_stops_are_compared_and_missing_drive_counts_flagged() {
    // A scales reads to 2 drives (the third adds 40 < 50), random reads to all 3; B was run on
    // 2 drives: reads scale to both, random reads stop after 1 (the second adds 2 < 5).
    let runs =
        [jbod_run("A", &[(100.0, 10.0), (200.0, 20.0), (240.0, 30.0)]), jbod_run("B", &[(120.0, 10.0), (240.0, 12.0)])];
    let cmp = compare(&runs).unwrap();
    let eff = table(&cmp, "Scaling efficiency, aggregate / (drives x one drive)");
    assert_eq!((eff.unit.as_str(), eff.row_header.as_str()), ("%", "drives"));
    assert_eq!(eff.cols, ["read", "randread"]);
    assert!(cells_close(&find(eff, "3 [A]").cells, &[Some(80.0), Some(100.0)]), "{eff:?}");
    assert!(cells_close(&find(eff, "2 [B]").cells, &[Some(100.0), Some(60.0)]), "{eff:?}");
    assert!(cells_close(&find(eff, "2 Δ B vs A").cells, &[Some(0.0), Some(-40.0)]), "{eff:?}");
    assert!(cells_close(&find(eff, "3 [B]").cells, &[None, None]), "no third drive in B: {eff:?}");
    assert!(cells_close(&find(eff, "3 Δ B vs A").cells, &[None, None]), "{eff:?}");

    let stops = table(&cmp, "Where scaling stops (each added drive adds ≥ half a drive's worth)");
    assert_eq!(stops.unit, "drives");
    assert!(cells_close(&find(stops, "scales up to [A]").cells, &[Some(2.0), Some(3.0)]), "{stops:?}");
    assert!(cells_close(&find(stops, "scales up to [B]").cells, &[Some(2.0), Some(1.0)]), "{stops:?}");
    let d = &find(stops, "scales up to Δ B vs A").cells;
    assert!(cells_close(&d[..1], &[Some(0.0)]) && (d[1].unwrap() + 200.0 / 3.0).abs() < 1e-9, "{stops:?}");
    assert!(cells_close(&find(stops, "most tested [B]").cells, &[Some(2.0), Some(2.0)]), "{stops:?}");

    // The drive count tells JBOD's points apart: B's missing third drive is named.
    assert_eq!(
        cmp.missing,
        [
            Missing { point: "128K seq read on 3 target(s)".into(), present: 0, absent: 1 },
            Missing { point: "4K random read on 3 target(s)".into(), present: 0, absent: 1 },
        ]
    );
    assert!(text(&cmp).contains("\n4K random read on 3 target(s)  A      B\n"), "{}", text(&cmp));
}

#[test]
fn the_single_run_jbod_tables_say_where_scaling_stops() {
    let a = jbod_run("A", &[(100.0, 10.0), (200.0, 20.0), (240.0, 30.0)]);
    let tables = suite_tables::tables("suite:jbod".parse().unwrap(), &a.points);
    let stops = tables.iter().find(|t| t.title.starts_with("Where scaling stops")).expect("the table");
    assert_eq!(
        stops.rows,
        [("scales up to".into(), vec![Some(2.0), Some(3.0)]), ("most tested".into(), vec![Some(3.0), Some(3.0)])]
    );
}

/// A quick suite run labelled `label` on `target`, whose manifest knows the device's model.
fn quick_on_model(label: &str, target: &str, model: &str, read: f64) -> Run {
    let mut r = quick_run(label, target, read, 50.0);
    r.dir = format!("/srv/results/quick-2026112{}-101010", r.label.len());
    let mut device: drivelab_lab::sysinfo::DeviceFacts =
        serde_json::from_str(r#"{"disk": "sdb"}"#).expect("device facts");
    device.model = Some(model.into());
    r.manifest.targets = vec![drivelab_lab::results::TargetFacts {
        path: target.into(),
        device: Some(device),
        file: None,
        new_file_bytes: None,
        name: None,
    }];
    r
}

#[test]
fn runs_are_named_by_label_with_their_targets_and_models_in_every_format() {
    let runs = [
        quick_on_model("evo", "/dev/sdb", "Samsung SSD 870 EVO", 100.0),
        quick_on_model("mx", "/dev/sdc", "CT500MX500", 120.0),
    ];
    let cmp = compare(&runs).unwrap();
    assert_eq!(cmp.runs, ["evo", "mx"]);
    let reads = &cmp.tables[0];
    let labels: Vec<&str> = reads.rows.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(labels, ["evo", "mx", "Δ mx vs evo"], "short Δ labels, never directories");

    let text = render(&runs, Format::Text).unwrap();
    assert!(text.starts_with("Comparing suite:quick results: evo (baseline) with mx\n"), "{text}");
    assert!(text.contains("\nevo  /srv/results/quick-20261123-101010  /dev/sdb  Samsung SSD 870 EVO\n"), "{text}");
    assert!(text.contains("\nmx   /srv/results/quick-20261122-101010  /dev/sdc  CT500MX500\n"), "{text}");
    assert!(!text.contains("Δ /srv"), "{text}");
    let md = render(&runs, Format::Markdown).unwrap();
    assert!(md.contains("| evo | /srv/results/quick-20261123-101010 | /dev/sdb | Samsung SSD 870 EVO |"), "{md}");
    let csv = render(&runs, Format::Csv).unwrap();
    assert!(
        csv.starts_with(
            "table,run,results directory,target,model\n\
             Runs compared,evo,/srv/results/quick-20261123-101010,/dev/sdb,Samsung SSD 870 EVO\n"
        ),
        "{csv}"
    );
    assert!(csv.contains("\nReads,mb_per_s,MB/s,mx,mx,delta_pct,evo,"), "{csv}");
    let json: serde_json::Value = serde_json::from_str(&render(&runs, Format::Json).unwrap()).expect("JSON");
    assert_eq!(json["runs"], serde_json::json!(["evo", "mx"]));
    assert_eq!(json["run_info"][1]["targets"][0], serde_json::json!({"path": "/dev/sdc", "model": "CT500MX500"}));
    assert_eq!(json["run_info"][1]["dir"], "/srv/results/quick-20261122-101010");
    assert_eq!(json["tables"][0]["rows"][2]["label"], "Δ mx vs evo");
    let page = crate::export::html::page(&crate::compare_page::with_runs(&cmp, &[]));
    assert!(
        page.contains("<td class=\"t\">CT500MX500</td>") && page.contains("<td class=\"t\">/dev/sdc</td>"),
        "{page}"
    );
}

/// fio's jobs beside drivelab's run of the same job file: the same labels, other fields (fio's
/// options as given, drivelab's fields as it records them).
fn jobs_run(name: &str, kind: &str, fio: bool, mb: [f64; 2], with_mix: bool) -> Run {
    type Fields<'a> = &'a [(&'a str, &'a str)];
    let (seq, mix): (Fields, Fields) = if fio {
        (&[("rw", "read"), ("iodepth", "4")], &[("rw", "randrw"), ("rwmixread", "70")])
    } else {
        (&[("rw", "read"), ("qd", "4"), ("engine", "psync")], &[("rw", "randrw"), ("read", "70"), ("qd", "1")])
    };
    let mut points = vec![point("seqread", if fio { "" } else { "seqread" }, seq, &[("null", mb[0])])];
    if with_mix {
        points.push(point("mix + randread", if fio { "" } else { "mix" }, mix, &[("null", mb[1])]));
    }
    run(name, kind, points)
}

#[test]
fn points_with_the_same_labels_and_other_fields_are_matched_by_label() {
    let runs =
        [jobs_run("fio", "plan", true, [100.0, 50.0], true), jobs_run("drivelab", "plan", false, [120.0, 40.0], true)];
    let cmp = compare(&runs).unwrap();
    assert_eq!(cmp.matched_by, Matching::Labels);
    let t = &cmp.tables[0];
    assert_eq!((t.title.as_str(), t.unit.as_str()), ("Throughput", "MB/s"));
    assert_eq!(t.cols, ["seqread", "mix + randread"], "a column per point, named by its label");
    assert_eq!(find(t, "fio").cells, [Some(100.0), Some(50.0)]);
    assert_eq!(find(t, "drivelab").cells, [Some(120.0), Some(40.0)]);
    let d = find(t, "Δ drivelab vs fio");
    assert!(close(d.cells[0], 20.0) && close(d.cells[1], -20.0), "{:?}", d.cells);
    assert!(cmp.missing.is_empty(), "{:?}", cmp.missing);
    assert!(text(&cmp).contains("matched by label"), "{}", text(&cmp));
    assert!(cmp.json().contains("\"matched_by\": \"labels\""));

    // A point of one that the other lacks is missing by its label.
    let runs =
        [jobs_run("fio", "plan", true, [100.0, 50.0], true), jobs_run("drivelab", "plan", false, [120.0, 0.0], false)];
    let cmp = compare(&runs).unwrap();
    assert_eq!(cmp.matched_by, Matching::Labels);
    assert_eq!(cmp.missing, [Missing { point: "mix + randread".into(), present: 0, absent: 1 }]);

    // The same fields still match by fields (the labels aside).
    let cmp =
        compare(&[plan_run("A", "/dev/sda", [1.0, 2.0, 3.0], true), plan_run("B", "/dev/sdb", [1.0, 2.0, 3.0], true)]);
    assert_eq!(cmp.unwrap().matched_by, Matching::Fields);
}

#[test]
fn a_run_of_one_point_compares_with_a_plan_and_not_with_a_suite() {
    let runs =
        [jobs_run("fio", "run", true, [100.0, 0.0], false), jobs_run("drivelab", "plan", false, [80.0, 0.0], true)];
    let cmp = compare(&runs).unwrap();
    assert_eq!(cmp.matched_by, Matching::Labels);
    let t = &cmp.tables[0];
    assert_eq!(t.cols, ["seqread", "mix + randread"], "every run's points have a column");
    assert_eq!(find(t, "fio").cells, [Some(100.0), None]);
    assert_eq!(find(t, "drivelab").cells, [Some(80.0), Some(0.0)]);
    assert_eq!(cmp.missing, [Missing { point: "mix + randread".into(), present: 1, absent: 0 }]);
    let e = compare(&[jobs_run("fio", "run", true, [1.0, 0.0], false), quick_run("Q", "/dev/sda", 1.0, 1.0)]);
    assert!(e.unwrap_err().to_string().contains("same kind"));
}

#[test]
fn a_run_of_three_ranks_compares_its_merged_row_with_a_one_host_run() {
    use crate::test_support::ranked;
    let one = plan_run("A", "/dev/sda", [100.0, 200.0, 400.0], true);
    let three: Vec<PointResult> = ["1", "2", "4"]
        .iter()
        .enumerate()
        .map(|(i, qd)| {
            let each = 100.0 * (i + 1) as f64;
            let targets = [("/dev/sda", each), ("/dev/sda", each), ("/dev/sda", each)];
            ranked(point(&format!("seq qd={qd}"), "seq", &[("rw", "read"), ("qd", qd)], &targets), "n")
        })
        .collect();
    let cmp = compare(&[one, run("B", "plan", three)]).unwrap();
    let t = &cmp.tables[0];
    let labels: Vec<&str> = t.rows.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(labels[..3], ["A", "B: all ranks", "Δ B vs A"], "the merged row is paired with the one host");
    assert_eq!(find(t, "B: all ranks").cells, [Some(300.0), Some(600.0), Some(900.0)]);
    let d = &t.rows[2];
    assert!(close(d.cells[0], 200.0) && close(d.cells[1], 200.0) && close(d.cells[2], 125.0), "{:?}", d.cells);
    for r in 0..3 {
        let label = format!("B: r{r}@n:/dev/sda");
        assert!(close(find(t, &label).cells[0], 100.0), "each rank's row too: {label}");
    }
}

#[test]
fn points_pair_by_the_workload_their_fields_set_whatever_the_spelling() {
    // A run saved with drivelab's spellings beside one saved with fio's (and bs in bytes).
    let own: Vec<PointResult> = ["1", "8"]
        .iter()
        .map(|qd| point(&format!("qd={qd}"), "", &[("qd", qd), ("bs", "4k")], &[("/dev/sda", 100.0)]))
        .collect();
    let fio: Vec<PointResult> = ["1", "8"]
        .iter()
        .map(|qd| point(&format!("iodepth={qd}"), "", &[("iodepth", qd), ("bs", "4096")], &[("/dev/sdb", 90.0)]))
        .collect();
    let cmp = compare(&[run("A", "plan", own), run("B", "plan", fio)]).unwrap();
    assert!(cmp.missing.is_empty(), "every point paired: {:?}", cmp.missing);
    let t = &cmp.tables[0];
    let d = find(t, "Δ B vs A");
    assert!(d.cells.iter().all(|c| close(*c, -10.0)), "{:?}", d.cells);
    // fio's runtime, like drivelab's time, says how long a point ran, not what.
    let long = point("qd=1", "", &[("qd", "1"), ("runtime", "60")], &[("/dev/sda", 100.0)]);
    let short = point("qd=1", "", &[("iodepth", "1"), ("time", "5s")], &[("/dev/sdb", 90.0)]);
    let cmp = compare(&[run("A", "plan", vec![long]), run("B", "plan", vec![short])]).unwrap();
    assert!(cmp.missing.is_empty(), "{:?}", cmp.missing);
    // The typed workload decides, not the saved words: a default left out is the default given,
    // and points whose fields read alike but whose specs differ do not pair.
    let given = point("x", "", &[("qd", "8"), ("bs", "4096")], &[("/dev/sda", 100.0)]);
    let left_out = point("y", "", &[("qd", "8")], &[("/dev/sdb", 90.0)]);
    let cmp = compare(&[run("A", "plan", vec![given.clone()]), run("B", "plan", vec![left_out])]).unwrap();
    assert!(cmp.missing.is_empty(), "{:?}", cmp.missing);
    let mut deeper = point("y", "", &[("qd", "8"), ("bs", "4096")], &[("/dev/sdb", 90.0)]);
    deeper.point.spec.qd = 16;
    let cmp = compare(&[run("A", "plan", vec![given]), run("B", "plan", vec![deeper])]).unwrap();
    assert_eq!(cmp.missing.len(), 2, "{:?}", cmp.missing);
}
