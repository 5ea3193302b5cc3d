//! fio's metadata engines (`filecreate`, `filestat`, `filedelete`, and fio 3.34's `dircreate`,
//! `dirstat`, `dirdelete`): each I/O is one operation on its file's (directory's) name — a
//! create (open with O_CREAT, mode 0600, then close; a directory: mkdir, mode 0700), a stat, or a
//! delete (a directory: rmdir, which removes only an empty one) — done by the submit call and
//! timed as the I/O's latency, as fio times them (its clat). No data moves. (fio makes its
//! directories with mode 0, unreadable even to their owner; drivelab's are 0700.) Each file is reached through its directory, opened once before the
//! run. What changes a name never follows a symbolic link in its last component: a create of a
//! link fails with ELOOP, a delete removes the link itself (unlink never follows); a stat is
//! fio's default `stat_type=stat`, which reads through a link.

use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::{Backend, EngineKind, Pending, StatType};
use crate::pattern::BufferPool;

pub(crate) struct Meta {
    engine: EngineKind,
    /// How a stat engine looks at each name (fio's `stat_type`).
    stat: StatType,
    /// Each file of the job, in order: its directory and its name there.
    entries: Vec<(OwnedFd, CString)>,
    pool: BufferPool,
    done: Option<(u32, i32)>,
}

impl Meta {
    /// For the files `names` (a job's, in order), each directory opened now.
    pub fn new(engine: EngineKind, names: &[String], pool: BufferPool) -> std::io::Result<Meta> {
        let mut entries = Vec::with_capacity(names.len());
        for n in names {
            let path = Path::new(n);
            let dir = match path.parent() {
                Some(d) if !d.as_os_str().is_empty() => d,
                _ => Path::new("."),
            };
            let name = path.file_name().ok_or_else(|| std::io::Error::other(format!("{n}: no file name")))?;
            let c_dir = CString::new(dir.as_os_str().as_bytes()).map_err(std::io::Error::other)?;
            let c_name = CString::new(name.as_bytes()).map_err(std::io::Error::other)?;
            // SAFETY: open takes a NUL-terminated path we own, alive for the call.
            let fd = unsafe { libc::open(c_dir.as_ptr(), libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC) };
            if fd < 0 {
                let e = std::io::Error::last_os_error();
                return Err(std::io::Error::new(e.kind(), format!("{}: {e}", dir.display())));
            }
            // SAFETY: `fd` was just returned by open and is owned by nothing else.
            entries.push((unsafe { OwnedFd::from_raw_fd(fd) }, c_name));
        }
        Ok(Meta { engine, stat: StatType::Stat, entries, pool, done: None })
    }

    /// Stat each name as `stat` says (fio's `stat_type`).
    pub fn with_stat(mut self, stat: StatType) -> Meta {
        self.stat = stat;
        self
    }

    /// A stat of `name` in `dir` as `self.stat` says: 0, or -1 with errno set.
    fn stat_name(&self, dir: libc::c_int, name: &CString) -> libc::c_int {
        // SAFETY: `dir` is our open directory, `name` a NUL-terminated name we own, alive for the
        // call; each call writes one struct we own.
        unsafe {
            match self.stat {
                StatType::Stat | StatType::Lstat => {
                    let flags = if self.stat == StatType::Lstat { libc::AT_SYMLINK_NOFOLLOW } else { 0 };
                    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
                    libc::fstatat(dir, name.as_ptr(), st.as_mut_ptr(), flags)
                }
                StatType::Statx => {
                    let mut sx = std::mem::MaybeUninit::<libc::statx>::uninit();
                    libc::statx(dir, name.as_ptr(), 0, libc::STATX_BASIC_STATS, sx.as_mut_ptr())
                }
            }
        }
    }

