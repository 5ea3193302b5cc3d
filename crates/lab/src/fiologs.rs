//! fio's log files, written at the end of each point from what its jobs recorded
//! (`drivelab_engine::iolog`): in the current directory under fio's own names, and a copy in the
//! results directory (`fio-logs/`), so fio's readers (fio2gnuplot, fiologparser_hist.py,
//! fio-plot) read drivelab's runs as fio's.
//!
//! Names and line format are fio 3.33's (iolog.c, init.c): `PREFIX_KIND.N.log` (`N`, fio's job
//! number, counts every job of the file from 1, clones included; without it with
//! `per_job_logs=0`), KIND `lat`/`clat`/`slat` (`write_lat_log`), `bw`, `iops`, `clat_hist`.
//! A line is `TIME, VALUE, DDIR, BS[, OFFSET], PRIO`: TIME ms since the job's measurement began,
//! lat in ns, bw in fio's per-I/O unit (bytes × 10^6 / clat ns) or KiB/s over a window, iops 1
//! per I/O or per second over a window. With `log_avg_msec` each window and direction is one
//! line (BS 0, as fio), its mean (or with `log_max_value` its largest); `_clat_hist` lines are
//! `TIME, DDIR, BS, COUNT...` (fio's 1856 buckets, 2^coarseness summed per column).
//!
//! Safety: every name is checked before anything runs ([`check`]: none may exist, two jobs may
//! not share one), and each file is created new, never following a symlink (`store`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use drivelab_engine::iolog::{IoEntry, IoLogSpec, JobLog, FIO_BUCKETS};
use drivelab_engine::result::RunResult;
use drivelab_engine::spec::AccessSpec;
use drivelab_engine::Error;

use crate::plan::Point;
use crate::store;

/// The results directory's subdirectory holding a copy of every log.
pub const SUBDIR: &str = "fio-logs";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Lat,
    Clat,
    Slat,
    Bw,
    Iops,
    Hist,
    /// `write_iolog`: the I/Os issued, fio's iolog version 3.
    IoLog,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Lat => "lat",
            Kind::Clat => "clat",
            Kind::Slat => "slat",
            Kind::Bw => "bw",
            Kind::Iops => "iops",
            Kind::Hist => "clat_hist",
            Kind::IoLog => "iolog",
        }
    }
}

/// One log file of one stream of a point: its name and the fio job numbers it holds.
struct File {
    stream: usize,
    kind: Kind,
    name: String,
    /// (fio job number, clone index) written into it, in order.
    clones: Vec<(u32, u64)>,
}

/// The files stream `stream`'s iolog names: as its job named them, else their paths (the
/// stream's own targets: a job's `JobLog::target` counts within its stream).
fn iolog_names<'a>(p: &'a Point, stream: usize, l: &'a IoLogSpec) -> &'a [String] {
    if !l.names.is_empty() {
        return &l.names;
    }
    match stream {
        0 => &p.targets,
        s => p.concurrent.get(s - 1).map_or(&[], |c| &c.targets),
    }
}

/// The point's streams' specs, in stream order.
fn specs(p: &Point) -> Vec<&AccessSpec> {
    std::iter::once(&p.spec).chain(p.concurrent.iter().map(|c| &c.spec)).collect()
}

/// How many clones a stream has (fio's numjobs): its targets when each clone has its own, else
/// its jobs per target.
fn clones(spec: &AccessSpec, l: &IoLogSpec, targets: usize) -> u64 {
    if l.clone_per_target {
        (targets / spec.files.each()) as u64
    } else {
        spec.jobs as u64
    }
}

/// Every log file point `p` writes.
fn files(p: &Point) -> Vec<File> {
    let mut out = Vec::new();
    let targets: Vec<usize> =
        std::iter::once(p.targets.len()).chain(p.concurrent.iter().map(|c| c.targets.len())).collect();
    for (stream, spec) in specs(p).into_iter().enumerate() {
        let Some(l) = &spec.io_log else { continue };
        let kinds = [
            (l.lat.as_ref(), Kind::Lat),
            (l.lat.as_ref(), Kind::Slat),
            (l.lat.as_ref(), Kind::Clat),
            (l.hist.as_ref(), Kind::Hist),
            (l.bw.as_ref(), Kind::Bw),
            (l.iops.as_ref(), Kind::Iops),
        ];
        let n = clones(spec, l, targets[stream]);
        // The iolog: its file as named (fio's write_iolog), `.N` for each of several clones.
        if let Some(path) = &l.iolog {
            for c in 0..n {
                let number = l.first_job + c as u32;
                let name = if n == 1 { path.clone() } else { format!("{path}.{number}") };
                out.push(File { stream, kind: Kind::IoLog, name, clones: vec![(number, c)] });
            }
        }
        for (prefix, kind) in kinds {
            let Some(prefix) = prefix else { continue };
            if l.per_job {
                for c in 0..n {
                    let number = l.first_job + c as u32;
                    let name = format!("{prefix}_{}.{number}.log", kind.name());
                    out.push(File { stream, kind, name, clones: vec![(number, c)] });
                }
            } else {
                let name = format!("{prefix}_{}.log", kind.name());
                let all = (0..n).map(|c| (l.first_job + c as u32, c)).collect();
                out.push(File { stream, kind, name, clones: all });
            }
        }
    }
    out
}

