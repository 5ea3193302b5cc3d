//! Targets: regular files, block devices, and `null`.
//!
//! `probe` looks at a target without changing anything (what it is, its size, the alignment
//! O_DIRECT needs, the device behind it). `create_file` makes a new file and writes every byte
//! of it with incompressible data, because holes and unwritten extents read as zeros without
//! touching the media. `open` opens with the flags the workload needs. Whether a write is
//! *allowed* is not decided here (see the lab crate's `safety`).

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileExt, FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Field};
use crate::pattern::{self, BufferPool, FILL_TAG};
use crate::spec::{AccessSpec, DataPattern, SyncMode};
use crate::sysfs::{self, DiskFacts};

/// The size of the virtual `null` target.
pub const NULL_SIZE: u64 = 1 << 40;
/// Extended attribute that marks a file drivelab created (so a later run may write it again).
pub const CREATED_XATTR: &str = "user.drivelab.created";

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum TargetKind {
    File,
    Block,
    Null,
}

/// Facts about a target, as saved with every result.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TargetInfo {
    pub path: String,
    pub kind: TargetKind,
    /// False for a file that does not exist yet (it will be created).
    pub exists: bool,
    pub size_bytes: u64,
    pub logical_block_bytes: u64,
    pub physical_block_bytes: u64,
    /// Alignment O_DIRECT needs for offsets and sizes on this target.
    pub dio_align_bytes: u64,
    pub rotational: Option<bool>,
    pub model: Option<String>,
    /// Kernel name of the disk behind the target (`vda`, `loop0`), where there is one.
    pub disk: Option<String>,
    /// For a file: whether drivelab created it (it carries drivelab's mark).
    pub created_by_drivelab: bool,
    /// What the path named when it was probed and checked: [`open`] refuses a descriptor that
    /// is not this same file or device (a symlink swapped in between). Not saved.
    #[serde(skip)]
    pub identity: Option<Identity>,
}

/// The object a path named: filesystem device and inode, and for a block device its device
/// number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Identity {
    pub dev: u64,
    pub ino: u64,
    pub rdev: u64,
}

impl Identity {
    pub fn of(m: &std::fs::Metadata) -> Identity {
        Identity { dev: m.dev(), ino: m.ino(), rdev: if m.file_type().is_block_device() { m.rdev() } else { 0 } }
    }
}

impl TargetInfo {
    pub fn null() -> TargetInfo {
        TargetInfo {
            path: "null".into(),
            kind: TargetKind::Null,
            exists: true,
            size_bytes: NULL_SIZE,
            logical_block_bytes: 512,
            physical_block_bytes: 512,
            dio_align_bytes: 512,
            rotational: None,
            model: Some("null (I/Os complete at once)".into()),
            disk: None,
            created_by_drivelab: false,
            identity: None,
        }
    }
}

fn devno(rdev: u64) -> (u32, u32) {
    (libc::major(rdev), libc::minor(rdev))
}

/// The disk behind a device number, from the one sysfs reader.
fn disk_of_devno(major: u32, minor: u32) -> Option<String> {
    sysfs::disk_of_devno(Path::new(sysfs::SYS), major, minor)
}

/// The disk's facts, from the one sysfs reader (so `run.json` and every result agree).
fn disk_facts(disk: &str) -> Option<DiskFacts> {
    DiskFacts::read(Path::new(sysfs::SYS), disk)
}

/// O_DIRECT alignment of a file from statx (STATX_DIOALIGN), when the kernel and fs report it.
fn statx_dio_align(path: &Path) -> Option<u64> {
    let st = rustix::fs::statx(rustix::fs::CWD, path, rustix::fs::AtFlags::empty(), rustix::fs::StatxFlags::DIOALIGN)
        .ok()?;
    let off = st.stx_dio_offset_align as u64;
    (off > 0).then_some(off)
}

