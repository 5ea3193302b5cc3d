//! fio 3.33's steady-state check (`steadystate`/`ss`, `ss_dur`, `ss_ramp`) as a pure function,
//! so the numbers are fio's exactly: a rolling window of `ss_dur` one-second samples (IOPS,
//! bytes/s, or — fio 3.39's `lat`, `lat_slope` — the mean completion latency of the second's
//! I/Os in ns), judged after each new sample, oldest sample at x = 0:
//!
//! - `iops`/`bw` (deviation): the largest |sample − mean| of the window, or that as a percent of
//!   the mean (`%`), must be below the limit.
//! - `iops_slope`/`bw_slope`: the least-squares slope of the window, or 100 × slope over the mean
//!   (`%`; fio divides by the mean rounded down to a whole number), taken without its sign, must
//!   be below the limit.
//!
//! An absolute `lat` limit is a time, a bare number µs (fio's time syntax); drivelab compares it
//! in ns with the ns samples. (fio parses it in µs and compares that number with ns samples, so
//! fio's absolute `lat:100` holds the deviation below 100 ns; `lat:1%` is the same in both.)
//!
//! fio ends the job at the first sample that meets the criterion. [`Tracker`] is fed each
//! second's figures by `watch` during the run; [`SteadyState::stats`] is what the result keeps
//! (`RunResult::steadystate`), from which fio's output writers make fio's JSON block.

use serde::Serialize;

/// What is sampled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    Iops,
    Bw,
    /// The mean completion latency of each second's I/Os, ns.
    Lat,
}

/// fio's criterion: metric, deviation or slope, limit (absolute, or percent of the mean).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Criterion {
    pub metric: Metric,
    pub slope: bool,
    pub limit: f64,
    pub pct: bool,
}

impl Criterion {
    /// fio's `ss=` value: `iops:10%`, `bw_slope:0.1%`, `iops:2`, `bw:1m` (an absolute bandwidth
    /// is a size, k = 1024; an absolute IOPS limit a number).
    pub fn parse(text: &str) -> Result<Criterion, String> {
        let (name, limit) =
            text.split_once(':').ok_or("needs a criterion and a limit, e.g. iops_slope:0.1% or bw:5%".to_string())?;
        let (metric, slope) = match name.trim() {
            "iops" => (Metric::Iops, false),
            "iops_slope" => (Metric::Iops, true),
            "bw" => (Metric::Bw, false),
            "bw_slope" => (Metric::Bw, true),
            "lat" => (Metric::Lat, false),
            "lat_slope" => (Metric::Lat, true),
            other => return Err(format!("'{other}': expected iops, iops_slope, bw, bw_slope, lat or lat_slope")),
        };
        let limit = limit.trim();
        let float = |t: &str| t.trim().parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0);
        let (limit, pct) = if let Some(p) = limit.strip_suffix('%') {
            (float(p).ok_or(format!("'{limit}' is not a percentage"))?, true)
        } else if metric == Metric::Iops {
            (float(limit).ok_or(format!("'{limit}' is not a number"))?, false)
        } else if metric == Metric::Lat {
            (super::value::time_ns(limit, super::value::BareTime::Micros)? as f64, false)
        } else {
            (super::value::size(limit, super::value::KbBase::Binary)? as f64, false)
        };
        Ok(Criterion { metric, slope, limit, pct })
    }

    /// fio's spelling of the criterion in its JSON (`iops_slope:0.100000%`).
    pub fn fio_name(&self) -> String {
        format!(
            "{}{}:{:.6}{}",
            match self.metric {
                Metric::Iops => "iops",
                Metric::Bw => "bw",
                Metric::Lat => "lat",
            },
            if self.slope { "_slope" } else { "" },
            self.limit as f32,
            if self.pct { "%" } else { "" }
        )
    }
}

/// A window judged.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verdict {
    pub attained: bool,
    /// The figure compared with the limit (percent with `%`).
    pub criterion: f64,
    pub max_deviation: f64,
    pub slope: f64,
}

