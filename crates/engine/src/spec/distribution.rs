//! Where random I/Os land (fio's `random_distribution`): uniform over the region, or skewed the
//! way real applications are — a few blocks hot, most cold.
//!
//! The models and their parameters are fio's:
//! - `zipf:θ` — block of popularity rank k is chosen with probability ∝ 1/k^θ (θ > 0, ≠ 1 in fio;
//!   drivelab takes θ = 1 too);
//! - `pareto:h` — fio's Pareto: rank = (n−1)·u^(ln h / ln(1−h)) for uniform u (0 < h < 1);
//! - `normal:σ` — fio's "normal": the mean of 12 uniform draws over the region (a bell with a
//!   standard deviation of 1/12 of the region), plus a uniform deviation of ±σ/2 percent of the
//!   region (σ from 0 to 100; fio's σ is not the standard deviation);
//! - `zoned:P/S:…` — P percent of the I/Os to the next S percent of the region, zone after zone
//!   (percentages of I/O add up to 100, of the region to at most 100);
//! - `zoned_abs:P/SIZE:…` — the same with zone sizes in bytes.
//!
//! An optional second number for zipf, pareto and normal (`zipf:1.2:0.25`) puts the most
//! popular block at that fraction of the region (fio's center); otherwise it is placed by the
//! seed. As in fio, ranks are scattered over the region by a multiplicative hash, so hot blocks
//! are spread out, not packed at the start.
//!
//! What is wrong with a distribution's text is a [`DistributionError`]: the words a user reads are
//! written once, there, and a caller can match the kind.

use serde::{Deserialize, Serialize};

use crate::units::{fmt_size, parse_size};

/// Where random I/Os land.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Distribution {
    #[default]
    Uniform,
    Zipf {
        theta: f64,
        center: Option<f64>,
    },
    Pareto {
        h: f64,
        center: Option<f64>,
    },
    Normal {
        dev_pct: f64,
        center: Option<f64>,
    },
    Zoned(Vec<Zone>),
    /// vdbench's hot band: random I/Os confined to a band of the region, from `from` to `to`
    /// (wrapping past the end when `to` is beyond it), and skewed toward the band's start by
    /// vdbench's cache-hit curve (see `gen::skew`).
    HotBand {
        from: BandEdge,
        to: BandEdge,
    },
}

/// Where a hot band starts or ends: percent of the region (0..=200: past 100 wraps to the
/// start), or bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BandEdge {
    Pct(u16),
    Bytes(u64),
}

impl BandEdge {
    /// The edge in bytes of a region of `len` bytes.
    pub fn bytes(self, len: u64) -> u64 {
        match self {
            BandEdge::Pct(p) => (len as u128 * p as u128 / 100) as u64,
            BandEdge::Bytes(b) => b,
        }
    }
}

/// One zone of a zoned distribution: its share of the I/Os and of the region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Zone {
    pub io_pct: u8,
    pub size: ZoneSize,
}

/// A zone's size: a share of the region (`zoned`) or bytes (`zoned_abs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZoneSize {
    Pct(u8),
    Bytes(u64),
}

