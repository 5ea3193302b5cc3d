//! Reading a crash journal back: every unit's newest write issued, acknowledged and known
//! durable, replayed record by record from the map each target started with (see `journal.rs`).
//!
//! Per unit the replay keeps four bytes: the generation last made durable, last acknowledged and
//! last issued, and how many writes were issued since the durable one (so any generation on the
//! chain from the durable one to the newest is a write that may have landed). Replaying a
//! journal costs 4 bytes per unit of each target: 1 GiB per TiB at 4 KiB units.
//!
//! The replay checks the journal against itself: each intent's generation must be the one the
//! replay gives its first unit, every record must fall inside its target. A frame that is torn
//! or cut short ends the journal (the crash hit its last append); its bytes are counted.
//!
//! A journal is input like any other (it may be damaged or tampered with): it is read only from
//! a regular file ([`crate::input`]), a frame's declared length is checked against the bytes
//! left before its payload is allocated (longer: a torn tail), and each target's declared unit
//! count against the target's size (`size_of`) before its four bytes per unit are.
//!
//! What is wrong with a journal is a [`JournalError`]: its words are defined once, there, and a
//! caller can tell one kind from another without reading them.

use std::io::{self, BufReader, Read};
use std::path::Path;

use super::journal::{Op, FILE_MAGIC, FRAME_HEADER, FRAME_MAGIC, RECORD, RECORDS, SEGMENT};
use super::map::{next, UNKNOWN};

/// The newest writes of each unit of one target.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Units {
    /// The generation last known durable (0: none; [`UNKNOWN`]: its last write failed).
    pub durable: Vec<u8>,
    /// The generation last acknowledged.
    pub acked: Vec<u8>,
    /// The generation last issued (submitted, or about to be).
    pub issued: Vec<u8>,
    /// Writes issued since the durable one (255: that many or more: any generation may be there).
    pub since: Vec<u8>,
}

impl Units {
    fn new(snapshot: Vec<u8>) -> Units {
        let n = snapshot.len();
        // Written before the journal began: nothing is known durable, anything may be there.
        let since = snapshot.iter().map(|&g| if g == 0 { 0 } else { 255 }).collect();
        Units { durable: vec![0; n], acked: snapshot.clone(), issued: snapshot, since }
    }

    pub fn len(&self) -> usize {
        self.issued.len()
    }

    pub fn is_empty(&self) -> bool {
        self.issued.is_empty()
    }
}

/// One target of a journal, replayed.
#[derive(Clone, Debug)]
pub struct JournalTarget {
    pub path: String,
    /// The `target` its units' headers carry.
    pub run_index: u32,
    pub seed: u64,
    pub zero_pct: u8,
    pub unit: u64,
    /// Where its map starts (byte offset of unit 0).
    pub start: u64,
    /// Its last segment wrote with O_DSYNC (acks were durable).
    durable_acks: bool,
    pub units: Units,
}

/// A journal, replayed.
#[derive(Clone, Debug, Default)]
pub struct Replayed {
    pub targets: Vec<JournalTarget>,
    /// Verifying runs journaled.
    pub segments: u64,
    pub records: u64,
    /// Bytes at the end that are not a whole, intact frame (the crash cut the last append).
    pub ignored_tail_bytes: u64,
    /// Units whose map at the start of a later run differed from the replay (0 unless the
    /// journal is not the whole story of its targets).
    pub snapshot_differences: u64,
}

/// The size in bytes of the `id`th target of a journal, recorded as `path`: what its units are
/// checked against before they are allocated (or why it cannot be known).
pub type SizeOf<'a> = &'a mut dyn FnMut(usize, &str) -> Result<u64, crate::Error>;

