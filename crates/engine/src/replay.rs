//! Replay: the I/Os of a captured workload, issued again on a target — fio's iolog (versions 2
//! and 3, what `write_iolog` writes) or a blktrace capture as `blkparse` prints it — with their
//! original timing or as fast as the queue depth allows.
//!
//! The whole trace is read once before the run into per-file lists (time, op, offset, length),
//! so the job's loop takes the next I/O from a list, as it takes one from the generator: no
//! parsing, allocation or formatting per I/O. Each file (fio) or device (blkparse) of the trace
//! is replayed on one target, in the order they first appear.
//!
//! - fio iolog v2: `fio version 2 iolog`, then `FILE add|open|close`, `FILE read|write|trim
//!   OFFSET LENGTH`, `FILE sync|datasync`, `FILE wait MICROSECONDS` (a delay before the next I/O).
//! - fio iolog v3: `fio version 3 iolog`, each line led by its time in µs since the start.
//! - blkparse's default output: `MAJ,MIN CPU SEQ SECONDS PID ACTION RWBS SECTOR + COUNT [PROC]`;
//!   the `Q` (queued) events are the I/Os the workload asked for; RWBS `D` is a discard (a trim),
//!   `R` a read, `W` a write; flushes and other events are skipped.
//!
//! syncs, datasyncs and flushes are not replayed (counted in [`Trace::skipped`]).
//!
//! A trace is input from anywhere, so it is read as every input is ([`crate::input`]: a
//! regular file of at most 1 GiB) and every number in it is checked as it becomes a time, an
//! offset or a length: a sector × 512, an offset + length or µs × 1000 past 2^64 is refused by
//! `FILE:LINE`, never wrapped (a wrapped sector once replayed a write at byte 0).
//!
//! What is wrong with a trace, or with where it is to be replayed, is a [`TraceError`]: the
//! words a user reads are written once, there, and a caller can match the kind.

use std::collections::HashMap;

use crate::gen::{IoDesc, Op};
use crate::spec::{AccessSpec, BlockSize};

/// The I/Os of one file (or device) of a trace, in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileTrace {
    pub name: String,
    /// Intended time of each I/O, ns from the trace's first I/O.
    pub t_ns: Vec<u64>,
    pub ios: Vec<IoDesc>,
}

impl FileTrace {
    pub fn bytes(&self) -> u64 {
        self.ios.iter().map(|i| i.len as u64).sum()
    }
    pub fn max_len(&self) -> u32 {
        self.ios.iter().map(|i| i.len).max().unwrap_or(0)
    }
    /// The end of the furthest I/O (no I/O of a parsed trace ends past 2^64).
    pub fn extent(&self) -> u64 {
        self.ios.iter().map(|i| i.offset.saturating_add(i.len as u64)).max().unwrap_or(0)
    }

    /// The first I/O that does not fit in a region of `span` bytes (its offsets are from the
    /// region's start): its index and the I/O.
    pub fn first_outside(&self, span: u64) -> Option<(usize, IoDesc)> {
        self.ios
            .iter()
            .position(|i| i.offset.checked_add(i.len as u64).is_none_or(|end| end > span))
            .map(|n| (n, self.ios[n]))
    }
}

/// A trace: its files, and what was read but not replayed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    pub format: &'static str,
    pub files: Vec<FileTrace>,
    /// Syncs, flushes and other events that are not I/Os to replay.
    pub skipped: u64,
    /// While parsing: each file's index in `files`, and the I/Os so far.
    index: HashMap<String, usize>,
    ios: usize,
}

/// Most I/Os one trace may hold (memory: 24 bytes each).
pub const MAX_IOS: usize = 100_000_000;

/// Most files (or devices) one trace may name: each is replayed on a target of its own.
pub const MAX_FILES: usize = 4096;

