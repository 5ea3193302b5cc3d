//! Negative values for options (`--qd -4`, `--time -1s`): clap takes a word that starts with
//! `-` for another flag and answers "use '-- -4'", which is no help. Such a value is joined to
//! its option (`--qd=-4`) before parsing, so the option's own check names the value and the fix.
//!
//! Likewise fio's `--direct 0`: `--direct` alone means O_DIRECT, so its value must be joined
//! (`--direct=0`), or the 0 would be taken for a target named `0`. A flag whose value is
//! optional takes a following word that is one of its values.

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
        let optional_value = text.strip_prefix("--").filter(|n| !n.contains('=')).is_some_and(|name| {
            cmd.get_arguments().any(|a| {
                a.get_long() == Some(name)
                    && a.is_require_equals_set()
                    && words.peek().is_some_and(|next| {
                        a.get_possible_values().iter().any(|v| v.matches(&next.to_string_lossy(), false))
                    })
            })
        });
        if (takes_value && negative) || optional_value {
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

    #[test]
    fn fio_direct_takes_a_following_0_or_1_as_its_value() {
        assert_eq!(join(&["drivelab", "run", "--direct", "0", "null"]), ["drivelab", "run", "--direct=0", "null"]);
        assert_eq!(join(&["drivelab", "run", "null", "--direct", "1"]), ["drivelab", "run", "null", "--direct=1"]);
        // Alone, or before a target, --direct stays a flag.
        assert_eq!(join(&["drivelab", "run", "--direct", "f.dat"]), ["drivelab", "run", "--direct", "f.dat"]);
        assert_eq!(join(&["drivelab", "run", "null", "--direct"]), ["drivelab", "run", "null", "--direct"]);
    }
}