/// Why a journal cannot be replayed. A journal is input that may be damaged or tampered with, so
/// each way it can be wrong is a kind of its own (carrying the byte, the unit, the target's path)
/// and the words a user reads are written once, here; [`replay_file`] puts them in a
/// [`crate::Error::Invalid`] naming the journal.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("too short to be a drivelab journal")]
    TooShort,
    #[error("not a drivelab journal (wrong magic)")]
    WrongMagic,
    #[error("frame of unknown kind {kind} at byte {at}")]
    UnknownFrame { kind: u32, at: u64 },
    /// `inner` is what is wrong with the segment frame at byte `at`.
    #[error("segment at byte {at}: {inner}")]
    Segment { at: u64, inner: Box<JournalError> },
    /// `inner` is what is wrong with the records frame at byte `at`.
    #[error("records at byte {at}: {inner}")]
    Records { at: u64, inner: Box<JournalError> },
    /// The journal could not be read.
    #[error("reading: {0}")]
    Read(#[source] io::Error),
    /// A frame's payload ends before what it declares.
    #[error("cut short")]
    CutShort,
    #[error("a unit of {unit} bytes; drivelab journals units of 512 to 4096 bytes")]
    Unit { unit: u64 },
    #[error("target id {id} out of order")]
    TargetOutOfOrder { id: usize },
    /// The target's size could not be known (`size_of`'s error, as it was).
    #[error(transparent)]
    Size(crate::Error),
    #[error("{path}: its map starts at byte {start}, not on a {unit}-byte unit")]
    Misaligned { path: String, start: u64, unit: u64 },
    /// The map reaches past the end of the target (`end`: None past byte 2^64).
    #[error(
        "{path}: its map covers {units} units of {unit} bytes from byte {start} {}: past the end of the target \
         ({size} bytes); give the target it journaled",
        end.map_or("beyond byte 2^64".to_string(), |e| format!("to byte {e}"))
    )]
    PastTarget { path: String, units: u64, unit: u64, start: u64, end: Option<u64>, size: u64 },
    #[error("{path}: {units} units is too many to replay")]
    TooManyUnits { path: String, units: u64 },
    #[error("{path}: the map runs past its {units} units")]
    MapPastUnits { path: String, units: usize },
    #[error("{path}: the map has {has} of its {units} units")]
    MapShort { path: String, has: usize, units: usize },
    #[error("{len} bytes is not a whole number of records")]
    NotWholeRecords { len: usize },
    #[error("record of unknown kind {kind}")]
    UnknownRecord { kind: u8 },
    #[error("record for unknown target {target}")]
    UnknownTarget { target: usize },
    #[error("{path}: a record for {len} bytes at offset {offset} is outside its units")]
    OutsideUnits { path: String, len: u64, offset: u64 },
    /// An intent's generation is not the one the replay gives its first unit.
    #[error(
        "{path}: the write at offset {offset} is journaled as generation {journaled}, the replay makes it \
         {replayed}: the journal does not agree with itself"
    )]
    Disagrees { path: String, offset: u64, journaled: u8, replayed: u8 },
}

/// Replay the journal at `path` (a regular file; see the module docs).
pub fn replay_file(path: &Path, size_of: SizeOf) -> Result<Replayed, crate::Error> {
    let (f, len) = crate::input::Input::JOURNAL.open(path)?;
    replay(BufReader::with_capacity(1 << 20, f.take(len)), len, size_of)
        .map_err(|e| crate::Error::invalid(format!("journal {}: {e}", path.display())))
}

/// Replay a journal of `len` bytes from `r`.
pub fn replay(mut r: impl Read, len: u64, size_of: SizeOf) -> Result<Replayed, JournalError> {
    let mut magic = [0u8; 16];
    r.read_exact(&mut magic).map_err(|_| JournalError::TooShort)?;
    if &magic != FILE_MAGIC {
        return Err(JournalError::WrongMagic);
    }
    let mut out = Replayed::default();
    let mut at = 16u64;
    let mut payload = Vec::new();
    while let Some(kind) = next_frame(&mut r, &mut payload, len.saturating_sub(at))? {
        match kind {
            SEGMENT => {
                out.segment(&payload, &mut *size_of).map_err(|e| JournalError::Segment { at, inner: Box::new(e) })?
            }
            RECORDS => out.records(&payload).map_err(|e| JournalError::Records { at, inner: Box::new(e) })?,
            kind => return Err(JournalError::UnknownFrame { kind, at }),
        }
        at += (FRAME_HEADER + payload.len()) as u64;
    }
    out.ignored_tail_bytes = len.saturating_sub(at);
    Ok(out)
}

