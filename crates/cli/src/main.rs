//! `drivelab`: the command line. Parses flags, runs the command, maps outcomes to exit codes:
//! 0 done, 1 the system failed (or an I/O error stopped the run), 2 bad input or a refusal
//! (nothing was written), 130 interrupted (finished results kept).

mod act_cmd;
mod args;
mod compare_cmd;
mod default_job;
mod docs_cmd;
mod events;
mod info_cmd;
mod negative;
mod output;
mod plan_cmd;
mod progress;
mod qos_cmd;
mod report_cmd;
mod run_cmd;
mod suite_cmd;
mod summary;
mod version;

use clap::Parser;

use args::{Cli, Command};
use run_cmd::Outcome;

fn main() {
    let mut cli = match Cli::try_parse_from(negative::join_negative_values(std::env::args_os().collect())) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            std::process::exit(code);
        }
    };
    if let Err(e) = cli.take_filenames() {
        eprintln!("drivelab: {}", e.cli_message());
        std::process::exit(2);
    }
    let outcome = match &cli.command {
        None => default_job::run(),
        Some(Command::Run(a)) => run_cmd::run(a),
        Some(Command::Plan(a)) => plan_cmd::run(a),
        Some(Command::Suite(a)) => suite_cmd::run(a),
        Some(Command::Report(a)) => report_cmd::run(a),
        Some(Command::Compare(a)) => compare_cmd::run(a),
        Some(Command::Act(a)) => act_cmd::run(a),
        Some(Command::Qos(a)) => qos_cmd::run(a),
        Some(Command::Info(a)) => info_cmd::run(a),
        Some(Command::Completions(a)) => docs_cmd::completions(a),
        Some(Command::Man(a)) => docs_cmd::man(a),
    };
    let code = match outcome {
        Ok(Outcome::Done) => 0,
        Ok(Outcome::StoppedByError) => 1,
        Ok(Outcome::Interrupted) => {
            eprintln!("drivelab: interrupted; finished results were kept");
            130
        }
        Err(e) => {
            eprintln!("drivelab: {}", e.cli_message());
            if e.is_interrupted() {
                130
            } else if e.is_invalid() {
                2
            } else {
                1
            }
        }
    };
    std::process::exit(code);
}
