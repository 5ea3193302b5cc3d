//! `--resume DIR`: what a resumed plan starts from, and the checks that it measures what the run
//! started on. Under MPI the results directory is rank 0's (the other ranks' hosts may not see
//! it): rank 0 reads it and every rank is sent what it read; then each rank checks its own
//! targets against the facts saved for its rank, and the ranks agree, so a refusal on any rank
//! stops all before anything runs. Which points are done is rank 0's too
//! ([`crate::execute::Lab::from_writer`]).

use std::path::{Path, PathBuf};

use drivelab_engine::target::{probe, TargetKind};
use drivelab_engine::Error;
use serde::{Deserialize, Serialize};

use crate::plan::Plan;
use crate::ranks::{Ranks, RanksRecord, Share};
use crate::results::{Kind, TargetFacts};

/// Why a results directory cannot be resumed: the words defined once, each kind with the
/// directory (and the target or the ranks), so a caller can match (or downcast from
/// [`Error::Refused`]) the kind. Exit code 2; nothing was run.
#[derive(Debug, thiserror::Error)]
pub enum ResumeError {
    #[error("--resume {}: a {kind} results directory has no points to resume; run it again instead", .dir.display())]
    NoPoints { dir: PathBuf, kind: Kind },
    #[error("--resume {d}: the run was started by mpirun on {size} ranks with --share {share}; resume it the same \
             way: mpirun -n {size} drivelab plan --resume {d} --share {share} (nothing was run)",
            d = .dir.display(), share = .share.name())]
    RanksDiffer { dir: PathBuf, size: usize, share: Share },
    #[error("--resume {}: the run was started without mpirun; resume it without mpirun, or start a new \
             run (nothing was run)", .dir.display())]
    NowUnderMpi { dir: PathBuf },
    #[error("--resume {}: target {target} did not exist when the run started, and a file that is not a finished \
             drivelab target is there now (someone else's, or one another drivelab is filling); a resumed run \
             measures only what it made (move that file away, or start a new \
             run; nothing was run)", .dir.display())]
    SomeoneElsesFile { dir: PathBuf, target: String },
    /// The target is gone (`gone`) or is another drive.
    #[error("--resume {}: target {target} {} since the run started; a resumed run must measure the same \
             targets (start a new run instead; nothing was run)",
            .dir.display(), if *.gone { "no longer exists" } else { "is another drive" })]
    TargetChanged { dir: PathBuf, target: String, gone: bool },
}

impl From<ResumeError> for Error {
    fn from(e: ResumeError) -> Error {
        Error::refused(e)
    }
}

/// A results directory to resume, as read from it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Resume {
    pub dir: PathBuf,
    pub kind: Kind,
    pub plan: Plan,
    /// The targets the run started on (rank 0's under MPI).
    targets: Vec<TargetFacts>,
    /// Under MPI: how many ranks ran, and each one's targets.
    ranks: Option<RanksRecord>,
    /// The targets of the points done (as the plan names them, before `{rank}` is expanded).
    #[serde(default)]
    used: Vec<String>,
    /// The command line the run was started with (its point options, `--no-prep` among them,
    /// hold for the points still to run).
    #[serde(default)]
    pub command_line: Vec<String>,
}

/// Read `dir` to resume it, checked on every rank (collective under MPI: rank 0 reads, every
/// rank checks its own targets).
pub fn read(dir: &Path, ranks: Option<&Ranks>) -> Result<Resume, Error> {
    let Some(ranks) = ranks else {
        let resume = read_here(dir)?;
        resume.check(None)?;
        return Ok(resume);
    };
    let local = if ranks.is_writer() { read_here(dir).map(Some) } else { Ok(None) };
    let mine = ranks.agree(local)?;
    let resume = ranks.gather(&mine)?.into_iter().next().flatten().expect("rank 0 read the directory");
    ranks.agree(resume.check(Some(ranks)))?;
    Ok(resume)
}

fn read_here(dir: &Path) -> Result<Resume, Error> {
    let saved = crate::results::load(dir)?;
    let Some(plan) = saved.manifest.plan() else {
        return Err(ResumeError::NoPoints { dir: saved.dir.clone(), kind: saved.manifest.kind }.into());
    };
    let mut used: Vec<String> = Vec::new();
    for p in saved.points.iter().filter(|p| !p.result.interrupted) {
        for t in p.point.targets.iter().chain(p.point.concurrent.iter().flat_map(|c| &c.targets)) {
            if !used.contains(t) {
                used.push(t.clone());
            }
        }
    }
    Ok(Resume {
        used,
        plan: plan.clone(),
        kind: saved.manifest.kind,
        targets: saved.manifest.targets,
        ranks: saved.manifest.ranks,
        command_line: saved.manifest.command_line,
        dir: saved.dir,
    })
}

impl Resume {
    /// The size the run creates its new files at (what `--size` or the plan gave it), if it
    /// creates any: a resume creates them again at that size.
    pub fn new_file_bytes(&self) -> Option<u64> {
        let mine = self.ranks.as_ref().and_then(|r| r.ranks.first()).map_or(&self.targets, |r| &r.targets);
        mine.iter().find_map(|t| t.new_file_bytes)
    }

    /// Refused when the run was started on another number of ranks or another `--share` (the
    /// points done would be of another load), or when a target of this process is not the one
    /// the run started on (a file that is gone would silently be created anew and measured as
    /// if it were the same drive; a device whose model, serial or capacity changed is another
    /// drive). A file the run was creating when it stopped, which no point done has measured, is
    /// not such a file: what the stop left of it (nothing, or a half-filled file marked as
    /// drivelab's unfinished one that no process is filling) is cleared, to be created again.
    pub fn check(&self, ranks: Option<&Ranks>) -> Result<(), Error> {
        let d = || self.dir.clone();
        let mine = match (&self.ranks, ranks) {
            (None, None) => &self.targets,
            (Some(r), Some(now)) if r.size == now.size() && r.share == now.share() => &r.ranks[now.rank()].targets,
            (Some(r), _) => return Err(ResumeError::RanksDiffer { dir: d(), size: r.size, share: r.share }.into()),
            (None, Some(_)) => return Err(ResumeError::NowUnderMpi { dir: d() }.into()),
        };
        for facts in mine {
            let t = &facts.path;
            if t == "null" {
                continue;
            }
            // A file this run was to create that no point done has measured: a stop while it
            // was being created removed it (SIGTERM) or left it half-filled (SIGKILL). The
            // resumed run creates it again, as the run would have.
            let expand = |name: &String| ranks.map_or_else(|| name.clone(), |r| r.expand(name));
            let unmeasured = facts.new_file_bytes.is_some() && !self.used.iter().any(|u| expand(u) == *t);
            if unmeasured {
                drivelab_engine::target::remove_half_made(t).ok();
            }
            let info = probe(t)?;
            if unmeasured && info.kind == TargetKind::File {
                if !info.exists || info.created_by_drivelab {
                    continue;
                }
                // Not what this run made: someone else's file has the name now.
                return Err(ResumeError::SomeoneElsesFile { dir: d(), target: t.clone() }.into());
            }
            let gone = info.kind == TargetKind::File && !info.exists;
            let now = info.disk.as_deref().and_then(crate::sysinfo::device);
            let other_drive = match (&facts.device, &now) {
                (Some(a), Some(b)) => {
                    (&a.model, &a.serial, a.capacity_bytes) != (&b.model, &b.serial, b.capacity_bytes)
                }
                _ => false,
            };
            if gone || other_drive {
                return Err(ResumeError::TargetChanged { dir: d(), target: t.clone(), gone }.into());
            }
        }
        Ok(())
    }
}
