//! Verification's part of a run: the maps each stream starts from, each job's slice of its
//! target's region and map (one writer per unit), and the jobs' checks and map slices gathered
//! back into the stream's result.

use std::sync::Arc;

use super::feature::{JobSetup, JobSlot, RunFeature, RunInfo, StreamEnd};
use super::{JobReport, Stream};
use crate::error::Error;
use crate::result::{JobWrites, VerifyStats};
use crate::spec::{AccessSpec, SyncMode};
use crate::target::TargetKind;
use crate::verify::{GenerationMap, JobJournal, Segment, SegmentTarget, UnitFormat};
use crate::worker::JobVerify;

/// Each stream's maps to start from, its journal ids, its unit format (None: it does not verify).
struct Verify {
    maps: Vec<Vec<GenerationMap>>,
    journal_ids: Vec<Vec<Option<u32>>>,
    formats: Vec<Option<Arc<UnitFormat>>>,
}

pub(super) fn prepare(streams: &[Stream], _: &RunInfo) -> Result<Option<Box<dyn RunFeature>>, Error> {
    if !streams.iter().any(|st| st.spec.verify_unit().is_some()) {
        return Ok(None);
    }
    let maps = maps(streams)?;
    let journal_ids = journal(streams, &maps)?;
    let formats = streams.iter().map(|st| format(st.spec)).collect();
    Ok(Some(Box::new(Verify { maps, journal_ids, formats })))
}

impl RunFeature for Verify {
    fn attach(&mut self, slot: &JobSlot, job: &mut JobSetup) {
        let i = slot.stream;
        let Some(f) = self.formats[i].as_ref() else { return };
        // Each job owns its slice of the region: every unit has one writer.
        let (start, span, v) = job_region(f, slot.st, &self.maps[i], &self.journal_ids[i], slot.target, slot.j);
        (job.ctx.start, job.ctx.span, job.verify) = (start, span, Some(v));
    }

    fn finish(&mut self, s: &mut StreamEnd) {
        let Some(unit) = s.st.spec.verify_unit() else { return };
        let maps = std::mem::take(&mut self.maps[s.index]);
        // fio's verify state of each writing job (its number among its target's jobs), before
        // `stats` takes the jobs' outputs.
        if s.st.spec.has_writes() {
            let mut per_target = vec![0u64; s.st.targets.len()];
            for r in s.reports.iter() {
                let job = per_target[r.target];
                per_target[r.target] += 1;
                let Some(v) = r.output.verify.as_ref() else { continue };
                let w = JobWrites {
                    target: r.target,
                    job,
                    issued: v.writes_issued,
                    last_offsets_bytes: v.last_writes.clone(),
                    depth: s.st.spec.qd,
                };
                s.u.verify_writes.push((0, w));
            }
        }
        let (stats, ids, maps) = stats(s.st, s.reports, maps, unit);
        s.m.kinds.verify = Some(stats);
        (s.u.verify_ids, s.u.verify_maps) = (ids, maps);
    }
}

/// The unit format of a verifying stream (None: it does not verify).
fn format(spec: &AccessSpec) -> Option<Arc<UnitFormat>> {
    spec.verify_unit().map(|u| {
        Arc::new(UnitFormat::new(u as usize, spec.seed, spec.verify_zero_pct()).with_pattern(spec.verify_pattern()))
    })
}

