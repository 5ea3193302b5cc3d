//! fio's job-file syntax, read as fio reads it (`init.c`): `[section]` headers, `key=value` or a
//! bare `key` per line, blanks around both trimmed, and everything from a `;` or `#` on a line
//! ignored (so `numjobs=4 ; four threads` is `numjobs=4`). Each option keeps its line number, so
//! a refusal names `FILE:LINE`.
//!
//! Before an option is read, `${NAME}` is replaced by the variable's value (fio takes the
//! environment; drivelab also takes `--var NAME=...`, which wins) and fio's keywords `$ncpus`,
//! `$pagesize` and `$mb_memory` by this machine's figures. Where fio puts nothing for a variable
//! that is not set, drivelab refuses the file: a job that silently lost its block size is not
//! the job that was written (when that section runs: a section `--section` leaves out is not
//! read, as in fio).
//!
//! `include FILE` inside a section reads FILE's options into that section, as fio does: FILE as
//! written, else beside the including file; no sections in an included file (fio refuses them
//! too); included files read through the bounded input reader, at most [`MAX_INCLUDE_DEPTH`]
//! deep (fio recurses without end on a file that includes itself). An included option keeps the
//! line of its `include`, so a refusal names the line the job file's reader can see.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// How deep `include` nests.
pub const MAX_INCLUDE_DEPTH: usize = 8;

/// Where `include` looks: the including file (its directory is the second place), or nowhere
/// (fio's command line, standard input).
#[derive(Clone, Copy, Debug)]
pub enum From<'a> {
    File(&'a Path),
    Nowhere,
}

/// One option as written: `key`, its value (None for a bare `key`), its line (1-based).
#[derive(Clone, Debug, PartialEq)]
pub struct Opt {
    pub key: String,
    pub value: Option<String>,
    pub line: usize,
}

/// A `[section]` and its options in file order.
#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    pub name: String,
    pub line: usize,
    pub options: Vec<Opt>,
    /// The first variable of this section that could not be substituted: refused when the
    /// section is used, not when it is left out (`--section`), as fio only reads the sections it
    /// runs.
    pub unset: Option<LineError>,
}

impl Section {
    pub fn is_global(&self) -> bool {
        self.name == "global"
    }
}

/// Where a refusal points: the line, and what is wrong.
#[derive(Clone, Debug, PartialEq)]
pub struct LineError {
    pub line: usize,
    pub message: String,
}

fn err(line: usize, message: impl Into<String>) -> LineError {
    LineError { line, message: message.into() }
}

/// The sections of `text`, with `vars` (and then the environment) substituted; `from`: the file
/// it was read from, for `include`.
pub fn parse(text: &str, vars: &BTreeMap<String, String>, from: From) -> Result<Vec<Section>, LineError> {
    let mut sections: Vec<Section> = Vec::new();
    read(text, vars, from, &mut sections, None)?;
    Ok(sections)
}

/// `include NAME` as fio finds it: as written, else beside `from`.
fn include_path(name: &str, from: From) -> Option<PathBuf> {
    let given = Path::new(name);
    if given.exists() {
        return Some(given.to_path_buf());
    }
    match from {
        From::File(f) => Some(f.parent().unwrap_or(Path::new(".")).join(given)),
        From::Nowhere => None,
    }
}

