//! The header every written unit carries, and the payload it describes.

/// "dlv1" read as a little-endian u32: marks a unit drivelab wrote.
pub const MAGIC: u32 = u32::from_le_bytes(*b"dlv1");
pub const VERSION: u16 = 1;
/// Bytes of [`Header`] at the start of every unit.
pub const HEADER_BYTES: usize = 48;

/// Who wrote a unit, where and when, and the CRC32C of its payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Which target of the run (its index), so a write that landed on another target is known.
    pub target: u32,
    /// Bytes in the unit, header included.
    pub unit_len: u32,
    /// Byte offset of the unit on its target.
    pub offset: u64,
    /// The write generation of this unit: 1 for its first write, one more for each rewrite.
    pub generation: u64,
    /// The run's seed: with target, offset and generation, it makes the payload.
    pub seed: u64,
    pub payload_crc: u32,
}

impl Header {
    /// The header as stored: fields, then the CRC32C of the 44 bytes before it.
    pub fn encode(&self) -> [u8; HEADER_BYTES] {
        let mut b = [0u8; HEADER_BYTES];
        b[0..4].copy_from_slice(&MAGIC.to_le_bytes());
        b[4..6].copy_from_slice(&VERSION.to_le_bytes());
        b[6..8].copy_from_slice(&(HEADER_BYTES as u16).to_le_bytes());
        b[8..12].copy_from_slice(&self.target.to_le_bytes());
        b[12..16].copy_from_slice(&self.unit_len.to_le_bytes());
        b[16..24].copy_from_slice(&self.offset.to_le_bytes());
        b[24..32].copy_from_slice(&self.generation.to_le_bytes());
        b[32..40].copy_from_slice(&self.seed.to_le_bytes());
        b[40..44].copy_from_slice(&self.payload_crc.to_le_bytes());
        let crc = crc32c::crc32c(&b[..44]);
        b[44..48].copy_from_slice(&crc.to_le_bytes());
        b
    }

    /// A header read back: None unless the magic, version and the header's own CRC all hold.
    pub fn decode(b: &[u8]) -> Option<Header> {
        let b = b.get(..HEADER_BYTES)?;
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
        let u16_at = |i: usize| u16::from_le_bytes(b[i..i + 2].try_into().unwrap());
        if u32_at(0) != MAGIC || u16_at(4) != VERSION || u16_at(6) as usize != HEADER_BYTES {
            return None;
        }
        if crc32c::crc32c(&b[..44]) != u32_at(44) {
            return None;
        }
        Some(Header {
            target: u32_at(8),
            unit_len: u32_at(12),
            offset: u64_at(16),
            generation: u64_at(24),
            seed: u64_at(32),
            payload_crc: u32_at(40),
        })
    }
}