/// drivelab's mark on a file it created, as read back.
///
/// The mark is what lets a later run write the file without `--overwrite`, so it must not
/// outlive what it vouches for: it is set only once the file is completely filled and synced,
/// and it records the file's size and inode. A copy of the file (new inode), a file grown or cut
/// (new size), or a file left half-filled by a kill (mark still `Filling`) is not vouched for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    None,
    /// Creation began and never finished (or is under way in another process).
    Filling,
    Filled {
        size: u64,
        ino: u64,
    },
    /// A mark from an older drivelab, without size and inode: proves nothing.
    Unverifiable,
}

impl Mark {
    fn parse(value: &[u8]) -> Mark {
        let text = String::from_utf8_lossy(value);
        if text == "filling" {
            return Mark::Filling;
        }
        let field = |key: &str| {
            text.split_whitespace().find_map(|kv| kv.strip_prefix(key)?.strip_prefix('=')?.parse::<u64>().ok())
        };
        match (text.starts_with("filled "), field("size"), field("ino")) {
            (true, Some(size), Some(ino)) => Mark::Filled { size, ino },
            _ => Mark::Unverifiable,
        }
    }

    /// Does this mark vouch for the file `meta` describes (same inode, same size)?
    pub fn vouches_for(&self, meta: &std::fs::Metadata) -> bool {
        matches!(*self, Mark::Filled { size, ino } if size == meta.len() && ino == meta.ino())
    }

    /// The mark on the open file `file`.
    pub fn of_file(file: &File) -> Mark {
        use std::os::fd::AsRawFd;
        let name = std::ffi::CString::new(CREATED_XATTR).unwrap();
        let mut buf = [0u8; 128];
        // SAFETY: valid fd; NUL-terminated name; buf is valid for buf.len() bytes.
        let n = unsafe {
            libc::fgetxattr(file.as_raw_fd(), name.as_ptr(), buf.as_mut_ptr() as *mut libc::c_void, buf.len())
        };
        Mark::from_len(&buf, n)
    }

    fn of_path(path: &Path) -> Mark {
        let Ok(c) = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()) else { return Mark::None };
        let name = std::ffi::CString::new(CREATED_XATTR).unwrap();
        let mut buf = [0u8; 128];
        // SAFETY: both strings are NUL-terminated; buf is valid for buf.len() bytes.
        let n = unsafe { libc::getxattr(c.as_ptr(), name.as_ptr(), buf.as_mut_ptr() as *mut libc::c_void, buf.len()) };
        Mark::from_len(&buf, n)
    }

    fn from_len(buf: &[u8], n: isize) -> Mark {
        if n <= 0 {
            Mark::None
        } else {
            Mark::parse(&buf[..n as usize])
        }
    }

    /// Set this mark on `file`. Failure (a filesystem without user xattrs) only means a later
    /// run will need `--overwrite` to write the file.
    fn set(&self, file: &File) {
        use std::os::fd::AsRawFd;
        let value = match *self {
            Mark::Filling => "filling".to_string(),
            Mark::Filled { size, ino } => format!("filled size={size} ino={ino}"),
            Mark::None | Mark::Unverifiable => return,
        };
        let name = std::ffi::CString::new(CREATED_XATTR).unwrap();
        // SAFETY: valid fd, NUL-terminated name, value valid for its length.
        unsafe {
            libc::fsetxattr(file.as_raw_fd(), name.as_ptr(), value.as_ptr() as *const libc::c_void, value.len(), 0)
        };
    }
}