/// Why a distribution's text does not parse. Each kind carries the value it refuses (and the
/// zone list's name, `zoned` or `zoned_abs`, where it has one); a size's own error (from
/// [`parse_size`]) is kept as its text.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum DistributionError {
    /// `text` should be the model's `what` (theta, power, deviation, center).
    #[error("{what} '{text}' is not a number")]
    NotANumber { what: &'static str, text: String },
    #[error("{name} needs its {what}: e.g. {name}:10")]
    NeedsValue { name: String, what: &'static str },
    #[error("center {center} is outside 0..1: give a fraction of the region")]
    CenterOutside { center: f64 },
    #[error("{name} takes a value and at most a center: {name}:V[:CENTER]")]
    TooManyParts { name: String },
    #[error("zipf theta {theta} must be above 0 (1.2 is a common choice)")]
    ZipfTheta { theta: f64 },
    #[error("pareto power {h} must be between 0 and 1, exclusive (fio's default is 0.2)")]
    ParetoPower { h: f64 },
    #[error("normal deviation {dev_pct} is outside 0..100 (percent of the region)")]
    NormalDeviation { dev_pct: f64 },
    #[error(
        "'{text}' is not a distribution: use random, zipf:THETA, pareto:H, normal:DEV, zoned:P/S:..., \
         zoned_abs:P/SIZE:... or hotband:FROM/TO"
    )]
    Unknown { text: String },
    #[error("'{text}': write {}", HOTBAND_SYNTAX)]
    HotbandSyntax { text: String },
    /// A hot band's edge in percent that does not fit a percent at all.
    #[error("'{text}' is too large")]
    EdgeTooLarge { text: String },
    #[error("{pct}% is past 200; give a size with its unit (e.g. 8g) for bytes")]
    EdgePastPct { pct: u16 },
    /// A hot band's edge that is not a size: the size parser's words.
    #[error("hotband edge {0}")]
    EdgeSize(String),
    #[error("hotband {from}/{to}: expected FROM below 100 and FROM < TO <= FROM + 100")]
    HotbandPct { from: u16, to: u16 },
    #[error("hotband: {to} bytes is not past {from}")]
    HotbandBytes { from: u64, to: u64 },
    #[error("hotband: give both edges in percent or both as sizes")]
    HotbandMixed,
    #[error("{kind}: one zone list for reads and writes alike (fio's per-direction lists are not supported)")]
    ZonesPerDirection { kind: &'static str },
    #[error(
        "{kind} zone '{part}': write PERCENT_OF_IO/{}",
        if *kind == "zoned_abs" { "SIZE" } else { "PERCENT_OF_REGION" }
    )]
    ZoneSyntax { kind: &'static str, part: String },
    /// `text`, a zone's share of the I/Os or of the region, is not a percentage.
    #[error("{kind} zone '{part}': {text} is not a percentage 0..100")]
    ZonePct { kind: &'static str, part: String, text: String },
    /// A `zoned_abs` zone's size does not parse: the size parser's words.
    #[error("{kind} zone '{part}': {why}")]
    ZoneSize { kind: &'static str, part: String, why: String },
    #[error("{kind} needs zones: e.g. {kind}:60/10:40/90")]
    NoZones { kind: &'static str },
    #[error("{kind}: {zones} zones; at most 256")]
    TooManyZones { kind: &'static str, zones: usize },
    #[error("{kind}: the zones' shares of I/O add up to {total}%, not 100%")]
    IoShares { kind: &'static str, total: u32 },
    #[error("zoned: the zones cover {total}% of the region, more than 100%")]
    RegionShares { total: u32 },
    /// A zone that gets I/Os but covers none of the region (`text`: the whole zone list).
    #[error(
        "{kind}:{text}: a zone gets {io_pct}% of the I/Os but {} of the region; give every zone with I/Os some of \
         the region (e.g. {kind}:{io_pct}/10)",
        zone_size(*size)
    )]
    EmptyZone { kind: &'static str, text: String, io_pct: u8, size: ZoneSize },
}

/// How a hot band is written.
const HOTBAND_SYNTAX: &str =
    "hotband:FROM/TO, in percent of the region (hotband:40/60, hotband:90/110 wraps) or sizes (hotband:1g/2g)";

/// A zone's size in a sentence.
fn zone_size(size: ZoneSize) -> String {
    match size {
        ZoneSize::Pct(p) => format!("{p}%"),
        ZoneSize::Bytes(b) => format!("{b} bytes"),
    }
}

impl Distribution {
    pub fn is_uniform(&self) -> bool {
        *self == Distribution::Uniform
    }

    /// Parse fio's syntax: `random`, `zipf:1.2`, `pareto:0.9`, `normal:10`, `zipf:1.2:0.25`,
    /// `zoned:60/10:30/20:10/70`, `zoned_abs:60/20g:40/100g` (also `zoned_abs=…`, as fio prints it).
    pub fn parse(text: &str) -> Result<Distribution, DistributionError> {
        let t = text.trim();
        let (name, rest) = match t.find([':', '=']) {
            Some(i) => (&t[..i], Some(&t[i + 1..])),
            None => (t, None),
        };
        let number = |s: &str, what: &'static str| -> Result<f64, DistributionError> {
            s.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| DistributionError::NotANumber { what, text: s.to_string() })
        };
        // `theta[:center]`, with the model's default when absent.
        let params = |what: &'static str, default: Option<f64>| -> Result<(f64, Option<f64>), DistributionError> {
            let mut it = rest.unwrap_or("").split(':');
            let first = it.next().filter(|s| !s.is_empty());
            let v = match (first, default) {
                (Some(s), _) => number(s, what)?,
                (None, Some(d)) => d,
                (None, None) => return Err(DistributionError::NeedsValue { name: name.to_string(), what }),
            };
            let center = it.next().map(|s| number(s, "center")).transpose()?;
            if let Some(center) = center.filter(|c| !(0.0..=1.0).contains(c)) {
                return Err(DistributionError::CenterOutside { center });
            }
            if it.next().is_some() {
                return Err(DistributionError::TooManyParts { name: name.to_string() });
            }
            Ok((v, center))
        };
        let d = match name {
            "random" | "uniform" if rest.is_none() => Distribution::Uniform,
            "zipf" => {
                let (theta, center) = params("theta", Some(1.1))?;
                if theta <= 0.0 {
                    return Err(DistributionError::ZipfTheta { theta });
                }
                Distribution::Zipf { theta, center }
            }
            "pareto" => {
                let (h, center) = params("power", Some(0.2))?;
                if !(h > 0.0 && h < 1.0) {
                    return Err(DistributionError::ParetoPower { h });
                }
                Distribution::Pareto { h, center }
            }
            "normal" | "gauss" => {
                let (dev_pct, center) = params("deviation", None)?;
                if !(0.0..=100.0).contains(&dev_pct) {
                    return Err(DistributionError::NormalDeviation { dev_pct });
                }
                Distribution::Normal { dev_pct, center }
            }
            "zoned" | "zoned_abs" => Distribution::Zoned(zones(name == "zoned_abs", rest.unwrap_or(""))?),
            "hotband" => hotband(rest.unwrap_or(""))?,
            _ => return Err(DistributionError::Unknown { text: t.to_string() }),
        };
        Ok(d)
    }
}

/// `FROM/TO`: percents of the region (`40/60`; up to 200, past 100 wrapping to the start, as
/// vdbench's `hotband=(90,110)`) or sizes (`1g/2g`).
fn hotband(text: &str) -> Result<Distribution, DistributionError> {
    let (a, b) = text.split_once('/').ok_or_else(|| DistributionError::HotbandSyntax { text: text.to_string() })?;
    let edge = |s: &str| -> Result<BandEdge, DistributionError> {
        let s = s.trim();
        if !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit()) {
            let p: u16 = s.parse().map_err(|_| DistributionError::EdgeTooLarge { text: s.to_string() })?;
            if p > 200 {
                return Err(DistributionError::EdgePastPct { pct: p });
            }
            return Ok(BandEdge::Pct(p));
        }
        parse_size(s).map(BandEdge::Bytes).map_err(|e| DistributionError::EdgeSize(e.to_string()))
    };
    let (from, to) = (edge(a)?, edge(b)?);
    match (from, to) {
        (BandEdge::Pct(f), BandEdge::Pct(t)) if t <= f || t - f > 100 || f >= 100 => {
            Err(DistributionError::HotbandPct { from: f, to: t })
        }
        (BandEdge::Bytes(f), BandEdge::Bytes(t)) if t <= f => Err(DistributionError::HotbandBytes { from: f, to: t }),
        (BandEdge::Pct(_), BandEdge::Bytes(_)) | (BandEdge::Bytes(_), BandEdge::Pct(_)) => {
            Err(DistributionError::HotbandMixed)
        }
        _ => Ok(Distribution::HotBand { from, to }),
    }
}

