//! Torn-write protection (fio's `atomic`, RWF_ATOMIC since Linux 6.11): every write lands whole
//! or not at all when power fails mid-write. The kernel takes such a write only where the file
//! or device has it — a size that is a power of two within the limits `statx` reports
//! (STATX_WRITE_ATOMIC's unit min and max), starting at a multiple of its size, with O_DIRECT —
//! and fails it with EINVAL or EOPNOTSUPP anywhere else. fio sends the flag and lets the writes
//! fail; drivelab asks each target before the run and refuses with the reason and the limits,
//! so a run either protects every write or does not start.
//!
//! The flag itself costs nothing per I/O: psync uses `pwritev2` instead of `pwrite`, io_uring
//! sets the SQE's `rw_flags`, libaio the iocb's `aio_rw_flags`.

use crate::backend::EngineKind;
use crate::error::Error;
use crate::options::Field;
use crate::spec::AccessSpec;

/// What a target's kernel reports of torn-write protection: the smallest and largest write it
/// protects (0, 0: none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AtomicUnits {
    pub min: u32,
    pub max: u32,
}

/// `atomic` with `engine`: psync, io_uring and libaio send RWF_ATOMIC (fio's pvsync2, io_uring,
/// libaio); with O_DIRECT only.
pub(crate) fn check_engine(engine: EngineKind, direct: bool) -> Result<(), Error> {
    if !matches!(engine, EngineKind::Psync | EngineKind::Uring | EngineKind::Libaio) {
        return Err(Error::spec(
            Field::Atomic,
            "on",
            format!("is sent by the psync, io_uring and libaio engines, not {}: give one of them", engine.name()),
        ));
    }
    if !direct {
        return Err(Error::spec(Field::Atomic, "on", "protects O_DIRECT writes only: give direct (drop --buffered)"));
    }
    Ok(())
}

/// The torn-write limits the kernel reports for the open file `file`.
pub fn units(file: &std::fs::File) -> std::io::Result<AtomicUnits> {
    use std::os::fd::AsRawFd;
    // SAFETY: statx of our open descriptor (AT_EMPTY_PATH with an empty, NUL-terminated path)
    // into a zeroed struct of the kernel's layout (libc's `statx`), which it fills.
    let mut sx: libc::statx = unsafe { std::mem::zeroed() };
    let r =
        unsafe { libc::statx(file.as_raw_fd(), c"".as_ptr(), libc::AT_EMPTY_PATH, libc::STATX_WRITE_ATOMIC, &mut sx) };
    if r != 0 {
        return Err(std::io::Error::last_os_error());
    }
    if sx.stx_mask & libc::STATX_WRITE_ATOMIC == 0 {
        return Ok(AtomicUnits { min: 0, max: 0 });
    }
    Ok(AtomicUnits { min: sx.stx_atomic_write_unit_min, max: sx.stx_atomic_write_unit_max })
}

