//! `drivelab`: the command line. Parses flags, runs the command, maps outcomes to exit codes:
//! 0 done, 1 the system failed (or an I/O error stopped the run, or standard output could not be
//! written), 2 bad input or a refusal (nothing was written), 3 the objective was not met (`act`:
//! no passing load; `qos`: no load meets the objective), 130 interrupted (finished results kept).

mod act_cmd;
mod args;
mod compare_cmd;
mod default_job;
mod docs_cmd;
mod events;
mod fio_cmd;
mod info_cmd;
mod mpi;
mod negative;
mod output;
mod plan_cmd;
mod progress;
mod qos_cmd;
mod report_cmd;
mod run_cmd;
mod session;
mod suite_cmd;
mod summary;
mod term;
mod verify_cmd;
mod version;

use clap::{CommandFactory, FromArgMatches};

use args::{Cli, Command};
use run_cmd::Outcome;

fn main() {
    // `--latency-split`'s kernel side, where this build has it (the `bpf` feature).
    drivelab_bpf::register();
    // fio's command line is fio's (`drivelab fio ...`, `drivelab run --name=...`): not clap's.
    let raw: Vec<String> = std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect();
    if let Some(argv) = fio_cmd::fio_argv(&raw) {
        // A name that is not UTF-8 would be read with U+FFFD in place of its bytes, and a log
        // made under that other name: refused (clap refuses it on drivelab's own commands).
        if let Some(bad) = std::env::args_os().find(|a| a.to_str().is_none()) {
            output::stderr_line(&format!(
                "drivelab: {} is not UTF-8: fio mode reads names and values as UTF-8; give that file a UTF-8 name",
                not_utf8(&bad)
            ));
            std::process::exit(2);
        }
        drivelab_report::fit::set_width(term::width(term::Stream::Stdout));
        let code = exit_code(fio_cmd::run(&argv));
        mpi::finish();
        std::process::exit(code);
    }
    let parsed = || -> Result<Cli, clap::Error> {
        // --help is wrapped as every text drivelab prints: the terminal's width, else $COLUMNS,
        // else 80 (clap's own default in a pipe is 100).
        let width = term::width(term::Stream::Stdout);
        let matches = Cli::command()
            .term_width(width)
            .max_term_width(width)
            .try_get_matches_from(negative::join_negative_values(std::env::args_os().collect()))?;
        let mut cli = Cli::from_arg_matches(&matches)?;
        if let Some(Command::Run(r)) = &mut cli.command {
            r.note_given();
        }
        Ok(cli)
    };
    let mut cli = match parsed() {
        Ok(c) => c,
        Err(e) => {
            // An argument holding what a terminal obeys is shown escaped (clap shows it raw),
            let plain = e.render().to_string();
            // So is one past the longest word stderr shows whole.
            if e.use_stderr() && (plain.chars().any(drivelab_engine::printable::is_unsafe) || plain.len() > 4096) {
                output::stderr_line(plain.trim_end());
                std::process::exit(2);
            }
            // --help and --version go to stdout: a full disk there is a failure like any other.
            let printed = e.print().and_then(|_| std::io::Write::flush(&mut std::io::stdout()));
            if e.use_stderr() {
                std::process::exit(2);
            }
            if let Err(err) = printed {
                output::stdout_error(&err);
            }
            std::process::exit(if output::stdout_failed() { 1 } else { 0 });
        }
    };
    // Every table is fitted to the width of the screen (or $COLUMNS, else 80) its text goes to.
    drivelab_report::fit::set_width(term::width(term::Stream::Stdout));
    let stray = cli.refuse_stray_values(&std::env::args_os().collect::<Vec<_>>());
    if let Err(e) = stray.and_then(|_| cli.take_filenames()) {
        output::stderr_line(&format!("drivelab: {}", e.cli_message()));
        std::process::exit(2);
    }
    // Under mpirun: start MPI (commands that measure only), give this rank its own --destroy
    // and --journal names, and let only rank 0 print.
    if let Some(safety) = cli.safety_mut() {
        if let Err(e) = mpi::start(safety.share()) {
            output::stderr_line(&format!("drivelab: {}", e.cli_message()));
            std::process::exit(2);
        }
        if let Some(ranks) = mpi::ranks() {
            safety.expand_for_rank(&ranks);
            if !ranks.is_writer() {
                output::silence();
            }
        }
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
        Some(Command::Verify(a)) => verify_cmd::run(a),
        Some(Command::Completions(a)) => docs_cmd::completions(a),
        Some(Command::Man(a)) => docs_cmd::man(a),
        Some(Command::Fio(a)) => fio_cmd::run(&a.args),
    };
    let code = exit_code(outcome);
    mpi::finish();
    std::process::exit(code);
}

