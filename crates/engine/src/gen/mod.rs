//! Offset, direction and size generation: what the next I/O is.
//!
//! Iometer's model: every I/O is a read with probability `read_pct` and goes to a random aligned
//! offset with probability `random_pct`; otherwise it continues sequentially where the previous
//! I/O ended (wrapping at the end of the region). fio's `read`/`randread`/... are the corners of
//! that square. Everything is precomputed in `new`; `next` does at most three RNG draws and no
//! division, allocation or floating point.

pub mod prio;
mod randommap;
pub use randommap::MAX_POSITIONS as RANDOM_MAP_MAX_POSITIONS;
mod skew;
#[cfg(test)]
mod skew_tests;
mod sprandom;
mod walk;

use randommap::RandomMap;
use skew::Skew;
use walk::{Turn, Walk};

use crate::spec::{AccessSpec, Trim};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Read,
    Write,
    /// A discard (block device) or a punched hole (file) of the range.
    Trim,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoDesc {
    pub op: Op,
    pub offset: u64,
    pub len: u32,
}

#[derive(Clone, Copy)]
struct SizeChoice {
    len: u32,
    /// Cumulative share bound: choose this size when the draw (0..100) is below it.
    below: u32,
    /// Number of aligned positions where a block of this size fits in the region.
    positions: u64,
    /// The same in a whole strided zone (`spec.zones`).
    zone_positions: u64,
}

pub struct Generator {
    rng: fastrand::Rng,
    read_pct: u32,
    random_pct: u32,
    start: u64,
    end: u64,
    align: u64,
    /// The grid sequential offsets are rounded up to (`AccessSpec::seq_grid`).
    seq_align: u64,
    sizes: [SizeChoice; Generator::MAX_SIZES],
    n_sizes: usize,
    /// Writes' own sizes (`spec.bs_write`); none: writes use `sizes`.
    wsizes: [SizeChoice; Generator::MAX_SIZES],
    n_wsizes: usize,
    next_seq: u64,
    /// Where random I/Os land (`distribution`), over the aligned positions of the smallest size.
    skew: Skew,
    /// Trims instead of reads and writes (`spec.trim`).
    trim: Trim,
    /// fio's trimwrite: the range just trimmed, written next.
    write_after_trim: Option<IoDesc>,
    /// A replay: the trace's I/Os in order, and the next one's index.
    trace: Option<(std::sync::Arc<crate::replay::FileTrace>, usize)>,
    /// fio's `rw=WORD:N`, `rw_sequencer` and strided zones (`walk.rs`).
    walk: Walk,
    /// The largest block size (a strided zone must hold one).
    max_len: u64,
    /// fio's `zonemode=zbd`: the target's emulated zones (`crate::zbd`).
    zbd: Option<crate::zbd::JobZones>,
    /// fio's random map (`spec.random_map`): uniform random I/Os visit each position once per
    /// pass. None: each offset drawn independently.
    map: Option<RandomMap>,
    /// fio's bsrange (`spec.bs_max`): sizes drawn from `sizes[0]` up to this; and the region's
    /// and a zone's length, to place a size drawn so.
    range_max: Option<u64>,
    span: u64,
    zone: u64,
    /// fio's `verify_backlog` (`spec.verify_backlog`, with verify): the blocks written since the
    /// last read-back, read back once there are N.
    backlog: Option<Backlog>,
    /// fio's SPRandom (`spec.sprandom`): writes go where its pass says; None at the pass's end
    /// ends the job.
    spr: Option<Box<sprandom::SpWalk>>,
}

/// The blocks written since the last read-back (fio's `verify_backlog`): sized once, at N.
struct Backlog {
    held: Vec<IoDesc>,
    n: usize,
    /// The next of `held` to read back, once `reading`.
    next: usize,
    reading: bool,
}

impl Backlog {
    fn new(n: u64) -> Backlog {
        let n = n.clamp(1, crate::spec::MAX_VERIFY_BACKLOG) as usize;
        Backlog { held: Vec::with_capacity(n), n, next: 0, reading: false }
    }

