//! fio's `verify_pattern` (with `verify=pattern`): every write carries the pattern and every read
//! is checked against it, without headers, so a file fio wrote with the same pattern verifies
//! here and a file written here verifies in fio. The syntax is `buffer_pattern`'s (fio 3.33's
//! `lib/pattern.c`) plus `%o`: 8 bytes holding the unit's byte offset, little-endian. As in
//! fio, the pattern (its `%o` pasted once) repeats from each unit's start; the unit is the block
//! size when every I/O has one size (fio pastes each I/O's offset, so the bytes are equal),
//! or `verify_unit`. Saved in the spec in fio's syntax (`verify_pattern`).
//!
//! What is wrong with a pattern is a [`VerifyPatternError`]: the words a user reads are written
//! once, there, and a caller can match the kind.

use super::AccessSpec;
use crate::error::Error;
use crate::options::Field;

/// Bytes `%o` takes in the pattern (fio's `paste_blockoff`: a 64-bit offset).
const OFFSET_BYTES: usize = 8;

/// Why a `verify_pattern` does not parse. A piece that is not `buffer_pattern`'s syntax keeps
/// that parser's words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VerifyPatternError {
    /// A piece between `%o`s is not `buffer_pattern`'s syntax: its parser's words.
    #[error("{0}")]
    Piece(String),
    #[error("'%' starts a format: fio knows only %o (the block's offset)")]
    Format,
    #[error("an empty pattern")]
    Empty,
    /// Longer than `buffer_pattern`'s limit.
    #[error("{bytes} bytes: at most {} (fio's limit)", super::buffer_pattern::MAX_PATTERN_BYTES)]
    TooLong { bytes: usize },
}

/// A parsed `verify_pattern`: its bytes (zeros where `%o` goes) and where each `%o` starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyPattern {
    bytes: Vec<u8>,
    offsets: Vec<usize>,
}

impl VerifyPattern {
    /// fio's `verify_pattern` text, or why not.
    pub fn parse(text: &str) -> Result<VerifyPattern, VerifyPatternError> {
        let mut bytes = Vec::new();
        let mut offsets = Vec::new();
        let mut piece = String::new();
        let mut quoted = false;
        let flush = |piece: &mut String, bytes: &mut Vec<u8>| -> Result<(), VerifyPatternError> {
            if !piece.trim().is_empty() {
                let piece = super::buffer_pattern::parse(piece).map_err(VerifyPatternError::Piece)?;
                bytes.extend(piece);
            }
            piece.clear();
            Ok(())
        };
        let mut chars = text.trim().chars().peekable();
        while let Some(c) = chars.next() {
            if c == '"' {
                quoted = !quoted;
            }
            if c == '%' && !quoted {
                if chars.next() != Some('o') {
                    return Err(VerifyPatternError::Format);
                }
                flush(&mut piece, &mut bytes)?;
                offsets.push(bytes.len());
                bytes.extend([0u8; OFFSET_BYTES]);
                continue;
            }
            piece.push(c);
        }
        flush(&mut piece, &mut bytes)?;
        if bytes.is_empty() {
            return Err(VerifyPatternError::Empty);
        }
        if bytes.len() > super::buffer_pattern::MAX_PATTERN_BYTES {
            return Err(VerifyPatternError::TooLong { bytes: bytes.len() });
        }
        Ok(VerifyPattern { bytes, offsets })
    }

    /// Whether the pattern holds `%o` (its bytes depend on where they are written).
    pub fn has_offset(&self) -> bool {
        !self.offsets.is_empty()
    }

    /// Byte `i` of the pattern's first copy in a unit at `offset` (`i` below its length).
    #[inline(always)]
    fn byte_at(&self, i: usize, offset: u64) -> u8 {
        for &o in &self.offsets {
            if (o..o + OFFSET_BYTES).contains(&i) {
                return offset.to_le_bytes()[i - o];
            }
        }
        self.bytes[i]
    }

    /// Fill `buf` (a unit at `offset`) as fio does: the pattern with `%o` pasted, repeated.
    /// Allocates nothing: the first copy, then doubling copies within `buf`.
    pub fn fill(&self, buf: &mut [u8], offset: u64) {
        let first = self.bytes.len().min(buf.len());
        for (i, b) in buf[..first].iter_mut().enumerate() {
            *b = self.byte_at(i, offset);
        }
        let mut done = first;
        while done < buf.len() {
            let n = done.min(buf.len() - done);
            buf.copy_within(..n, done);
            done += n;
        }
    }

    /// Whether `found` (a unit at `offset`) holds exactly what `fill` writes: its first copy
    /// byte by byte, then every byte equal to the one a pattern length before it.
    #[inline]
    pub fn matches(&self, found: &[u8], offset: u64) -> bool {
        let p = self.bytes.len();
        let first = p.min(found.len());
        (0..first).all(|i| found[i] == self.byte_at(i, offset)) && found[first..].iter().zip(found).all(|(a, b)| a == b)
    }
}

impl AccessSpec {
    /// The parsed `verify_pattern` (checked by `validate`).
    pub fn verify_pattern(&self) -> Option<VerifyPattern> {
        VerifyPattern::parse(self.verify_pattern.as_deref()?).ok()
    }

    /// A pattern parses, and is checked by `verify`.
    pub(super) fn validate_verify_pattern(&self) -> Result<(), Error> {
        let Some(text) = &self.verify_pattern else { return Ok(()) };
        let bad = |fix: String| Err(Error::spec(Field::VerifyPattern, format!("'{text}'"), fix));
        if let Err(e) = VerifyPattern::parse(text) {
            return bad(e.to_string());
        }
        if !self.verify {
            return bad("is what {verify} checks reads against: add {verify}, or drop it".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fios_syntax_with_offsets() {
        // fio's own examples in lib/pattern.c.
        let p = VerifyPattern::parse("-100xab\"1\"%o\"2\"").unwrap();
        assert_eq!(p.bytes, [0xf6, 0xff, 0xff, 0xff, 0xab, b'1', 0, 0, 0, 0, 0, 0, 0, 0, b'2']);
        assert_eq!(p.offsets, [6]);
        let p = VerifyPattern::parse("%o0xdeadbeef%o").unwrap();
        assert_eq!((p.bytes.len(), p.offsets.clone()), (20, vec![0, 12]));
        assert_eq!(VerifyPattern::parse("\"%o\"").unwrap().bytes, b"%o", "inside a string, %o is text");
        assert_eq!(VerifyPattern::parse("%x").unwrap_err(), VerifyPatternError::Format);
        assert!(VerifyPattern::parse("").is_err() && VerifyPattern::parse("0xzz").is_err());
    }

    #[test]
    fn fill_pastes_the_offset_and_repeats() {
        let p = VerifyPattern::parse("%o\"ab\"").unwrap();
        let mut buf = vec![0u8; 25];
        p.fill(&mut buf, 0x0102);
        let unit: Vec<u8> = [2, 1, 0, 0, 0, 0, 0, 0, b'a', b'b'].iter().copied().cycle().take(25).collect();
        assert_eq!(buf, unit);
        assert!(p.matches(&buf, 0x0102));
        assert!(!p.matches(&buf, 0x0103), "another offset");
        for i in [0, 9, 10, 24] {
            let mut bad = buf.clone();
            bad[i] ^= 1;
            assert!(!p.matches(&bad, 0x0102), "byte {i} flipped");
        }
        let mut short = [0u8; 3];
        p.fill(&mut short, 0x0102);
        assert_eq!(short, [2, 1, 0]);
        assert!(p.matches(&short, 0x0102));
    }
}
