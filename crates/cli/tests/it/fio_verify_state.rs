//! fio's verify state through `drivelab fio`: a verifying writer leaves
//! `local-NAME-N-verify.state` in fio 3.33's format (fio's own loader takes it), a later
//! `verify_only` job reads back and checks the writer's blocks — with `verify_state_load`,
//! exactly the writes the state counts, so a writer that stopped early verifies clean and a
//! block changed since is found — on a file and on a loop device. A state file is replaced only
//! when it is one; anything else at its name is refused before the run.

use std::path::Path;

use crate::common::{self, need_loop, stderr, LoopDev, Scratch};

/// A run's exit code, stderr, read and write (total_ios, io_bytes) and the job's error.
type Ran = (Option<i32>, String, (u64, u64), (u64, u64), i64);

/// `drivelab fio` in `dir` with `args` and fio's JSON.
fn fio(dir: &Path, args: &[&str]) -> Ran {
    let (code, err, v) = common::fio_json(dir, args);
    let j = &v["jobs"][0];
    let d = |k: &str| (j[k]["total_ios"].as_u64().unwrap_or(0), j[k]["io_bytes"].as_u64().unwrap_or(0));
    (code, err, d("read"), d("write"), j["error"].as_i64().unwrap_or(-1))
}

/// (numberio, depth, completions) of a state file, read as fio's verify-state.h lays it out.
fn state(path: &Path) -> (u64, u32, u64) {
    let b = std::fs::read(path).unwrap();
    let u64_at = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
    assert_eq!(u64_at(0), 3, "fio's version 3");
    assert_eq!(u64_at(8) as usize, b.len() - 24, "the header's size is the list's");
    (u64_at(24 + 16), u32::from_le_bytes(b[32..36].try_into().unwrap()), u64_at(24))
}

/// Write 100 of a 1 MiB target's blocks at depth 4 (and stop), then check them back.
fn write_then_verify_only(dir: &Path, target: &str, extra: &[&str]) {
    let f = format!("--filename={target}");
    let base = ["--name=w", &f, "--size=1m", "--bs=4k", "--rw=randwrite", "--verify=crc32c"];
    let job = [&base[..], extra].concat();
    let writer =
        [job.as_slice(), &["--iodepth=4", "--ioengine=io_uring", "--do_verify=0", "--number_ios=100"]].concat();
    let (code, err, _, written, _) = fio(dir, &writer);
    assert_eq!((code, written), (Some(0), (100, 400 << 10)), "{err}");
    let file = dir.join("local-w-0-verify.state");
    assert_eq!(state(&file), (100, 4, 4), "100 writes issued, the last 4 completed");
    if fio_installed() && extra.is_empty() {
        // fio's own loader takes the file (a CRC of fio's kind); fio then finds drivelab's
        // headers, not its own, so only the load is compared. (fio's verify_only leaves a state
        // of its own dry run: drivelab's is put back.)
        let kept = std::fs::read(&file).unwrap();
        let o = std::process::Command::new("fio")
            .args(base)
            .args(["--verify_only", "--verify_state_load=1", "--output=/dev/null"])
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(!stderr(&o).contains("verify state is corrupt"), "{}", stderr(&o));
        std::fs::write(&file, kept).unwrap();
    }
    // The writes the state counts: every one checks.
    let load = [job.as_slice(), &["--verify_only", "--verify_state_load=1"]].concat();
    let (code, err, read, written, error) = fio(dir, &load);
    assert_eq!((code, read, written, error), (Some(0), (100, 400 << 10), (0, 0), 0), "{err}");
    // Without the state the whole size is checked: on a new file the blocks never written fail,
    // as fio's. (A device verify writes to is filled, stamped, before its first run: every
    // block then holds a header, `prep` in the result says so.)
    if target.starts_with("/dev/") {
        return;
    }
    let only = [job.as_slice(), &["--verify_only"]].concat();
    let (code, err, _, _, error) = fio(dir, &only);
    assert_eq!(code, Some(1), "{err}");
    assert_ne!(error, 0, "an error is never shown as 0 in fio's JSON");
}