/// The longest file name a directory entry holds (Linux's NAME_MAX).
const NAME_MAX: usize = 255;

/// Why a point's fio log files cannot be written: the words defined once, each kind with the
/// log's name, so a caller can match (or downcast from [`Error::Refused`]) the kind. Exit code
/// 2; nothing was run.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    #[error(
        "fio log {name}: fio's log files are not written under MPI (each rank's records stay with it); \
             remove the write_*_log options, or run without mpirun"
    )]
    UnderMpi { name: String },
    /// Two points' jobs write the log `name`: the first at `first`, again at `second`.
    #[error(
        "fio log {name}: written by two jobs (points {first} and {second}); give each job its own \
             write_*_log prefix, or keep per_job_logs=1"
    )]
    TwoJobs { name: String, first: usize, second: usize },
    #[error(
        "fio log {name}: {what} is there, and drivelab never writes over one; remove it, or give \
             write_*_log another prefix (write_iolog another file name)"
    )]
    Exists { name: String, what: &'static str },
    #[error("fio log {name}: the file name is longer than {NAME_MAX} bytes; give a shorter prefix (or job name)")]
    TooLong { name: String },
    #[error("fio log {name}: the directory {dir} does not exist; create it, or give a prefix in one that does")]
    NoDirectory { name: String, dir: String },
}

impl From<LogError> for Error {
    fn from(e: LogError) -> Error {
        Error::refused(e)
    }
}

/// Before anything runs: every log name of `points` is new (nothing, not even a dangling
/// symlink, has it) and no two jobs write the same one; under MPI (`ranks`) no point asks for
/// logs (each rank's jobs keep what they record: it is not gathered).
pub fn check<'a>(points: impl IntoIterator<Item = &'a Point>, ranks: bool) -> Result<(), Error> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for p in points {
        let files = files(p);
        if ranks && !files.is_empty() {
            return Err(LogError::UnderMpi { name: files[0].name.clone() }.into());
        }
        for f in files {
            if let Some(other) = seen.insert(f.name.clone(), p.index) {
                return Err(LogError::TwoJobs { name: f.name.clone(), first: other, second: p.index }.into());
            }
            let path = Path::new(&f.name);
            // What the file system would refuse after the run, refused before it: a name longer
            // than a directory entry holds, a directory that is not there.
            if path.file_name().is_some_and(|n| n.len() > NAME_MAX) {
                return Err(LogError::TooLong { name: f.name.clone() }.into());
            }
            let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
            if !dir.is_dir() {
                return Err(LogError::NoDirectory { name: f.name.clone(), dir: dir.display().to_string() }.into());
            }
            if let Ok(m) = path.symlink_metadata() {
                return Err(LogError::Exists { name: f.name.clone(), what: kind_of(&m) }.into());
            }
        }
    }
    Ok(())
}

/// What a name already there is, in words: the refusal says what was found.
fn kind_of(m: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = m.file_type();
    if t.is_symlink() {
        "a symbolic link"
    } else if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_block_device() || t.is_char_device() {
        "a device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "a file"
    }
}

