//! The engine's errors, split the way the CLI must treat them: the user's input was wrong or
//! refused (exit code 2, nothing was written: [`Error::is_invalid`]) or the system failed us
//! (`Io`, exit code 1).
//!
//! Errors about an access-spec field carry the [`Field`], so they name it the way the reader
//! wrote it: `Display` uses the plan-file key (`qd 0: ...`), [`Error::cli_message`] the CLI flag
//! (`--qd 0: ...`). Nothing needs to look inside a message to know what went wrong.

use std::io;

pub use crate::fields::Field;

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
}

fn render_spec(field: Field, value: &str, fix: &str, cli: bool) -> String {
    let name = if cli { field.flag() } else { field.name().to_string() };
    let fix = Field::render_refs(fix, cli);
    let value = Field::render_refs(value, cli);
    if value.is_empty() {
        format!("{name} {fix}")
    } else {
        format!("{name} {value}: {fix}")
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
    let fix = Field::render_refs("use {buffered} (results will go through the page cache)", cli);
    format!("{path}: the filesystem refuses O_DIRECT; {fix}")
}

impl Error {
    pub fn invalid(msg: impl Into<String>) -> Error {
        Error::Invalid(msg.into())
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
            Error::Within { inner, .. } => inner.is_invalid(),
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
            Error::Within { inner, .. } => inner.root(),
            other => other,
        }
    }
    /// The message for the command line: fields named by their flags (`--qd 0: ...`,
    /// `use --buffered`). `Display` names them as plan files do (`qd 0: ...`).
    pub fn cli_message(&self) -> String {
        match self {
            Error::Spec { field, value, fix } => render_spec(*field, value, fix, true),
            Error::DirectIoRefused { path } => render_direct(path, true),
            Error::Within { what, inner } => format!("{what}: {}", inner.cli_message()),
            other => other.to_string(),
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
}
