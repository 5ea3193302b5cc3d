//! fio's job over several files (`filename=a:b`, `nrfiles`, `opendir`, `file_service_type`)
//! through `drivelab fio`: one job per clone (not one per file), `size` split between the files,
//! each I/O to the next file in turn, each file's blocks visited once per pass by the random map,
//! the bytes fio moves — compared with fio 3.33's own JSON, files and iolog where fio is
//! installed — and two loop devices named in one job read as one job over both.

use std::collections::HashSet;
use std::path::Path;

use crate::common::{self, need_loop, stderr, LoopDev, Scratch};

fn fio_installed() -> bool {
    std::process::Command::new("fio").arg("--version").output().is_ok_and(|o| o.status.success())
}

/// Per job entry of fio's JSON: its name, read and written bytes.
type Jobs = Vec<(String, u64, u64)>;

/// Run `tool` (`drivelab fio` or fio) with `args` in `dir` (emptied of `*.dat` and `x.*` first):
/// its jobs, and each file's size it left.
fn run(tool: &[&str], dir: &Path, args: &[&str]) -> (Jobs, Vec<(String, u64)>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let n = e.file_name().to_string_lossy().into_owned();
        if n.ends_with(".dat") || n.starts_with("x.") || n.starts_with("iolog") {
            std::fs::remove_file(e.path()).unwrap();
        }
    }
    let mut cmd = if tool[0] == "fio" { std::process::Command::new("fio") } else { common::bin() };
    cmd.args(&tool[1..]).args(args).args(["--output-format=json"]).current_dir(dir);
    cmd.env("XDG_DATA_HOME", dir.join("data"));
    let o = cmd.output().unwrap();
    assert!(o.status.success(), "{tool:?} {args:?}: {}", stderr(&o));
    assert_eq!(crate::common::fio_stderr(&o), "", "{tool:?} {args:?}: a clean run says nothing on stderr");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let jobs = v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let bytes = |d: &str| j[d]["io_bytes"].as_u64().unwrap();
            (j["jobname"].as_str().unwrap().to_string(), bytes("read"), bytes("write"))
        })
        .collect();
    let mut files: Vec<(String, u64)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.metadata().unwrap().len()))
        .filter(|(n, _)| n.ends_with(".dat") || n.starts_with("x."))
        .collect();
    files.sort();
    (jobs, files)
}

/// The `(file, action, offset)` of each I/O line of an iolog, in order, file names bare.
fn iolog(path: &Path) -> Vec<(String, String, u64)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            match w.as_slice() {
                [_, f, a @ ("read" | "write"), off, _] => {
                    let name = Path::new(f).file_name().unwrap().to_string_lossy().into_owned();
                    Some((name, a.to_string(), off.parse().unwrap()))
                }
                _ => None,
            }
        })
        .collect()
}

const CASES: &[&[&str]] = &[
    // Two files named in one job, two clones: one job each, each file half the size.
    &["--name=x", "--filename=a.dat:b.dat", "--size=1m", "--rw=randwrite", "--bs=4k", "--numjobs=2"],
    // nrfiles: fio's default names, 256 KiB each, I/Os in turn.
    &["--name=x", "--nrfiles=4", "--size=1m", "--rw=read", "--bs=4k"],
    // filesize gives each file's size; the total is every file's.
    &["--name=x", "--nrfiles=2", "--filesize=256k", "--rw=randread", "--bs=4k", "--file_service_type=sequential"],
    // A size that does not divide: fio moves each file's whole blocks (3 x 320 KiB per clone).
    &["--name=x", "--nrfiles=3", "--size=1m", "--rw=write", "--bs=64k", "--numjobs=2", "--group_reporting"],
    // One file whose size is not a whole number of blocks: its whole blocks.
    &["--name=x", "--size=100k", "--bs=64k", "--rw=write"],
];

#[test]
fn a_job_over_several_files_is_one_job_moving_what_fio_moves() {
    let s = Scratch::new("fio-files");
    let want: [(usize, u64); 5] = [(2, 2 << 20), (1, 1 << 20), (1, 512 << 10), (1, 1_966_080), (1, 65536)];
    for (args, (jobs, bytes)) in CASES.iter().zip(want) {
        let (mine, files) = run(&["drivelab", "fio"], &s.0, args);
        assert_eq!(mine.len(), jobs, "{args:?}: one entry per clone: {mine:?}");
        assert_eq!(mine.iter().map(|j| j.1 + j.2).sum::<u64>(), bytes, "{args:?}: {mine:?}");
        if fio_installed() {
            let (theirs, fio_files) = run(&["fio"], &s.0, args);
            assert_eq!(mine, theirs, "{args:?}: drivelab's jobs and bytes, then fio's");
            // drivelab lays a new file out in whole 4 KiB pages (fio: to the byte).
            let names = |f: &[(String, u64)]| f.iter().map(|(n, l)| (n.clone(), l.div_ceil(4096))).collect::<Vec<_>>();
            assert_eq!(names(&files), names(&fio_files), "{args:?}: the files laid out");
        } else {
            common::skip_part("the comparison with fio", "fio is not installed (apt-get install fio)");
        }
    }
}

