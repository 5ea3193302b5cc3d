//! fio's reporting options: which latencies list percentiles (`slat_percentiles`,
//! `clat_percentiles`, `lat_percentiles`), which percentiles (`percentile_list`), and whether
//! the directions are reported apart, summed into one `mixed` direction, or both
//! (`unified_rw_reporting`). They change what fio writes, never what runs: the job reader
//! checks each value as fio does (a value fio refuses is refused before the run) and fio's
//! output formats read the saved options back through [`Reporting::of`] — one parser for both.

/// fio's `FIO_IO_U_LIST_MAX_LEN`: the most percentiles a list holds.
pub const MAX_PERCENTILES: usize = 20;

/// A reporting option's value fio would refuse, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BadValue {
    /// More percentiles than fio's list holds.
    TooMany,
    /// An item that is not a number.
    NotANumber(String),
    /// A percentile outside 0..=100.
    OutOfRange(String),
    /// A word `unified_rw_reporting` does not know.
    UnknownWord(String),
}

impl std::fmt::Display for BadValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BadValue::TooMany => {
                write!(f, "more than {MAX_PERCENTILES} percentiles (fio's limit); give at most {MAX_PERCENTILES}")
            }
            BadValue::NotANumber(v) => write!(f, "'{v}' is not a number; give percentiles such as 50:99:99.9"),
            BadValue::OutOfRange(v) => write!(f, "{v} is outside 0..100"),
            BadValue::UnknownWord(v) => write!(f, "'{v}': expected none, mixed or both (or 0, 1, 2)"),
        }
    }
}

/// fio's default `percentile_list`.
pub const DEFAULT_PERCENTILES: &str = "1:5:10:20:30:40:50:60:70:80:90:95:99:99.5:99.9:99.95:99.99";

/// A `percentile_list`: up to 20 percentiles, sorted as fio sorts them before it reports, and
/// the digits fio prints after the point (the most any value was given with).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PercentileList {
    values: [f64; MAX_PERCENTILES],
    len: u8,
    /// Digits after the point in fio's normal output (`percentile_precision`).
    pub precision: u8,
}

impl PercentileList {
    /// The percentiles, ascending.
    pub fn values(&self) -> &[f64] {
        &self.values[..usize::from(self.len)]
    }

    /// `text` as fio reads a `percentile_list`: `:`-separated numbers in 0..=100, at most 20;
    /// as in fio, a 0 ends the list.
    pub fn parse(text: &str) -> Result<PercentileList, BadValue> {
        let mut values = [0.0; MAX_PERCENTILES];
        let (mut len, mut precision, mut ended) = (0usize, 0u8, false);
        for item in text.split(':').map(str::trim) {
            if len == MAX_PERCENTILES {
                return Err(BadValue::TooMany);
            }
            let v: f64 = item
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite())
                .ok_or_else(|| BadValue::NotANumber(item.to_string()))?;
            if !(0.0..=100.0).contains(&v) {
                return Err(BadValue::OutOfRange(item.to_string()));
            }
            let digits = item.split_once('.').map_or(0, |(_, f)| f.bytes().take_while(u8::is_ascii_digit).count());
            precision = precision.max(digits.min(9) as u8);
            if v == 0.0 {
                ended = true;
            }
            if !ended {
                values[len] = v;
                len += 1;
            }
        }
        values[..len].sort_by(f64::total_cmp);
        Ok(PercentileList { values, len: len as u8, precision })
    }
}

impl Default for PercentileList {
    fn default() -> PercentileList {
        PercentileList::parse(DEFAULT_PERCENTILES).expect("fio's default list reads")
    }
}

/// fio's `unified_rw_reporting`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Unified {
    /// Each direction apart (`none`, `0`).
    #[default]
    Split,
    /// The directions summed into one, named `mixed` (`mixed`, `1`).
    Mixed,
    /// Each direction, then the sum as `mixed` (`both`, `2`).
    Both,
}

impl Unified {
    pub fn parse(text: &str) -> Result<Unified, BadValue> {
        match text.trim() {
            "none" | "0" => Ok(Unified::Split),
            "mixed" | "1" => Ok(Unified::Mixed),
            "both" | "2" => Ok(Unified::Both),
            v => Err(BadValue::UnknownWord(v.to_string())),
        }
    }
}

/// A job's reporting options.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reporting {
    pub slat: bool,
    pub clat: bool,
    pub lat: bool,
    pub list: PercentileList,
    pub unified: Unified,
}

impl Default for Reporting {
    /// fio's defaults: clat's percentiles only, fio's list, directions apart.
    fn default() -> Reporting {
        Reporting { slat: false, clat: true, lat: false, list: PercentileList::default(), unified: Unified::Split }
    }
}

impl Reporting {
    /// From a job's saved options (`[global]`'s, then its own; a later one wins; a bare flag is
    /// on). The values were checked when the job was read; one that does not read (a results
    /// file edited since) leaves fio's default.
    pub fn of<'o>(options: impl IntoIterator<Item = &'o (String, String)>) -> Reporting {
        let mut r = Reporting::default();
        for (k, v) in options {
            let on = !matches!(v.trim(), "0" | "false" | "no" | "off");
            match k.as_str() {
                "slat_percentiles" => r.slat = on,
                "clat_percentiles" => r.clat = on,
                "lat_percentiles" => r.lat = on,
                "percentile_list" => r.list = PercentileList::parse(v).unwrap_or_default(),
                "unified_rw_reporting" => r.unified = Unified::parse(v).unwrap_or_default(),
                _ => {}
            }
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_percentile_list_reads_as_fio_reads_it() {
        let d = PercentileList::default();
        assert_eq!(d.values().len(), 17);
        assert_eq!(d.precision, 2);
        let l = PercentileList::parse("99.9:50:99").unwrap();
        assert_eq!(l.values(), &[50.0, 99.0, 99.9]);
        assert_eq!(l.precision, 1);
        assert_eq!(PercentileList::parse("50:99").unwrap().precision, 0);
        assert_eq!(PercentileList::parse("50:0:99").unwrap().values(), &[50.0]);
        assert_eq!(PercentileList::parse("101"), Err(BadValue::OutOfRange("101".into())));
        assert_eq!(PercentileList::parse("p99"), Err(BadValue::NotANumber("p99".into())));
        assert!(PercentileList::parse("nan").is_err());
        let many = vec!["1"; 21].join(":");
        assert_eq!(PercentileList::parse(&many), Err(BadValue::TooMany));
        assert!(BadValue::TooMany.to_string().contains("20"));
        assert!(PercentileList::parse(&vec!["1"; 20].join(":")).is_ok());
    }

    #[test]
    fn unified_reporting_reads_fios_words_and_numbers() {
        assert_eq!(Unified::parse("mixed"), Ok(Unified::Mixed));
        assert_eq!(Unified::parse("1"), Ok(Unified::Mixed));
        assert_eq!(Unified::parse("both"), Ok(Unified::Both));
        assert_eq!(Unified::parse("0"), Ok(Unified::Split));
        assert!(Unified::parse("yes").is_err());
        let opts = [("unified_rw_reporting".to_string(), "both".to_string()), ("lat_percentiles".into(), "".into())];
        let r = Reporting::of(&opts);
        assert_eq!(r.unified, Unified::Both);
        assert!(r.lat && r.clat && !r.slat);
    }
}
