//! fio's `zonemode=zbd` in a run (`crate::zbd`): one table of emulated zones per target shared
//! by every job on it (fio shares a file's `zbd_info` by the file's name, across jobs), and what
//! the result says of the zones afterwards.

use std::collections::HashMap;
use std::sync::Arc;

use super::feature::{JobSetup, JobSlot, RunFeature, RunInfo, StreamEnd};
use super::{JobReport, Stream};
use crate::error::Error;
use crate::spec::AccessSpec;
use crate::zbd::ZoneTable;

/// Per stream, per target: its zone table (None without `zbd`).
struct Zones(Vec<Vec<Option<Arc<ZoneTable>>>>);

pub(super) fn prepare(streams: &[Stream], _: &RunInfo) -> Result<Option<Box<dyn RunFeature>>, Error> {
    if !streams.iter().any(|st| st.spec.zbd.is_some()) {
        return Ok(None);
    }
    Ok(Some(Box::new(Zones(tables(streams)))))
}

impl RunFeature for Zones {
    fn attach(&mut self, slot: &JobSlot, job: &mut JobSetup) {
        job.ctx.zones = self.0[slot.stream][slot.target].clone();
    }

    fn finish(&mut self, s: &mut StreamEnd) {
        let resets = s.st.spec.has_writes().then(|| resets(&self.0[s.index]));
        s.u.notices.extend(notices(s.st.spec, s.reports, resets));
        s.m.kinds.zone_resets = resets.map(crate::measurement::kinds::ZoneResets);
    }
}

/// Per stream, per target: its zone table (None without `zbd`). Jobs of any stream on the same
/// path with the same zones share one.
fn tables(streams: &[Stream]) -> Vec<Vec<Option<Arc<ZoneTable>>>> {
    let mut by_target: HashMap<(String, u64, u64, u32), Arc<ZoneTable>> = HashMap::new();
    streams
        .iter()
        .map(|st| {
            st.targets
                .iter()
                .map(|t| {
                    let z = st.spec.zbd?;
                    let key = (t.info.path.clone(), z.zone_bytes, z.capacity(), z.max_open);
                    Some(
                        by_target.entry(key).or_insert_with(|| Arc::new(ZoneTable::new(&z, t.info.size_bytes))).clone(),
                    )
                })
                .collect()
        })
        .collect()
}

/// What a stream's result says of its zones: the resets (fio's status line's "zone resets";
/// None for a stream that does not write), and why jobs that ended early did.
fn notices(spec: &AccessSpec, reports: &[JobReport], resets: Option<u64>) -> Vec<String> {
    let Some(z) = spec.zbd else { return Vec::new() };
    let mut out = Vec::new();
    let ended = reports.iter().filter(|r| r.output.zbd_ended).count();
    if ended > 0 {
        let why = if spec.has_writes() {
            "no zone of their region could be opened for a write"
        } else {
            "no zone of their region holds data below its write pointer to read (emulated zones start empty; \
             read_beyond_wp is off)"
        };
        out.push(format!(
            "zonemode=zbd: {ended} of {} jobs ended early: {why}; fio's jobs end the same way",
            reports.len()
        ));
    }
    if let Some(resets) = resets {
        out.push(format!("zonemode=zbd ({} zones): {resets} zone resets", crate::units::fmt_size(z.zone_bytes)));
    }
    out
}

/// The zones a stream's tables reset (a table its jobs share counted once).
fn resets(tables: &[Option<Arc<ZoneTable>>]) -> u64 {
    let mut seen: Vec<*const ZoneTable> = Vec::new();
    let mut resets = 0;
    for t in tables.iter().flatten() {
        if !seen.contains(&Arc::as_ptr(t)) {
            seen.push(Arc::as_ptr(t));
            resets += t.resets();
        }
    }
    resets
}
