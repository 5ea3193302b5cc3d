//! The bytes of a unit: how a payload is made from (seed, target, offset, generation), cheaply
//! enough to stamp every write and check every read at full rate.
//!
//! A payload is the job's *base* (random words made once from the seed) XOR the unit's *key*
//! (one word mixed from seed, target, offset and generation) repeated over it; the last
//! `zero_pct`% of it are zeros (compressible data, header kept). So:
//! - every 8-byte word changes when any input changes (two keys differ in some bit, and that bit
//!   differs in every word): a torn unit, a stale one and a misdirected one all differ from the
//!   expected unit in every sector, not in one stamp;
//! - stamping a write is one XOR pass over the payload, and its CRC32C needs no pass at all:
//!   CRC32C is affine over GF(2), so `crc(base ^ K(key)) = crc(base) ^ L(key)` with `L` linear in
//!   the key's 64 bits, precomputed as 8 tables of 256 (`crc_of`);
//! - checking a read is one compare pass (`found ^ base == key` word by word), which vectorizes;
//!   the CRC in the header lets any other reader check the unit with nothing but CRC32C.
//!
//! With fio's `verify_pattern` (`with_pattern`) a unit is the pattern instead, with no header:
//! what fio writes and checks with `verify=pattern` (`spec/verify_pattern.rs`).

use super::classify::{mismatch, Expected, Mismatch};
use super::header::{Header, HEADER_BYTES};
use crate::spec::verify_pattern::VerifyPattern;

/// How one job's units are made: unit size, seed, compressibility and the precomputed parts.
#[derive(Clone)]
pub struct UnitFormat {
    unit: usize,
    seed: u64,
    zero_pct: u8,
    /// Payload words that are random (the rest are zeros).
    random_words: usize,
    /// The base words (the payload of key 0).
    base: Vec<u64>,
    /// CRC32C of the payload of key 0.
    crc_base: u32,
    /// `crc_key[i][b]`: what byte `i` of the key being `b` adds to the payload's CRC.
    crc_key: Box<[[u32; 256]; 8]>,
    /// fio's `verify_pattern`: units are the pattern, without header.
    pattern: Option<VerifyPattern>,
}

impl std::fmt::Debug for UnitFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "UnitFormat({} bytes, seed {:#x}, {}% zeros)", self.unit, self.seed, self.zero_pct)
    }
}

impl UnitFormat {
    /// The format of `unit`-byte units (a multiple of 8 above the header) for `seed`, with
    /// `zero_pct`% of each payload zeros.
    pub fn new(unit: usize, seed: u64, zero_pct: u8) -> UnitFormat {
        assert!(
            unit > HEADER_BYTES && unit.is_multiple_of(8),
            "a {unit}-byte unit cannot hold a header and whole words"
        );
        let words = (unit - HEADER_BYTES) / 8;
        let random_words = words - words * zero_pct.min(100) as usize / 100;
        let mut state = mix(seed ^ 0xba5e_ba5e_ba5e_ba5e);
        let base: Vec<u64> = (0..words)
            .map(|i| {
                state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
                if i < random_words {
                    mix(state)
                } else {
                    0
                }
            })
            .collect();
        let payload = |key: u64| -> Vec<u8> {
            base.iter()
                .enumerate()
                .flat_map(|(i, &w)| (if i < random_words { w ^ key } else { w }).to_le_bytes())
                .collect()
        };
        let crc_base = crc32c::crc32c(&payload(0));
        // The linear part of the CRC: what each key bit adds, then per byte of the key.
        let bit: Vec<u32> = (0..64).map(|b| crc32c::crc32c(&payload(1u64 << b)) ^ crc_base).collect();
        let mut crc_key = Box::new([[0u32; 256]; 8]);
        for (i, table) in crc_key.iter_mut().enumerate() {
            for (v, slot) in table.iter_mut().enumerate() {
                *slot = (0..8).filter(|k| v & (1 << k) != 0).fold(0, |acc, k| acc ^ bit[i * 8 + k]);
            }
        }
        UnitFormat { unit, seed, zero_pct, random_words, base, crc_base, crc_key, pattern: None }
    }

    /// Units hold `pattern` (fio's `verify_pattern`) instead of a header and payload.
    pub fn with_pattern(mut self, pattern: Option<VerifyPattern>) -> UnitFormat {
        self.pattern = pattern;
        self
    }

    /// Whether units are fio's `verify_pattern`: then every unit read is checked, whoever wrote
    /// it (the pattern does not depend on the write's generation), as fio checks them.
    pub fn is_pattern(&self) -> bool {
        self.pattern.is_some()
    }

    pub fn unit(&self) -> usize {
        self.unit
    }
    pub fn seed(&self) -> u64 {
        self.seed
    }
    pub fn zero_pct(&self) -> u8 {
        self.zero_pct
    }

    /// The key of one unit's payload.
    #[inline(always)]
    fn key(&self, target: u32, offset: u64, generation: u64) -> u64 {
        mix(self.seed ^ mix(offset ^ mix(generation ^ ((target as u64) << 32))))
    }

