//! fio's command line (`drivelab fio ARGS…`), split as fio 3.33 splits it (`init.c`,
//! `parse_cmd_line`, through glibc's `getopt_long_only`), into what a job file gives: job options
//! become `ini::Section`s (those before the first `--name` a `[global]`, each `--name` a job), so
//! they go through the one table of options (`options.rs`) like a job file's lines. Nothing here
//! reads an option's value beyond what getopt does.
//!
//! getopt's rules, kept: `-name=x` and `--name=x` are the same; a name may be shortened to a
//! prefix that only one option has (`--runti=1`), and a prefix several share is refused naming
//! them; an option that takes a value takes `=V` or the next argument whatever it is (fio reads
//! `--direct --bs=4k` as direct=`--bs=4k`: refused here naming both, with the fix); fio's
//! set-only options (`--time_based`, `--group_reporting`) take a value only after `=`; a lone
//! letter is fio's short option when no long one matches it (`-o FILE`); every other argument
//! (and everything after `--`) is a job file, in order. Beside fio's own options, drivelab's
//! safety flags (`--destroy DEV`, `--force`, a bare `--overwrite`) and `--results DIR`.

use drivelab_engine::options::{self, Kind};
use drivelab_engine::Error;

use super::ini::{Opt, Section};
use super::notice::Notice;

/// The `line` of the command line's first option: far above any job file's lines, so a refusal
/// of a command-line option applied to a job file's job still names the argument.
pub const FIRST_LINE: usize = 1 << 30;

/// fio's `--eta`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Eta {
    Auto,
    Always,
    Never,
}

/// fio's command line, split.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FioArgs {
    /// The command line's job options: a `[global]` (those before the first `--name`), then a
    /// section per `--name`. Each option's `line` is its index in [`FioArgs::written`] plus
    /// [`FIRST_LINE`].
    pub sections: Vec<Section>,
    /// Each option of `sections` as written (`--bs=4k`, `--bs 4k`): what a refusal names.
    pub written: Vec<String>,
    /// Job files, in order.
    pub files: Vec<String>,
    /// `--output FILE`.
    pub output: Option<String>,
    /// `--output-format=LIST` as given (`--minimal` is `terse`); None: fio's default, normal.
    pub formats: Option<String>,
    /// `--section NAME`, each time it is given.
    pub only: Vec<String>,
    pub readonly: bool,
    /// `--bandwidth-log`: fio's aggregate bandwidth logs (`agg-read_bw.log`, ...) in the
    /// working directory.
    pub bandwidth_log: bool,
    pub eta: Option<Eta>,
    /// `--eta-newline=T`, `--status-interval=T`, `--eta-interval=T` as given.
    pub eta_newline: Option<String>,
    pub status_interval: Option<String>,
    pub eta_interval: Option<String>,
    pub showcmd: bool,
    pub parse_only: bool,
    pub warnings_fatal: bool,
    pub version: bool,
    pub help: bool,
    /// drivelab's: `--destroy DEV` (repeatable), `--force`, `--overwrite`, `--results DIR`.
    pub destroy: Vec<String>,
    pub force: bool,
    pub overwrite: bool,
    pub results: Option<String>,
    /// drivelab's `--label TARGET=NAME` (repeatable): how a target is shown in drivelab's
    /// reports (fio's own output names jobs, not targets, and is unchanged).
    pub labels: Vec<String>,
    /// drivelab's `--cap-time T`, `--cap-size S`: every job shortened, as `drivelab run` does.
    pub cap_time: Option<String>,
    pub cap_size: Option<String>,
    /// What was read differently from how it was written, to say on stderr with
    /// `--drivelab-notices`.
    pub notices: Vec<Notice>,
    /// drivelab's `--drivelab-notices`: its notices (and where the results went) on stderr; fio's
    /// contract otherwise keeps stderr for what fio itself writes there.
    pub drivelab_notices: bool,
    /// fio's `--aux-path`: the directory of verify state files.
    pub aux_path: Option<String>,
}

/// How a fio (or drivelab) option that is not a job option takes its value.
#[derive(Clone, Copy, PartialEq)]
enum Arg {
    None,
    Required,
    Optional,
}