#[test]
fn each_io_goes_to_the_next_file_and_a_random_pass_visits_every_block_of_each_once() {
    let s = Scratch::new("fio-files-order");
    let seq = ["--name=x", "--nrfiles=3", "--size=96k", "--rw=read", "--bs=4k", "--write_iolog=iolog"];
    run(&["drivelab", "fio"], &s.0, &seq);
    let mine = iolog(&s.0.join("iolog"));
    let order: Vec<(&str, u64)> = mine.iter().take(6).map(|(f, _, o)| (f.as_str(), *o)).collect();
    assert_eq!(order, [("x.0.0", 0), ("x.0.1", 0), ("x.0.2", 0), ("x.0.0", 4096), ("x.0.1", 4096), ("x.0.2", 4096)]);
    if fio_installed() {
        run(&["fio"], &s.0, &seq);
        assert_eq!(mine, iolog(&s.0.join("iolog")), "drivelab's I/Os, then fio's");
    }
    // Random with fio's random map: each file's 32 blocks once, and nothing else.
    let rand = ["--name=x", "--nrfiles=2", "--size=256k", "--rw=randwrite", "--bs=4k", "--write_iolog=iolog"];
    run(&["drivelab", "fio"], &s.0, &rand);
    let ios = iolog(&s.0.join("iolog"));
    let distinct: HashSet<(String, u64)> = ios.iter().map(|(f, _, o)| (f.clone(), *o)).collect();
    assert_eq!((ios.len(), distinct.len()), (64, 64), "every block of both files once");
    let want: HashSet<(String, u64)> =
        ["x.0.0", "x.0.1"].iter().flat_map(|f| (0..32).map(move |b| (f.to_string(), b * 4096))).collect();
    assert_eq!(distinct, want);
    // Random files: each I/O to a file drawn at random, every block still once.
    let random_files = [&rand[..], &["--file_service_type=random"]].concat();
    run(&["drivelab", "fio"], &s.0, &random_files);
    let ios = iolog(&s.0.join("iolog"));
    let alternates = ios.windows(2).all(|w| w[0].0 != w[1].0);
    assert!(!alternates, "random file choice is not round robin");
    // What keeps to one file per job is refused, naming the fix.
    let o = common::bin()
        .args(["fio", "--name=x", "--nrfiles=2", "--size=64k", "--rw=write", "--verify=crc32c"])
        .current_dir(&s.0)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("give each file its own job"), "{}", stderr(&o));
}

#[test]
fn opendir_runs_one_job_over_every_file_below() {
    let s = Scratch::new("fio-files-opendir");
    let dir = s.0.join("d");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    for f in ["a", "b", "sub/c"] {
        std::fs::write(dir.join(f), vec![7u8; 64 << 10]).unwrap();
    }
    let o = common::bin()
        .args(["fio", "--name=x", "--opendir=d", "--rw=read", "--bs=4k", "--write_iolog=iolog", "--output-format=json"])
        .env("XDG_DATA_HOME", s.0.join("data"))
        .current_dir(&s.0)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["jobs"].as_array().unwrap().len(), 1);
    // One pass over every file, as fio: 3 x 64 KiB.
    assert_eq!(v["jobs"][0]["read"]["io_bytes"], 3 * (64 << 10));
    let files: HashSet<String> = iolog(&s.0.join("iolog")).into_iter().map(|(f, _, _)| f).collect();
    assert_eq!(files, ["a", "b", "c"].iter().map(|f| f.to_string()).collect());
}

