//! Chart axes in plot coordinates: linear, log2 (powers of two equally spaced), log10 and
//! categorical, each with its tick positions and labels ("12.5k", "1.5M", "0.25"). See the
//! "Axes" section of [`super`]'s documentation for why ticks are placed where they are.

use std::ops::Range;

use drivelab_engine::units::{fmt_number, fmt_trimmed, Style};

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Kind {
    Linear,
    Log2,
    Log10,
    Category(Vec<String>),
}

/// An axis in plot coordinates (after the transform), with its tick positions.
#[derive(Clone, Debug)]
pub(super) struct Axis {
    pub(super) kind: Kind,
    pub(super) lo: f64,
    pub(super) hi: f64,
    pub(super) ticks: Vec<f64>,
    /// Tick step of a linear axis (for label precision).
    pub(super) step: f64,
    /// A log10 axis of latencies in µs: ticks say their unit ("100 µs", "1 ms", "1 s"), never
    /// "1M" µs.
    pub(super) micros: bool,
}

impl Kind {
    /// Data value -> plot coordinate, None when it cannot be shown on this axis.
    pub(super) fn fwd(&self, v: f64) -> Option<f64> {
        if !v.is_finite() {
            return None;
        }
        match self {
            Kind::Linear => Some(v),
            Kind::Log2 => (v > 0.0).then(|| v.log2()),
            Kind::Log10 => (v > 0.0).then(|| v.log10()),
            Kind::Category(c) => (v >= 0.0 && v <= c.len() as f64 - 1.0).then_some(v),
        }
    }
}

impl Axis {
    /// An axis covering `vals` (plot coordinates). `zero`: a linear axis includes 0. `headroom`:
    /// extra fraction of the range above the data (room for a legend).
    pub(super) fn fit(kind: Kind, vals: impl IntoIterator<Item = f64>, zero: bool, headroom: f64) -> Axis {
        let (mut min, mut max) = (f64::INFINITY, f64::NEG_INFINITY);
        // Counts (drives, seconds, queue depths) get whole-number ticks only.
        let mut whole = true;
        for v in vals.into_iter().filter(|v| v.is_finite()) {
            min = min.min(v);
            max = max.max(v);
            whole &= v.fract() == 0.0;
        }
        let empty = min > max;
        match kind {
            Kind::Category(ref c) => {
                let n = c.len();
                Axis {
                    lo: -0.5,
                    hi: n.max(1) as f64 - 0.5,
                    ticks: (0..n).map(|i| i as f64).collect(),
                    kind,
                    step: 1.0,
                    micros: false,
                }
            }
            Kind::Log2 | Kind::Log10 => {
                let (mut lo, mut hi) = if empty { (0.0, 2.0) } else { (min.floor(), max.ceil()) };
                if hi <= lo {
                    hi = lo + 1.0;
                }
                hi += (hi - lo) * headroom;
                let mut ticks = Vec::new();
                let every = ((hi - lo) / 14.0).ceil().max(1.0) as i64;
                let mut k = lo as i64;
                while k as f64 <= hi + 1e-9 {
                    ticks.push(k as f64);
                    if kind == Kind::Log10 && hi - lo <= 2.5 {
                        for m in [2.0f64, 5.0] {
                            let t = k as f64 + m.log10();
                            if t <= hi {
                                ticks.push(t);
                            }
                        }
                    }
                    k += every;
                }
                if kind == Kind::Log2 {
                    // Markers at the first and last power of two stay off the frame.
                    lo -= 0.3;
                    hi += 0.3;
                }
                Axis { kind, lo, hi, ticks, step: 1.0, micros: false }
            }
            Kind::Linear => {
                let (mut min, mut max) = if empty { (0.0, 1.0) } else { (min, max) };
                if zero {
                    min = min.min(0.0);
                    max = max.max(0.0);
                }
                if max <= min {
                    max = min + if min == 0.0 { 1.0 } else { min.abs() };
                }
                max += (max - min) * headroom;
                let step = nice_step((max - min) / 6.0);
                let step = if whole && !empty { step.max(1.0) } else { step };
                let lo = (min / step).floor() * step;
                let hi = (max / step).ceil() * step;
                let n = ((hi - lo) / step).round() as i64;
                let ticks = (0..=n).map(|i| lo + i as f64 * step).collect();
                Axis { kind, lo, hi, ticks, step, micros: false }
            }
        }
    }

    /// This log10 axis holds latencies in µs: its ticks name their unit.
    pub(super) fn micros(self) -> Axis {
        Axis { micros: true, ..self }
    }

    pub(super) fn coord(&self) -> Ticked {
        Ticked { inner: (self.lo..self.hi).into(), ticks: self.ticks.clone() }
    }

