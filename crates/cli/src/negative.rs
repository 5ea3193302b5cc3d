//! Negative values for options (`--qd -4`, `--time -1s`): clap takes a word that starts with
//! `-` for another flag and answers "use '-- -4'", which is no help. Such a value is joined to
//! its option (`--qd=-4`) before parsing, so the option's own check names the value and the fix.

use std::ffi::OsString;

use clap::CommandFactory;

use crate::args::Cli;

/// `args` with every `--option -N...` (an option that takes a value, followed by a word that
/// starts like a negative number) joined into `--option=-N...`.
pub fn join_negative_values(args: Vec<OsString>) -> Vec<OsString> {
    let root = Cli::command();
    let mut cmd = &root;
    let mut out: Vec<OsString> = Vec::with_capacity(args.len());
    let mut words = args.into_iter().peekable();
    if let Some(program) = words.next() {
        out.push(program);
    }
    while let Some(word) = words.next() {
        let text = word.to_string_lossy().into_owned();
        if text == "--" {
            out.push(word);
            out.extend(words);
            break;
        }
        if let Some(sub) = cmd.find_subcommand(&text) {
            cmd = sub;
            out.push(word);
            continue;
        }
        let takes_value = text.strip_prefix("--").filter(|n| !n.contains('=')).is_some_and(|name| {
            cmd.get_arguments().any(|a| a.get_long() == Some(name) && a.get_action().takes_values())
        });
        let negative = words.peek().is_some_and(|next| looks_negative(&next.to_string_lossy()));
        if takes_value && negative {
            let value = words.next().expect("peeked");
            let mut joined = word;
            joined.push("=");
            joined.push(value);
            out.push(joined);
        } else {
            out.push(word);
        }
    }
    out
}

/// `-4`, `-1s`, `-.5`: a minus sign before a digit (flags never look like that).
fn looks_negative(word: &str) -> bool {
    let mut c = word.chars();
    c.next() == Some('-') && matches!(c.next(), Some('0'..='9' | '.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn join(words: &[&str]) -> Vec<String> {
        join_negative_values(words.iter().map(OsString::from).collect())
            .into_iter()
            .map(|w| w.into_string().unwrap())
            .collect()
    }

    #[test]
    fn a_negative_value_is_joined_to_its_option_only() {
        assert_eq!(join(&["drivelab", "run", "null", "--qd", "-4"]), ["drivelab", "run", "null", "--qd=-4"]);
        assert_eq!(
            join(&["drivelab", "run", "null", "--time", "-1s", "-q"]),
            ["drivelab", "run", "null", "--time=-1s", "-q"]
        );
        // A flag that takes no value, an option followed by a flag, and words after `--` stay.
        assert_eq!(
            join(&["drivelab", "run", "null", "-q", "--qd", "--jobs"]),
            ["drivelab", "run", "null", "-q", "--qd", "--jobs"]
        );
        assert_eq!(join(&["drivelab", "run", "--", "--qd", "-4"]), ["drivelab", "run", "--", "--qd", "-4"]);
        assert_eq!(join(&["drivelab", "act", "null", "--scale", "-2"]), ["drivelab", "act", "null", "--scale=-2"]);
    }
}