/// `60/10:30/20:10/70` (or with sizes, for `zoned_abs`).
fn zones(abs: bool, text: &str) -> Result<Vec<Zone>, DistributionError> {
    let kind = if abs { "zoned_abs" } else { "zoned" };
    if text.contains(',') {
        return Err(DistributionError::ZonesPerDirection { kind });
    }
    let mut out = Vec::new();
    let mut missing = 0u32;
    for part in text.split(':').filter(|p| !p.trim().is_empty()) {
        let Some((io, size)) = part.split_once('/') else {
            return Err(DistributionError::ZoneSyntax { kind, part: part.to_string() });
        };
        let pct = |s: &str| s.trim().trim_end_matches('%').parse::<u8>().ok().filter(|&p| p <= 100);
        let not_pct = |s: &str| DistributionError::ZonePct { kind, part: part.to_string(), text: s.to_string() };
        let io_pct = pct(io).ok_or_else(|| not_pct(io))?;
        let size = if abs {
            let bytes = parse_size(size);
            let part = part.to_string();
            ZoneSize::Bytes(bytes.map_err(|e| DistributionError::ZoneSize { kind, part, why: e.to_string() })?)
        } else if size.trim().is_empty() {
            // fio: a zone without its share of the region shares what the others leave.
            missing += 1;
            ZoneSize::Pct(u8::MAX)
        } else {
            ZoneSize::Pct(pct(size).ok_or_else(|| not_pct(size))?)
        };
        out.push(Zone { io_pct, size });
    }
    if out.is_empty() {
        return Err(DistributionError::NoZones { kind });
    }
    if out.len() > 256 {
        return Err(DistributionError::TooManyZones { kind, zones: out.len() });
    }
    let io: u32 = out.iter().map(|z| z.io_pct as u32).sum();
    if io != 100 {
        return Err(DistributionError::IoShares { kind, total: io });
    }
    if !abs {
        let given = |z: &Zone| match z.size {
            ZoneSize::Pct(p) if p != u8::MAX => p as u32,
            _ => 0,
        };
        let span: u32 = out.iter().map(given).sum();
        if span > 100 {
            return Err(DistributionError::RegionShares { total: span });
        }
        if let Some(each) = (100 - span).checked_div(missing) {
            let each = each as u8;
            for z in out.iter_mut().filter(|z| z.size == ZoneSize::Pct(u8::MAX)) {
                z.size = ZoneSize::Pct(each);
            }
        }
    }
    // A zone that gets I/Os but covers none of the region has nowhere to put them.
    if let Some(z) = out.iter().find(|z| z.io_pct > 0 && matches!(z.size, ZoneSize::Pct(0) | ZoneSize::Bytes(0))) {
        let text = text.trim().to_string();
        return Err(DistributionError::EmptyZone { kind, text, io_pct: z.io_pct, size: z.size });
    }
    Ok(out)
}

