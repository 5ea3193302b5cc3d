//! What was written is known: the last generation written to each unit of a target region.
//!
//! One byte per unit (0: never written; [`UNKNOWN`]: a write of it failed, so it may hold
//! anything; else the generation 1..=254, wrapping from 254 back to 1), so the map
//! of a 1 TiB target costs 256 MiB at 4 KiB units and 2 GiB at 512-byte units
//! ([`GenerationMap::bytes_per_tib`]). A unit's header carries the same generation, so a block
//! read back is checked against the map without a second copy of the data. Generations compare
//! on the ring 1..=254: a generation up to 127 ahead of the expected one is `Ahead`, the rest
//! are older (`Stale`) — a unit would need 127 unacknowledged rewrites to be taken for stale.
//!
//! The map is saved with the results (`save`/`load`: a 32-byte header, then the bytes) so a
//! later `drivelab verify` can re-check the device.
//!
//! A region that cannot be mapped is a [`MapError`]: the words a user reads are written once,
//! there, and a caller can match the kind (or take it as the [`crate::Error::Invalid`] it is).

use std::cmp::Ordering;
use std::io::{self, Read, Write};

const FILE_MAGIC: &[u8; 8] = b"dlgenmap";
/// The generation of a unit whose last write failed: its content is not known.
pub const UNKNOWN: u8 = 255;
/// The highest generation before the ring wraps to 1.
const RING: u64 = 254;

/// Why a region cannot be mapped. It is the user's input (a unit, a region) that is wrong, so
/// it becomes an [`crate::Error::Invalid`] with the same words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MapError {
    #[error("verify unit {unit}: use a power of two from 512 to 4096 bytes")]
    Unit { unit: u64 },
    #[error("region {start}+{span} is not a whole number of {unit}-byte units")]
    Region { start: u64, span: u64, unit: u64 },
    /// More units than this machine can index.
    #[error("{span} bytes is too large a region to map")]
    TooLarge { span: u64 },
}

impl From<MapError> for crate::Error {
    fn from(e: MapError) -> crate::Error {
        crate::Error::invalid(e.to_string())
    }
}

/// The last generation written to each unit of `[start, start + units * unit)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenerationMap {
    unit: u64,
    start: u64,
    gens: Vec<u8>,
}

impl GenerationMap {
    /// A map of the region `[start, start + span)` in units of `unit` bytes (a power of two from
    /// 512 to 4096; `start` and `span` multiples of it), all never written.
    pub fn new(start: u64, span: u64, unit: u64) -> Result<GenerationMap, MapError> {
        if !unit.is_power_of_two() || !(512..=4096).contains(&unit) {
            return Err(MapError::Unit { unit });
        }
        if !start.is_multiple_of(unit) || !span.is_multiple_of(unit) {
            return Err(MapError::Region { start, span, unit });
        }
        let units = usize::try_from(span / unit).map_err(|_| MapError::TooLarge { span })?;
        Ok(GenerationMap { unit, start, gens: vec![0; units] })
    }

    /// A map over the whole of a target of `size` bytes (its last partial unit left out).
    pub fn whole(size: u64, unit: u64) -> Result<GenerationMap, MapError> {
        GenerationMap::new(0, size / unit * unit, unit)
    }

    /// Bytes of map per TiB of target at `unit`-byte units.
    pub fn bytes_per_tib(unit: u64) -> u64 {
        (1u64 << 40) / unit
    }

    pub fn unit(&self) -> u64 {
        self.unit
    }

    /// The unit holding byte `offset` (which must lie in the region).
    #[inline]
    pub fn index(&self, offset: u64) -> usize {
        ((offset - self.start) / self.unit) as usize
    }

    /// The offset of unit `i`.
    #[inline]
    pub fn offset(&self, i: usize) -> u64 {
        self.start + i as u64 * self.unit
    }

    pub fn len(&self) -> usize {
        self.gens.len()
    }

    pub fn is_empty(&self) -> bool {
        self.gens.is_empty()
    }

    /// The last generation written to unit `i` (0: never).
    #[inline]
    pub fn generation(&self, i: usize) -> u8 {
        self.gens[i]
    }

    /// A new write of unit `i`: its generation (1..=254), recorded.
    #[inline]
    pub fn next_generation(&mut self, i: usize) -> u8 {
        let g = next(self.gens[i]);
        self.gens[i] = g;
        g
    }

    /// The generations of units `[first, first + n)`, as a job's own copy.
    pub fn slice(&self, first: usize, n: usize) -> Vec<u8> {
        self.gens[first..first + n].to_vec()
    }

    /// Put a job's copy back at unit `first`.
    pub fn put(&mut self, first: usize, gens: &[u8]) {
        self.gens[first..first + gens.len()].copy_from_slice(gens);
    }

    /// Every unit's generation, in order.
    pub fn generations(&self) -> &[u8] {
        &self.gens
    }

    /// Units ever written.
    pub fn written(&self) -> usize {
        self.gens.iter().filter(|&&g| g != 0).count()
    }

    /// The start of the region mapped.
    pub fn start(&self) -> u64 {
        self.start
    }

    pub fn save(&self, w: &mut impl Write) -> io::Result<()> {
        w.write_all(FILE_MAGIC)?;
        w.write_all(&self.unit.to_le_bytes())?;
        w.write_all(&self.start.to_le_bytes())?;
        w.write_all(&(self.gens.len() as u64).to_le_bytes())?;
        w.write_all(&self.gens)
    }

