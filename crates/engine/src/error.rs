//! The engine's errors, split the way the CLI must treat them: the user's input was wrong or
//! refused (exit code 2, nothing was written: [`Error::is_invalid`]) or the system failed us
//! (`Io`, exit code 1).
//!
//! Errors about an access-spec field carry the [`Field`], so they name it the way the reader
//! wrote it: `Display` uses the plan-file key (`qd 0: ...`), [`Error::cli_message`] the CLI flag
//! (`--qd 0: ...`), and an error marked [`Error::written_as`] a [`Spelling`] names it as that
//! source did (a fio job file's `size=`, a plan's `span`), whichever way it is printed. Nothing
//! needs to look inside a message to know what went wrong.

use std::io;

pub use crate::options::Field;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad input or a refusal: the message names the value and the fix.
    #[error("{0}")]
    Invalid(String),
    /// An access-spec field (or the size of a new file) has a value that cannot run. `value`
    /// and `fix` may name other fields as `{key}` (e.g. `{jobs}`), rendered like `field`.
    #[error("{}", render_spec(*field, value, fix, false))]
    Spec { field: Field, value: String, fix: String },
    /// The filesystem holding `path` refuses O_DIRECT: the run can only go buffered.
    #[error("{}", render_direct(path, false))]
    DirectIoRefused { path: String },
    /// The system failed an operation we had every right to expect to work.
    #[error("{context}: {source}")]
    Io { context: String, source: io::Error },
    /// Block devices to be written that the user did not name with `--destroy` (all of them,
    /// so one message gives the whole fix).
    /// `notes` say what each `--destroy` given named instead (a typo, another device).
    #[error("{}", render_needs_destroy(devices, notes))]
    NeedsDestroy { devices: Vec<String>, notes: Vec<String> },
    /// Ctrl-C (or SIGTERM) stopped what was being done (exit code 130; finished results kept).
    #[error("{0}")]
    Interrupted(String),
    /// `inner` happened while doing `what` ("point 3 (random read)"); its kind is kept.
    #[error("{what}: {inner}")]
    Within { what: String, inner: Box<Error> },
    /// A target refused, by kind.
    #[error(transparent)]
    Target(#[from] crate::target::TargetError),
    /// An input file (a trace, a plan, a job file, JSON) refused, by kind.
    #[error(transparent)]
    Input(#[from] crate::input::InputError),
    /// A refusal typed by the layer that made it (a lab module's enum): exit code 2, its words
    /// its own; a caller that knows the type downcasts it ([`Error::refusal`]).
    #[error(transparent)]
    Refused(Box<dyn std::error::Error + Send + Sync + 'static>),
    /// `inner`'s fields came from a source that spells them its own way: named so.
    #[error("{}", inner.message(*spelling))]
    Written { spelling: Spelling, inner: Box<Error> },
}

/// How the reader gave the fields an error names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spelling {
    /// Command-line flags: `--span`, `--iodepth`.
    Flags,
    /// A plan file's keys: `span`, or fio's spelling where the plan used it (`iodepth`).
    PlanKeys,
    /// A fio job file's options: `size=` (fio's size is drivelab's span), `offset=`, `bs=`.
    FioJob,
}

impl Spelling {
    /// `field` as this source spells it.
    fn name(self, field: Field) -> String {
        match self {
            Spelling::Flags => field.flag(),
            Spelling::PlanKeys => field.name().to_string(),
            Spelling::FioJob => fio_option(field).unwrap_or(field.name()).to_string(),
        }
    }
}

/// The fio job option that sets `field`, where the fio job reader takes one (fiojob/options.rs):
/// the names a job file's reader wrote. Fields with no single option keep drivelab's name.
fn fio_option(field: Field) -> Option<&'static str> {
    match field {
        Field::As(name) => Some(name),
        field => crate::options::fio_name_of(field),
    }
}

fn render_spec(field: Field, value: &str, fix: &str, cli: bool) -> String {
    render_spec_as(field, value, fix, if cli { Spelling::Flags } else { Spelling::PlanKeys })
}

