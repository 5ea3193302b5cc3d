//! fio's `--status-interval` through `drivelab fio`: a whole report of the run so far at every
//! interval, in each format asked, then the final one — figures that only grow and end at the
//! final report's — on stdout, or in the `--output` file before the final report; nothing on
//! stderr. (fio 3.33 writes the same documents: one per interval and the last.)

use crate::common::{self, stderr, Scratch};

/// Every JSON document of `text`, in order.
fn documents(text: &str) -> Vec<serde_json::Value> {
    serde_json::Deserializer::from_str(text).into_iter::<serde_json::Value>().map(|d| d.unwrap()).collect()
}

fn fio(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    common::bin().arg("fio").args(args).env("XDG_DATA_HOME", dir.join("data")).current_dir(dir).output().unwrap()
}

#[test]
fn a_report_of_the_run_so_far_comes_every_interval_then_the_final_one() {
    let s = Scratch::new("fio-status");
    let job = ["--name=x", "--size=4m", "--rw=randread", "--bs=4k", "--time_based", "--runtime=1", "--ioengine=null"];
    let o = fio(&s.0, &[&job[..], &["--status-interval=200ms", "--output-format=json"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(crate::common::fio_stderr(&o), "", "a clean run says nothing on stderr");
    let docs = documents(&String::from_utf8(o.stdout).unwrap());
    // Four reports or so in a second (a report waits for the next loop turn of each job), and
    // the final one.
    assert!((3..=7).contains(&docs.len()), "{} documents", docs.len());
    let ios: Vec<u64> = docs.iter().map(|d| d["jobs"][0]["read"]["total_ios"].as_u64().unwrap()).collect();
    assert!(ios[0] > 0, "the first report counts what was done by then: {ios:?}");
    assert!(ios.windows(2).all(|w| w[0] <= w[1]), "the figures only grow: {ios:?}");
    let runtimes: Vec<u64> = docs.iter().map(|d| d["jobs"][0]["read"]["runtime"].as_u64().unwrap()).collect();
    assert!(runtimes[0] < runtimes[runtimes.len() - 1], "each report covers the run so far: {runtimes:?}");
    // The final report is the run's, as without --status-interval.
    let last = docs.last().unwrap();
    assert!(last["jobs"][0]["read"]["runtime"].as_u64().unwrap() >= 1000);

    // Terse, into --output: the reports, then the final lines, in the file; nothing on stdout.
    let o = fio(&s.0, &[&job[..], &["--status-interval=300ms", "--output-format=terse", "--output=out.txt"]].concat());
    assert!(o.status.success() && o.stdout.is_empty() && common::fio_stderr(&o).is_empty(), "{}", stderr(&o));
    let text = std::fs::read_to_string(s.0.join("out.txt")).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("3;fio-3.33;x;")).collect();
    assert!(lines.len() >= 3, "{text}");
    let ios = |l: &str| l.split(';').nth(5).unwrap().parse::<u64>().unwrap();
    assert!(lines.windows(2).all(|w| ios(w[0]) <= ios(w[1])), "{text}");
    // A job file's two groups: every report lists both jobs, as fio's; b with zeros until its
    // group starts, then beside a's final figures.
    let two =
        "[global]\nsize=4m\nioengine=null\ntime_based\nruntime=600ms\n[a]\nrw=read\n[b]\nstonewall\nrw=randread\n";
    std::fs::write(s.0.join("two.fio"), two).unwrap();
    let o = fio(&s.0, &["two.fio", "--status-interval=250ms", "--output-format=terse"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines.len() >= 6 && lines.len() % 2 == 0, "{out}");
    let pairs: Vec<(u64, u64)> = lines
        .chunks(2)
        .map(|p| {
            assert!(p[0].starts_with("3;fio-3.33;a;") && p[1].starts_with("3;fio-3.33;b;"), "{out}");
            (ios(p[0]), ios(p[1]))
        })
        .collect();
    let a_final = pairs.last().unwrap().0;
    assert!(pairs.iter().any(|&(a, b)| b == 0 && a < a_final), "a report during a's run, b not started: {out}");
    assert!(pairs.iter().all(|&(a, b)| b == 0 || a == a_final), "b runs after a has ended: {out}");
    // fio's normal output leaves out a job that has moved nothing, keeping its group's line.
    let o = fio(&s.0, &["two.fio", "--status-interval=250ms"]);
    let normal = String::from_utf8(o.stdout).unwrap();
    let reports = normal.matches("Run status group 1 (all jobs):").count();
    assert!(reports >= 3 && normal.matches("b: (groupid=1").count() < reports, "{normal}");
}
