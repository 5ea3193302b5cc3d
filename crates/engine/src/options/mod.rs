//! THE vocabulary of options: one table ([`OPTIONS`], `table.rs`) that every front end reads —
//! `drivelab run`'s flags, plan keys, fio job files, `drivelab fio`'s command line, the `job
//! options` of fio's JSON, completions, the man page and docs/guide/fio-options.md.
//!
//! Why one table: fio compatibility had grown three translations of fio's options that
//! disagreed (`--ioengine=pvsync` ran under `drivelab fio` and was refused by `drivelab run`,
//! `runtime=1d` was taken in a job file and refused as `--runtime`). fio itself keeps one table
//! (`options.c`'s `fio_options[]`: name, alias, type, default, help) parsed generically; so does
//! drivelab. Each row says fio's names, drivelab's own spelling where it has one (`qd` for
//! `iodepth`), the kind of value with its unit rules ([`Kind`]: one size parser, one time parser,
//! fio's suffixes), fio's default, and what it does here ([`Effect`]): set a field of the access
//! spec (the same setter whichever front end read it, [`set`]), shape a fio job (files, groups,
//! fio's time and size rules: the job-file front end in `lab::fiojob`), nothing (and why), or
//! refused (and why).
//!
//! Two namespaces share the table: drivelab's own spellings (plan keys, and as `--flags` with
//! dashes) and fio's names (job files, fio's command line). drivelab's front ends take both for
//! the options that set the spec; fio's take fio's names only. A name is found by
//! [`by_own`]/[`by_fio`] and never matched as text anywhere else.

mod describe;
mod field;
mod fio_mix;
mod set;
mod table;
#[cfg(test)]
mod tests;

pub use describe::describe;
pub use field::{is_key, Field, KEYS};
pub use fio_mix::{check_fio_mix, check_fio_shares, notices, split_filename};
pub use set::{
    apply, from_pairs, known_keys, parse_cpus, parse_data, parse_engine, parse_new_file_size, parse_rate, parse_sync,
    partial_from_pairs, set,
};
pub use table::{NOT_SUPPORTED, OPTIONS};

use crate::units::{self, Dialect};

/// One option: its names, its value and what it does.
#[derive(Clone, Copy, Debug)]
pub struct Opt {
    /// fio's name, then its aliases (`["rw", "readwrite"]`); empty for drivelab's own options.
    pub fio: &'static [&'static str],
    /// drivelab's own spelling: the plan key, and with dashes the flag of `drivelab run`. None:
    /// only fio's names.
    pub own: Option<&'static str>,
    pub kind: Kind,
    /// fio's default, as fio's documentation writes it (None: no default, or not fio's).
    pub fio_default: Option<&'static str>,
    pub effect: Effect,
    /// What it does under drivelab's own spelling (`run`'s help, completions, man).
    pub help: &'static str,
    /// What a fio job using it gets here, where it runs (the options guide's words).
    pub fio_note: &'static str,
    /// The words its value completes to (a word ending in `:` starts one with parameters).
    pub words: &'static [&'static str],
    /// How `drivelab run` shows its flag in `--help` (None: the flag works, unlisted).
    pub run: Option<Run>,
}

/// How `drivelab run` lists an option's flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    pub heading: Heading,
    /// The value's name in the help (`N`, `SIZE`; empty: a flag given bare).
    pub value: &'static str,
    /// Its place in the help (drivelab's flags first, in the order people read them).
    pub order: u16,
    /// fio's spelling of it is listed too, under fio's heading (`--iodepth`).
    pub fio_shown: bool,
}

/// The part of `drivelab run --help` a flag is listed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Heading {
    Access,
    Rate,
    Engine,
    Verify,
    Fio,
}

impl Heading {
    pub fn title(self) -> &'static str {
        match self {
            Heading::Access => "Access specification",
            Heading::Rate => "Fixed rate (open loop)",
            Heading::Engine => "Engine",
            Heading::Verify => "Verification",
            Heading::Fio => "fio's spellings (the same as drivelab's own flags)",
        }
    }
}

