//! Test plans: `drivelab plan FILE.toml` reads a TOML file and expands it into the points to run.
//!
//! This module only reads and expands; running the points is the runner's job. Access-spec
//! values go through [`fields::from_pairs`], the parser behind `drivelab run`'s flags, so a plan
//! accepts exactly the spellings of the command line (`bs = "4k:70,64k:30"` is `--bs
//! 4k:70,64k:30`) and refuses what it refuses.
//!
//! # Format
//!
//! ```toml
//! name = "nvme qd sweep"      # optional, default: the file name without .toml
//! targets = ["/dev/nvme0n1"]  # optional if targets are given on the command line (those win)
//! together = false            # false: targets one after another; true: every point on all at once
//! repeat = 1                  # run each point this many times (labels get "#2", "#3" ...)
//! pause = "5s"                # idle time between two runs (precondition runs included)
//!
//! [defaults]                  # access-spec fields for every point (not for the precondition)
//! bs = "4k"                   # values: strings, whole numbers or true/false
//! time = "30s"
//!
//! [precondition]              # optional: run once per target before the points, taken as written
//! rw = "write"
//! bs = "128k"
//! io_size = "2g"
//!
//! [matrix]                    # axes of a cartesian product, first axis outermost
//! qd = "1..64 x2"             # geometric range, inclusive: 1 2 4 8 16 32 64
//! read = "0..100 +50"         # arithmetic range, inclusive when hit: 0 50 100
//! bs = ["4k", "64k"]          # a list of values (strings, whole numbers or true/false)
//!
//! [[step]]                    # optional named steps, run in file order
//! name = "random read"
//! rw = "randread"             # step fields override [defaults]
//! [step.matrix]               # a step's own axes replace the top-level [matrix] for that step
//! qd = [1, 32]
//!
//! [[step]]
//! name = "mixed"              # default name: "step N"
//! rw = "randrw"               # no [step.matrix]: the top-level [matrix] applies
//! ```
//!
//! Without any `[[step]]` there is one implicit, unnamed step made of `[defaults]` and
//! `[matrix]`. The keys of a point's spec are applied in this order: `[defaults]` (in the order
//! written), the step's fields, the matrix values in axis order; a later key replaces an earlier
//! one ([`Point::fields`] records the result).
//!
//! Ranges are `A..B xF` (geometric, F a whole number >= 2, A >= 1) or `A..B +S` (arithmetic,
//! S > 0), at most [`MAX_AXIS_VALUES`] values, in the unit of their field: sizes for `bs`,
//! `align`, `offset`, `span`, `io_size` (`"512..1m x2"` is 512, 1k, 2k ... 1m), durations for
//! `time`, `ramp` (`"10s..30s +10s"`), whole numbers for `qd`, `jobs`, `read`, `random`,
//! `batch`, `seed`. The other fields (`rw`, `sync`, `data`, `engine`, `cpus`, `direct`, ...)
//! take lists only.
//!
//! # Expansion
//!
//! Points are numbered from 1 in run order. When `together = false` each target gets every
//! point of every step in turn (steps in file order, matrix product, repeats innermost), and with
//! more than one target the labels end in `on NAME` (the target's file name, or its full path
//! when file names clash). When `together = true` there is one sequence of points, each run on
//! all targets at once. A label is the step name, then `key=value` for each axis, then the
//! target and the repeat: `random read qd=32 on nvme0n1 #2`; a point with neither step name nor
//! axes is labelled by its spec (`randread 4k qd1 x1`). Labels are unique; slugs are the labels
//! made file-name safe (`random-read-qd32-on-nvme0n1-2`).
//!
//! # Errors
//!
//! Every refusal is [`Error::Invalid`] and reads `FILE:LINE:COLUMN: what is wrong; what was
//! expected`, pointing at the offending key or value, or, for a refusal that comes from a
//! combination of fields, at the `[[step]]` header or the `[defaults]` table.

use std::collections::HashSet;
use std::fmt::Display;
use std::ops::Range;
use std::path::Path;

use drivelab_engine::fields;
use drivelab_engine::spec::AccessSpec;
use drivelab_engine::units::{fmt_duration, fmt_size, parse_duration, parse_size};
use drivelab_engine::Error;
use toml_edit::{Document, Item, TableLike, Value};

use crate::store;

/// At most this many values in one range.
pub const MAX_AXIS_VALUES: usize = 10_000;
/// At most this many points in one plan (targets and repeats included).
pub const MAX_POINTS: usize = 100_000;

const PLAN_KEYS: &[&str] =
    &["name", "targets", "together", "repeat", "pause", "defaults", "precondition", "matrix", "step"];
const RANGE_EXPECTED: &str = r#"expected a range like "1..64 x2" or "0..100 +10", or a list"#;

/// A plan, expanded. Saved whole in a results directory's `run.json`, so `--resume` runs exactly
/// the points it would have run.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Plan {
    pub name: String,
    /// The command line's targets if it gave any, else the file's.
    pub targets: Vec<String>,
    /// Every point runs on all targets at once (JBOD).
    pub together: bool,
    pub repeat: u32,
    /// Idle time between two runs.
    pub pause_ns: u64,
    /// Runs once per target before the points (index 0, label and step `precondition`).
    pub precondition: Option<Point>,
    /// In run order; repeats are separate points.
    pub points: Vec<Point>,
}

/// One run of one access spec: the one point type, planned, saved in `run.json` and with every
/// point result.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Point {
    /// 1-based, in run order.
    pub index: usize,
    /// E.g. `random read qd=4 read=70`; unique within the plan.
    pub label: String,
    /// The label for file names: `[a-z0-9.-]` only, e.g. `random-read-qd4-read70`; unique.
    pub slug: String,
    /// The step's name; empty for the implicit step of a plan without `[[step]]`.
    pub step: String,
    /// The targets this point runs on: one, or all when the plan runs them together.
    pub targets: Vec<String>,
    /// The access-spec fields as given (defaults, then step, then matrix; a later key replaces an
    /// earlier one), for the record.
    pub fields: Vec<(String, String)>,
    /// `fields::from_pairs(fields)` (for `drivelab run`, whose point has no fields, the spec
    /// built from its flags).
    #[serde(default)]
    pub spec: AccessSpec,
    /// Ramp plus time; None when only `io_size` bounds the run.
    pub estimate_ns: Option<u64>,
}

impl Plan {
    /// How long the plan takes: every point, the precondition once per target (once when the
    /// targets run together) and the pauses between runs. None when a run (the precondition
    /// included) is bounded only by `io_size`.
    pub fn estimate_ns(&self) -> Option<u64> {
        let mut total = 0u64;
        for p in &self.points {
            total = total.saturating_add(p.estimate_ns?);
        }
        let mut runs = self.points.len() as u64;
        if let Some(pre) = &self.precondition {
            let times = if self.together { 1 } else { self.targets.len() as u64 };
            total = total.saturating_add(pre.estimate_ns?.saturating_mul(times));
            runs += times;
        }
        Some(total.saturating_add(self.pause_ns.saturating_mul(runs.saturating_sub(1))))
    }
}

