//! What shell completions and man pages know about each flag's values: the words of every flag
//! with a fixed set of values (`--rw`, `--distribution`, a suite's name...) and, for the rest,
//! what kind of value it takes (a path, a directory, a command, or a number that must not
//! complete file names).
//!
//! The flags themselves parse their values as text and leave checking to the engine, whose
//! errors name the value and the fix; so the words are added here, to the command that
//! `completions` and `man` are generated from, by a value parser that lists them and accepts
//! anything. A flag is matched by its long name (words) or by its value name (the kind of
//! value); a unit test checks that every flag taking a value is covered and that every word is
//! one the engine takes.

use clap::builder::{PossibleValue, TypedValueParser};
use clap::{Arg, Command, CommandFactory, ValueHint};

use drivelab_engine::options;

use super::Cli;

/// The words a flag (by long name) completes to: an option's own (the option table's), or
/// `--pick`'s. A word ending in `:` starts a value with parameters (`zipf:1.2`).
fn words_of(long: &str) -> Option<&'static [&'static str]> {
    if long == "pick" {
        return Some(&["best", "median"]);
    }
    let opt = options::by_own(&long.replace('-', "_")).or_else(|| options::by_fio(long))?;
    Some(opt.words).filter(|w| !w.is_empty())
}

/// The kind of value a flag takes, by its value name (`--qd N`, `--json FILE`).
const HINTS: &[(&str, ValueHint)] = &[
    // Numbers, durations, sizes, rates, objectives, names: nothing to complete.
    ("N", ValueHint::Other),
    ("PCT", ValueHint::Other),
    ("SIZE", ValueHint::Other),
    ("DUR", ValueHint::Other),
    ("SECONDS", ValueHint::Other),
    ("F", ValueHint::Other),
    ("SHARE", ValueHint::Other),
    ("VALUE", ValueHint::Other),
    ("RATE", ValueHint::Other),
    ("CPU", ValueHint::Other),
    ("CRITERIA", ValueHint::Other),
    ("NAME", ValueHint::Other),
    ("NAME=VALUES", ValueHint::Other),
    ("DQL", ValueHint::Other),
    // Files drivelab reads or writes.
    ("FILE", ValueHint::FilePath),
    ("FILE.html", ValueHint::FilePath),
    ("TRACE", ValueHint::FilePath),
    ("PLAN.toml|JOB.fio", ValueHint::FilePath),
    // Directories.
    ("DIR", ValueHint::DirPath),
    // Targets: files, devices, results directories or fio's JSON.
    ("TARGET", ValueHint::AnyPath),
    ("TARGET=NAME", ValueHint::AnyPath),
    ("DEV", ValueHint::AnyPath),
    ("A:B", ValueHint::AnyPath),
    ("DIR|FIO.json", ValueHint::AnyPath),
    ("DIR | TARGET", ValueHint::AnyPath),
    // fio's command line: its options and job files, mixed.
    ("FIO-ARGS", ValueHint::AnyPath),
    ("CMD", ValueHint::CommandString),
];

/// drivelab's command with every flag's completion words and value kind: what `completions`
/// and `man` are made from.
pub fn command() -> Command {
    annotated(Cli::command())
}

/// `root` (drivelab's command, perhaps with settings of its own) built, with every flag's
/// completion words and value kind.
pub fn annotated(mut root: Command) -> Command {
    root.build();
    // clap's possible values are 'static: the command names, made once per `completions` or
    // `man`, are leaked (a few bytes in a process that prints and exits).
    let names: Vec<&'static str> =
        root.get_subcommands().map(|c| &*Box::leak(c.get_name().to_string().into_boxed_str())).collect();
    root.mut_subcommands(|sub| {
        let sub = annotate(sub);
        match sub.get_name() {
            "suite" => sub.mut_arg("name", |a| words(a, drivelab_lab::suites::SUITES.iter().map(|s| s.name))),
            "man" => sub.mut_arg("command", |a| words(a, names.iter().copied())),
            _ => sub,
        }
    })
}

/// Every flag of `cmd` that takes a value, given its words or its kind.
fn annotate(cmd: Command) -> Command {
    cmd.mut_args(|a| {
        if !a.get_num_args().is_some_and(|n| n.takes_values()) || a.get_value_parser().possible_values().is_some() {
            return a;
        }
        if let Some(list) = a.get_long().and_then(words_of) {
            return words(a, list.iter().copied());
        }
        let value_name = a.get_value_names().and_then(|v| v.first()).map(|n| n.as_str().to_string());
        match value_name.and_then(|v| HINTS.iter().find(|(name, _)| *name == v)) {
            Some((_, hint)) => a.value_hint(*hint),
            None => a,
        }
    })
}

