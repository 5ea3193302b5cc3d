//! fio's `ioengine=io_uring_cmd` (NVMe passthrough on /dev/ngXnY; engine `uring_cmd`): with no
//! NVMe device here, what is checked through the binary is that every other target — a regular
//! file, a loop device — is refused before any I/O, exit 2, saying why, and that `cmd_type`
//! other than nvme is refused at its line, and that the command options (`write_mode`, `deac`,
//! `readfua`, `writefua`, `num_range`) are read as fio's and refused where they cannot apply.
//! The command encoding is unit-tested beside the backend (crates/engine/src/backend/
//! uring_cmd_tests.rs), and a ring of them runs against /dev/null there.

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
fn trims_and_the_command_options_run_where_fio_runs_them() {
    let s = Scratch::new("uring-cmd-trim");
    // On the null target (no device needed) trims and write modes run: the job reads them.
    for (from, to) in [
        ("rw=randread", "rw=randtrim"),
        ("rw=randread", "rw=randwrite\nwrite_mode=write/50:zeroes/30:verify/20\ndeac=1\nwritefua=1"),
        ("rw=randread", "rw=randread\nreadfua=1\nnum_range=1"),
        ("rw=randread", "rw=randtrim\nnum_range=8"),
    ] {
        let file = s.path("job.fio");
        std::fs::write(&file, JOB.replace(from, to).replace("runtime=1", "runtime=100ms")).unwrap();
        let o = drivelab(&["run", &file, "null", "--results", &s.path("res"), "-q"]);
        assert_eq!(o.status.code(), Some(0), "{to}: {}", stderr(&o));
        std::fs::remove_dir_all(s.0.join("res")).unwrap();
    }
    // What fio's io_uring_cmd takes and drivelab's does not, or another engine cannot carry.
    for (job, says) in [
        (JOB.replace("rw=randread", "rw=trimwrite\nnum_range=4"), "trimwrite writes each trimmed range next"),
        (JOB.replace("rw=randread", "rw=randtrim\nnum_range=257"), "not a count of ranges 1..256"),
        (
            JOB.replace("rw=randread", "rw=randtrim\nnum_range=4\nwrite_iolog=trims.log"),
            "write_iolog writes one offset per I/O",
        ),
        (
            JOB.replace("ioengine=io_uring_cmd\ncmd_type=nvme\n", "ioengine=io_uring\n")
                .replace("rw=randread", "rw=randtrim\nnum_range=2"),
            "several ranges in one trim are io_uring_cmd's",
        ),
        (JOB.replace("rw=randread", "rw=randwrite\nwrite_mode=zone_append"), "zoned namespace"),
        (JOB.replace("rw=randread", "rw=randwrite\nwrite_mode=zeroes/50:write/40"), "add up to 90%"),
        (
            JOB.replace("ioengine=io_uring_cmd\ncmd_type=nvme\n", "ioengine=io_uring\n")
                .replace("rw=randread", "rw=randwrite\nwrite_mode=zeroes"),
            "shapes the NVMe commands of io_uring_cmd",
        ),
    ] {
        let (code, err) = run_job(&s, &job, "null");
        assert_eq!(code, Some(2), "{job}: {err}");
        assert!(err.contains(says), "{job}: {err}");
    }
}

#[test]
fn a_trim_of_num_range_ranges_is_one_io_of_their_bytes_in_fios_json() {
    // On the null target (the commands themselves are held byte by byte in the engine's tests):
    // randtrim over 1 MiB with fio's random map and 8 ranges per trim is 32 trims of 32 KiB,
    // every byte of the region once, as fio counts its io_u of several ranges.
    let s = Scratch::new("uring-cmd-ranges");
    let job = "[global]\nioengine=io_uring_cmd\ncmd_type=nvme\nsize=1m\niodepth=4\nbs=4k\n\
               [r]\nrw=randtrim\nnum_range=8\nfilename=null\n";
    let file = s.path("job.fio");
    std::fs::write(&file, job).unwrap();
    let o = common::drivelab_in(&s.0, &["fio", &file, "--output-format=json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stderr(&o), "", "a clean fio run writes nothing to stderr");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let trim = &v["jobs"][0]["trim"];
    assert_eq!((trim["io_bytes"].as_u64(), trim["total_ios"].as_u64()), (Some(1 << 20), Some(32)), "{trim}");
    assert!(!s.0.join("null").exists(), "the null target is no file");
}