/// Why a trace cannot be read, or replayed where it was asked to be. Each kind carries what the
/// message names (the line, the number and its limit); a word of the trace is kept as messages
/// show it (cut to 60 characters: a line may be 100 MB). Parse errors read `LINE: what is wrong`
/// ([`Trace::load`] puts the file's name before them); [`Trace::check_fit`]'s name no line.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TraceError {
    #[error("1: no I/O to replay; expected a fio iolog (\"fio version 2 iolog\" or 3) or blkparse's text output")]
    NoIo,
    #[error(
        "{line}: '{name}' is a file past the {} this trace may name (each is replayed on a target of its own); \
         replay a part of the trace",
        MAX_FILES
    )]
    TooManyFiles { line: usize, name: String },
    #[error("{line}: a length of {len} bytes; expected 1 byte to 64 MiB")]
    Length { line: usize, len: u64 },
    #[error("{line}: {len} bytes at offset {offset} end past byte 2^64; no target is that large")]
    PastEnd { line: usize, len: u64, offset: u64 },
    #[error("{line}: more than {} I/Os; replay a part of the trace", MAX_IOS)]
    TooManyIos { line: usize },
    /// `word` is not the number it should be: `what` names it ("an offset", "a sector").
    #[error("{line}: '{word}' is not {what}")]
    NotA { line: usize, word: String, what: &'static str },
    #[error("{line}: {us} µs is past what a time can hold (2^64 ns); give times from 0")]
    TooLate { line: usize, us: u64 },
    #[error("{line}: '{text}'; expected FILE ACTION [OFFSET LENGTH]")]
    Malformed { line: usize, text: String },
    #[error("{line}: wait needs its delay in µs")]
    WaitNeedsDelay { line: usize },
    #[error("{line}: the waits add up past what a time can hold (2^64 ns); give shorter waits")]
    WaitsTooLong { line: usize },
    #[error("{line}: '{action}' is not an iolog action")]
    UnknownAction { line: usize, action: String },
    /// A read, write or trim without its range.
    #[error("{line}: {} needs OFFSET LENGTH", iolog_action(*op))]
    NeedsRange { line: usize, op: Op },
    /// A sector (or sector count) × 512 past 2^64: `what` is which.
    #[error("{line}: {what} {n} × 512 is past byte 2^64; no device is that large")]
    PastByte { line: usize, what: &'static str, n: u64 },
    /// Not one target per file: `names` are the first 8 files' (then "...").
    #[error(
        "the trace has I/Os for {files} file(s) ({}) and the run {targets} target(s): give one target per file, \
         in that order",
        names.join(", ")
    )]
    FileCount { files: usize, names: Vec<String>, targets: usize },
    /// I/O `index` (from 1) of `file` does not fit in the region of `span` bytes from `start` on
    /// `path`; the trace's I/Os reach byte `extent`. `{offset}`/`{span}` are fields the caller renders.
    #[error(
        "I/O {index} of {file} ({} of {} bytes at offset {}) ends at byte {}, past the end of the region of {span} \
         bytes on {path} from byte {start}; the trace's offsets count from {{offset}}: give a larger {{span}}, a \
         lower {{offset}} or a larger target, or a trace that fits (its I/Os reach byte {extent})",
        an_io(io.op),
        io.len,
        io.offset,
        io.offset.saturating_add(io.len as u64)
    )]
    Outside { index: usize, file: String, io: IoDesc, span: u64, path: String, start: u64, extent: u64 },
}

/// An iolog's word for `op`.
fn iolog_action(op: Op) -> &'static str {
    match op {
        Op::Read => "read",
        Op::Write => "write",
        Op::Trim => "trim",
    }
}

/// `op` in a sentence.
fn an_io(op: Op) -> &'static str {
    match op {
        Op::Read => "a read",
        Op::Write => "a write",
        Op::Trim => "a trim",
    }
}

impl Trace {
    /// Read the trace at `path`.
    pub fn load(path: &str) -> Result<Trace, crate::Error> {
        let text = crate::input::Input::TRACE.read_string(std::path::Path::new(path))?;
        Trace::parse(&text).map_err(|e| crate::Error::invalid(format!("{path}:{e}")))
    }