/// fio's own options (`init.c`'s `l_opts`) with their short letters, and drivelab's.
const CONTROL: &[(&str, Option<char>, Arg)] = &[
    ("output", Some('o'), Arg::Required),
    ("latency-log", Some('l'), Arg::Required),
    ("bandwidth-log", Some('b'), Arg::Optional),
    ("minimal", Some('m'), Arg::None),
    ("output-format", Some('F'), Arg::Required),
    ("append-terse", Some('f'), Arg::Optional),
    ("version", Some('v'), Arg::None),
    ("help", Some('h'), Arg::None),
    ("cmdhelp", Some('c'), Arg::Optional),
    ("enghelp", Some('i'), Arg::Optional),
    ("showcmd", Some('s'), Arg::None),
    ("readonly", Some('r'), Arg::None),
    ("eta", Some('e'), Arg::Required),
    ("eta-interval", Some('O'), Arg::Required),
    ("eta-newline", Some('E'), Arg::Required),
    ("debug", Some('d'), Arg::Required),
    ("parse-only", Some('P'), Arg::None),
    ("section", Some('x'), Arg::Required),
    ("inflate-log", Some('X'), Arg::Required),
    ("alloc-size", Some('a'), Arg::Required),
    ("warnings-fatal", Some('w'), Arg::None),
    ("max-jobs", Some('j'), Arg::Required),
    ("terse-version", Some('V'), Arg::Required),
    ("server", Some('S'), Arg::Optional),
    ("server-internal", Some('N'), Arg::Required),
    ("daemonize", Some('D'), Arg::Required),
    ("client", Some('C'), Arg::Required),
    ("remote-config", Some('R'), Arg::Required),
    ("cpuclock-test", Some('T'), Arg::None),
    ("crctest", Some('G'), Arg::Optional),
    ("memcpytest", Some('M'), Arg::Optional),
    ("idle-prof", Some('I'), Arg::Required),
    ("status-interval", Some('L'), Arg::Required),
    ("trigger-file", Some('W'), Arg::Required),
    ("trigger-timeout", Some('B'), Arg::Required),
    ("trigger", Some('H'), Arg::Required),
    ("trigger-remote", Some('J'), Arg::Required),
    ("aux-path", Some('K'), Arg::Required),
    ("merge-blktrace-only", Some('A'), Arg::None),
    // drivelab's own, for what fio does not guard (see docs/guide "fio's command line").
    ("destroy", None, Arg::Required),
    ("force", None, Arg::None),
    ("results", None, Arg::Required),
    ("cap-time", None, Arg::Required),
    ("cap-size", None, Arg::Required),
    ("drivelab-notices", None, Arg::None),
    ("label", None, Arg::Required),
];

/// What a name on the command line is.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Known {
    Job(&'static str),
    Control(&'static str),
}

impl Known {
    fn name(self) -> &'static str {
        match self {
            Known::Job(n) | Known::Control(n) => n,
        }
    }

    fn arg(self) -> Arg {
        match self {
            // A bare --overwrite is drivelab's flag; fio's job option is --overwrite=BOOL.
            Known::Job(n) if set_only(n) || n == "overwrite" => Arg::Optional,
            Known::Job(_) => Arg::Required,
            Known::Control(n) => CONTROL.iter().find(|c| c.0 == n).map_or(Arg::Required, |c| c.2),
        }
    }
}

/// fio's set-only options (`--time_based`): a value only after `=`.
fn set_only(name: &str) -> bool {
    options::by_fio(name).is_some_and(|o| o.kind == Kind::Flag)
}

/// Every name getopt knows: drivelab's control flags, then every job option of the table (fio
/// 3.33's names and aliases, whether drivelab supports them or not: an option it refuses is
/// refused by name, a word fio does not know as unknown).
fn all_names() -> impl Iterator<Item = Known> {
    static JOB: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    let job = JOB.get_or_init(options::fio_names);
    CONTROL.iter().map(|c| Known::Control(c.0)).chain(job.iter().map(|n| Known::Job(n)))
}