/// Job `j`'s region on target `ti` of verifying stream `st`, and its part of the target's map
/// (and of the journal, with its journal id in `journal_ids`).
fn job_region(
    f: &Arc<UnitFormat>,
    st: &Stream,
    maps: &[GenerationMap],
    journal_ids: &[Option<u32>],
    ti: usize,
    j: u64,
) -> (u64, u64, JobVerify) {
    let t = &st.targets[ti];
    // fio's offset_increment sets each job's start (and its region ends at the next one's).
    let (start, span) = if st.spec.offset_increment_bytes > 0 {
        st.spec.clone_region(t.start, t.span, j)
    } else {
        job_slice(t.start, t.span, st.spec, j)
    };
    let map = &maps[ti];
    let journal = st
        .verify
        .journal
        .zip(journal_ids.get(ti).copied().flatten())
        .map(|(journal, id)| JobJournal::new(journal.clone(), id, start, span, st.spec.qd as usize));
    let v = JobVerify {
        format: f.clone(),
        target: target_id(st, ti),
        region_start: start,
        gens: map.slice(map.index(start), (span / map.unit()) as usize),
        serve_reads: t.info.kind == TargetKind::Null,
        journal,
        reads_only: !st.spec.has_writes(),
        check_found: st.spec.verify_found && !st.spec.has_writes(),
    };
    (start, span, v)
}

/// The id target `ti`'s units carry in their headers: the lab's, or its index.
fn target_id(st: &Stream, ti: usize) -> u32 {
    st.verify.ids.get(ti).copied().unwrap_or(ti as u32)
}

/// With `--journal`: each verifying stream's segment in the journal (its seed, unit, targets and
/// their maps at the start), and the journal id of each of its targets (None: a null target,
/// which stores nothing, or a stream that does not verify or journal).
fn journal(streams: &[Stream], maps: &[Vec<GenerationMap>]) -> Result<Vec<Vec<Option<u32>>>, Error> {
    let mut out = Vec::new();
    for (st, maps) in streams.iter().zip(maps) {
        let (Some(journal), Some(unit)) = (st.verify.journal, st.spec.verify_unit()) else {
            out.push(Vec::new());
            continue;
        };
        let stored: Vec<usize> =
            (0..st.targets.len()).filter(|&i| st.targets[i].info.kind != TargetKind::Null).collect();
        let seg = Segment {
            seed: st.spec.seed,
            zero_pct: st.spec.verify_zero_pct(),
            unit,
            durable_acks: st.spec.sync == SyncMode::Dsync,
            targets: stored
                .iter()
                .map(|&i| SegmentTarget { path: &st.targets[i].info.path, run_index: target_id(st, i), map: &maps[i] })
                .collect(),
        };
        let ids = journal
            .begin(&seg)
            .map_err(|e| Error::io(format!("writing the journal {}", journal.path().display()), e))?;
        let mut by_target = vec![None; st.targets.len()];
        for (&i, id) in stored.iter().zip(ids) {
            by_target[i] = Some(id);
        }
        out.push(by_target);
    }
    Ok(out)
}

