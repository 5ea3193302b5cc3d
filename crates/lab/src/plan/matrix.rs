//! A plan's `[matrix]`: its axes, and the ranges (`1..64 x2`, `0..100 +50`) that expand into
//! an axis's values in the unit of their field.

use drivelab_engine::options::{self as fields, Bare, Field, Kind};
use drivelab_engine::units::{fmt_duration, fmt_size, parse_duration, parse_size, ValueError};
use drivelab_engine::Error;
use toml_edit::{Item, Value};

use super::errors::{a_type, Span, Src};
use super::tables::{check_field_name, check_one_spelling, check_value, scalar};
use super::{MAX_AXIS_VALUES, RANGE_EXPECTED};

pub(super) struct Axis {
    pub(super) key: String,
    pub(super) values: Vec<String>,
}

pub(super) struct Matrix {
    pub(super) axes: Vec<Axis>,
    pub(super) span: Span,
}

pub(super) fn matrix(src: &Src, item: &Item) -> Result<Matrix, Error> {
    let Some(table) = item.as_table_like() else {
        return Err(src.err(
            item.span(),
            format!("matrix is {}; expected a table of axes such as [matrix] qd = [1, 32]", a_type(item)),
        ));
    };
    let mut axes = Vec::new();
    for (key, _) in table.iter() {
        check_field_name(src, table, key, &[])?;
    }
    check_one_spelling(src, table, &[])?;
    for (key, value) in table.iter() {
        axes.push(axis(src, key, value)?);
    }
    Ok(Matrix { axes, span: item.span() })
}

pub(super) fn axis(src: &Src, key: &str, item: &Item) -> Result<Axis, Error> {
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
                fields::partial_from_pairs([(key, v.as_str())])
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

pub(super) fn list_example(key: &str) -> &'static str {
    match key {
        "rw" | "readwrite" => "\"randread\", \"randwrite\"",
        "sync" => "\"none\", \"dsync\"",
        "data" => "\"random\", \"zero\"",
        "engine" => "\"uring\", \"psync\"",
        "ioengine" => "\"io_uring\", \"psync\"",
        "cpus" => "\"none\", \"spread\"",
        _ => "true, false",
    }
}

/// The unit a field's range endpoints are written in; None for fields that take no ranges.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Unit {
    Size,
    Duration,
    /// A duration where a bare number is seconds (fio's `runtime`).
    Seconds,
    Count,
}

/// The unit of `key`'s ranges: drivelab's field's, or for fio's spelling its field's.
pub(super) fn unit_of(key: &str) -> Option<Unit> {
    let field = Field::from_key(key)?;
    // fio's spelling of a time whose bare numbers are seconds (`runtime`).
    if let Field::As(name) = field {
        if fields::by_fio(name).is_some_and(|o| o.kind == Kind::Time(Bare::Seconds)) {
            return Some(Unit::Seconds);
        }
    }
    match field.canonical().name() {
        "bs" | "align" | "offset" | "span" | "io_size" => Some(Unit::Size),
        "time" | "ramp" => Some(Unit::Duration),
        "qd" | "jobs" | "read" | "random" | "batch" | "seed" => Some(Unit::Count),
        _ => None,
    }
}

pub(super) fn parse_in(unit: Unit, text: &str) -> Result<u64, ValueError> {
    let nanos = |d: std::time::Duration| d.as_nanos().min(u64::MAX as u128) as u64;
    match unit {
        Unit::Size => parse_size(text),
        Unit::Duration => parse_duration(text).map(nanos),
        Unit::Seconds => match text.trim().parse::<u64>() {
            Ok(s) => s.checked_mul(1_000_000_000).ok_or_else(|| ValueError::TooLong(text.to_string())),
            Err(_) => parse_duration(text).map(nanos),
        },
        Unit::Count => text.parse().map_err(|_| ValueError::NotWhole(text.to_string())),
    }
}

pub(super) fn render(unit: Unit, v: u64) -> String {
    match unit {
        Unit::Size => fmt_size(v),
        Unit::Duration | Unit::Seconds => fmt_duration(v, 0),
        Unit::Count => v.to_string(),
    }
}

/// Whole numbers as a command line gives an axis (`suite iometer --dql 1,2,4..32x2`): values and
/// ranges of a matrix axis (`A..B xF`, `A..B +S`), separated by commas, each value once, in the
/// order given. `1,2,4..32 x2` is 1 2 4 8 16 32. The error says what is wrong.
pub fn count_list(text: &str) -> Result<Vec<u64>, String> {
    let mut values: Vec<u64> = Vec::new();
    for item in text.split(',') {
        let item = item.trim();
        if item.is_empty() {
            return Err("an empty item between commas".into());
        }
        let more = if item.contains("..") {
            expand_range(Unit::Count, item).map_err(|e| format!("{item}: {e}"))?
        } else {
            vec![item.to_string()]
        };
        for v in more {
            let n: u64 = parse_in(Unit::Count, &v)?;
            if values.contains(&n) {
                return Err(format!("{n} is given twice; give each value once"));
            }
            values.push(n);
            if values.len() > MAX_AXIS_VALUES {
                return Err(format!("it gives more than {MAX_AXIS_VALUES} values"));
            }
        }
    }
    Ok(values)
}

/// The values of `A..B xF` or `A..B +S`, rendered in `unit`. The error says what is wrong.
pub(super) fn expand_range(unit: Unit, text: &str) -> Result<Vec<String>, String> {
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
