//! fio's `buffer_pattern`: the bytes every write buffer holds, repeated from each buffer's start
//! (so each I/O's data begins with the pattern's first byte, as in fio). The syntax is fio 3.33's
//! (`lib/pattern.c`): pieces concatenated in any order — `0x` hex digits (in written order; an
//! odd count takes one digit for the first byte), a decimal number (its bytes little-endian,
//! as few as hold it, a negative one as 4 bytes of two's complement, 0 as one zero byte), a
//! `"string"` (its bytes). fio's `'file'` piece is refused. At most 512 bytes (fio's limit).
//! Saved in the spec as hex (`buffer_pattern_hex`); the buffers are filled once per job, and
//! writes are not stamped.

use super::AccessSpec;
use crate::error::Error;
use crate::options::Field;

/// fio's `MAX_PATTERN_SIZE`.
pub const MAX_PATTERN_BYTES: usize = 512;

/// The bytes of fio's pattern `text`, or why not.
pub fn parse(text: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        if let Some(s) = rest.strip_prefix('"') {
            let end = s.find('"').ok_or("a string without its closing \"")?;
            out.extend_from_slice(&s.as_bytes()[..end]);
            rest = &s[end + 1..];
        } else if rest.starts_with('\'') {
            return Err("a file's contents ('FILE') is not supported: give the bytes as 0x.. or \"text\"".into());
        } else if is_0x(rest.get(..2)) {
            let body = &rest[2..];
            let mut n = body.find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(body.len());
            // fio: `0xff0x14` is two pieces — the 0 of the next 0x is not a digit of this one.
            if n > 0 && is_0x(body.get(n - 1..n + 1)) {
                n -= 1;
            }
            if n == 0 {
                return Err(format!("'{rest}': 0x needs hex digits"));
            }
            let digits = &body[..n];
            let (first, pairs) = digits.split_at(n % 2);
            if !first.is_empty() {
                out.push(u8::from_str_radix(first, 16).map_err(|e| e.to_string())?);
            }
            for i in (0..pairs.len()).step_by(2) {
                out.push(u8::from_str_radix(&pairs[i..i + 2], 16).map_err(|e| e.to_string())?);
            }
            rest = &body[n..];
        } else {
            let sign = usize::from(rest.starts_with('-') || rest.starts_with('+'));
            let mut end = sign + rest[sign..].find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len() - sign);
            // fio: a decimal runs up to a following 0x (`120x14` is 12, then 0x14).
            if end > sign && is_0x(rest.get(end - 1..end + 1)) {
                end -= 1;
            }
            if end == sign {
                return Err(format!("'{rest}': expected 0x hex, a decimal number or a \"string\""));
            }
            let v: i64 = rest[..end].parse().map_err(|_| format!("'{}' is not a number", &rest[..end]))?;
            if v > i32::MAX as i64 || v < i32::MIN as i64 {
                return Err(format!("'{v}' is outside a 32-bit number (fio's limit)"));
            }
            let mut u = v as i32 as u32;
            if u == 0 {
                out.push(0);
            }
            while u != 0 {
                out.push(u as u8);
                u >>= 8;
            }
            rest = &rest[end..];
        }
        rest = rest.trim_start();
    }
    if out.is_empty() {
        return Err("an empty pattern".into());
    }
    if out.len() > MAX_PATTERN_BYTES {
        return Err(format!("{} bytes: at most {MAX_PATTERN_BYTES} (fio's limit)", out.len()));
    }
    Ok(out)
}

/// `0x` (either case), for a slice that may not exist.
fn is_0x(two: Option<&str>) -> bool {
    two.is_some_and(|t| t.eq_ignore_ascii_case("0x"))
}

pub fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl AccessSpec {
    /// The bytes of `buffer_pattern_hex` (checked by `validate`).
    pub fn buffer_pattern(&self) -> Option<Vec<u8>> {
        let hex = self.buffer_pattern_hex.as_deref()?;
        (0..hex.len() / 2).map(|i| u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()).collect()
    }

    /// A pattern is whole hex of at most 512 bytes, and the only data: not with `verify`'s
    /// stamped headers, nor another `data`.
    pub(super) fn validate_buffer_pattern(&self) -> Result<(), Error> {
        let Some(hex) = &self.buffer_pattern_hex else { return Ok(()) };
        let bad = |fix: &str| Err(Error::spec(Field::BufferPattern, format!("0x{hex}"), fix));
        match self.buffer_pattern() {
            Some(b) if !b.is_empty() && b.len() <= MAX_PATTERN_BYTES && hex.len() % 2 == 0 => {}
            _ => return bad("give 1 to 512 bytes as hex digits"),
        }
        if self.verify {
            return bad("the written data is the pattern, with no room for {verify}'s headers: drop one of them");
        }
        if self.data != super::DataPattern::Random {
            return bad("the written data is the pattern: drop {data}");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fios_pattern_syntax() {
        assert_eq!(parse("0xdeadface").unwrap(), vec![0xde, 0xad, 0xfa, 0xce]);
        assert_eq!(parse("0xabc").unwrap(), vec![0x0a, 0xbc], "an odd digit count: the first alone");
        assert_eq!(parse("\"abcd\"").unwrap(), b"abcd".to_vec());
        assert_eq!(parse("-12").unwrap(), vec![0xf4, 0xff, 0xff, 0xff]);
        assert_eq!(parse("258").unwrap(), vec![0x02, 0x01]);
        assert_eq!(parse("0").unwrap(), vec![0]);
        assert_eq!(parse("0xff0x14").unwrap(), vec![0xff, 0x14]);
        assert_eq!(parse("120x14").unwrap(), vec![12, 0x14]);
        assert_eq!(
            parse("0xdeadface\"abcd\"-12").unwrap(),
            vec![0xde, 0xad, 0xfa, 0xce, b'a', b'b', b'c', b'd', 0xf4, 0xff, 0xff, 0xff]
        );
        assert!(parse("'file'").unwrap_err().contains("not supported"));
        assert!(parse("\"open").is_err());
        assert!(parse("4294967296").is_err());
        assert!(parse("x").is_err());
        assert!(parse("0x€").is_err() && parse("1€").is_err() && parse("€").is_err(), "never a panic");
        assert!(parse(&format!("\"{}\"", "a".repeat(513))).unwrap_err().contains("at most 512"));
    }
}