    #[inline]
    fn wrote(&mut self, w: IoDesc) {
        self.held.push(IoDesc { op: Op::Read, ..w });
        self.reading = self.held.len() >= self.n;
    }

    #[inline]
    fn read(&mut self) -> Option<IoDesc> {
        if !self.reading {
            return None;
        }
        match self.held.get(self.next) {
            Some(&io) => {
                self.next += 1;
                Some(io)
            }
            None => {
                (self.next, self.reading) = (0, false);
                self.held.clear();
                None
            }
        }
    }
}

impl Generator {
    pub const MAX_SIZES: usize = crate::spec::MAX_BLOCK_SIZES;

    /// A generator for job `job` over `[start, start + span)`; seeded from the spec's seed and the
    /// job number so runs repeat exactly. The spec must have passed [`AccessSpec::validate`]
    /// (which refuses splits of more than [`Self::MAX_SIZES`] sizes; this panics on one rather
    /// than silently dropping sizes).
    pub fn new(spec: &AccessSpec, start: u64, span: u64, job: u64) -> Generator {
        assert!(spec.bs.len() <= Self::MAX_SIZES, "a split of {} block sizes was not validated", spec.bs.len());
        let align = spec.align();
        let zone = spec.zones.map_or(span, |z| z.range().min(span));
        let table = |bs: &[crate::spec::BlockSize]| {
            let mut sizes = [SizeChoice { len: 0, below: 0, positions: 0, zone_positions: 0 }; Self::MAX_SIZES];
            let mut below = 0u32;
            for (i, b) in bs.iter().take(Self::MAX_SIZES).enumerate() {
                below += b.pct as u32;
                let (positions, zone_positions) = ((span - b.bytes) / align + 1, (zone - b.bytes) / align + 1);
                sizes[i] = SizeChoice { len: b.bytes as u32, below, positions, zone_positions };
            }
            sizes
        };
        let sizes = table(&spec.bs);
        let writes = spec.bs_write.as_deref().unwrap_or(&[]);
        assert!(writes.len() <= Self::MAX_SIZES, "a split of {} block sizes was not validated", writes.len());
        let wsizes = table(writes);
        // A repeated point's later rounds draw new offsets (`offset_seed`), never the first's again.
        let seed = spec.offset_seed() ^ job.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let blocks =
            sizes[..spec.bs.len()].iter().chain(&wsizes[..writes.len()]).map(|s| s.positions).max().unwrap_or(1);
        // Every job of a spec places its hot blocks alike (the spec's seed, not the job's).
        let skew = Skew::new(&spec.distribution, blocks, align, spec.seed);
        // As fio's: over uniform random offsets only (a skewed distribution picks its own; a
        // strided zone is its own region), and within a bound (see `randommap::MAX_POSITIONS`).
        let grid = span / align;
        // SPRandom's job has none (fio sets norandommap=1 for it): its pass places the writes.
        let map = (spec.random_map
            && !spec.sprandom.on
            && spec.random_pct > 0
            && spec.distribution.is_uniform()
            && spec.zones.is_none()
            && (1..=randommap::MAX_POSITIONS).contains(&grid))
        .then(|| RandomMap::new(grid));
        Generator {
            rng: fastrand::Rng::with_seed(seed),
            read_pct: spec.read_pct as u32,
            random_pct: spec.random_pct as u32,
            start,
            end: start + span,
            align,
            seq_align: spec.seq_grid(),
            sizes,
            n_sizes: spec.bs.len(),
            wsizes,
            n_wsizes: writes.len(),
            next_seq: start,
            skew,
            trim: spec.trim,
            write_after_trim: None,
            trace: None,
            walk: Walk::new(spec, start),
            max_len: spec.max_bs(),
            zbd: None,
            map,
            range_max: spec.bs_max.filter(|&m| m > spec.bs[0].bytes),
            span,
            zone,
            backlog: (spec.verify && spec.verify_backlog > 0).then(|| Backlog::new(spec.verify_backlog)),
            spr: Self::sprandom(spec, span, seed),
        }
    }

