//! fio's metadata engines through `drivelab fio`: `filecreate` makes each file of the job (empty,
//! mode 0600) and times it, `filestat` stats them, `filedelete` deletes them — only with
//! `--overwrite` when they exist, since drivelab removes no file it was not told to — each
//! counting one I/O of a block per file, as fio 3.33 counts them when a file is one block
//! (compared with fio's JSON where fio is installed). A device is refused, and a name that is a
//! symbolic link is never created through.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::common::{self, need_loop, stderr, LoopDev, Scratch};

fn fio_installed() -> bool {
    std::process::Command::new("fio").arg("--version").output().is_ok_and(|o| o.status.success())
}

/// `drivelab fio` (or fio) in `dir` with the metadata job `engine` over `nrfiles` files: exit
/// code, stderr, and the read direction's (total_ios, io_bytes) from fio's JSON.
fn meta(fio: bool, dir: &Path, engine: &str, extra: &[&str]) -> (Option<i32>, String, Option<(u64, u64)>) {
    let mut cmd = if fio { std::process::Command::new("fio") } else { common::bin() };
    if !fio {
        cmd.arg("fio");
    }
    let e = format!("--ioengine={engine}");
    cmd.args(["--name=t", &e, "--nrfiles=50", "--filesize=4k", "--output-format=json"]).args(extra);
    let o = cmd.env("XDG_DATA_HOME", dir.join("data")).current_dir(dir).output().unwrap();
    let figures = serde_json::from_slice::<serde_json::Value>(&o.stdout).ok().map(|v| {
        let r = &v["jobs"][0]["read"];
        (r["total_ios"].as_u64().unwrap(), r["io_bytes"].as_u64().unwrap())
    });
    (o.status.code(), stderr(&o), figures)
}

fn files(dir: &Path) -> Vec<String> {
    let mut f: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("t."))
        .collect();
    f.sort();
    f
}

