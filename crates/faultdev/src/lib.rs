//! A faulty drive for tests. This machine's kernel has loop devices and FUSE but no
//! device-mapper, null_blk or fault injection, so a drive whose "firmware" a test controls is
//! built from the two: [`FaultDev`] serves one file, `disk`, from a FUSE filesystem in this
//! process (its media held in memory), and a loop device over that file is an ordinary block
//! device to drivelab. The test switches [`Fault`]s on and off while drivelab runs:
//!
//! - `FlipOnRead`: reads of a range return its bytes with some bits flipped (the media is fine);
//! - `Eio`: reads (and writes) of a range fail with EIO;
//! - `LoseWrites`: writes to a range are acknowledged and not stored (after the first `after`);
//! - `Misdirect`: writes to a range are stored `by` bytes away;
//! - `Tear`: writes to a range store only the range's first `keep` bytes;
//! - a slow drive ([`FaultDev::set_delay`]): every read and write waits that long before it is
//!   served (the `--latency-split` tests see it in the device stage);
//! - a volatile write cache ([`FaultDev::set_cache`]): writes are held until a flush (fsync, or
//!   the FUA / O_DSYNC writes a loop device turns into one) and [`FaultDev::power_cut`] drops
//!   what was not flushed — or, for a drive that lies, flushes are acknowledged and do nothing,
//!   so a power cut drops flushed writes too.
//!
//! The file is opened with FUSE's direct I/O, so no page cache between the loop device and
//! these faults: every read and write of the loop device reaches this code. The loop device
//! may merge neighbouring writes into one, so a write fault applies to the bytes of a write
//! that fall in its range, whatever else the write carries.

use std::ffi::OsStr;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, UNIX_EPOCH};

use fuser::{
    Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags, INodeNo, LockOwner, MountOption, OpenFlags,
    ReplyAttr, ReplyData, ReplyDirectory, ReplyEmpty, ReplyEntry, ReplyOpen, ReplyWrite, Request, WriteFlags,
};

/// A fault of the drive, active until removed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Reads of `range` return each byte XORed with `mask`.
    FlipOnRead { range: Range<u64>, mask: u8 },
    /// Reads and writes touching `range` fail with EIO.
    Eio { range: Range<u64> },
    /// Writes to `range` are acknowledged and their bytes there dropped, except the first
    /// `after` writes that touch it (a drive that starts losing writes).
    LoseWrites { range: Range<u64>, after: u32 },
    /// The bytes of writes that fall in `range` are stored `by` bytes away (negative: before).
    Misdirect { range: Range<u64>, by: i64 },
    /// Of the bytes writes carry to `range`, only those in its first `keep` bytes are stored.
    Tear { range: Range<u64>, keep: u64 },
}

/// How the drive's write cache behaves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Cache {
    /// Every write is on the media when it is acknowledged.
    #[default]
    WriteThrough,
    /// Writes are held until a flush; a power cut drops what was not flushed.
    Volatile,
    /// Writes are held; flushes are acknowledged and do nothing: a power cut drops everything
    /// written since the cache was turned on (a drive that lies about its power-loss protection).
    Lying,
}

struct State {
    media: Vec<u8>,
    /// Writes held in the cache, in order: (offset, bytes).
    cached: Vec<(u64, Vec<u8>)>,
    cache: Cache,
    faults: Vec<Fault>,
    /// Writes that touched each fault's range so far (for `LoseWrites::after`).
    touched: Vec<u32>,
}

impl State {
    /// What a read sees: the media with the cached writes over it.
    fn view(&self, offset: u64, len: usize) -> Vec<u8> {
        let end = (offset as usize + len).min(self.media.len());
        let start = (offset as usize).min(end);
        let mut out = self.media[start..end].to_vec();
        for (o, bytes) in &self.cached {
            let (o, e) = (*o as usize, *o as usize + bytes.len());
            let (from, to) = (o.max(start), e.min(end));
            if from < to {
                out[from - start..to - start].copy_from_slice(&bytes[from - o..to - o]);
            }
        }
        out
    }