/// The next whole, intact frame's kind (its payload in `payload`); None at the end or at a torn
/// frame (one longer than the `left` bytes there are is one: nothing is allocated for it).
fn next_frame(r: &mut impl Read, payload: &mut Vec<u8>, left: u64) -> Result<Option<u32>, JournalError> {
    let mut h = [0u8; FRAME_HEADER];
    if read_full(r, &mut h)? < FRAME_HEADER {
        return Ok(None);
    }
    let word = |i: usize| u32::from_le_bytes(h[i..i + 4].try_into().unwrap());
    if word(0) != FRAME_MAGIC || word(20) != crc32c::crc32c(&h[..20]) {
        return Ok(None);
    }
    let len = u64::from_le_bytes(h[8..16].try_into().unwrap());
    if len > left.saturating_sub(FRAME_HEADER as u64) {
        return Ok(None);
    }
    let len = len as usize;
    payload.clear();
    payload.resize(len, 0);
    if read_full(r, payload)? < len || crc32c::crc32c(payload) != word(16) {
        return Ok(None);
    }
    Ok(Some(word(4)))
}

/// Read until `buf` is full or the end; the bytes read.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> Result<usize, JournalError> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(JournalError::Read(e)),
        }
    }
    Ok(n)
}

/// A cursor over a payload.
struct Cursor<'a>(&'a [u8]);

impl Cursor<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], JournalError> {
        let (a, b) = self.0.split_at_checked(n).ok_or(JournalError::CutShort)?;
        self.0 = b;
        Ok(a)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N], JournalError> {
        let (a, b) = self.0.split_first_chunk::<N>().ok_or(JournalError::CutShort)?;
        self.0 = b;
        Ok(*a)
    }
    fn u8(&mut self) -> Result<u8, JournalError> {
        Ok(self.array::<1>()?[0])
    }
    fn u32(&mut self) -> Result<u32, JournalError> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    fn u64(&mut self) -> Result<u64, JournalError> {
        Ok(u64::from_le_bytes(self.array()?))
    }
}

impl Replayed {
    fn segment(&mut self, p: &[u8], size_of: SizeOf) -> Result<(), JournalError> {
        let mut c = Cursor(p);
        let durable_acks = c.u8()? != 0;
        let zero_pct = c.u8()?;
        c.take(2)?;
        let unit = c.u32()? as u64;
        if !unit.is_power_of_two() || !(512..=4096).contains(&unit) {
            return Err(JournalError::Unit { unit });
        }
        let seed = c.u64()?;
        for _ in 0..c.u32()? {
            let id = c.u32()? as usize;
            let run_index = c.u32()?;
            let start = c.u64()?;
            let n = c.u64()?;
            let path_len = c.u32()? as usize;
            let path = String::from_utf8_lossy(c.take(path_len)?).into_owned();
            if id > self.targets.len() {
                return Err(JournalError::TargetOutOfOrder { id });
            }
            // Checked before the units are allocated (four bytes each in the replay).
            let size = size_of(id, &path).map_err(JournalError::Size)?;
            let end = n.checked_mul(unit).and_then(|b| start.checked_add(b));
            if !start.is_multiple_of(unit) {
                return Err(JournalError::Misaligned { path, start, unit });
            }
            if end.is_none_or(|end| end > size) {
                return Err(JournalError::PastTarget { path, units: n, unit, start, end, size });
            }
            let Ok(n) = usize::try_from(n) else { return Err(JournalError::TooManyUnits { path, units: n }) };
            let mut snapshot = Vec::with_capacity(n);
            for _ in 0..c.u64()? {
                let g = c.u8()?;
                let count = c.u64()?;
                if count > (n - snapshot.len()) as u64 {
                    return Err(JournalError::MapPastUnits { path, units: n });
                }
                snapshot.resize(snapshot.len() + count as usize, g);
            }
            if snapshot.len() != n {
                return Err(JournalError::MapShort { path, has: snapshot.len(), units: n });
            }
            if id == self.targets.len() {
                let units = Units::new(snapshot);
                self.targets.push(JournalTarget { path, run_index, seed, zero_pct, unit, start, durable_acks, units });
                continue;
            }
            let t = self.targets.get_mut(id).ok_or(JournalError::TargetOutOfOrder { id })?;
            t.durable_acks = durable_acks;
            if (t.run_index, t.seed, t.zero_pct, t.unit, t.start) != (run_index, seed, zero_pct, unit, start)
                || t.units.len() != n
            {
                // Verified from here on in another format (a lab starts such a target over):
                // what it held before is no longer judged.
                *t = JournalTarget {
                    path,
                    run_index,
                    seed,
                    zero_pct,
                    unit,
                    start,
                    durable_acks,
                    units: Units::new(snapshot),
                };
                continue;
            }
            self.snapshot_differences += t.units.issued.iter().zip(&snapshot).filter(|(a, b)| a != b).count() as u64;
        }
        self.segments += 1;
        Ok(())
    }

