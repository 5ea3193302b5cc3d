//! fio's SPRandom (fio 3.41's `sprandom`) through `drivelab fio` and `drivelab run`, on a file
//! and on a loop device: the pass writes every block of the region, its bytes are the region
//! plus the over-provisioning, and each region of the pass is left near the validity of the
//! steady-state model (the oldest least valid) — read back from the job's own `write_iolog`.
//! fio's refusals (another generator, a random map, a job that does not write randomly, a cache
//! larger than a region) are exit 2 before anything is written. fio's own t/sprandom.py cases
//! are these; the harness itself passes 8 of 8 with drivelab as `fio` (docs/guide/fio.md).

use std::collections::HashMap;
use std::path::Path;

use crate::common::{self, need_loop, LoopDev, Scratch};

/// The model's validity per region (oldest first), as `spec/sprandom.rs` computes it.
fn model(op: f64, n: usize) -> Vec<f64> {
    let gc = 1.0 - 1.0 / (0.5 / op + 0.7);
    let v: Vec<f64> = (0..n).map(|i| 1.0 + (gc - 1.0) * i as f64 / (n - 1) as f64).collect();
    let mut x = Vec::new();
    let mut acc = 0.0;
    for vi in &v {
        acc += 1.0 / vi;
        x.push(acc);
    }
    let mut out: Vec<f64> = (0..n)
        .map(|j| {
            let xj = x[0] + (x[n - 1] - x[0]) * j as f64 / (n - 1) as f64;
            let k = (0..n - 1).find(|&k| x[k + 1] >= xj).unwrap_or(n - 2);
            v[k] + (v[k + 1] - v[k]) * ((xj - x[k]) / (x[k + 1] - x[k])).clamp(0.0, 1.0)
        })
        .collect();
    out.reverse();
    out
}

/// The offsets of fio's iolog's writes, in order.
fn writes(log: &Path) -> Vec<u64> {
    let text = std::fs::read_to_string(log).unwrap();
    text.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() == 5 && f[2] == "write").then(|| f[3].parse().unwrap())
        })
        .collect()
}

/// Check a pass over `blocks` 4 KiB blocks: every block written, the bytes the model's, each
/// region left near its validity.
fn check_pass(offsets: &[u64], blocks: u64, op: f64, regions: usize) {
    let mut last = HashMap::new();
    for (i, &o) in offsets.iter().enumerate() {
        assert_eq!(o % 4096, 0);
        assert!(o / 4096 < blocks, "{o} past the region");
        last.insert(o, i);
    }
    assert_eq!(last.len() as u64, blocks, "every block is written");
    let physical = blocks * 4096 + ((blocks * 4096) as f64 * op).ceil() as u64;
    let per_region = (physical / 4096 / regions as u64) as usize;
    let total = physical / 4096;
    assert!(offsets.len() as u64 + per_region as u64 >= total, "{} writes of {total}", offsets.len());
    assert!(offsets.len() as u64 <= total + per_region as u64, "{} writes of {total}", offsets.len());
    let mut live = vec![0usize; regions + 1];
    for &i in last.values() {
        live[(i / per_region).min(regions)] += 1;
    }
    let want = model(op, regions);
    for r in 0..regions - 1 {
        let got = live[r] as f64 / per_region as f64;
        assert!((got - want[r]).abs() < 0.05, "region {r}: validity {got:.3}, the model's {:.3}", want[r]);
    }
}

fn args<'a>(target: &'a str, log: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec![
        "--name=pre",
        target,
        "--bs=4k",
        "--direct=1",
        "--ioengine=io_uring",
        "--iodepth=8",
        "--rw=randwrite",
        "--sprandom=1",
        "--spr_op=0.2",
        "--spr_num_regions=8",
        log,
    ];
    a.extend_from_slice(extra);
    a
}