    /// Parse a trace; errors read `LINE: what is wrong`.
    pub fn parse(text: &str) -> Result<Trace, TraceError> {
        let first = text.lines().next().unwrap_or_default().trim();
        let mut t = match first {
            "fio version 2 iolog" => Trace { format: "fio iolog v2", ..Trace::default() },
            "fio version 3 iolog" => Trace { format: "fio iolog v3", ..Trace::default() },
            _ => Trace { format: "blkparse", ..Trace::default() },
        };
        if t.format == "blkparse" {
            t.parse_blkparse(text)?;
        } else {
            t.parse_iolog(text, t.format.ends_with('3'))?;
        }
        if t.files.iter().all(|f| f.ios.is_empty()) {
            return Err(TraceError::NoIo);
        }
        t.files.retain(|f| !f.ios.is_empty());
        t.index = HashMap::new();
        let t0 = t.files.iter().filter_map(|f| f.t_ns.first()).min().copied().unwrap_or(0);
        for f in &mut t.files {
            for x in &mut f.t_ns {
                *x -= t0;
            }
        }
        Ok(t)
    }

    fn file(&mut self, name: &str, line: usize) -> Result<&mut FileTrace, TraceError> {
        let i = match self.index.get(name) {
            Some(&i) => i,
            None if self.files.len() >= MAX_FILES => return Err(TraceError::TooManyFiles { line, name: quote(name) }),
            None => {
                self.files.push(FileTrace { name: name.to_string(), ..FileTrace::default() });
                self.index.insert(name.to_string(), self.files.len() - 1);
                self.files.len() - 1
            }
        };
        Ok(&mut self.files[i])
    }

    fn push(&mut self, file: &str, t_ns: u64, op: Op, offset: u64, len: u64, line: usize) -> Result<(), TraceError> {
        if len == 0 || len > 64 << 20 {
            return Err(TraceError::Length { line, len });
        }
        if offset.checked_add(len).is_none() {
            return Err(TraceError::PastEnd { line, len, offset });
        }
        if self.ios >= MAX_IOS {
            return Err(TraceError::TooManyIos { line });
        }
        self.ios += 1;
        let f = self.file(file, line)?;
        // Times never run backwards within a file (a trace merged from CPUs may: keep order).
        let t = f.t_ns.last().map_or(t_ns, |&last| t_ns.max(last));
        f.t_ns.push(t);
        f.ios.push(IoDesc { op, offset, len: len as u32 });
        Ok(())
    }