    fn records(&mut self, p: &[u8]) -> Result<(), JournalError> {
        if !p.len().is_multiple_of(RECORD) {
            return Err(JournalError::NotWholeRecords { len: p.len() });
        }
        for r in p.chunks_exact(RECORD) {
            let op = Op::from_u8(r[0]).ok_or(JournalError::UnknownRecord { kind: r[0] })?;
            let target = u32::from_le_bytes(r[4..8].try_into().unwrap()) as usize;
            let offset = u64::from_le_bytes(r[8..16].try_into().unwrap());
            let len = u64::from_le_bytes(r[16..24].try_into().unwrap());
            let t = self.targets.get_mut(target).ok_or(JournalError::UnknownTarget { target })?;
            t.apply(op, r[1], offset, len)?;
            self.records += 1;
        }
        Ok(())
    }
}

impl JournalTarget {
    /// Replay one record over `[offset, offset + len)`.
    fn apply(&mut self, op: Op, generation: u8, offset: u64, len: u64) -> Result<(), JournalError> {
        let (first, n) = (offset.wrapping_sub(self.start) / self.unit, len / self.unit);
        if offset < self.start
            || !offset.is_multiple_of(self.unit)
            || !len.is_multiple_of(self.unit)
            || first + n > self.units.len() as u64
        {
            return Err(JournalError::OutsideUnits { path: self.path.clone(), len, offset });
        }
        let u = &mut self.units;
        let range = first as usize..(first + n) as usize;
        match op {
            Op::Intent => {
                let g = next(u.issued[range.start]);
                if g != generation {
                    let path = self.path.clone();
                    return Err(JournalError::Disagrees { path, offset, journaled: generation, replayed: g });
                }
                for i in range {
                    u.issued[i] = next(u.issued[i]);
                    u.since[i] = u.since[i].saturating_add(1);
                }
            }
            Op::Ack => {
                for i in range {
                    u.acked[i] = u.issued[i];
                    if self.durable_acks {
                        u.durable[i] = u.issued[i];
                        u.since[i] = 0;
                    }
                }
            }
            Op::Failed => {
                for i in range {
                    (u.durable[i], u.acked[i], u.issued[i], u.since[i]) = (UNKNOWN, UNKNOWN, UNKNOWN, 0);
                }
            }
            Op::Durable => {
                for i in range {
                    u.durable[i] = u.acked[i];
                    u.since[i] = steps(u.acked[i], u.issued[i]);
                }
            }
        }
        Ok(())
    }
}

/// How many writes take a unit from generation `from` to `to` (both on the ring, or 0 / unknown
/// for `from`).
pub fn steps(from: u8, to: u8) -> u8 {
    if from == to {
        return 0;
    }
    if to == 0 || to == UNKNOWN {
        return 255;
    }
    match from {
        0 | UNKNOWN => to,
        f => ((to as u16 + 254 - f as u16) % 254) as u8,
    }
}
