//! Drive names: `--label TARGET=NAME` on every command that measures (fio mode too: fio has no
//! `label` option). A review prints "SATA II", not `/dev/loop3`; the name is given once, checked against the command's targets, saved with
//! the results (each point's [`crate::plan::Point::names`], each target's
//! [`crate::results::TargetFacts::name`]) and shown by every report, chart, CSV and `compare`
//! in place of the path. The path stays in the results: a name is how a target is shown, never
//! what identifies it.
//!
//! Names are hostile input like any other: bounded, printable, one per target, distinct (two
//! drives under one name would share a table cell, and figures of different drives are never
//! averaged), and never another target's path.

use serde::{Deserialize, Serialize};

/// At most this many characters in a name: a table's row header, a chart's legend.
pub const MAX_NAME_CHARS: usize = 64;

/// One target's name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DriveName {
    pub target: String,
    pub name: String,
}

/// The names a command was given, each checked against its targets.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DriveNames(Vec<DriveName>);

/// Why a `--label` is refused: each kind with the value given. Exit code 2.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum NameError {
    #[error("--label {given}: expected TARGET=NAME, such as --label /dev/sdb=\"SATA II\"")]
    NoEquals { given: String },
    #[error("--label {given}: no target of this command is named before an '='; the targets are {}",
            .targets.join(", "))]
    NotATarget { given: String, targets: Vec<String> },
    #[error("--label {target}=: the name is empty; give the name to show for {target}")]
    Empty { target: String },
    #[error("--label {target}=...: the name has {chars} characters; at most {MAX_NAME_CHARS}")]
    TooLong { target: String, chars: usize },
    #[error("--label {target}=...: the name holds a control character (U+{code:04X}); give printable text")]
    Control { target: String, code: u32 },
    #[error("--label: {target} is named twice; give each target one name")]
    NamedTwice { target: String },
    #[error("--label: {first} and {second} are both named \"{name}\"; give each target its own name")]
    SameName { name: String, first: String, second: String },
    #[error("--label {target}={name}: {name} is another target of this command; give a name no target has")]
    AnotherTarget { target: String, name: String },
}

impl From<NameError> for drivelab_engine::Error {
    fn from(e: NameError) -> drivelab_engine::Error {
        drivelab_engine::Error::refused(e)
    }
}

impl DriveNames {
    /// `given` (`TARGET=NAME` each) checked against `targets`. The split is at the `=` whose
    /// left side is one of `targets`, so a path or a name may hold '=' itself.
    pub fn parse(given: &[String], targets: &[String]) -> Result<DriveNames, NameError> {
        let mut out: Vec<DriveName> = Vec::with_capacity(given.len());
        for g in given {
            if !g.contains('=') {
                return Err(NameError::NoEquals { given: g.clone() });
            }
            let split = g
                .match_indices('=')
                .map(|(i, _)| (&g[..i], &g[i + 1..]))
                .find(|(t, _)| targets.iter().any(|x| x == t))
                .ok_or_else(|| NameError::NotATarget { given: g.clone(), targets: targets.to_vec() })?;
            let (target, name) = (split.0.to_string(), split.1.trim().to_string());
            out.push(check(target, name, targets)?);
        }
        for (i, a) in out.iter().enumerate() {
            for b in &out[..i] {
                if a.target == b.target {
                    return Err(NameError::NamedTwice { target: a.target.clone() });
                }
                if a.name == b.name {
                    return Err(NameError::SameName {
                        name: a.name.clone(),
                        first: b.target.clone(),
                        second: a.target.clone(),
                    });
                }
            }
        }
        Ok(DriveNames(out))
    }

