//! How a measurement is saved: a small JSON object whose histograms and per-second series are
//! packed as LEB128 varints (non-empty buckets as runs of neighbours), deflated, in base64, and
//! whose other kinds (`kinds.rs`) are fields of their own beside them. Why:
//! a saved point must keep its raw measurement for well under a tenth of its size (a 60 s run
//! keeps 60 histograms — 120 at a rate — beside the figures), and JSON arrays of bucket pairs
//! would more than double it.
//!
//! Read back bounded and checked: a results directory may be forged. Every length is bounded by
//! the bytes left, bucket indexes by the histogram's range and ascending, counts must not
//! overflow, a histogram's extremes must fall in its first and last buckets and its sum between
//! them. Anything else is refused with what was wrong, never a panic.

use std::io::{Read, Write};

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::kinds::Kinds;
use super::{Cpu, Dir, Measurement, OpenLoop, Second, TargetPart};
use crate::hist::{bucket_of, Histogram, BUCKETS};
use crate::result::ErrorStat;
use crate::spec::MAX_THRESHOLDS;

/// The encoding's version, saved as `v`.
pub const VERSION: u32 = 1;

/// The most a packed field may inflate to (a day's series at thousands of buckets a second fits),
/// and the most it may inflate by (deflate's own limit is about 1032).
const MAX_INFLATED: u64 = 1 << 30;
const MAX_RATIO: u64 = 1100;
/// Empty buckets between two non-empty ones that are written as zeros inside one run.
const FILL: usize = 3;
/// The most I/Os one saved histogram (or second) may hold: 2^48, a thousand years at 10M IOPS;
/// so adding up to 2^15 saved parts cannot overflow.
const MAX_COUNT: u64 = 1 << 48;
/// The largest sum of squares one saved histogram may hold (2^120: adding 256 cannot overflow).
const MAX_SUM_SQ: u128 = 1 << 120;

#[derive(Serialize, Deserialize)]
struct WireOpen {
    late_ops: u64,
    gave_up: bool,
    final_lag_ns: u64,
    target_uiops: u64,
    paced_window_ns: u64,
    /// resp_read, resp_write, lag, tool_lag.
    hists: String,
}

#[derive(Serialize, Deserialize)]
struct WireTarget {
    order: u64,
    path: String,
    window_ns: u64,
    /// read, write, trim: (bytes, lat, clat) each.
    dirs: String,
}

#[derive(Serialize, Deserialize)]
struct Wire<'a> {
    v: u32,
    window_ns: u64,
    jobs: u64,
    interrupted: bool,
    stopped_by_error: bool,
    cpu: Cpu,
    /// read, write, trim, sync: (bytes, lat, clat) each; then slat.
    dirs: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    open_loop: Option<WireOpen>,
    targets: Vec<WireTarget>,
    errors: Vec<ErrorStat>,
    series: String,
    /// Each second's counts of the target's share of the response time over the thresholds
    /// (`Second::ready_over`), beside `series` so results saved before it still read (absent:
    /// empty counts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    series_ready: Option<String>,
    /// `--latency-split` (see `split.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    split: Option<String>,
    /// Every other kind, each in its own field (`kinds.rs`); absent ones read as not measured.
    #[serde(flatten)]
    kinds: std::borrow::Cow<'a, Kinds>,
}

// ---- varints ----

#[derive(Default)]
pub(super) struct Out(Vec<u8>);

