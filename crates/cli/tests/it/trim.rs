//! Trims (issue #14): `--rw trim|randtrim|trimwrite|randtrimwrite` discard a block device's
//! blocks (BLKDISCARD) or punch holes in a file, through io_uring and psync, timed like reads
//! and writes and counted as their own direction; they destroy data, so they need what a write
//! needs (`--destroy DEV`, a file drivelab made or `--overwrite`), and what refuses them leaves
//! the bytes as they were.

use crate::common;

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::common::{drivelab, json, need_loop, stderr, LoopDev, Scratch};

/// Run drivelab with `args` and `--json`; the exit code and the result (if one was written).
fn run(s: &Scratch, args: &[&str]) -> (Option<i32>, Option<serde_json::Value>, String) {
    let out = s.path("r.json");
    let _ = std::fs::remove_file(&out);
    let mut a = vec!["run"];
    a.extend_from_slice(args);
    a.extend_from_slice(&["--json", &out, "-q"]);
    let o = drivelab(&a);
    let v = Path::new(&out).exists().then(|| json(Path::new(&out)));
    (o.status.code(), v, stderr(&o))
}

#[test]
fn trims_punch_holes_in_a_file_drivelab_made_and_count_as_their_own_direction() {
    let s = Scratch::new("trim-file");
    let f = s.path("t.dat");
    for engine in ["uring", "psync", "libaio"] {
        let _ = std::fs::remove_file(&f);
        // Made whole first (every block allocated), then trimmed from start to end and around.
        let (code, v, e) =
            run(&s, &[&f, "--size", "8m", "--rw", "trim", "--bs", "64k", "--time", "500ms", "--engine", engine]);
        assert_eq!(code, Some(0), "{engine}: {e}");
        let v = v.unwrap();
        let trim = &v["trim"];
        assert!(trim["ops"].as_u64().unwrap() >= 128, "{engine}: the whole file at least once: {trim}");
        assert_eq!(v["total"]["ops"], trim["ops"], "{engine}: a trim workload's total is its trims");
        assert_eq!(v["read"]["ops"], 0);
        assert_eq!(v["write"]["ops"], 0);
        assert!(trim["lat_ns"]["p50"].as_u64().unwrap() > 0, "{engine}: trims are timed");
        let m = std::fs::metadata(&f).unwrap();
        assert_eq!(m.len(), 8 << 20, "{engine}: the size is kept");
        assert_eq!(m.blocks(), 0, "{engine}: every block punched out");
        assert!(std::fs::read(&f).unwrap().iter().all(|&b| b == 0), "{engine}: holes read as zeros");
    }
    // trimwrite: each block trimmed, then written: the file ends whole and written.
    let _ = std::fs::remove_file(&f);
    let (code, v, e) = run(&s, &[&f, "--size", "4m", "--rw", "trimwrite", "--qd", "1", "--io-size", "4m"]);
    assert_eq!(code, Some(0), "{e}");
    let v = v.unwrap();
    assert_eq!(v["trim"]["ops"], v["write"]["ops"], "one write after every trim");
    assert_eq!(
        v["trim"]["ops"].as_u64().unwrap() + v["write"]["ops"].as_u64().unwrap(),
        v["total"]["ops"].as_u64().unwrap()
    );
    let data = std::fs::read(&f).unwrap();
    assert!(data.chunks(4096).all(|c| c.iter().any(|&b| b != 0)), "every block written after its trim");
    // The report has a row of its own for the trims.
    let res = s.path("res");
    let o = drivelab(&["run", &f, "--rw", "randtrim", "--time", "200ms", "-q", "--results", &res]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let dir = std::fs::read_dir(&res).unwrap().next().unwrap().unwrap().path();
    let o = drivelab(&["report", dir.to_str().unwrap(), "--format", "csv", "--tables"]);
    let csv = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(csv.lines().any(|l| l.contains(",trim lat,")), "{csv}");
    // And the tidy CSV has columns of their own for the trims, their count as saved.
    let o = drivelab(&["report", dir.to_str().unwrap(), "--format", "csv"]);
    let tidy = String::from_utf8_lossy(&o.stdout).into_owned();
    let header: Vec<&str> = tidy.lines().next().unwrap().split(',').collect();
    let row: Vec<&str> = tidy.lines().nth(1).unwrap().split(',').collect();
    let trims = common::Saved::load(&dir).points[0]["result"]["trim"]["ops"].as_u64().unwrap();
    let at = header.iter().position(|c| *c == "trim_ios").unwrap_or_else(|| panic!("no trim_ios: {tidy}"));
    assert_eq!(row[at].parse::<u64>().ok(), Some(trims), "{tidy}");
    assert!(header.contains(&"trim_lat_p99_ns"), "{tidy}");
}

#[test]
fn a_file_drivelab_did_not_make_is_not_trimmed_without_overwrite() {
    let s = Scratch::new("trim-foreign");
    let f = s.path("theirs.dat");
    std::fs::write(&f, vec![7u8; 1 << 20]).unwrap();
    let (code, _, e) = run(&s, &[&f, "--rw", "randtrim", "--time", "200ms"]);
    assert_eq!(code, Some(2), "{e}");
    assert!(e.contains("--overwrite"), "{e}");
    assert!(std::fs::read(&f).unwrap().iter().all(|&b| b == 7), "untouched");
}

#[test]
fn a_block_device_is_discarded_only_when_named_for_destruction() {
    need_loop!();
    let s = Scratch::new("trim-loop");
    let backing = PathBuf::from(s.path("lo.img"));
    let lo = LoopDev::new(&backing, 16 << 20, Some(0xab));
    let (code, _, e) = run(&s, &[&lo.dev, "--rw", "randtrim", "--time", "200ms"]);
    assert_eq!(code, Some(2), "{e}");
    assert!(e.contains(&format!("--destroy {}", lo.dev)), "{e}");
    assert!(std::fs::read(&backing).unwrap().iter().all(|&b| b == 0xab), "refused: nothing discarded");
    for engine in ["uring", "psync"] {
        let (code, v, e) = run(
            &s,
            &[&lo.dev, "--destroy", &lo.dev, "--rw", "trim", "--bs", "1m", "--io-size", "16m", "--engine", engine],
        );
        assert_eq!(code, Some(0), "{engine}: {e}");
        let v = v.unwrap();
        assert_eq!(v["trim"]["ops"], 16, "{engine}: 16 discards of 1 MiB");
        assert_eq!(v["trim"]["bytes"], 16 << 20);
        // A loop device discards by punching its backing file: the device reads zeros.
        let dev = std::fs::read(&lo.dev).unwrap();
        assert!(dev.iter().all(|&b| b == 0), "{engine}: the discarded device reads zeros");
        // Written back before the next discard (a discard fails with EBUSY while the device's
        // page cache is still being written).
        let mut d = std::fs::OpenOptions::new().write(true).open(&lo.dev).unwrap();
        std::io::Write::write_all(&mut d, &vec![0xabu8; 16 << 20]).unwrap();
        d.sync_all().unwrap();
    }
}

#[test]
fn trims_refuse_what_cannot_go_with_them() {
    for (extra, says) in [
        (&["--read", "50"][..], "no reads"),
        (&["--verify"][..], "cannot be checked"),
        (&["--rate", "1000"][..], "closed loop"),
    ] {
        let mut a = vec!["run", "null", "--rw", "randtrim", "--time", "100ms"];
        a.extend_from_slice(extra);
        let o = drivelab(&a);
        assert_eq!(o.status.code(), Some(2), "{extra:?}");
        assert!(stderr(&o).contains(says), "{extra:?}: {}", stderr(&o));
    }
    let s = Scratch::new("trim-null");
    let (code, v, e) = run(&s, &["null", "--rw", "randtrim", "--time", "100ms"]);
    assert_eq!(code, Some(0), "{e}");
    assert_eq!(v.unwrap()["spec"]["trim"], "only");
}