#[test]
fn two_devices_in_one_job_are_one_job_reading_both() {
    need_loop!();
    let shm = Scratch::new("fio-files-dev");
    let (a, b) = (LoopDev::new(&shm.0.join("a"), 4 << 20, Some(1)), LoopDev::new(&shm.0.join("b"), 4 << 20, Some(2)));
    let both = format!("--filename={}:{}", a.dev, b.dev);
    let args = ["fio", "--name=x", &both, "--rw=randread", "--bs=4k", "--iodepth=8", "--ioengine=io_uring"];
    let o = common::bin()
        .args(args)
        .args(["--direct=1", "--write_iolog=iolog", "--output-format=json"])
        .env("XDG_DATA_HOME", shm.0.join("data"))
        .current_dir(&shm.0)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 1, "one job over both devices");
    // One pass over both (no size: each device whole), each block once.
    assert_eq!(jobs[0]["read"]["io_bytes"], 8 << 20);
    let ios = iolog(&shm.0.join("iolog"));
    for d in [&a.dev, &b.dev] {
        let name = Path::new(d).file_name().unwrap().to_string_lossy().into_owned();
        let n = ios.iter().filter(|(f, _, _)| *f == name).count();
        assert_eq!(n, 1024, "{d}: every block read once");
    }
    // Writing one of them needs --destroy for each.
    let w = common::bin()
        .args(["fio", "--name=x", &both, "--rw=write", "--bs=4k", "--size=64k", "--destroy", &a.dev])
        .current_dir(&shm.0)
        .output()
        .unwrap();
    assert_eq!(w.status.code(), Some(2), "{}", stderr(&w));
    assert!(stderr(&w).contains(&b.dev), "the device not named with --destroy is named: {}", stderr(&w));
}

#[test]
fn the_lines_before_the_report_lay_out_each_clones_files_as_fio_says() {
    let s = Scratch::new("fio-files-lines");
    let args = ["--name=x", "--nrfiles=3", "--size=3m", "--rw=read", "--bs=64k", "--numjobs=2"];
    let head = |tool: &[&str]| {
        let mut cmd = if tool[0] == "fio" { std::process::Command::new("fio") } else { common::bin() };
        for n in 0..2 {
            for f in 0..3 {
                let _ = std::fs::remove_file(s.0.join(format!("x.{n}.{f}")));
            }
        }
        let o =
            cmd.args(&tool[1..]).args(args).env("XDG_DATA_HOME", s.0.join("data")).current_dir(&s.0).output().unwrap();
        assert!(o.status.success(), "{tool:?}: {}", stderr(&o));
        let out = String::from_utf8(o.stdout).unwrap();
        out.split("\n\n").next().unwrap().to_string()
    };
    let mine = head(&["drivelab", "fio"]);
    assert!(
        mine.ends_with("x: Laying out IO files (3 files / total 3MiB)\nx: Laying out IO files (3 files / total 3MiB)"),
        "{mine}"
    );
    if fio_installed() {
        assert_eq!(mine, head(&["fio"]));
    }
}

/// `drivelab fio ARGS` in `dir`: exit code and stderr.
fn drivelab_fio(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let o = common::bin()
        .arg("fio")
        .args(args)
        .args(["--output=/dev/null", "--drivelab-notices"])
        .env("XDG_DATA_HOME", dir.join("data"))
        .current_dir(dir)
        .output()
        .unwrap();
    (o.status.code(), stderr(&o))
}

#[test]
fn unlink_deletes_the_files_drivelab_made_and_others_only_with_overwrite() {
    let s = Scratch::new("fio-unlink");
    // Made by the run, deleted when it ends: every file of the set.
    let (code, err) =
        drivelab_fio(&s.0, &["--name=u", "--filename=a.dat:b.dat", "--size=128k", "--rw=write", "--unlink=1"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(!s.0.join("a.dat").exists() && !s.0.join("b.dat").exists(), "{err}");
    // Someone else's file is kept (and said so) unless drivelab is told to overwrite it.
    std::fs::write(s.0.join("theirs.dat"), vec![7u8; 128 << 10]).unwrap();
    let theirs = ["--name=u", "--filename=theirs.dat", "--size=128k", "--rw=read", "--unlink=1"];
    let (code, err) = drivelab_fio(&s.0, &theirs);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("theirs.dat was kept"), "{err}");
    assert_eq!(std::fs::read(s.0.join("theirs.dat")).unwrap(), vec![7u8; 128 << 10]);
    let (code, err) = drivelab_fio(&s.0, &[&theirs[..], &["--overwrite"]].concat());
    assert_eq!(code, Some(0), "{err}");
    assert!(!s.0.join("theirs.dat").exists());
    // A directory engine's directories go as directories.
    let (code, err) =
        drivelab_fio(&s.0, &["--name=d", "--ioengine=dircreate", "--nrfiles=3", "--filesize=4k", "--unlink=1"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(!s.0.join("d.0.0").exists(), "{err}");
    // Deleting between loops is refused, naming the fix.
    let (code, err) = drivelab_fio(&s.0, &["--name=u", "--filename=c.dat", "--size=64k", "--unlink_each_loop=1"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("unlink=1"), "{err}");
}