impl Out {
    pub(super) fn u(&mut self, mut v: u128) {
        loop {
            let b = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                self.0.push(b);
                return;
            }
            self.0.push(b | 0x80);
        }
    }

    /// Non-empty buckets, ascending, as runs of neighbouring buckets: how many runs, then for
    /// each its distance from the end of the one before, its length and its counts (a gap of up
    /// to [`FILL`] empty buckets is kept inside a run as zero counts: cheaper than a new run).
    fn runs(&mut self, buckets: &[(usize, u64)]) {
        let mut runs: Vec<(usize, usize)> = Vec::new(); // (first index in `buckets`, past the last)
        for (k, b) in buckets.iter().enumerate() {
            match runs.last_mut() {
                Some(r) if b.0 - buckets[r.1 - 1].0 <= FILL + 1 => r.1 = k + 1,
                _ => runs.push((k, k + 1)),
            }
        }
        self.u(runs.len() as u128);
        let mut end = 0usize;
        for &(a, z) in &runs {
            let (first, last) = (buckets[a].0, buckets[z - 1].0);
            self.u((first - end) as u128);
            self.u((last - first + 1) as u128);
            let mut at = first;
            for &(i, c) in &buckets[a..z] {
                (at..i).for_each(|_| self.u(0));
                self.u(c as u128);
                at = i + 1;
            }
            end = last + 1;
        }
    }

    pub(super) fn hist(&mut self, h: &Histogram) {
        let buckets: Vec<(usize, u64)> = h.nonempty().collect();
        self.runs(&buckets);
        if !buckets.is_empty() {
            let (sum, sq) = h.moments();
            self.u(h.min() as u128);
            self.u(h.max() as u128);
            self.u(sum);
            self.u(sq);
        }
    }

    fn dir(&mut self, d: &Dir) {
        self.u(d.bytes as u128);
        self.hist(&d.lat);
        self.hist(&d.clat);
    }

    fn sparse(&mut self, b: &[(u16, u64)]) {
        self.runs(&b.iter().map(|&(i, c)| (i as usize, c)).collect::<Vec<_>>());
    }

    fn counts(&mut self, v: &[u64]) {
        self.u(v.len() as u128);
        v.iter().for_each(|&c| self.u(c as u128));
    }

    /// Deflated, in base64 (nothing for nothing).
    fn b64(self) -> String {
        if self.0.is_empty() {
            return String::new();
        }
        let mut z = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(&self.0).and_then(|_| z.finish()).map(|b| base64(&b)).unwrap_or_default()
    }
}

pub(super) struct In<'a> {
    b: &'a [u8],
    at: usize,
}

pub(super) type R<T> = Result<T, String>;

