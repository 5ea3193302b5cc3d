//! Many hosts, one result: drivelab's ranks under MPI (issue #15).
//!
//! `mpirun -n N drivelab …` starts one drivelab per rank. Every rank runs the same driver (a
//! plan's points, a qos or ACT search) on its own targets, and every decision a driver takes is
//! taken on the **merged** result, which every rank computes from the same bytes: so every rank
//! takes the same decisions and calls the same collectives in the same order, with no rank
//! telling the others what to do. Rank 0 alone writes the results directory and prints.
//!
//! What crosses ranks is small and rare: an agreement after every check (a refusal on any rank
//! stops all before anything is written, [`Ranks::agree`]), a barrier that starts every
//! measurement on every rank at once ([`Ranks::start`]), and each rank's results after it
//! ([`Ranks::gather`]), merged exactly by [`merge::merge_ranks`] (histograms added bucket by
//! bucket). During a measurement only a stop crosses: a rank that an I/O error stopped tells
//! the others, which stop too ([`StopLine`]).
//!
//! The wire is a [`Transport`]: MPI's (the CLI's `mpi` feature, rsmpi over Open MPI) or, in
//! tests, threads ([`local`]). This crate needs no MPI to build.

pub mod halt;
#[cfg(test)]
pub mod local;
pub mod merge;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use drivelab_engine::result::RunResult;
use drivelab_engine::spec::{AccessSpec, RateScope};
use drivelab_engine::Error;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// What carries bytes between ranks. Every method is collective: every rank calls it, in the
/// same order, or the ranks wait for each other forever.
pub trait Transport {
    fn rank(&self) -> usize;
    fn size(&self) -> usize;
    /// Every rank's `mine`, in rank order.
    fn all_gather(&self, mine: &[u8]) -> Vec<Vec<u8>>;
    /// Returns on every rank once every rank has called it.
    fn barrier(&self);
    /// Run `measure` with a [`StopLine`] open. Collective: every rank calls it once per
    /// measurement; when it returns, every stop any rank said has been received, so nothing is
    /// left over for the next measurement.
    fn with_stop_line(&self, measure: &mut dyn FnMut(&dyn StopLine));
}

/// The one thing that crosses ranks while they measure: a rank whose run an I/O error stopped
/// says so, and every rank listens between its progress ticks (a rank's I/O path never waits on
/// it) and stops too, so an error on any rank stops them all.
pub trait StopLine {
    /// Tell every other rank to stop; said once, later calls do nothing.
    fn say(&self);
    /// The rank whose stop was heard here first, if one was (never blocks).
    fn heard(&self) -> Option<usize>;
}

/// How ranks use the targets they are given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Share {
    /// Each rank its own targets (`{rank}` and `{host}` in their paths tell them apart); two ranks
    /// of one host naming the same target are refused.
    #[default]
    Own,
    /// One shared file or device, each rank its own contiguous segment of the region (IOR's
    /// segmented layout).
    Split,
    /// One shared file or device, every rank over the whole region.
    Whole,
}

impl Share {
    pub fn name(self) -> &'static str {
        match self {
            Share::Own => "own",
            Share::Split => "split",
            Share::Whole => "whole",
        }
    }

    pub fn from_name(s: &str) -> Option<Share> {
        [Share::Own, Share::Split, Share::Whole].into_iter().find(|v| v.name() == s)
    }

    /// The targets are one object seen by several ranks.
    pub fn shared(self) -> bool {
        self != Share::Own
    }
}

/// Why ranks cannot run as asked: the words defined once, each kind with its ranks and sizes,
/// so a caller can match (or downcast from [`Error::Refused`]) the kind. Exit code 2.
#[derive(Debug, thiserror::Error)]
pub enum RanksError {
    /// Two ranks of one host (`first` and `second`, as [`Ranks::who`] names them) name one target.
    #[error(
        "{first} and {second} both name {target} as their own target on {host}: put {{rank}} in the target's path \
             so each rank has its own, or add --share split (or whole) to share it among the ranks \
             (nothing was written)"
    )]
    SameTarget { first: String, second: String, target: String, host: String },
    #[error(
        "--share split: a region of {region} bytes cannot give each of {ranks} ranks one {unit}-byte block: \
             enlarge the target or the span, or use fewer ranks"
    )]
    RegionTooSmall { region: u64, ranks: usize, unit: u64 },
}

impl From<RanksError> for Error {
    fn from(e: RanksError) -> Error {
        Error::refused(e)
    }
}

/// An error as it crosses ranks: its kind (which decides the exit code) and its message.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct WireError {
    kind: WireKind,
    message: String,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "lowercase")]
enum WireKind {
    Invalid,
    Interrupted,
    Failed,
}

impl WireError {
    pub(crate) fn of(e: &Error) -> WireError {
        let kind = if e.is_interrupted() {
            WireKind::Interrupted
        } else if e.is_invalid() {
            WireKind::Invalid
        } else {
            WireKind::Failed
        };
        WireError { kind, message: e.cli_message() }
    }

