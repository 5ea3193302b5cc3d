//! From target names to open targets, with every check that can refuse done before the first
//! byte is written: probe each target, pick the engine (io_uring, or psync with a notice where
//! io_uring is unavailable), check the spec against each target and the buffer memory it needs,
//! ask `safety` for permission to write, then create missing files and open everything.
//! Used by `drivelab run` and by the plan runner for every point.

use std::sync::atomic::AtomicBool;

use drivelab_engine::backend::uring;
use drivelab_engine::error::Field;
use drivelab_engine::spec::{AccessSpec, EngineKind};
use drivelab_engine::sysfs::{self, DiskFacts};
use drivelab_engine::target::{self, OpenTarget, TargetInfo, TargetKind};
use drivelab_engine::units::{fmt_size, fmt_size_about};
use drivelab_engine::Error;

use crate::safety::{Claims, Permission};

/// Why targets are refused before anything is opened or created: the words defined once, each
/// kind with its target, so a caller can match (or downcast from [`Error::Refused`]) the kind.
/// Exit code 2.
#[derive(Debug, thiserror::Error)]
pub enum PrepareError {
    #[error("no target: give a file, a block device or null")]
    NoTarget,
    #[error("{target} is given twice: name each target once (use --jobs for more workers)")]
    GivenTwice { target: String },
    /// The kernel cannot run io_uring_cmd: the engine's words why.
    #[error("{0}")]
    RingUnavailable(String),
    #[error("{}: a path cannot hold a NUL byte", .path.escape_debug())]
    NulByte { path: String },
    #[error("{path} cannot be opened {} ({error}): give a target this user may use, or run as its owner",
            if *.write { "for writing" } else { "for reading" })]
    NoAccess { path: String, write: bool, error: std::io::Error },
    #[error("cannot create {path}: its directory {} is not writable ({error}): \
             give a target in a writable directory", .dir.display())]
    DirNotWritable { path: String, dir: std::path::PathBuf, error: std::io::Error },
    /// A new file bigger than the free space of its filesystem: refused before a byte is written
    /// (`--size=1p` wrote until ENOSPC, then removed the file).
    #[error(
        "cannot create {path}: it would be {} and its filesystem ({}) has {} free: give a smaller --size (or a \
         target on a filesystem with room)",
        fmt_size_about(*.size), .dir.display(), fmt_size_about(*.free)
    )]
    NoRoom { path: String, dir: std::path::PathBuf, size: u64, free: u64 },
    #[error(
        "ioengine {engine} works on files by name; {path} is not a regular file: name files (or \
             names to create)"
    )]
    MetaNotFile { engine: &'static str, path: String },
    #[error(
        "ioengine {engine} deletes {path}, which exists and which drivelab was not told to remove: \
             add --overwrite if deleting it is what you want"
    )]
    MetaDelete { engine: &'static str, path: String },
    #[error(
        "ioengine {engine} works on directories by name; {path} is there and is not a directory (a symbolic \
             link is not followed): name directories (or names to create)"
    )]
    MetaNotDir { engine: &'static str, path: String },
    #[error("ioengine {engine}: making {path} before the run: {error}")]
    MetaSetup { engine: &'static str, path: String, error: std::io::Error },
    #[error("{path} is named twice: give each directory once")]
    NamedTwice { path: String },
}

impl From<PrepareError> for Error {
    fn from(e: PrepareError) -> Error {
        Error::refused(e)
    }
}

/// Targets ready to run, and what the user should be told about how.
pub struct Prepared {
    /// The spec as it will run (the psync fallback changes qd and jobs).
    pub spec: AccessSpec,
    pub targets: Vec<OpenTarget>,
    /// One-line notices (engine fallback, buffered block devices) for the summary and result.
    pub notices: Vec<String>,
    /// Files created on the way (full of data, marked as drivelab's).
    pub created: Vec<String>,
}

/// Every check `prepare` makes, with no side effects: the spec as it would run, the probed
/// targets (new files sized as they would be created) and the notices. `claims`: what this
/// lab already holds (checked through what is held).
pub fn check(
    spec: &AccessSpec,
    names: &[String],
    new_file_size: u64,
    perm: &Permission,
    claims: &Claims,
) -> Result<(AccessSpec, Vec<TargetInfo>, Vec<String>), Error> {
    check_with(spec, names, new_file_size, perm, Some(claims))
}

/// [`check`], with the permission to write looked at only when `claims` is given: `prepare`
/// leaves it to [`Claims::claim`], which examines the same target again through the descriptor
/// it holds (drivers check every point with [`check`] before the first runs).
fn check_with(
    spec: &AccessSpec,
    names: &[String],
    new_file_size: u64,
    perm: &Permission,
    claims: Option<&Claims>,
) -> Result<(AccessSpec, Vec<TargetInfo>, Vec<String>), Error> {
    if spec.engine.is_meta() {
        return Ok((spec.clone(), check_meta(spec, names, perm)?, Vec::new()));
    }
    let mut spec = spec.clone();
    // A replay's trace is read now, before every other check (parsing only named it).
    drivelab_engine::replay::resolve(&mut spec)?;
    let mut notices = Vec::new();
    let mut infos = probe_all(names)?;
    check_uring_cmd(&spec, &infos)?;
    choose_engine(&mut spec, &infos, &mut notices)?;
    check_buffer_memory(&spec, infos.len())?;
    check_threads(&spec, infos.len())?;
    // Every device that needs --destroy is named in one refusal, not one per try.
    let mut unnamed: Option<Error> = None;
    let mut regions = Vec::new();
    for info in &mut infos {
        if info.kind == TargetKind::File && !info.exists {
            info.size_bytes = new_file_size;
        }
        regions.push(spec.check_against(&info.path, info.size_bytes, info.dio_align_bytes)?);
        let (start, span) = regions[regions.len() - 1];
        drivelab_engine::zbd::check_target(&spec, info, start, span)?;
        if let Some(claims) = claims.filter(|_| spec.has_writes()) {
            match claims.check_write(info, perm) {
                Ok(()) => {}
                Err(e @ Error::NeedsDestroy { .. }) => unnamed = Some(merge_unnamed(unnamed, e)?),
                Err(e) => return Err(e),
            }
        }
        check_access(info, spec.has_writes())?;
    }
    if let Some(e) = unnamed {
        return Err(e);
    }
    check_trace_fits(&spec, &infos, &regions)?;
    Ok((spec, infos, notices))
}

/// A replay's trace against the targets' regions (`--offset`, `--span`), before anything is
/// written: every I/O inside its region (the engine checks the trace it runs again).
fn check_trace_fits(spec: &AccessSpec, infos: &[TargetInfo], regions: &[(u64, u64)]) -> Result<(), Error> {
    use drivelab_engine::replay::{refusal, Region, Trace};
    let Some(r) = &spec.replay else { return Ok(()) };
    let trace = Trace::load(&r.path).map_err(|e| refusal(Field::Replay, e))?;
    let regions: Vec<Region> = infos
        .iter()
        .zip(regions)
        .map(|(i, &(start, span))| Region { path: &i.path, start, span, null: i.kind == TargetKind::Null })
        .collect();
    trace.check_fit(&regions).map_err(|why| Error::spec(Field::Replay, r.path.clone(), why.to_string()))
}

/// `e` added to the devices already found unnamed (`Err` only if `e` is another refusal).
pub fn merge_unnamed(found: Option<Error>, e: Error) -> Result<Error, Error> {
    match found {
        None => Ok(e),
        Some(f) => f.merge_needs_destroy(e).map_err(|(_, e)| e),
    }
}

/// Probe, check and open `names` for `spec`. A file that does not exist is created with
/// `new_file_size` bytes (`on_fill(path, done, total)` reports progress); `stop` interrupts that.
/// Targets written are opened through what `claims` holds for them (claimed here if need be),
/// so every check was made on the descriptor the I/O goes through. On a refusal, files created
/// here are removed again.
pub fn prepare(
    spec: &AccessSpec,
    names: &[String],
    new_file_size: u64,
    perm: &Permission,
    claims: &mut Claims,
    stop: &AtomicBool,
    on_fill: &mut dyn FnMut(&str, u64, u64),
) -> Result<Prepared, Error> {
    if spec.engine.is_meta() {
        return prepare_meta(spec, names, perm);
    }
    let (spec, mut infos, mut notices) = check_with(spec, names, new_file_size, perm, None)?;
    let mut created = Vec::new();
    let mut ctx = OpenCtx { spec: &spec, perm, claims, new_file_size, stop, on_fill, notices: &mut notices };
    let opened = open_all(&mut ctx, &mut infos, &mut created);
    match opened {
        Ok(targets) => Ok(Prepared { spec, targets, notices, created }),
        Err(e) => {
            // A file made for a run that cannot happen is not left behind.
            if e.is_invalid() {
                for p in &created {
                    if let Some(file) = claims.held_file(p) {
                        target::remove_if_same(std::path::Path::new(p), file);
                    }
                }
            }
            Err(e)
        }
    }
}

/// fio's metadata engines (`filecreate`, `filestat`, `filedelete`; `dircreate`, `dirstat`,
/// `dirdelete` on directories): the names are worked on during the run, never opened before it.
/// Each name is checked now: a regular file (a directory) or nothing yet — never a device, a
/// symbolic link or anything else — in a directory that exists. The engines that stat or
/// delete make the missing ones first, as fio does; the deleting ones remove one that was there
/// before only with `--overwrite` (drivelab never removes a file it was not told to).
fn prepare_meta(spec: &AccessSpec, names: &[String], perm: &Permission) -> Result<Prepared, Error> {
    let span = spec.span_bytes.unwrap_or(0).max(spec.max_bs());
    let infos = check_meta(spec, names, perm)?;
    // As fio, the engines that stat or delete make what is missing first (fio's layout of the
    // files, `setup_dirs` of the directories), so each I/O has one: a file of the region's
    // bytes (mode 0644, as fio's; never through a symbolic link), a directory (0700).
    let makes = [EngineKind::FileStat, EngineKind::FileDelete, EngineKind::DirStat, EngineKind::DirDelete];
    if makes.contains(&spec.engine) {
        for info in infos.iter().filter(|i| !i.exists) {
            let made = if spec.engine.is_dir() {
                use std::os::unix::fs::DirBuilderExt;
                std::fs::DirBuilder::new().mode(0o700).create(&info.path)
            } else {
                use std::io::Write;
                use std::os::unix::fs::OpenOptionsExt;
                std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(0o644)
                    .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
                    .open(&info.path)
                    .and_then(|mut f| f.write_all(&vec![0u8; span as usize]))
            };
            let engine = spec.engine.name();
            made.map_err(|error| PrepareError::MetaSetup { engine, path: info.path.clone(), error })?;
        }
    }
    let targets = infos.into_iter().map(|info| OpenTarget { info, file: None, start: 0, span });
    Ok(Prepared { spec: spec.clone(), targets: targets.collect(), notices: Vec::new(), created: Vec::new() })
}

/// [`prepare_meta`]'s checks, with no side effects: the names probed.
fn check_meta(spec: &AccessSpec, names: &[String], perm: &Permission) -> Result<Vec<TargetInfo>, Error> {
    let infos = if spec.engine.is_dir() { probe_dirs(spec.engine, names)? } else { probe_all(names)? };
    check_threads(spec, infos.len())?;
    for info in &infos {
        if info.exists && info.kind != TargetKind::File {
            return Err(PrepareError::MetaNotFile { engine: spec.engine.name(), path: info.path.clone() }.into());
        }
        if spec.engine.deletes() && info.exists && !perm.overwrite {
            return Err(PrepareError::MetaDelete { engine: spec.engine.name(), path: info.path.clone() }.into());
        }
    }
    Ok(infos)
}

/// The names of a directory engine's job, looked at (no side effects): each is a directory or
/// nothing yet (its parent must be there); anything else — a file, a symbolic link, a device —
/// is refused. A name given twice is refused.
fn probe_dirs(engine: EngineKind, names: &[String]) -> Result<Vec<TargetInfo>, Error> {
    let mut infos: Vec<TargetInfo> = Vec::with_capacity(names.len());
    for n in names {
        if infos.iter().any(|i| &i.path == n) {
            return Err(PrepareError::NamedTwice { path: n.clone() }.into());
        }
        let exists = match std::fs::symlink_metadata(n) {
            Ok(m) if m.file_type().is_dir() => true,
            Ok(_) => return Err(PrepareError::MetaNotDir { engine: engine.name(), path: n.clone() }.into()),
            Err(_) => {
                // Nothing there yet: its parent must be, as for a new file.
                target::probe(n)?;
                false
            }
        };
        // A name not there yet is drivelab's once made (by the run, or before it: dirstat).
        let created_by_drivelab = !exists;
        let info = TargetInfo {
            path: n.clone(),
            kind: TargetKind::File,
            exists,
            size_bytes: 0,
            created_by_drivelab,
            ..TargetInfo::null()
        };
        infos.push(info);
    }
    Ok(infos)
}

/// Probe every target (no side effects) and refuse one named twice.
pub fn probe_all(names: &[String]) -> Result<Vec<TargetInfo>, Error> {
    if names.is_empty() {
        return Err(PrepareError::NoTarget.into());
    }
    let mut infos: Vec<TargetInfo> = Vec::new();
    for t in names {
        let info = target::probe(t)?;
        // The same object under two names (a symlink, another device node, a hard link) would be
        // written by two workers that each think they own it.
        let same = |i: &TargetInfo| {
            target::canonical(&i.path) == target::canonical(t)
                || (info.identity.is_some() && i.identity == info.identity)
                || (info.kind == TargetKind::Block && i.identity.map(|d| d.rdev) == info.identity.map(|d| d.rdev))
        };
        if info.kind != TargetKind::Null && infos.iter().any(same) {
            return Err(PrepareError::GivenTwice { target: t.clone() }.into());
        }
        infos.push(info);
    }
    Ok(infos)
}

struct OpenCtx<'a, 'b> {
    spec: &'a AccessSpec,
    perm: &'a Permission<'b>,
    claims: &'a mut Claims,
    new_file_size: u64,
    stop: &'a AtomicBool,
    on_fill: &'a mut dyn FnMut(&str, u64, u64),
    notices: &'a mut Vec<String>,
}

fn open_all(ctx: &mut OpenCtx, infos: &mut [TargetInfo], created: &mut Vec<String>) -> Result<Vec<OpenTarget>, Error> {
    let mut opened = Vec::new();
    for info in infos {
        opened.push(open_one(ctx, info, created)?);
    }
    Ok(opened)
}

/// A target opened for the run: reads through its path (refused if it no longer names what was
/// probed); writes through the descriptor its checks were made on, created and filled first
/// if it is a new file.
fn open_one(ctx: &mut OpenCtx, info: &mut TargetInfo, created: &mut Vec<String>) -> Result<OpenTarget, Error> {
    if info.kind == TargetKind::Null || (!ctx.spec.has_writes() && info.exists) {
        return target::open(info, ctx.spec);
    }
    if info.kind == TargetKind::File && !info.exists {
        let (path, size) = (info.path.clone(), ctx.new_file_size);
        let on_fill = &mut *ctx.on_fill;
        let file = target::create_file(&path, size, ctx.spec.direct, ctx.stop, &mut |n| on_fill(&path, n, size))?;
        let meta = file.metadata().map_err(|e| Error::io(format!("cannot look at the new {path}"), e))?;
        *info = TargetInfo {
            exists: true,
            size_bytes: meta.len(),
            created_by_drivelab: true,
            identity: Some(target::Identity::of(&meta)),
            ..info.clone()
        };
        created.push(path);
        let held = ctx.claims.adopt(file, ctx.perm)?;
        return target::open_via(held, info, ctx.spec);
    }
    let held = ctx.claims.claim(info, ctx.perm, ctx.notices)?;
    target::open_via(held, info, ctx.spec)
}

/// io_uring where it works, else psync with a notice (a queue depth then runs as that many jobs);
/// `--hipri` only where every target's disk can poll, else interrupts with a notice.
fn choose_engine(spec: &mut AccessSpec, infos: &[TargetInfo], notices: &mut Vec<String>) -> Result<(), Error> {
    if spec.engine != EngineKind::Uring || infos.iter().all(|i| i.kind == TargetKind::Null) {
        return Ok(());
    }
    if spec.engine_opts.uring.hipri {
        let cannot: Vec<&str> =
            infos.iter().filter(|i| i.kind != TargetKind::Null && !can_poll(i)).map(|i| i.path.as_str()).collect();
        if !cannot.is_empty() {
            notices.push(format!(
                "--hipri: {} cannot poll for completions (its disk's queue/io_poll is not 1: the driver has \
                 no poll queues, e.g. nvme.poll_queues=0); completions by interrupt",
                cannot.join(", ")
            ));
            spec.engine_opts.uring.hipri = false;
        }
    }
    if let Err(why) = uring::available() {
        let mut note = format!("{why}; falling back to psync");
        if spec.engine_opts.uring != Default::default() {
            note += " (without --hipri and --sqpoll, which are io_uring's)";
            spec.engine_opts.uring = Default::default();
        }
        if spec.qd > 1 {
            note += &format!(": qd {} runs as {} jobs x qd 1", spec.qd, spec.qd * spec.jobs);
            // A rate per job was the whole queue's: each new job takes its slot's share.
            if let Some(r) = spec.rate.as_mut().filter(|r| r.scope == drivelab_engine::spec::RateScope::Job) {
                r.per_s /= spec.qd as f64;
            }
            spec.jobs *= spec.qd;
            spec.qd = 1;
        }
        notices.push(note);
        spec.engine = EngineKind::Psync;
        spec.validate()?;
    }
    Ok(())
}

/// io_uring_cmd runs only on NVMe generic character devices, on a kernel with 128-byte SQEs:
/// anything else is refused here, before any I/O (the null target runs the null backend, as
/// with every engine).
fn check_uring_cmd(spec: &AccessSpec, infos: &[TargetInfo]) -> Result<(), Error> {
    if spec.engine != EngineKind::UringCmd {
        return Ok(());
    }
    for info in infos.iter().filter(|i| i.kind != TargetKind::Null) {
        drivelab_engine::backend::uring_cmd::check_target(&info.path)?;
    }
    if infos.iter().any(|i| i.kind != TargetKind::Null) {
        drivelab_engine::backend::uring_cmd::ring_available().map_err(PrepareError::RingUnavailable)?;
    }
    Ok(())
}

/// Whether the disk behind a target polls for completions (`queue/io_poll` is 1).
fn can_poll(info: &TargetInfo) -> bool {
    let facts = info.disk.as_deref().and_then(|d| DiskFacts::read(std::path::Path::new(sysfs::SYS), d));
    facts.and_then(|f| f.io_poll) == Some(true)
}

/// The target can be opened as the run will open it (this user's permissions, a read-only
/// mount): found now, before anything is created, rather than when it is opened.
fn check_access(info: &TargetInfo, write: bool) -> Result<(), Error> {
    if info.kind == TargetKind::Null {
        return Ok(());
    }
    if !info.exists {
        return check_creatable(&info.path, info.size_bytes);
    }
    let Ok(c) = std::ffi::CString::new(info.path.as_str()) else {
        return Err(PrepareError::NulByte { path: info.path.clone() }.into());
    };
    let mode = if write { libc::R_OK | libc::W_OK } else { libc::R_OK };
    // SAFETY: access(2) reads the NUL-terminated path only.
    if unsafe { libc::access(c.as_ptr(), mode) } != 0 {
        let error = std::io::Error::last_os_error();
        return Err(PrepareError::NoAccess { path: info.path.clone(), write, error }.into());
    }
    Ok(())
}

/// A new file of `size` bytes can be made at `path`: its directory is writable and its
/// filesystem has the room (found now, not after a results directory was made, nor when the
/// fill meets ENOSPC).
fn check_creatable(path: &str, size: u64) -> Result<(), Error> {
    let p = std::path::Path::new(path);
    let dir = p.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()) else {
        return Err(PrepareError::NulByte { path: path.to_string() }.into());
    };
    // SAFETY: access(2) reads the NUL-terminated path only.
    if unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) } != 0 {
        let error = std::io::Error::last_os_error();
        let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        return Err(PrepareError::DirNotWritable { path: path.to_string(), dir, error }.into());
    }
    // Free space as this user may use it (f_bavail: root's reserve aside); a filesystem that
    // cannot say is left to the fill.
    if let Ok(st) = rustix::fs::statvfs(dir) {
        let free = st.f_bavail.saturating_mul(st.f_frsize);
        if st.f_blocks > 0 && size > free {
            let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
            return Err(PrepareError::NoRoom { path: path.to_string(), dir, size, free }.into());
        }
    }
    Ok(())
}