/// Which targets a plan runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Targets<'a> {
    /// The command line's, when not empty, else the file's; none at all is an error.
    Given(&'a [String]),
    /// For listing a plan (`--dry-run`) before its targets are known: the file's, or a
    /// placeholder `TARGET` when it names none.
    ForListing(&'a [String]),
}

/// Read, parse and expand the plan at `path`. `cli_targets`, when not empty, replace the file's.
pub fn load(path: &Path, cli_targets: &[String]) -> Result<Plan, Error> {
    load_with(path, Targets::Given(cli_targets))
}

/// [`load`], choosing what happens when no target is named.
pub fn load_with(path: &Path, targets: Targets) -> Result<Plan, Error> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            Error::invalid(format!("{file}: no such file; expected the path of a plan file such as sweep.toml"))
        }
        _ => Error::io(format!("reading the plan {file}"), e),
    })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let valid = std::str::from_utf8(valid).unwrap_or_default();
        let src = Src { text: valid, file: &file };
        src.err(Some(valid.len()..valid.len()), "this byte is not UTF-8; expected a TOML file in UTF-8")
    })?;
    parse_with(&text, &file, targets)
}

/// Parse and expand plan `text`; `file_name` is used in messages and for the default name.
pub fn parse(text: &str, file_name: &str, cli_targets: &[String]) -> Result<Plan, Error> {
    parse_with(text, file_name, Targets::Given(cli_targets))
}

fn parse_with(text: &str, file_name: &str, given: Targets) -> Result<Plan, Error> {
    let (cli_targets, listing) = match given {
        Targets::Given(t) => (t, false),
        Targets::ForListing(t) => (t, true),
    };
    let src = Src { text, file: file_name };
    let doc = Document::parse(text).map_err(|e| src.err(e.span(), syntax_message(e.message())))?;
    let root = doc.as_table();

    for (k, _) in root.iter() {
        if !PLAN_KEYS.contains(&k) {
            let hint =
                if fields::KEYS.contains(&k) { "; access-spec fields go under [defaults] or a [[step]]" } else { "" };
            return Err(src.err(
                key_span(root, k),
                format!("'{k}' is not a plan key; expected one of {}{hint}", PLAN_KEYS.join(", ")),
            ));
        }
    }

    let name = match root.get("name") {
        Some(item) => non_empty_string(&src, "name", item, "\"nvme qd sweep\"")?,
        None => Path::new(file_name).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default(),
    };
    let name = if name.is_empty() { "plan".to_string() } else { name };

    let file_targets = match root.get("targets") {
        Some(item) => string_list(&src, "targets", item)?,
        None => Vec::new(),
    };

    let together = match root.get("together") {
        Some(item) => item
            .as_bool()
            .ok_or_else(|| src.err(item.span(), format!("together is {}; expected true or false", a_type(item))))?,
        None => false,
    };

    let repeat_span = root.get("repeat").and_then(Item::span);
    let repeat = match root.get("repeat") {
        Some(item) => {
            let expected = "expected a whole number of 1 or more";
            match item.as_integer() {
                Some(n) if n < 0 => {
                    return Err(
                        src.err(item.span(), format!("repeat = {n}: negative numbers are not allowed; {expected}"))
                    )
                }
                Some(0) => return Err(src.err(item.span(), format!("repeat = 0 would run nothing; {expected}"))),
                Some(n) => u32::try_from(n).map_err(|_| {
                    src.err(item.span(), format!("repeat = {n} is too large; {expected}, at most {}", u32::MAX))
                })?,
                None => return Err(src.err(item.span(), format!("repeat is {}; {expected}", a_type(item)))),
            }
        }
        None => 1,
    };

    let pause_ns = match root.get("pause") {
        Some(item) => {
            let text = item.as_str().ok_or_else(|| {
                src.err(item.span(), format!("pause is {}; expected a duration such as \"5s\"", a_type(item)))
            })?;
            parse_duration(text).map_err(|e| src.err(item.span(), format!("pause {e}")))?.as_nanos() as u64
        }
        None => 0,
    };

    let defaults_item = root.get("defaults");
    let defaults = match defaults_item {
        Some(item) => {
            let fields = spec_fields(&src, "defaults", item)?;
            if let Err(e) = fields::from_pairs(pairs(&fields)) {
                return Err(src.err(item.span(), format!("[defaults]: {e}")));
            }
            fields
        }
        None => Vec::new(),
    };

    let precondition = match root.get("precondition") {
        Some(item) => {
            let fields = spec_fields(&src, "precondition", item)?;
            let spec =
                fields::from_pairs(pairs(&fields)).map_err(|e| src.err(item.span(), format!("[precondition]: {e}")))?;
            Some(Point {
                index: 0,
                label: "precondition".into(),
                slug: "precondition".into(),
                step: "precondition".into(),
                targets: Vec::new(), // filled in below, once the targets are known
                estimate_ns: estimate(&spec),
                fields,
                spec,
            })
        }
        None => None,
    };

    let top_matrix = root.get("matrix").map(|item| matrix(&src, item)).transpose()?;

    let mut steps = match root.get("step") {
        Some(item) => steps(&src, item)?,
        None => Vec::new(),
    };
    if steps.is_empty() {
        let anchor = defaults_item.and_then(Item::span).or_else(|| top_matrix.as_ref().and_then(|m| m.span.clone()));
        steps.push(Step { name: String::new(), anchor, fields: Vec::new(), matrix: None });
    }

    let mut targets = if cli_targets.is_empty() { file_targets } else { cli_targets.to_vec() };
    if targets.is_empty() && listing {
        targets.push("TARGET".to_string());
    }
    if targets.is_empty() {
        let span = root.get("targets").and_then(Item::span);
        return Err(src.err(
            span,
            concat!(
                "the plan names no targets: add targets = [...] or give them on the command line; ",
                "expected at least one target"
            ),
        ));
    }
    if !cli_targets.is_empty() {
        if let Some(t) = first_duplicate(cli_targets) {
            return Err(Error::invalid(format!(
                "target {t} is given twice on the command line; expected each target once"
            )));
        }
    }

    // Points before targets and repeats, in step and matrix order.
    let mut protos: Vec<Proto> = Vec::new();
    for step in &steps {
        let own = step.matrix.as_ref().or(top_matrix.as_ref());
        let axes: &[Axis] = own.map_or(&[][..], |m| &m.axes[..]);
        let count = axes
            .iter()
            .try_fold(1usize, |n, a| n.checked_mul(a.values.len()))
            .filter(|&n| n <= MAX_POINTS)
            .ok_or_else(|| {
                src.err(
                    own.and_then(|m| m.span.clone()),
                    format!("this matrix gives more than {MAX_POINTS} points; expected fewer or shorter axes"),
                )
            })?;
        let base: Vec<(String, String)> = defaults.iter().chain(&step.fields).cloned().collect();
        if let Err(e) = fields::from_pairs(pairs(&base)) {
            return Err(src.err(step.anchor.clone(), format!("step '{}': {e}", step.name)));
        }
        for n in 0..count {
            let mut idx = vec![0; axes.len()];
            let mut rem = n;
            for (i, a) in axes.iter().enumerate().rev() {
                idx[i] = rem % a.values.len();
                rem /= a.values.len();
            }
            let mut all = base.clone();
            let mut parts: Vec<String> = Vec::new();
            if !step.name.is_empty() {
                parts.push(step.name.clone());
            }
            for (a, &i) in axes.iter().zip(&idx) {
                all.push((a.key.clone(), a.values[i].clone()));
                parts.push(format!("{}={}", a.key, a.values[i]));
            }
            let fields = resolve(all);
            let spec = fields::from_pairs(pairs(&fields)).map_err(|e| {
                let what =
                    if parts.is_empty() { "the point".to_string() } else { format!("point '{}'", parts.join(" ")) };
                src.err(step.anchor.clone(), format!("{what}: {e}"))
            })?;
            let label = if parts.is_empty() { spec.label() } else { parts.join(" ") };
            protos.push(Proto { label, step: step.name.clone(), anchor: step.anchor.clone(), fields, spec });
        }
    }

    let groups: Vec<(Vec<String>, String)> = if together {
        vec![(targets.clone(), String::new())]
    } else {
        let names = target_names(&targets);
        targets.iter().zip(names).map(|(t, n)| (vec![t.clone()], n)).collect()
    };
    let total = protos
        .len()
        .checked_mul(repeat as usize)
        .and_then(|n| n.checked_mul(groups.len()))
        .filter(|&n| n <= MAX_POINTS);
    if total.is_none() {
        let span = repeat_span.filter(|_| repeat > 1).or_else(|| top_matrix.as_ref().and_then(|m| m.span.clone()));
        return Err(src.err(
            span,
            format!(
                "the plan expands to more than {MAX_POINTS} points ({} per target, {repeat} repeats, {} targets); \
                 expected fewer points, repeats or targets",
                protos.len(),
                targets.len()
            ),
        ));
    }

    let mut points = Vec::with_capacity(total.unwrap_or(0));
    let mut labels = HashSet::new();
    let mut slugs = HashSet::new();
    for (group, suffix) in &groups {
        for p in &protos {
            for r in 1..=repeat {
                let mut label = p.label.clone();
                if groups.len() > 1 {
                    label = format!("{label} on {suffix}");
                }
                if r > 1 {
                    label = format!("{label} #{r}");
                }
                if !labels.insert(label.clone()) {
                    return Err(src.err(
                        p.anchor.clone(),
                        format!(
                            "two points are both labelled '{label}'; \
                             expected step names and axis values that tell points apart"
                        ),
                    ));
                }
                let slug = unique_slug(&label, &mut slugs);
                points.push(Point {
                    index: points.len() + 1,
                    label,
                    slug,
                    step: p.step.clone(),
                    targets: group.clone(),
                    fields: p.fields.clone(),
                    spec: p.spec.clone(),
                    estimate_ns: estimate(&p.spec),
                });
            }
        }
    }

    let precondition = precondition.map(|p| Point { targets: targets.clone(), ..p });
    Ok(Plan { name, targets, together, repeat, pause_ns, precondition, points })
}