    /// The error on this rank, said to be `who`'s.
    fn into_error(self, who: String) -> Error {
        let inner = match self.kind {
            WireKind::Invalid => Error::Invalid(self.message),
            WireKind::Interrupted => Error::Interrupted(self.message),
            WireKind::Failed => Error::io(self.message, std::io::Error::other("on that rank")),
        };
        inner.context(who)
    }
}

/// How one rank's measurement was started: from its arrival at the start barrier to its
/// release, on its own `CLOCK_REALTIME` (comparable across ranks of one host, and across hosts
/// as far as their clocks are synchronised).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StartSync {
    pub arrived_unix_ns: u64,
    pub released_unix_ns: u64,
}

impl StartSync {
    /// Time this rank waited at the barrier.
    pub fn wait_ns(&self) -> u64 {
        self.released_unix_ns.saturating_sub(self.arrived_unix_ns)
    }

    /// The barrier's own cost in one start: from the last rank's arrival to the last release.
    pub fn overhead_ns(starts: &[StartSync]) -> u64 {
        let last_in = starts.iter().map(|s| s.arrived_unix_ns).max().unwrap_or(0);
        let last_out = starts.iter().map(|s| s.released_unix_ns).max().unwrap_or(0);
        last_out.saturating_sub(last_in)
    }

    /// How far apart the ranks left the barrier (their measurements' starts).
    pub fn skew_ns(starts: &[StartSync]) -> u64 {
        let first = starts.iter().map(|s| s.released_unix_ns).min().unwrap_or(0);
        let last = starts.iter().map(|s| s.released_unix_ns).max().unwrap_or(0);
        last - first
    }
}

/// One rank's own part of a point or probe, saved beside the merged result: its results (one
/// per stream: a fio group's jobs, ACT's streams), power and start.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RankPart {
    pub rank: usize,
    pub host: String,
    pub results: Vec<RunResult>,
    /// Average `--power-cmd` reading on this rank's host, in watts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power_w: Option<f64>,
    pub start: StartSync,
}

/// One rank's facts, in the manifest: its host and its targets as it resolved them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RankFacts {
    pub rank: usize,
    pub host: crate::sysinfo::HostFacts,
    pub targets: Vec<crate::results::TargetFacts>,
}

/// `run.json`'s record of an MPI run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RanksRecord {
    /// Ranks that ran (MPI's world size).
    pub size: usize,
    pub share: Share,
    pub ranks: Vec<RankFacts>,
}

/// This process's place among the ranks, and the wire to the others.
pub struct Ranks {
    transport: Box<dyn Transport>,
    rank: usize,
    size: usize,
    hosts: Vec<String>,
    share: Share,
}

impl Ranks {
    /// Collective: every rank learns every rank's host name.
    pub fn new(transport: Box<dyn Transport>, share: Share) -> Ranks {
        let (rank, size) = (transport.rank(), transport.size());
        let host = crate::sysinfo::hostname();
        let hosts =
            transport.all_gather(host.as_bytes()).into_iter().map(|b| String::from_utf8_lossy(&b).into()).collect();
        Ranks { transport, rank, size, hosts, share }
    }

    pub fn rank(&self) -> usize {
        self.rank
    }

    pub fn size(&self) -> usize {
        self.size
    }

    pub fn share(&self) -> Share {
        self.share
    }

    pub fn host(&self) -> &str {
        &self.hosts[self.rank]
    }

    pub fn host_of(&self, rank: usize) -> &str {
        &self.hosts[rank]
    }

    /// Rank 0 writes the results directory and prints; the others only measure.
    pub fn is_writer(&self) -> bool {
        self.rank == 0
    }

    /// How a rank is named in messages: `rank 2 (node3)`.
    pub fn who(&self, rank: usize) -> String {
        format!("rank {rank} ({})", self.hosts[rank])
    }

    /// `path` with `{rank}` and `{host}` replaced by this rank's.
    pub fn expand(&self, path: &str) -> String {
        expand(path, self.rank, self.host())
    }

    /// Collective: every rank's `mine`, in rank order, as every rank decoded it from the same bytes.
    pub fn gather<T: Serialize + DeserializeOwned>(&self, mine: &T) -> Result<Vec<T>, Error> {
        let bytes = serde_json::to_vec(mine).map_err(|e| Error::io("encoding for the other ranks", e.into()))?;
        self.transport
            .all_gather(&bytes)
            .iter()
            .enumerate()
            .map(|(r, b)| {
                serde_json::from_slice(b)
                    .map_err(|e| Error::io(format!("decoding what {} sent", self.who(r)), e.into()))
            })
            .collect()
    }