    /// The CRC32C of the payload made with `key`, from the tables.
    #[inline(always)]
    fn crc_of(&self, key: u64) -> u32 {
        let b = key.to_le_bytes();
        let t = &self.crc_key;
        self.crc_base
            ^ t[0][b[0] as usize]
            ^ t[1][b[1] as usize]
            ^ t[2][b[2] as usize]
            ^ t[3][b[3] as usize]
            ^ t[4][b[4] as usize]
            ^ t[5][b[5] as usize]
            ^ t[6][b[6] as usize]
            ^ t[7][b[7] as usize]
    }

    /// Write the whole unit of (target, offset, generation) into `unit`: payload, then header.
    #[inline]
    pub fn stamp(&self, unit: &mut [u8], target: u32, offset: u64, generation: u64) -> Header {
        debug_assert_eq!(unit.len(), self.unit);
        if let Some(p) = &self.pattern {
            p.fill(unit, offset);
            return Header { target, unit_len: self.unit as u32, offset, generation, seed: self.seed, payload_crc: 0 };
        }
        let key = self.key(target, offset, generation);
        let (head, payload) = unit.split_at_mut(HEADER_BYTES);
        // SAFETY: any bit pattern is a valid u64 and a valid u8; align_to_mut only reinterprets
        // the aligned middle of the slice, and both views are of the same bytes.
        let (pre, words, post) = unsafe { payload.align_to_mut::<u64>() };
        if pre.is_empty() && post.is_empty() {
            // The usual case (I/O buffers are page-aligned): a loop the compiler vectorizes.
            let (random, zeros) = words.split_at_mut(self.random_words);
            for (w, b) in random.iter_mut().zip(&self.base) {
                *w = (b ^ key).to_le();
            }
            zeros.fill(0);
        } else {
            for (w, (out, &base)) in payload.chunks_exact_mut(8).zip(&self.base).enumerate() {
                let v = if w < self.random_words { base ^ key } else { base };
                out.copy_from_slice(&v.to_le_bytes());
            }
        }
        let h = Header {
            target,
            unit_len: self.unit as u32,
            offset,
            generation,
            seed: self.seed,
            payload_crc: self.crc_of(key),
        };
        head.copy_from_slice(&h.encode());
        h
    }

    /// Whether `found` holds exactly the unit `exp` describes: its header, and a payload that is
    /// word for word the expected one (one pass, no CRC). Allocates nothing.
    #[inline]
    pub fn matches(&self, found: &[u8], exp: &Expected) -> bool {
        if let Some(p) = &self.pattern {
            return found.len() == self.unit && p.matches(found, exp.offset);
        }
        let Some(h) = Header::decode(found) else { return false };
        if h.target != exp.target
            || h.offset != exp.offset
            || h.generation != exp.generation
            || h.seed != self.seed
            || h.unit_len as usize != found.len()
            || found.len() != self.unit
        {
            return false;
        }
        let key = self.key(exp.target, exp.offset, exp.generation);
        let payload = &found[HEADER_BYTES..];
        // SAFETY: as in `stamp`: a reinterpretation of the aligned middle, any bits valid.
        let (pre, words, post) = unsafe { payload.align_to::<u64>() };
        let mut diff = 0u64;
        if pre.is_empty() && post.is_empty() {
            let (random, zeros) = words.split_at(self.random_words);
            for (w, b) in random.iter().zip(&self.base) {
                diff |= u64::from_le(*w) ^ b ^ key;
            }
            diff |= zeros.iter().fold(0, |a, w| a | w);
        } else {
            for (w, (word, &base)) in payload.chunks_exact(8).zip(&self.base).enumerate() {
                let v = u64::from_le_bytes(word.try_into().unwrap());
                let want = if w < self.random_words { base ^ key } else { base };
                diff |= v ^ want;
            }
        }
        diff == 0
    }

    /// Whether `found` is a whole unit that some verifying write left at `offset`, whoever wrote
    /// it and whenever: a header that reads back for this offset and this unit size, and a
    /// payload whose CRC32C is the header's (fio's verify of a job that only reads: each block
    /// checked by what its own header says). A pattern format has no header to go by.
    pub fn self_consistent(&self, found: &[u8], offset: u64) -> bool {
        if self.pattern.is_some() || found.len() != self.unit {
            return false;
        }
        let Some(h) = Header::decode(found) else { return false };
        h.offset == offset
            && h.unit_len as usize == self.unit
            && crc32c::crc32c(&found[HEADER_BYTES..]) == h.payload_crc
    }

    /// Check `found` (one whole unit) against `exp`: Ok when it is exactly the unit written,
    /// else how it is wrong (the slow path builds the expected unit to compare bit by bit).
    pub fn check(&self, found: &[u8], exp: &Expected) -> Result<(), Mismatch> {
        if self.matches(found, exp) {
            return Ok(());
        }
        // A pattern unit has no header: only its bits tell how it is wrong.
        let header = if self.pattern.is_some() { None } else { Header::decode(found) };
        Err(mismatch(found, header, &self.expected(exp), exp))
    }

    /// The unit `exp` describes, built whole.
    pub fn expected(&self, exp: &Expected) -> Vec<u8> {
        let mut u = vec![0u8; self.unit];
        self.stamp(&mut u, exp.target, exp.offset, exp.generation);
        u
    }
}

/// splitmix64's finalizer: every input bit reaches every output bit.
#[inline(always)]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
