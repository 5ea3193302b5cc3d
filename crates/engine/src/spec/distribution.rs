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

impl Distribution {
    pub fn is_uniform(&self) -> bool {
        *self == Distribution::Uniform
    }

    /// Parse fio's syntax: `random`, `zipf:1.2`, `pareto:0.9`, `normal:10`, `zipf:1.2:0.25`,
    /// `zoned:60/10:30/20:10/70`, `zoned_abs:60/20g:40/100g` (also `zoned_abs=…`, as fio prints it).
    pub fn parse(text: &str) -> Result<Distribution, String> {
        let t = text.trim();
        let (name, rest) = match t.find([':', '=']) {
            Some(i) => (&t[..i], Some(&t[i + 1..])),
            None => (t, None),
        };
        let number = |s: &str, what: &str| -> Result<f64, String> {
            s.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| format!("{what} '{s}' is not a number"))
        };
        // `theta[:center]`, with the model's default when absent.
        let params = |what: &str, default: Option<f64>| -> Result<(f64, Option<f64>), String> {
            let mut it = rest.unwrap_or("").split(':');
            let first = it.next().filter(|s| !s.is_empty());
            let v = match (first, default) {
                (Some(s), _) => number(s, what)?,
                (None, Some(d)) => d,
                (None, None) => return Err(format!("{name} needs its {what}: e.g. {name}:10")),
            };
            let center = it.next().map(|s| number(s, "center")).transpose()?;
            if center.is_some_and(|c| !(0.0..=1.0).contains(&c)) {
                return Err(format!("center {} is outside 0..1: give a fraction of the region", center.unwrap()));
            }
            if it.next().is_some() {
                return Err(format!("{name} takes a value and at most a center: {name}:V[:CENTER]"));
            }
            Ok((v, center))
        };
        let d = match name {
            "random" | "uniform" if rest.is_none() => Distribution::Uniform,
            "zipf" => {
                let (theta, center) = params("theta", Some(1.1))?;
                if theta <= 0.0 {
                    return Err(format!("zipf theta {theta} must be above 0 (1.2 is a common choice)"));
                }
                Distribution::Zipf { theta, center }
            }
            "pareto" => {
                let (h, center) = params("power", Some(0.2))?;
                if !(h > 0.0 && h < 1.0) {
                    return Err(format!("pareto power {h} must be between 0 and 1, exclusive (fio's default is 0.2)"));
                }
                Distribution::Pareto { h, center }
            }
            "normal" | "gauss" => {
                let (dev_pct, center) = params("deviation", None)?;
                if !(0.0..=100.0).contains(&dev_pct) {
                    return Err(format!("normal deviation {dev_pct} is outside 0..100 (percent of the region)"));
                }
                Distribution::Normal { dev_pct, center }
            }
            "zoned" | "zoned_abs" => Distribution::Zoned(zones(name == "zoned_abs", rest.unwrap_or(""))?),
            "hotband" => hotband(rest.unwrap_or(""))?,
            _ => {
                return Err(format!(
                    "'{t}' is not a distribution: use random, zipf:THETA, pareto:H, normal:DEV, zoned:P/S:..., \
                     zoned_abs:P/SIZE:... or hotband:FROM/TO"
                ))
            }
        };
        Ok(d)
    }
}