fn fio_installed() -> bool {
    std::process::Command::new("fio").arg("--version").output().is_ok_and(|o| o.status.success())
}

#[test]
fn a_writer_leaves_fios_state_and_verify_only_checks_exactly_what_it_wrote() {
    let s = Scratch::new("fio-vstate");
    write_then_verify_only(&s.0, "f.dat", &[]);
    // A block changed since it was written is found.
    let path = s.0.join("f.dat");
    let mut bytes = std::fs::read(&path).unwrap();
    let written = (0..bytes.len() / 4096).find(|&b| bytes[b * 4096..b * 4096 + 4096].iter().any(|&x| x != 0)).unwrap();
    bytes[written * 4096 + 100] ^= 0xff;
    std::fs::write(&path, &bytes).unwrap();
    let job = ["--name=w", "--filename=f.dat", "--size=1m", "--bs=4k", "--rw=randwrite", "--verify=crc32c"];
    let (code, err, _, _, error) = fio(&s.0, &[&job[..], &["--verify_only", "--verify_state_load=1"]].concat());
    assert_eq!(code, Some(1), "{err}");
    assert_ne!(error, 0);
}

#[test]
fn state_files_are_replaced_only_when_they_are_state_files() {
    let s = Scratch::new("fio-vstate-files");
    let job = ["--name=w", "--filename=f.dat", "--size=64k", "--rw=write", "--verify=crc32c"];
    let file = s.0.join("local-w-0-verify.state");
    std::fs::write(&file, "keep").unwrap();
    let (code, err, ..) = fio(&s.0, &job);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("not a verify state file") && err.contains("local-w-0-verify.state"), "{err}");
    assert_eq!(std::fs::read(&file).unwrap(), b"keep");
    assert!(!s.0.join("f.dat").exists(), "refused before anything ran");
    // A symlink at the name is never written through.
    std::fs::remove_file(&file).unwrap();
    std::os::unix::fs::symlink(s.0.join("elsewhere"), &file).unwrap();
    let (code, err, ..) = fio(&s.0, &job);
    assert_eq!(code, Some(2), "{err}");
    assert!(!s.0.join("elsewhere").exists());
    std::fs::remove_file(&file).unwrap();
    // Runs again and again, as fio: the state file is replaced.
    for _ in 0..2 {
        let (code, err, ..) = fio(&s.0, &job);
        assert_eq!(code, Some(0), "{err}");
        assert_eq!(state(&file).0, 16);
    }
    // verify_state_save=0 leaves none; --aux-path puts it there.
    std::fs::remove_file(&file).unwrap();
    let (code, err, ..) = fio(&s.0, &[&job[..], &["--verify_state_save=0"]].concat());
    assert_eq!(code, Some(0), "{err}");
    assert!(!file.exists());
    std::fs::create_dir(s.0.join("aux")).unwrap();
    let (code, err, ..) = fio(&s.0, &[&job[..], &["--aux-path=aux"]].concat());
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(state(&s.0.join("aux/local-w-0-verify.state")).0, 16);
    // An --aux-path that is there but not a directory is said so ("is not there" before).
    std::fs::write(s.0.join("auxfile"), b"x").unwrap();
    let (code, err, ..) = fio(&s.0, &[&job[..], &["--aux-path=auxfile"]].concat());
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("auxfile for fio's verify state files is not a directory"), "{err}");
    // A state that is not there, or not one, refused before anything runs.
    let load = [&job[..], &["--verify_only", "--verify_state_load=1"]].concat();
    let (code, err, ..) = fio(&s.0, &load);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("local-w-0-verify.state") && err.contains("no such file"), "{err}");
    std::fs::write(&file, vec![0u8; 200]).unwrap();
    let (code, err, ..) = fio(&s.0, &load);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("version"), "{err}");
}

#[test]
fn verify_only_on_a_loop_device() {
    need_loop!();
    let shm = Scratch::new("fio-vstate-dev");
    let dev = LoopDev::new(&shm.0.join("backing"), 1 << 20, None);
    write_then_verify_only(&shm.0, &dev.dev, &["--direct=1", "--destroy", &dev.dev]);
}
