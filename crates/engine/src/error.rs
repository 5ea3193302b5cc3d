//! The engine's errors, split the way the CLI must treat them: the user's input was wrong
//! (`Invalid`, exit code 2, nothing was written) or the system failed us (`Io`, exit code 1).

use std::io;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad input or a refusal: the message names the value and the fix.
    #[error("{0}")]
    Invalid(String),
    /// The system failed an operation we had every right to expect to work.
    #[error("{context}: {source}")]
    Io { context: String, source: io::Error },
}

impl Error {
    pub fn invalid(msg: impl Into<String>) -> Error {
        Error::Invalid(msg.into())
    }
    pub fn io(context: impl Into<String>, source: io::Error) -> Error {
        Error::Io { context: context.into(), source }
    }
    /// True when the user can fix it by changing the command (exit code 2).
    pub fn is_invalid(&self) -> bool {
        matches!(self, Error::Invalid(_))
    }
}

impl Error {
    /// The same error, said to happen while doing `what` ("point 3 (random read)"): the kind,
    /// and so the exit code, is kept.
    pub fn context(self, what: impl std::fmt::Display) -> Error {
        match self {
            Error::Invalid(m) => Error::Invalid(format!("{what}: {m}")),
            Error::Io { context, source } => Error::Io { context: format!("{what}: {context}"), source },
        }
    }
}