    /// Load a map saved by [`save`](Self::save) from `r`, which holds `available` more bytes,
    /// for a target of `target_size` bytes. A saved map is input like any other (it may have
    /// been tampered with): its declared unit count is checked against the bytes there are and
    /// its region against the target BEFORE a byte is allocated, so a count of 2^36 is refused,
    /// not an abort, and a map past the target's end is refused, not read as I/O errors.
    pub fn load(r: &mut impl Read, available: u64, target_size: u64) -> io::Result<GenerationMap> {
        let bad = |why: String| io::Error::new(io::ErrorKind::InvalidData, why);
        if available < 32 {
            return Err(bad(format!("{available} bytes left, too few for a generation map's 32-byte header")));
        }
        let mut head = [0u8; 32];
        r.read_exact(&mut head)?;
        if &head[..8] != FILE_MAGIC {
            return Err(bad("not a generation map: wrong magic".into()));
        }
        let word = |i: usize| u64::from_le_bytes(head[i..i + 8].try_into().unwrap());
        let (unit, start, units) = (word(8), word(16), word(24));
        if units > available - 32 {
            return Err(bad(format!(
                "the map declares {units} units, and only {} bytes of it follow its header (one per unit): it is \
                 damaged or cut short",
                available - 32
            )));
        }
        let end = units.checked_mul(unit).and_then(|span| start.checked_add(span));
        if end.is_none_or(|end| end > target_size) {
            let end = end.map_or("beyond byte 2^64".to_string(), |e| format!("to byte {e}"));
            return Err(bad(format!(
                "the map covers {units} units of {unit} bytes from byte {start} {end}: past the end of the target \
                 ({target_size} bytes); it is not this target's map, or the target shrank"
            )));
        }
        let mut map =
            GenerationMap::new(start, units * unit, unit).map_err(|e| bad(format!("not a generation map: {e}")))?;
        r.read_exact(&mut map.gens)?;
        Ok(map)
    }
}

/// The generation a unit at `g` gets when it is written: one more, 254 wrapping to 1; a unit
/// never written or of unknown content starts at 1.
#[inline(always)]
pub fn next(g: u8) -> u8 {
    match g {
        0 | 254 | UNKNOWN => 1,
        g => g + 1,
    }
}

/// How a generation found compares with the one expected, on the ring 1..=254 (see the module
/// docs); generations off the ring (never written by a map) compare as plain numbers.
pub fn compare_generations(found: u64, expected: u64) -> Ordering {
    if found == expected {
        return Ordering::Equal;
    }
    if !(1..=RING).contains(&found) || !(1..=RING).contains(&expected) {
        return found.cmp(&expected);
    }
    let ahead = (found + RING - expected) % RING;
    if ahead <= 127 {
        Ordering::Greater
    } else {
        Ordering::Less
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generations_count_up_wrap_past_255_and_are_saved_whole() {
        let mut m = GenerationMap::new(1 << 20, 64 << 10, 4096).unwrap();
        assert_eq!((m.len(), m.written()), (16, 0));
        let i = m.index((1 << 20) + 8192 + 100);
        assert_eq!((i, m.offset(i)), (2, (1 << 20) + 8192));
        assert_eq!(m.next_generation(i), 1);
        for _ in 1..254 {
            m.next_generation(i);
        }
        assert_eq!(m.generation(i), 254);
        assert_eq!(m.next_generation(i), 1, "254 wraps to 1, never to 0 (never written) or UNKNOWN");
        assert_eq!(m.written(), 1);
        let mut bytes = Vec::new();
        m.save(&mut bytes).unwrap();
        assert_eq!(bytes.len(), 32 + 16);
        assert_eq!(GenerationMap::load(&mut bytes.as_slice(), 48, 2 << 20).unwrap(), m);
        assert!(GenerationMap::load(&mut &b"notamap!"[..], 8, 2 << 20).is_err());
        let e = GenerationMap::load(&mut bytes.as_slice(), 48, (1 << 20) + 8192).unwrap_err().to_string();
        assert!(e.contains("past the end of the target"), "{e}");
        bytes[24..32].copy_from_slice(&(1u64 << 36).to_le_bytes());
        let e = GenerationMap::load(&mut bytes.as_slice(), 48, u64::MAX).unwrap_err().to_string();
        assert!(e.contains("declares 68719476736 units, and only 16 bytes"), "{e}");
    }

    #[test]
    fn a_map_costs_a_byte_per_unit() {
        assert_eq!(GenerationMap::bytes_per_tib(4096), 256 << 20);
        assert_eq!(GenerationMap::bytes_per_tib(512), 2 << 30);
        assert!(GenerationMap::new(0, 4096, 1000).is_err());
        assert!(GenerationMap::new(100, 4096, 4096).is_err());
    }

    #[test]
    fn generations_compare_on_the_ring() {
        assert_eq!(compare_generations(5, 5), Ordering::Equal);
        assert_eq!(compare_generations(3, 5), Ordering::Less, "older: stale");
        assert_eq!(compare_generations(6, 5), Ordering::Greater, "newer: ahead");
        assert_eq!(compare_generations(250, 3), Ordering::Less, "250 is 7 writes before 3 after a wrap");
        assert_eq!(compare_generations(2, 250), Ordering::Greater, "2 is 6 writes after 250");
        assert_eq!((next(0), next(UNKNOWN), next(7)), (1, 1, 8));
        assert_eq!(compare_generations(1000, 7), Ordering::Greater, "off the ring: plain numbers");
    }
}