fn render_spec_as(field: Field, value: &str, fix: &str, spelling: Spelling) -> String {
    let name = spelling.name(field);
    let fix = Field::render_refs_by(fix, |f| spelling.name(f));
    let value = Field::render_refs_by(value, |f| spelling.name(f));
    match (value.is_empty(), spelling) {
        (true, _) => format!("{name} {fix}"),
        // As the job file has it: `size=10737418240`.
        (false, Spelling::FioJob) => format!("{name}={value}: {fix}"),
        (false, _) => format!("{name} {value}: {fix}"),
    }
}

fn render_needs_destroy(devices: &[String], notes: &[String]) -> String {
    let names = match devices {
        [one] => format!("{one} is a block device"),
        [init @ .., last] => format!("{} and {last} are block devices", init.join(", ")),
        [] => "no device".to_string(),
    };
    let flags: Vec<String> = devices.iter().map(|d| format!("--destroy {d}")).collect();
    let its = if devices.len() == 1 { "its" } else { "their" };
    let mut msg = format!("{names}: writing destroys {its} data; to allow that, add {}", flags.join(" "));
    if !notes.is_empty() {
        msg += &format!(" ({})", notes.join("; "));
    }
    msg
}

fn render_direct(path: &str, cli: bool) -> String {
    render_direct_as(path, if cli { Spelling::Flags } else { Spelling::PlanKeys })
}

fn render_direct_as(path: &str, spelling: Spelling) -> String {
    let fix = Field::render_refs_by("use {buffered} (results will go through the page cache)", |f| spelling.name(f));
    format!("{path}: the filesystem refuses O_DIRECT; {fix}")
}

impl Error {
    pub fn invalid(msg: impl Into<String>) -> Error {
        Error::Invalid(msg.into())
    }
    /// A refusal typed by the layer that made it (see [`Error::Refused`]).
    pub fn refused(e: impl std::error::Error + Send + Sync + 'static) -> Error {
        Error::Refused(Box::new(e))
    }
    /// The typed refusal under any context, when it is a `T` (see [`Error::Refused`]).
    pub fn refusal<T: std::error::Error + 'static>(&self) -> Option<&T> {
        match self.root() {
            Error::Refused(e) => e.downcast_ref::<T>(),
            _ => None,
        }
    }
    pub fn io(context: impl Into<String>, source: io::Error) -> Error {
        Error::Io { context: context.into(), source }
    }
    /// A refused field value: `fix` says what to give instead (see [`Error::Spec`]).
    pub fn spec(field: Field, value: impl Into<String>, fix: impl Into<String>) -> Error {
        Error::Spec { field, value: value.into(), fix: fix.into() }
    }
    /// True when the user can fix it by changing the command (exit code 2).
    pub fn is_invalid(&self) -> bool {
        match self {
            Error::Io { .. } | Error::Interrupted(_) => false,
            Error::Within { inner, .. } | Error::Written { inner, .. } => inner.is_invalid(),
            _ => true,
        }
    }

    /// The same refusal with `other`'s devices too, when both are [`Error::NeedsDestroy`]
    /// (under any context): every device that needs naming, in one message.
    pub fn merge_needs_destroy(self, other: Error) -> Result<Error, (Error, Error)> {
        match (self.root(), other.root()) {
            (Error::NeedsDestroy { devices: a, notes }, Error::NeedsDestroy { devices: b, .. }) => {
                let mut devices = a.clone();
                devices.extend(b.iter().filter(|d| !a.contains(d)).cloned());
                Ok(Error::NeedsDestroy { devices, notes: notes.clone() })
            }
            _ => Err((self, other)),
        }
    }

    /// True when Ctrl-C or SIGTERM stopped the work (exit code 130).
    pub fn is_interrupted(&self) -> bool {
        matches!(self.root(), Error::Interrupted(_))
    }

    /// The error itself, under any [`Error::Within`] context.
    pub fn root(&self) -> &Error {
        match self {
            Error::Within { inner, .. } | Error::Written { inner, .. } => inner.root(),
            other => other,
        }
    }
    /// The message for the command line: fields named by their flags (`--qd 0: ...`,
    /// `use --buffered`). `Display` names them as plan files do (`qd 0: ...`).
    pub fn cli_message(&self) -> String {
        self.message(Spelling::Flags)
    }

    /// The message with fields named as `spelling` spells them (an inner [`Error::Written`]
    /// keeps its own).
    pub fn message(&self, spelling: Spelling) -> String {
        match self {
            Error::Spec { field, value, fix } => render_spec_as(*field, value, fix, spelling),
            Error::DirectIoRefused { path } => render_direct_as(path, spelling),
            Error::Within { what, inner } => format!("{what}: {}", inner.message(spelling)),
            Error::Written { spelling, inner } => inner.message(*spelling),
            other => other.to_string(),
        }
    }

    /// The same error, its fields to be named as `spelling` spells them (the source the
    /// reader wrote them in: a plan file, a fio job file), however it is printed. The kind, and
    /// so the exit code, is kept.
    pub fn written_as(self, spelling: Spelling) -> Error {
        match self {
            already @ Error::Written { .. } => already,
            other => Error::Written { spelling, inner: Box::new(other) },
        }
    }
}