    /// Names already checked, as saved (a resumed run's).
    pub fn from_saved(names: Vec<DriveName>) -> DriveNames {
        DriveNames(names)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `target`'s name, if it was given one: `target` as given, or made absolute as a run
    /// saves it.
    pub fn get(&self, target: &str) -> Option<&str> {
        let exact = self.0.iter().find(|n| n.target == target);
        let found = exact.or_else(|| {
            let cwd = std::env::current_dir().ok()?;
            let want = absolute(target, &cwd);
            self.0.iter().find(|n| absolute(&n.target, &cwd) == want)
        });
        found.map(|n| n.name.as_str())
    }

    /// The names of `targets` (those given one), in their order.
    pub fn of(&self, targets: &[String]) -> Vec<DriveName> {
        targets.iter().filter_map(|t| self.0.iter().find(|n| n.target == *t).cloned()).collect()
    }

    pub fn all(&self) -> &[DriveName] {
        &self.0
    }
}

fn check(target: String, name: String, targets: &[String]) -> Result<DriveName, NameError> {
    if name.is_empty() {
        return Err(NameError::Empty { target });
    }
    let chars = name.chars().count();
    if chars > MAX_NAME_CHARS {
        return Err(NameError::TooLong { target, chars });
    }
    if let Some(c) = name.chars().find(|c| c.is_control()) {
        return Err(NameError::Control { target, code: c as u32 });
    }
    if name != target && targets.contains(&name) {
        return Err(NameError::AnotherTarget { target, name });
    }
    Ok(DriveName { target, name })
}

/// `target` as a run saves it: a relative file path joined to `cwd` (so `--resume` from
/// another directory runs on the same file); `null` and absolute paths as they are.
pub fn absolute(target: &str, cwd: &std::path::Path) -> String {
    if target == "null" || target.is_empty() || target.starts_with('/') {
        target.to_string()
    } else {
        cwd.join(target).to_string_lossy().into_owned()
    }
}

/// How `target` is shown given `names` (its name, else its path).
pub fn shown<'a>(names: &'a [DriveName], target: &'a str) -> &'a str {
    names.iter().find(|n| n.target == target).map_or(target, |n| n.name.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn names_split_at_the_equals_after_a_target_and_are_checked() {
        let targets = t(&["/dev/loop0", "a=b.dat"]);
        let n = DriveNames::parse(&t(&["/dev/loop0=SATA II", "a=b.dat=x=y"]), &targets).unwrap();
        assert_eq!(n.get("/dev/loop0"), Some("SATA II"));
        assert_eq!(n.get("a=b.dat"), Some("x=y"), "the '=' after the target, not the first");
        assert_eq!(shown(n.all(), "/dev/loop0"), "SATA II");
        assert_eq!(shown(n.all(), "/dev/other"), "/dev/other");
        assert_eq!(n.of(&t(&["a=b.dat", "zzz"])).len(), 1);
    }

    #[test]
    fn bad_names_are_refused_with_the_value() {
        let targets = t(&["/dev/loop0", "/dev/loop1"]);
        let err = |g: &[&str]| DriveNames::parse(&t(g), &targets).unwrap_err();
        assert!(matches!(err(&["SATA"]), NameError::NoEquals { .. }));
        assert!(matches!(err(&["/dev/sdz=SATA"]), NameError::NotATarget { .. }));
        assert!(matches!(err(&["/dev/loop0= "]), NameError::Empty { .. }));
        assert!(matches!(err(&["/dev/loop0=a\u{1b}[2J"]), NameError::Control { code: 0x1b, .. }));
        assert!(matches!(err(&[&format!("/dev/loop0={}", "x".repeat(65))]), NameError::TooLong { chars: 65, .. }));
        assert!(matches!(err(&["/dev/loop0=a", "/dev/loop0=b"]), NameError::NamedTwice { .. }));
        assert!(matches!(err(&["/dev/loop0=a", "/dev/loop1=a"]), NameError::SameName { .. }));
        assert!(matches!(err(&["/dev/loop0=/dev/loop1"]), NameError::AnotherTarget { .. }));
        assert!(err(&["/dev/sdz=SATA"]).to_string().contains("/dev/loop0, /dev/loop1"));
    }
}