    /// SPRandom's pass over the region. The layout was checked against the target before any
    /// job started (`AccessSpec::check_against`); one that fails here anyway writes nothing.
    fn sprandom(spec: &AccessSpec, span: u64, seed: u64) -> Option<Box<sprandom::SpWalk>> {
        let s = &spec.sprandom;
        if !s.on {
            return None;
        }
        let layout = s.layout("", span, spec.write_bs()).unwrap_or_else(|_| crate::spec::sprandom::Layout {
            blocks: 0,
            physical_bytes: 0,
            region_writes: 0,
            invalid: vec![0],
            staged_capacity: 0,
        });
        Some(Box::new(sprandom::SpWalk::new(&layout, s.cache_bytes > 0, seed)))
    }

    /// The next block to read back and check (fio's `verify_backlog`), before any new I/O; None
    /// while fewer than N written blocks are held (or no backlog is kept).
    #[inline]
    pub fn backlog_read(&mut self) -> Option<IoDesc> {
        self.backlog.as_mut().and_then(Backlog::read)
    }

    /// The job's bytes are done: read back what is held, however few. Whether reads remain.
    pub fn backlog_flush(&mut self) -> bool {
        match self.backlog.as_mut() {
            Some(b) => {
                b.reading |= !b.held.is_empty();
                b.reading && b.next < b.held.len()
            }
            None => false,
        }
    }

    /// Place writes at the write pointers of `zones` and reads below them (fio's
    /// `zonemode=zbd`); the generator may then end ([`Self::try_next_io`]).
    pub fn with_zones(mut self, zones: Option<crate::zbd::JobZones>) -> Generator {
        self.zbd = zones;
        self
    }

    /// Take the I/Os of `trace` in order instead of generating them (a replay).
    pub fn with_trace(mut self, trace: Option<std::sync::Arc<crate::replay::FileTrace>>) -> Generator {
        self.trace = trace.filter(|t| !t.ios.is_empty()).map(|t| (t, 0));
        self
    }

    #[inline]
    fn draw_pct(&mut self, pct: u32) -> bool {
        match pct {
            0 => false,
            100 => true,
            p => self.rng.u32(0..100) < p,
        }
    }

    /// The smallest block the job moves.
    fn min_len(&self) -> u64 {
        let sizes = self.sizes[..self.n_sizes].iter().chain(&self.wsizes[..self.n_wsizes]);
        sizes.map(|s| s.len as u64).min().unwrap_or(u64::MAX).max(1)
    }

    /// The next I/O (a generator without zbd zones always has one).
    #[inline]
    pub fn next_io(&mut self) -> IoDesc {
        self.try_next_io().expect("only a generator with zbd zones or SPRandom ends")
    }