/// What an option's value is, with its unit rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `1`/`0` (`true`/`false`, `yes`/`no`, `on`/`off`); in fio's forms a bare name is `1`.
    Bool,
    /// fio's FIO_OPT_STR_SET: a bare name sets it; on fio's command line a value only after `=`
    /// (`--time_based`, `--time_based=0`). Read as [`Kind::Bool`].
    Flag,
    /// A whole number.
    Int,
    /// A whole number within fio's `minval..=maxval` for the option.
    Range(u64, u64),
    /// Bytes: `4k`, `1MiB`, `8g` (fio's suffixes; `kb_base` in fio's forms).
    Size,
    /// A duration: `500ms`, `10s`, `1d`; a bare number counts [`Bare`].
    Time(Bare),
    /// A whole percentage, 0..100.
    Pct,
    /// Text the option's own parser reads (lists, distributions, patterns, words).
    Text,
}

/// An option's own setter ([`Effect::Set`]).
pub type Setter = fn(&mut crate::spec::AccessSpec, &str, Dialect) -> Result<(), String>;

/// What a bare number of a time option counts, as fio has it per option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bare {
    Seconds,
    Micros,
    /// drivelab's own durations: a bare number is refused (seconds or milliseconds?).
    Unit,
}

/// What an option does in drivelab.
#[derive(Clone, Copy, Debug)]
pub enum Effect {
    /// Sets this field of the access spec ([`set`]), whichever front end read it.
    Spec(Field),
    /// Sets the spec through its own setter, written beside its row (an option added with a field
    /// of its own needs nothing else here): the value's text, read by `Dialect`'s rules; the
    /// error says what is wrong with the value (the front end names the option).
    Set(Setter),
    /// Shapes a fio job (its files, groups, logs, fio's own time and size rules): read by the
    /// job-file front end (`lab::fiojob`), in job files and on fio's command line.
    Job,
    /// Read by the job-file front end, its value checked as fio checks it, and changes nothing
    /// here: why.
    Checked(&'static str),
    /// Read, and changes nothing here: why.
    NoEffect(&'static str),
    /// Refused: why, and what to do.
    Refused(&'static str),
}

impl Opt {
    /// fio's name, if fio has the option.
    pub fn fio_name(&self) -> Option<&'static str> {
        self.fio.first().copied()
    }

    /// The name the table knows it by: fio's, else drivelab's.
    pub fn name(&self) -> &'static str {
        self.fio_name().or(self.own).unwrap_or("")
    }

    /// Is `name` one of fio's names of it?
    pub fn is_fio(&self, name: &str) -> bool {
        self.fio.contains(&name)
    }

    /// The spec field it sets, if it sets one.
    pub fn field(&self) -> Option<Field> {
        match self.effect {
            Effect::Spec(f) => Some(f),
            _ => None,
        }
    }

    /// Is it taken by drivelab's own front ends (`run` flags, plan keys)?
    pub fn in_own(&self) -> bool {
        matches!(self.effect, Effect::Spec(_) | Effect::Set(_))
    }

    /// `text` as this option's kind reads it in `dialect`: the typed scalar, or the text itself
    /// for [`Kind::Text`]. Errors say what is wrong with the value (the caller names the option).
    pub fn parse(&self, text: &str, dialect: Dialect) -> Result<Value, units::ValueError> {
        parse_value(self.kind, text, dialect)
    }
}

/// An option's value, typed by its [`Kind`].
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Bool(bool),
    Int(u64),
    Bytes(u64),
    Ns(u64),
    Pct(u8),
    Text(String),
}

impl Value {
    /// The whole number of an `Int`, `Range`, `Size` or `Time` value.
    pub fn uint(&self) -> Option<u64> {
        match *self {
            Value::Int(v) | Value::Bytes(v) | Value::Ns(v) => Some(v),
            Value::Pct(p) => Some(p as u64),
            _ => None,
        }
    }
}

