//! fio's `ioengine=io_uring_cmd` (NVMe passthrough on /dev/ngXnY; engine `uring_cmd`): with no
//! NVMe device here, what is checked through the binary is that every other target — a regular
//! file, a loop device — is refused before any I/O, exit 2, saying why, and that `cmd_type`
//! other than nvme is refused at its line. The command encoding is unit-tested beside the
//! backend (crates/engine/src/backend/uring_cmd_tests.rs).

use crate::common;

use crate::common::{drivelab, need_loop, stderr, LoopDev, Scratch};

const JOB: &str = "[global]\nioengine=io_uring_cmd\ncmd_type=nvme\nsize=1m\niodepth=4\nbs=4k\n\
                   sqthread_poll=1\nnonvectored=1\nfixedbufs=1\n[r]\nrw=randread\nruntime=1\n";

/// `drivelab run JOB TARGET`, results into the scratch directory: exit code and stderr.
fn run_job(s: &Scratch, job: &str, target: &str) -> (Option<i32>, String) {
    let file = s.path("job.fio");
    std::fs::write(&file, job).unwrap();
    let res = s.path("res");
    let o = drivelab(&["run", &file, target, "--results", &res, "-q"]);
    assert!(!s.0.join("res").exists(), "a refused job left a results directory");
    (o.status.code(), stderr(&o))
}

#[test]
fn a_regular_file_is_refused_as_not_an_nvme_generic_character_device() {
    let s = Scratch::new("uring-cmd-file");
    let target = s.path("data");
    std::fs::write(&target, vec![0u8; 1 << 20]).unwrap();
    let (code, err) = run_job(&s, JOB, &target);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(&format!("{target} is a regular file, not an NVMe generic character device (/dev/ngXnY)")),
        "{err}"
    );
    assert!(err.contains("use io_uring (engine uring) for files and block devices"), "{err}");
    // The same through drivelab's own flag.
    let o = drivelab(&["run", &target, "--engine", "uring_cmd", "--time", "1s", "--results", &s.path("res"), "-q"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("is a regular file, not an NVMe generic character device"), "{}", stderr(&o));
}

#[test]
fn a_loop_device_is_refused_as_a_block_device() {
    need_loop!();
    let s = Scratch::new("uring-cmd-loop");
    let lo = LoopDev::new(&s.0.join("d.img"), 4 << 20, None);
    let (code, err) = run_job(&s, JOB, &lo.dev);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(&format!("{} is a block device, not an NVMe generic character device (/dev/ngXnY)", lo.dev)),
        "{err}"
    );
}

#[test]
fn a_cmd_type_other_than_nvme_is_refused_at_its_line() {
    let s = Scratch::new("uring-cmd-type");
    let target = s.path("data");
    std::fs::write(&target, vec![0u8; 1 << 20]).unwrap();
    let (code, err) = run_job(&s, &JOB.replace("cmd_type=nvme", "cmd_type=scsi"), &target);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("job.fio:3: ") && err.contains("cmd_type=scsi") && err.contains("NVMe commands only"),
        "{err}"
    );
}

#[test]
fn trims_are_refused_before_the_target_is_touched() {
    let s = Scratch::new("uring-cmd-trim");
    let target = s.path("data");
    std::fs::write(&target, vec![0u8; 1 << 20]).unwrap();
    // The target check comes first; on the null target (no device needed) the trim is named.
    let (code, err) = run_job(&s, &JOB.replace("rw=randread", "rw=randtrim"), "null");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("carries NVMe reads and writes only"), "{err}");
}
