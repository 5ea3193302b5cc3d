//! fio's options that lay a job's clones over one target and shape what their writes hold:
//! `offset_increment` (bytes, or a percentage of the target resolved once it is probed, with
//! `offset_align`), and the dedupe options (`dedupe_percentage`, `dedupe_mode`,
//! `dedupe_working_set_percentage`, `dedupe_global`) as the engine's `dedupe` field. Under
//! `--cap-size` the clones' layout is shrunk to fit the shortened region ([`cap`]), and the run
//! says how.

use drivelab_engine::spec::AccessSpec;

use super::ini::Opt;
use super::notice::Notice;
use super::value::{boolean, size, within, KbBase};

/// The options this module reads.
pub const KEYS: &[&str] = &[
    "offset_increment",
    "offset_align",
    "dedupe_percentage",
    "dedupe_mode",
    "dedupe_working_set_percentage",
    "dedupe_global",
    "verify_dump",
];

/// What the options set.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stripe {
    increment: Option<u64>,
    increment_pct: Option<u64>,
    align: Option<u64>,
    dedupe_pct: u64,
    working_set: bool,
    working_set_pct: Option<u64>,
    global: bool,
    /// `verify_dump` was read.
    pub dump: bool,
}

/// `offset_increment=P%`: resolved against the target's size when it is probed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IncrementPct {
    pub pct: u64,
    /// fio's rounding of each clone's start: `offset_align`, or the smallest block size.
    pub align: Option<u64>,
}

impl Stripe {
    pub fn apply(&mut self, o: &Opt, value: &str, kb: KbBase) -> Result<(), String> {
        match o.key.as_str() {
            "offset_increment" => {
                if let Some(p) = value.strip_suffix('%') {
                    self.increment_pct = Some(within(p.trim(), 0, 100)?);
                    self.increment = None;
                } else {
                    self.increment = Some(size(value, kb)?);
                    self.increment_pct = None;
                }
            }
            "offset_align" => self.align = Some(size(value, kb)?).filter(|&a| a > 0),
            "dedupe_percentage" => self.dedupe_pct = within(value, 0, 100)?,
            "dedupe_mode" => {
                self.working_set = match value {
                    "repeat" => false,
                    "working_set" => true,
                    _ => return Err("expected repeat or working_set (fio's two modes)".into()),
                }
            }
            "dedupe_working_set_percentage" => self.working_set_pct = Some(within(value, 0, 100)?),
            "dedupe_global" => self.global = boolean(Some(value))?,
            "verify_dump" => self.dump = boolean(Some(value))?,
            _ => unreachable!("only KEYS come here"),
        }
        Ok(())
    }

    /// The engine's fields, and a percentage increment to resolve against the target.
    pub fn fields(
        &self,
        numjobs: u64,
        file_per_clone: bool,
    ) -> Result<(Vec<(String, String)>, Option<IncrementPct>), String> {
        let mut out = Vec::new();
        let spreads = self.increment.is_some_and(|i| i > 0) || self.increment_pct.is_some_and(|p| p > 0);
        if spreads && numjobs > 1 && file_per_clone {
            return Err("offset_increment spreads numjobs clones over one file, and these clones each have their \
                        own (no filename): give filename= (or a target on the command line)"
                .into());
        }
        if let Some(i) = self.increment.filter(|&i| i > 0) {
            out.push(("offset_increment".to_string(), i.to_string()));
        }
        if self.dedupe_pct > 0 {
            let mut d = self.dedupe_pct.to_string();
            if self.working_set {
                d.push_str(&format!(":working_set:{}", self.working_set_pct.unwrap_or(5)));
            } else {
                d.push_str(":repeat");
            }
            if self.global {
                d.push_str(":global");
            }
            out.push(("dedupe".to_string(), d));
        }
        let pct = self.increment_pct.filter(|&p| p > 0).map(|pct| IncrementPct { pct, align: self.align });
        Ok((out, pct))
    }
}

/// `offset_increment=P%` on a target of `size` bytes: fio's increment (P% of the size) and each
/// clone's start rounded up to `align` (or the smallest block), as the fields `offset` and
/// `offset_increment`; refused when the rounded starts are not evenly spaced.
pub fn resolve_pct(p: IncrementPct, size: u64, fields: &mut Vec<(String, String)>) -> Result<(), String> {
    let get = |k: &str| fields.iter().rev().find(|(key, _)| key == k).map(|(_, v)| v.clone());
    let offset: u64 = get("offset").and_then(|v| v.parse().ok()).unwrap_or(0);
    let min_bs = get("bs")
        .map(|b| b.split(',').filter_map(|x| x.split(':').next()?.parse::<u64>().ok()).min().unwrap_or(4096))
        .unwrap_or(4096);
    let align = p.align.unwrap_or(min_bs).max(1);
    let inc = p.pct * size / 100;
    if inc % align != 0 {
        return Err(format!(
            "offset_increment={}%: {inc} bytes of the {size}-byte target, not a multiple of {align} bytes (fio rounds \
             each clone's start up to it, which spaces them unevenly): give offset_increment in bytes",
            p.pct
        ));
    }
    fields.push(("offset".into(), offset.next_multiple_of(align).to_string()));
    fields.push(("offset_increment".into(), inc.to_string()));
    Ok(())
}

