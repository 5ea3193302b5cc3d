//! The shape of the walk over the region beyond random % (`spec/stride.rs`): fio's `rw=WORD:N`
//! (sequential I/O with holes or backwards; random I/O that seeks only every N I/Os, running on
//! or repeating in between) and `zonemode=strided` (one zone at a time). Offsets follow fio's
//! `get_next_seq_offset` and `setup_strided_zone_mode` as fio 3.33 runs them (checked against
//! fio's `write_iolog` in the tests). Plain integer steps per I/O: no division outside a
//! partial last zone, no allocation.

use crate::spec::AccessSpec;

/// The walk's state, beside the generator's sequential position.
pub(super) struct Walk {
    /// Bytes added after each sequential I/O (negative: backwards).
    pub skip: i64,
    /// A new random offset only every `every` I/Os (> 1), `left` I/Os to go before the next.
    pub every: u32,
    left: u32,
    /// Between random ones, repeat the offset (fio's `rw_sequencer=identical`).
    repeat: bool,
    /// The last I/O's offset.
    pub last: u64,
    pub zone: Option<Zone>,
}

/// What the next I/O may be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Turn {
    /// Random with the spec's random % (every I/O without `rw=randread:N`).
    MayBeRandom,
    /// Sequential: fio's `randread:N` between two random ones.
    Sequential,
    /// The last offset again (`rw_sequencer=identical`).
    Repeat,
}

impl Walk {
    pub fn new(spec: &AccessSpec, start: u64) -> Walk {
        Walk {
            skip: spec.seq_skip_bytes,
            every: spec.random_every_ios,
            left: 0,
            repeat: spec.random_repeat,
            last: start,
            zone: spec.zones.map(|z| Zone {
                at: start,
                range: z.range(),
                size: z.size_bytes,
                step: z.range() + z.skip_bytes,
                done: 0,
            }),
        }
    }

    /// fio's counter: the first I/O and every `every`-th after may seek.
    #[inline]
    pub fn turn(&mut self) -> Turn {
        if self.every <= 1 {
            return Turn::MayBeRandom;
        }
        if self.left == 0 {
            self.left = self.every - 1;
            return Turn::MayBeRandom;
        }
        self.left -= 1;
        if self.repeat {
            Turn::Repeat
        } else {
            Turn::Sequential
        }
    }
}

/// The current strided zone.
pub(super) struct Zone {
    /// Its first byte.
    pub at: u64,
    pub range: u64,
    /// Bytes to move in it, and moved so far.
    size: u64,
    pub done: u64,
    /// From one zone's start to the next's.
    step: u64,
}

impl Zone {
    /// Before an I/O: move to the next zone once `size` bytes moved in this one (wrapping to
    /// `start` where a block of `max_len` no longer fits before `end`), and start the sequential
    /// position over where it left the zone's range. The zone's bounds.
    #[inline]
    pub fn enter(&mut self, start: u64, end: u64, max_len: u64, next_seq: &mut u64) -> (u64, u64) {
        if self.done >= self.size {
            self.done = 0;
            self.at += self.step;
            if self.at.saturating_add(max_len) > end {
                self.at = start;
            }
            *next_seq = self.at;
        }
        let hi = self.at.saturating_add(self.range).min(end);
        if *next_seq >= hi || *next_seq < self.at {
            *next_seq = self.at;
        }
        (self.at, hi)
    }
}