/// The lines of `text` into `sections`; `included`: the line of the `include` (and its depth)
/// when `text` is an included file's.
fn read(
    text: &str,
    vars: &BTreeMap<String, String>,
    from: From,
    sections: &mut Vec<Section>,
    included: Option<(usize, usize)>,
) -> Result<(), LineError> {
    for (i, raw) in text.lines().enumerate() {
        let line = included.map_or(i + 1, |(at, _)| at);
        let body = raw.split([';', '#']).next().unwrap_or_default().trim();
        if body.is_empty() {
            continue;
        }
        if let Some(rest) = body.strip_prefix('[') {
            if included.is_some() {
                return Err(err(line, format!("the included file opens a section ('{body}'); fio takes no new sections in an included file either: include only options")));
            }
            let Some(name) = rest.strip_suffix(']') else {
                return Err(err(line, format!("'{body}' opens a section but does not close it; expected [name]")));
            };
            let name = name.trim();
            if name.is_empty() {
                return Err(err(line, "an empty section name; expected [global] or [jobname]"));
            }
            sections.push(Section { name: name.to_string(), line, options: Vec::new(), unset: None });
            continue;
        }
        let Some(section) = sections.last_mut() else {
            let what = if body.starts_with("include ") { "directive" } else { "option" };
            return Err(err(
                line,
                format!(
                    "{what} '{body}' is outside of any [section] (fio reads options and includes only in one); \
                     put it under [global] or a job"
                ),
            ));
        };
        if let Some(name) = body.strip_prefix("include ").map(str::trim).filter(|n| !n.is_empty()) {
            let depth = included.map_or(1, |(_, d)| d + 1);
            if depth > MAX_INCLUDE_DEPTH {
                return Err(err(
                    line,
                    format!(
                        "include {name}: includes nest deeper than {MAX_INCLUDE_DEPTH} (does a file include itself?)"
                    ),
                ));
            }
            let Some(path) = include_path(name, from) else {
                return Err(err(
                    line,
                    format!("include {name}: no such file (fio's command line has no job file to look beside)"),
                ));
            };
            let bytes = drivelab_engine::input::Input::JOB
                .read(&path)
                .map_err(|e| err(line, format!("include {name}: {e}")))?;
            let inner = String::from_utf8(bytes)
                .map_err(|_| err(line, format!("include {name}: not a text file; expected fio job options")))?;
            read(&inner, vars, From::File(&path), sections, Some((line, depth)))?;
            continue;
        }
        if body == "include" {
            return Err(err(line, "include needs a file name: include FILE"));
        }
        let substituted = match substitute(body, vars) {
            Ok(s) => s,
            Err(m) => {
                section.unset.get_or_insert(err(line, m));
                continue;
            }
        };
        let (key, value) = match substituted.split_once('=') {
            Some((k, v)) => (k.trim().to_string(), Some(v.trim().to_string())),
            None => (substituted.trim().to_string(), None),
        };
        if key.is_empty() {
            return Err(err(line, format!("'{body}' has no option name before '='")));
        }
        section.options.push(Opt { key, value, line });
    }
    Ok(())
}

/// `text` with `${NAME}` and fio's `$keywords` replaced.
fn substitute(text: &str, vars: &BTreeMap<String, String>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let Some(end) = after.find('}') else {
            return Err(format!("'{text}': '${{' without a closing '}}'"));
        };
        let name = &after[..end];
        let value = match vars.get(name) {
            Some(v) => v.clone(),
            None => std::env::var(name).map_err(|_| {
                format!(
                    "${{{name}}} is not set (fio would put nothing there); set it in the environment or give \
                     --var {name}=VALUE"
                )
            })?,
        };
        out.push_str(&value);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    let mut text = out;
    for (word, value) in keywords() {
        if text.contains(word) {
            text = text.replace(word, &value);
        }
    }
    if text.contains("$(") {
        return Err(format!("'{text}': fio's arithmetic expressions are not supported; write the value out"));
    }
    Ok(text)
}

