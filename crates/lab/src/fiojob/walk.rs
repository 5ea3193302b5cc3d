//! fio's options that shape the walk over the region (the engine's `spec/stride.rs`): the `:N`
//! of `rw=WORD:N` (read by the `rw` arm through [`rw_suffix`]), `rw_sequencer`, and
//! `zonemode=strided` with `zonerange`, `zonesize`, `zoneskip`. Kept beside `options.rs` so
//! its table only gains one arm delegating here.

use super::ini::Opt;
use super::value::{size, KbBase};

/// The options this module reads.
pub const KEYS: &[&str] = &["rw_sequencer", "zonemode", "zonerange", "zonesize", "zoneskip"];

/// What the walk's options set, made into fields by [`Walk::fields`].
#[derive(Default)]
pub struct Walk {
    sequencer: Option<&'static str>,
    /// `zonemode` as given: None (fio: strided when `zonesize` is given), Some(true) strided.
    strided: Option<bool>,
    range: Option<u64>,
    size: Option<u64>,
    skip: Option<u64>,
}

/// The `:N` of fio's `rw=WORD:N` in drivelab's spelling: for a random word a count of I/Os
/// (fio's `atoi`), otherwise bytes (fio's sizes, with `kb_base`; a leading `-` walks backwards).
pub fn rw_suffix(word: &str, n: &str, kb: KbBase) -> Result<String, String> {
    let n = n.trim();
    if word.starts_with("rand") {
        let count: u32 = n.parse().map_err(|_| {
            format!(
                "after {word}, N is a count of I/Os (a new random offset every N I/Os): '{n}' is not a whole number"
            )
        })?;
        return Ok(count.to_string());
    }
    let (sign, body) = match n.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", n),
    };
    Ok(format!("{sign}{}", size(body, kb)?))
}

impl Walk {
    /// Read option `o` (one of [`KEYS`]) with its `value`.
    pub fn apply(&mut self, o: &Opt, value: &str, kb: KbBase) -> Result<(), String> {
        let sz = |v: &str| size(v, kb);
        match o.key.as_str() {
            "rw_sequencer" => {
                self.sequencer = Some(match value {
                    "sequential" => "sequential",
                    "identical" => "identical",
                    _ => return Err("expected sequential or identical".into()),
                })
            }
            "zonemode" => {
                self.strided = Some(match value {
                    "none" => false,
                    "strided" => true,
                    "zbd" => return Err("zoned block devices (zbd) are not supported; use none or strided".into()),
                    _ => return Err("expected none or strided".into()),
                })
            }
            "zonerange" => self.range = Some(sz(value)?),
            "zonesize" => self.size = Some(sz(value)?),
            "zoneskip" => self.skip = Some(sz(value)?),
            _ => unreachable!("walk::apply called for {}", o.key),
        }
        Ok(())
    }

    /// The fields these options set, checked together as fio checks them.
    pub fn fields(&self) -> Result<Vec<(String, String)>, String> {
        let mut out = Vec::new();
        if let Some(s) = self.sequencer {
            out.push(("rw_sequencer".to_string(), s.to_string()));
        }
        let size = self.size.filter(|&s| s > 0);
        let strided = match (self.strided, size) {
            (Some(false), Some(_)) => return Err("zonemode=none and zonesize do not go together (as in fio)".into()),
            (Some(true), None) => return Err("zonemode=strided needs zonesize (as in fio)".into()),
            (Some(s), _) => s,
            // fio: a zonesize without zonemode is strided.
            (None, s) => s.is_some(),
        };
        if strided {
            let size = size.unwrap_or_default();
            out.push(("zone_size".into(), size.to_string()));
            // fio: zonerange defaults to zonesize.
            out.push(("zone_range".into(), self.range.filter(|&r| r > 0).unwrap_or(size).to_string()));
            if let Some(k) = self.skip {
                out.push(("zone_skip".into(), k.to_string()));
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fiojob::options::translate;

    fn opts(text: &str) -> Vec<Opt> {
        text.lines()
            .enumerate()
            .map(|(i, l)| {
                let (k, v) = l.split_once('=').unwrap();
                Opt { key: k.into(), value: Some(v.into()), line: i + 1 }
            })
            .collect()
    }

    fn fields(text: &str) -> Result<Vec<(String, String)>, String> {
        translate("j", 1, &opts(text)).map(|j| j.fields).map_err(|e| format!("{}: {}", e.line, e.message))
    }

    fn field(text: &str, key: &str) -> Option<String> {
        fields(text).unwrap().into_iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    #[test]
    fn rw_suffixes_in_drivelabs_spelling_with_fios_units() {
        assert_eq!(field("rw=read:-8k", "rw").as_deref(), Some("read:-8192"));
        assert_eq!(field("kb_base=1000\nrw=write:64k", "rw").as_deref(), Some("write:64000"));
        assert_eq!(field("rw=randread:8", "rw").as_deref(), Some("randread:8"));
        // A later plain rw drops the suffix, as fio's rw callback resets it.
        assert_eq!(field("rw=write:64k\nrw=write", "rw").as_deref(), Some("write"));
        let e = fields("size=1m\nrw=randread:8k").unwrap_err();
        assert!(e.starts_with("2: rw=randread:8k") && e.contains("count of I/Os"), "{e}");
        let e = fields("rw=bogus:4k").unwrap_err();
        assert!(e.contains("expected read"), "{e}");
    }

    #[test]
    fn zones_follow_fios_rules() {
        let f = fields("zonesize=256m\nzoneskip=2g").unwrap();
        let get = |k: &str| f.iter().find(|(key, _)| key == k).map(|(_, v)| v.as_str());
        assert_eq!(
            (get("zone_size"), get("zone_range"), get("zone_skip")),
            (Some("268435456"), Some("268435456"), Some("2147483648"))
        );
        assert_eq!(field("zonemode=strided\nzonesize=16k\nzonerange=64k", "zone_range").as_deref(), Some("65536"));
        assert_eq!(field("zonemode=none\nzonerange=64k", "zone_range"), None, "no zones without zonesize");
        assert!(fields("zonemode=strided\nzonerange=64k").unwrap_err().contains("needs zonesize"));
        assert!(fields("zonemode=none\nzonesize=64k").unwrap_err().contains("do not go together"));
        assert!(fields("zonemode=zbd").unwrap_err().starts_with("1: zonemode=zbd: zoned block devices"));
        assert_eq!(field("rw=randread:4\nrw_sequencer=identical", "rw_sequencer").as_deref(), Some("identical"));
        assert!(fields("rw_sequencer=backwards").unwrap_err().contains("sequential or identical"));
    }
}
