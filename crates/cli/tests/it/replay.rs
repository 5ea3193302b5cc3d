//! Replay (issue #14): `--replay TRACE` issues the I/Os of a fio iolog (v2, v3) or of blkparse's
//! text output again, on the targets given (one per file or device of the trace), with the
//! trace's timing or as fast as the queue depth allows; the result is measured like any run.
//! Writes land where the trace says; a trace that writes needs the usual permission; a trace
//! that does not fit its targets is refused before anything runs.

use crate::common;

use std::path::Path;

use crate::common::{drivelab, json, need_loop, stderr, LoopDev, Scratch};

fn run(s: &Scratch, args: &[&str]) -> (Option<i32>, Option<serde_json::Value>, String) {
    let (out, res) = (s.path("r.json"), s.path("res"));
    let _ = std::fs::remove_file(&out);
    let mut a = vec!["run"];
    a.extend_from_slice(args);
    a.extend_from_slice(&["--json", &out, "-q", "--results", &res]);
    let o = drivelab(&a);
    let v = Path::new(&out).exists().then(|| json(Path::new(&out)));
    (o.status.code(), v, stderr(&o))
}

/// A v3 iolog: `n` writes of 4 KiB to every other block, one every `gap_us`, then `n` reads of
/// the same blocks.
fn iolog(n: u64, gap_us: u64) -> String {
    let mut t = String::from("fio version 3 iolog\n0 /data/x add\n0 /data/x open\n");
    for k in 0..n {
        t += &format!("{} /data/x write {} 4096\n", k * gap_us, k * 8192);
    }
    for k in 0..n {
        t += &format!("{} /data/x read {} 4096\n", (n + k) * gap_us, k * 8192);
    }
    t + &format!("{} /data/x close\n", 2 * n * gap_us)
}

#[test]
fn an_iolog_replays_with_its_timing_and_its_writes_land_where_it_says() {
    let s = Scratch::new("replay-iolog");
    let trace = s.path("w.iolog");
    std::fs::write(&trace, iolog(200, 1000)).unwrap();
    // A file of zeros of the user's (so --overwrite): the trace's writes are all that is found.
    let f = s.path("t.dat");
    std::fs::write(&f, vec![0u8; 4 << 20]).unwrap();
    let (code, v, e) = run(&s, &[&f, "--overwrite", "--replay", &trace]);
    assert_eq!(code, Some(0), "{e}");
    let v = v.unwrap();
    assert_eq!(v["write"]["ops"], 200);
    assert_eq!(v["read"]["ops"], 200);
    // 400 I/Os 1 ms apart: 0.4 s at 1000 IOPS, paced by the trace.
    // Never sooner than the trace's times (how much later is the machine's business).
    let paced_ns = v["runtime_ns"].as_u64().unwrap();
    assert!(paced_ns >= 390_000_000, "ran {paced_ns} ns");
    let open = &v["open_loop"];
    assert!((open["target_iops"].as_f64().unwrap() - 1000.0).abs() < 10.0, "{open}");
    assert_eq!(v["spec"]["replay"]["path"], trace.as_str());
    // As fast as possible: the same I/Os, far sooner.
    let (code, v, e) = run(&s, &[&f, "--overwrite", "--replay", &trace, "--replay-timing", "fast", "--qd", "4"]);
    assert_eq!(code, Some(0), "{e}");
    let v = v.unwrap();
    assert_eq!(v["total"]["ops"], 400);
    assert!(v["runtime_ns"].as_u64().unwrap() < paced_ns, "{} ns, paced {paced_ns} ns", v["runtime_ns"]);
    assert!(v["open_loop"].is_null());
    // Every written block carries drivelab's stamp of its own offset (the trace's offsets).
    let data = std::fs::read(&f).unwrap();
    for k in 0..200u64 {
        let at = (k * 8192) as usize;
        let stamp = u64::from_le_bytes(data[at..at + 8].try_into().unwrap());
        assert_eq!(stamp, k * 8192, "block {k} written where the trace says");
        assert!(data[at + 4096..at + 8192].iter().all(|&b| b == 0), "the block after {k} untouched");
    }
    assert!(data[200 * 8192..].iter().all(|&b| b == 0), "nothing past the trace's last block");
}