/// Job threads a CPU can carry before the jobs no longer share one measured window.
pub const MAX_JOBS_PER_CPU: u64 = 64;

/// Every job is a thread, started behind one gate and measured over the same window: far more
/// threads than CPUs start late, finish late and measure the scheduler (4096 jobs took 81 s to
/// run a 500 ms point on 2 CPUs). Refuse what cannot run well.
/// The job threads `spec` runs on `targets` targets: a job over several files (fio's) is one
/// thread for its set.
pub fn job_threads(spec: &AccessSpec, targets: usize) -> u64 {
    (spec.jobs as u64).saturating_mul(targets.div_ceil(spec.files.each().max(1)) as u64)
}

/// The most job threads one point (every stream of it: fio's sections that run together) may
/// start here: [`MAX_JOBS_PER_CPU`] per CPU.
pub fn max_job_threads() -> u64 {
    MAX_JOBS_PER_CPU * std::thread::available_parallelism().map(|n| n.get() as u64).unwrap_or(1)
}

/// Refuse more job threads in one stream than [`max_job_threads`].
pub fn check_threads(spec: &AccessSpec, targets: usize) -> Result<(), Error> {
    let cpus = std::thread::available_parallelism().map(|n| n.get() as u64).unwrap_or(1);
    let sets = targets.div_ceil(spec.files.each());
    let threads = job_threads(spec, targets);
    if threads > MAX_JOBS_PER_CPU * cpus {
        return Err(Error::spec(
            Field::Jobs,
            format!("{} x {sets} target(s)", spec.jobs),
            format!(
                "{threads} job threads on {cpus} CPU(s) cannot share one measured window (at most {} here): \
                 use fewer {{jobs}} or a deeper {{qd}} per job",
                MAX_JOBS_PER_CPU * cpus
            ),
        ));
    }
    Ok(())
}

/// I/O buffers are allocated up front (one slot of the largest block size per queue entry):
/// refuse a spec whose buffers would not fit comfortably in memory, rather than abort later.
fn check_buffer_memory(spec: &AccessSpec, targets: usize) -> Result<(), Error> {
    let slot = spec.max_bs().div_ceil(4096) * 4096;
    let sets = targets.div_ceil(spec.files.each());
    let need = (sets as u128) * (spec.jobs as u128) * (spec.qd as u128) * (slot as u128);
    // SAFETY: sysconf has no preconditions.
    let ram = unsafe { libc::sysconf(libc::_SC_PHYS_PAGES) as u128 * libc::sysconf(libc::_SC_PAGESIZE) as u128 };
    if ram > 0 && need > ram / 2 {
        return Err(Error::spec(
            Field::Qd,
            format!("{} x {{bs}} {} x {{jobs}} {} on {targets} target(s)", spec.qd, fmt_size(spec.max_bs()), spec.jobs),
            format!(
                "needs {} MiB of I/O buffers, more than half of this machine's {} MiB: lower {{qd}}, {{bs}} or {{jobs}}",
                need >> 20,
                ram >> 20
            ),
        ));
    }
    Ok(())
}