impl In<'_> {
    fn left(&self) -> usize {
        self.b.len() - self.at
    }

    fn u128(&mut self) -> R<u128> {
        let mut v = 0u128;
        for k in 0..19 {
            let b = *self.b.get(self.at).ok_or("it ends in the middle of a number")?;
            self.at += 1;
            let bits = (b & 0x7f) as u128;
            if k == 18 && bits > 3 {
                return Err("a number is too large".into());
            }
            v |= bits << (7 * k);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("a number is too long".into())
    }

    pub(super) fn u64(&mut self) -> R<u64> {
        u64::try_from(self.u128()?).map_err(|_| "a count is too large".to_string())
    }

    /// A length, bounded by what is left (every element takes at least `min_bytes`) and `max`.
    pub(super) fn len(&mut self, min_bytes: usize, max: usize) -> R<usize> {
        let n = self.u64()?;
        if n > max as u64 || n as usize * min_bytes > self.left() {
            return Err(format!("a length of {n} is more than it can hold"));
        }
        Ok(n as usize)
    }

    /// Runs as [`Out::runs`] wrote them: the non-empty buckets, ascending, in range, their
    /// counts bounded so that no merge of saved parts can overflow.
    fn runs(&mut self, what: &str) -> R<Vec<(usize, u64)>> {
        let n = self.len(3, BUCKETS)?;
        let mut out = Vec::new();
        let (mut end, mut total) = (0u64, 0u64);
        for _ in 0..n {
            let first = end.checked_add(self.u64()?).filter(|&i| i < BUCKETS as u64);
            let first = first.ok_or_else(|| format!("{what} bucket is out of range"))?;
            let len = self.len(1, BUCKETS)? as u64;
            if len == 0 || first + len > BUCKETS as u64 {
                return Err(format!("{what} bucket is out of range"));
            }
            for i in first..first + len {
                let c = self.u64()?;
                total = total
                    .checked_add(c)
                    .filter(|&t| t <= MAX_COUNT)
                    .ok_or_else(|| format!("{what} counts are too large"))?;
                if c > 0 {
                    out.push((i as usize, c));
                }
            }
            end = first + len;
        }
        Ok(out)
    }

    pub(super) fn hist(&mut self) -> R<Histogram> {
        let buckets = self.runs("a histogram's")?;
        let k = buckets.len();
        if k == 0 {
            return Ok(Histogram::new());
        }
        let (min, max, sum, sq) = (self.u64()?, self.u64()?, self.u128()?, self.u128()?);
        let h = Histogram::from_raw(&buckets, min, max, sum, sq).ok_or("histogram counts overflow")?;
        let n = h.count() as u128;
        if bucket_of(min) != buckets[0].0 || bucket_of(max) != buckets[k - 1].0 {
            return Err("a histogram's extremes are not in its first and last buckets".into());
        }
        if sum < min as u128 * n || sum > max as u128 * n {
            return Err("a histogram's sum is outside its extremes".into());
        }
        if sq > MAX_SUM_SQ {
            return Err("a histogram's sum of squares is too large".into());
        }
        Ok(h)
    }

    fn dir(&mut self) -> R<Dir> {
        Ok(Dir { bytes: self.u64()?, lat: self.hist()?, clat: self.hist()? })
    }

    fn sparse(&mut self) -> R<Vec<(u16, u64)>> {
        Ok(self.runs("a second's")?.into_iter().map(|(i, c)| (i as u16, c)).collect())
    }

    fn counts(&mut self) -> R<Vec<u64>> {
        let n = self.len(1, MAX_THRESHOLDS)?;
        (0..n).map(|_| self.u64()).collect()
    }

    fn end(&self) -> R<()> {
        if self.left() == 0 {
            Ok(())
        } else {
            Err(format!("{} bytes follow its end", self.left()))
        }
    }
}

/// `s` un-base64ed and inflated, at most [`MAX_INFLATED`] bytes and [`MAX_RATIO`] times its size.
fn inflate(what: &str, s: &str) -> R<Vec<u8>> {
    if s.is_empty() {
        return Ok(Vec::new());
    }
    let z = unbase64(s).ok_or_else(|| format!("its `{what}` is not base64"))?;
    let limit = (z.len() as u64).saturating_mul(MAX_RATIO).min(MAX_INFLATED);
    let mut out = Vec::new();
    flate2::read::DeflateDecoder::new(&z[..])
        .take(limit + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("its `{what}` is not deflated data ({e})"))?;
    if out.len() as u64 > limit {
        return Err(format!("its `{what}` inflates to more than {limit} bytes"));
    }
    Ok(out)
}

fn unpack<T>(what: &str, s: &str, f: impl FnOnce(&mut In) -> R<T>) -> R<T> {
    let bytes = inflate(what, s)?;
    let mut i = In { b: &bytes, at: 0 };
    let v = f(&mut i).and_then(|v| i.end().map(|_| v)).map_err(|e| format!("its `{what}`: {e}"))?;
    Ok(v)
}

/// A kind of measurement saved packed, as the histograms are (deflated varints, in base64), in a
/// field of its own: its own layout ([`Packed::write`]), read back bounded and checked
/// ([`Packed::read`]), under the encoding's limits.
pub(super) trait Packed: Sized {
    /// Its field's name, for what a damaged one says.
    const FIELD: &'static str;
    fn write(&self, o: &mut Out);
    fn read(i: &mut In) -> R<Self>;
}

/// `v` packed.
pub(super) fn pack<T: Packed>(v: &T) -> String {
    let mut o = Out::default();
    v.write(&mut o);
    o.b64()
}

/// A packed `T` read back (refused, saying what is wrong, when damaged or forged).
pub(super) fn unpack_kind<T: Packed>(s: &str) -> R<T> {
    unpack(T::FIELD, s, T::read)
}