/// Why a target was refused, by kind, with the path as shown: a caller can tell a target that
/// is missing from one that is busy or changed under it. Every one is the user's to fix (exit
/// code 2).
#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error("'' is not a target: give a file, a block device (/dev/...) or null")]
    Empty,
    #[error("{path} is a symbolic link to {link}, which does not exist: give the target itself")]
    DanglingLink { path: String, link: String },
    #[error("{path}: the name is too long for this system ({len} bytes): give a shorter path")]
    NameTooLong { path: String, len: usize },
    #[error("cannot look at {path} ({why}): give a path this user can reach")]
    Unreachable { path: String, why: io::Error },
    #[error("{path} does not exist and neither does its directory {dir}: create the directory or give another path")]
    NoDirectory { path: String, dir: String },
    #[error("{path} does not exist: give an existing block device (see lsblk) or a file path")]
    NoDevice { path: String },
    #[error("{path}: the size of {disk} is not in sysfs")]
    NoSize { path: String, disk: String },
    #[error("{path} is neither a regular file nor a block device: give a file, a /dev block device, or null")]
    NotFileOrDevice { path: String },
    #[error("{path} appeared while drivelab was preparing it; run again")]
    Appeared { path: String },
    #[error("{path} is busy (opened exclusively by someone else): stop that user first")]
    Busy { path: String },
    #[error("{path} cannot be opened {how} ({why}): give a target this user may use, or run as its owner")]
    Denied { path: String, how: &'static str, why: io::Error },
    #[error(
        "{path} changed between its checks and its opening (it now names another file or device): nothing was \
         done through it; run again to check what it names now"
    )]
    Changed { path: String },
}

/// Look at a target without changing anything.
pub fn probe(path: &str) -> Result<TargetInfo, Error> {
    if path == "null" {
        return Ok(TargetInfo::null());
    }
    if path.is_empty() {
        return Err(TargetError::Empty.into());
    }
    let p = Path::new(path);
    let meta = match std::fs::metadata(p) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            if let Ok(link) = std::fs::read_link(p) {
                return Err(TargetError::DanglingLink { path: path.into(), link: link.display().to_string() }.into());
            }
            None
        }
        Err(e) if e.raw_os_error() == Some(libc::ENAMETOOLONG) => {
            return Err(TargetError::NameTooLong { path: shorten(path), len: path.len() }.into())
        }
        Err(e) if matches!(e.raw_os_error(), Some(libc::EACCES | libc::ENOTDIR | libc::ELOOP)) => {
            return Err(TargetError::Unreachable { path: shorten(path), why: e }.into())
        }
        Err(e) => return Err(Error::io(format!("cannot look at {}", shorten(path)), e)),
    };
    match meta {
        None => {
            let parent = p.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
            let pm = std::fs::metadata(parent)
                .map_err(|_| TargetError::NoDirectory { path: path.into(), dir: parent.display().to_string() })?;
            let canon_parent = std::fs::canonicalize(parent).unwrap_or_else(|_| parent.to_path_buf());
            let under_dev = canon_parent.starts_with("/dev") && !canon_parent.starts_with("/dev/shm");
            if under_dev {
                return Err(TargetError::NoDevice { path: path.into() }.into());
            }
            Ok(file_info(path, pm.dev(), 0, false, parent))
        }
        Some(m) if m.file_type().is_block_device() => {
            let file = File::open(p).map_err(|e| Error::io(format!("cannot open {path} for reading"), e))?;
            let size = block_size_bytes(&file).map_err(|e| Error::io(format!("cannot size {path}"), e))?;
            let logical = rustix::fs::ioctl_blksszget(&file).map(|v| v as u64).unwrap_or(512);
            let physical = rustix::fs::ioctl_blkpbszget(&file).map(|v| v as u64).unwrap_or(logical);
            let (maj, min) = devno(m.rdev());
            let disk = disk_of_devno(maj, min);
            let facts = disk.as_deref().and_then(disk_facts);
            Ok(TargetInfo {
                path: path.into(),
                kind: TargetKind::Block,
                exists: true,
                size_bytes: size,
                logical_block_bytes: logical,
                physical_block_bytes: physical,
                dio_align_bytes: logical,
                rotational: facts.as_ref().and_then(|f| f.rotational),
                model: facts.and_then(|f| f.model),
                disk,
                created_by_drivelab: false,
                identity: Some(Identity::of(&m)),
            })
        }
        Some(m) if m.file_type().is_file() => {
            Ok(TargetInfo { identity: Some(Identity::of(&m)), ..file_info(path, m.dev(), m.len(), true, p) })
        }
        // An NVMe generic character device (/dev/ngXnY), for io_uring_cmd: its namespace's block
        // device's size and facts; written only with --destroy, as a block device.
        Some(m) if m.file_type().is_char_device() && crate::backend::uring_cmd::check_target(path).is_ok() => {
            let (disk, lba) = crate::backend::uring_cmd::check_target(path)?;
            let sectors = std::fs::read_to_string(format!("{}/block/{disk}/size", crate::sysfs::SYS))
                .ok()
                .and_then(|t| t.trim().parse::<u64>().ok())
                .ok_or_else(|| TargetError::NoSize { path: path.into(), disk: disk.clone() })?;
            let facts = disk_facts(&disk);
            Ok(TargetInfo {
                path: path.into(),
                kind: TargetKind::Block,
                exists: true,
                size_bytes: sectors * 512,
                logical_block_bytes: lba as u64,
                physical_block_bytes: facts.as_ref().and_then(|f| f.physical_block_bytes).unwrap_or(lba as u64),
                dio_align_bytes: lba as u64,
                rotational: facts.as_ref().and_then(|f| f.rotational),
                model: facts.and_then(|f| f.model),
                disk: Some(disk),
                created_by_drivelab: false,
                identity: Some(Identity::of(&m)),
            })
        }
        Some(_) => Err(TargetError::NotFileOrDevice { path: path.into() }.into()),
    }
}