impl Error {
    /// The same error, said to happen while doing `what` ("point 3 (random read)"): the kind,
    /// and so the exit code, is kept, and a typed error stays typed.
    pub fn context(self, what: impl std::fmt::Display) -> Error {
        Error::Within { what: what.to_string(), inner: Box::new(self) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_errors_name_the_field_as_a_plan_key_or_as_a_flag() {
        let e = Error::spec(Field::IoSize, "0", "give a size such as 1g, or set {time}");
        assert_eq!(e.to_string(), "io_size 0: give a size such as 1g, or set time");
        assert_eq!(e.cli_message(), "--io-size 0: give a size such as 1g, or set --time");
        assert!(e.is_invalid());
        let e = Error::DirectIoRefused { path: "/mnt/f".into() };
        assert!(e.to_string().contains("refuses O_DIRECT; use buffered"), "{e}");
        assert!(e.cli_message().contains("use --buffered"), "{}", e.cli_message());
        assert!(e.is_invalid());
        assert!(!Error::io("x", io::Error::other("y")).is_invalid());
    }

    #[test]
    fn a_refusal_keeps_its_words_and_its_type_under_context() {
        let e = Error::refused(io::Error::other("no such suite")).context("plan p");
        assert!(e.is_invalid() && !e.is_interrupted());
        assert_eq!((e.to_string(), e.cli_message()), ("plan p: no such suite".into(), "plan p: no such suite".into()));
        assert!(e.refusal::<io::Error>().is_some());
        assert!(e.refusal::<std::fmt::Error>().is_none());
    }

    #[test]
    fn a_written_error_names_its_fields_as_its_source_spells_them_however_printed() {
        let span = || Error::spec(Field::Span, "10737418240", "with {offset} 0 reaches past the end of f");
        let fio = span().context("point 1 (j)").written_as(Spelling::FioJob);
        let want = "point 1 (j): size=10737418240: with offset 0 reaches past the end of f";
        assert_eq!((fio.cli_message(), fio.to_string()), (want.to_string(), want.to_string()));
        assert!(fio.is_invalid() && matches!(fio.root(), Error::Spec { field: Field::Span, .. }));
        let plan = span().written_as(Spelling::PlanKeys);
        assert_eq!(plan.cli_message(), "span 10737418240: with offset 0 reaches past the end of f");
        assert_eq!(span().cli_message(), "--span 10737418240: with --offset 0 reaches past the end of f");
        let first = span().written_as(Spelling::FioJob).written_as(Spelling::PlanKeys);
        assert!(first.cli_message().starts_with("size="), "the innermost source names it");
        let direct = Error::DirectIoRefused { path: "/mnt/f".into() }.written_as(Spelling::FioJob);
        assert!(direct.cli_message().ends_with("use buffered (results will go through the page cache)"));
        let iodepth = Error::spec(Field::As("iodepth"), "0", "give 1 or more");
        assert_eq!(iodepth.written_as(Spelling::FioJob).cli_message(), "iodepth=0: give 1 or more");
    }
}