/// fio's keywords and this machine's values for them.
fn keywords() -> [(&'static str, String); 3] {
    // SAFETY: sysconf has no preconditions; it only reads system configuration.
    let (pagesize, pages, cpus) = unsafe {
        (
            libc::sysconf(libc::_SC_PAGESIZE),
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_NPROCESSORS_ONLN),
        )
    };
    let mb = (pages.max(0) as u64).saturating_mul(pagesize.max(0) as u64) >> 20;
    [("$pagesize", pagesize.to_string()), ("$mb_memory", mb.to_string()), ("$ncpus", cpus.to_string())]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn sections_options_and_comments_as_fio_reads_them() {
        let text = "; a comment\n[global]\nbs=4k\n  direct = 1 ; trailing\n\n[job one]\ntime_based\n# x\nnumjobs=4\t; 4 threads\n";
        let s = parse(text, &vars(&[]), From::Nowhere).unwrap();
        assert_eq!(s.len(), 2);
        assert!(s[0].is_global());
        assert_eq!(s[0].options[1], Opt { key: "direct".into(), value: Some("1".into()), line: 4 });
        assert_eq!(s[1].name, "job one");
        assert_eq!(s[1].options[0], Opt { key: "time_based".into(), value: None, line: 7 });
        assert_eq!(s[1].options[1].value.as_deref(), Some("4"));
        assert_eq!(s[1].options[1].line, 9);
    }

    #[test]
    fn variables_come_from_vars_then_the_environment_and_a_missing_one_is_kept_for_its_section() {
        let s = parse("[j]\nbs=${BS}\niodepth=${QD}\n", &vars(&[("BS", "64k"), ("QD", "8")]), From::Nowhere).unwrap();
        assert_eq!(s[0].options[0].value.as_deref(), Some("64k"));
        assert_eq!(s[0].options[1].value.as_deref(), Some("8"));
        let s = parse("[j]\nbs=4k\n[k]\nbs=${DRIVELAB_SURELY_UNSET_VAR}\n", &vars(&[]), From::Nowhere).unwrap();
        assert_eq!(s[0].unset, None, "a section without variables reads whole");
        let e = s[1].unset.clone().expect("the missing variable is kept for when [k] runs");
        assert_eq!(e.line, 4);
        assert!(e.message.contains("--var DRIVELAB_SURELY_UNSET_VAR=VALUE"), "{}", e.message);
        let n = parse("[j]\nnumjobs=$ncpus\n", &vars(&[]), From::Nowhere).unwrap();
        let cpus: u64 = n[0].options[0].value.as_deref().unwrap().parse().unwrap();
        assert!(cpus >= 1);
    }

    #[test]
    fn bad_lines_name_their_line() {
        assert_eq!(parse("bs=4k\n", &vars(&[]), From::Nowhere).unwrap_err().line, 1);
        assert_eq!(parse("[j]\n[broken\n", &vars(&[]), From::Nowhere).unwrap_err().line, 2);
        assert!(parse("[j]\ninclude other.fio\n", &vars(&[]), From::Nowhere).unwrap_err().message.contains("include"));
    }

    #[test]
    fn include_reads_a_files_options_into_the_section_as_fio_does() {
        let dir = std::env::temp_dir().join(format!("drivelab-ini-include-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("common.fio"), "; shared\nbs=64k\nincludes=x\n").unwrap();
        std::fs::write(dir.join("sec.fio"), "[oops]\nbs=4k\n").unwrap();
        std::fs::write(dir.join("self.fio"), "include self.fio\n").unwrap();
        let job = dir.join("job.fio");
        let s = parse("[a]\nrw=read\ninclude common.fio\niodepth=2\n", &vars(&[]), From::File(&job)).unwrap();
        let keys: Vec<&str> = s[0].options.iter().map(|o| o.key.as_str()).collect();
        assert_eq!(keys, ["rw", "bs", "includes", "iodepth"]);
        assert_eq!(s[0].options[1].line, 3, "an included option keeps its include's line");
        let e = parse("[a]\ninclude sec.fio\n", &vars(&[]), From::File(&job)).unwrap_err();
        assert!(e.message.contains("section") && e.line == 2, "{e:?}");
        let e = parse("[a]\ninclude self.fio\n", &vars(&[]), From::File(&job)).unwrap_err();
        assert!(e.message.contains("deeper"), "{e:?}");
        let e = parse("[a]\ninclude missing.fio\n", &vars(&[]), From::File(&job)).unwrap_err();
        assert!(e.message.contains("missing.fio"), "{e:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