    pub(super) fn label(&self, v: f64) -> String {
        match &self.kind {
            Kind::Linear => fmt_linear_tick(v, self.step),
            Kind::Log2 => fmt_pow2(v.round() as i32),
            Kind::Log10 if self.micros => fmt_us_tick(v),
            Kind::Log10 => fmt_log10_tick(v),
            Kind::Category(c) => {
                let i = v.round();
                if i >= 0.0 && (i as usize) < c.len() {
                    c[i as usize].clone()
                } else {
                    String::new()
                }
            }
        }
    }

    pub(super) fn mid(&self) -> f64 {
        (self.lo + self.hi) / 2.0
    }
}

/// A linear f64 coordinate with the tick positions given (plotters' `WithKeyPoints` does the
/// same but cannot be used with custom label formatters on f64).
#[derive(Clone)]
pub(super) struct Ticked {
    pub(super) inner: RangedCoordf64,
    pub(super) ticks: Vec<f64>,
}

impl Ranged for Ticked {
    type ValueType = f64;
    type FormatOption = DefaultFormatting;

    fn range(&self) -> Range<f64> {
        self.inner.range()
    }

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.inner.map(value, limit)
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }
}

/// 1, 2, 2.5 or 5 times a power of ten, at least `raw`.
pub(super) fn nice_step(raw: f64) -> f64 {
    if raw.is_nan() || raw <= 0.0 || !raw.is_finite() {
        return 1.0;
    }
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let m = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 2.5 {
        2.5
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    m * mag
}

/// A tick of a linear axis with ticks `step` apart: as many decimals as the step needs (2.5 ->
/// one), in thousands ("12.5k") from 10 000 and millions ("1.5M") from 1 000 000.
pub(super) fn fmt_linear_tick(v: f64, step: f64) -> String {
    let v = if v.abs() < step * 1e-9 { 0.0 } else { v };
    let (div, suffix) = if v.abs() >= 1e6 {
        (1e6, "M")
    } else if v.abs() >= 1e4 {
        (1e3, "k")
    } else {
        (1.0, "")
    };
    let s = step / div;
    let decimals = (0..9).find(|&d| (s * 10f64.powi(d)).fract().abs() < 1e-6).unwrap_or(9) as usize;
    format!("{}{suffix}", fmt_trimmed(v / div, decimals))
}

pub(super) fn fmt_pow2(k: i32) -> String {
    let x = 2f64.powi(k);
    if k < 0 {
        fmt_trimmed(x, 6)
    } else if x < 1e5 {
        format!("{x:.0}")
    } else {
        let (div, suf) = if k >= 30 {
            (2f64.powi(30), "Gi")
        } else if k >= 20 {
            (2f64.powi(20), "Mi")
        } else {
            (1024.0, "Ki")
        };
        format!("{:.0}{suf}", x / div)
    }
}

/// A log10 tick of a latency in µs, in the unit that reads best: "500 µs", "2 ms", "1 s".
pub(super) fn fmt_us_tick(v: f64) -> String {
    let us = 10f64.powf(v);
    let (x, unit) = if us >= 1e6 {
        (us / 1e6, "s")
    } else if us >= 1e3 {
        (us / 1e3, "ms")
    } else if us >= 1.0 {
        (us, "µs")
    } else {
        (us * 1e3, "ns")
    };
    format!("{} {unit}", fmt_log10_tick(x.log10()))
}

pub(super) fn fmt_log10_tick(v: f64) -> String {
    let x = 10f64.powf(v);
    if x >= 1e4 {
        fmt_number(x, Style::Label)
    } else if x >= 1.0 {
        format!("{x:.0}")
    } else {
        let d = ((-x.log10()).ceil() as usize).clamp(1, 9);
        fmt_trimmed(x, d)
    }
}

/// How far apart a value axis's values may be before it goes logarithmic: beyond 20x, a linear
/// axis flattens the small values (144 MB/s beside 3,583 is a sliver).
pub(crate) const LOG_SPAN: f64 = 20.0;

/// A value axis for `vals` should be log10: every finite value is above 0 and the largest is
/// more than [`LOG_SPAN`] times the smallest. A zero or negative value keeps it linear (a log
/// axis cannot show it).
pub(crate) fn wants_log(vals: impl IntoIterator<Item = f64>) -> bool {
    let (mut lo, mut hi) = (f64::INFINITY, 0f64);
    for v in vals.into_iter().filter(|v| v.is_finite()) {
        if v <= 0.0 {
            return false;
        }
        lo = lo.min(v);
        hi = hi.max(v);
    }
    lo.is_finite() && hi > lo * LOG_SPAN
}

/// An axis description saying its scale is logarithmic: "throughput (MB/s)" -> "throughput
/// (MB/s, log scale)", "IOPS" -> "IOPS (log scale)".
pub(crate) fn log_label(label: &str) -> String {
    if label.contains("log scale") {
        label.to_string()
    } else if let Some(head) = label.strip_suffix(')') {
        format!("{head}, log scale)")
    } else {
        format!("{label} (log scale)")
    }
}
