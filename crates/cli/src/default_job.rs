//! What `drivelab` does with no arguments: a first impression of the storage under the current
//! directory — a 256 MiB scratch file (made once, kept for next time), 4 KiB random reads at
//! QD32 for 5 seconds, and the summary. If the filesystem refuses O_DIRECT, it says so and uses
//! buffered I/O instead.

use clap::Parser;
use drivelab_engine::Error;

use crate::args::{Cli, Command};
use crate::run_cmd::{self, Outcome};

pub const SCRATCH: &str = "drivelab-scratch.dat";

pub fn run() -> Result<Outcome, Error> {
    let argv =
        ["drivelab", "run", SCRATCH, "--rw", "randread", "--bs", "4k", "--qd", "32", "--time", "5s", "--size", "256m"];
    let Some(Command::Run(mut args)) = Cli::parse_from(argv).command else { unreachable!("static argv") };
    println!("drivelab: no command given; measuring 4 KiB random reads at QD32 on ./{SCRATCH} (see `drivelab --help`)");
    let mut spec = args.spec()?;
    let size = args.safety.new_file_size()?;
    let mut notices = Vec::new();
    match run_cmd::run_spec(&mut spec.clone(), &args, size, &mut notices) {
        Err(Error::Invalid(msg)) if msg.contains("refuses O_DIRECT") => {
            eprintln!("drivelab: this filesystem refuses O_DIRECT; measuring through the page cache instead");
            args.buffered = true;
            spec.direct = false;
            notices.push("the filesystem refuses O_DIRECT: buffered I/O was used".into());
            run_cmd::run_spec(&mut spec, &args, size, &mut notices)
        }
        other => other,
    }
}