/// Under `--cap-size CAP`: a spec whose clones, `offset_increment` apart, reach past `CAP` bytes
/// from its offset gets an increment of `CAP / jobs` (whole blocks) and regions that end within
/// the cap; the fields, and the sentence saying so.
pub fn cap(cap: u64, spec: &AccessSpec, job: &str) -> Option<(Vec<(String, String)>, Notice)> {
    let inc = spec.offset_increment_bytes;
    let n = spec.jobs as u64;
    if inc == 0 || n <= 1 {
        return None;
    }
    let grain = spec.max_bs().max(spec.align()).max(spec.verify_unit().unwrap_or(1));
    let span = spec.span_bytes.unwrap_or(cap).min(cap);
    if (n - 1).saturating_mul(inc).saturating_add(span) <= cap {
        return None;
    }
    let new_inc = (cap / n / grain).max(1) * grain;
    let room = cap.saturating_sub((n - 1) * new_inc);
    let new_span = (span.min(room) / grain).max(1) * grain;
    let note = Notice::CapIncrement {
        job: job.to_string(),
        jobs: n,
        from: spec.offset_bytes,
        increment: new_inc,
        was: inc,
        cap,
        span: new_span,
        verify: spec.verify,
    };
    Some((vec![("offset_increment".into(), new_inc.to_string()), ("span".into(), new_span.to_string())], note))
}

#[cfg(test)]
mod tests {
    use super::*;
    use drivelab_engine::options::from_pairs;

    fn opt(k: &str, v: &str) -> Opt {
        Opt { key: k.into(), value: Some(v.into()), line: 1 }
    }

    #[test]
    fn options_become_the_engines_fields() {
        let mut s = Stripe::default();
        for (k, v) in [
            ("offset_increment", "124g"),
            ("dedupe_percentage", "50"),
            ("dedupe_mode", "working_set"),
            ("dedupe_working_set_percentage", "20"),
            ("dedupe_global", "1"),
        ] {
            s.apply(&opt(k, v), v, KbBase::Binary).unwrap();
        }
        let (f, pct) = s.fields(30, false).unwrap();
        assert_eq!(f[0], ("offset_increment".to_string(), (124u64 << 30).to_string()));
        assert_eq!(f[1], ("dedupe".to_string(), "50:working_set:20:global".to_string()));
        assert!(pct.is_none());
        assert!(s.fields(30, true).unwrap_err().contains("filename="));
        assert!(s.apply(&opt("dedupe_mode", "often"), "often", KbBase::Binary).is_err());
        assert!(s.apply(&opt("dedupe_percentage", "101"), "101", KbBase::Binary).is_err());
    }

    #[test]
    fn a_percentage_is_of_the_target_and_rounds_the_starts_as_fio_does() {
        let mut f = vec![("bs".to_string(), "16384".to_string()), ("offset".to_string(), "122880".to_string())];
        resolve_pct(IncrementPct { pct: 25, align: None }, 4 << 20, &mut f).unwrap();
        // fio: start = ceil((120k + k * 1m) / 16k) * 16k = 128k + k * 1m.
        assert_eq!(f[2], ("offset".to_string(), (128u64 << 10).to_string()));
        assert_eq!(f[3], ("offset_increment".to_string(), (1u64 << 20).to_string()));
        let e = resolve_pct(IncrementPct { pct: 33, align: None }, 4 << 20, &mut f).unwrap_err();
        assert!(e.contains("in bytes"), "{e}");
    }

    #[test]
    fn the_cap_shrinks_the_layout_to_fit() {
        let spec = from_pairs([
            ("jobs", "30"),
            ("offset", "120k"),
            ("offset_increment", "124g"),
            ("bs", "16k"),
            ("verify", "true"),
            ("io_size", "1m"),
        ])
        .unwrap();
        let (f, note) = cap(1 << 20, &spec, "write-verify").unwrap();
        let note = note.to_string();
        assert_eq!(f, vec![("offset_increment".into(), "32768".into()), ("span".into(), "98304".into())]);
        assert!(note.contains("30 jobs start every 32768 bytes from offset 122880"), "{note}");
        let mut fitted = spec.clone();
        fitted.offset_increment_bytes = 32768;
        fitted.span_bytes = Some(98304);
        assert!(fitted.offset_bytes + 29 * 32768 + 98304 <= (120 << 10) + (1 << 20), "inside the capped region");
        let small =
            from_pairs([("jobs", "2"), ("offset_increment", "64k"), ("span", "64k"), ("io_size", "1m")]).unwrap();
        assert!(cap(1 << 20, &small, "j").is_none(), "a layout inside the cap is kept");
    }
}
