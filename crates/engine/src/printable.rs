//! Text that reaches a terminal or a file people `cat` never carries what a terminal obeys.
//! Labels, notices, job names, plan and step names, target paths and `compare --label`s can come
//! from someone else's results directory, job file or plan; an ESC, BEL, CSI or OSC byte in one
//! would clear the screen, retitle the terminal, plant an OSC-8 link or paint a fake pass, and a
//! carriage return or a bidi override makes a line read as something it is not. Every text
//! output (stdout, stderr, the live line, text/Markdown/CSV files, fio's formats) goes through
//! [`printable`], once, where it leaves drivelab.
//!
//! An escaped character is written `\uXXXX`: visible and inert on a terminal, and in JSON the
//! escape of the same character, so JSON passed through stays valid and means what it meant.

use std::borrow::Cow;

/// A character a terminal may act on or that reorders text: control characters (C0 but line
/// feed and tab, DEL, C1) and the Unicode bidirectional overrides and isolates.
pub fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}')
}

/// `text` with every [`is_unsafe`] character written `\uXXXX` (unchanged, and not copied, when
/// it has none).
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_unsafe(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A writer that writes what it is given as [`printable`] would: for a document streamed out (a
/// report of 100,000 points as JSON) instead of built whole and escaped in one piece. Its input
/// is UTF-8 text, possibly cut anywhere (a character split between two writes is held until its
/// last byte comes); bytes that are not UTF-8 pass through as they are.
pub struct PrintableWriter<W: std::io::Write> {
    inner: W,
    /// The start of a character whose last bytes have not come yet.
    held: [u8; 4],
    n_held: usize,
}

impl<W: std::io::Write> PrintableWriter<W> {
    pub fn new(inner: W) -> Self {
        PrintableWriter { inner, held: [0; 4], n_held: 0 }
    }

    /// The inner writer (anything held back, an unfinished character, is written first).
    pub fn into_inner(mut self) -> std::io::Result<W> {
        let n = std::mem::take(&mut self.n_held);
        let held = self.held;
        self.inner.write_all(&held[..n])?;
        Ok(self.inner)
    }

    /// Write `text` (whole characters) escaped.
    fn text(&mut self, text: &str) -> std::io::Result<()> {
        let mut from = 0;
        for (i, c) in text.char_indices().filter(|&(_, c)| is_unsafe(c)) {
            self.inner.write_all(&text.as_bytes()[from..i])?;
            write!(self.inner, "\\u{:04x}", c as u32)?;
            from = i + c.len_utf8();
        }
        self.inner.write_all(&text.as_bytes()[from..])
    }

    /// Write `bytes`: the UTF-8 in it escaped, an unfinished last character held.
    fn bytes(&mut self, mut bytes: &[u8]) -> std::io::Result<()> {
        while !bytes.is_empty() {
            match std::str::from_utf8(bytes) {
                Ok(text) => return self.text(text),
                Err(e) => {
                    let (good, rest) = bytes.split_at(e.valid_up_to());
                    // `good` is valid UTF-8, as from_utf8 said.
                    self.text(std::str::from_utf8(good).unwrap_or_default())?;
                    match e.error_len() {
                        // Not UTF-8: passed through as it is.
                        Some(n) => {
                            self.inner.write_all(&rest[..n])?;
                            bytes = &rest[n..];
                        }
                        // A character cut short: held for the next write.
                        None => {
                            self.held[..rest.len()].copy_from_slice(rest);
                            self.n_held = rest.len();
                            return Ok(());
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

impl<W: std::io::Write> std::io::Write for PrintableWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.n_held > 0 {
            // The held bytes begin a character (a valid prefix): its lead byte says its length.
            let n = self.n_held;
            let len = match self.held[0] {
                0xf0.. => 4,
                0xe0.. => 3,
                _ => 2,
            };
            let need = (len - n).min(buf.len());
            let mut joined = self.held;
            joined[n..n + need].copy_from_slice(&buf[..need]);
            self.n_held = 0;
            if n + need < len {
                self.held = joined;
                self.n_held = n + need;
                return Ok(buf.len());
            }
            self.bytes(&joined[..len])?;
            self.bytes(&buf[need..])?;
            return Ok(buf.len());
        }
        self.bytes(buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_visible_and_json_stays_json() {
        assert!(matches!(printable("read 4k qd8 µs\n\tok"), Cow::Borrowed(_)));
        assert_eq!(printable("a\u{1b}[2Jb\u{7}c\rd"), "a\\u001b[2Jb\\u0007c\\u000dd");
        assert_eq!(printable("\u{9b}31m \u{202e}SSAP"), "\\u009b31m \\u202eSSAP");
        // An OSC-8 link and a title change are plain text afterwards.
        let osc = "\u{1b}]8;;http://x\u{7}click\u{1b}]8;;\u{7}";
        assert!(!printable(osc).chars().any(is_unsafe));
        // JSON with a C1 character or a bidi override inside a string (serde_json leaves both
        // raw) is still JSON, and the same value.
        let v = serde_json::json!({"label": "x\u{9b}y\u{202e}z\u{1b}"});
        let text = serde_json::to_string(&v).unwrap();
        let back: serde_json::Value = serde_json::from_str(&printable(&text)).unwrap();
        assert_eq!(back, v);
    }

    #[test]
    fn the_writer_escapes_as_printable_does_however_the_text_is_cut() {
        use std::io::Write;
        let text = "a\u{1b}[2Jb é \u{9b}31m \u{202e}SSAP 漢字 \u{7}\n\tok";
        let want = printable(text).into_owned();
        let bytes = text.as_bytes();
        // Cut into pieces of every size from 1 byte (every character split) to whole.
        for size in 1..=bytes.len() {
            let mut w = PrintableWriter::new(Vec::new());
            for piece in bytes.chunks(size) {
                w.write_all(piece).unwrap();
            }
            assert_eq!(String::from_utf8(w.into_inner().unwrap()).unwrap(), want, "pieces of {size}");
        }
        // Bytes that are not UTF-8 pass through; an unfinished last character is written at the end.
        let mut w = PrintableWriter::new(Vec::new());
        w.write_all(b"x\xffy\xe6\xbc").unwrap();
        assert_eq!(w.into_inner().unwrap(), b"x\xffy\xe6\xbc");
    }
}