/// Facts for a file (existing, or to be created) on the filesystem whose device number is `dev`;
/// the O_DIRECT alignment is asked of `dio_from` (the file, or for a new file its directory).
fn file_info(path: &str, dev: u64, size: u64, exists: bool, dio_from: &Path) -> TargetInfo {
    let disk = disk_of_devno(libc::major(dev), libc::minor(dev));
    let facts = disk.as_deref().and_then(disk_facts);
    let logical = facts.as_ref().and_then(|f| f.logical_block_bytes);
    TargetInfo {
        path: path.into(),
        kind: TargetKind::File,
        exists,
        size_bytes: size,
        logical_block_bytes: logical.unwrap_or(512),
        physical_block_bytes: facts.as_ref().and_then(|f| f.physical_block_bytes).unwrap_or(4096),
        dio_align_bytes: statx_dio_align(dio_from).or(logical).unwrap_or(512),
        rotational: facts.as_ref().and_then(|f| f.rotational),
        model: facts.and_then(|f| f.model),
        disk,
        created_by_drivelab: exists
            && std::fs::metadata(path).is_ok_and(|m| Mark::of_path(Path::new(path)).vouches_for(&m)),
        identity: None,
    }
}

fn block_size_bytes(file: &File) -> io::Result<u64> {
    use std::io::Seek;
    let mut f = file;
    f.seek(io::SeekFrom::End(0))
}

/// Removes a half-made file unless disarmed — only if the path still names that file.
struct RemoveOnDrop<'a>(Option<(&'a Path, &'a File)>);
impl Drop for RemoveOnDrop<'_> {
    fn drop(&mut self) {
        if let Some((p, f)) = self.0 {
            remove_if_same(p, f);
        }
    }
}

/// Remove `path` if it still names the open `file` (never a file swapped in under its name).
pub fn remove_if_same(path: &Path, file: &File) {
    let same = match (std::fs::symlink_metadata(path), file.metadata()) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    };
    if same {
        let _ = std::fs::remove_file(path);
    }
}

/// Remove `path` if it is a file drivelab began to create and never finished (marked
/// [`Mark::Filling`]) that no process is filling now (nobody holds its lock): what a kill during
/// [`create_file`] leaves. Anything else is left alone. True when it was removed.
pub fn remove_half_made(path: &str) -> io::Result<bool> {
    let file =
        OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC).open(path)?;
    if !file.metadata()?.is_file() || Mark::of_file(&file) != Mark::Filling {
        return Ok(false);
    }
    // A drivelab filling it holds an exclusive flock until it is done.
    if rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive).is_err() {
        return Ok(false);
    }
    remove_if_same(Path::new(path), &file);
    Ok(true)
}

