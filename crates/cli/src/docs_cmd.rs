//! `drivelab completions SHELL` and `drivelab man [COMMAND]`: a shell completion script and
//! man pages, generated from the clap definitions (so they never disagree with `--help`), with
//! each flag's completion words and value kind (`args::complete`).

use drivelab_engine::Error;

use clap::CommandFactory;

use crate::args::{complete, Cli, CompletionsArgs, ManArgs};
use crate::output::stdout_text;
use crate::run_cmd::Outcome;

pub fn completions(args: &CompletionsArgs) -> Result<Outcome, Error> {
    let mut cmd = complete::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "drivelab", &mut script);
    stdout_text(&String::from_utf8_lossy(&script));
    Ok(Outcome::Done)
}

pub fn man(args: &ManArgs) -> Result<Outcome, Error> {
    let root = complete::annotated(Cli::command().disable_help_subcommand(true));
    let page = match &args.command {
        None => root,
        Some(name) => match root.find_subcommand(name) {
            Some(sub) => sub.clone().version(crate::version::VERSION),
            None => {
                let names: Vec<&str> = root.get_subcommands().map(|c| c.get_name()).collect();
                return Err(Error::invalid(format!(
                    "man {name}: drivelab has no such command; give one of {} (or none for drivelab's own page)",
                    names.join(", ")
                )));
            }
        },
    };
    let mut roff = Vec::new();
    clap_mangen::Man::new(page).render(&mut roff).map_err(|e| Error::io("writing the man page", e))?;
    stdout_text(&String::from_utf8_lossy(&roff));
    Ok(Outcome::Done)
}
