//! The crash journal (`--journal FILE`): what every verifying write was, and when the target
//! acknowledged it, recorded durably *before* drivelab goes on — so that after a power cut, a
//! crash or a pulled device, `drivelab verify --journal` can tell the writes the drive promised
//! were durable (and must be there) from those that were still in flight (and may or may not be).
//!
//! This is vdbench's journal, done so that it cannot raise a false alarm:
//! - a write's *intent* (target, offset, length, generation) is in the journal before the write is
//!   submitted, so a unit found newer than the journal knows cannot happen;
//! - its *ack* is journaled after it completes; with O_DSYNC (`sync dsync`) an ack is a promise
//!   of durability, otherwise the promise comes with the next fsync, journaled as a *durable*
//!   barrier over the job's own slice of the target (each unit has one writer, and the job has
//!   nothing in flight when it syncs, so every ack before the barrier is covered by the fsync);
//! - a failed write is journaled as such: its units hold anything until written again.
//!
//! The file is opened `O_APPEND | O_DSYNC` (create-new only): each append is durable when the
//! write(2) returns, and appends from several jobs never interleave. A job appends one frame per
//! submit batch (its intents) and one per reap pass (its acks), from buffers sized for its queue
//! depth at the start: no allocation per I/O, two journal writes per exchange with the target.
//!
//! Layout (little-endian): the 16-byte [`FILE_MAGIC`], then frames. A frame is `magic u32 | kind
//! u32 | payload_len u64 | payload_crc32c u32 | header_crc32c u32` and its payload. A *segment*
//! frame starts each verifying run: its seed, unit, compressibility, whether acks are durable, and
//! for each target its journal id, its index in the run (the header's `target`), its path and its
//! generation map at the start (run-length coded). A *records* frame holds 24-byte records: `op u8
//! | generation u8 | 0 u16 | target u32 | offset u64 | len u64` (op 1 intent, 2 ack, 3 failed, 4
//! durable over `[offset, offset + len)`). A torn or unfinished frame at the end (the crash hit
//! the journal's own write) is ignored by the reader: its intents were never submitted.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::map::GenerationMap;

/// The first 16 bytes of a journal.
pub const FILE_MAGIC: &[u8; 16] = b"drivelab-jrnl-1\n";
pub(super) const FRAME_MAGIC: u32 = u32::from_le_bytes(*b"dljf");
pub(super) const FRAME_HEADER: usize = 24;
pub(super) const RECORD: usize = 24;
pub(super) const SEGMENT: u32 = 1;
pub(super) const RECORDS: u32 = 2;

/// What a journal record says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Op {
    /// A write is about to be submitted; `generation` is that of its first unit.
    Intent = 1,
    /// It completed whole.
    Ack = 2,
    /// It failed: its units may hold anything.
    Failed = 3,
    /// An fsync completed: every ack before this record over `[offset, offset + len)` is durable.
    Durable = 4,
}

impl Op {
    pub(super) fn from_u8(b: u8) -> Option<Op> {
        Some(match b {
            1 => Op::Intent,
            2 => Op::Ack,
            3 => Op::Failed,
            4 => Op::Durable,
            _ => return None,
        })
    }
}

/// One target of a verifying run, as its segment records it.
pub struct SegmentTarget<'a> {
    pub path: &'a str,
    /// Its index in the run: the `target` its units' headers carry.
    pub run_index: u32,
    /// What is known written on it when the run starts (the whole target).
    pub map: &'a GenerationMap,
}

/// The start of a verifying run in the journal.
pub struct Segment<'a> {
    pub seed: u64,
    pub zero_pct: u8,
    pub unit: u64,
    /// The targets are written with O_DSYNC: an acknowledged write is durable.
    pub durable_acks: bool,
    pub targets: Vec<SegmentTarget<'a>>,
}

/// A journal being written: one per command, shared by the jobs of every verifying run.
pub struct Journal {
    file: File,
    path: PathBuf,
    /// Target paths by journal id, in order of first appearance.
    ids: Mutex<Vec<String>>,
}