/// Create `path` with `size` bytes of incompressible, stamped data, fully written and synced,
/// and return it open (read-write) and locked (`flock`, exclusive) so that no other drivelab
/// uses it while this one does. It is marked as drivelab's ([`Mark`]) only once whole.
/// A failure or `stop` removes the file again: no half-made targets are left behind (a kill
/// leaves one marked `Filling`, which no later run takes for a whole file).
/// `progress(bytes_written)` is called after each chunk.
pub fn create_file(
    path: &str,
    size: u64,
    direct: bool,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(u64),
) -> Result<File, Error> {
    const CHUNK: usize = 1 << 20;
    if size == 0 || !size.is_multiple_of(4096) {
        return Err(Error::spec(
            Field::Size,
            size.to_string(),
            "a new file's size must be a non-zero multiple of 4096 bytes",
        ));
    }
    let p = Path::new(path);
    let file = OpenOptions::new().read(true).write(true).create_new(true).open(p).map_err(|e| {
        if e.kind() == io::ErrorKind::AlreadyExists {
            TargetError::Appeared { path: path.into() }.into()
        } else {
            Error::io(format!("cannot create {path}"), e)
        }
    })?;
    let mut guard = RemoveOnDrop(Some((p, &file)));
    // Nobody else can have it yet (it is new), so this cannot fail for a reason worth stopping.
    let _ = rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive);
    Mark::Filling.set(&file);
    // Prefer O_DIRECT so filling does not flood the page cache; fall back where refused. The
    // second descriptor is opened through the first, never through the path again.
    let direct_writer = direct.then(|| reopen(&file, true, libc::O_DIRECT).ok()).flatten();
    let writer = direct_writer.as_ref().unwrap_or(&file);
    let mut pool = BufferPool::new(1, CHUNK);
    let mut rng = fastrand::Rng::with_seed(size ^ 0xF111_F111);
    let mut off = 0u64;
    while off < size {
        if stop.load(Ordering::Relaxed) {
            return Err(Error::Interrupted(format!("interrupted while creating {path}; the partial file was removed")));
        }
        let n = CHUNK.min((size - off) as usize);
        let buf = &mut pool.slot_mut(0)[..n];
        pattern::fill(buf, DataPattern::Random, &mut rng);
        pattern::stamp(buf, off, FILL_TAG);
        let mut done = 0usize;
        while done < n {
            let w = writer
                .write_at(&buf[done..], off + done as u64)
                .map_err(|e| Error::io(format!("writing {path} at offset {}", off + done as u64), e))?;
            if w == 0 {
                return Err(Error::io(format!("writing {path}"), io::Error::from(io::ErrorKind::WriteZero)));
            }
            done += w;
        }
        off += n as u64;
        progress(off);
    }
    writer.sync_all().map_err(|e| Error::io(format!("syncing {path}"), e))?;
    let meta = file.metadata().map_err(|e| Error::io(format!("cannot look at the new {path}"), e))?;
    Mark::Filled { size: meta.len(), ino: meta.ino() }.set(&file);
    guard.0 = None;
    drop(guard);
    Ok(file)
}

/// Open again the very object `file` is (through `/proc/self/fd`, never through its path), for
/// reading, and for writing if `write`, with extra open flags.
pub fn reopen(file: &File, write: bool, flags: i32) -> io::Result<File> {
    use std::os::fd::AsRawFd;
    OpenOptions::new().read(true).write(write).custom_flags(flags).open(format!("/proc/self/fd/{}", file.as_raw_fd()))
}

/// An open target shared by the jobs that run on it.
pub struct OpenTarget {
    pub info: TargetInfo,
    pub file: Option<File>,
    /// Region used: `[start, start + span)`.
    pub start: u64,
    pub span: u64,
}

/// Open `info` for `spec` (read-only unless the spec writes; O_DIRECT / O_DSYNC as asked;
/// O_NOATIME where allowed) through its path, refusing a path that no longer names what was
/// probed. Writes go through [`open_via`] instead: the descriptor their checks were made on.
pub fn open(info: &TargetInfo, spec: &AccessSpec) -> Result<OpenTarget, Error> {
    open_with(info, spec, None)
}

