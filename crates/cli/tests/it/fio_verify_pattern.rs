//! fio's `verify_pattern` through `drivelab run JOB.fio`: a write job leaves the pattern, its
//! `%o` holding each block's offset — byte for byte the file fio 3.33 leaves with the same job;
//! a read job checks every block against it (a file fio wrote passes), and a corrupted block is
//! a verify mismatch (exit 1, never a pass) — as fio finds it too.

use crate::common;

use std::path::Path;

use crate::common::{drivelab_in, stderr, stdout, Saved, Scratch};

const PATTERN: &str = "%o\"ab\"0x01";

fn job(dir: &Path, name: &str, rw: &str, extra: &str) -> String {
    let path = dir.join(format!("{name}.fio"));
    let text = format!(
        "[{name}]\nfilename=vp.dat\nrw={rw}\nbs=4k\nsize=64k\nverify=pattern\nverify_pattern={PATTERN}\ndo_verify=0\n{extra}"
    );
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

/// Block `i`'s bytes by fio's rules: the offset as 8 LE bytes, "ab", 0x01, repeated from the
/// block's start.
fn block(i: u64) -> Vec<u8> {
    let mut p = (i * 4096).to_le_bytes().to_vec();
    p.extend_from_slice(b"ab\x01");
    p.iter().copied().cycle().take(4096).collect()
}

fn fio_here() -> bool {
    std::process::Command::new("fio").arg("--version").output().is_ok_and(|o| o.status.success())
}

fn fio(dir: &Path, file: &str) -> std::process::Output {
    std::process::Command::new("fio").args([file, "--output=/dev/null"]).current_dir(dir).output().unwrap()
}

/// `drivelab run JOB` into results `res`: its exit code and the first point's `verify`.
fn run(dir: &Path, file: &str, res: &str) -> (Option<i32>, serde_json::Value, String) {
    let o = drivelab_in(dir, &["run", file, "--results", res, "-q"]);
    let text = format!("{}{}", stdout(&o), stderr(&o));
    let saved = saved(&dir.join(res));
    let v = saved.points.first().map(|p| p["result"]["verify"].clone()).unwrap_or_default();
    (o.status.code(), v, text)
}

#[test]
fn writes_carry_fios_pattern_and_reads_find_a_corrupted_block() {
    let s = Scratch::new("fio-verify-pattern");
    let (code, v, text) = run(&s.0, &job(&s.0, "w", "write", ""), "res-w");
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(v["written_units"], 16, "{v}");
    let mine = std::fs::read(s.0.join("vp.dat")).unwrap();
    assert_eq!(mine.len(), 65536);
    for (i, b) in mine.chunks(4096).enumerate() {
        assert!(b == block(i as u64), "block {i} does not hold the pattern: {:02x?}", &b[..16]);
    }

    let theirs_dir = s.0.join("fio");
    std::fs::create_dir(&theirs_dir).unwrap();
    if fio_here() {
        let o = fio(&theirs_dir, &job(&theirs_dir, "w", "write", ""));
        assert!(o.status.success(), "fio: {}", String::from_utf8_lossy(&o.stderr));
        let theirs = std::fs::read(theirs_dir.join("vp.dat")).unwrap();
        assert!(mine == theirs, "drivelab's file differs from fio's");
    } else {
        common::skip_part("the comparison with fio", "fio is not installed (apt-get install fio)");
        std::fs::write(theirs_dir.join("vp.dat"), &mine).unwrap();
    }

    // A read job checks every block, of a file fio wrote.
    let read = job(&theirs_dir, "r", "read", "");
    let (code, v, text) = run(&theirs_dir, &read, "res-r");
    assert_eq!(code, Some(0), "{text}");
    assert_eq!((v["inline"]["checked_units"].as_u64(), v["inline"]["mismatches"].as_u64()), (Some(16), Some(0)), "{v}");

    // One flipped bit in block 5: a mismatch at its offset, exit 1 — and fio fails too.
    let mut bad = std::fs::read(theirs_dir.join("vp.dat")).unwrap();
    bad[5 * 4096 + 100] ^= 0x10;
    std::fs::write(theirs_dir.join("vp.dat"), &bad).unwrap();
    let (code, v, text) = run(&theirs_dir, &read, "res-bad");
    assert_eq!(code, Some(1), "{text}");
    assert_eq!(v["inline"]["mismatches"], 1, "{v}");
    assert_eq!(v["inline"]["by_kind"]["bit_flip"], 1, "{v}");
    assert_eq!(v["inline"]["first"][0]["offset_bytes"], 5 * 4096, "{v}");
    if fio_here() {
        let o = fio(&theirs_dir, &read);
        assert!(!o.status.success(), "fio finds the corrupted block too");
    }
}

#[test]
fn verify_none_or_a_bad_pattern_is_refused_with_nothing_written() {
    let s = Scratch::new("fio-verify-pattern-refused");
    for (pattern, says) in [("0x01\nverify=none", "verify=none"), ("%x", "%o")] {
        let p = s.0.join("j.fio");
        std::fs::write(&p, format!("[j]\nfilename=j.dat\nrw=write\nsize=64k\nverify_pattern={pattern}\n")).unwrap();
        let o = drivelab_in(&s.0, &["run", p.to_str().unwrap(), "--results", "res", "-q"]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains("verify_pattern") && stderr(&o).contains(says), "{}", stderr(&o));
        assert!(!s.0.join("j.dat").exists(), "nothing created");
    }
}

/// The results directory drivelab made under `res`, loaded.
fn saved(res: &Path) -> Saved {
    match std::fs::read_dir(res).ok().and_then(|mut d| d.next()).and_then(|e| e.ok()) {
        Some(e) => Saved::load(&e.path()),
        None => Saved { run: Default::default(), points: Vec::new(), probes: Vec::new(), outcome: Default::default() },
    }
}

/// fio's t0006: a randrw job with verify_pattern on a file it creates. fio checks only the reads
/// of what the job wrote (its verify list); a read of a block only laid out is not checked, so
/// the job passes — and in fio's formats the verify reads count with the reads (about twice
/// the writes). Once drivelab checked every read against the pattern and failed the job with
/// "foreign" data.
#[test]
fn a_mixed_job_checks_its_own_writes_not_the_files_layout() {
    let s = Scratch::new("fio-verify-pattern-randrw");
    let args = [
        "fio",
        "--name=ver-test",
        "--rw=randrw",
        "--bs=4k",
        "--size=8m",
        "--verify=meta",
        "--verify_pattern=0xaaa",
        "--verify_backlog=1024",
        "--filename=foo",
        "--output-format=json",
    ];
    let o = drivelab_in(&s.0, &args);
    assert!(o.status.success(), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let job = &doc["jobs"][0];
    assert_eq!(job["error"], 0, "{job}");
    let (r, w) = (job["read"]["io_kbytes"].as_f64().unwrap(), job["write"]["io_kbytes"].as_f64().unwrap());
    assert!((r / w - 2.0).abs() < 0.1, "reads {r} KiB with the verify reads, writes {w} KiB");
}

/// fio's t0005: a sequential write with `verify_backlog=32` reads every block back while it
/// writes (32 written, 32 read back and checked, ...), the reads counted as the job's reads and
/// not against its size: as many KiB read as written, nothing said on stderr.
#[test]
fn verify_backlog_reads_back_while_the_job_writes() {
    let s = Scratch::new("fio-verify-backlog");
    let base = ["fio", "--name=write", "--rw=write", "--bs=4k", "--size=1m", "--verify=md5", "--filename=xxx"];
    let o = drivelab_in(&s.0, &[&base[..], &["--verify_backlog=32", "--output-format=json"]].concat());
    assert!(o.status.success() && common::fio_stderr(&o).is_empty(), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let job = &doc["jobs"][0];
    assert_eq!((job["read"]["io_kbytes"].as_u64(), job["write"]["io_kbytes"].as_u64()), (Some(1024), Some(1024)));
    assert_eq!(job["error"], 0);
    // A backlog of 1 on a mixed job: every write read back before the next I/O (fio's t0008).
    let mixed = ["fio", "--name=foo", "--rw=readwrite", "--bs=4k", "--size=2m", "--verify=crc32c", "--filename=m"];
    let o = drivelab_in(&s.0, &[&mixed[..], &["--do_verify=1", "--verify_backlog=1", "--output-format=json"]].concat());
    assert!(o.status.success() && common::fio_stderr(&o).is_empty(), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let (r, w) =
        (doc["jobs"][0]["read"]["io_kbytes"].as_u64().unwrap(), doc["jobs"][0]["write"]["io_kbytes"].as_u64().unwrap());
    assert_eq!(r, 2048, "the job's reads and its writes read back: its 2 MiB");
    assert!(w > 0 && w < 2048, "{w} KiB written");
}

/// fio's t0002/t0003: two jobs of one group verify one file in regions apart (each writes and
/// checks its own); regions that overlap are refused before anything runs (a unit needs one
/// writer for its check to mean anything).
#[test]
fn two_jobs_verify_one_file_in_regions_apart() {
    let s = Scratch::new("fio-verify-two-streams");
    let job = |second_offset: &str| {
        format!(
            "[global]\nfilename=shared.dat\nrw=write\nbs=4k\nsize=256k\nverify=crc32c\nioengine=libaio\niodepth=8\n\
             [low]\noffset=0\n[high]\noffset={second_offset}\n"
        )
    };
    std::fs::write(s.0.join("apart.fio"), job("1m")).unwrap();
    let o = drivelab_in(&s.0, &["fio", "apart.fio", "--output-format=json"]);
    assert!(o.status.success() && common::fio_stderr(&o).is_empty(), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    for j in doc["jobs"].as_array().unwrap() {
        assert_eq!((j["error"].as_u64(), j["read"]["io_kbytes"].as_u64()), (Some(0), Some(256)), "{}", j["jobname"]);
    }
    std::fs::write(s.0.join("overlap.fio"), job("128k")).unwrap();
    let o = drivelab_in(&s.0, &["fio", "overlap.fio", "--output-format=json"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("overlapping regions"), "{}", stderr(&o));
}
