//! fio's job over several files (`filename=a:b`, `nrfiles`, `opendir`): ONE job (not one per
//! file, drivelab's own model, where each drive is measured on its own) issues each I/O to one
//! of its files, chosen as fio's `file_service_type` says, and keeps each file's own position
//! and random map. Its figures are the job's, over the set, as fio reports them: two devices
//! named in one fio job are one job at `iodepth`, not two jobs at `iodepth` each.

use serde::{Deserialize, Serialize};

/// How a run groups a stream's targets into jobs.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct FileSet {
    /// Targets per job: the stream's targets, in order, `per_job` at a time, each group run by
    /// `jobs` jobs. 1: every target its own jobs (drivelab's model).
    pub per_job: u32,
    /// Which file of its group a job's next I/O goes to.
    pub service: FileService,
}

impl Default for FileSet {
    fn default() -> Self {
        FileSet { per_job: 1, service: FileService::default() }
    }
}

impl FileSet {
    pub fn is_single(&self) -> bool {
        *self == FileSet::default()
    }

    /// Targets each job runs over: `per_job`, at least 1.
    pub fn each(&self) -> usize {
        self.per_job.max(1) as usize
    }
}

/// Why a `file_service_type` is refused: the words defined once.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum FileServiceError {
    #[error("'{0}': the I/Os before switching files must be a whole number from 1")]
    Switch(String),
    #[error("'{0}': drivelab chooses files by roundrobin, random or sequential, not by a skewed distribution; use one of those")]
    Skewed(String),
    #[error("'{0}': expected roundrobin, random or sequential (with an optional :N)")]
    Unknown(String),
}

/// fio's `file_service_type`: which file a job's next I/O goes to.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum FileService {
    /// The next file after every `switch` I/Os (fio's default, `roundrobin`, 1).
    RoundRobin { switch: u32 },
    /// A file drawn at random after every `switch` I/Os.
    Random { switch: u32 },
    /// One file until a pass over it is issued, then the next (fio's `sequential`).
    Sequential,
}

impl Default for FileService {
    fn default() -> Self {
        FileService::RoundRobin { switch: 1 }
    }
}

impl FileService {
    /// fio's spelling: `roundrobin`, `random`, `sequential`, each with an optional `:N` (I/Os
    /// before switching). fio's skewed choices (`zipf`, `pareto`, `normal`, `gauss`) are refused.
    pub fn parse(v: &str) -> Result<FileService, FileServiceError> {
        let (word, n) = v.split_once(':').map_or((v, None), |(w, n)| (w, Some(n)));
        let switch = || -> Result<u32, FileServiceError> {
            n.map_or(Ok(1), |n| n.parse().ok().filter(|&n| n > 0).ok_or_else(|| FileServiceError::Switch(n.into())))
        };
        match word {
            "roundrobin" => Ok(FileService::RoundRobin { switch: switch()? }),
            "random" => Ok(FileService::Random { switch: switch()? }),
            "sequential" => Ok(FileService::Sequential),
            "zipf" | "pareto" | "normal" | "gauss" => Err(FileServiceError::Skewed(word.into())),
            _ => Err(FileServiceError::Unknown(word.into())),
        }
    }

    /// fio's word for it, read back by `parse`.
    pub fn word(&self) -> String {
        match *self {
            FileService::RoundRobin { switch: 1 } => "roundrobin".into(),
            FileService::RoundRobin { switch } => format!("roundrobin:{switch}"),
            FileService::Random { switch: 1 } => "random".into(),
            FileService::Random { switch } => format!("random:{switch}"),
            FileService::Sequential => "sequential".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fios_words_read_and_read_back() {
        for w in ["roundrobin", "roundrobin:4", "random", "random:2", "sequential"] {
            assert_eq!(FileService::parse(w).unwrap().word(), w);
        }
        assert_eq!(FileService::parse("zipf:1.2"), Err(FileServiceError::Skewed("zipf".into())));
        assert_eq!(FileService::parse("roundrobin:0"), Err(FileServiceError::Switch("0".into())));
        assert_eq!(FileService::parse("lottery"), Err(FileServiceError::Unknown("lottery".into())));
    }
}