/// `text` as `kind` reads it in `dialect`.
pub fn parse_value(kind: Kind, text: &str, dialect: Dialect) -> Result<Value, units::ValueError> {
    let t = text.trim();
    match kind {
        Kind::Bool | Kind::Flag => units::parse_bool(t).map(Value::Bool),
        Kind::Int => units::parse_whole(t).map(Value::Int),
        Kind::Range(lo, hi) => {
            let v = units::parse_whole(t)?;
            if v < lo || v > hi {
                return Err(units::ValueError::OutOfRange { text: t.to_string(), lo, hi });
            }
            Ok(Value::Int(v))
        }
        Kind::Size => units::parse_size_in(t, dialect).map(Value::Bytes),
        Kind::Time(bare) => units::parse_time(t, bare, dialect).map(Value::Ns),
        Kind::Pct => units::parse_pct(t, "").map(Value::Pct),
        Kind::Text => Ok(Value::Text(t.to_string())),
    }
}

/// The option whose fio name (or alias) is `name`.
pub fn by_fio(name: &str) -> Option<&'static Opt> {
    OPTIONS.iter().find(|o| o.is_fio(name))
}

/// The option whose drivelab spelling is `name`.
pub fn by_own(name: &str) -> Option<&'static Opt> {
    OPTIONS.iter().find(|o| o.own == Some(name))
}

/// The option a drivelab front end (plan key, `run` flag without its dashes) means by `name`:
/// drivelab's spelling first, then fio's name of an option that sets the spec.
pub fn by_key(name: &str) -> Option<&'static Opt> {
    by_own(name).or_else(|| by_fio(name).filter(|o| o.in_own()))
}

/// The option that sets `field` under drivelab's own spelling (`Field::Qd` → the `qd` row).
pub fn of_field(field: Field) -> Option<&'static Opt> {
    OPTIONS.iter().find(|o| o.own.is_some() && o.field() == Some(field))
}

/// fio's name of the option that sets `field`, where fio has one (`Field::Qd` → `iodepth`,
/// `Field::Span` → `size`): how an error about the field names it to a job file's reader.
pub fn fio_name_of(field: Field) -> Option<&'static str> {
    let other = match field {
        // fio's size is the region a job uses (and a new file's size): drivelab's span.
        Field::Span | Field::Size => Some("size"),
        Field::Random => Some("percentage_random"),
        Field::Read => Some("rwmixread"),
        _ => None,
    };
    of_field(field).and_then(Opt::fio_name).or(other)
}

/// Every name a drivelab front end takes (drivelab's spellings, then fio's of options that set
/// the spec), in table order.
pub fn own_keys() -> impl Iterator<Item = &'static str> {
    OPTIONS
        .iter()
        .filter_map(|o| o.own)
        .chain(OPTIONS.iter().filter(|o| o.in_own()).flat_map(|o| o.fio.iter().copied()))
}

/// Every fio name and alias the table knows (fio 3.33's job options and its io_uring and libaio
/// engines' own), sorted: what `drivelab fio` takes as `--NAME`.
pub fn fio_names() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = OPTIONS.iter().flat_map(|o| o.fio.iter().copied()).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// docs/guide/fio-options.md's table: a row per fio option of the table (names, what a job file
/// using it gets: supported (onto the drivelab field its words name), no effect, refused;
/// and the words), in the table's order. The guide is this table printed (a test holds them
/// together).
pub fn guide_table() -> String {
    let mut out = String::from("| option (aliases) | status | drivelab |\n| --- | --- | --- |\n");
    for o in OPTIONS.iter().filter(|o| !o.fio.is_empty()) {
        let names: Vec<String> = o.fio.iter().map(|n| format!("`{n}`")).collect();
        let (status, words) = match o.effect {
            Effect::Spec(_) | Effect::Set(_) | Effect::Job => ("supported", o.fio_note),
            Effect::Checked(why) | Effect::NoEffect(why) => ("no effect", why),
            Effect::Refused(why) => ("refused", why),
        };
        out.push_str(&format!("| {} | {status} | {words} |\n", names.join(", ")));
    }
    out
}