fn series_out(series: &[Second]) -> String {
    let mut o = Out::default();
    o.u(series.len() as u128);
    for s in series {
        for v in [s.dur_ns, s.read_ops, s.write_ops, s.trim_ops, s.bytes, s.lag_max_ns, s.tool_lag_max_ns] {
            o.u(v as u128);
        }
        o.u(s.lat_sum_ns);
        o.sparse(&s.lat);
        o.sparse(&s.resp);
        o.counts(&s.over);
        o.counts(&s.lat_over);
    }
    o.b64()
}

/// The seconds' `ready_over` counts, or nothing when no second has any.
fn ready_out(series: &[Second]) -> Option<String> {
    if series.iter().all(|s| s.ready_over.is_empty()) {
        return None;
    }
    let mut o = Out::default();
    o.u(series.len() as u128);
    series.iter().for_each(|s| o.counts(&s.ready_over));
    Some(o.b64())
}

/// `ready_out`'s counts into `series`, which must have as many seconds.
fn ready_in(series: &mut [Second], i: &mut In) -> R<()> {
    let n = i.len(1, usize::MAX)?;
    if n != series.len() {
        return Err(format!("series_ready has {n} seconds, the series {}", series.len()));
    }
    for s in series.iter_mut() {
        s.ready_over = i.counts()?;
    }
    Ok(())
}

fn series_in(i: &mut In) -> R<Vec<Second>> {
    let n = i.len(12, usize::MAX)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let mut v = [0u64; 7];
        for x in &mut v {
            *x = i.u64()?;
        }
        let [dur_ns, read_ops, write_ops, trim_ops, bytes, lag_max_ns, tool_lag_max_ns] = v;
        out.push(Second {
            dur_ns,
            read_ops,
            write_ops,
            trim_ops,
            bytes,
            lag_max_ns,
            tool_lag_max_ns,
            lat_sum_ns: i.u128()?,
            lat: i.sparse()?,
            resp: i.sparse()?,
            over: i.counts()?,
            lat_over: i.counts()?,
            ready_over: Vec::new(),
        });
    }
    Ok(out)
}

impl Measurement {
    /// `t` did every I/O of this measurement (a run on one target): saved as nothing.
    fn is_whole(&self, t: &TargetPart) -> bool {
        let same = |a: &Dir, b: &Dir| a.bytes == b.bytes && a.clat.count() == 0 && a.lat == b.lat;
        same(&t.read, &self.read) && same(&t.write, &self.write) && same(&t.trim, &self.trim)
    }
}