impl Journal {
    /// Create the journal at `path` (which must not exist: a journal is never appended to or
    /// overwritten), opened for durable appends. `create_new` is `O_CREAT | O_EXCL`, which refuses
    /// any existing name and never follows a symlink; `O_NOFOLLOW` says so once more.
    pub fn create(path: &Path) -> io::Result<Journal> {
        let file = OpenOptions::new()
            .append(true)
            .create_new(true)
            .custom_flags(libc::O_DSYNC | libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(path)?;
        let j = Journal { file, path: path.to_path_buf(), ids: Mutex::new(Vec::new()) };
        j.append(FILE_MAGIC)?;
        Ok(j)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Start a run's segment: the journal id of each of its targets (by path: the same target in
    /// a later run keeps its id).
    pub fn begin(&self, seg: &Segment<'_>) -> io::Result<Vec<u32>> {
        let mut known = self.ids.lock().unwrap_or_else(|e| e.into_inner());
        let ids: Vec<u32> = seg
            .targets
            .iter()
            .map(|t| match known.iter().position(|p| p == t.path) {
                Some(i) => i as u32,
                None => {
                    known.push(t.path.to_string());
                    (known.len() - 1) as u32
                }
            })
            .collect();
        let mut p = Vec::new();
        p.push(seg.durable_acks as u8);
        p.push(seg.zero_pct);
        p.extend_from_slice(&0u16.to_le_bytes());
        p.extend_from_slice(&(seg.unit as u32).to_le_bytes());
        p.extend_from_slice(&seg.seed.to_le_bytes());
        p.extend_from_slice(&(seg.targets.len() as u32).to_le_bytes());
        for (t, id) in seg.targets.iter().zip(&ids) {
            p.extend_from_slice(&id.to_le_bytes());
            p.extend_from_slice(&t.run_index.to_le_bytes());
            p.extend_from_slice(&t.map.start().to_le_bytes());
            p.extend_from_slice(&(t.map.len() as u64).to_le_bytes());
            p.extend_from_slice(&(t.path.len() as u32).to_le_bytes());
            p.extend_from_slice(t.path.as_bytes());
            let runs = runs(t.map.generations());
            p.extend_from_slice(&(runs.len() as u64).to_le_bytes());
            for (g, n) in runs {
                p.push(g);
                p.extend_from_slice(&n.to_le_bytes());
            }
        }
        let mut frame = vec![0u8; FRAME_HEADER];
        frame.extend_from_slice(&p);
        seal(&mut frame, SEGMENT);
        self.append(&frame)?;
        Ok(ids)
    }

    /// One append: a single write(2), durable when it returns (O_DSYNC).
    fn append(&self, bytes: &[u8]) -> io::Result<()> {
        let n = (&self.file).write(bytes)?;
        if n != bytes.len() {
            return Err(io::Error::new(
                io::ErrorKind::WriteZero,
                format!("{} of {} bytes appended (is its filesystem full?)", n, bytes.len()),
            ));
        }
        Ok(())
    }
}

/// `gens` as runs of one value: (value, count).
fn runs(gens: &[u8]) -> Vec<(u8, u64)> {
    let mut out: Vec<(u8, u64)> = Vec::new();
    for &g in gens {
        match out.last_mut() {
            Some((v, n)) if *v == g => *n += 1,
            _ => out.push((g, 1)),
        }
    }
    out
}

/// Fill in the header of `frame` (its first [`FRAME_HEADER`] bytes) for the payload after it.
pub(super) fn seal(frame: &mut [u8], kind: u32) {
    let (head, payload) = frame.split_at_mut(FRAME_HEADER);
    head[0..4].copy_from_slice(&FRAME_MAGIC.to_le_bytes());
    head[4..8].copy_from_slice(&kind.to_le_bytes());
    head[8..16].copy_from_slice(&(payload.len() as u64).to_le_bytes());
    head[16..20].copy_from_slice(&crc32c::crc32c(payload).to_le_bytes());
    let crc = crc32c::crc32c(&head[..20]);
    head[20..24].copy_from_slice(&crc.to_le_bytes());
}

/// A frame of records being gathered by one job: a buffer sized at the start for its queue depth.
struct Batch {
    buf: Vec<u8>,
}

impl Batch {
    fn new(records: usize) -> Batch {
        let mut buf = Vec::with_capacity(FRAME_HEADER + records * RECORD);
        buf.resize(FRAME_HEADER, 0);
        Batch { buf }
    }

    #[inline]
    fn push(&mut self, op: Op, generation: u8, target: u32, offset: u64, len: u64) {
        let mut r = [0u8; RECORD];
        r[0] = op as u8;
        r[1] = generation;
        r[4..8].copy_from_slice(&target.to_le_bytes());
        r[8..16].copy_from_slice(&offset.to_le_bytes());
        r[16..24].copy_from_slice(&len.to_le_bytes());
        self.buf.extend_from_slice(&r);
    }

    /// Append the records gathered (if any) to `journal` in one write, and start over.
    fn flush(&mut self, journal: &Journal) -> io::Result<()> {
        if self.buf.len() == FRAME_HEADER {
            return Ok(());
        }
        seal(&mut self.buf, RECORDS);
        let r = journal.append(&self.buf);
        self.buf.truncate(FRAME_HEADER);
        r
    }
}

/// One job's side of the journal: its target's journal id, its slice, and two record buffers
/// (the intents of the batch being built, the acks of the reap pass under way).
pub struct JobJournal {
    journal: Arc<Journal>,
    target: u32,
    slice: (u64, u64),
    intents: Batch,
    acks: Batch,
}

impl JobJournal {
    /// The journal of a job on target `target` (its journal id) owning `[slice_start, +slice_len)`,
    /// with at most `qd` I/Os per batch and per reap pass.
    pub fn new(journal: Arc<Journal>, target: u32, slice_start: u64, slice_len: u64, qd: usize) -> JobJournal {
        JobJournal {
            journal,
            target,
            slice: (slice_start, slice_len),
            intents: Batch::new(qd + 1),
            acks: Batch::new(qd + 1),
        }
    }

    /// A write of `len` bytes at `offset` whose first unit has generation `generation` joins the
    /// batch.
    #[inline]
    pub fn intent(&mut self, offset: u64, len: u64, generation: u8) {
        self.intents.push(Op::Intent, generation, self.target, offset, len);
    }

    /// A write completed: whole (`ok`) or not.
    #[inline]
    pub fn completed(&mut self, offset: u64, len: u64, ok: bool) {
        let op = if ok { Op::Ack } else { Op::Failed };
        self.acks.push(op, 0, self.target, offset, len);
    }

    /// Before the batch is submitted: its intents, durably.
    pub fn flush_intents(&mut self) -> io::Result<()> {
        self.intents.flush(&self.journal)
    }

    /// After a reap pass: its acks and failures.
    pub fn flush_acks(&mut self) -> io::Result<()> {
        self.acks.flush(&self.journal)
    }

    /// An fsync of the target completed with nothing of this job in flight: every write it
    /// acknowledged is durable.
    pub fn durable(&mut self) -> io::Result<()> {
        self.acks.flush(&self.journal)?;
        let (start, len) = self.slice;
        self.acks.push(Op::Durable, 0, self.target, start, len);
        self.acks.flush(&self.journal)
    }
}