    fn parse_iolog(&mut self, text: &str, v3: bool) -> Result<(), TraceError> {
        let mut clock_us = 0u64;
        for (i, raw) in text.lines().enumerate().skip(1) {
            let line = i + 1;
            let words: Vec<&str> = raw.split_whitespace().collect();
            if words.is_empty() {
                continue;
            }
            let num = |w: &str, what: &'static str| {
                w.parse::<u64>().map_err(|_| TraceError::NotA { line, word: quote(w), what })
            };
            let (t_us, rest) =
                if v3 { (Some(num(words[0], "a time in µs")?), &words[1..]) } else { (None, &words[..]) };
            let (file, act) = match rest {
                [f, a, ..] => (*f, *a),
                _ => return Err(TraceError::Malformed { line, text: quote(raw) }),
            };
            if let Some(t) = t_us {
                clock_us = t;
            }
            let op = match act {
                "read" => Op::Read,
                "write" => Op::Write,
                "trim" => Op::Trim,
                "wait" if !v3 => {
                    let us = rest.get(2).ok_or(TraceError::WaitNeedsDelay { line })?;
                    let us = num(us, "a delay in µs")?;
                    clock_us = clock_us.checked_add(us).ok_or(TraceError::WaitsTooLong { line })?;
                    continue;
                }
                "add" | "open" | "close" => {
                    self.file(file, line)?;
                    continue;
                }
                "sync" | "datasync" => {
                    self.skipped += 1;
                    continue;
                }
                other => return Err(TraceError::UnknownAction { line, action: quote(other) }),
            };
            let (Some(off), Some(len)) = (rest.get(2), rest.get(3)) else {
                return Err(TraceError::NeedsRange { line, op });
            };
            let (off, len) = (num(off, "an offset")?, num(len, "a length")?);
            let t_ns = clock_us.checked_mul(1000).ok_or(TraceError::TooLate { line, us: clock_us })?;
            self.push(file, t_ns, op, off, len, line)?;
        }
        Ok(())
    }

    fn parse_blkparse(&mut self, text: &str) -> Result<(), TraceError> {
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let w: Vec<&str> = raw.split_whitespace().collect();
            // DEV CPU SEQ TIME PID ACTION RWBS SECTOR + COUNT ...
            if w.len() < 10 || !w[0].contains(',') || w[8] != "+" {
                if w.len() >= 6 && w[0].contains(',') && w[3].contains('.') {
                    self.skipped += 1; // an event without a sector range (a plug, a flush)
                }
                continue;
            }
            if w[5] != "Q" {
                continue;
            }
            let op = if w[6].contains('D') {
                Op::Trim
            } else if w[6].contains('R') {
                Op::Read
            } else if w[6].contains('W') {
                Op::Write
            } else {
                self.skipped += 1;
                continue;
            };
            let not_a = |word: &str, what: &'static str| TraceError::NotA { line, word: quote(word), what };
            let secs = parse_seconds(w[3]).ok_or_else(|| not_a(w[3], "a time in seconds"))?;
            let sector: u64 = w[7].parse().map_err(|_| not_a(w[7], "a sector"))?;
            let count: u64 = w[9].parse().map_err(|_| not_a(w[9], "a sector count"))?;
            if count == 0 {
                self.skipped += 1; // a flush queued as an empty write
                continue;
            }
            let past = |what: &'static str, n: u64| TraceError::PastByte { line, what, n };
            let offset = sector.checked_mul(512).ok_or_else(|| past("sector", sector))?;
            let len = count.checked_mul(512).ok_or_else(|| past("sector count", count))?;
            self.push(w[0], secs, op, offset, len, line)?;
        }
        Ok(())
    }

    /// Share of reads over every I/O, 0..=100, below 100 whenever anything writes or trims.
    pub fn read_pct(&self) -> u8 {
        let all: usize = self.files.iter().map(|f| f.ios.len()).sum();
        let reads: usize = self.files.iter().flat_map(|f| &f.ios).filter(|i| i.op == Op::Read).count();
        let pct = (reads * 100 / all.max(1)) as u8;
        if reads < all {
            pct.min(99)
        } else {
            100
        }
    }

    /// Average I/Os per second over the trace's length (its first to its last I/O).
    pub fn iops(&self) -> f64 {
        let n: usize = self.files.iter().map(|f| f.ios.len()).sum();
        let end = self.files.iter().filter_map(|f| f.t_ns.last()).max().copied().unwrap_or(0);
        if end == 0 {
            return n as f64;
        }
        n as f64 / (end as f64 / 1e9)
    }
}

/// Where one file of a trace is replayed: a target's region `[start, start + span)` (the
/// trace's offsets count from `start`, as `--offset` and `--span` give it).
#[derive(Clone, Copy, Debug)]
pub struct Region<'a> {
    pub path: &'a str,
    pub start: u64,
    pub span: u64,
    /// The null target: any offset will do.
    pub null: bool,
}

impl Trace {
    /// One region per file of the trace, in order, and every I/O of each file inside its
    /// region; else what does not fit and the fix (`{field}`s are rendered by the caller).
    pub fn check_fit(&self, regions: &[Region]) -> Result<(), TraceError> {
        if self.files.len() != regions.len() {
            let mut names: Vec<String> = self.files.iter().take(8).map(|f| quote(&f.name)).collect();
            if self.files.len() > 8 {
                names.push("...".into());
            }
            return Err(TraceError::FileCount { files: self.files.len(), names, targets: regions.len() });
        }
        for (f, r) in self.files.iter().zip(regions) {
            let Some((n, io)) = f.first_outside(r.span).filter(|_| !r.null) else { continue };
            return Err(TraceError::Outside {
                index: n + 1,
                file: quote(&f.name),
                io,
                span: r.span,
                path: r.path.to_string(),
                start: r.start,
                extent: f.extent(),
            });
        }
        Ok(())
    }
}