/// The next sequential offset in `[lo, hi)` for an I/O of `len` bytes, the previous one having
/// ended at `next` (on the alignment grid): `next` plus `skip` (except for the region's first
/// I/O, as fio), wrapping past either end as fio does (forwards to `lo`; backwards to `skip`
/// before `hi`). None where the I/O does not fit before `hi`.
#[inline]
pub(super) fn seq_offset(next: u64, len: u64, lo: u64, hi: u64, skip: i64) -> Option<u64> {
    let mut off = next.max(lo);
    if skip != 0 && off != lo {
        let span = (hi - lo) as i128;
        let rel = (off - lo) as i128 + skip as i128;
        let rel = if (0..span).contains(&rel) {
            rel
        } else if skip > 0 {
            0
        } else {
            (span + skip as i128).max(0)
        };
        off = lo + rel as u64;
    }
    (off + len <= hi).then_some(off)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::Generator;

    /// The offsets (KiB) of the first `n` I/Os of `pairs` (4 KiB blocks unless given) over a
    /// region of `span_k` KiB from `start_k`.
    fn offsets_k(pairs: &[(&str, &str)], start_k: u64, span_k: u64, n: usize) -> Vec<u64> {
        let mut all = vec![("bs", "4k"), ("time", "1s")];
        all.extend_from_slice(pairs);
        let spec = crate::options::from_pairs(all).unwrap();
        let mut g = Generator::new(&spec, start_k * 1024, span_k * 1024, 0);
        (0..n).map(|_| g.next_io().offset / 1024).collect()
    }

    fn k(text: &str) -> Vec<u64> {
        text.split_whitespace().map(|w| w.parse().unwrap()).collect()
    }

    // Every expected list below is fio 3.33's write_iolog of the same job (ioengine=psync,
    // bs=4k, a fresh file of the region's size), offsets in KiB.

    #[test]
    fn holes_forward_skip_and_wrap_to_the_start_as_fio() {
        assert_eq!(
            offsets_k(&[("rw", "write:12k")], 0, 256, 18),
            k("0 16 32 48 64 80 96 112 128 144 160 176 192 208 224 240 0 16")
        );
        assert_eq!(offsets_k(&[("rw", "write:112k")], 0, 256, 7), k("0 116 232 0 116 232 0"));
        assert_eq!(offsets_k(&[("rw", "write:300k")], 0, 256, 3), k("0 0 0"));
    }

    #[test]
    fn backwards_starts_at_the_start_then_walks_down_from_the_end_as_fio() {
        let mut expect = vec![0];
        expect.extend((0..63).map(|i| 248 - 4 * i));
        expect.push(248);
        assert_eq!(offsets_k(&[("rw", "read:-8k")], 0, 256, 65), expect);
        assert_eq!(
            offsets_k(&[("rw", "read:-12k")], 0, 256, 34),
            k("0 244 236 228 220 212 204 196 188 180 172 164 156 148 140 132 124 116 108 100 92 84 76 68 60 52 44 36 28 20 12 4 244 236")
        );
        assert_eq!(offsets_k(&[("rw", "read:-4k")], 0, 256, 3), k("0 0 0"));
    }

    #[test]
    fn random_every_n_runs_on_or_repeats_between_seeks() {
        let offs = offsets_k(&[("rw", "randread:8")], 0, 1024, 64);
        for run in offs.chunks(8) {
            // fio: 60 64 68 72 76 80 84 88 756 760 ...: a seek, then seven that run on.
            let first = run[0];
            let expect: Vec<u64> = (0..8).map(|i| first + 4 * i).collect();
            if first + 32 <= 1024 {
                assert_eq!(run, &expect[..], "{offs:?}");
            }
        }
        let seeks: std::collections::BTreeSet<u64> = offs.chunks(8).map(|r| r[0]).collect();
        assert!(seeks.len() >= 6, "the runs start at random offsets: {offs:?}");
        let offs = offsets_k(&[("rw", "randread:4"), ("rw_sequencer", "identical")], 0, 1024, 64);
        for run in offs.chunks(4) {
            assert!(run.iter().all(|&o| o == run[0]), "fio: 60 60 60 60 756 756 756 756 ...: {offs:?}");
        }
        assert!(offs.chunks(4).map(|r| r[0]).collect::<std::collections::BTreeSet<_>>().len() >= 6);
        // Without N every I/O seeks, as before.
        let plain = offsets_k(&[("rw", "randread")], 0, 1024, 64);
        assert!(plain.windows(2).filter(|w| w[1] == w[0] + 4).count() < 8, "{plain:?}");
    }

    #[test]
    fn strided_zones_move_on_after_zone_size_bytes_as_fio() {
        let z = |extra: &[(&str, &str)], span_k, n| {
            let mut p = vec![("rw", "read")];
            p.extend_from_slice(extra);
            offsets_k(&p, 0, span_k, n)
        };
        assert_eq!(
            z(&[("zone_size", "16k"), ("zone_range", "64k")], 1024, 68),
            k("0 4 8 12 64 68 72 76 128 132 136 140 192 196 200 204 256 260 264 268 320 324 328 332 384 388 392 396 448 452 \
               456 460 512 516 520 524 576 580 584 588 640 644 648 652 704 708 712 716 768 772 776 780 832 836 840 844 896 \
               900 904 908 960 964 968 972 0 4 8 12")
        );
        assert_eq!(
            z(&[("zone_size", "16k"), ("zone_range", "64k"), ("zone_skip", "32k")], 1024, 48),
            k("0 4 8 12 96 100 104 108 192 196 200 204 288 292 296 300 384 388 392 396 480 484 488 492 576 580 584 588 672 \
               676 680 684 768 772 776 780 864 868 872 876 960 964 968 972 0 4 8 12")
        );
        // zonesize over zonerange: each zone walked several times.
        assert_eq!(
            z(&[("zone_size", "24k"), ("zone_range", "8k")], 128, 32),
            k("0 4 0 4 0 4 8 12 8 12 8 12 16 20 16 20 16 20 24 28 24 28 24 28 32 36 32 36 32 36 40 44")
        );
        // Random I/Os stay in the zone.
        let offs = offsets_k(&[("rw", "randread"), ("zone_size", "16k"), ("zone_range", "64k")], 0, 256, 64);
        for (i, o) in offs.iter().enumerate() {
            let zone = (i as u64 / 4) % 4;
            assert!((zone * 64..zone * 64 + 64).contains(o), "I/O {i} at {o}k outside zone {zone}: {offs:?}");
        }
    }

    #[test]
    fn seq_offset_edges() {
        assert_eq!(seq_offset(0, 4, 0, 16, 8), Some(0), "the first I/O: no skip");
        assert_eq!(seq_offset(4, 4, 0, 16, 8), Some(12));
        assert_eq!(seq_offset(16, 4, 0, 16, 0), None, "contiguous past the end: wrap");
        assert_eq!(seq_offset(4, 4, 0, 16, -8), Some(8), "backwards past the start: from the end");
        assert_eq!(seq_offset(4, 4, 0, 16, -64), Some(0), "a skip longer than the region");
    }
}