type Span = Option<Range<usize>>;

/// The text being parsed, for locations in messages.
struct Src<'a> {
    text: &'a str,
    file: &'a str,
}

impl Src<'_> {
    /// `FILE:LINE:COLUMN` (1-based, columns in characters) of the start of `span`.
    fn at(&self, span: &Span) -> String {
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

    fn err(&self, span: Span, msg: impl Display) -> Error {
        Error::invalid(format!("{}: {msg}", self.at(&span)))
    }
}

struct Axis {
    key: String,
    values: Vec<String>,
}

struct Matrix {
    axes: Vec<Axis>,
    span: Span,
}

struct Step {
    /// Empty for the implicit step.
    name: String,
    /// Where refusals of the step's combined fields point: its header (or [defaults]).
    anchor: Span,
    fields: Vec<(String, String)>,
    matrix: Option<Matrix>,
}

struct Proto {
    label: String,
    step: String,
    anchor: Span,
    fields: Vec<(String, String)>,
    spec: AccessSpec,
}

fn pairs(fields: &[(String, String)]) -> impl Iterator<Item = (&str, &str)> {
    fields.iter().map(|(k, v)| (k.as_str(), v.as_str()))
}

fn estimate(spec: &AccessSpec) -> Option<u64> {
    spec.time_ns.map(|t| t.saturating_add(spec.ramp_ns))
}

/// Keep the last occurrence of every key, in the order of those last occurrences: applying the
/// result gives the same spec as applying all of `all` in order.
fn resolve(all: Vec<(String, String)>) -> Vec<(String, String)> {
    let mut out = Vec::with_capacity(all.len());
    for (i, (k, v)) in all.iter().enumerate() {
        if !all[i + 1..].iter().any(|(later, _)| later == k) {
            out.push((k.clone(), v.clone()));
        }
    }
    out
}

fn syntax_message(message: &str) -> String {
    let m = message.trim().replace('\n', "; ");
    if m.contains("expected") {
        format!("invalid TOML: {m}")
    } else if m == "duplicate key" {
        "invalid TOML: duplicate key; expected each key at most once in a table".into()
    } else {
        format!("invalid TOML: {m}; expected TOML syntax (see toml.io)")
    }
}

fn key_span(table: &dyn TableLike, key: &str) -> Span {
    table.key(key).and_then(|k| k.span())
}

fn a_type(item: &Item) -> String {
    let t = item.type_name();
    let article = if t.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
    format!("{article} {t}")
}

fn a_value_type(v: &Value) -> String {
    let t = v.type_name();
    let article = if t.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
    format!("{article} {t}")
}

fn non_empty_string(src: &Src, key: &str, item: &Item, example: &str) -> Result<String, Error> {
    match item.as_str() {
        Some(s) if !s.trim().is_empty() => Ok(s.to_string()),
        Some(_) => Err(src.err(item.span(), format!("{key} is empty; expected a name such as {example}"))),
        None => Err(src.err(item.span(), format!("{key} is {}; expected a string such as {example}", a_type(item)))),
    }
}