/// `FROM/TO`: percents of the region (`40/60`; up to 200, past 100 wrapping to the start, as
/// vdbench's `hotband=(90,110)`) or sizes (`1g/2g`).
fn hotband(text: &str) -> Result<Distribution, String> {
    let expected =
        "hotband:FROM/TO, in percent of the region (hotband:40/60, hotband:90/110 wraps) or sizes (hotband:1g/2g)";
    let (a, b) = text.split_once('/').ok_or_else(|| format!("'{text}': write {expected}"))?;
    let edge = |s: &str| -> Result<BandEdge, String> {
        let s = s.trim();
        if !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit()) {
            let p: u16 = s.parse().map_err(|_| format!("'{s}' is too large"))?;
            if p > 200 {
                return Err(format!("{p}% is past 200; give a size with its unit (e.g. 8g) for bytes"));
            }
            return Ok(BandEdge::Pct(p));
        }
        parse_size(s).map(BandEdge::Bytes).map_err(|e| format!("hotband edge {e}"))
    };
    let (from, to) = (edge(a)?, edge(b)?);
    match (from, to) {
        (BandEdge::Pct(f), BandEdge::Pct(t)) if t <= f || t - f > 100 || f >= 100 => {
            Err(format!("hotband {f}/{t}: expected FROM below 100 and FROM < TO <= FROM + 100"))
        }
        (BandEdge::Bytes(f), BandEdge::Bytes(t)) if t <= f => Err(format!("hotband: {t} bytes is not past {f}")),
        (BandEdge::Pct(_), BandEdge::Bytes(_)) | (BandEdge::Bytes(_), BandEdge::Pct(_)) => {
            Err("hotband: give both edges in percent or both as sizes".into())
        }
        _ => Ok(Distribution::HotBand { from, to }),
    }
}

/// `60/10:30/20:10/70` (or with sizes, for `zoned_abs`).
fn zones(abs: bool, text: &str) -> Result<Vec<Zone>, String> {
    let kind = if abs { "zoned_abs" } else { "zoned" };
    if text.contains(',') {
        return Err(format!(
            "{kind}: one zone list for reads and writes alike (fio's per-direction lists are not supported)"
        ));
    }
    let mut out = Vec::new();
    let mut missing = 0u32;
    for part in text.split(':').filter(|p| !p.trim().is_empty()) {
        let Some((io, size)) = part.split_once('/') else {
            return Err(format!(
                "{kind} zone '{part}': write PERCENT_OF_IO/{}",
                if abs { "SIZE" } else { "PERCENT_OF_REGION" }
            ));
        };
        let pct = |s: &str| s.trim().trim_end_matches('%').parse::<u8>().ok().filter(|&p| p <= 100);
        let io_pct = pct(io).ok_or_else(|| format!("{kind} zone '{part}': {io} is not a percentage 0..100"))?;
        let size = if abs {
            ZoneSize::Bytes(parse_size(size).map_err(|e| format!("{kind} zone '{part}': {e}"))?)
        } else if size.trim().is_empty() {
            // fio: a zone without its share of the region shares what the others leave.
            missing += 1;
            ZoneSize::Pct(u8::MAX)
        } else {
            ZoneSize::Pct(pct(size).ok_or_else(|| format!("{kind} zone '{part}': {size} is not a percentage 0..100"))?)
        };
        out.push(Zone { io_pct, size });
    }
    if out.is_empty() {
        return Err(format!("{kind} needs zones: e.g. {kind}:60/10:40/90"));
    }
    if out.len() > 256 {
        return Err(format!("{kind}: {} zones; at most 256", out.len()));
    }
    let io: u32 = out.iter().map(|z| z.io_pct as u32).sum();
    if io != 100 {
        return Err(format!("{kind}: the zones' shares of I/O add up to {io}%, not 100%"));
    }
    if !abs {
        let given = |z: &Zone| match z.size {
            ZoneSize::Pct(p) if p != u8::MAX => p as u32,
            _ => 0,
        };
        let span: u32 = out.iter().map(given).sum();
        if span > 100 {
            return Err(format!("zoned: the zones cover {span}% of the region, more than 100%"));
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
        let size = match z.size {
            ZoneSize::Pct(p) => format!("{p}%"),
            ZoneSize::Bytes(b) => format!("{b} bytes"),
        };
        return Err(format!(
            "{kind}:{}: a zone gets {}% of the I/Os but {size} of the region; give every zone with I/Os some of \
             the region (e.g. {kind}:{}/10)",
            text.trim(),
            z.io_pct,
            z.io_pct
        ));
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
                let e = |x: &BandEdge| match x {
                    BandEdge::Pct(p) => p.to_string(),
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
    type Error = String;
    fn try_from(s: String) -> Result<Distribution, String> {
        Distribution::parse(&s)
    }
}