impl Serialize for Measurement {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut dirs = Out::default();
        for d in [&self.read, &self.write, &self.trim, &self.sync] {
            dirs.dir(d);
        }
        dirs.hist(&self.slat);
        let open_loop = self.open_loop.as_ref().map(|o| {
            let mut h = Out::default();
            for x in [&o.resp_read, &o.resp_write, &o.lag, &o.tool_lag] {
                h.hist(x);
            }
            WireOpen {
                late_ops: o.late_ops,
                gave_up: o.gave_up,
                final_lag_ns: o.final_lag_ns,
                target_uiops: o.target_uiops,
                paced_window_ns: o.paced_window_ns,
                hists: h.b64(),
            }
        });
        let targets = self
            .targets
            .iter()
            .map(|t| {
                let mut d = Out::default();
                if !self.is_whole(t) {
                    for x in [&t.read, &t.write, &t.trim] {
                        d.dir(x);
                    }
                }
                WireTarget { order: t.order, path: t.path.clone(), window_ns: t.window_ns, dirs: d.b64() }
            })
            .collect();
        Wire {
            v: VERSION,
            window_ns: self.window_ns,
            jobs: self.jobs,
            interrupted: self.interrupted,
            stopped_by_error: self.stopped_by_error,
            cpu: self.cpu.clone(),
            dirs: dirs.b64(),
            open_loop,
            targets,
            errors: self.errors.clone(),
            series: series_out(&self.series),
            series_ready: ready_out(&self.series),
            split: self.split.as_ref().map(pack),
            kinds: std::borrow::Cow::Borrowed(&self.kinds),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Measurement {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let w = Wire::deserialize(d)?;
        from_wire(w).map_err(|e| D::Error::custom(format!("a saved measurement is damaged or forged: {e}")))
    }
}

fn from_wire(w: Wire) -> R<Measurement> {
    if w.v != VERSION {
        return Err(format!("its version is {} (this drivelab reads {VERSION}): use the drivelab that saved it", w.v));
    }
    let (read, write, trim, sync, slat) =
        unpack("dirs", &w.dirs, |i| Ok((i.dir()?, i.dir()?, i.dir()?, i.dir()?, i.hist()?)))?;
    let open_loop = match w.open_loop {
        None => None,
        Some(o) => {
            let (resp_read, resp_write, lag, tool_lag) =
                unpack("open_loop.hists", &o.hists, |i| Ok((i.hist()?, i.hist()?, i.hist()?, i.hist()?)))?;
            Some(OpenLoop {
                resp_read,
                resp_write,
                lag,
                tool_lag,
                late_ops: o.late_ops,
                gave_up: o.gave_up,
                final_lag_ns: o.final_lag_ns,
                target_uiops: o.target_uiops,
                paced_window_ns: o.paced_window_ns,
            })
        }
    };
    let mut targets = Vec::with_capacity(w.targets.len());
    for t in w.targets {
        // Empty: the target did every I/O of the measurement (see `is_whole`).
        let whole = |d: &Dir| Dir { lat: d.lat.clone(), clat: Histogram::new(), bytes: d.bytes };
        let (read, write, trim) = if t.dirs.is_empty() {
            (whole(&read), whole(&write), whole(&trim))
        } else {
            unpack("targets.dirs", &t.dirs, |i| Ok((i.dir()?, i.dir()?, i.dir()?)))?
        };
        targets.push(TargetPart { order: t.order, path: t.path, window_ns: t.window_ns, read, write, trim });
    }
    let mut series = unpack("series", &w.series, series_in)?;
    if let Some(r) = w.series_ready.as_deref() {
        unpack("series_ready", r, |i| ready_in(&mut series, i))?;
    }
    Ok(Measurement {
        window_ns: w.window_ns,
        jobs: w.jobs,
        read,
        write,
        trim,
        sync,
        slat,
        cpu: w.cpu,
        open_loop,
        targets,
        errors: w.errors,
        series,
        interrupted: w.interrupted,
        stopped_by_error: w.stopped_by_error,
        split: w.split.as_deref().map(unpack_kind).transpose()?,
        kinds: w.kinds.into_owned(),
    })
}

// ---- base64 (standard alphabet, with padding) ----

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len().div_ceil(3) * 4);
    for c in b.chunks(3) {
        let n = (c[0] as u32) << 16 | (*c.get(1).unwrap_or(&0) as u32) << 8 | *c.get(2).unwrap_or(&0) as u32;
        for k in 0..4 {
            if k <= c.len() {
                s.push(B64[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

fn unbase64(s: &str) -> Option<Vec<u8>> {
    let s = s.as_bytes();
    if s.len() % 4 != 0 {
        return None;
    }
    let val = |c: u8| B64.iter().position(|&x| x == c).map(|v| v as u32);
    let mut out = Vec::with_capacity(s.len() / 4 * 3);
    for (ci, c) in s.chunks(4).enumerate() {
        let last = ci == s.len() / 4 - 1;
        let pad = c.iter().rev().take_while(|&&x| x == b'=').count();
        if pad > 2 || (pad > 0 && !last) {
            return None;
        }
        let mut n = 0u32;
        for &x in &c[..4 - pad] {
            n = n << 6 | val(x)?;
        }
        n <<= 6 * pad as u32;
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..3 - pad]);
    }
    Some(out)
}

#[cfg(test)]
pub(super) fn base64_roundtrip(b: &[u8]) -> Option<Vec<u8>> {
    unbase64(&base64(b))
}
