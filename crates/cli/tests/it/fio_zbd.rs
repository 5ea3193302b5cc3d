//! fio's `zonemode=zbd` on a file and on a loop device (neither zoned: zones are emulated),
//! proved against fio 3.33 itself: the same job runs on two zero-filled targets, one by fio and
//! one by drivelab, and the data each leaves follows the same rules — in every 1 MiB zone the
//! written blocks are contiguous from the zone's start, at most `max_open_zones` zones are
//! partly written, sequential writes fill exactly the same zones — and both move the same bytes.
//! A read job on fresh zones moves nothing in fio, and in drivelab, which says why.

use crate::common;

use std::path::Path;

use crate::common::{drivelab_in, need_loop, saved_points, stderr, LoopDev, Scratch};

const MB: usize = 1 << 20;
const BLOCK: usize = 64 << 10;

/// The job: `rw` over the first `size` bytes of `target`, 1 MiB zones of 64 KiB blocks.
fn job(dir: &Path, name: &str, target: &str, rw: &str, extra: &str) -> String {
    let text = format!(
        "[global]\nzonemode=zbd\nzonesize=1m\nbs=64k\ndirect=1\nioengine=psync\nsize=16m\n{extra}\n\n\
         [{name}]\nrw={rw}\nfilename={target}\n"
    );
    let path = dir.join(format!("{name}.fio"));
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

/// Per 1 MiB zone of `data`: the written 64 KiB blocks (not all zero) as a count, checking
/// they are contiguous from the zone's start.
fn zones(who: &str, data: &[u8]) -> Vec<usize> {
    data[..16 * MB]
        .chunks(MB)
        .enumerate()
        .map(|(z, zone)| {
            let written: Vec<bool> = zone.chunks(BLOCK).map(|b| b.iter().any(|&x| x != 0)).collect();
            let n = written.iter().filter(|&&w| w).count();
            assert!(
                written[..n].iter().all(|&w| w),
                "{who}: zone {z}'s data is not contiguous from its start: {written:?}"
            );
            n
        })
        .collect()
}

/// Bytes fio moved in direction `dir` (its JSON), or None when fio is not installed.
fn fio(dir: &Path, file: &str, ddir: &str) -> Option<u64> {
    let o = std::process::Command::new("fio")
        .args([file, "--output-format=json", "--output=fio.json"])
        .current_dir(dir)
        .output()
        .ok()?;
    assert!(o.status.success(), "fio: {}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("fio.json")).unwrap()).unwrap();
    Some(v["jobs"][0][ddir]["io_bytes"].as_u64().unwrap())
}

/// drivelab's point for `file` on `target` (extra flags after): its result.
fn drivelab(dir: &Path, file: &str, target: &str, res: &str, extra: &[&str]) -> serde_json::Value {
    // `plan` takes a job file as `run` does, and --no-prep.
    let cmd = if extra.contains(&"--no-prep") { "plan" } else { "run" };
    let mut args = vec![cmd, file, target, "--results", res, "-q"];
    args.extend_from_slice(extra);
    let o = drivelab_in(dir, &args);
    assert!(o.status.success(), "{}", stderr(&o));
    let dirs: Vec<_> = std::fs::read_dir(dir.join(res)).unwrap().map(|e| e.unwrap().path()).collect();
    saved_points(&dirs[0]).remove(0)["result"].clone()
}

fn zeroed(path: &Path) {
    std::fs::File::create(path).unwrap().set_len(16 * MB as u64).unwrap();
}

#[test]
fn zbd_writes_follow_fios_zone_rules_on_a_file() {
    let s = Scratch::new("fio-zbd");
    let (a, b) = (s.0.join("fio.dat"), s.0.join("drivelab.dat"));
    let mut fio_ran = true;
    for (rw, extra) in [("write", "io_size=8m"), ("randwrite", "io_size=8m\nmax_open_zones=2")] {
        zeroed(&a);
        zeroed(&b);
        let mine = job(&s.0, "mine", &b.to_string_lossy(), rw, extra);
        let r = drivelab(&s.0, &mine, &b.to_string_lossy(), &format!("res-{rw}"), &["--overwrite"]);
        assert_eq!(r["write"]["bytes"].as_u64(), Some(8 << 20), "{rw}: {}", r["write"]);
        let d = zones("drivelab", &std::fs::read(&b).unwrap());
        let theirs = job(&s.0, "theirs", &a.to_string_lossy(), rw, extra);
        let f = match fio(&s.0, &theirs, "write") {
            Some(bytes) => {
                assert_eq!(bytes, 8 << 20, "fio {rw}");
                Some(zones("fio", &std::fs::read(&a).unwrap()))
            }
            None => {
                fio_ran = false;
                None
            }
        };
        let partial = |z: &[usize]| z.iter().filter(|&&n| n > 0 && n < MB / BLOCK).count();
        if rw == "write" {
            let expect: Vec<usize> = (0..16).map(|z| if z < 8 { 16 } else { 0 }).collect();
            assert_eq!(d, expect, "sequential writes fill the first 8 zones");
            if let Some(f) = &f {
                assert_eq!(&d, f, "fio fills the same zones");
            }
        } else {
            assert!(partial(&d) <= 2, "drivelab: more zones partly written than max_open_zones: {d:?}");
            assert!(d.iter().filter(|&&n| n > 0).count() > 2, "drivelab: random writes open zones all over: {d:?}");
            if let Some(f) = &f {
                assert!(partial(f) <= 2, "fio: {f:?}");
                eprintln!("randwrite max_open_zones=2, blocks per zone: drivelab {d:?}, fio {f:?}");
            }
        }
    }
    if !fio_ran {
        common::skip_part("the comparison with fio", "fio is not installed (apt-get install fio)");
    }
}

#[test]
fn a_zbd_read_job_on_fresh_zones_moves_nothing_as_in_fio() {
    let s = Scratch::new("fio-zbd-read");
    let t = s.0.join("t.dat");
    std::fs::write(&t, vec![7u8; 16 * MB]).unwrap();
    let file = job(&s.0, "r", &t.to_string_lossy(), "read", "");
    let r = drivelab(&s.0, &file, &t.to_string_lossy(), "res", &[]);
    assert_eq!(r["total"]["ops"].as_u64(), Some(0), "{}", r["total"]);
    assert!(r["errors"].as_array().unwrap().is_empty());
    let notices = r["notices"].to_string();
    assert!(notices.contains("no zone of their region holds data below its write pointer"), "{notices}");
    // A mixed job writes first (fio's zbd_adjust_ddir), then reads what it wrote.
    let mixed = job(&s.0, "m", &t.to_string_lossy(), "randrw", "io_size=2m\nmax_open_zones=1");
    let r = drivelab(&s.0, &mixed, &t.to_string_lossy(), "res-m", &["--overwrite"]);
    assert!(r["read"]["ops"].as_u64() > Some(0) && r["write"]["ops"].as_u64() > Some(0), "{}", r["total"]);
    match fio(&s.0, &file, "read") {
        Some(bytes) => assert_eq!(bytes, 0, "fio reads nothing on fresh emulated zones"),
        None => common::skip_part("the comparison with fio", "fio is not installed (apt-get install fio)"),
    }
}

#[test]
fn zbd_sequential_writes_on_a_loop_device_fill_the_same_zones_as_fio() {
    need_loop!();
    let s = Scratch::new("fio-zbd-loop");
    let (la, lb) = (LoopDev::new(&s.0.join("a.img"), 16 << 20, None), LoopDev::new(&s.0.join("b.img"), 16 << 20, None));
    let mine = job(&s.0, "mine", &lb.dev, "write", "io_size=4m");
    // --no-prep: drivelab fills a device before writing it by default; fio does not.
    let r = drivelab(&s.0, &mine, &lb.dev, "res", &["--destroy", &lb.dev, "--no-prep"]);
    assert_eq!(r["write"]["bytes"].as_u64(), Some(4 << 20));
    let d = zones("drivelab", &std::fs::read(&lb.dev).unwrap());
    let expect: Vec<usize> = (0..16).map(|z| if z < 4 { 16 } else { 0 }).collect();
    assert_eq!(d, expect, "a loop device is not zoned: its zones are emulated");
    let theirs = job(&s.0, "theirs", &la.dev, "write", "io_size=4m");
    match fio(&s.0, &theirs, "write") {
        Some(bytes) => {
            assert_eq!(bytes, 4 << 20);
            assert_eq!(zones("fio", &std::fs::read(&la.dev).unwrap()), d, "fio fills the same zones");
        }
        None => common::skip_part("the comparison with fio", "fio is not installed (apt-get install fio)"),
    }
}