    fn store(&mut self, offset: u64, data: &[u8]) {
        let end = (offset as usize + data.len()).min(self.media.len());
        if (offset as usize) < end {
            self.media[offset as usize..end].copy_from_slice(&data[..end - offset as usize]);
        }
    }

    fn flush(&mut self) {
        for (o, bytes) in std::mem::take(&mut self.cached) {
            self.store(o, &bytes);
        }
    }
}

/// The faulty drive: a mounted FUSE filesystem holding `disk`. Unmounted when dropped.
pub struct FaultDev {
    state: Arc<Mutex<State>>,
    /// Each read's and write's injected delay, µs (0: none); outside the state's lock, so
    /// setting it never waits for a delayed I/O.
    delay_us: Arc<AtomicU64>,
    dir: PathBuf,
    session: Option<fuser::BackgroundSession>,
}

impl FaultDev {
    /// Mount a drive of `size` bytes, all zeros, at the empty directory `dir`.
    pub fn mount(dir: &Path, size: u64) -> std::io::Result<FaultDev> {
        let state = Arc::new(Mutex::new(State {
            media: vec![0; size as usize],
            cached: Vec::new(),
            cache: Cache::WriteThrough,
            faults: Vec::new(),
            touched: Vec::new(),
        }));
        let delay_us = Arc::new(AtomicU64::new(0));
        let fs = DiskFs { state: state.clone(), delay_us: delay_us.clone(), size };
        let mut config = fuser::Config::default();
        config.mount_options = vec![MountOption::FSName("drivelab-faultdev".into())];
        let session = fuser::spawn_mount(fs, dir, &config)?;
        Ok(FaultDev { state, delay_us, dir: dir.to_path_buf(), session: Some(session) })
    }

    /// The file to put a loop device over.
    pub fn file(&self) -> PathBuf {
        self.dir.join("disk")
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn add(&self, fault: Fault) {
        let mut s = self.lock();
        s.faults.push(fault);
        s.touched.push(0);
    }

    pub fn clear_faults(&self) {
        let mut s = self.lock();
        s.faults.clear();
        s.touched.clear();
    }

    /// Every read and write from now on waits `delay` before it is served (zero: none), as a
    /// slow drive's would: the loop device's request is in the device all that time.
    pub fn set_delay(&self, delay: Duration) {
        self.delay_us.store(delay.as_micros().try_into().unwrap_or(u64::MAX), Ordering::Relaxed);
    }

    /// Change the write cache (what it holds is flushed first).
    pub fn set_cache(&self, cache: Cache) {
        let mut s = self.lock();
        s.flush();
        s.cache = cache;
    }

    /// Power is cut: what the cache holds is lost. The drive comes back write-through.
    pub fn power_cut(&self) {
        let mut s = self.lock();
        s.cached.clear();
        s.cache = Cache::WriteThrough;
    }

    /// The media's bytes (what survives a power cut), for checks.
    pub fn media(&self, range: Range<u64>) -> Vec<u8> {
        self.lock().media[range.start as usize..range.end as usize].to_vec()
    }
}

impl Drop for FaultDev {
    fn drop(&mut self) {
        let Some(session) = self.session.take() else { return };
        // Still held (a loop device not yet gone): detach the mount lazily, so no test leaves
        // one behind; closing the session then ends the connection.
        if session.umount_and_join().is_err() || mounted(&self.dir) {
            let _ = std::process::Command::new("umount").arg("-l").arg(&self.dir).status();
        }
    }
}

/// Whether a filesystem is mounted at `dir` (from /proc/self/mountinfo).
fn mounted(dir: &Path) -> bool {
    let dir = dir.to_string_lossy();
    std::fs::read_to_string("/proc/self/mountinfo")
        .is_ok_and(|m| m.lines().any(|l| l.split_whitespace().nth(4) == Some(dir.as_ref())))
}

struct DiskFs {
    state: Arc<Mutex<State>>,
    delay_us: Arc<AtomicU64>,
    size: u64,
}

const TTL: Duration = Duration::from_secs(1);
const DISK: INodeNo = INodeNo(2);

fn attr(ino: INodeNo, kind: FileType, size: u64, perm: u16) -> FileAttr {
    FileAttr {
        ino,
        size,
        blocks: size.div_ceil(512),
        atime: UNIX_EPOCH,
        mtime: UNIX_EPOCH,
        ctime: UNIX_EPOCH,
        crtime: UNIX_EPOCH,
        kind,
        perm,
        nlink: 1,
        uid: 0,
        gid: 0,
        rdev: 0,
        flags: 0,
        blksize: 4096,
    }
}

fn touches(r: &Range<u64>, offset: u64, len: u64) -> bool {
    offset < r.end && offset + len > r.start
}

impl DiskFs {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The injected delay of a slow drive (`FaultDev::set_delay`), before the I/O is served.
    fn delay(&self) {
        let us = self.delay_us.load(Ordering::Relaxed);
        if us > 0 {
            std::thread::sleep(Duration::from_micros(us));
        }
    }
}

impl Filesystem for DiskFs {
    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        if parent == INodeNo::ROOT && name == "disk" {
            reply.entry(&TTL, &attr(DISK, FileType::RegularFile, self.size, 0o600), fuser::Generation(0));
        } else {
            reply.error(Errno::ENOENT);
        }
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        match ino {
            INodeNo::ROOT => reply.attr(&TTL, &attr(ino, FileType::Directory, 0, 0o755)),
            DISK => reply.attr(&TTL, &attr(ino, FileType::RegularFile, self.size, 0o600)),
            _ => reply.error(Errno::ENOENT),
        }
    }

