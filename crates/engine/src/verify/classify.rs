//! Checking a unit read back against what the reader expected, and saying how it is wrong.
//!
//! The check of a good unit ([`UnitFormat::matches`](super::UnitFormat::matches)) allocates
//! nothing and reads the payload once: it runs inline on every read. Only a mismatch builds the
//! expected unit, to compare bit by bit and name the kind here.

use super::header::{Header, MAGIC};
use super::map::compare_generations;

/// At most this many differing bits (in header and payload together) is a bit flip; more is a
/// torn write (the header is the expected one but much of the payload is not its payload) or,
/// with no valid header, foreign data. A torn 512-byte sector differs in about 2048 bits.
const BIT_FLIP_LIMIT: u64 = 64;

/// What the reader expects a unit to hold (the format gives seed and compressibility).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expected {
    pub target: u32,
    pub offset: u64,
    /// The generation of the last write of this unit (1 = its first write).
    pub generation: u64,
}

/// How a unit is wrong (see the module docs of [`crate::verify`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MismatchKind {
    NeverWritten,
    Foreign,
    Misdirected,
    Stale,
    Ahead,
    Torn,
    BitFlip,
}

impl MismatchKind {
    pub const ALL: [MismatchKind; 7] = [
        MismatchKind::NeverWritten,
        MismatchKind::Foreign,
        MismatchKind::Misdirected,
        MismatchKind::Stale,
        MismatchKind::Ahead,
        MismatchKind::Torn,
        MismatchKind::BitFlip,
    ];

    /// The name in results and reports: `never_written`, `bit_flip`.
    pub fn name(self) -> &'static str {
        match self {
            MismatchKind::NeverWritten => "never_written",
            MismatchKind::Foreign => "foreign",
            MismatchKind::Misdirected => "misdirected",
            MismatchKind::Stale => "stale",
            MismatchKind::Ahead => "ahead",
            MismatchKind::Torn => "torn",
            MismatchKind::BitFlip => "bit_flip",
        }
    }
}

/// The first 16 bytes from where two units first differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Difference {
    /// Byte offset within the unit.
    pub at: usize,
    pub expected: [u8; 16],
    pub found: [u8; 16],
}

/// A unit that is not what was expected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub kind: MismatchKind,
    /// The header that was found, when one was valid.
    pub found: Option<Header>,
    /// Bits that differ from the expected unit (counted for bit flips, torn and foreign units).
    pub bits: u64,
    pub first: Option<Difference>,
}

/// The slow path of [`UnitFormat::check`](super::UnitFormat::check): what kind of wrong `found`
/// is, given the unit that was `expected` (built whole) and the header found, if any was valid.
pub(super) fn mismatch(found: &[u8], header: Option<Header>, expected: &[u8], exp: &Expected) -> Mismatch {
    let bits = differing_bits(expected, found);
    let first = first_difference(expected, found);
    let seed = Header::decode(expected).map(|h| h.seed);
    let kind = match header {
        Some(h) if h.target != exp.target || h.offset != exp.offset => MismatchKind::Misdirected,
        Some(h) if Some(h.seed) != seed || h.unit_len as usize != found.len() => MismatchKind::Foreign,
        Some(h) if compare_generations(h.generation, exp.generation).is_lt() => MismatchKind::Stale,
        Some(h) if compare_generations(h.generation, exp.generation).is_gt() => MismatchKind::Ahead,
        // The expected header over a payload that is not its own.
        Some(_) if bits <= BIT_FLIP_LIMIT => MismatchKind::BitFlip,
        Some(_) => MismatchKind::Torn,
        // No valid header: a few flipped bits in it, never written, or someone else's data.
        None if bits <= BIT_FLIP_LIMIT => MismatchKind::BitFlip,
        None if found.iter().all(|&b| b == 0) => MismatchKind::NeverWritten,
        None if found[..4] == MAGIC.to_le_bytes() => MismatchKind::Torn,
        None => MismatchKind::Foreign,
    };
    Mismatch { kind, found: header, bits, first }
}

fn differing_bits(a: &[u8], b: &[u8]) -> u64 {
    a.iter().zip(b).map(|(x, y)| (x ^ y).count_ones() as u64).sum()
}

/// Where `found` first differs from `expected`, with 16 bytes of each from there (zero-padded at
/// the end of the unit).
pub fn first_difference(expected: &[u8], found: &[u8]) -> Option<Difference> {
    let at = expected.iter().zip(found).position(|(a, b)| a != b)?;
    let take = |s: &[u8]| {
        let mut out = [0u8; 16];
        let part = &s[at..s.len().min(at + 16)];
        out[..part.len()].copy_from_slice(part);
        out
    };
    Some(Difference { at, expected: take(expected), found: take(found) })
}
