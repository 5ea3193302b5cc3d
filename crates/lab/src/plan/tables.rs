//! Reading a plan's tables: names, target lists, access-spec fields (`[defaults]`,
//! `[precondition]`, a step's own keys) and `[[step]]`, each value checked as it is read.

use drivelab_engine::options::{self as fields, Field};
use drivelab_engine::spec::AccessSpec;
use drivelab_engine::Error;
use toml_edit::{Item, TableLike, Value};

use super::errors::{a_type, a_value_type, key_span, Span, Src};
use super::matrix::{matrix, Matrix};
use super::PLAN_KEYS;

pub(super) struct Step {
    /// Empty for the implicit step.
    pub(super) name: String,
    /// Where refusals of the step's combined fields point: its header (or [defaults]).
    pub(super) anchor: Span,
    pub(super) fields: Vec<(String, String)>,
    pub(super) matrix: Option<Matrix>,
}

pub(super) fn non_empty_string(src: &Src, key: &str, item: &Item, example: &str) -> Result<String, Error> {
    match item.as_str() {
        Some(s) if !s.trim().is_empty() => Ok(s.to_string()),
        Some(_) => Err(src.err(item.span(), format!("{key} is empty; expected a name such as {example}"))),
        None => Err(src.err(item.span(), format!("{key} is {}; expected a string such as {example}", a_type(item)))),
    }
}

pub(super) fn string_list(src: &Src, key: &str, item: &Item) -> Result<Vec<String>, Error> {
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
pub(super) fn check_field_name(src: &Src, table: &dyn TableLike, key: &str, also: &[&str]) -> Result<(), Error> {
    if fields::is_key(key) {
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
pub(super) fn scalar(src: &Src, key: &str, v: &Value) -> Result<String, Error> {
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
pub(super) fn check_value(src: &Src, key: &str, value: &str, span: Span) -> Result<(), Error> {
    fields::partial_from_pairs([(key, value)]).map(|_| ()).map_err(|e| src.err(span, e))
}

/// Two keys of one table that set the same field (fio's and drivelab's spelling: `iodepth` and
/// `qd`) would leave which one counts to their order: refused, pointing at the second. fio's
/// `rwmixread` with `rwmixwrite` is allowed when they agree (checked with the point's `rw`).
pub(super) fn check_one_spelling(src: &Src, table: &dyn TableLike, also: &[&str]) -> Result<(), Error> {
    let keys: Vec<&str> = table.iter().map(|(k, _)| k).filter(|k| !also.contains(k)).collect();
    for (i, key) in keys.iter().enumerate() {
        let Some(field) = Field::from_key(key) else { continue };
        let mix = |k: &str| matches!(Field::from_key(k), Some(Field::As("rwmixread" | "rwmixwrite")));
        if let Some(first) = keys[..i]
            .iter()
            .find(|k| Field::from_key(k).map(Field::canonical) == Some(field.canonical()) && !(mix(k) && mix(key)))
        {
            return Err(src.err(
                key_span(table, key),
                format!("{key} and {first} both set {}; expected only one of them", field.canonical()),
            ));
        }
    }
    Ok(())
}

/// The access-spec fields of a table, each value checked on its own.
pub(super) fn spec_fields(src: &Src, what: &str, item: &Item) -> Result<Vec<(String, String)>, Error> {
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
pub(super) fn table_fields(src: &Src, table: &dyn TableLike, also: &[&str]) -> Result<Vec<(String, String)>, Error> {
    let mut out = Vec::new();
    for (key, _) in table.iter() {
        if !also.contains(&key) {
            check_field_name(src, table, key, also)?;
        }
    }
    check_one_spelling(src, table, also)?;
    for (key, value) in table.iter() {
        if also.contains(&key) {
            continue;
        }
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
    let written: Vec<(&str, &str)> = out.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    fields::check_fio_shares(&written).map_err(|e| src.err(key_span(table, "rwmixwrite"), e))?;
    Ok(out)
}

pub(super) fn steps(src: &Src, item: &Item) -> Result<Vec<Step>, Error> {
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
