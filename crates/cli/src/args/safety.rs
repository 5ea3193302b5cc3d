//! Target creation and permission to write (`--size`, `--destroy`, `--force`, `--overwrite`,
//! `--journal`, `--share`, `--label`): the same flags for every command that measures, and what they become
//! for the lab (`Permission`, each MPI rank's own names).

use clap::Args;
use drivelab_engine::{options as fields, Error};

use super::{non_empty, DEFAULT_FILE_SIZE};

/// Target creation and permission to write: the same for `run` and `plan`.
#[derive(Args, Debug, Clone)]
pub struct SafetyArgs {
    /// Size of a file target that does not exist yet (it is created and fully written first);
    /// default 1g, or a plan's own size. An existing file keeps its size (a notice says so).
    #[arg(long, value_name = "SIZE", help_heading = "Targets and safety")]
    pub size: Option<String>,
    /// Allow writes to this block device (destroys its data). Repeat for several devices.
    #[arg(long, value_name = "DEV", help_heading = "Targets and safety", value_parser = non_empty())]
    pub destroy: Vec<String>,
    /// With --destroy: write even to a device that is mounted, partitioned, in use or holds a filesystem.
    #[arg(long, help_heading = "Targets and safety")]
    pub force: bool,
    /// Allow writing into an existing file that drivelab did not create.
    #[arg(long, help_heading = "Targets and safety")]
    pub overwrite: bool,
    /// With --verify: record every write (before it is submitted) and every acknowledgement
    /// (after it completes) durably in FILE, a new file on another device, so that after a crash
    /// or power cut `drivelab verify --journal FILE` finds the durable writes that were lost.
    #[arg(long, value_name = "FILE", help_heading = "Verification", value_parser = non_empty())]
    pub journal: Option<String>,
    /// Under mpirun: how the ranks use the targets — own (each rank its own: put {rank} or
    /// {host} in the paths), split (one shared file or device, each rank its own segment: IOR's
    /// segmented layout) or whole (every rank over all of it). See docs/guide/mpi.md "Many hosts:
    /// MPI".
    #[arg(long, value_name = "HOW", default_value = "own", value_parser = ["own", "split", "whole"], help_heading = "Targets and safety")]
    pub share: String,
    /// Show TARGET as NAME in every table, chart, CSV and report ("SATA II", not /dev/loop3);
    /// saved with the results. Repeat for several targets.
    #[arg(long = "label", value_name = "TARGET=NAME", help_heading = "Targets and safety")]
    pub labels: Vec<String>,
    /// Run the job threads in the session drivelab was started in, as `fio --thread` does: they
    /// then share the CPUs with whatever else runs in it. By default they run in a session of
    /// their own, as fio's job processes do (docs/PERFORMANCE.md "A busy machine").
    #[arg(long, help_heading = "Scheduling")]
    pub thread: bool,
}

impl SafetyArgs {
    pub fn permission(&self) -> drivelab_lab::safety::Permission<'_> {
        drivelab_lab::safety::Permission {
            destroy: &self.destroy,
            force: self.force,
            overwrite: self.overwrite,
            shared: self.share().shared() && crate::mpi::ranks().is_some(),
        }
    }

    /// `--share`.
    pub fn share(&self) -> drivelab_lab::ranks::Share {
        drivelab_lab::ranks::Share::from_name(&self.share).unwrap_or_default()
    }

    /// `--destroy` and `--journal` as this rank names them (`{rank}`, `{host}`).
    pub fn expand_for_rank(&mut self, ranks: &drivelab_lab::ranks::Ranks) {
        for d in &mut self.destroy {
            *d = ranks.expand(d);
        }
        if let Some(j) = self.journal.as_mut() {
            *j = ranks.expand(j);
        }
    }

    /// `--journal`, refused at once when the file exists (a journal is only ever a new file) or
    /// cannot be made (`store::check_new_file`): before anything is created or run.
    pub fn journal_path(&self) -> Result<Option<std::path::PathBuf>, Error> {
        let Some(j) = &self.journal else { return Ok(None) };
        let path = std::path::PathBuf::from(j);
        if path.symlink_metadata().is_ok() {
            let e = std::io::Error::from(std::io::ErrorKind::AlreadyExists);
            return Err(drivelab_lab::execute::journal_error(&path, e));
        }
        drivelab_lab::store::check_new_file("--journal", j)?;
        Ok(Some(path))
    }

    /// `--label`s, each checked against `targets` (the command's, as given).
    pub fn names(&self, targets: &[String]) -> Result<drivelab_lab::names::DriveNames, Error> {
        Ok(drivelab_lab::names::DriveNames::parse(&self.labels, targets)?)
    }

    /// `--size`, else 1 GiB.
    pub fn new_file_size(&self) -> Result<u64, Error> {
        fields::parse_new_file_size(self.size.as_deref().unwrap_or(DEFAULT_FILE_SIZE))
    }
}
