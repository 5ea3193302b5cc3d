//! `drivelab run`'s access-spec flags, made from the option table (`drivelab_engine::options`):
//! a flag for every option that sets the spec, under drivelab's spelling (`--qd`, `--io-size`)
//! and fio's (`--iodepth`, `--io_limit`), each taking its value as text for the table's one
//! parser. What a flag means, its help, the words it completes to and where `--help` lists it
//! are the table's; nothing here names an option.
//!
//! The flags given are kept in command-line order ([`SpecFlags::given`]), so a later one wins
//! as in a plan's keys (`--direct --buffered`: buffered), and the same option given under two
//! names (`--qd 8 --iodepth 4`) is refused, as a plan refuses two keys for one field.

use clap::builder::ArgAction;
use clap::error::ErrorKind;
use clap::{Arg, ArgMatches, Args, Command, FromArgMatches};
use drivelab_engine::options::{Heading, Kind, Opt, OPTIONS};

/// One flag given: the option's name as written (without dashes, fio's underscores kept:
/// `iodepth`, `io_size`) and its value.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Given {
    pub key: &'static str,
    pub value: String,
}

/// The access-spec flags given, in command-line order.
#[derive(Clone, Debug, Default)]
pub struct SpecFlags {
    pub given: Vec<Given>,
}

/// drivelab's flag of an option: `--io-size` for `io_size`.
fn own_long(own: &'static str) -> &'static str {
    if own.contains('_') {
        Box::leak(own.replace('_', "-").into_boxed_str())
    } else {
        own
    }
}

/// The value's name in the help, from the table's presentation or its kind.
fn value_name(opt: &Opt) -> &'static str {
    match (opt.run.map(|r| r.value).filter(|v| !v.is_empty()), opt.kind) {
        (Some(v), _) => v,
        (None, Kind::Size) => "SIZE",
        (None, Kind::Time(_)) => "DUR",
        (None, Kind::Int | Kind::Range(..)) => "N",
        (None, Kind::Pct) => "PCT",
        (None, _) => "VALUE",
    }
}

/// The flag of `opt` under `name` (its id), shown or not.
fn arg(opt: &'static Opt, id: &'static str, long: &'static str, help: String, shown: Option<Heading>) -> Arg {
    let mut a = Arg::new(id).long(long).action(ArgAction::Set).help(help);
    if let Some(r) = opt.run {
        // fio's spellings after drivelab's own.
        a = a.display_order(usize::from(r.order) + if shown == Some(Heading::Fio) { 200 } else { 0 });
    }
    a = match opt.kind {
        // A yes or no: bare is yes (`--buffered`), or `--direct=0`.
        // Its words are 1 and 0, so fio's `--direct 0` takes the 0 (`negative.rs`).
        Kind::Bool | Kind::Flag => super::complete::words(
            a.num_args(0..=1).require_equals(true).default_missing_value("1").value_name("1|0"),
            ["1", "0"].into_iter(),
        ),
        _ => a.num_args(1).value_name(value_name(opt)).allow_hyphen_values(true),
    };
    if !opt.words.is_empty() {
        a = super::complete::words(a, opt.words.iter().copied());
    }
    match shown {
        Some(h) => a.help_heading(h.title()),
        None => a.hide(true),
    }
}

/// Every access-spec flag with its id (the table's name), in the table's order: drivelab's
/// spelling, then fio's other names. Made once.
fn flags() -> &'static [(&'static str, Arg)] {
    static FLAGS: std::sync::OnceLock<Vec<(&'static str, Arg)>> = std::sync::OnceLock::new();
    FLAGS.get_or_init(make_flags)
}

fn make_flags() -> Vec<(&'static str, Arg)> {
    let mut out = Vec::new();
    for opt in OPTIONS.iter().filter(|o| o.in_own()) {
        let shown = opt.run.map(|r| r.heading);
        let fio_shown = opt.run.is_some_and(|r| r.fio_shown);
        match opt.own {
            Some(own) => {
                // fio's name spelt as drivelab's but for its underscores: the same flag.
                let same: Vec<&'static str> =
                    opt.fio.iter().copied().filter(|n| *n != own && n.replace('_', "-") == own_long(own)).collect();
                let mut a = arg(opt, own, own_long(own), opt.help.to_string(), shown);
                if own.contains('_') {
                    a = a.alias(own);
                }
                out.push((own, if same.is_empty() { a } else { a.aliases(same) }));
                let mut first = true;
                for &name in opt.fio.iter().filter(|n| **n != own && n.replace('_', "-") != own_long(own)) {
                    let bare = match opt.kind {
                        Kind::Time(drivelab_engine::options::Bare::Seconds) => " (a bare number is seconds, as in fio)",
                        Kind::Time(drivelab_engine::options::Bare::Micros) => {
                            " (a bare number is microseconds, as in fio)"
                        }
                        _ => "",
                    };
                    let help = format!("fio's --{name}: --{}{bare}, read by fio's rules", own_long(own));
                    let heading = (first && fio_shown).then_some(Heading::Fio);
                    out.push((name, arg(opt, name, name, help, heading)));
                    first = false;
                }
            }
            // fio's spelling of a field drivelab spells otherwise (`--rwmixread` for `--read`).
            None => {
                for (i, &name) in opt.fio.iter().enumerate() {
                    let heading = (i == 0 && fio_shown).then_some(Heading::Fio);
                    out.push((name, arg(opt, name, name, opt.help.to_string(), heading)));
                }
            }
        }
    }
    out
}

impl Args for SpecFlags {
    fn augment_args(cmd: Command) -> Command {
        cmd.args(flags().iter().map(|(_, a)| a.clone()))
    }
    fn augment_args_for_update(cmd: Command) -> Command {
        SpecFlags::augment_args(cmd)
    }
}

impl FromArgMatches for SpecFlags {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut at: Vec<(usize, Given)> = Vec::new();
        for &(id, _) in flags() {
            let (Some(values), Some(indices)) = (m.get_many::<String>(id), m.indices_of(id)) else { continue };
            if m.value_source(id) != Some(clap::parser::ValueSource::CommandLine) {
                continue;
            }
            for (v, i) in values.zip(indices) {
                at.push((i, Given { key: id, value: v.clone() }));
            }
        }
        at.sort_by_key(|(i, _)| *i);
        let given: Vec<Given> = at.into_iter().map(|(_, g)| g).collect();
        // One option under two names: which was meant?
        for (i, a) in given.iter().enumerate() {
            let row = |k: &str| drivelab_engine::options::by_key(k).map(|o| o as *const Opt);
            if let Some(b) = given[..i].iter().find(|b| b.key != a.key && row(b.key) == row(a.key)) {
                return Err(clap::Error::raw(
                    ErrorKind::ArgumentConflict,
                    format!("--{} and --{} are the same option; give one of them\n", b.key, a.key),
                ));
            }
        }
        Ok(SpecFlags { given })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = SpecFlags::from_arg_matches(m)?;
        Ok(())
    }
}

impl SpecFlags {
    /// The flags as the names and values plan files take, in the order given.
    pub fn pairs(&self) -> Vec<(String, String)> {
        self.given.iter().map(|g| (g.key.to_string(), g.value.clone())).collect()
    }

    /// The flags given, as written (`--qd`, `--iodepth`).
    pub fn written(&self) -> Vec<String> {
        self.given
            .iter()
            .map(|g| match drivelab_engine::options::by_own(g.key) {
                Some(_) => format!("--{}", own_long(g.key)),
                None => format!("--{}", g.key),
            })
            .collect()
    }
}