fn string_list(src: &Src, key: &str, item: &Item) -> Result<Vec<String>, Error> {
    let expected = format!("expected a list of paths such as {key} = [\"/dev/nvme0n1\", \"/dev/nvme1n1\"]");
    let Some(array) = item.as_array() else {
        return Err(src.err(item.span(), format!("{key} is {}; {expected}", a_type(item))));
    };
    let mut out: Vec<String> = Vec::new();
    for v in array.iter() {
        match v.as_str() {
            Some(s) if s.trim().is_empty() => {
                return Err(src.err(v.span(), format!("an empty path in {key}; {expected}")))
            }
            Some(s) if out.iter().any(|t| t == s) => {
                return Err(src.err(v.span(), format!("{s} is listed twice in {key}; expected each target once")))
            }
            Some(s) => out.push(s.to_string()),
            None => return Err(src.err(v.span(), format!("{key} holds {}; {expected}", a_value_type(v)))),
        }
    }
    Ok(out)
}

/// Refuse a key that is not an access-spec field with `fields::apply`'s message (which lists
/// the fields).
fn check_field_name(src: &Src, table: &dyn TableLike, key: &str, also: &[&str]) -> Result<(), Error> {
    if fields::KEYS.contains(&key) {
        return Ok(());
    }
    let msg = match fields::apply(&mut AccessSpec::default(), key, "") {
        Err(e) => e.to_string(),
        Ok(()) => format!("'{key}' is not an access-spec field"),
    };
    let mut hint = String::new();
    if !also.is_empty() {
        hint = format!("; a step may also have {}", also.join(" and "));
    }
    if PLAN_KEYS.contains(&key) && !also.contains(&key) {
        hint += &format!("; a plan key such as {key} must come before the first [table]");
    }
    Err(src.err(key_span(table, key), format!("{msg}{hint}")))
}

/// A field's value as the text `fields::apply` takes: strings as written, whole numbers and
/// booleans spelled out.
fn scalar(src: &Src, key: &str, v: &Value) -> Result<String, Error> {
    match v {
        Value::String(s) => Ok(s.value().clone()),
        Value::Integer(i) if *i.value() < 0 => Err(src.err(
            v.span(),
            format!("{key} = {}: negative numbers are not allowed; expected a whole number of 0 or more", i.value()),
        )),
        Value::Integer(i) => Ok(i.value().to_string()),
        Value::Boolean(b) => Ok(b.value().to_string()),
        _ => Err(
            src.err(v.span(), format!("{key} is {}; expected a string, a whole number or true/false", a_value_type(v)))
        ),
    }
}

/// Check that `key = value` alone is acceptable (apply and validate), pointing at `span`.
fn check_value(src: &Src, key: &str, value: &str, span: Span) -> Result<(), Error> {
    fields::from_pairs([(key, value)]).map(|_| ()).map_err(|e| src.err(span, e))
}

/// The access-spec fields of a table, each value checked on its own.
fn spec_fields(src: &Src, what: &str, item: &Item) -> Result<Vec<(String, String)>, Error> {
    let Some(table) = item.as_table_like() else {
        return Err(src.err(
            item.span(),
            format!("{what} is {}; expected a table of access-spec fields such as [{what}]", a_type(item)),
        ));
    };
    table_fields(src, table, &[])
}

/// The access-spec fields of `table`, each value checked on its own; `also` are other keys the
/// table may hold (skipped here).
fn table_fields(src: &Src, table: &dyn TableLike, also: &[&str]) -> Result<Vec<(String, String)>, Error> {
    let mut out = Vec::new();
    for (key, value) in table.iter() {
        if also.contains(&key) {
            continue;
        }
        check_field_name(src, table, key, also)?;
        let Some(v) = value.as_value() else {
            return Err(src.err(
                value.span(),
                format!("{key} is {}; expected a string, a whole number or true/false", a_type(value)),
            ));
        };
        let text = scalar(src, key, v)?;
        check_value(src, key, &text, v.span())?;
        out.push((key.to_string(), text));
    }
    Ok(out)
}

fn steps(src: &Src, item: &Item) -> Result<Vec<Step>, Error> {
    let expected = "expected [[step]] tables";
    let mut tables: Vec<(&dyn TableLike, Span)> = Vec::new();
    if let Some(aot) = item.as_array_of_tables() {
        tables.extend(aot.iter().map(|t| (t as &dyn TableLike, t.span())));
    } else if let Some(array) = item.as_array() {
        if array.is_empty() {
            return Err(src.err(item.span(), format!("step is an empty list; {expected}")));
        }
        for v in array.iter() {
            let t = v
                .as_inline_table()
                .ok_or_else(|| src.err(v.span(), format!("step holds {}; {expected}", a_value_type(v))))?;
            tables.push((t, v.span()));
        }
    } else {
        return Err(src.err(item.span(), format!("step is {}; {expected}", a_type(item))));
    }

    let mut out: Vec<Step> = Vec::new();
    for (i, (table, header)) in tables.into_iter().enumerate() {
        let name = match table.get("name") {
            Some(n) => {
                let name = non_empty_string(src, "name", n, "\"random read\"")?;
                if out.iter().any(|s| s.name == name) {
                    return Err(src.err(
                        n.span(),
                        format!("a step named '{name}' comes earlier; expected a different name for each step"),
                    ));
                }
                name
            }
            None => format!("step {}", i + 1),
        };
        let fields = table_fields(src, table, &["name", "matrix"])?;
        let matrix = table.get("matrix").map(|m| matrix(src, m)).transpose()?;
        out.push(Step { name, anchor: header, fields, matrix });
    }
    Ok(out)
}

fn matrix(src: &Src, item: &Item) -> Result<Matrix, Error> {
    let Some(table) = item.as_table_like() else {
        return Err(src.err(
            item.span(),
            format!("matrix is {}; expected a table of axes such as [matrix] qd = [1, 32]", a_type(item)),
        ));
    };
    let mut axes = Vec::new();
    for (key, value) in table.iter() {
        check_field_name(src, table, key, &[])?;
        axes.push(axis(src, key, value)?);
    }
    Ok(Matrix { axes, span: item.span() })
}

fn axis(src: &Src, key: &str, item: &Item) -> Result<Axis, Error> {
    let unit = unit_of(key);
    let values = match item.as_value() {
        Some(Value::Array(array)) => {
            if array.is_empty() {
                return Err(src.err(
                    item.span(),
                    format!("{key} = [] is an axis without values; expected a list of at least one value"),
                ));
            }
            let mut values: Vec<String> = Vec::new();
            for v in array.iter() {
                let text = scalar(src, key, v)?;
                check_value(src, key, &text, v.span())?;
                if values.contains(&text) {
                    return Err(src.err(v.span(), format!("{key} lists {text} twice; expected each value once")));
                }
                values.push(text);
            }
            values
        }
        Some(Value::String(s)) if unit.is_some() => {
            let text = s.value();
            let values = expand_range(unit.unwrap_or(Unit::Count), text)
                .map_err(|p| src.err(item.span(), format!("{key} = \"{text}\": {p}; {RANGE_EXPECTED}")))?;
            for v in &values {
                fields::from_pairs([(key, v.as_str())])
                    .map_err(|e| src.err(item.span(), format!("{key} = \"{text}\" gives {v}: {e}")))?;
            }
            values
        }
        _ => {
            let what = match item.as_str() {
                Some(s) => format!("{key} = \"{s}\""),
                None => format!("{key} is {}", a_type(item)),
            };
            let msg = match unit {
                Some(_) => format!("{what}: a matrix axis needs several values; {RANGE_EXPECTED}"),
                None => {
                    format!("{what}: {key} takes no ranges; expected a list such as {key} = [{}]", list_example(key))
                }
            };
            return Err(src.err(item.span(), msg));
        }
    };
    Ok(Axis { key: key.to_string(), values })
}