    /// The next I/O; None when there is none (fio's `zonemode=zbd` with nothing left to read).
    #[inline]
    pub fn try_next_io(&mut self) -> Option<IoDesc> {
        if let Some(w) = self.write_after_trim.take() {
            if let Some(b) = self.backlog.as_mut() {
                b.wrote(w);
            }
            return Some(w);
        }
        if let Some((t, i)) = self.trace.as_mut() {
            let io = t.ios[*i];
            *i = if *i + 1 == t.ios.len() { 0 } else { *i + 1 };
            return Some(io);
        }
        // One draw for the size whichever table it picks from (none when neither has a choice),
        // before the direction's: a spec without writes' own sizes draws as it always did.
        let d = if self.n_sizes > 1 || self.n_wsizes > 1 { self.rng.u32(0..100) } else { 0 };
        let op = match self.trim {
            Trim::None => {
                if self.draw_pct(self.read_pct) {
                    Op::Read
                } else {
                    Op::Write
                }
            }
            Trim::Only | Trim::ThenWrite => Op::Trim,
        };
        let op = self.zbd.as_ref().map_or(op, |z| z.direction(op));
        let (table, n) = if op == Op::Write && self.n_wsizes > 0 {
            (&self.wsizes, self.n_wsizes)
        } else {
            (&self.sizes, self.n_sizes)
        };
        let mut i = 0;
        while i + 1 < n && d >= table[i].below {
            i += 1;
        }
        let mut size = table[i];
        if let Some(max) = self.range_max {
            // fio 3.33's bsrange: MIN plus a uniform share of MAX, rounded down to a multiple
            // of MIN, at most MAX.
            let min = size.len as u64;
            let mut len = min + self.rng.u64(0..max);
            len -= len % min;
            let len = len.min(max);
            size = SizeChoice {
                len: len as u32,
                below: 100,
                positions: (self.span - len) / self.align + 1,
                zone_positions: (self.zone - len.min(self.zone)) / self.align + 1,
            };
        }
        let len = size.len as u64;
        if let (Some(w), Op::Write) = (self.spr.as_mut(), op) {
            let io = IoDesc { op, offset: self.start + w.next()? * len, len: len as u32 };
            if let Some(b) = self.backlog.as_mut() {
                b.wrote(io);
            }
            return Some(io);
        }
        let (lo, hi) = match self.walk.zone.as_mut() {
            None => (self.start, self.end),
            Some(z) => z.enter(self.start, self.end, self.max_len, &mut self.next_seq),
        };
        let mut len = len;
        let offset = match self.walk.turn() {
            Turn::MayBeRandom if self.draw_pct(self.random_pct) => {
                let (offset, cut) = self.random_offset(op, size, lo, hi);
                len = cut.unwrap_or(len);
                offset
            }
            Turn::Repeat if self.walk.last >= lo && self.walk.last + len <= hi => self.walk.last,
            Turn::Repeat => lo,
            turn => match walk::seq_offset(self.next_seq, len, lo, hi, self.walk.skip) {
                Some(o) => o,
                // fio's randread:N seeks where the run reaches the end; plain sequential wraps.
                None if turn == Turn::Sequential => self.random_offset(op, size, lo, hi).0,
                // The room left before the end holds a smaller block of the job's sizes: the
                // block is cut to it, as fio shortens a transfer to fit (bsrange, bssplit).
                None if self.walk.skip == 0
                    && self.next_seq >= lo
                    && hi.saturating_sub(self.next_seq) >= self.min_len() =>
                {
                    len = (hi - self.next_seq) / self.align * self.align;
                    self.next_seq
                }
                None => lo,
            },
        };
        let (offset, len, after) = match self.zbd.as_mut() {
            None => (offset, len, offset + len),
            Some(z) => {
                let (o, n) = z.adjust(op, offset, len)?;
                (o, n, z.next_seq(op, o, n))
            }
        };
        self.walk.last = offset;
        if let Some(z) = self.walk.zone.as_mut() {
            z.done += len;
        }
        // Continue after this I/O, on the alignment grid.
        let rem = (after - self.start) % self.seq_align;
        self.next_seq = if rem == 0 { after } else { after + (self.seq_align - rem) };
        if self.trim == Trim::ThenWrite {
            self.write_after_trim = Some(IoDesc { op: Op::Write, offset, len: len as u32 });
        }
        let io = IoDesc { op, offset, len: len as u32 };
        if let (Some(b), Op::Write) = (self.backlog.as_mut(), op) {
            b.wrote(io);
        }
        Some(io)
    }