/// `name` as getopt matches it: exactly, else as the prefix of exactly one option.
fn lookup(name: &str) -> Result<Option<Known>, Vec<&'static str>> {
    if let Some(k) = all_names().find(|k| k.name() == name) {
        return Ok(Some(k));
    }
    let matches: Vec<Known> = all_names().filter(|k| k.name().starts_with(name)).collect();
    match matches.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some(*one)),
        many => Err(many.iter().map(|k| k.name()).collect()),
    }
}

/// A time argument of fio's command line (`--status-interval=2s`) as fio reads it: a bare number
/// is seconds.
pub fn fio_time_ns(text: &str) -> Result<u64, drivelab_engine::units::ValueError> {
    super::value::time_ns(text, super::value::BareTime::Seconds)
}

fn bad(arg: &str, why: impl std::fmt::Display) -> Error {
    Error::invalid(format!("{arg}: {why}"))
}

/// Split fio's argv (without the program name).
pub fn split(args: &[String]) -> Result<FioArgs, Error> {
    let mut out = FioArgs::default();
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        i += 1;
        if arg == "--" {
            out.files.extend(args[i..].iter().cloned());
            break;
        }
        let Some(body) = arg.strip_prefix('-').filter(|b| !b.is_empty()) else {
            out.files.push(arg.to_string());
            continue;
        };
        let single = !body.starts_with('-');
        let body = body.strip_prefix('-').unwrap_or(body);
        let (name, inline) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        let (known, inline) = match lookup(name) {
            Ok(Some(k)) => (k, inline),
            found => match short(single, body) {
                Some((k, attached)) => (k, attached.or(inline)),
                None => return Err(unknown(arg, found.err())),
            },
        };
        let value = match (known.arg(), inline) {
            (Arg::None, Some(_)) => return Err(bad(arg, format!("--{} takes no value", known.name()))),
            (Arg::None, None) | (Arg::Optional, None) => None,
            (_, Some(v)) => Some(v),
            (Arg::Required, None) => {
                let Some(next) = args.get(i) else {
                    return Err(bad(arg, format!("needs a value: --{}=VALUE", known.name())));
                };
                if next.len() > 1 && next.starts_with('-') && option_like(next) {
                    return Err(bad(
                        arg,
                        format!(
                            "needs a value, and fio would take the next argument ({next}) as it: write --{}=VALUE",
                            known.name()
                        ),
                    ));
                }
                i += 1;
                Some(next.clone())
            }
        };
        let shown = match (&value, arg.contains('=')) {
            (Some(v), false) => format!("{arg} {v}"),
            _ => arg.to_string(),
        };
        match known {
            Known::Job("overwrite") if value.is_none() => out.overwrite = true,
            Known::Job(key) => job_option(&mut out, key, value, shown)?,
            Known::Control(key) => control(&mut out, key, value, &shown)?,
        }
    }
    Ok(out)
}

/// Whether `text` is an option of the command line (so not a value someone meant to give).
fn option_like(text: &str) -> bool {
    let body = text.trim_start_matches('-');
    let name = body.split_once('=').map_or(body, |(n, _)| n);
    matches!(lookup(name), Ok(Some(_)) | Err(_))
}

/// `-X` (or `-XVALUE`) as fio's short option X, when no long option matched.
fn short(single: bool, body: &str) -> Option<(Known, Option<String>)> {
    let mut chars = body.chars();
    let letter = chars.next()?;
    let rest: String = chars.collect();
    if !single {
        return None;
    }
    let (name, _, arg) = CONTROL.iter().find(|c| c.1 == Some(letter))?;
    match (arg, rest.is_empty()) {
        (_, true) => Some((Known::Control(name), None)),
        (Arg::None, false) => None,
        (_, false) => Some((Known::Control(name), Some(rest))),
    }
}

fn unknown(arg: &str, ambiguous: Option<Vec<&'static str>>) -> Error {
    match ambiguous {
        Some(names) => {
            let listed: Vec<String> = names.iter().take(8).map(|n| format!("--{n}")).collect();
            bad(arg, format!("ambiguous: it is the start of {} (give the whole name)", listed.join(", ")))
        }
        None => bad(
            arg,
            "fio has no such option (nor has drivelab); see `fio --cmdhelp=all` or docs/guide/fio.md \"fio's \
             command line: drivelab fio\"",
        ),
    }
}

