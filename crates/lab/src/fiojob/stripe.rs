//! fio's options that lay a job's clones over one target and shape what their writes hold:
//! `offset_increment` (bytes, or a percentage of the target resolved once it is probed, with
//! `offset_align`), and the dedupe options (`dedupe_percentage`, `dedupe_mode`,
//! `dedupe_working_set_percentage`, `dedupe_global`) as the engine's `dedupe` field. Under
//! `--cap-size` the clones' layout is shrunk to fit the shortened region ([`cap`]), and the run
//! says how.

use drivelab_engine::spec::dedupe::{Dedupe, DedupeMode};
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

    /// Give `spec` the increment and the dedupe; a percentage increment is returned, to resolve
    /// against the target.
    pub fn set(
        &self,
        spec: &mut AccessSpec,
        numjobs: u64,
        file_per_clone: bool,
    ) -> Result<Option<IncrementPct>, String> {
        let spreads = self.increment.is_some_and(|i| i > 0) || self.increment_pct.is_some_and(|p| p > 0);
        if spreads && numjobs > 1 && file_per_clone {
            return Err("offset_increment spreads numjobs clones over one file, and these clones each have their \
                        own (no filename): give filename= (or a target on the command line)"
                .into());
        }
        if let Some(i) = self.increment.filter(|&i| i > 0) {
            spec.offset_increment_bytes = i;
        }
        if self.dedupe_pct > 0 {
            // Percentages: at most 100 (`within` above).
            spec.dedupe = Some(Dedupe {
                pct: self.dedupe_pct as u8,
                mode: if self.working_set { DedupeMode::WorkingSet } else { DedupeMode::Repeat },
                working_set_pct: self.working_set_pct.unwrap_or(5) as u8,
                global: self.global,
            });
        }
        Ok(self.increment_pct.filter(|&p| p > 0).map(|pct| IncrementPct { pct, align: self.align }))
    }
}

/// `offset_increment=P%` on a target of `size` bytes: fio's increment (P% of the size) and each
/// clone's start rounded up to `align` (or the smallest block), given to `spec`'s offset and
/// increment; refused when the rounded starts are not evenly spaced.
pub fn resolve_pct(p: IncrementPct, size: u64, spec: &mut AccessSpec) -> Result<(), String> {
    let min_bs = spec.bs.iter().map(|b| b.bytes).min().unwrap_or(4096);
    let align = p.align.unwrap_or(min_bs).max(1);
    let inc = p.pct * size / 100;
    if inc % align != 0 {
        return Err(format!(
            "offset_increment={}%: {inc} bytes of the {size}-byte target, not a multiple of {align} bytes (fio rounds \
             each clone's start up to it, which spaces them unevenly): give offset_increment in bytes",
            p.pct
        ));
    }
    spec.offset_bytes = spec.offset_bytes.next_multiple_of(align);
    spec.offset_increment_bytes = inc;
    Ok(())
}

/// Under `--cap-size CAP`: a spec whose clones, `offset_increment` apart, reach past `CAP` bytes
/// from its offset gets an increment of `CAP / jobs` (whole blocks) and regions that end within
/// the cap, and the sentence saying so.
pub fn cap(cap: u64, spec: &mut AccessSpec, job: &str) -> Option<Notice> {
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
    spec.offset_increment_bytes = new_inc;
    spec.span_bytes = Some(new_span);
    Some(note)
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
        let mut spec = AccessSpec::default();
        let pct = s.set(&mut spec, 30, false).unwrap();
        assert_eq!(spec.offset_increment_bytes, 124 << 30);
        let d = Dedupe { pct: 50, mode: DedupeMode::WorkingSet, working_set_pct: 20, global: true };
        assert_eq!(spec.dedupe, Some(d));
        assert!(pct.is_none());
        assert!(s.set(&mut spec, 30, true).unwrap_err().contains("filename="));
        assert!(s.apply(&opt("dedupe_mode", "often"), "often", KbBase::Binary).is_err());
        assert!(s.apply(&opt("dedupe_percentage", "101"), "101", KbBase::Binary).is_err());
    }

    #[test]
    fn a_percentage_is_of_the_target_and_rounds_the_starts_as_fio_does() {
        let mut spec = from_pairs([("bs", "16384"), ("offset", "122880")]).unwrap();
        resolve_pct(IncrementPct { pct: 25, align: None }, 4 << 20, &mut spec).unwrap();
        // fio: start = ceil((120k + k * 1m) / 16k) * 16k = 128k + k * 1m.
        assert_eq!((spec.offset_bytes, spec.offset_increment_bytes), (128 << 10, 1 << 20));
        let e = resolve_pct(IncrementPct { pct: 33, align: None }, 4 << 20, &mut spec).unwrap_err();
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
        let mut fitted = spec.clone();
        let note = cap(1 << 20, &mut fitted, "write-verify").unwrap().to_string();
        assert_eq!((fitted.offset_increment_bytes, fitted.span_bytes), (32768, Some(98304)));
        assert!(note.contains("30 jobs start every 32768 bytes from offset 122880"), "{note}");
        assert!(fitted.offset_bytes + 29 * 32768 + 98304 <= (120 << 10) + (1 << 20), "inside the capped region");
        let mut small =
            from_pairs([("jobs", "2"), ("offset_increment", "64k"), ("span", "64k"), ("io_size", "1m")]).unwrap();
        let before = small.clone();
        assert!(cap(1 << 20, &mut small, "j").is_none(), "a layout inside the cap is kept");
        assert_eq!(small, before);
    }
}