/// Open `info` for `spec` through `held`, a descriptor of the same target that drivelab opened
/// once and checked (`/proc/self/fd/N`: the path is never resolved again).
pub fn open_via(held: &File, info: &TargetInfo, spec: &AccessSpec) -> Result<OpenTarget, Error> {
    open_with(info, spec, Some(held))
}

fn open_with(info: &TargetInfo, spec: &AccessSpec, held: Option<&File>) -> Result<OpenTarget, Error> {
    let (start, span) = spec.check_against(&info.path, info.size_bytes, info.dio_align_bytes)?;
    if info.kind == TargetKind::Null {
        return Ok(OpenTarget { info: info.clone(), file: None, start, span });
    }
    let mut flags = 0;
    if spec.direct {
        flags |= libc::O_DIRECT;
    }
    if spec.sync == SyncMode::Dsync {
        flags |= libc::O_DSYNC;
    }
    // O_NOATIME: a benchmark has no business updating access times (it cost ~2% of the
    // submitting thread's CPU on reads). Only the owner or CAP_FOWNER may ask; else go without.
    let open = |extra: i32| match held {
        Some(f) => reopen(f, spec.has_writes(), flags | extra),
        None => OpenOptions::new().read(true).write(spec.has_writes()).custom_flags(flags | extra).open(&info.path),
    };
    let opened = match open(libc::O_NOATIME) {
        Err(e) if e.raw_os_error() == Some(libc::EPERM) => open(0),
        other => other,
    };
    let file = opened.map_err(|e| {
        if e.raw_os_error() == Some(libc::EINVAL) && spec.direct {
            Error::DirectIoRefused { path: info.path.clone() }
        } else if e.raw_os_error() == Some(libc::EBUSY) {
            TargetError::Busy { path: info.path.clone() }.into()
        } else if matches!(e.raw_os_error(), Some(libc::EACCES | libc::EPERM | libc::EROFS)) {
            let how = if spec.has_writes() { "for writing" } else { "for reading" };
            TargetError::Denied { path: info.path.clone(), how, why: e }.into()
        } else {
            Error::io(format!("cannot open {}", info.path), e)
        }
    })?;
    // fio's fadvise_hint: the pattern told to the kernel (its readahead for buffered I/O). Advice
    // is a hint: a filesystem that takes none changes nothing, as in fio (which only warns).
    if let Some(advice) = spec.fadvise.advice(spec) {
        use std::os::fd::AsRawFd;
        // SAFETY: posix_fadvise reads only its integer arguments and acts on a descriptor this
        // function owns (`file`), open for the whole call.
        let _ = unsafe { libc::posix_fadvise(file.as_raw_fd(), start as i64, span as i64, advice) };
    }
    // fio's invalidate: a buffered job starts with its region out of the page cache. Clean pages
    // go (dirty ones stay until written back, as in fio); a file system that keeps its pages
    // (tmpfs) changes nothing.
    if !spec.direct && spec.invalidate {
        use std::os::fd::AsRawFd;
        // SAFETY: as above: integer arguments, a descriptor this function owns.
        let _ = unsafe { libc::posix_fadvise(file.as_raw_fd(), start as i64, span as i64, libc::POSIX_FADV_DONTNEED) };
    }
    // The checks were made on what the path named when probed; the descriptor written through
    // must be that same object, not whatever the path names now.
    if let Some(id) = info.identity {
        let now = file.metadata().map_err(|e| Error::io(format!("cannot look at the opened {}", info.path), e))?;
        if Identity::of(&now) != id {
            return Err(changed(&info.path));
        }
    }
    Ok(OpenTarget { info: info.clone(), file: Some(file), start, span })
}

/// The refusal for a path that names another object than the one probed and checked.
pub fn changed(path: &str) -> Error {
    TargetError::Changed { path: path.into() }.into()
}

/// A path as a message shows it: whole up to 120 characters, else its start and end.
fn shorten(path: &str) -> String {
    let chars: Vec<char> = path.chars().collect();
    if chars.len() <= 120 {
        return path.to_string();
    }
    let head: String = chars[..60].iter().collect();
    let tail: String = chars[chars.len() - 40..].iter().collect();
    format!("{head}…{tail}")
}

