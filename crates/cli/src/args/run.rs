//! `drivelab run`'s flags: the access specification (drivelab's own spellings and fio's), the
//! output options, and their translation into engine fields (`fields()`), which a `run` point
//! records and `spec()` validates. Apart from `mod.rs` because these flags are the bulk of the
//! command line and change together.

use clap::Args;
use drivelab_engine::options;
use drivelab_engine::spec::AccessSpec;
use drivelab_engine::Error;

use super::spec_flags::SpecFlags;
use super::{non_empty, SafetyArgs, FILENAME_HELP, FIO};

#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    /// Files, block devices (/dev/...), or `null`. Several targets run at once, one worker each.
    #[arg(required_unless_present = "filename", value_name = "TARGET")]
    pub targets: Vec<String>,

    /// The access-spec flags (drivelab's and fio's spellings), from the option table.
    #[command(flatten)]
    pub spec: SpecFlags,

    #[arg(long, value_name = "A:B", help = FILENAME_HELP, help_heading = FIO)]
    pub filename: Option<String>,

    #[command(flatten)]
    pub safety: SafetyArgs,

    /// A command that prints the power draw in watts, run every second while measuring.
    #[arg(long, value_name = "CMD", help_heading = "Output", value_parser = non_empty())]
    pub power_cmd: Option<String>,
    /// Where the results directory is made (every run leaves one, to report and compare).
    #[arg(long, default_value = "results", value_name = "DIR", help_heading = "Output", value_parser = non_empty())]
    pub results: String,
    /// Save the full result as JSON here (must not exist yet; `-` for standard output).
    #[arg(long, value_name = "FILE", help_heading = "Output", value_parser = non_empty())]
    pub json: Option<String>,
    /// Only the answer on stdout (run: the summary; qos: the highest load); no live line, no
    /// probe lines. Warnings and errors still go to stderr.
    #[arg(long, short, help_heading = "Output")]
    pub quiet: bool,
    /// With a fio job file as the first target: give ${NAME} these values, one run per
    /// combination (NAME=4k,8k,64k or NAME=1..64x2). Repeatable.
    #[arg(long = "var", value_name = "NAME=VALUES", help_heading = "fio job files")]
    pub vars: Vec<String>,
    /// With a fio job file: run each job at most this long (ramp too; a job bound by size also
    /// ends here), e.g. 200ms. The result says the run was shortened.
    #[arg(long, value_name = "DUR", help_heading = "fio job files")]
    pub cap_time: Option<String>,
    /// With a fio job file: each job's region and bytes at most this (e.g. 16m).
    #[arg(long, value_name = "SIZE", help_heading = "fio job files")]
    pub cap_size: Option<String>,
    /// The access-spec flags given on the command line (`--qd`...), as clap saw them
    /// ([`RunArgs::note_given`]): a job file refuses them.
    #[arg(skip)]
    pub given_spec_flags: Vec<String>,
}

impl RunArgs {
    /// Record which access-spec flags were given on the command line, as written: a job file
    /// refuses them.
    pub fn note_given(&mut self) {
        self.given_spec_flags = self.spec.written();
    }

    /// Build and validate the access spec these flags describe.
    pub fn spec(&self) -> Result<AccessSpec, Error> {
        let pairs = self.fields();
        options::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
    }

    /// The flags as access-spec fields (the names plan files use, fio's spellings as written),
    /// in the order given: the record of a `run` point, from which its spec is derived.
    pub fn fields(&self) -> Vec<(String, String)> {
        self.spec.pairs()
    }
}