impl std::fmt::Display for Distribution {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let center = |c: &Option<f64>| c.map(|c| format!(":{c}")).unwrap_or_default();
        match self {
            Distribution::Uniform => write!(f, "random"),
            Distribution::Zipf { theta, center: c } => write!(f, "zipf:{theta}{}", center(c)),
            Distribution::Pareto { h, center: c } => write!(f, "pareto:{h}{}", center(c)),
            Distribution::Normal { dev_pct, center: c } => write!(f, "normal:{dev_pct}{}", center(c)),
            Distribution::Zoned(zones) => {
                let abs = zones.iter().any(|z| matches!(z.size, ZoneSize::Bytes(_)));
                let parts: Vec<String> = zones
                    .iter()
                    .map(|z| match z.size {
                        ZoneSize::Pct(p) => format!("{}/{p}", z.io_pct),
                        ZoneSize::Bytes(b) => format!("{}/{}", z.io_pct, fmt_size(b)),
                    })
                    .collect();
                write!(f, "{}:{}", if abs { "zoned_abs" } else { "zoned" }, parts.join(":"))
            }
            Distribution::HotBand { from, to } => {
                // Bare digits are a percent: a size without a unit is written in bytes (`512b`).
                let e = |x: &BandEdge| match x {
                    BandEdge::Pct(p) => p.to_string(),
                    BandEdge::Bytes(b) if b % 1024 != 0 || *b == 0 => format!("{b}b"),
                    BandEdge::Bytes(b) => fmt_size(*b),
                };
                write!(f, "hotband:{}/{}", e(from), e(to))
            }
        }
    }
}

impl From<Distribution> for String {
    fn from(d: Distribution) -> String {
        d.to_string()
    }
}

impl TryFrom<String> for Distribution {
    type Error = DistributionError;
    fn try_from(s: String) -> Result<Distribution, DistributionError> {
        Distribution::parse(&s)
    }
}