/// Canonical path of a target, for comparing names the user gave (`--destroy`).
pub fn canonical(path: &str) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| PathBuf::from(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The attack of issue #10, item 1: the path is checked while it names one file, then made
    /// to name another before it is opened. The descriptor must not be the other file.
    #[test]
    fn a_path_swapped_between_its_checks_and_its_opening_is_refused() {
        let dir = std::env::temp_dir().join(format!("drivelab-swap-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (checked, other, link) = (dir.join("checked"), dir.join("other"), dir.join("target"));
        std::fs::write(&checked, vec![1u8; 1 << 16]).unwrap();
        std::fs::write(&other, vec![2u8; 1 << 16]).unwrap();
        std::os::unix::fs::symlink(&checked, &link).unwrap();
        let spec = AccessSpec { read_pct: 0, direct: false, ..Default::default() };
        let info = probe(link.to_str().unwrap()).unwrap();
        // Unchanged: it opens.
        assert!(open(&info, &spec).is_ok());
        // Swapped after the checks: refused, and nothing is written to either file.
        std::fs::remove_file(&link).unwrap();
        std::os::unix::fs::symlink(&other, &link).unwrap();
        let e = open(&info, &spec).err().expect("a swapped path is refused");
        assert!(e.is_invalid() && e.to_string().contains("changed between its checks and its opening"), "{e}");
        assert!(std::fs::read(&other).unwrap().iter().all(|&b| b == 2));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Pages of `file` in the page cache (mincore over a mapping of it).
    fn resident_pages(file: &File, len: usize) -> usize {
        use std::os::fd::AsRawFd;
        let page = 4096;
        let pages = len.div_ceil(page);
        let mut vec = vec![0u8; pages];
        // SAFETY: a read-only shared mapping of `len` bytes of an open file, unmapped before
        // return; mincore writes one byte per page into `vec`, which has that many.
        unsafe {
            let at = libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ, libc::MAP_SHARED, file.as_raw_fd(), 0);
            assert_ne!(at, libc::MAP_FAILED);
            assert_eq!(libc::mincore(at, len, vec.as_mut_ptr()), 0);
            libc::munmap(at, len);
        }
        vec.iter().filter(|&&b| b & 1 == 1).count()
    }

    /// fio's invalidate: a buffered target's region leaves the page cache as it is opened (where
    /// the file system lets pages go: not tmpfs), and stays with `invalidate = false`.
    #[test]
    fn a_buffered_targets_region_is_dropped_from_the_page_cache_when_opened() {
        // Beside the build (a disk file system), not /tmp (tmpfs keeps its pages).
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/invalidate-test");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("f{}", std::process::id()));
        let len = 1 << 20;
        std::fs::write(&path, vec![7u8; len]).unwrap();
        let f = File::open(&path).unwrap();
        f.sync_all().unwrap();
        let _ = std::fs::read(&path).unwrap();
        let cached = resident_pages(&f, len);
        let info = probe(path.to_str().unwrap()).unwrap();
        let keep = AccessSpec { direct: false, invalidate: false, ..Default::default() };
        drop(open(&info, &keep).unwrap());
        assert_eq!(resident_pages(&f, len), cached, "invalidate = false keeps the cache");
        let drop_it = AccessSpec { direct: false, ..Default::default() };
        assert!(drop_it.invalidate, "fio's default");
        drop(open(&info, &drop_it).unwrap());
        let after = resident_pages(&f, len);
        std::fs::remove_file(&path).unwrap();
        if cached == 0 {
            return; // a file system that caches nothing here: nothing to drop
        }
        let on_tmpfs = std::fs::read_to_string("/proc/mounts").unwrap_or_default().lines().any(|l| {
            let mut w = l.split_whitespace();
            let (mnt, fs) = (w.nth(1).unwrap_or(""), w.next().unwrap_or(""));
            fs == "tmpfs" && dir.canonicalize().is_ok_and(|d| d.starts_with(mnt) && mnt != "/")
        });
        if !on_tmpfs {
            assert_eq!(after, 0, "{cached} pages were cached; the region is dropped");
        }
    }
}