fn list_example(key: &str) -> &'static str {
    match key {
        "rw" => "\"randread\", \"randwrite\"",
        "sync" => "\"none\", \"dsync\"",
        "data" => "\"random\", \"zero\"",
        "engine" => "\"uring\", \"psync\"",
        "cpus" => "\"none\", \"spread\"",
        _ => "true, false",
    }
}

/// The unit a field's range endpoints are written in; None for fields that take no ranges.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Unit {
    Size,
    Duration,
    Count,
}

fn unit_of(key: &str) -> Option<Unit> {
    match key {
        "bs" | "align" | "offset" | "span" | "io_size" => Some(Unit::Size),
        "time" | "ramp" => Some(Unit::Duration),
        "qd" | "jobs" | "read" | "random" | "batch" | "seed" => Some(Unit::Count),
        _ => None,
    }
}

fn parse_in(unit: Unit, text: &str) -> Result<u64, String> {
    match unit {
        Unit::Size => parse_size(text),
        Unit::Duration => parse_duration(text).map(|d| d.as_nanos().min(u64::MAX as u128) as u64),
        Unit::Count => text.parse().map_err(|_| format!("'{text}' is not a whole number")),
    }
}

fn render(unit: Unit, v: u64) -> String {
    match unit {
        Unit::Size => fmt_size(v),
        Unit::Duration => fmt_duration(v, 0),
        Unit::Count => v.to_string(),
    }
}

/// The values of `A..B xF` or `A..B +S`, rendered in `unit`. The error says what is wrong.
fn expand_range(unit: Unit, text: &str) -> Result<Vec<String>, String> {
    let t = text.trim();
    let Some((a, rest)) = t.split_once("..") else {
        return Err("this is not a range".into());
    };
    let Some(pos) = rest.rfind(['x', '+']) else {
        return Err("the range has no step: add xF (geometric) or +S (arithmetic) after the end".into());
    };
    let (a, b, op, by) = (a.trim(), rest[..pos].trim(), &rest[pos..pos + 1], rest[pos + 1..].trim());
    let lo = parse_in(unit, a).map_err(|e| format!("start {e}"))?;
    let hi = parse_in(unit, b).map_err(|e| format!("end {e}"))?;
    if lo > hi {
        return Err(format!("the start {a} is above the end {b}"));
    }
    let mut values = Vec::new();
    let mut v = lo;
    if op == "x" {
        let f: u64 = by.parse().map_err(|_| format!("the factor '{by}' is not a whole number"))?;
        if f < 2 {
            return Err(format!("the factor {f} is below 2"));
        }
        if lo == 0 {
            return Err("a geometric range cannot start at 0".into());
        }
        loop {
            values.push(v);
            if values.len() > MAX_AXIS_VALUES {
                return Err(format!("it gives more than {MAX_AXIS_VALUES} values"));
            }
            match v.checked_mul(f) {
                Some(n) if n <= hi => v = n,
                _ => break,
            }
        }
    } else {
        let s = parse_in(unit, by).map_err(|e| format!("step {e}"))?;
        if s == 0 {
            return Err("the step is 0".into());
        }
        loop {
            values.push(v);
            if values.len() > MAX_AXIS_VALUES {
                return Err(format!("it gives more than {MAX_AXIS_VALUES} values"));
            }
            match v.checked_add(s) {
                Some(n) if n <= hi => v = n,
                _ => break,
            }
        }
    }
    Ok(values.into_iter().map(|v| render(unit, v)).collect())
}

fn first_duplicate(list: &[String]) -> Option<&String> {
    list.iter().enumerate().find(|(i, t)| list[..*i].contains(t)).map(|(_, t)| t)
}

/// How labels name each target: its file name, or the full paths when file names clash.
fn target_names(targets: &[String]) -> Vec<String> {
    let names: Vec<String> = targets
        .iter()
        .map(|t| Path::new(t).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default())
        .collect();
    let distinct = names.iter().collect::<HashSet<_>>().len() == names.len();
    if distinct && names.iter().all(|n| !n.is_empty()) {
        names
    } else {
        targets.to_vec()
    }
}