/// `word` with each byte that is not UTF-8 written as `\xNN`.
fn not_utf8(word: &std::ffi::OsStr) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut out = String::new();
    for chunk in word.as_bytes().utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// The exit code of a command's outcome (an error is said on stderr here).
fn exit_code(outcome: Result<Outcome, drivelab_engine::Error>) -> i32 {
    match outcome {
        Ok(Outcome::Done) if output::stdout_failed() => 1,
        Ok(Outcome::Done) => 0,
        Ok(Outcome::StoppedByError | Outcome::FilesLost) => 1,
        Ok(Outcome::NotMet) => 3,
        Ok(Outcome::NotSteady) => 4,
        Ok(Outcome::Interrupted) => {
            eprintln!("drivelab: interrupted; finished results were kept");
            130
        }
        Err(e) => {
            term::eprint_warning(&format!("drivelab: {}", e.cli_message()));
            if let drivelab_engine::Error::NeedsDestroy { devices, .. } = e.root() {
                output::stderr_line(&destroy_hint(devices));
            }
            if e.is_interrupted() {
                130
            } else if e.is_invalid() {
                2
            } else {
                1
            }
        }
    }
}

/// This process's command line as text for the record (a non-UTF-8 word shown lossily: never a
/// panic, as `std::env::args` would give).
pub fn command_line() -> Vec<String> {
    std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect()
}

/// The way out of a refusal for `devices` not named with `--destroy`: this command line with
/// the fewest flags that pass every check of a real run (as `drivelab info` gives them):
/// `--destroy DEV`, and `--force` when a device holds what may be stale (a filesystem's
/// signature, a partition table) — or, when one is in use right now, that no flag will do.
/// (A hint of `--destroy` alone for a device with a filesystem was refused again when followed.)
fn destroy_hint(devices: &[String]) -> String {
    use drivelab_lab::safety::concern::Kind;
    let mut live = Vec::new();
    let mut stale = Vec::new();
    for d in devices {
        let concerns = drivelab_lab::safety::block_concerns_of_kind(d);
        match concerns.iter().find(|c| c.kind == Kind::Live) {
            Some(c) => live.push(c.text.clone()),
            None => stale.extend(concerns.into_iter().filter(|c| c.kind == Kind::Stale).map(|c| c.text).take(1)),
        }
    }
    if !live.is_empty() {
        return format!(
            "--destroy would not be enough: {}; refusing whatever the flags (live user; --force does not override \
             a live user: unmount/stop it first)",
            live.join("; ")
        );
    }
    let mut cmd = with_destroy(devices);
    if stale.is_empty() || command_line().iter().any(|w| w == "--force") {
        return format!("to run it so: {cmd}");
    }
    cmd += " --force";
    format!("to run it so ({}: --force as well): {cmd}", stale.join("; "))
}

/// This very command line with `--destroy DEV` added for each of `devices`, quoted for a shell.
fn with_destroy(devices: &[String]) -> String {
    let mut words: Vec<String> = command_line();
    if let Some(first) = words.first_mut() {
        *first = "drivelab".to_string();
    }
    for d in devices {
        words.push("--destroy".into());
        words.push(d.clone());
    }
    words.iter().map(|w| shell_quote(w)).collect::<Vec<_>>().join(" ")
}

/// `word` as a POSIX shell reads it back: bare when it holds only safe characters, else in
/// single quotes.
pub(crate) fn shell_quote(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_-./:=,@%+".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn words_are_quoted_only_when_a_shell_needs_it() {
        assert_eq!(super::shell_quote("/dev/loop0"), "/dev/loop0");
        assert_eq!(super::shell_quote("p99<1ms"), "'p99<1ms'");
        assert_eq!(super::shell_quote("it's"), "'it'\\''s'");
        assert_eq!(super::shell_quote(""), "''");
    }
}