/// Write point `p`'s logs from its result `r`: in the current directory (fio's names) and in
/// `results` (its `fio-logs/`, when given). What was left out past the bounds, as notices.
pub fn write(p: &Point, r: &RunResult, results: Option<&Path>) -> Result<Vec<String>, Error> {
    let files = files(p);
    if files.is_empty() {
        return Ok(Vec::new());
    }
    let copies = match results {
        Some(dir) => {
            let d = store::Dir::open(dir)?;
            let sub = match d.make_dir(SUBDIR) {
                Ok(s) => s,
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => d.open_own(SUBDIR)?,
                Err(e) => return Err(Error::io(format!("making {}", dir.join(SUBDIR).display()), e)),
            };
            Some(sub)
        }
        None => None,
    };
    let specs = specs(p);
    let mut left_out: BTreeMap<(usize, u64), u64> = BTreeMap::new();
    for f in &files {
        let Some(l) = &specs[f.stream].io_log else { continue };
        let mut text = String::new();
        for &(_, clone) in &f.clones {
            let logs: Vec<&JobLog> = r
                .io_logs
                .iter()
                .filter(|(s, j)| *s == f.stream && if l.clone_per_target { j.target as u64 } else { j.job } == clone)
                .map(|(_, j)| &**j)
                .collect();
            match f.kind {
                Kind::IoLog => iolog_lines(&mut text, iolog_names(p, f.stream, l), specs[f.stream].files.each(), &logs),
                kind => render(&mut text, kind, l, &logs),
            }
            let dropped: u64 = logs.iter().map(|j| j.dropped).sum();
            if dropped > 0 {
                left_out.insert((f.stream, clone), dropped);
            }
        }
        store::write_new(Path::new(&f.name), text.as_bytes())?;
        if let Some(sub) = &copies {
            let base = Path::new(&f.name).file_name().map(|n| n.to_os_string()).unwrap_or_default();
            sub.write_new(&base, text.as_bytes())?;
        }
    }
    let notices = left_out
        .into_iter()
        .map(|((stream, clone), n)| {
            format!(
                "fio logs: {n} I/Os (or windows' I/Os) of job {} past drivelab's bounds ({} per-I/O entries per \
                 target, {} windows per job) are not in its logs; give log_avg_msec for long runs",
                specs[stream].io_log.as_ref().map_or(0, |l| l.first_job as u64 + clone),
                drivelab_engine::iolog::MAX_IO_ENTRIES,
                drivelab_engine::iolog::MAX_WINDOWS
            )
        })
        .collect();
    Ok(notices)
}

/// One clone's lines of a `kind` log (several targets' jobs of one clone merged by time).
fn render(out: &mut String, kind: Kind, l: &IoLogSpec, logs: &[&JobLog]) {
    let slat = logs.iter().any(|j| j.slat);
    if kind == Kind::Slat && !slat {
        // fio logs no slat for synchronous engines: the file is there, empty.
        return;
    }
    // fio's last column: with log_prio the I/O's ioprio in hex, else 1 for a real-time one.
    let mut line = |t_ns: u64, value: u64, dir: u8, bs: u64, offset: u64, prio: u16| {
        let _ = write!(out, "{}, {value}, {dir}, {bs}, ", t_ns / 1_000_000);
        if l.offset {
            let _ = write!(out, "{offset}, ");
        }
        let _ = if l.prio { write!(out, "0x{prio:04x}") } else { write!(out, "{}", (prio >> 13 == 1) as u8) };
        out.push('\n');
    };
    match kind {
        Kind::Hist => hist_lines(out, l, logs),
        _ if l.avg_ms == 0 => {
            let mut all: Vec<&IoEntry> = logs.iter().flat_map(|j| j.entries()).collect();
            if logs.len() > 1 {
                all.sort_by_key(|e| e.t_ns);
            }
            for e in all {
                let value = match kind {
                    Kind::Lat => e.lat_ns,
                    Kind::Clat => e.clat_ns(),
                    Kind::Slat => e.slat_ns as u64,
                    // fio's per-I/O bandwidth: bytes × 10^6 / clat in ns.
                    Kind::Bw => (e.len as u64 * 1_000_000).checked_div(e.clat_ns()).unwrap_or(0),
                    Kind::Iops | Kind::Hist | Kind::IoLog => 1,
                };
                line(e.t_ns, value, e.dir, e.len as u64, e.offset, e.prio);
            }
        }
        _ => {
            let mut all: Vec<_> = logs.iter().flat_map(|j| &j.windows).collect();
            if logs.len() > 1 {
                all.sort_by_key(|w| (w.end_ns, w.dir));
            }
            let whole_ns = l.avg_ms.saturating_mul(1_000_000);
            for w in all {
                // fio samples its bandwidth and IOPS at each window's end: the job's last, cut
                // short by its end, is no sample (as a rate over a few microseconds it would be
                // an absurd one); lat, clat and slat average whatever the window holds.
                if matches!(kind, Kind::Bw | Kind::Iops) && w.len_ns < whole_ns {
                    continue;
                }
                let pick = |sum: u64, max: u64| if l.max { max } else { (sum + w.ios / 2) / w.ios.max(1) };
                let value = match kind {
                    Kind::Lat => pick(w.lat_sum, w.lat_max),
                    Kind::Clat => pick(w.clat_sum, w.clat_max),
                    Kind::Slat => pick(w.slat_sum, w.slat_max),
                    // fio's windowed rates: KiB/s and I/Os per second.
                    Kind::Bw => (w.bytes as u128 * 1_000_000_000 / w.len_ns as u128 / 1024) as u64,
                    Kind::Iops | Kind::Hist | Kind::IoLog => (w.ios as u128 * 1_000_000_000 / w.len_ns as u128) as u64,
                };
                line(w.end_ns, value, w.dir, 0, 0, 0);
            }
        }
    }
}