/// A trace's refusal as a refusal of `field`: the field names it (`--replay` or `replay`),
/// an I/O error stays one.
pub fn refusal(field: crate::options::Field, e: crate::Error) -> crate::Error {
    match e {
        crate::Error::Invalid(m) => crate::Error::spec(field, "", m),
        other => other,
    }
}

/// A replay's trace read (bounded) and what it does put into the spec: the share of reads of
/// its I/Os and buffers for its longest. Parsing only names the trace (parsing does no I/O); the
/// lab calls this when a run is checked, before anything runs, so what the trace does (writes?)
/// decides what the run may need (`--destroy`) and a bad trace is refused first.
pub fn resolve(spec: &mut AccessSpec) -> Result<(), crate::Error> {
    let Some(r) = &spec.replay else { return Ok(()) };
    let t = Trace::load(&r.path).map_err(|e| refusal(crate::options::Field::Replay, e))?;
    spec.read_pct = t.read_pct();
    fit_buffers(spec, &t.files);
    Ok(())
}

/// A replaying spec's buffers: the trace's longest I/O, on the 512-byte grid every trace's
/// offsets are on (set when the run is checked and again when it runs, whatever `bs` was given).
pub fn fit_buffers<'a>(spec: &mut AccessSpec, files: impl IntoIterator<Item = &'a FileTrace>) {
    let longest = files.into_iter().map(|f| f.max_len()).max().unwrap_or(4096) as u64;
    spec.bs = vec![BlockSize { bytes: longest, pct: 100 }];
    spec.align_bytes = Some(512);
}

/// A word of the trace as a message shows it: at most 60 characters (a line may be 100 MB).
fn quote(w: &str) -> String {
    match w.char_indices().nth(60) {
        None => w.to_string(),
        Some((cut, _)) => format!("{}... ({} bytes)", &w[..cut], w.len()),
    }
}

