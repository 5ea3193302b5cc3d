//! Expanding a plan: the matrix product of each step into points, then targets and repeats,
//! with unique labels and slugs.

use std::collections::HashSet;
use std::path::Path;

use drivelab_engine::options as fields;
use drivelab_engine::spec::AccessSpec;
use drivelab_engine::Error;

use super::errors::{Span, Src};
use super::matrix::{Axis, Matrix};
use super::tables::Step;
use super::{Point, MAX_POINTS};
use crate::store;

pub(super) struct Proto {
    pub(super) label: String,
    pub(super) step: String,
    pub(super) anchor: Span,
    pub(super) fields: Vec<(String, String)>,
    pub(super) spec: AccessSpec,
}

/// Points before targets and repeats, in step and matrix order.
pub(super) fn protos(
    src: &Src,
    steps: &[Step],
    top_matrix: Option<&Matrix>,
    defaults: &[(String, String)],
) -> Result<Vec<Proto>, Error> {
    let mut protos: Vec<Proto> = Vec::new();
    for step in steps {
        let own = step.matrix.as_ref().or(top_matrix);
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
        if let Err(e) = fields::partial_from_pairs(pairs(&base)) {
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
    Ok(protos)
}

/// The target groups points run on, each with the name labels give it (empty when the targets
/// run together).
pub(super) fn groups(targets: &[String], together: bool) -> Vec<(Vec<String>, String)> {
    if together {
        vec![(targets.to_vec(), String::new())]
    } else {
        let names = target_names(targets);
        targets.iter().zip(names).map(|(t, n)| (vec![t.clone()], n)).collect()
    }
}

/// Every point, in run order: each group gets every proto, repeats innermost.
pub(super) fn points(
    src: &Src,
    protos: &[Proto],
    groups: &[(Vec<String>, String)],
    repeat: u32,
    capacity: usize,
) -> Result<Vec<Point>, Error> {
    let mut points = Vec::with_capacity(capacity);
    let mut labels = HashSet::new();
    let mut slugs = HashSet::new();
    for (group, suffix) in groups {
        for p in protos {
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
                    concurrent: Vec::new(),
                    fio: None,
                    names: Vec::new(),
                });
            }
        }
    }
    Ok(points)
}

pub(crate) fn pairs(fields: &[(String, String)]) -> impl Iterator<Item = (&str, &str)> {
    fields.iter().map(|(k, v)| (k.as_str(), v.as_str()))
}

pub(super) fn estimate(spec: &AccessSpec) -> Option<u64> {
    spec.time_ns.map(|t| t.saturating_add(spec.ramp_ns))
}

/// Keep the last occurrence of every field (however spelt: fio's `iodepth` in a step replaces
/// `qd` of `[defaults]`), in the order of those last occurrences: applying the result gives the
/// same spec as applying all of `all` in order.
pub(super) fn resolve(all: Vec<(String, String)>) -> Vec<(String, String)> {
    let field = |k: &str| fields::Field::from_key(k).map(fields::Field::canonical);
    let same = |a: &str, b: &str| a == b || field(a).is_some_and(|f| Some(f) == field(b));
    let mut out = Vec::with_capacity(all.len());
    for (i, (k, v)) in all.iter().enumerate() {
        if !all[i + 1..].iter().any(|(later, _)| same(later, k)) {
            out.push((k.clone(), v.clone()));
        }
    }
    out
}

pub(super) fn first_duplicate(list: &[String]) -> Option<&String> {
    list.iter().enumerate().find(|(i, t)| list[..*i].contains(t)).map(|(_, t)| t)
}

/// How labels name each target: its file name, or the full paths when file names clash.
pub(super) fn target_names(targets: &[String]) -> Vec<String> {
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
pub(crate) fn unique_slug(label: &str, taken: &mut HashSet<String>) -> String {
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