/// The generation maps each verifying stream starts from: the stream's own (checked against
/// its targets and unit), or fresh ones over each whole target. Empty for a stream that does
/// not verify. Two streams verifying the same target run when their regions are apart (fio's
/// t0002: jobs at 0 and at 4 GiB of one file), each with its own map; regions that overlap
/// are refused: each unit needs one writer.
fn maps(streams: &[Stream]) -> Result<Vec<Vec<GenerationMap>>, Error> {
    // The bytes each verifying stream's jobs may touch on each target so far.
    let mut seen: Vec<(&str, u64, u64)> = Vec::new();
    let mut out = Vec::new();
    for st in streams {
        let Some(unit) = st.spec.verify_unit() else {
            out.push(Vec::new());
            continue;
        };
        for t in st.targets {
            if st.spec.jobs > 1
                && st.spec.offset_increment_bytes == 0
                && slice_share(t.span, st.spec) < st.spec.max_bs()
            {
                return Err(Error::invalid(format!(
                    "with verify each of the {} jobs on {} owns a slice of its {}-byte region, too small for a {}-byte \
                     block: use fewer jobs or a larger region",
                    st.spec.jobs,
                    t.info.path,
                    t.span,
                    st.spec.max_bs()
                )));
            }
            let clones = u64::from(st.spec.jobs.saturating_sub(1));
            let end =
                t.start.saturating_add(t.span).saturating_add(st.spec.offset_increment_bytes.saturating_mul(clones));
            let path = t.info.path.as_str();
            if let Some(&(_, lo, hi)) = seen.iter().find(|&&(p, lo, hi)| p == path && t.start < hi && lo < end) {
                return Err(Error::invalid(format!(
                    "{path} is verified by two streams at once in overlapping regions (bytes {}..{end} and \
                     {lo}..{hi}): verify needs one writer per unit; give them regions apart (offset, size) or \
                     verify one of them",
                    t.start
                )));
            }
            seen.push((path, t.start, end));
        }
        if st.verify.ids.len() > st.targets.len()
            || (!st.verify.ids.is_empty() && st.verify.ids.len() != st.targets.len())
        {
            return Err(Error::invalid(format!("{} target ids for {} targets", st.verify.ids.len(), st.targets.len())));
        }
        if st.verify.maps.is_empty() {
            let fresh: Result<Vec<_>, _> =
                st.targets.iter().map(|t| GenerationMap::new(0, (t.start + t.span) / unit * unit, unit)).collect();
            out.push(fresh?);
            continue;
        }
        if st.verify.maps.len() != st.targets.len() {
            return Err(Error::invalid(format!(
                "{} generation maps for {} targets",
                st.verify.maps.len(),
                st.targets.len()
            )));
        }
        for (m, t) in st.verify.maps.iter().zip(st.targets) {
            if m.unit() != unit || m.start() != 0 || (m.len() as u64) * unit < t.start + t.span {
                return Err(Error::invalid(format!(
                    "{}: what is known to be written there was mapped in {}-byte units over {} bytes, and this run \
                     verifies {unit}-byte units up to byte {}: give {{verify_unit}} {} (the unit of the first \
                     verifying run)",
                    t.info.path,
                    m.unit(),
                    m.len() as u64 * m.unit(),
                    t.start + t.span,
                    m.unit()
                )));
            }
        }
        out.push(st.verify.maps.to_vec());
    }
    Ok(out)
}

/// Job `j`'s slice of the region `[start, start + span)` with verify: an equal share, in
/// whole blocks of the largest size (and the alignment), the last job taking the rest.
fn job_slice(start: u64, span: u64, spec: &AccessSpec, j: u64) -> (u64, u64) {
    let jobs = spec.jobs as u64;
    if jobs <= 1 {
        return (start, span);
    }
    let share = slice_share(span, spec);
    let s = start + j * share;
    let len = if j + 1 == jobs { start + span - s } else { share };
    (s, len)
}

/// Each job's share of a region of `span` bytes with verify, in whole blocks of the largest
/// size (and the alignment).
fn slice_share(span: u64, spec: &AccessSpec) -> u64 {
    let grain = spec.max_bs().max(spec.align());
    span / spec.jobs.max(1) as u64 / grain * grain
}

/// What the stream's jobs verified, summed (the first mismatches kept as a merge keeps them),
/// the id of each target's units, and each target's map with the jobs' slices put back.
fn stats(
    st: &Stream,
    reports: &mut [JobReport],
    mut maps: Vec<GenerationMap>,
    unit: u64,
) -> (VerifyStats, Vec<u32>, Vec<GenerationMap>) {
    use crate::measurement::kinds::Mergeable;
    let mut stats = VerifyStats {
        unit_bytes: unit,
        seed: st.spec.seed,
        journal: st.verify.journal.map(|j| j.path().display().to_string()),
        ..Default::default()
    };
    let ids = (0..st.targets.len()).map(|ti| target_id(st, ti)).collect();
    for r in reports.iter_mut() {
        let Some(v) = r.output.verify.take() else { continue };
        let map = &mut maps[r.target];
        map.put(map.index(r.job_start), &v.gens);
        stats.written_units += v.written_units;
        stats.unchecked_units += v.unchecked_units;
        stats.held_ios += v.held_ios;
        let mut inline = v.inline;
        for m in &mut inline.first {
            m.target = st.targets[r.target].info.path.clone();
        }
        Mergeable::merge(&mut stats.inline, &inline);
    }
    (stats, ids, maps)
}
