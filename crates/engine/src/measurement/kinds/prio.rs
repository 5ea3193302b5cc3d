//! fio's completion latency per I/O priority (`clat_prio`: the `prios` entries of each direction
//! in fio's JSON, the `clat prio CLASS/LEVEL` lines of its normal output): with per-I/O
//! priorities (fio's `cmdprio_*`, `spec.prio`'s per-I/O entries), each direction's completion
//! latency (clat) is kept once more per priority the I/Os actually ran at, so a high-priority
//! share's latency can be read beside the rest. A job records it into a histogram per priority it
//! may use, made when it starts (no allocation per I/O); a priority no I/O used has no entry.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::Mergeable;
use crate::gen::Op;
use crate::hist::{Histogram, LatSummary};
use crate::measurement::encoding::{pack, unpack_kind, In, Out, Packed, R};
use crate::spec::AccessSpec;

/// Each priority's completion latencies, for reads and for writes: (ioprio, histogram), by
/// ioprio ascending, none empty.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PrioClat(pub [Vec<(u16, Histogram)>; 2]);

impl PrioClat {
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(Vec::is_empty)
    }
}

/// Priorities merge by value, their histograms bucket by bucket.
impl Mergeable for PrioClat {
    fn merge(&mut self, other: &Self) {
        for (mine, theirs) in self.0.iter_mut().zip(&other.0) {
            for (p, h) in theirs {
                match mine.binary_search_by_key(p, |e| e.0) {
                    Ok(k) => mine[k].1.merge(h),
                    Err(k) => mine.insert(k, (*p, h.clone())),
                }
            }
        }
    }
}

impl Packed for PrioClat {
    const FIELD: &'static str = "clat_prio";

    fn write(&self, o: &mut Out) {
        for dir in &self.0 {
            o.u(dir.len() as u128);
            for (p, h) in dir {
                o.u(u128::from(*p));
                o.hist(h);
            }
        }
    }

    /// Read back bounded and checked: priorities ascending, each with I/Os.
    fn read(i: &mut In) -> R<PrioClat> {
        let mut out = PrioClat::default();
        for dir in &mut out.0 {
            let n = i.len(2, 1 << 16)?;
            for _ in 0..n {
                let p = u16::try_from(i.u64()?).map_err(|_| "a priority is out of range".to_string())?;
                if dir.last().is_some_and(|l| l.0 >= p) {
                    return Err("priorities out of order".into());
                }
                let h = i.hist()?;
                if h.count() == 0 {
                    return Err("a priority without I/Os".into());
                }
                dir.push((p, h));
            }
        }
        Ok(out)
    }
}

/// Saved packed in the measurement's `clat_prio` field.
pub(in crate::measurement) fn save<S: Serializer>(v: &PrioClat, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&pack(v))
}

pub(in crate::measurement) fn load<'de, D: Deserializer<'de>>(d: D) -> Result<PrioClat, D::Error> {
    let s = String::deserialize(d)?;
    unpack_kind(&s).map_err(|e| serde::de::Error::custom(format!("a saved measurement is damaged or forged: {e}")))
}

/// One priority's completion latency, as a result holds it (fio's `prios` entry).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PrioLat {
    /// Linux's ioprio class (0 none, 1 real-time, 2 best-effort, 3 idle) and level (0-7).
    pub prioclass: u16,
    pub prio: u16,
    pub clat_ns: LatSummary,
}

/// Each priority's completion latency, by direction (empty without per-I/O priorities).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PrioLats {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read: Vec<PrioLat>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub write: Vec<PrioLat>,
}

impl PrioClat {
    /// Its figures (None when no I/O ran at a per-I/O priority's job).
    pub fn figures(&self) -> Option<PrioLats> {
        let lats = |dir: &[(u16, Histogram)]| -> Vec<PrioLat> {
            let lat = |&(p, ref h): &(u16, Histogram)| {
                let (prioclass, prio) = crate::spec::prio::parts(p);
                PrioLat { prioclass, prio, clat_ns: h.summary() }
            };
            dir.iter().map(lat).collect()
        };
        (!self.is_empty()).then(|| PrioLats { read: lats(&self.0[0]), write: lats(&self.0[1]) })
    }
}

/// A job's recording: a histogram per priority it may use, per direction, made when it starts.
pub(crate) struct PrioRec(PrioClat);

impl PrioRec {
    /// For a job of `spec` with per-I/O priorities (None otherwise: nothing recorded).
    pub(crate) fn of(spec: &AccessSpec) -> Option<PrioRec> {
        let p = spec.prio.as_ref().filter(|p| p.per_io())?;
        let mut rec = PrioClat::default();
        for (dir, entries) in rec.0.iter_mut().zip(&p.cmd) {
            let mut values: Vec<u16> = entries.iter().filter(|e| e.pct > 0).map(|e| e.ioprio).collect();
            values.push(p.job);
            values.sort_unstable();
            values.dedup();
            *dir = values.into_iter().map(|v| (v, Histogram::new())).collect();
        }
        Some(PrioRec(rec))
    }

    /// A measured I/O of `op` at priority `prio` completed `clat` ns after its submit call.
    #[inline]
    pub(crate) fn record(&mut self, op: Op, prio: u16, clat: u64) {
        let dir = match op {
            Op::Read => &mut self.0 .0[0],
            Op::Write => &mut self.0 .0[1],
            Op::Trim => return,
        };
        if let Some(e) = dir.iter_mut().find(|e| e.0 == prio) {
            e.1.record(clat);
        }
    }

    /// Measurement starts over: what was recorded is dropped.
    pub(crate) fn clear(&mut self) {
        self.0 .0.iter_mut().flatten().for_each(|e| e.1.clear());
    }

    /// What the job recorded (the priorities no I/O used left out).
    pub(crate) fn finish(&self) -> PrioClat {
        PrioClat(self.0 .0.clone().map(|dir| dir.into_iter().filter(|e| e.1.count() > 0).collect()))
    }
}