/// The label's [`store::slug`] ("point" when nothing is left), with `-2`, `-3`... where taken.
fn unique_slug(label: &str, taken: &mut HashSet<String>) -> String {
    let base = store::slug(label);
    let base = if base.is_empty() { "point".to_string() } else { base };
    let mut candidate = base.clone();
    let mut n = 2;
    while !taken.insert(candidate.clone()) {
        candidate = format!("{base}-{n}");
        n += 1;
    }
    candidate
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(text: &str) -> Plan {
        parse(text, "p.toml", &[]).unwrap_or_else(|e| panic!("{e}"))
    }

    fn err(text: &str) -> String {
        match parse(text, "p.toml", &[]) {
            Ok(p) => panic!("accepted, {} points", p.points.len()),
            Err(e) => {
                assert!(e.is_invalid(), "{e}");
                e.to_string()
            }
        }
    }

    /// Assert the error starts with `p.toml:LOC: ` and contains every one of `words`.
    fn assert_err(text: &str, loc: &str, words: &[&str]) {
        let e = err(text);
        assert!(e.starts_with(&format!("p.toml:{loc}: ")), "expected at {loc}: {e}");
        for w in words {
            assert!(e.contains(w), "expected '{w}' in: {e}");
        }
    }

    fn labels(p: &Plan) -> Vec<&str> {
        p.points.iter().map(|p| p.label.as_str()).collect()
    }

    fn range(unit: Unit, text: &str) -> Vec<String> {
        expand_range(unit, text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    const FULL: &str = r#"
name = "nvme qd sweep"
targets = ["/dev/nvme0n1"]
pause = "5s"

[defaults]
bs = "4k"
time = "30s"

[precondition]
rw = "write"
bs = "128k"
io_size = "2g"

[matrix]
qd = "1..64 x2"
read = "0..100 +50"

[[step]]
name = "random read"
rw = "randread"
[step.matrix]
qd = [1, 32]

[[step]]
name = "mixed"
rw = "randrw"
bs = 8192
"#;

    #[test]
    fn a_full_plan_expands_in_order_with_labels_and_specs() {
        let p = plan(FULL);
        assert_eq!((p.name.as_str(), p.together, p.repeat, p.pause_ns), ("nvme qd sweep", false, 1, 5_000_000_000));
        assert_eq!(p.targets, ["/dev/nvme0n1"]);
        assert_eq!(p.points.len(), 2 + 7 * 3);
        let l = labels(&p);
        assert_eq!(
            &l[..5],
            ["random read qd=1", "random read qd=32", "mixed qd=1 read=0", "mixed qd=1 read=50", "mixed qd=1 read=100"]
        );
        assert_eq!(l[22], "mixed qd=64 read=100");
        assert_eq!(p.points.iter().map(|p| p.index).collect::<Vec<_>>(), (1..=23).collect::<Vec<_>>());

        let first = &p.points[0];
        assert_eq!((first.step.as_str(), first.slug.as_str()), ("random read", "random-read-qd1"));
        assert_eq!((first.spec.qd, first.spec.read_pct, first.spec.random_pct), (1, 100, 100));
        assert_eq!(first.spec.bs[0].bytes, 4096);
        assert_eq!(first.spec.time_ns, Some(30_000_000_000));
        assert_eq!(first.targets, ["/dev/nvme0n1"]);
        assert_eq!(first.estimate_ns, Some(30_000_000_000));
        let f = |p: &Point| p.fields.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ");
        assert_eq!(f(first), "bs=4k time=30s rw=randread qd=1");

        let mixed = &p.points[9]; // qd=4 read=50
        assert_eq!(mixed.label, "mixed qd=4 read=50");
        assert_eq!((mixed.spec.qd, mixed.spec.read_pct, mixed.spec.random_pct), (4, 50, 100));
        assert_eq!(mixed.spec.bs[0].bytes, 8192);
        assert_eq!(f(mixed), "time=30s rw=randrw bs=8192 qd=4 read=50");
        assert_eq!(mixed.slug, "mixed-qd4-read50");

        let pre = p.precondition.as_ref().unwrap();
        assert_eq!((pre.label.as_str(), pre.index), ("precondition", 0));
        assert_eq!((pre.spec.read_pct, pre.spec.random_pct, pre.spec.bs[0].bytes), (0, 0, 128 << 10));
        assert_eq!((pre.spec.io_size_bytes, pre.spec.time_ns, pre.estimate_ns), (Some(2 << 30), None, None));
        assert_eq!(pre.targets, ["/dev/nvme0n1"]);
        // An untimed precondition makes the whole plan's length unknown.
        assert_eq!(p.estimate_ns(), None);
    }

    #[test]
    fn the_example_in_the_module_doc_is_a_valid_plan() {
        let doc: String = include_str!("plan.rs")
            .lines()
            .filter_map(|l| l.strip_prefix("//!"))
            .skip_while(|l| l.trim() != "```toml")
            .skip(1)
            .take_while(|l| l.trim() != "```")
            .map(|l| format!("{}\n", l.strip_prefix(' ').unwrap_or(l)))
            .collect();
        let p = plan(&doc);
        assert_eq!(p.name, "nvme qd sweep");
        assert_eq!(labels(&p)[..3], ["random read qd=1", "random read qd=32", "mixed qd=1 read=0 bs=4k"]);
        assert_eq!(p.points.len(), 2 + 7 * 3 * 2);
        let inline =
            plan("targets = [\"f\"]\nstep = [{ name = \"a\", qd = 2 }, { name = \"b\", matrix = { qd = [3, 4] } }]\n");
        assert_eq!(labels(&inline), ["a", "b qd=3", "b qd=4"]);
    }

    #[test]
    fn without_steps_the_defaults_and_matrix_make_one_unnamed_step() {
        let p =
            plan("targets = [\"f\"]\n[defaults]\nrw = \"randwrite\"\n[matrix]\nqd = [1, 4]\nbs = [\"4k\", 65536]\n");
        assert_eq!(labels(&p), ["qd=1 bs=4k", "qd=1 bs=65536", "qd=4 bs=4k", "qd=4 bs=65536"]);
        assert_eq!(p.points[0].step, "");
        assert_eq!(p.points[3].slug, "qd4-bs65536");
        assert_eq!((p.points[3].spec.qd, p.points[3].spec.bs[0].bytes, p.points[3].spec.read_pct), (4, 65536, 0));
        assert_eq!(p.name, "p");
        assert!(p.precondition.is_none());

        let p = plan("targets = [\"f\"]\n");
        assert_eq!(labels(&p), ["randread 4k qd1 x1"]);
        assert_eq!(p.points[0].slug, "randread-4k-qd1-x1");
        assert_eq!(p.points[0].spec, AccessSpec::default());
    }

    #[test]
    fn ranges_are_inclusive_and_in_the_unit_of_their_field() {
        assert_eq!(range(Unit::Count, "1..64 x2"), ["1", "2", "4", "8", "16", "32", "64"]);
        assert_eq!(range(Unit::Count, "1..100 x4"), ["1", "4", "16", "64"]);
        assert_eq!(range(Unit::Count, "0..100 +10").len(), 11);
        assert_eq!(range(Unit::Count, "0..100 +30"), ["0", "30", "60", "90"]);
        assert_eq!(range(Unit::Count, "5..5 +1"), ["5"]);
        assert_eq!(range(Unit::Count, " 1 .. 8x2 "), ["1", "2", "4", "8"]);
        let sizes = range(Unit::Size, "512..1m x2");
        assert_eq!(sizes.len(), 12);
        assert_eq!((sizes[0].as_str(), sizes[1].as_str(), sizes[11].as_str()), ("512", "1k", "1m"));
        assert_eq!(range(Unit::Size, "4k..16k +4k"), ["4k", "8k", "12k", "16k"]);
        assert_eq!(range(Unit::Size, "1536..4k +1536"), ["1536", "3k"]);
        assert_eq!(range(Unit::Duration, "10s..30s +10s"), ["10s", "20s", "30s"]);
        assert_eq!(range(Unit::Duration, "250ms..1s x2"), ["250ms", "500ms", "1s"]);
        assert_eq!(range(Unit::Duration, "0s..1.5s +750ms"), ["0s", "750ms", "1500ms"]);
        assert_eq!(range(Unit::Duration, "1us..3us +1us"), ["1us", "2us", "3us"]);

        // Through a plan: values are rendered back and parsed by the field.
        let p = plan("targets = [\"f\"]\n[matrix]\nbs = \"512..1m x2\"\ntime = \"1s..2s +1s\"\n");
        assert_eq!(p.points.len(), 24);
        assert_eq!(p.points[2].label, "bs=1k time=1s");
        assert_eq!((p.points[2].spec.bs[0].bytes, p.points[2].spec.time_ns), (1024, Some(1_000_000_000)));
        assert_eq!(p.points[23].spec.bs[0].bytes, 1 << 20);
        assert_eq!(p.points[23].slug, "bs1m-time2s");
    }

    #[test]
    fn one_target_after_another_or_all_together() {
        let text = "targets = [\"/dev/sdb\", \"/dev/sdc\"]\n[matrix]\nqd = [1, 8]\n";
        let p = plan(text);
        assert_eq!(labels(&p), ["qd=1 on sdb", "qd=8 on sdb", "qd=1 on sdc", "qd=8 on sdc"]);
        let t: Vec<&[String]> = p.points.iter().map(|p| &p.targets[..]).collect();
        assert_eq!(t, [["/dev/sdb"], ["/dev/sdb"], ["/dev/sdc"], ["/dev/sdc"]]);
        assert_eq!(p.points[3].slug, "qd8-on-sdc");

        let p = plan(&format!("together = true\n{text}"));
        assert_eq!(labels(&p), ["qd=1", "qd=8"]);
        assert!(p.points.iter().all(|p| p.targets == ["/dev/sdb", "/dev/sdc"]));

        // File names that clash: the full paths tell the targets apart.
        let p = plan("targets = [\"/mnt/a/t.dat\", \"/mnt/b/t.dat\"]\n");
        assert_eq!(p.points[1].label, "randread 4k qd1 x1 on /mnt/b/t.dat");
        assert_eq!(p.points[1].slug, "randread-4k-qd1-x1-on-mnt-b-t.dat");
    }

    #[test]
    fn repeats_are_innermost_and_numbered() {
        let p = plan(
            "targets = [\"f\"]\nrepeat = 3\n[[step]]\nname = \"seq\"\nrw = \"read\"\n[step.matrix]\nqd = [1, 2]\n",
        );
        assert_eq!(labels(&p), ["seq qd=1", "seq qd=1 #2", "seq qd=1 #3", "seq qd=2", "seq qd=2 #2", "seq qd=2 #3"]);
        assert_eq!(p.points[1].slug, "seq-qd1-2");
        assert_eq!(p.points[1].spec, p.points[0].spec);
        let slugs: HashSet<&str> = p.points.iter().map(|p| p.slug.as_str()).collect();
        assert_eq!(slugs.len(), 6);
        // Unnamed steps are numbered.
        let p = plan("targets = [\"f\"]\n[[step]]\nrw = \"read\"\n[[step]]\nrw = \"write\"\n");
        assert_eq!(labels(&p), ["step 1", "step 2"]);
    }

    #[test]
    fn command_line_targets_win() {
        let cli = vec!["/dev/sdx".to_string()];
        let p =
            parse("targets = [\"/dev/sdb\", \"/dev/sdc\"]\n[precondition]\nrw = \"write\"\n", "p.toml", &cli).unwrap();
        assert_eq!(p.targets, cli);
        assert_eq!(p.points.len(), 1);
        assert_eq!(p.points[0].targets, cli);
        assert_eq!(p.precondition.unwrap().targets, cli);
        let p = parse("", "dir/sweep.toml", &cli).unwrap();
        assert_eq!((p.name.as_str(), p.targets.len()), ("sweep", 1));
        let twice = vec!["a".to_string(), "a".to_string()];
        assert!(parse("", "p.toml", &twice).unwrap_err().to_string().contains("twice"));
    }

    #[test]
    fn the_estimate_sums_points_preconditions_and_pauses() {
        let text = "targets = [\"a\", \"b\"]\npause = \"2s\"\n[defaults]\ntime = \"10s\"\nramp = \"1s\"\n\
                    [precondition]\nrw = \"write\"\ntime = \"60s\"\n[matrix]\nqd = [1, 2, 4]\n";
        let p = plan(text);
        // 6 points of 11 s, 2 preconditions of 60 s, 8 runs so 7 pauses of 2 s.
        assert_eq!(p.points[0].estimate_ns, Some(11_000_000_000));
        assert_eq!(p.estimate_ns(), Some((6 * 11 + 2 * 60 + 7 * 2) * 1_000_000_000));
        let p = plan(&format!("together = true\n{text}"));
        // 3 points, 1 precondition, 3 pauses.
        assert_eq!(p.estimate_ns(), Some((3 * 11 + 60 + 3 * 2) * 1_000_000_000));
        // A point bounded only by io_size has no estimate.
        let p = plan("targets = [\"a\"]\n[matrix]\nio_size = [\"1g\", \"2g\"]\n");
        assert_eq!((p.points[0].estimate_ns, p.estimate_ns()), (None, None));
    }

    #[test]
    fn toml_syntax_errors_point_at_the_parser_span() {
        assert_err("name = \"x\"\nrepeat = \n", "2:10", &["invalid TOML", "expected"]);
        assert_err("targets = [\"a\"]\n[defaults]\nbs = \"4k\"\nbs = \"8k\"\n", "4:1", &["duplicate key", "expected"]);
    }

    #[test]
    fn unknown_keys_and_tables_are_named_with_the_allowed_ones() {
        assert_err(
            "targets = [\"a\"]\n  repeats = 2\n",
            "2:3",
            &["'repeats' is not a plan key", "expected one of name, targets"],
        );
        assert_err("targets = [\"a\"]\n[default]\nbs = \"4k\"\n", "2:2", &["'default'", "defaults, precondition"]);
        assert_err("targets = [\"a\"]\nbs = \"4k\"\n", "2:1", &["under [defaults]"]);
        assert_err("targets = [\"a\"]\n[defaults]\ndepth = 4\n", "3:1", &["'depth' is not an access-spec field", "qd"]);
        assert_err("[defaults]\nqd = 1\nrepeat = 2\n", "3:1", &["'repeat'", "before the first [table]"]);
        assert_err("[[step]]\nname = \"a\"\n  depht = 4\n", "3:3", &["'depht'", "qd", "name and matrix"]);
        assert_err("[matrix]\nqd = [1]\nfoo = [1]\n", "3:1", &["'foo' is not an access-spec field"]);
        assert_err("[precondition]\nname = \"x\"\n", "2:1", &["'name' is not an access-spec field"]);
    }

    #[test]
    fn wrong_types_point_at_the_value() {
        assert_err("targets = [\"a\"]\n[defaults]\nbs = [\"4k\"]\n", "3:6", &["bs is an array", "expected a string"]);
        assert_err("targets = [\"a\"]\n[defaults]\nread = 70.5\n", "3:8", &["a float"]);
        assert_err("targets = \"/dev/sdb\"\n", "1:11", &["targets is a string", "expected a list of paths"]);
        assert_err("targets = [\"a\", 1]\n", "1:17", &["integer"]);
        assert_err("targets = [\"a\", \"a\"]\n", "1:17", &["listed twice"]);
        assert_err("together = \"yes\"\n", "1:12", &["expected true or false"]);
        assert_err("name = 3\n", "1:8", &["name is an integer", "expected a string"]);
        assert_err("pause = 5\n", "1:9", &["expected a duration"]);
        assert_err("pause = \"5\"\n", "1:9", &["no unit", "5s"]);
        assert_err("defaults = 4\n", "1:12", &["expected a table"]);
        assert_err("targets = [\"a\"]\n[[step]]\nname = \"a\"\n[[step]]\nname = \"a\"\n", "5:8", &["comes earlier"]);
    }

    #[test]
    fn bad_ranges_say_what_was_expected() {
        let expected = r#"expected a range like "1..64 x2" or "0..100 +10", or a list"#;
        assert_err("[matrix]\nqd = \"64..1 x2\"\n", "2:6", &["start 64 is above the end 1", expected]);
        assert_err("[matrix]\nqd = \"1..64 x1\"\n", "2:6", &["factor 1 is below 2", expected]);
        assert_err("[matrix]\n\nqd = \"1..64 x1.5\"\n", "3:6", &["factor '1.5'"]);
        assert_err("[matrix]\nread = \"0..100 +0\"\n", "2:8", &["step is 0", expected]);
        assert_err("[matrix]\nseed = \"0..20000 +1\"\n", "2:8", &["more than 10000 values"]);
        assert_err("[matrix]\nqd = \"1..64\"\n", "2:6", &["no step"]);
        assert_err("[matrix]\nqd = \"4\"\n", "2:6", &["not a range", expected]);
        assert_err("[matrix]\nqd = 4\n", "2:6", &["qd is an integer", expected]);
        assert_err("[matrix]\nbs = \"512..1MB x2\"\n", "2:6", &["end '1MB' is ambiguous"]);
        assert_err("[matrix]\nqd = \"0..8 x2\"\n", "2:6", &["cannot start at 0"]);
        assert_err(
            "[matrix]\nrw = \"read..write x2\"\n",
            "2:6",
            &["rw takes no ranges", "expected a list such as rw = ["],
        );
        assert_err("[matrix]\ndirect = true\n", "2:10", &["direct takes no ranges", "[true, false]"]);
        // A range whose values the field refuses: at the range.
        assert_err("[matrix]\nread = \"50..200 +50\"\n", "2:8", &["gives 150", "outside 0..100"]);
    }

    #[test]
    fn values_the_fields_refuse_point_at_the_value() {
        assert_err("targets = [\"a\"]\n[defaults]\nqd = 0\n", "3:6", &["qd 0"]);
        assert_err("targets = [\"a\"]\n[defaults]\nbs = \"4KB\"\n", "3:6", &["'4KB' is ambiguous", "4KiB"]);
        assert_err("[[step]]\nrw = \"randomread\"\n", "2:6", &["'randomread'", "randread"]);
        assert_err("[matrix]\nqd = [1, 0, 4]\n", "2:10", &["qd 0"]);
        assert_err("[precondition]\ntime = 30\n", "2:8", &["no unit", "30s"]);
        assert_err("[matrix]\nqd = [1, 1]\n", "2:10", &["lists 1 twice"]);
        assert_err("[matrix]\nqd = [1, [2]]\n", "2:10", &["an array"]);
    }

    #[test]
    fn combinations_point_at_the_step_header_or_the_defaults() {
        let e = err("targets = [\"a\"]\n\n  [defaults]\nengine = \"psync\"\n[matrix]\nqd = [1, 8]\n");
        assert!(e.starts_with("p.toml:3:3: point 'qd=8': qd 8 with engine psync"), "{e}");
        assert_err(
            "targets = [\"a\"]\n[[step]]\nname = \"ok\"\n[[step]]\nname = \"psync\"\nengine = \"psync\"\n[step.matrix]\nqd = [1, 4]\n",
            "4:1",
            &["point 'psync qd=4'", "jobs 4"],
        );
        assert_err("targets = [\"a\"]\n[defaults]\nengine = \"psync\"\nqd = 2\n", "2:1", &["[defaults]: qd 2"]);
        assert_err("[precondition]\nengine = \"psync\"\nqd = 2\n", "1:1", &["[precondition]: qd 2"]);
        assert_err(
            "targets = [\"a\"]\n[defaults]\nengine = \"psync\"\n[[step]]\nname = \"deep\"\nqd = 2\n",
            "4:1",
            &["step 'deep': qd 2"],
        );
    }

    #[test]
    fn repeat_negative_numbers_empty_axes_and_no_targets_are_refused() {
        assert_err("targets = [\"a\"]\nrepeat = 0\n", "2:10", &["repeat = 0", "expected a whole number of 1 or more"]);
        assert_err("targets = [\"a\"]\nrepeat = -2\n", "2:10", &["negative"]);
        assert_err("targets = [\"a\"]\n[defaults]\nqd = -1\n", "3:6", &["qd = -1: negative numbers are not allowed"]);
        assert_err("[matrix]\nqd = [4, -1]\n", "2:10", &["negative"]);
        assert_err("[matrix]\nqd = []\n", "2:6", &["without values", "expected a list of at least one value"]);
        assert_err(
            "name = \"x\"\n",
            "1:1",
            &["the plan names no targets: add targets = [...] or give them on the command line"],
        );
        assert_err("targets = []\n", "1:11", &["names no targets"]);
        assert_err(
            "targets = [\"a\"]\nrepeat = 1000\n[matrix]\nseed = \"1..1000 +1\"\n",
            "2:10",
            &["more than 100000 points"],
        );
    }

    #[test]
    fn locations_count_characters_not_bytes() {
        assert_err("name = \"ü\"; oops\n", "1:11", &["invalid TOML"]);
        let src = Src { text: "ab\ncü", file: "f" };
        assert_eq!(src.at(&Some(6..6)), "f:2:3");
        assert_eq!(src.at(&None), "f:1:1");
    }

    #[test]
    fn slugs_are_file_name_safe() {
        let mut taken = HashSet::new();
        assert_eq!(unique_slug("a b", &mut taken), "a-b");
        assert_eq!(unique_slug("a/b", &mut taken), "a-b-2");
        assert_eq!(unique_slug("%%", &mut taken), "point");
    }

    #[test]
    fn load_reads_the_file_and_names_the_plan_after_it() {
        let dir = std::env::temp_dir().join(format!("drivelab-plan-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("qd-sweep.toml");
        std::fs::write(&path, "targets = [\"f\"]\n[matrix]\nqd = \"1..4 x2\"\n").unwrap();
        let p = load(&path, &[]).unwrap();
        assert_eq!((p.name.as_str(), p.points.len()), ("qd-sweep", 3));
        std::fs::write(&path, b"targets = [\"f\"]\nname = \"\xff\"\n").unwrap();
        let e = load(&path, &[]).unwrap_err().to_string();
        assert!(e.contains("qd-sweep.toml:2:9: ") && e.contains("UTF-8"), "{e}");
        let e = load(&dir.join("missing.toml"), &[]).unwrap_err();
        assert!(e.is_invalid() && e.to_string().contains("no such file"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
