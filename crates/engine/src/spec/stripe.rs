//! fio's `offset_increment`: a target's jobs (fio's numjobs clones) each start further into it,
//! job `j` at `offset + j * increment` — fio's way of splitting a drive into sections, one per
//! clone. Each job's region is `span` long (or runs to the end of the target); with verify a job
//! keeps to the `increment` bytes before the next one starts, so every unit has one writer.

use super::AccessSpec;
use crate::error::Error;
use crate::options::Field;

impl AccessSpec {
    /// Job `j`'s region, given the target's `[start, start + span)` (the first job's).
    pub fn clone_region(&self, start: u64, span: u64, j: u64) -> (u64, u64) {
        let inc = self.offset_increment_bytes;
        if inc == 0 || self.jobs <= 1 || j == 0 && !self.verify {
            return (start, span);
        }
        let s = start + j * inc;
        let mut len = match self.span_bytes {
            Some(given) => given,
            None => span - j * inc,
        };
        if self.verify {
            len = len.min(inc);
        }
        (s, len)
    }

    /// With `offset_increment`: every job's region lies inside a target of `size` bytes, and
    /// starts where the target can take its I/O.
    pub(super) fn check_increment(&self, target: &str, size: u64, span: u64, dio_align: u64) -> Result<(), Error> {
        let inc = self.offset_increment_bytes;
        if inc == 0 || self.jobs <= 1 {
            return Ok(());
        }
        let bad = |fix: String| Err(Error::spec(Field::OffsetIncrement, inc.to_string(), fix));
        let last = self.jobs as u64 - 1;
        let reach = last.checked_mul(inc).filter(|&x| self.offset_bytes.checked_add(x).is_some());
        let fits = reach.is_some_and(|x| self.span_bytes.is_some() || span > x) && {
            let (start, len) = self.clone_region(self.offset_bytes, span, last);
            start.checked_add(len).is_some_and(|end| end <= size) && len >= self.max_bs()
        };
        if !fits {
            let room = size.saturating_sub(self.offset_bytes + self.span_bytes.unwrap_or(self.max_bs())) / last;
            return bad(format!(
                "job {last} (the last of {{jobs}} {}) would start at {} or end past {target} ({size} bytes): give \
                 {{offset_increment}} at most {room}, or fewer jobs",
                self.jobs,
                self.offset_bytes.saturating_add(last.saturating_mul(inc))
            ));
        }
        if self.direct && !inc.is_multiple_of(dio_align) {
            return bad(format!(
                "not a multiple of {target}'s O_DIRECT alignment ({dio_align} bytes): every job must start aligned"
            ));
        }
        if self.verify {
            let unit = self.verify_unit().unwrap_or(4096);
            if inc < self.max_bs() || !inc.is_multiple_of(unit) {
                return bad(format!(
                    "with verify each job writes the {inc} bytes up to the next job's start: give a multiple of the \
                     verify unit ({unit} bytes) of at least one {}-byte block",
                    self.max_bs()
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::options::from_pairs;

    #[test]
    fn each_job_starts_one_increment_further() {
        let s = from_pairs([("jobs", "4"), ("offset", "120k"), ("offset_increment", "1m"), ("bs", "16k")]).unwrap();
        assert_eq!(s.clone_region(120 << 10, 8 << 20, 0), (120 << 10, 8 << 20));
        assert_eq!(s.clone_region(120 << 10, 8 << 20, 3), ((120 << 10) + (3 << 20), (8 << 20) - (3 << 20)));
        assert!(s.check_increment("t", (120 << 10) + (8 << 20), 8 << 20, 512).is_ok());
        let e = s.check_increment("t", 3 << 20, 3 << 20, 512).unwrap_err().cli_message();
        assert!(e.contains("job 3") && e.contains("at most"), "{e}");
        let v = from_pairs([("jobs", "2"), ("offset_increment", "64k"), ("span", "1m"), ("verify", "true")]).unwrap();
        assert_eq!(v.clone_region(0, 1 << 20, 1), (64 << 10, 64 << 10), "verify: up to the next job");
        assert_eq!(v.clone_region(0, 1 << 20, 0), (0, 64 << 10));
        let odd = from_pairs([("jobs", "2"), ("offset_increment", "1000"), ("bs", "512")]).unwrap();
        assert!(odd.check_increment("t", 1 << 20, 1 << 20, 512).unwrap_err().cli_message().contains("O_DIRECT"));
    }
}
