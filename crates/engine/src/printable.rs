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
}