    fn open(&self, _req: &Request, _ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        // Direct I/O: no page cache between the loop device and the faults.
        reply.opened(FileHandle(0), FopenFlags::FOPEN_DIRECT_IO);
    }

    fn read(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyData,
    ) {
        self.delay();
        let s = self.lock();
        let mut data = s.view(offset, size as usize);
        for f in &s.faults {
            match f {
                Fault::Eio { range } if touches(range, offset, size as u64) => return reply.error(Errno::EIO),
                Fault::FlipOnRead { range, mask } => {
                    for (i, b) in data.iter_mut().enumerate() {
                        if range.contains(&(offset + i as u64)) {
                            *b ^= mask;
                        }
                    }
                }
                _ => {}
            }
        }
        reply.data(&data);
    }

    fn write(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        data: &[u8],
        _write_flags: WriteFlags,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyWrite,
    ) {
        self.delay();
        let mut s = self.lock();
        if s.faults.iter().any(|f| matches!(f, Fault::Eio { range } if touches(range, offset, data.len() as u64))) {
            return reply.error(Errno::EIO);
        }
        // What is stored where: the write in pieces, each fault applied to the bytes in its range.
        let mut pieces = vec![(offset, data.to_vec())];
        let State { faults, touched, .. } = &mut *s;
        for (f, n) in faults.iter().zip(touched.iter_mut()) {
            let range = match f {
                Fault::LoseWrites { range, .. } | Fault::Misdirect { range, .. } | Fault::Tear { range, .. } => range,
                _ => continue,
            };
            if !touches(range, offset, data.len() as u64) {
                continue;
            }
            *n += 1;
            let mut out = Vec::new();
            for (at, bytes) in pieces {
                let end = at + bytes.len() as u64;
                let (a, b) = (range.start.clamp(at, end), range.end.clamp(at, end));
                let part = |x: u64, y: u64| bytes[(x - at) as usize..(y - at) as usize].to_vec();
                if a > at {
                    out.push((at, part(at, a)));
                }
                if b > a {
                    match f {
                        Fault::LoseWrites { after, .. } if *n <= *after => out.push((a, part(a, b))),
                        Fault::LoseWrites { .. } => {}
                        Fault::Misdirect { by, .. } => out.push((a.wrapping_add_signed(*by), part(a, b))),
                        Fault::Tear { keep, .. } => {
                            let kept = b.min(range.start + keep).max(a);
                            if kept > a {
                                out.push((a, part(a, kept)));
                            }
                        }
                        _ => unreachable!(),
                    }
                }
                if end > b {
                    out.push((b, part(b, end)));
                }
            }
            pieces = out;
        }
        for (at, bytes) in pieces {
            match s.cache {
                Cache::WriteThrough => s.store(at, &bytes),
                Cache::Volatile | Cache::Lying => s.cached.push((at, bytes)),
            }
        }
        reply.written(data.len() as u32);
    }