/// `arg` completes to `list`, and still takes any text (the engine checks it).
pub(super) fn words(arg: Arg, list: impl Iterator<Item = &'static str>) -> Arg {
    arg.value_parser(AnyOf(list.collect())).hide_possible_values(true)
}

/// A value parser that lists words for completion and accepts any text.
#[derive(Clone)]
struct AnyOf(Vec<&'static str>);

impl TypedValueParser for AnyOf {
    type Value = String;

    fn parse_ref(&self, cmd: &Command, arg: Option<&Arg>, value: &std::ffi::OsStr) -> Result<String, clap::Error> {
        clap::builder::StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.0.iter().copied().map(PossibleValue::new)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every subcommand with every argument that takes a value.
    fn valued_args() -> Vec<(String, Arg)> {
        let root = command();
        let mut all = Vec::new();
        for sub in root.get_subcommands() {
            for a in sub.get_arguments() {
                if a.get_num_args().is_some_and(|n| n.takes_values()) {
                    all.push((sub.get_name().to_string(), a.clone()));
                }
            }
        }
        all
    }

    #[test]
    fn every_flag_taking_a_value_has_words_or_a_kind() {
        let bare: Vec<String> = valued_args()
            .into_iter()
            .filter(|(_, a)| {
                a.get_value_parser().possible_values().is_none() && a.get_value_hint() == ValueHint::Unknown
            })
            .map(|(sub, a)| format!("{sub} {} ({:?})", a.get_id(), a.get_value_names()))
            .collect();
        assert!(
            bare.is_empty(),
            "these complete file names by default: give them words or a value kind here: {bare:?}"
        );
    }

    #[test]
    fn every_word_is_one_the_engine_takes() {
        // A word with parameters, completed with a typical parameter.
        let example = |w: &str| match w {
            "zipf:" => "zipf:1.2".to_string(),
            "pareto:" => "pareto:0.2".to_string(),
            "normal:" => "normal:10".to_string(),
            "zoned:" => "zoned:100/100".to_string(),
            "zoned_abs:" => "zoned_abs:100/1g".to_string(),
            "hotband:" => "hotband:40/60".to_string(),
            "fsync:" => "fsync:1".to_string(),
            "fdatasync:" => "fdatasync:1".to_string(),
            "compress:" => "compress:50".to_string(),
            w => w.to_string(),
        };
        // (An option fio mode reads with no effect has fio's words for its value check only.)
        let engine_option = |o: &&options::Opt| !matches!(o.effect, options::Effect::NoEffect(_));
        for o in options::OPTIONS.iter().filter(|o| !o.words.is_empty()).filter(engine_option) {
            let flag = o.own.or(o.fio_name()).unwrap_or_default();
            for w in o.words {
                let value = example(w);
                let ok = match flag {
                    "rate_scope" | "arrivals" | "pace" => {
                        drivelab_engine::options::from_pairs([("rate", "1000"), (flag, value.as_str())]).is_ok()
                    }
                    "thinktime_blocks_type" => drivelab_engine::options::from_pairs([
                        ("thinktime", "10"),
                        ("thinktime_blocks_type", value.as_str()),
                    ])
                    .is_ok(),
                    // How the stat engines look at a name: with one of them.
                    "stat_type" => {
                        drivelab_engine::options::from_pairs([("engine", "filestat"), ("stat_type", value.as_str())])
                            .is_ok()
                    }
                    // io_uring_cmd's commands: with that engine.
                    "write_mode" => {
                        drivelab_engine::options::from_pairs([("engine", "uring_cmd"), ("write_mode", value.as_str())])
                            .is_ok()
                    }
                    // Needs a trace, named (parsing reads none).
                    "replay_timing" => {
                        drivelab_engine::options::from_pairs([("replay", "TRACE"), ("replay_timing", value.as_str())])
                            .is_ok()
                    }
                    f => drivelab_engine::options::from_pairs([(f, value.as_str())]).is_ok(),
                };
                assert!(ok, "--{flag} completes to {w}, which the engine refuses ({value})");
            }
        }
        assert_eq!(words_of("pick"), Some(&["best", "median"][..]));
    }

    #[test]
    fn words_still_take_any_value_the_engine_then_judges() {
        let cmd = command();
        let run = cmd.find_subcommand("run").unwrap();
        let rw = run.get_arguments().find(|a| a.get_id() == "rw").unwrap();
        let names: Vec<String> =
            rw.get_value_parser().possible_values().unwrap().map(|p| p.get_name().to_string()).collect();
        assert!(names.contains(&"randread".to_string()), "{names:?}");
        let parsed = command().try_get_matches_from(["drivelab", "run", "null", "--rw", "read:4k"]);
        assert!(parsed.is_ok(), "a value outside the words is left to the engine's clearer error");
    }
}