/// fio's iolog version 3 of one clone's I/Os (several targets' merged): the version line, each
/// file's `add` and `open`, every I/O in the order issued (`TIME FILE read|write|trim OFFSET
/// LENGTH`, TIME in µs since the job's measurement started), each file's `close` — what fio
/// 3.33's `write_iolog` writes and `read_iolog` reads.
fn iolog_lines(out: &mut String, names: &[String], per_job: usize, logs: &[&JobLog]) {
    out.push_str("fio version 3 iolog\n");
    // A job's files: its target's, or a file set's from there (`IoEntry::file`), as named.
    let name = |j: &JobLog, file: u16| names.get(j.target + file as usize).map_or("", String::as_str);
    let per_job = per_job as u16;
    let mut files: Vec<&str> = Vec::new();
    for f in logs.iter().flat_map(|j| (0..per_job).map(move |f| name(j, f))) {
        if !files.contains(&f) {
            files.push(f);
        }
    }
    for f in &files {
        let _ = writeln!(out, "0 {f} add");
        let _ = writeln!(out, "0 {f} open");
    }
    // Issued at completion minus lat: the order fio logs them in (at issue).
    let mut all: Vec<(u64, &str, &IoEntry)> = logs
        .iter()
        .flat_map(|j| j.entries().map(move |e| (e.t_ns.saturating_sub(e.lat_ns), name(j, e.file), e)))
        .collect();
    all.sort_by_key(|&(t, _, _)| t);
    let mut last_us = 0;
    for (t, f, e) in all {
        let action = match e.dir {
            0 => "read",
            1 => "write",
            _ => "trim",
        };
        last_us = t / 1000;
        let _ = writeln!(out, "{last_us} {f} {action} {} {}", e.offset, e.len);
    }
    let end_us = logs.iter().map(|j| j.end_ns / 1000).max().unwrap_or(0).max(last_us);
    for f in &files {
        let _ = writeln!(out, "{end_us} {f} close");
    }
}

/// `_clat_hist` lines: `TIME, DDIR, BS, ` then fio's buckets, 2^coarseness summed per column.
fn hist_lines(out: &mut String, l: &IoLogSpec, logs: &[&JobLog]) {
    let stride = 1usize << l.hist_coarseness.min(6);
    let mut all: Vec<_> = logs.iter().flat_map(|j| &j.hists).collect();
    if logs.len() > 1 {
        all.sort_by_key(|h| (h.t_ns, h.dir));
    }
    let mut cols = vec![0u64; FIO_BUCKETS / stride];
    for h in all {
        cols.fill(0);
        for &(i, n) in &h.buckets {
            cols[i as usize / stride] += n as u64;
        }
        let _ = write!(out, "{}, {}, {}", h.t_ns / 1_000_000, h.dir, h.bs);
        for c in &cols {
            let _ = write!(out, ", {c}");
        }
        out.push('\n');
    }
}

#[cfg(test)]
mod tests;

/// The files of fio's `--bandwidth-log`, in the working directory.
pub const AGG_BW_LOGS: [&str; 3] = ["agg-read_bw.log", "agg-write_bw.log", "agg-trim_bw.log"];

/// fio's `--bandwidth-log`: the run's bandwidth per direction over time, summed over every job,
/// in fio's log format (`TIME_MS, KiB/s, DIR, 0, 0`) as `agg-read_bw.log`, `agg-write_bw.log`
/// and `agg-trim_bw.log`: (file name, text). fio samples it from its status thread (every
/// 500 ms, and only when it draws a status line; fio 3.33 run from a script leaves the three files
/// empty); drivelab's sample is each whole second of the per-second series, TIME counted from the
/// first point's start, a direction's KiB/s its I/Os that second times its mean size.
pub fn aggregate_bw(points: &[&RunResult]) -> [(&'static str, String); 3] {
    let names = AGG_BW_LOGS;
    let mut text = [String::new(), String::new(), String::new()];
    let genesis = points.iter().map(|r| r.started_unix_ms).min().unwrap_or(0);
    for r in points {
        let size = |s: &drivelab_engine::result::DirStats| if s.ops > 0 { s.bytes as f64 / s.ops as f64 } else { 0.0 };
        let (rs, ws) = (size(&r.read), size(&r.write));
        let at = r.started_unix_ms.saturating_sub(genesis) + r.spec.ramp_ns / 1_000_000;
        for p in r.series.iter().filter(|p| p.dur_ns >= 500_000_000) {
            let t = at + (p.t_s * 1000.0).round() as u64;
            for (d, v) in [(0, p.read_iops * rs), (1, p.write_iops * ws)] {
                let _ = writeln!(text[d], "{t}, {}, {d}, 0, 0", (v / 1024.0).round() as u64);
            }
        }
    }
    let [r, w, t] = text;
    [(names[0], r), (names[1], w), (names[2], t)]
}