/// Judge a full window (`window`, oldest first) by fio's formulas.
pub fn judge(c: &Criterion, window: &[u64]) -> Verdict {
    let n = window.len() as f64;
    let sum_y: u64 = window.iter().sum();
    if c.slope {
        let sum_x: f64 = (0..window.len()).map(|i| i as f64).sum();
        let sum_x_sq: f64 = (0..window.len()).map(|i| (i * i) as f64).sum();
        let sum_xy: f64 = window.iter().enumerate().map(|(i, &y)| i as f64 * y as f64).sum();
        let slope = (sum_xy - sum_x * sum_y as f64 / n) / (sum_x_sq - sum_x * sum_x / n);
        // fio: the mean in whole units (integer division).
        let criterion = if c.pct { 100.0 * slope / (sum_y / window.len() as u64) as f64 } else { slope };
        Verdict { attained: criterion.abs() < c.limit, criterion, max_deviation: 0.0, slope }
    } else {
        let mean = sum_y as f64 / n;
        let dev = window.iter().map(|&y| (y as f64 - mean).abs()).fold(0.0, f64::max);
        let criterion = if c.pct { 100.0 * dev / mean } else { dev };
        Verdict { attained: criterion < c.limit, criterion, max_deviation: dev, slope: 0.0 }
    }
}

/// fio's steady-state result: what a job ends with.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SteadyState {
    pub criterion: Criterion,
    /// `ss_dur` in seconds (the window's length).
    pub duration_s: u64,
    pub attained: bool,
    /// The last judged figure, and the deviation or slope it came from.
    pub value: f64,
    pub max_deviation: f64,
    pub slope: f64,
    /// The window's samples, oldest first.
    pub iops: Vec<u64>,
    pub bw_bytes_per_s: Vec<u64>,
    /// With `lat`: each second's mean completion latency, ns (empty otherwise).
    pub lat_ns: Vec<u64>,
}

impl SteadyState {
    /// What the result keeps (fio's spellings of the criterion and its figure).
    pub fn stats(&self) -> drivelab_engine::result::SteadyStateStats {
        drivelab_engine::result::SteadyStateStats {
            ss: self.criterion.fio_name(),
            duration_s: self.duration_s,
            attained: self.attained,
            criterion: format!("{:.6}{}", self.value as f32, if self.criterion.pct { "%" } else { "" }),
            max_deviation: self.max_deviation,
            slope: self.slope,
            iops: self.iops.clone(),
            bw_bytes_per_s: self.bw_bytes_per_s.clone(),
            lat_ns: self.lat_ns.clone(),
        }
    }
}

/// The rolling window fed one sample a second (after `ss_ramp`): says when fio would stop.
#[derive(Clone, Debug)]
pub struct Tracker {
    pub criterion: Criterion,
    pub duration_s: u64,
    iops: Vec<u64>,
    bw: Vec<u64>,
    lat: Vec<u64>,
    last: Option<Verdict>,
}

impl Tracker {
    pub fn new(criterion: Criterion, duration_s: u64) -> Tracker {
        let cap = duration_s as usize;
        let v = || Vec::with_capacity(cap);
        Tracker { criterion, duration_s, iops: v(), bw: v(), lat: v(), last: None }
    }

    /// Add one second's figures (its IOPS, bytes/s and mean completion latency in ns); true
    /// when the job should end (the criterion is met).
    pub fn push(&mut self, iops: u64, bw_bytes_per_s: u64, lat_ns: u64) -> bool {
        if self.iops.len() == self.duration_s as usize {
            self.iops.remove(0);
            self.bw.remove(0);
            self.lat.remove(0);
        }
        self.iops.push(iops);
        self.bw.push(bw_bytes_per_s);
        self.lat.push(lat_ns);
        if self.iops.len() < self.duration_s as usize || self.duration_s == 0 {
            return false;
        }
        let window = match self.criterion.metric {
            Metric::Iops => &self.iops,
            Metric::Bw => &self.bw,
            Metric::Lat => &self.lat,
        };
        let v = judge(&self.criterion, window);
        self.last = Some(v);
        v.attained
    }

