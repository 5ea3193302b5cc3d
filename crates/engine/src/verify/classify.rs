//! Checking a unit read back against what the reader expected, and saying how it is wrong.
//!
//! The check of a good unit allocates nothing and reads the payload once (its CRC32C): it can run
//! inline on every read. Only a mismatch builds the expected unit to compare bit by bit.

use super::header::{stamp_unit, Header, HEADER_BYTES, MAGIC};
use super::map::compare_generations;

/// At most this many differing bits (in header and payload together) is a bit flip; more is a
/// torn write (the header is the expected one but much of the payload is not its payload) or,
/// with no valid header, foreign data. A torn 512-byte sector differs in about 2048 bits.
const BIT_FLIP_LIMIT: u64 = 64;

/// What the reader expects a unit to hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expected {
    pub target: u32,
    pub offset: u64,
    /// The generation of the last write acknowledged for this unit (1 = its first write).
    pub generation: u64,
    pub seed: u64,
    /// The payload's zero share, as written.
    pub zero_pct: u8,
}

/// How a unit is wrong (see the module docs of [`crate::verify`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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

/// Check `found` (one whole unit) against `exp`: Ok when it is exactly the unit that was written.
pub fn classify(found: &[u8], exp: &Expected) -> Result<(), Mismatch> {
    let header = Header::decode(found);
    if let Some(h) = header {
        let is_it = h.target == exp.target
            && h.offset == exp.offset
            && h.generation == exp.generation
            && h.seed == exp.seed
            && h.unit_len as usize == found.len();
        if is_it && crc32c::crc32c(&found[HEADER_BYTES..]) == h.payload_crc {
            return Ok(());
        }
    }
    Err(mismatch(found, header, exp))
}

/// The slow path: what kind of wrong `found` is.
fn mismatch(found: &[u8], header: Option<Header>, exp: &Expected) -> Mismatch {
    let mut expected = vec![0u8; found.len()];
    stamp_unit(&mut expected, exp.seed, exp.target, exp.offset, exp.generation, exp.zero_pct);
    let bits = differing_bits(&expected, found);
    let first = first_difference(&expected, found);
    let kind = match header {
        Some(h) if h.target != exp.target || h.offset != exp.offset => MismatchKind::Misdirected,
        Some(h) if h.seed != exp.seed || h.unit_len as usize != found.len() => MismatchKind::Foreign,
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
