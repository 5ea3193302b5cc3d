//! fio's `atomic` (torn-write protection, RWF_ATOMIC): on XFS over a loop device (XFS protects
//! O_DIRECT writes in software where the device cannot) every engine that sends the flag runs
//! its writes protected; where the kernel reports no protection (the loop device itself, tmpfs)
//! or a write could not be protected (buffered, misaligned) the run is refused before anything is
//! written, with the reason. That the flag reaches the kernel from each engine is proven by the
//! engine's unit test (`backend::atomic`), where tmpfs refuses it.

use crate::common::{self, need_loop, tool, LoopDev, Mounted, Scratch};

/// `drivelab fio` in `dir` with `args`: exit code, stderr, writes.
fn fio(dir: &std::path::Path, args: &[&str]) -> (Option<i32>, String, u64) {
    let (code, err, v) = common::fio_json(dir, args);
    (code, err, v["jobs"][0]["write"]["total_ios"].as_u64().unwrap_or(0))
}

#[test]
fn atomic_writes_run_where_the_kernel_protects_them_and_are_refused_elsewhere() {
    need_loop!();
    if !tool("mkfs.xfs") {
        return common::skip("mkfs.xfs is not installed (xfsprogs)");
    }
    let s = Scratch::new("fio-atomic");
    // XFS needs 300 MB; the backing file is sparse in /dev/shm.
    let dev = LoopDev::new(&s.0.join("xfs.img"), 300 << 20, None);
    common::must(&format!("mkfs.xfs -q -f {}", dev.dev));
    let mnt = s.path("m");
    let _m = Mounted::new(&dev.dev, &mnt);
    let f = format!("--filename={mnt}/f");
    let job = ["--name=a", &f, "--atomic=1", "--direct=1", "--bs=16k", "--rw=randwrite", "--size=1m"];
    for (engine, depth) in [("io_uring", "8"), ("libaio", "8"), ("pvsync2", "1"), ("psync", "1")] {
        let (e, qd) = (format!("--ioengine={engine}"), format!("--iodepth={depth}"));
        let (code, err, writes) = fio(&s.0, &[&job[..], &[&e, &qd]].concat());
        if code == Some(2) && err.contains("no torn-write protection") {
            return common::skip("this kernel's XFS protects no write (Linux 6.16+ does, in software)");
        }
        assert_eq!((code, writes), (Some(0), 64), "{engine}: {err}");
    }
    // Refused before the run, with the reason.
    let refused = |args: &[&str], why: &str| {
        let (code, err, writes) = fio(&s.0, args);
        assert_eq!((code, writes), (Some(2), 0), "{args:?}: {err}");
        assert!(err.contains(why), "{args:?}: {err}");
    };
    refused(&[&job[..], &["--direct=0"]].concat(), "O_DIRECT writes only");
    refused(&[&job[..], &["--blockalign=4k"]].concat(), "multiple of its size");
    refused(&[&job[..], &["--ioengine=posixaio"]].concat(), "psync, io_uring and libaio");
    let shm = format!("--filename={}", s.path("tmpfs.dat"));
    refused(&["--name=a", &shm, "--atomic=1", "--direct=1", "--bs=16k", "--rw=write", "--size=1m"], "no torn-write");
    let raw = LoopDev::new(&s.0.join("raw.img"), 1 << 20, None);
    let d = format!("--filename={}", raw.dev);
    let on_dev = ["--name=a", &d, "--atomic=1", "--direct=1", "--bs=16k", "--rw=write", "--destroy", &raw.dev];
    refused(&on_dev, "no torn-write protection");
}