    /// The operation on file `i`: 0, or `-errno`.
    fn operate(&self, i: u32) -> i32 {
        let Some((dir, name)) = self.entries.get(i as usize) else { return -libc::EBADF };
        let dir = dir.as_raw_fd();
        // SAFETY (each call): `dir` is our open directory, `name` a NUL-terminated name we own,
        // alive for the call; fstatat writes one `stat` we own.
        let r = match self.engine {
            EngineKind::FileCreate => {
                let flags = libc::O_CREAT | libc::O_RDWR | libc::O_NOFOLLOW | libc::O_CLOEXEC;
                let fd = unsafe { libc::openat(dir, name.as_ptr(), flags, 0o600 as libc::c_uint) };
                if fd >= 0 {
                    // SAFETY: `fd` was just opened here and is closed once.
                    unsafe { libc::close(fd) };
                }
                fd.min(0)
            }
            EngineKind::FileStat | EngineKind::DirStat => self.stat_name(dir, name),
            EngineKind::DirCreate => unsafe { libc::mkdirat(dir, name.as_ptr(), 0o700) },
            EngineKind::DirDelete => unsafe { libc::unlinkat(dir, name.as_ptr(), libc::AT_REMOVEDIR) },
            _ => unsafe { libc::unlinkat(dir, name.as_ptr(), 0) },
        };
        if r < 0 {
            -std::io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO)
        } else {
            0
        }
    }
}

// SAFETY: no pointer into the pool is ever handed to the kernel; nothing is in flight after
// `submit`.
unsafe impl Backend for Meta {
    const SUBMIT_COMPLETES: bool = true;

    fn pool_mut(&mut self) -> &mut BufferPool {
        &mut self.pool
    }

    #[inline]
    fn submit(&mut self, batch: &[Pending]) -> std::io::Result<()> {
        debug_assert!(batch.len() <= 1, "the metadata engines run one operation at a time");
        if let Some(p) = batch.first() {
            // A done operation counts as its I/O's length (fio counts its block as moved).
            let r = self.operate(p.file);
            self.done = Some((p.slot, if r == 0 { p.len as i32 } else { r }));
        }
        Ok(())
    }

    #[inline]
    fn wait(&mut self, _n: u32) -> std::io::Result<()> {
        Ok(())
    }

    #[inline]
    fn reap(&mut self, f: &mut impl FnMut(u32, i32)) {
        if let Some((slot, res)) = self.done.take() {
            f(slot, res);
        }
    }

    fn fsync(&mut self, _data_only: bool) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::Op;

    fn io(slot: u32, file: u32) -> Pending {
        Pending { slot, op: Op::Read, offset: 0, len: 4096, prio: 0, file, ranges: 1 }
    }

    fn result(b: &mut Meta, file: u32) -> i32 {
        b.submit(&[io(0, file)]).unwrap();
        let mut got = 0;
        b.reap(&mut |_, r| got = r);
        got
    }

    #[test]
    fn create_stat_delete_each_file_and_never_follow_a_link() {
        let d = std::env::temp_dir().join(format!("drivelab-meta-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("elsewhere"), b"keep").unwrap();
        std::os::unix::fs::symlink(d.join("elsewhere"), d.join("link")).unwrap();
        let names: Vec<String> = ["a", "b", "link"].iter().map(|n| d.join(n).to_string_lossy().into_owned()).collect();
        let pool = || BufferPool::new(1, 4096);
        let mut create = Meta::new(EngineKind::FileCreate, &names, pool()).unwrap();
        assert_eq!((result(&mut create, 0), result(&mut create, 1)), (4096, 4096));
        assert_eq!(result(&mut create, 2), -libc::ELOOP, "a link is not followed");
        use std::os::unix::fs::PermissionsExt;
        let meta = std::fs::metadata(d.join("a")).unwrap();
        assert_eq!((meta.len(), meta.permissions().mode() & 0o777), (0, 0o600));
        let mut stat = Meta::new(EngineKind::FileStat, &names, pool()).unwrap();
        assert_eq!(result(&mut stat, 1), 4096);
        let mut delete = Meta::new(EngineKind::FileDelete, &names, pool()).unwrap();
        assert_eq!((result(&mut delete, 0), result(&mut delete, 2)), (4096, 4096));
        assert_eq!(std::fs::read(d.join("elsewhere")).unwrap(), b"keep", "the link went, not its target");
        assert_eq!(result(&mut stat, 0), -libc::ENOENT);
        // fio's stat_type: a dangling link is gone to stat and statx, there to lstat.
        std::os::unix::fs::symlink(d.join("nowhere"), d.join("dangling")).unwrap();
        let dangling = [d.join("dangling").to_string_lossy().into_owned()];
        for (t, want) in [(StatType::Stat, -libc::ENOENT), (StatType::Statx, -libc::ENOENT), (StatType::Lstat, 4096)] {
            let mut b = Meta::new(EngineKind::FileStat, &dangling, pool()).unwrap().with_stat(t);
            assert_eq!(result(&mut b, 0), want, "{t:?}");
        }
        std::fs::remove_dir_all(&d).unwrap();
    }
}
