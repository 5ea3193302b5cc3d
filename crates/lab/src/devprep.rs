//! The plan runner's prep step for block devices: a plan or suite that writes a device
//! (`--destroy DEV`) fills it whole first, as a file is filled when drivelab creates it, so
//! what its points read is written data (a never-written block reads many times faster: see
//! [`crate::written`]); `--no-prep` skips the fill and the results say so. Every point records
//! what drivelab knew of each device it used ([`DevicePrep`]), and a point that only reads a
//! device drivelab never saw written says so at run time.

use drivelab_engine::spec::{AccessSpec, Trim};
use drivelab_engine::target::{self, TargetInfo, TargetKind};
use drivelab_engine::units::fmt_size;
use drivelab_engine::Error;

use crate::execute::{Event, Lab, WriteWhy};
use crate::plan::{Plan, Point};
use crate::precondition;
use crate::written::{DevicePrep, DeviceState, Ledger, StateError, WrittenBy};

/// How the prep step runs (from `PlanOptions`).
#[derive(Clone, Copy, Debug, Default)]
pub struct PrepOptions {
    /// Fill each device the plan writes before its first point (plans and suites).
    pub fill_devices: bool,
    /// `--no-prep`: the fill was asked away (recorded in every point that writes a device).
    pub no_prep: bool,
    /// `--precondition N` runs: it writes every target whole, so no fill is needed beside it.
    pub preconditioned: bool,
}

/// Each stream of `p` (its own spec and its concurrent jobs'), with its targets as this rank
/// names them.
fn streams<'p>(lab: &Lab, p: &'p Point) -> Vec<(&'p AccessSpec, Vec<String>)> {
    std::iter::once((&p.spec, &p.targets))
        .chain(p.concurrent.iter().map(|c| (&c.spec, &c.targets)))
        .map(|(s, ts)| (s, ts.iter().map(|t| lab.local_target(t)).collect()))
        .collect()
}

/// The block devices among `names`, probed (anything that cannot be probed is left to the
/// point's own checks, which name it).
fn devices(names: &[String]) -> Vec<TargetInfo> {
    names.iter().filter_map(|n| target::probe(n).ok()).filter(|i| i.kind == TargetKind::Block).collect()
}

/// The targets (as the plan names them) that are block devices some point of `plan` writes,
/// each once, in the order first written. Under MPI the writer's list, so every rank runs the
/// same fills (each on its own expansion of the names) and calls the same collectives.
fn written_devices(lab: &Lab, plan: &Plan) -> Result<Vec<String>, Error> {
    let mut out: Vec<String> = Vec::new();
    for p in plan.precondition.iter().chain(&plan.points) {
        let own = std::iter::once((&p.spec, &p.targets)).chain(p.concurrent.iter().map(|c| (&c.spec, &c.targets)));
        for (_, names) in own.filter(|(s, _)| s.has_writes()) {
            for name in names {
                let local = lab.local_target(name);
                if !out.contains(name) && !devices(std::slice::from_ref(&local)).is_empty() {
                    out.push(name.clone());
                }
            }
        }
    }
    lab.from_writer(out)
}

/// Say what went wrong with the records (a notice: they are a cache), once each.
fn say(lab: &mut Lab, ledger: &mut Ledger, r: Result<(), StateError>) {
    for e in ledger.take_problem().into_iter().chain(r.err()) {
        lab.emit(Event::Notice(&e.to_string()));
    }
}