    /// The result so far.
    pub fn result(&self) -> SteadyState {
        let v = self.last.unwrap_or(Verdict { attained: false, criterion: 0.0, max_deviation: 0.0, slope: 0.0 });
        SteadyState {
            criterion: self.criterion,
            duration_s: self.duration_s,
            attained: v.attained,
            value: v.criterion,
            max_deviation: v.max_deviation,
            slope: v.slope,
            iops: self.iops.clone(),
            bw_bytes_per_s: self.bw.clone(),
            lat_ns: if self.criterion.metric == Metric::Lat { self.lat.clone() } else { Vec::new() },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn criteria_parse_as_fio_writes_them() {
        let c = Criterion::parse("iops_slope:0.1%").unwrap();
        assert_eq!((c.metric, c.slope, c.limit, c.pct), (Metric::Iops, true, 0.1, true));
        assert_eq!(c.fio_name(), "iops_slope:0.100000%");
        let c = Criterion::parse("bw:1m").unwrap();
        assert_eq!((c.metric, c.slope, c.limit, c.pct), (Metric::Bw, false, 1048576.0, false));
        assert_eq!(Criterion::parse("iops:2").unwrap().limit, 2.0);
        assert!(Criterion::parse("clat:5%").is_err());
        assert!(Criterion::parse("iops").is_err());
    }

    #[test]
    fn deviation_is_the_largest_distance_from_the_mean() {
        // 100, 104, 96, 100: mean 100, largest |y - mean| 4, 4% of the mean.
        let w = [100, 104, 96, 100];
        let v = judge(&Criterion::parse("iops:5%").unwrap(), &w);
        assert_eq!((v.max_deviation, v.criterion, v.attained), (4.0, 4.0, true));
        let v = judge(&Criterion::parse("iops:4%").unwrap(), &w);
        assert!(!v.attained, "fio needs the criterion strictly below the limit");
        let v = judge(&Criterion::parse("iops:3").unwrap(), &w);
        assert_eq!((v.criterion, v.attained), (4.0, false));
    }

    #[test]
    fn slope_is_least_squares_over_the_window_with_fios_whole_mean() {
        // y = 10, 12, 14, 16 (x = 0..3): slope 2; sum_y 52, mean 13 -> 200/13 % = 15.38...%.
        let w = [10, 12, 14, 16];
        let v = judge(&Criterion::parse("iops_slope:16%").unwrap(), &w);
        assert_eq!(v.slope, 2.0);
        assert!((v.criterion - 200.0 / 13.0).abs() < 1e-9 && v.attained, "{v:?}");
        // A falling window: the slope's sign does not matter. 9, 8, 7: slope -1, mean 8.
        let v = judge(&Criterion::parse("bw_slope:12.6%").unwrap(), &[9, 8, 7]);
        assert_eq!((v.slope, v.criterion, v.attained), (-1.0, -12.5, true));
        // fio divides by the mean in whole units: 1, 2 has mean 1.5, taken as 1 -> 100%.
        let v = judge(&Criterion::parse("iops_slope:1%").unwrap(), &[1, 2]);
        assert_eq!(v.criterion, 100.0);
    }

    #[test]
    fn the_tracker_judges_once_the_window_is_full_and_keeps_the_window() {
        let mut t = Tracker::new(Criterion::parse("iops:10%").unwrap(), 3);
        assert!(!t.push(50, 5, 900));
        assert!(!t.push(100, 10, 1000), "no judgement before ss_dur samples");
        assert!(!t.push(100, 10, 1000), "50, 100, 100: 33% off the mean");
        assert!(t.push(100, 10, 1000), "100, 100, 100");
        let r = t.result();
        assert!(r.attained);
        assert_eq!((r.iops.clone(), r.bw_bytes_per_s.clone()), (vec![100, 100, 100], vec![10, 10, 10]));
        assert!(r.lat_ns.is_empty(), "the latencies are kept for a lat criterion only");
        let s = r.stats();
        assert_eq!((s.ss.as_str(), s.attained, s.criterion.as_str()), ("iops:10.000000%", true, "0.000000%"));
    }

    #[test]
    fn lat_judges_each_seconds_mean_completion_latency() {
        let c = Criterion::parse("lat:10%").unwrap();
        assert_eq!((c.metric, c.slope, c.fio_name().as_str()), (Metric::Lat, false, "lat:10.000000%"));
        // An absolute limit is a time, a bare number µs (fio's syntax), compared in ns.
        assert_eq!(Criterion::parse("lat:2ms").unwrap().limit, 2e6);
        assert_eq!(Criterion::parse("lat_slope:50").unwrap().limit, 50_000.0);
        let mut t = Tracker::new(c, 3);
        // The IOPS hold still while the latency settles: only the latency decides.
        assert!(!t.push(100, 10, 2000));
        assert!(!t.push(100, 10, 1000));
        assert!(!t.push(100, 10, 1000), "2000, 1000, 1000: 50% off the mean");
        assert!(t.push(100, 10, 1050), "1000, 1000, 1050: 3.3%");
        let r = t.result();
        assert_eq!(r.lat_ns, vec![1000, 1000, 1050]);
        assert_eq!(r.stats().lat_ns, vec![1000, 1000, 1050]);
    }
}