    /// Collective: `local` if every rank's is `Ok`; else every rank returns the error of the
    /// lowest rank that failed, named with its rank and host (and how many others failed too).
    pub fn agree<T>(&self, local: Result<T, Error>) -> Result<T, Error> {
        let wire = local.as_ref().err().map(WireError::of);
        let all = self.gather(&wire)?;
        let failed: Vec<usize> = all.iter().enumerate().filter(|(_, w)| w.is_some()).map(|(r, _)| r).collect();
        let Some(&first) = failed.first() else { return local };
        let mut who = self.who(first);
        if failed.len() > 1 {
            let others: Vec<String> = failed[1..].iter().map(|r| r.to_string()).collect();
            who = format!("{who}; ranks {} failed too", others.join(", "));
        }
        match local {
            Err(e) if first == self.rank => Err(e.context(who)),
            _ => Err(all[first].clone().expect("a failed rank sent its error").into_error(who)),
        }
    }

    /// Collective: every rank's part of a measurement, or — when a rank failed — the error of
    /// the lowest rank that did, on every rank.
    pub fn gather_results(&self, local: Result<RankPart, Error>) -> Result<Vec<RankPart>, Error> {
        let wire: Result<RankPart, WireError> = local.as_ref().map_err(WireError::of).cloned();
        let all = self.gather(&wire)?;
        let failed: Vec<usize> = all.iter().enumerate().filter(|(_, w)| w.is_err()).map(|(r, _)| r).collect();
        let Some(&first) = failed.first() else {
            return Ok(all.into_iter().map(|p| p.expect("none failed")).collect());
        };
        let who = self.who(first);
        match local {
            Err(e) if first == self.rank => Err(e.context(who)),
            _ => Err(all.into_iter().nth(first).and_then(Result::err).expect("it failed").into_error(who)),
        }
    }

    /// Collective: the barrier every measurement starts at, timed.
    pub fn start(&self) -> StartSync {
        let arrived_unix_ns = unix_ns();
        self.transport.barrier();
        StartSync { arrived_unix_ns, released_unix_ns: unix_ns() }
    }

    /// Collective: `measure` (one measurement) with the [`StopLine`] open.
    pub fn while_measuring<T>(&self, measure: impl FnOnce(&dyn StopLine) -> T) -> T {
        let mut measure = Some(measure);
        let mut out = None;
        self.transport.with_stop_line(&mut |line| out = measure.take().map(|m| m(line)));
        out.expect("the transport runs the measurement once")
    }

    /// Collective: returns once every rank has called it.
    pub fn barrier(&self) {
        self.transport.barrier()
    }

    /// Two ranks of one host naming one target as their own would destroy each other's data:
    /// refused unless the targets are declared shared. `mine`: this rank's targets (canonical
    /// paths). Collective.
    pub fn check_own_targets(&self, mine: &[String]) -> Result<(), Error> {
        let all: Vec<Vec<String>> = self.gather(&mine.to_vec())?;
        if self.share.shared() {
            return Ok(());
        }
        let mut seen: BTreeMap<(&str, &str), usize> = BTreeMap::new();
        for (rank, targets) in all.iter().enumerate() {
            for t in targets.iter().filter(|t| t.as_str() != "null") {
                if let Some(&other) = seen.get(&(self.host_of(rank), t.as_str())) {
                    if other != rank {
                        let (first, second) = (self.who(other), self.who(rank));
                        let (target, host) = (t.clone(), self.host_of(rank).to_string());
                        return Err(RanksError::SameTarget { first, second, target, host }.into());
                    }
                }
                seen.insert((self.host_of(rank), t.as_str()), rank);
            }
        }
        Ok(())
    }

    /// `spec` as this rank runs it: a `--rate-scope total` rate divided evenly among the ranks;
    /// with [`Share::Split`], the region cut into `size` segments (each a whole number of
    /// `unit` bytes: the largest block and the alignment) and this rank given its own.
    /// `target_size`: the smallest of the targets' sizes.
    pub fn rank_spec(&self, spec: &AccessSpec, target_size: u64) -> Result<AccessSpec, Error> {
        let mut spec = spec.clone();
        if let Some(rate) = spec.rate.as_mut().filter(|r| r.scope == RateScope::Total) {
            rate.per_s /= self.size as f64;
        }
        if self.share == Share::Split && self.size > 1 {
            let region = spec.span_bytes.unwrap_or(target_size.saturating_sub(spec.offset_bytes));
            let unit = spec.max_bs().max(spec.align_bytes.unwrap_or(0)).max(1);
            let segment = region / self.size as u64 / unit * unit;
            if segment == 0 {
                return Err(RanksError::RegionTooSmall { region, ranks: self.size, unit }.into());
            }
            spec.offset_bytes += segment * self.rank as u64;
            spec.span_bytes = Some(segment);
        }
        Ok(spec)
    }
}

/// `path` with `{rank}` and `{host}` replaced.
pub fn expand(path: &str, rank: usize, host: &str) -> String {
    path.replace("{rank}", &rank.to_string()).replace("{host}", host)
}

fn unix_ns() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
}