/// Refuse a run of `spec` whose writes target `path` (limits `u`, starting at `start`) cannot
/// be protected: no protection there, a write size it does not protect, or an offset that is
/// not a multiple of the write's size.
pub fn check_target(path: &str, u: AtomicUnits, spec: &AccessSpec, start: u64) -> Result<(), Error> {
    if u.max == 0 {
        return Err(Error::spec(
            Field::Atomic,
            "on",
            format!(
                "{path}: the kernel reports no torn-write protection there (statx STATX_WRITE_ATOMIC: none); give a \
                 target that has it (a device with atomic write units, a file system on one, XFS), or drop atomic"
            ),
        ));
    }
    let sizes: Vec<u64> = spec.bs_write.as_deref().unwrap_or(&spec.bs).iter().map(|b| b.bytes).collect();
    let largest = sizes.iter().copied().chain(spec.bs_max).max().unwrap_or(0);
    for b in sizes.iter().copied().chain(spec.bs_max) {
        if !b.is_power_of_two() || b < u64::from(u.min) || b > u64::from(u.max) {
            return Err(Error::spec(
                Field::Atomic,
                "on",
                format!(
                    "{path}: protects writes of {} to {} bytes, a power of two; {b}-byte writes are not: give bs in \
                     that range",
                    u.min, u.max
                ),
            ));
        }
    }
    if spec.bs_max.is_some() || !spec.align().is_multiple_of(largest) || !start.is_multiple_of(largest) {
        return Err(Error::spec(
            Field::Atomic,
            "on",
            format!(
                "{path}: a protected write starts at a multiple of its size; align offsets to {largest} (drivelab's \
                 --align, fio's blockalign) from an offset that is a multiple of it (a range of sizes, bsrange, \
                 cannot be aligned so)"
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::OpenOptionsExt;

    use super::*;
    use crate::backend::files::Files;
    use crate::backend::{libaio::Libaio, psync::Psync, uring::Uring, Backend, Pending};
    use crate::gen::Op;
    use crate::pattern::BufferPool;

    /// One 4 KiB write at 0 through `b`: its result (bytes, or -errno).
    fn one_write<B: Backend>(b: &mut B) -> i32 {
        // libaio's io_submit refuses such an iocb at once; the others complete it with the errno.
        if let Err(e) =
            b.submit(&[Pending { slot: 0, op: Op::Write, offset: 0, len: 4096, prio: 0, file: 0, ranges: 1 }])
        {
            return -e.raw_os_error().unwrap_or(libc::EIO);
        }
        let mut res = None;
        while res.is_none() {
            b.wait(1).unwrap();
            b.reap(&mut |_, r| res = Some(r));
        }
        res.unwrap()
    }

    /// tmpfs protects no write: the flag reaching the kernel is seen as its refusal, from every
    /// engine that sends it — and the same write without it lands.
    #[test]
    fn every_engine_sends_rwf_atomic_with_its_writes() {
        let path = std::path::Path::new("/dev/shm").join(format!("drivelab-atomic-{}", std::process::id()));
        std::fs::write(&path, vec![0u8; 1 << 16]).unwrap();
        let open = || std::fs::OpenOptions::new().read(true).write(true).custom_flags(libc::O_DIRECT).open(&path);
        let Ok(f) = open() else {
            let _ = std::fs::remove_file(&path);
            return drivelab_testkit::skip("no O_DIRECT on /dev/shm");
        };
        assert_eq!(units(&f).unwrap().max, 0, "tmpfs protects no write");
        let refused = |r: i32| r == -libc::EOPNOTSUPP || r == -libc::EINVAL;
        let files = || Files::new(vec![open().unwrap()]);
        let pool = || BufferPool::new(1, 4096);
        for flags in [libc::RWF_ATOMIC, 0] {
            let got = [
                ("psync", one_write(&mut Psync::new(files(), pool()).with_write_flags(flags))),
                ("libaio", one_write(&mut Libaio::new(files(), 1, pool()).unwrap().with_write_flags(flags))),
                (
                    "io_uring",
                    one_write(
                        &mut Uring::new(files(), 1, pool(), Default::default(), 0).unwrap().with_write_flags(flags),
                    ),
                ),
            ];
            for (engine, r) in got {
                assert!(if flags == 0 { r == 4096 } else { refused(r) }, "{engine} with flags {flags:#x}: {r}");
            }
        }
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn targets_are_refused_by_what_they_cannot_protect() {
        let spec =
            |bs: u64| AccessSpec { bs: vec![crate::spec::BlockSize { bytes: bs, pct: 100 }], ..Default::default() };
        let none = AtomicUnits { min: 0, max: 0 };
        let some = AtomicUnits { min: 4096, max: 65536 };
        let msg = |r: Result<(), Error>| r.unwrap_err().to_string();
        assert!(msg(check_target("t", none, &spec(4096), 0)).contains("no torn-write protection"));
        assert!(check_target("t", some, &spec(16384), 0).is_ok());
        assert!(msg(check_target("t", some, &spec(131072), 0)).contains("4096 to 65536"));
        assert!(msg(check_target("t", some, &spec(16384), 4096)).contains("multiple of its size"));
        assert!(msg(check_engine(EngineKind::Posixaio, true).map(|_| ())).contains("psync, io_uring and libaio"));
        assert!(msg(check_engine(EngineKind::Uring, false)).contains("O_DIRECT"));
    }
}