#[test]
fn a_pass_over_a_file_writes_every_block_and_leaves_the_models_validity() {
    let s = Scratch::new("fio-sprandom");
    let o = common::bin()
        .arg("fio")
        .args(args("--filename=f.dat", "--write_iolog=p.log", &["--size=32m", "--output-format=json"]))
        .current_dir(&s.0)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    // fio's contract: a clean run says nothing on stderr (but that the machine was busy, when
    // the job threads waited for a CPU: other tests run beside this one).
    let err = common::stderr(&o);
    assert!(err.lines().all(|l| l.contains("waited for a CPU")), "{err}");
    // fio's lines, as fio prints them before its JSON, in every format.
    let (lines, json) = out.split_at(out.find('{').unwrap());
    assert_eq!(lines, "fio: sprandom sets random_generator=lfsr\nfio: sprandom sets norandommap=1\n");
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    let w = &v["jobs"][0]["write"];
    let offsets = writes(&s.0.join("p.log"));
    assert_eq!(w["total_ios"].as_u64(), Some(offsets.len() as u64));
    check_pass(&offsets, 8192, 0.2, 8);
    // Naming what SPRandom needs says nothing; with a cache size the pass defers its rewrites.
    let o = common::bin()
        .arg("fio")
        .args(args(
            "--filename=f.dat",
            "--write_iolog=q.log",
            &["--size=32m", "--random_generator=lfsr", "--norandommap", "--spr_cs=64k", "--output=out.txt"],
        ))
        .current_dir(&s.0)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    assert!(!std::fs::read_to_string(s.0.join("out.txt")).unwrap().contains("sprandom sets"));
    check_pass(&writes(&s.0.join("q.log")), 8192, 0.2, 8);
}

#[test]
fn what_fio_refuses_is_refused_before_anything_is_written() {
    let s = Scratch::new("fio-sprandom-no");
    for (extra, says) in [
        ("--random_generator=tausworthe", "sprandom requires random_generator=lfsr"),
        ("--norandommap=0", "sprandom requires norandommap=1"),
        ("--rw=randread", "sprandom requires random write"),
        ("--rw=write", "sprandom requires random write"),
        ("--spr_cs=8m", "larger than a region"),
        ("--spr_num_regions=3000", "give at most 2457"),
        ("--spr_op=1.5", "not a share between 0 and 1"),
        ("--bssplit=4k/50:8k/50", "blocks of one size"),
    ] {
        let o = common::bin()
            .arg("fio")
            .args(args("--filename=f.dat", "--write_iolog=p.log", &["--size=8m", extra]))
            .current_dir(&s.0)
            .output()
            .unwrap();
        let err = common::stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{extra}: {err}");
        assert!(err.contains(says), "{extra}: {err}");
        assert!(!s.0.join("f.dat").exists(), "{extra}: nothing made");
    }
}

#[test]
fn run_and_a_loop_device_take_the_same_pass() {
    need_loop!();
    let s = Scratch::new("fio-sprandom-dev");
    let dev = LoopDev::new(&s.0.join("backing"), 16 << 20, None);
    let target = format!("--filename={}", dev.dev);
    let o = common::bin()
        .arg("fio")
        .args(args(&target, "--write_iolog=p.log", &["--destroy", &dev.dev, "--output-format=terse"]))
        .current_dir(&s.0)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    check_pass(&writes(&s.0.join("p.log")), 4096, 0.2, 8);
    // drivelab's own flags: the pass ends the run (no --time needed) and its label says it.
    let o = common::bin()
        .args(["run", &dev.dev, "--destroy", &dev.dev, "--rw", "randwrite", "--sprandom", "--spr-op", "0.2"])
        .args(["--spr-num-regions", "8", "--json", "r.json"])
        .current_dir(&s.0)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    assert!(out.contains("randwrite sprandom (op 0.2, 8 regions) 4k"), "{out}");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(s.0.join("r.json")).unwrap()).unwrap();
    let ios = v["write"]["ops"].as_u64().unwrap();
    // The pass: 4,096 blocks plus 20%, within a region of rounding.
    assert!((4915 - 614..=4915 + 614).contains(&ios), "{ios}");
}