#[test]
fn filecreate_filestat_filedelete_make_stat_and_remove_each_file_as_fio_counts_them() {
    let s = Scratch::new("fio-meta");
    let (code, err, created) = meta(false, &s.0, "filecreate", &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(created, Some((50, 50 * 4096)), "one I/O of a block per file");
    let made = files(&s.0);
    assert_eq!(made.len(), 50);
    for f in &made {
        let m = std::fs::metadata(s.0.join(f)).unwrap();
        assert_eq!((m.len(), m.permissions().mode() & 0o777), (0, 0o600), "{f}: created empty, 0600, as fio");
    }
    // Nothing to verify where no data moves.
    let (code, err, _) = meta(false, &s.0, "filestat", &["--verify=crc32c"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("nothing to verify"), "{err}");
    // --readonly refuses what changes the file system, before anything runs.
    let (code, err, _) = meta(false, &s.0, "filedelete", &["--overwrite", "--readonly"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--readonly") && err.contains("filedelete"), "{err}");
    let (code, err, stat) = meta(false, &s.0, "filestat", &["--readonly"]);
    assert_eq!((code, stat), (Some(0), Some((50, 50 * 4096))), "{err}");
    // Deleting files that exist needs drivelab to be told so; nothing is deleted before.
    let (code, err, _) = meta(false, &s.0, "filedelete", &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--overwrite") && err.contains("t.0.0"), "{err}");
    assert_eq!(files(&s.0).len(), 50);
    let (code, err, deleted) = meta(false, &s.0, "filedelete", &["--overwrite"]);
    assert_eq!((code, deleted), (Some(0), Some((50, 50 * 4096))), "{err}");
    assert!(files(&s.0).is_empty());
    // As fio, filestat (and filedelete) first make the files that are missing, of filesize.
    let (code, err, stat) = meta(false, &s.0, "filestat", &[]);
    assert_eq!((code, stat), (Some(0), Some((50, 50 * 4096))), "{err}");
    assert_eq!(std::fs::metadata(s.0.join("t.0.0")).unwrap().len(), 4096);
    let (code, err, gone) = meta(false, &s.0, "filedelete", &["--overwrite"]);
    assert_eq!((code, gone), (Some(0), Some((50, 50 * 4096))), "{err}");
    let (code, err, gone) = meta(false, &s.0, "filedelete", &[]);
    assert_eq!((code, gone), (Some(0), Some((50, 50 * 4096))), "made by the run, deleted without --overwrite: {err}");
    assert!(files(&s.0).is_empty());
    if fio_installed() {
        let theirs = Scratch::new("fio-meta-fio");
        let (code, err, fio_created) = meta(true, &theirs.0, "filecreate", &[]);
        assert_eq!((code, fio_created), (Some(0), created), "fio's filecreate counts: {err}");
        assert_eq!(files(&theirs.0), made, "fio's files, by name");
    } else {
        common::skip_part("the comparison with fio", "fio is not installed (apt-get install fio)");
    }
}

#[test]
fn a_link_is_never_created_through_and_a_device_is_refused() {
    need_loop!();
    let s = Scratch::new("fio-meta-link");
    std::fs::write(s.0.join("elsewhere"), b"keep").unwrap();
    std::os::unix::fs::symlink(s.0.join("nowhere"), s.0.join("link")).unwrap();
    std::os::unix::fs::symlink(s.0.join("elsewhere"), s.0.join("link2")).unwrap();
    // A dangling link is refused before the run; one to a file fails the create (ELOOP).
    let o = common::bin()
        .args(["fio", "--name=t", "--ioengine=filecreate", "--filename=link", "--filesize=4k"])
        .current_dir(&s.0)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!s.0.join("nowhere").exists(), "nothing is created where a link points");
    let o = common::bin()
        .args(["fio", "--name=t", "--ioengine=filecreate", "--filename=link2", "--filesize=4k"])
        .env("XDG_DATA_HOME", s.0.join("data"))
        .current_dir(&s.0)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(std::fs::read(s.0.join("elsewhere")).unwrap(), b"keep");
    let shm = Scratch::new("fio-meta-dev");
    let dev = LoopDev::new(&shm.0.join("backing"), 1 << 20, Some(7));
    for engine in ["filecreate", "filedelete"] {
        let e = format!("--ioengine={engine}");
        let f = format!("--filename={}", dev.dev);
        let o = common::bin().args(["fio", "--name=t", &e, &f, "--overwrite"]).current_dir(&s.0).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains("not a regular file"), "{}", stderr(&o));
    }
    assert!(Path::new(&dev.dev).exists());
}

fn dirs(dir: &Path) -> Vec<String> {
    let mut d: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()) && e.file_name().to_string_lossy().starts_with("t."))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    d.sort();
    d
}

#[test]
fn dircreate_dirstat_dirdelete_make_stat_and_remove_each_directory() {
    let s = Scratch::new("fio-meta-dirs");
    let (code, err, made) = meta(false, &s.0, "dircreate", &[]);
    assert_eq!((code, made), (Some(0), Some((50, 50 * 4096))), "{err}");
    let d = dirs(&s.0);
    assert_eq!(d.len(), 50);
    let mode = std::fs::metadata(s.0.join(&d[0])).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700);
    // Made again: each mkdir fails (EEXIST), the job's error, never a pass; the error names the
    // directory of the job's set, not the set.
    let (code, err, _) = meta(false, &s.0, "dircreate", &[]);
    assert_eq!(code, Some(1));
    let named = s.0.join("t.0.0").display().to_string();
    assert!(err.contains(&format!("I/O error on {named} (")), "{err}");
    let (code, err, stat) = meta(false, &s.0, "dirstat", &[]);
    assert_eq!((code, stat), (Some(0), Some((50, 50 * 4096))), "{err}");
    // Directories that were there are removed only when drivelab is told so.
    let (code, err, _) = meta(false, &s.0, "dirdelete", &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--overwrite") && err.contains("t.0.0"), "{err}");
    assert_eq!(dirs(&s.0).len(), 50);
    let (code, err, gone) = meta(false, &s.0, "dirdelete", &["--overwrite"]);
    assert_eq!((code, gone), (Some(0), Some((50, 50 * 4096))), "{err}");
    assert!(dirs(&s.0).is_empty());
    // As fio, dirdelete (and dirstat) make their missing directories first: each I/O removes one.
    let (code, err, gone) = meta(false, &s.0, "dirdelete", &[]);
    assert_eq!((code, gone), (Some(0), Some((50, 50 * 4096))), "{err}");
    assert!(dirs(&s.0).is_empty());
    // A name that is not a directory — a file, a symbolic link to one — is refused, untouched.
    std::fs::write(s.0.join("t.0.0"), b"keep").unwrap();
    for engine in ["dirstat", "dirdelete", "dircreate"] {
        let (code, err, _) = meta(false, &s.0, engine, &["--overwrite"]);
        assert_eq!(code, Some(2), "{engine}: {err}");
        assert!(err.contains("not a directory"), "{engine}: {err}");
    }
    assert_eq!(std::fs::read(s.0.join("t.0.0")).unwrap(), b"keep");
    // --readonly refuses each: they change the file system.
    for engine in ["dircreate", "dirstat", "dirdelete"] {
        let (code, err, _) = meta(false, &s.0, engine, &["--readonly"]);
        assert_eq!(code, Some(2), "{engine}: {err}");
        assert!(err.contains("--readonly"), "{engine}: {err}");
    }
}
