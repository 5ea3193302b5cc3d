//! What `drivelab` does with no arguments: the `quick` suite (CrystalDiskMark-style, about a
//! minute) on `./drivelab-scratch.dat` (1 GiB, made once and kept for next time), its results
//! saved under `./results/` and its tables printed. Where the filesystem refuses O_DIRECT, it
//! says so and measures 4 KiB random reads through the page cache instead.

use clap::Parser;
use drivelab_engine::Error;
use drivelab_lab::suites::SuiteId;

use crate::args::{Cli, Command};
use crate::run_cmd::{self, Outcome};
use crate::suite_cmd;
use crate::term::{self, Stream};

pub const SCRATCH: &str = "drivelab-scratch.dat";
/// The scratch file's size when drivelab creates it.
const SIZE: &str = "1g";

/// What `drivelab` with no command does, said exactly (the root `--help`).
pub fn about() -> String {
    let quick = SuiteId::Quick.suite();
    format!(
        "A storage performance lab in one binary.\n\n\
         With no command, drivelab runs the {name} suite ({reproduces}: {about}; {time} per point, about a minute) \
         on ./{SCRATCH}. If that file does not exist it is first created at 1 GiB and fully written \
         with incompressible data, then kept for next time. Results are saved in a new directory under \
         ./results/ and the suite's tables printed. Where the filesystem refuses O_DIRECT, it measures 4 KiB \
         random reads at QD32 through the page cache for 5 s instead.",
        name = quick.name,
        reproduces = quick.reproduces,
        about = quick.about,
        time = quick.default_time,
    )
}

pub fn run() -> Result<Outcome, Error> {
    let line = format!("drivelab: no command given; running the quick suite on ./{SCRATCH} (see `drivelab --help`)");
    crate::output::stdout_line(&term::wrap(&line, term::width(Stream::Stdout)));
    let Some(Command::Suite(args)) = Cli::parse_from(["drivelab", "suite", "quick", SCRATCH, "--size", SIZE]).command
    else {
        unreachable!("static argv")
    };
    match suite_cmd::run(&args) {
        Err(e) if matches!(e.root(), Error::DirectIoRefused { .. }) => buffered_fallback(),
        other => other,
    }
}

fn buffered_fallback() -> Result<Outcome, Error> {
    eprintln!(
        "drivelab: this filesystem refuses O_DIRECT; measuring 4 KiB random reads through the page cache instead"
    );
    let argv =
        ["drivelab", "run", SCRATCH, "--rw", "randread", "--qd", "32", "--time", "5s", "--size", SIZE, "--buffered"];
    let Some(Command::Run(args)) = Cli::parse_from(argv).command else { unreachable!("static argv") };
    run_cmd::run_with_notices(&args, &["the filesystem refuses O_DIRECT: buffered I/O was used"])
}