/// `SECONDS.NANOS` (blkparse's time) in ns, exactly.
fn parse_seconds(s: &str) -> Option<u64> {
    let (a, b) = s.split_once('.')?;
    if b.is_empty() || !b.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let secs: u64 = a.parse().ok()?;
    let digits = &b[..b.len().min(9)];
    let frac: u64 = digits.parse().ok()?;
    secs.checked_mul(1_000_000_000)?.checked_add(frac * 10u64.pow(9 - digits.len() as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fio_iolog_v3_keeps_times_files_and_ops() {
        let t = Trace::parse(
            "fio version 3 iolog\n0 /dev/sdb add\n0 /dev/sdb open\n10 /dev/sdb write 4096 4096\n\
             250 /dev/sdb read 0 8192\n300 /dev/sdb sync 0 0\n1000 /dev/sdb trim 8192 4096\n2000 /dev/sdb close\n",
        )
        .unwrap();
        assert_eq!(t.format, "fio iolog v3");
        assert_eq!(t.files.len(), 1);
        let f = &t.files[0];
        assert_eq!(f.t_ns, [0, 240_000, 990_000], "µs from the first I/O");
        assert_eq!(f.ios[0], IoDesc { op: Op::Write, offset: 4096, len: 4096 });
        assert_eq!(f.ios[2].op, Op::Trim);
        assert_eq!((t.skipped, f.bytes(), f.extent()), (1, 16384, 12288));
        assert_eq!(t.read_pct(), 33);
    }

    #[test]
    fn fio_iolog_v2_times_come_from_its_waits() {
        let t = Trace::parse(
            "fio version 2 iolog\na add\nb add\na open\nb open\na read 0 4096\na wait 500\nb write 512 512\n",
        )
        .unwrap();
        assert_eq!(t.files.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(t.files[1].t_ns, [500_000]);
        assert!(Trace::parse("fio version 2 iolog\na read 0\n").unwrap_err().to_string().starts_with("2: read needs"));
    }

    #[test]
    fn blkparse_queue_events_are_the_ios() {
        let text = "  8,0    1        1     0.000000000  1234  Q   R 2048 + 8 [fio]\n\
                    8,0    1        2     0.000001000  1234  G   R 2048 + 8 [fio]\n\
                    8,0    1        3     0.000500500  1234  Q  WS 4096 + 16 [fio]\n\
                    8,0    1        4     0.001000000  1234  Q   D 0 + 2048 [fstrim]\n\
                    8,0    1        5     0.001500000  1234  Q FWS 0 + 0 [jbd2]\n\
                    8,0    1        6     0.002000000  1234  U   N [fio] 1\n\
                    CPU1 (8,0):\n Reads Queued:           1,        4KiB\n";
        let t = Trace::parse(text).unwrap();
        assert_eq!(t.format, "blkparse");
        let f = &t.files[0];
        assert_eq!(f.name, "8,0");
        assert_eq!(f.ios.len(), 3);
        assert_eq!(f.ios[0], IoDesc { op: Op::Read, offset: 2048 * 512, len: 4096 });
        assert_eq!(f.ios[1], IoDesc { op: Op::Write, offset: 4096 * 512, len: 8192 });
        assert_eq!(f.ios[2], IoDesc { op: Op::Trim, offset: 0, len: 1 << 20 });
        assert_eq!(f.t_ns, [0, 500_500, 1_000_000]);
        assert!(t.skipped >= 2, "the flush and the unplug");
    }

    #[test]
    fn numbers_past_2_64_are_refused_by_line_and_long_words_are_cut_in_messages() {
        let blk = "  7,0  0  1  0.0  42  Q  WS 36028797018963968 + 8 [a]\n";
        let e = Trace::parse(blk).unwrap_err();
        assert_eq!(e, TraceError::PastByte { line: 1, what: "sector", n: 36028797018963968 });
        assert!(e.to_string().starts_with("1: sector 36028797018963968 × 512 is past byte 2^64"), "{e}");
        let wrap = "fio version 3 iolog\n0 /x write 18446744073709547520 8192\n";
        assert!(Trace::parse(wrap).unwrap_err().to_string().starts_with("2: 8192 bytes at offset"));
        let long = format!("fio version 3 iolog\n0 {}\n", "x".repeat(1 << 20));
        let e = Trace::parse(&long).unwrap_err().to_string();
        assert!(e.len() < 200 && e.contains("(1048578 bytes)"), "{e}");
        assert!(parse_seconds("0.12345678é").is_none(), "not a panic on a cut inside a character");
    }

    #[test]
    fn a_trace_that_does_not_fit_its_targets_says_where() {
        let t = Trace::parse("fio version 3 iolog\n0 /a write 4096 8192\n5 /b read 0 512\n").unwrap();
        let region = |path, span| Region { path, start: 1024, span, null: false };
        let e = t.check_fit(&[region("/dev/x", 1 << 20)]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the trace has I/Os for 2 file(s) (/a, /b) and the run 1 target(s): give one target per file, in that \
             order"
        );
        let e = t.check_fit(&[region("/dev/x", 8192), region("/dev/y", 512)]).unwrap_err();
        assert!(matches!(e, TraceError::Outside { index: 1, span: 8192, extent: 12288, .. }), "{e:?}");
        assert_eq!(
            e.to_string(),
            "I/O 1 of /a (a write of 8192 bytes at offset 4096) ends at byte 12288, past the end of the region of 8192 \
             bytes on /dev/x from byte 1024; the trace's offsets count from {offset}: give a larger {span}, a lower \
             {offset} or a larger target, or a trace that fits (its I/Os reach byte 12288)"
        );
        assert!(t.check_fit(&[region("/dev/x", 12288), region("/dev/y", 512)]).is_ok());
    }

    #[test]
    fn what_is_not_a_trace_says_so() {
        assert_eq!(Trace::parse("hello\n").unwrap_err(), TraceError::NoIo);
        assert!(Trace::parse("fio version 3 iolog\nx /f read 0 1\n").unwrap_err().to_string().starts_with("2: 'x'"));
        let e = Trace::parse("fio version 3 iolog\n1 /f read 0 0\n").unwrap_err();
        assert_eq!(e, TraceError::Length { line: 2, len: 0 });
        assert_eq!(e.to_string(), "2: a length of 0 bytes; expected 1 byte to 64 MiB");
    }
}