#[test]
fn a_trace_that_does_not_fit_its_targets_is_refused_before_anything_runs() {
    let s = Scratch::new("replay-refused");
    let trace = s.path("two.iolog");
    std::fs::write(&trace, "fio version 2 iolog\n/a add\n/b add\n/a read 0 4096\n/b write 0 4096\n").unwrap();
    let f = s.path("t.dat");
    let (code, _, e) = run(&s, &[&f, "--size", "1m", "--replay", &trace]);
    assert_eq!(code, Some(2), "{e}");
    assert!(e.contains("2 file(s) (/a, /b)") && e.contains("1 target(s)"), "{e}");
    let far = s.path("far.iolog");
    std::fs::write(&far, "fio version 3 iolog\n0 /a read 8388608 4096\n").unwrap();
    // (The refusal above came before the target was made: nothing was created.)
    assert!(!Path::new(&f).exists(), "a refused run leaves no target behind");
    let (code, _, e) = run(&s, &[&f, "--size", "1m", "--replay", &far]);
    assert_eq!(code, Some(2), "{e}");
    assert!(e.contains("past the end"), "{e}");
    assert!(!Path::new(&f).exists(), "refused before the target was made");
    let (code, _, e) = run(&s, &[&f, "--replay", &far, "--jobs", "2"]);
    assert_eq!(code, Some(2), "{e}");
    assert!(e.contains("one job per target"), "{e}");
    let bad = s.path("bad.iolog");
    std::fs::write(&bad, "fio version 3 iolog\n0 /a frobnicate 0 4096\n").unwrap();
    let (code, _, e) = run(&s, &[&f, "--replay", &bad]);
    assert_eq!(code, Some(2), "{e}");
    assert!(e.contains("bad.iolog:2: 'frobnicate' is not an iolog action"), "{e}");
}

#[test]
fn a_blkparse_capture_replays_on_a_block_device_with_the_usual_permission() {
    need_loop!();
    let s = Scratch::new("replay-blk");
    let lo = LoopDev::new(&s.0.join("lo.img"), 8 << 20, Some(0));
    let trace = s.path("cap.txt");
    let mut text = String::new();
    for k in 0..100u64 {
        let t = k as f64 * 0.0005;
        text += &format!("  7,0    0  {:>7}  {t:.9}  4242  Q  WS {} + 8 [app]\n", 2 * k + 1, k * 16);
        text += &format!("  7,0    0  {:>7}  {t:.9}  4242  G  WS {} + 8 [app]\n", 2 * k + 2, k * 16);
    }
    text += "CPU0 (7,0):\n Reads Queued:           0,        0KiB\n";
    std::fs::write(&trace, text).unwrap();
    let (code, _, e) = run(&s, &[&lo.dev, "--replay", &trace]);
    assert_eq!(code, Some(2), "a trace that writes needs --destroy: {e}");
    assert!(e.contains("--destroy"), "{e}");
    assert!(std::fs::read(s.0.join("lo.img")).unwrap().iter().all(|&b| b == 0), "nothing written");
    let (code, v, e) = run(&s, &[&lo.dev, "--destroy", &lo.dev, "--replay", &trace]);
    assert_eq!(code, Some(0), "{e}");
    let v = v.unwrap();
    assert_eq!(v["write"]["ops"], 100, "the Q events, not the G events");
    assert_eq!(v["write"]["bytes"], 100 * 4096);
    let img = std::fs::read(s.0.join("lo.img")).unwrap();
    for k in 0..100usize {
        assert!(img[k * 8192..k * 8192 + 4096].iter().any(|&b| b != 0), "sector {} written", k * 16);
        assert!(img[k * 8192 + 4096..(k + 1) * 8192].iter().all(|&b| b == 0), "the gap after it untouched");
    }
}

#[test]
fn a_trace_fio_wrote_replays_with_fios_counts() {
    if !crate::common::full_tier() {
        return;
    }
    if std::process::Command::new("fio").arg("--version").output().is_err() {
        common::skip("fio is not installed (apt-get install fio)");
        return;
    }
    let s = Scratch::new("replay-fio");
    let cap = s.path("cap.dat");
    let trace = s.path("cap.iolog");
    let o = std::process::Command::new("fio")
        .args(["--name=cap", &format!("--filename={cap}"), "--size=8m", "--rw=randrw", "--bs=4k"])
        .args(["--rate_iops=1000", "--runtime=1", "--time_based", "--ioengine=psync", "--output-format=json"])
        .arg(format!("--write_iolog={trace}"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let fio: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let ios = |d: &str| fio["jobs"][0][d]["total_ios"].as_u64().unwrap();
    let f = s.path("t.dat");
    let (code, v, e) = run(&s, &[&f, "--size", "8m", "--replay", &trace]);
    assert_eq!(code, Some(0), "{e}");
    let v = v.unwrap();
    // fio logs every I/O it issued (those of its ramp to the last): at least what it counted.
    let (r, w) = (v["read"]["ops"].as_u64().unwrap(), v["write"]["ops"].as_u64().unwrap());
    assert!(r >= ios("read") && w >= ios("write") && r + w <= ios("read") + ios("write") + 4, "{r} {w} vs fio {fio}");
    let achieved = v["open_loop"]["achieved_iops"].as_f64().unwrap();
    assert!((achieved - 2000.0).abs() < 150.0, "fio's rate replayed: {achieved}");
}
