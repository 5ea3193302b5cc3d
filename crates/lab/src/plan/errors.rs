//! Where a plan's refusals point: `FILE:LINE:COLUMN` positions in the TOML text, and the
//! wording shared by every message ("a string", "an array").

use std::fmt::Display;
use std::ops::Range;

use drivelab_engine::Error;
use toml_edit::{Item, TableLike, Value};

pub(super) type Span = Option<Range<usize>>;

/// Why a plan is refused: the words defined once, so a caller can match (or downcast from
/// [`Error::Refused`]) the kind: a place in the file and what is wrong there, or a refusal of
/// the file or the command line as a whole. Exit code 2.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// `at` is `FILE:LINE:COLUMN`; `what` says what is wrong there and what was expected.
    #[error("{at}: {what}")]
    At { at: String, what: String },
    #[error("{file} is a directory: give the path of a plan file such as sweep.toml")]
    IsADirectory { file: String },
    #[error("target {target} is given twice on the command line; expected each target once")]
    TargetTwice { target: String },
    /// One point's streams together (fio's sections of one group, each with its clones) start
    /// more job threads than this machine can run in one measured window.
    #[error(
        "point {point} ({label}): {threads} job threads at once (every job and clone of the point, fio's \
         sections of one group together); at most {cap} here (64 per CPU) can share one measured window: use \
         fewer jobs or numjobs, split the group with stonewall, or a deeper iodepth per job"
    )]
    TooManyJobs { point: usize, label: String, threads: u64, cap: u64 },
}

impl From<PlanError> for Error {
    fn from(e: PlanError) -> Error {
        Error::refused(e)
    }
}

/// The text being parsed, for locations in messages.
pub(super) struct Src<'a> {
    pub(super) text: &'a str,
    pub(super) file: &'a str,
}

impl Src<'_> {
    /// `FILE:LINE:COLUMN` (1-based, columns in characters) of the start of `span`.
    pub(super) fn at(&self, span: &Span) -> String {
        let mut off = span.as_ref().map_or(0, |r| r.start).min(self.text.len());
        while !self.text.is_char_boundary(off) {
            off -= 1;
        }
        let before = &self.text[..off];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let col = before[line_start..].chars().count() + 1;
        format!("{}:{line}:{col}", self.file)
    }

    pub(super) fn err(&self, span: Span, msg: impl Display) -> Error {
        PlanError::At { at: self.at(&span), what: msg.to_string() }.into()
    }
}

/// The TOML parser's message as drivelab says it. The parser's wording is its own and may
/// change between versions, so nothing here looks inside it: it is passed on whole, with what
/// drivelab expects after it.
pub(super) fn syntax_message(message: &str) -> String {
    let m = message.trim().replace('\n', "; ");
    format!("invalid TOML: {m}; expected TOML syntax (see toml.io), each key at most once in a table")
}

pub(super) fn key_span(table: &dyn TableLike, key: &str) -> Span {
    table.key(key).and_then(|k| k.span())
}

pub(super) fn a_type(item: &Item) -> String {
    let t = item.type_name();
    let article = if t.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
    format!("{article} {t}")
}

pub(super) fn a_value_type(v: &Value) -> String {
    let t = v.type_name();
    let article = if t.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
    format!("{article} {t}")
}