    /// A random aligned offset for a block of `size` in `[lo, hi)`: the region's (under
    /// `spec.distribution`) or a strided zone's (uniform); with the random map, the block's
    /// length when the map cut it short at a visited block (fio shortens it to the gap).
    #[inline]
    fn random_offset(&mut self, op: Op, size: SizeChoice, lo: u64, hi: u64) -> (u64, Option<u64>) {
        if self.walk.zone.is_some() {
            let positions = if lo + self.walk.zone.as_ref().map_or(0, |z| z.range) <= hi {
                size.zone_positions
            } else {
                // The region's last zone, cut short by its end.
                (hi - lo - size.len as u64) / self.align + 1
            };
            return (lo + self.rng.u64(0..positions) * self.align, None);
        }
        let (block, cut) = match self.skew.block(&mut self.rng, op == Op::Write) {
            // A block of the smallest size's grid where this size does not fit: wrap.
            Some(mut b) => {
                while b >= size.positions {
                    b -= size.positions;
                }
                (b, None)
            }
            None => {
                let mut drawn = self.rng.u64(0..size.positions);
                match self.map.as_mut() {
                    None => (drawn, None),
                    Some(m) => {
                        let want = (size.len as u64).div_ceil(self.align);
                        // A block of one position: a visited one is drawn again up to three times
                        // before the next free one is taken. fio takes it at once, which late in a
                        // pass sets I/Os side by side (9 of 256 on average, where independent
                        // draws give 1; fio's t0020 refuses more than 10); with the redraws, 2.
                        // A larger block keeps fio's way exactly: where it lands decides how
                        // often it is cut short, so transfer sizes stay fio's.
                        let mut redraws = if want == 1 { 3 } else { 0 };
                        while redraws > 0 && !m.is_free(drawn) {
                            drawn = self.rng.u64(0..size.positions);
                            redraws -= 1;
                        }
                        // The next free position anywhere in the region, as fio's axmap finds
                        // it: a block there that would pass the region's end is cut at it (fio
                        // shortens the transfer to fit), so a pass visits the last positions too.
                        let all = m.positions();
                        let (b, n) = m.take(drawn, all, want);
                        (b, (n < want).then(|| n * self.align))
                    }
                }
            }
        };
        (self.start + block * self.align, cut)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::BlockSize;

    /// The I/O a queue takes next: a block to read back first (verify_backlog), else a new one.
    fn take(g: &mut Generator) -> IoDesc {
        g.backlog_read().unwrap_or_else(|| g.next_io())
    }

    /// fio's t0023/t0024: blocks of 512 B to 4 KiB (bsrange) over 1 MiB, randomly with the map or
    /// in order, cover every 512-byte unit in one pass of 1 MiB: a block that would pass the end
    /// is cut at it (as fio shortens a transfer to fit), never left out.
    #[test]
    fn a_pass_of_mixed_sizes_covers_the_region_to_its_last_unit() {
        for random in [100, 0] {
            let s = AccessSpec { bs_max: Some(4096), random_map: true, ..spec(0, random, &[(512, 100)], None) };
            let mut g = Generator::new(&s, 0, 1 << 20, 0);
            let (mut covered, mut bytes) = (vec![false; 2048], 0u64);
            while bytes < 1 << 20 {
                let io = g.next_io();
                assert!(io.offset + io.len as u64 <= 1 << 20, "{io:?} inside the region");
                for u in io.offset / 512..(io.offset + io.len as u64) / 512 {
                    assert!(!covered[u as usize] || random == 0, "unit {u} twice in one pass");
                    covered[u as usize] = true;
                }
                bytes += io.len as u64;
            }
            assert_eq!(bytes, 1 << 20, "random {random}%: the pass is the region's bytes");
            assert!(covered.iter().all(|&c| c), "random {random}%: every unit, the last too");
        }
    }

    #[test]
    fn a_backlog_reads_back_every_n_blocks_written_in_order_and_the_rest_when_flushed() {
        let s = AccessSpec {
            read_pct: 30,
            random_pct: 100,
            verify: true,
            verify_backlog: 4,
            ..spec(30, 100, &[(4096, 100)], None)
        };
        let mut g = Generator::new(&s, 0, 1 << 20, 0);
        let mut held: Vec<u64> = Vec::new();
        let mut read_back = 0;
        for _ in 0..10_000 {
            let io = take(&mut g);
            if io.op == Op::Write {
                held.push(io.offset);
            }
            if held.len() == 4 {
                // Nothing else is issued until the four blocks written since the last read-back
                // are read back, in the order written (the next four I/Os).
                let back: Vec<(Op, u64)> = (0..4).map(|_| take(&mut g)).map(|io| (io.op, io.offset)).collect();
                assert_eq!(back, held.iter().map(|&o| (Op::Read, o)).collect::<Vec<_>>());
                (read_back, held) = (read_back + 4, Vec::new());
            }
        }
        assert!(read_back > 2000, "about 70% of 10k I/Os are writes, each read back: {read_back}");
        // The bytes done: what is held is read back, however few, and then nothing.
        while held.len() != 2 {
            let io = take(&mut g);
            if io.op == Op::Write {
                held.push(io.offset);
            }
        }
        assert!(g.backlog_flush());
        let rest: Vec<u64> = (0..2).map(|_| g.backlog_read().unwrap().offset).collect();
        assert_eq!(rest, held);
        assert!(!g.backlog_flush(), "nothing is left to read back");
        // Without verify no backlog is kept.
        let mut plain =
            Generator::new(&AccessSpec { verify_backlog: 4, ..spec(0, 0, &[(4096, 100)], None) }, 0, 1 << 20, 0);
        assert!((0..100).all(|_| plain.backlog_read().is_none() && plain.next_io().op == Op::Write));
    }

    fn spec(read: u8, random: u8, bs: &[(u64, u8)], align: Option<u64>) -> AccessSpec {
        AccessSpec {
            read_pct: read,
            random_pct: random,
            bs: bs.iter().map(|&(bytes, pct)| BlockSize { bytes, pct }).collect(),
            align_bytes: align,
            ..Default::default()
        }
    }

    /// Shares of reads, random I/Os and sizes over 100k I/Os; every offset aligned and inside.
    fn check(read: u8, random: u8, bs: &[(u64, u8)], align: Option<u64>, start: u64, span: u64) {
        let s = spec(read, random, bs, align);
        let mut g = Generator::new(&s, start, span, 3);
        let n = 100_000;
        let (mut reads, mut seq_continues) = (0u64, 0u64);
        let mut size_counts = vec![0u64; bs.len()];
        let mut prev_end: Option<u64> = None;
        let a = s.align();
        for _ in 0..n {
            let io = g.next_io();
            assert_eq!((io.offset - start) % a, 0, "offset {} not aligned to {a}", io.offset);
            assert!(io.offset >= start && io.offset + io.len as u64 <= start + span, "{io:?} outside region");
            if io.op == Op::Read {
                reads += 1;
            }
            if prev_end == Some(io.offset) {
                seq_continues += 1;
            }
            let e = io.offset + io.len as u64;
            prev_end = Some(if (e - start).is_multiple_of(a) { e } else { e + a - (e - start) % a });
            size_counts[bs.iter().position(|&(b, _)| b == io.len as u64).unwrap()] += 1;
        }
        let tol = 0.01 * n as f64; // +-1 percentage point
        assert!((reads as f64 - read as f64 / 100.0 * n as f64).abs() <= tol, "reads {reads} for {read}%");
        // Sequential I/Os continue the previous one (wrapping aside); random ones almost never do.
        let seq_expected = (100 - random as u64) as f64 / 100.0 * n as f64;
        assert!(
            (seq_continues as f64 - seq_expected).abs() <= tol + n as f64 * 0.002,
            "seq {seq_continues} for {random}% random"
        );
        for (i, &(_, pct)) in bs.iter().enumerate() {
            assert!((size_counts[i] as f64 - pct as f64 / 100.0 * n as f64).abs() <= tol, "size share {i}");
        }
    }

    #[test]
    fn trims_and_fios_trimwrite_write_what_was_just_trimmed() {
        let mut s = spec(0, 100, &[(4096, 100)], None);
        s.set_rw("randtrim").unwrap();
        let mut g = Generator::new(&s, 0, 1 << 30, 0);
        assert!((0..1000).all(|_| g.next_io().op == Op::Trim));
        s.set_rw("trimwrite").unwrap();
        let mut g = Generator::new(&s, 0, 1 << 20, 0);
        for k in 0..600u64 {
            let (t, w) = (g.next_io(), g.next_io());
            assert_eq!((t.op, w.op), (Op::Trim, Op::Write));
            assert_eq!((t.offset, t.len), (w.offset, w.len), "the same range, trimmed then written");
            assert_eq!(t.offset, (k * 4096) % (1 << 20), "sequential, wrapping");
        }
    }

    #[test]
    fn the_random_map_visits_every_block_once_per_pass() {
        for (bs, align, span) in [(4096u64, None, 1000 * 4096u64), (8192, None, 1 << 20), (4096, None, 4096)] {
            let mut s = spec(0, 100, &[(bs, 100)], align);
            s.random_map = true;
            let mut g = Generator::new(&s, 1 << 20, span, 0);
            let step = align.unwrap_or(bs);
            let passes = span / bs;
            for pass in 0..3 {
                let mut seen = std::collections::HashSet::new();
                for _ in 0..passes {
                    let io = g.next_io();
                    assert!(io.offset + io.len as u64 <= (1 << 20) + span && (io.offset - (1 << 20)) % step == 0);
                    assert!(seen.insert(io.offset), "bs {bs}: {} twice in pass {pass}", io.offset);
                }
            }
            // Without the map: drawn independently, so some block comes twice in a pass.
            s.random_map = false;
            let mut g = Generator::new(&s, 0, 1000 * 4096, 0);
            let offsets: std::collections::HashSet<u64> = (0..1000).map(|_| g.next_io().offset).collect();
            assert!(offsets.len() < 1000);
        }
    }

    /// Late in a pass most draws hit visited blocks; the map's answer must not turn the rest of
    /// the pass sequential (fio's t0020: at most 10 of 256 I/Os right after the one before).
    #[test]
    fn a_random_map_pass_stays_random_to_its_end() {
        for seed in 0..50u64 {
            let mut s = spec(100, 100, &[(4096, 100)], None);
            (s.random_map, s.seed) = (true, seed);
            let mut g = Generator::new(&s, 0, 256 * 4096, 0);
            let offsets: Vec<u64> = (0..256).map(|_| g.next_io().offset).collect();
            let side_by_side = offsets.windows(2).filter(|w| w[1] == w[0] + 4096).count();
            assert!(side_by_side <= 10, "seed {seed}: {side_by_side} of 256 follow the one before");
        }
    }

    #[test]
    fn shares_and_alignment_hold_over_100k_ios() {
        check(100, 100, &[(4096, 100)], None, 0, 1 << 30);
        check(70, 100, &[(4096, 100)], None, 4096, 8 << 30);
        check(50, 5, &[(65536, 100)], None, 0, 1 << 30); // Iometer "95% sequential"
        check(0, 0, &[(131072, 100)], None, 1 << 20, 64 << 20);
        check(30, 50, &[(4096, 70), (65536, 30)], None, 0, 1 << 30);
        check(0, 100, &[(4096, 100)], Some(512), 0, 8 << 30); // 512-byte aligned 4k writes
        check(100, 100, &[(1536, 100)], Some(512), 0, 1 << 24);
    }

    #[test]
    fn every_size_the_validation_accepts_is_generated() {
        // 16 sizes (the most a split may have), 6% or 7% each: all of them show up.
        let bs: Vec<(u64, u8)> = (0..16u64).map(|i| (512 * (i + 1), if i < 4 { 7 } else { 6 })).collect();
        let s = spec(100, 100, &bs, Some(512));
        s.validate().unwrap();
        check(100, 100, &bs, Some(512), 0, 1 << 30);
    }

    #[test]
    #[should_panic(expected = "not validated")]
    fn a_split_the_validation_refuses_is_not_silently_truncated() {
        let bs: Vec<(u64, u8)> = (0..17u64).map(|i| (512 * (i + 1), if i < 15 { 6 } else { 5 })).collect();
        let s = spec(100, 100, &bs, Some(512));
        assert!(s.validate().is_err());
        Generator::new(&s, 0, 1 << 30, 0);
    }

    #[test]
    fn writes_draw_from_their_own_split() {
        // fio's bssplit=64k/40:1024k/60,1024k/100.
        let mut s = spec(50, 100, &[(65536, 40), (1 << 20, 60)], None);
        s.bs_write = Some(vec![BlockSize { bytes: 1 << 20, pct: 100 }]);
        s.validate().unwrap();
        let mut g = Generator::new(&s, 0, 1 << 30, 0);
        let (mut small_reads, mut reads) = (0u32, 0u32);
        for _ in 0..100_000 {
            let io = g.next_io();
            match io.op {
                Op::Write => assert_eq!(io.len, 1 << 20, "every write 1 MiB"),
                _ => {
                    reads += 1;
                    small_reads += (io.len == 65536) as u32;
                }
            }
        }
        let share = small_reads as f64 / reads as f64;
        assert!((share - 0.4).abs() < 0.01, "40% of reads 64 KiB, got {share}");
        // Without writes' own sizes the sequence is the one it always was.
        let plain = spec(50, 100, &[(65536, 40), (1 << 20, 60)], None);
        let with = AccessSpec { bs_write: Some(plain.bs.clone()), ..plain.clone() };
        let (mut a, mut b) = (Generator::new(&plain, 0, 1 << 30, 0), Generator::new(&with, 0, 1 << 30, 0));
        assert!((0..1000).all(|_| a.next_io() == b.next_io()));
    }

    #[test]
    fn sequential_wraps_at_the_end_of_the_region() {
        let s = spec(100, 0, &[(4096, 100)], None);
        let mut g = Generator::new(&s, 8192, 3 * 4096, 0);
        let offs: Vec<u64> = (0..5).map(|_| g.next_io().offset).collect();
        assert_eq!(offs, vec![8192, 12288, 16384, 8192, 12288]);
    }

    #[test]
    fn same_seed_same_sequence_other_job_other_sequence() {
        let s = spec(50, 100, &[(4096, 100)], None);
        let a: Vec<IoDesc> = {
            let mut g = Generator::new(&s, 0, 1 << 30, 0);
            (0..100).map(|_| g.next_io()).collect()
        };
        let b: Vec<IoDesc> = {
            let mut g = Generator::new(&s, 0, 1 << 30, 0);
            (0..100).map(|_| g.next_io()).collect()
        };
        let c: Vec<IoDesc> = {
            let mut g = Generator::new(&s, 0, 1 << 30, 1);
            (0..100).map(|_| g.next_io()).collect()
        };
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    /// Share of `blocks` 4 KiB blocks written by `rounds` rounds of `per_round` random 4 KiB
    /// writes each, round k run as `round = k` (or all as round 0).
    fn coverage(blocks: u64, rounds: u32, per_round: u64, new_offsets: bool) -> f64 {
        let mut hit = vec![false; blocks as usize];
        for k in 0..rounds {
            let s = AccessSpec { round: if new_offsets { k } else { 0 }, ..spec(0, 100, &[(4096, 100)], None) };
            let mut g = Generator::new(&s, 0, blocks * 4096, 0);
            for _ in 0..per_round {
                hit[(g.next_io().offset / 4096) as usize] = true;
            }
        }
        hit.iter().filter(|&&h| h).count() as f64 / blocks as f64
    }

    #[test]
    fn every_round_draws_new_offsets_so_rounds_cover_the_region() {
        // 64 MiB in 4 KiB blocks, written 5x over. Offsets are drawn uniformly with replacement
        // (no random map), so k region-sizes of writes cover 1 - e^-k of it: 99.3% at 5x, in one
        // round or in five rounds that each draw new offsets.
        let n = 16384;
        let one_round = coverage(n, 1, 5 * n, true);
        let five_rounds = coverage(n, 5, n, true);
        let replayed = coverage(n, 5, n, false);
        assert!(one_round >= 0.99, "one 5x round covered {one_round}");
        assert!(five_rounds >= 0.99, "five 1x rounds covered {five_rounds}");
        // Replaying round 0's offsets five times covers what one round does: 1 - e^-1.
        assert!(replayed < 0.65, "five replayed rounds covered {replayed}");
        let s = spec(0, 100, &[(4096, 100)], None);
        assert_eq!(s.offset_seed(), s.seed, "round 0 is the run of its own");
        assert_ne!(AccessSpec { round: 1, ..s.clone() }.offset_seed(), AccessSpec { round: 2, ..s }.offset_seed());
    }
}