fn job_option(out: &mut FioArgs, key: &'static str, value: Option<String>, shown: String) -> Result<(), Error> {
    out.written.push(shown);
    let line = out.written.len() - 1 + FIRST_LINE;
    if key == "name" {
        let name = value.filter(|v| !v.is_empty()).ok_or_else(|| {
            bad(&out.written[line - FIRST_LINE], "--name needs the job's name: --name=NAME starts a job")
        })?;
        out.sections.push(Section { name, line, options: Vec::new(), unset: None });
        return Ok(());
    }
    if value.as_deref() == Some("") && !set_only(key) {
        return Err(bad(&out.written[line - FIRST_LINE], format!("needs a value: --{key}=VALUE")));
    }
    if out.sections.is_empty() {
        out.sections.push(Section { name: "global".into(), line, options: Vec::new(), unset: None });
    }
    let section = out.sections.last_mut().expect("a section");
    section.options.push(Opt { key: key.to_string(), value, line });
    Ok(())
}

fn control(out: &mut FioArgs, key: &str, value: Option<String>, shown: &str) -> Result<(), Error> {
    let v = || value.clone().unwrap_or_default();
    match key {
        "output" => out.output = Some(v()).filter(|o| !o.is_empty()),
        "output-format" => out.formats = Some(v()),
        "minimal" => out.formats = Some("terse".into()),
        "terse-version" if v() == "3" => {}
        "terse-version" => {
            return Err(bad(shown, "drivelab writes fio's terse version 3 only; give 3 or leave it out"))
        }
        "version" => out.version = true,
        "help" => out.help = true,
        "showcmd" => out.showcmd = true,
        "readonly" => out.readonly = true,
        "bandwidth-log" => out.bandwidth_log = true,
        "eta" => {
            out.eta = Some(match v().as_str() {
                "always" => Eta::Always,
                "never" => Eta::Never,
                "auto" => Eta::Auto,
                other => {
                    // fio takes any other word as auto, silently; a script that runs on fio runs here.
                    Notice::EtaWord { shown: shown.to_string(), word: other.to_string() }.push_to(&mut out.notices);
                    Eta::Auto
                }
            })
        }
        "eta-newline" => out.eta_newline = Some(v()),
        "eta-interval" => out.eta_interval = Some(v()),
        "status-interval" => out.status_interval = Some(v()),
        "parse-only" => out.parse_only = true,
        "section" if v() == "global" => {
            return Err(bad(shown, "global cannot be the only section (fio refuses it too)"))
        }
        "section" => out.only.push(v()),
        "warnings-fatal" => out.warnings_fatal = true,
        "max-jobs" | "alloc-size" => {} // fio's limits of its own shared memory: nothing to set here.
        "destroy" => out.destroy.push(v()),
        "force" => out.force = true,
        "results" => out.results = Some(v()),
        "cap-time" => out.cap_time = Some(v()),
        "cap-size" => out.cap_size = Some(v()),
        "drivelab-notices" => out.drivelab_notices = true,
        "label" => out.labels.push(v()),
        "aux-path" => out.aux_path = Some(v()),
        "debug" => {
            return Err(bad(
                shown,
                "fio's debug tracing is not in drivelab; drop --debug (drivelab's refusals and notices say what \
                 each option became, and `drivelab fio --parse-only` lists every job's fields)",
            ))
        }
        "client" | "server" | "server-internal" | "daemonize" | "remote-config" | "trigger-remote" => {
            return Err(bad(
                shown,
                "drivelab has no fio client/server; to run a job on many hosts at once, start `drivelab fio` under \
                 mpirun (docs/guide/mpi.md \"Many hosts: MPI\")",
            ))
        }
        "latency-log" => {
            return Err(bad(
                shown,
                "fio's aggregate logs are not written; every drivelab result keeps a per-second series (drop it)",
            ))
        }
        _ => {
            return Err(bad(
                shown,
                "this fio command-line option is not supported by drivelab; drop it (or run fio for it)",
            ))
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