    fn flush(&self, _req: &Request, _ino: INodeNo, _fh: FileHandle, _lock_owner: LockOwner, reply: ReplyEmpty) {
        // close(): no promise of durability.
        reply.ok();
    }

    fn fsync(&self, _req: &Request, _ino: INodeNo, _fh: FileHandle, _datasync: bool, reply: ReplyEmpty) {
        let mut s = self.lock();
        if s.cache == Cache::Volatile {
            s.flush();
        }
        reply.ok();
    }

    fn readdir(&self, _req: &Request, ino: INodeNo, _fh: FileHandle, offset: u64, mut reply: ReplyDirectory) {
        if ino != INodeNo::ROOT {
            return reply.error(Errno::ENOENT);
        }
        let entries = [
            (INodeNo::ROOT, FileType::Directory, "."),
            (INodeNo::ROOT, FileType::Directory, ".."),
            (DISK, FileType::RegularFile, "disk"),
        ];
        for (i, (ino, kind, name)) in entries.into_iter().enumerate().skip(offset as usize) {
            if reply.add(ino, (i + 1) as u64, kind, name) {
                break;
            }
        }
        reply.ok();
    }
}

/// A faulty drive as a block device: the drive mounted under /dev/shm and a loop device over
/// its file; the loop device is detached and the drive unmounted on drop.
/// A mounted drive with a loop device over it; both undone on drop.
pub struct Rig {
    dev: Option<FaultDev>,
    /// The loop device over the drive's file (`/dev/loopN`).
    pub loop_dev: String,
    dir: PathBuf,
}

impl Rig {
    /// A drive of `size` bytes with a loop device over it; None (the reason said as a skip)
    /// without root or /dev/fuse.
    pub fn new(size: u64, name: &str) -> Option<Rig> {
        let skip = drivelab_testkit::skip;
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            skip("needs root (FUSE mount and loop devices)");
            return None;
        }
        if !Path::new("/dev/fuse").exists() {
            skip("no /dev/fuse");
            return None;
        }
        let dir = PathBuf::from(format!("/dev/shm/drivelab-faultdev-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let dev = FaultDev::mount(&dir, size).expect("mount the faulty drive");
        let out = Command::new("losetup").args(["--find", "--show"]).arg(dev.file()).output().unwrap();
        assert!(out.status.success(), "losetup: {}", String::from_utf8_lossy(&out.stderr));
        let loop_dev = String::from_utf8(out.stdout).unwrap().trim().to_string();
        Some(Rig { dev: Some(dev), loop_dev, dir })
    }

    pub fn drive(&self) -> &FaultDev {
        self.dev.as_ref().unwrap()
    }
}

impl Drop for Rig {
    fn drop(&mut self) {
        let _ = Command::new("losetup").arg("-d").arg(&self.loop_dev).status();
        // The loop device lets go of the file a moment after it is detached; the drive cannot be
        // unmounted before.
        let backing = format!("/sys/block/{}/loop/backing_file", self.loop_dev.trim_start_matches("/dev/"));
        for _ in 0..200 {
            if !Path::new(&backing).exists() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        drop(self.dev.take());
        let _ = std::fs::remove_dir(&self.dir);
    }
}

#[cfg(test)]
mod tests;