/// Fill every device `plan` writes, unless `--no-prep`, `--precondition` (which writes it whole
/// anyway) or drivelab already filled it (the ledger says so; never under MPI, where every rank
/// must run the same measurements). False when interrupted.
pub fn fill_devices(
    lab: &mut Lab,
    plan: &Plan,
    opts: PrepOptions,
    ledger: &mut Ledger,
    like: Option<&AccessSpec>,
) -> Result<bool, Error> {
    if !opts.fill_devices && !opts.no_prep {
        return Ok(true);
    }
    let engine = plan.points.first().map(|p| p.spec.engine).unwrap_or_default();
    // Each kind of notice once, naming every device it is about (three drives, one line).
    let mut skipped: Vec<(&'static str, Vec<String>)> = Vec::new();
    let mut to_fill: Vec<(String, TargetInfo)> = Vec::new();
    let mut unprepped: Vec<String> = Vec::new();
    let written = written_devices(lab, plan)?;
    if !written.is_empty() {
        say(lab, ledger, Ok(()));
    }
    for name in written {
        let local = lab.local_target(&name);
        // Under MPI another rank's device may be a file here: written whole all the same.
        let info = target::probe(&local)?;
        if opts.no_prep {
            unprepped.push(info.path.clone());
            continue;
        }
        if opts.preconditioned {
            continue;
        }
        if let Some(r) = ledger.get(&info).filter(|r| r.state == DeviceState::Filled && lab.ranks().is_none()) {
            let by = match r.by {
                WrittenBy::Prep => "a plan's fill",
                WrittenBy::Precondition => "--precondition",
                WrittenBy::WriteRun => "a write run",
            };
            match skipped.iter_mut().find(|(b, _)| *b == by) {
                Some((_, list)) => list.push(info.path.clone()),
                None => skipped.push((by, vec![info.path.clone()])),
            }
            continue;
        }
        to_fill.push((local, info));
    }
    if !unprepped.is_empty() {
        lab.emit(Event::Notice(&format!(
            "--no-prep: {} {} not filled before this plan writes {}, so what its points read where nothing was \
             written yet may be unwritten blocks, which read faster than written ones",
            unprepped.join(", "),
            if unprepped.len() == 1 { "is" } else { "are" },
            if unprepped.len() == 1 { "it" } else { "them" },
        )));
    }
    for (by, list) in &skipped {
        let (verb, them) = if list.len() == 1 { ("was", "it is") } else { ("were", "they are") };
        lab.emit(Event::Notice(&format!(
            "{} {verb} written whole by drivelab since {} appeared ({by}), so {them} not filled again",
            list.join(", "),
            if list.len() == 1 { "it" } else { "they" },
        )));
    }
    if !to_fill.is_empty() {
        let paths: Vec<&str> = to_fill.iter().map(|(_, i)| i.path.as_str()).collect();
        let sizes: Vec<String> = to_fill.iter().map(|(_, i)| fmt_size(i.size_bytes)).collect();
        let size = match sizes.as_slice() {
            [one] => one.clone(),
            [first, ..] if sizes.iter().all(|s| s == first) => format!("{first} each"),
            _ => sizes.join(", "),
        };
        lab.emit(Event::Notice(&format!(
            "prep: {} {} filled first ({size} written sequentially in 128 KiB blocks), as a new file is, because a \
             device's never-written blocks read faster than written ones; --no-prep skips this",
            paths.join(", "),
            if paths.len() == 1 { "is" } else { "are" },
        )));
    }
    let mut later: u64 = to_fill.iter().fold(0u64, |a, (_, i)| a.saturating_add(i.size_bytes));
    for (local, info) in to_fill {
        later = later.saturating_sub(info.size_bytes);
        if !precondition::sequential(lab, std::slice::from_ref(&local), 1, engine, like, WriteWhy::Fill, later)? {
            return Ok(false);
        }
        let r = ledger.wrote(&info, WrittenBy::Prep);
        say(lab, ledger, r);
    }
    Ok(true)
}

/// `--precondition N` passes wrote `names` whole: recorded.
pub fn preconditioned(lab: &mut Lab, names: &[String], ledger: &mut Ledger) {
    let names: Vec<String> = names.iter().map(|t| lab.local_target(t)).collect();
    for info in devices(&names) {
        let r = ledger.wrote(&info, WrittenBy::Precondition);
        say(lab, ledger, r);
    }
}

/// What `p`'s result says of each block device it uses, before it runs; the notice of a
/// device it only reads and drivelab never saw written is emitted here.
pub fn before_point(lab: &mut Lab, p: &Point, ledger: &mut Ledger, opts: PrepOptions) -> Vec<DevicePrep> {
    let mut seen: Vec<(TargetInfo, bool)> = Vec::new();
    for (spec, names) in streams(lab, p) {
        for info in devices(&names) {
            match seen.iter_mut().find(|(i, _)| i.path == info.path) {
                Some((_, w)) => *w |= spec.has_writes(),
                None => seen.push((info, spec.has_writes())),
            }
        }
    }
    if !seen.is_empty() {
        say(lab, ledger, Ok(()));
    }
    let preps: Vec<DevicePrep> =
        seen.iter().filter_map(|(info, writes)| ledger.prep_of(info, *writes, opts.no_prep)).collect();
    for n in preps.iter().filter_map(DevicePrep::notice) {
        lab.emit(Event::Notice(&n));
    }
    preps
}

/// After `p` ran: the devices it wrote are recorded as written (a trim forgets them: their
/// blocks may read as unwritten again). A record that cannot be saved is a notice: the point's
/// result stands.
pub fn after_point(lab: &mut Lab, p: &Point, ledger: &mut Ledger) {
    for (spec, names) in streams(lab, p) {
        if !spec.has_writes() {
            continue;
        }
        for info in devices(&names) {
            let r =
                if spec.trim == Trim::Only { ledger.trimmed(&info) } else { ledger.wrote(&info, WrittenBy::WriteRun) };
            say(lab, ledger, r);
        }
    }
}
