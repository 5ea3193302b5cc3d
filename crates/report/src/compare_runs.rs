//! Who is compared: each results directory's label, where it is, and the targets it measured
//! with their device models (from the manifest's target facts).
//!
//! A comparison is about drives, but a results directory is named by its folder: without the
//! targets and models a reader cannot tell what `Δ results/sync-20261123-190135 vs ...` is
//! about. So every compare format (text, Markdown, CSV, JSON, HTML) lists the runs first, and
//! rows and columns name runs by a short label: `--label NAME` per directory, in order, or
//! A, B, C... — which keeps Δ rows short ("Δ B vs A").

use drivelab_engine::Error;
use drivelab_lab::results::{Manifest, Setup, TargetFacts};
use serde::Serialize;

use crate::model::{Cell, Column, Grid, Unit};

/// One results directory in a comparison.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunInfo {
    /// How rows and columns name the run.
    pub label: String,
    /// The results directory as given.
    pub dir: String,
    pub targets: Vec<TargetShown>,
}

/// A target of a run and the device model behind it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TargetShown {
    pub path: String,
    /// The device's model (or its kernel name); "—" and why where there is no device.
    pub model: String,
}

/// The `i`-th default label: A, B ... Z, AA, AB ...
pub fn letter(i: usize) -> String {
    let mut n = i + 1;
    let mut s = Vec::new();
    while n > 0 {
        n -= 1;
        s.push(b'A' + (n % 26) as u8);
        n /= 26;
    }
    s.reverse();
    String::from_utf8(s).expect("ASCII letters")
}

/// The labels of `n` runs: the `--label`s given (one per directory, in order; each non-empty
/// and its own), or A, B, C... when none were. Refusals name the fix (exit 2).
pub fn labels(given: &[String], n: usize) -> Result<Vec<String>, Error> {
    if given.is_empty() {
        return Ok((0..n).map(letter).collect());
    }
    if given.len() != n {
        return Err(Error::invalid(format!(
            "{} --label for {n} results directories: give one --label NAME per directory, in the same order \
             (or none, to call them {})",
            given.len(),
            (0..n.min(3)).map(letter).collect::<Vec<_>>().join(", ")
        )));
    }
    for (i, l) in given.iter().enumerate() {
        if l.trim().is_empty() {
            return Err(Error::invalid(format!(
                "--label number {} is empty: a label names its run in every row; give it a name",
                i + 1
            )));
        }
        if given[..i].contains(l) {
            return Err(Error::invalid(format!(
                "--label {l} is given twice: give each results directory its own label"
            )));
        }
    }
    Ok(given.to_vec())
}

/// What the reader knows a target by: the device's model, else its kernel name; for a file
/// with no disk behind it its filesystem; for `null`, that it is none.
fn model(t: &TargetFacts) -> String {
    match (&t.device, &t.file) {
        (Some(d), _) => d.model.clone().unwrap_or_else(|| d.disk.clone()),
        (None, Some(f)) => format!("— ({} file)", f.filesystem),
        (None, None) if t.path == "null" => "— (null target)".into(),
        (None, None) => "—".into(),
    }
}

impl RunInfo {
    /// A run labelled `label`, from directory `dir` with manifest `m`: its targets as the
    /// manifest's target facts describe them (schema 1 has none: the plan's targets, no model).
    /// Under MPI, every rank's targets, named as its rows are (`r1@node2:/dev/sdb`).
    pub fn new(label: &str, dir: &str, m: &Manifest) -> RunInfo {
        let mut targets: Vec<TargetShown> = match &m.ranks {
            Some(r) => r
                .ranks
                .iter()
                .flat_map(|k| {
                    k.targets.iter().map(|t| TargetShown {
                        path: drivelab_lab::ranks::merge::rank_target(k.rank, &k.host.hostname, &t.path),
                        model: model(t),
                    })
                })
                .collect(),
            None => m
                .targets
                .iter()
                .map(|t| TargetShown {
                    path: t.name.as_ref().map_or_else(|| t.path.clone(), |n| format!("{n} ({})", t.path)),
                    model: model(t),
                })
                .collect(),
        };
        if targets.is_empty() {
            if let Setup::Plan(p) = &m.setup {
                targets = p.targets.iter().map(|t| TargetShown { path: t.clone(), model: "—".into() }).collect();
            }
        }
        RunInfo { label: label.to_string(), dir: dir.to_string(), targets }
    }
}

/// The title of the runs grid and of its section in a comparison.
pub const RUNS_COMPARED: &str = "Runs compared";

/// The runs as a table: a row per target (a run without targets gets one row), the label and
/// directory on each so the CSV form stands alone and its labels match the other blocks'.
pub fn runs_grid(runs: &[RunInfo]) -> Grid {
    let columns = ["run", "results directory", "target", "model"].map(|c| Column::new(c, Unit::Count)).to_vec();
    let mut rows = Vec::new();
    for r in runs {
        let label = &r.label;
        let targets: Vec<(String, String)> = match r.targets.as_slice() {
            [] => vec![("—".into(), "—".into())],
            ts => ts.iter().map(|t| (t.path.clone(), t.model.clone())).collect(),
        };
        for (path, model) in targets {
            rows.push(vec![Cell::text(label), Cell::text(&r.dir), Cell::text(path), Cell::text(model)]);
        }
    }
    Grid { title: RUNS_COMPARED.into(), columns, rows }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{manifest, point};
    use drivelab_lab::sysinfo::{DeviceFacts, FileFacts};

    #[test]
    fn labels_are_the_ones_given_one_per_directory_or_letters() {
        assert_eq!(labels(&[], 3).unwrap(), ["A", "B", "C"]);
        assert_eq!(letter(25), "Z");
        assert_eq!(letter(26), "AA");
        let given = vec!["nvme".to_string(), "sata".to_string()];
        assert_eq!(labels(&given, 2).unwrap(), given);
        let e = labels(&given[..1], 2).unwrap_err();
        assert!(e.is_invalid(), "exit 2");
        assert!(
            e.to_string().contains("1 --label for 2 results directories: give one --label NAME per directory"),
            "{e}"
        );
        let e = labels(&["x".into(), "x".into()], 2).unwrap_err().to_string();
        assert!(e.contains("--label x is given twice"), "{e}");
        assert!(labels(&["x".into(), " ".into()], 2).unwrap_err().to_string().contains("--label number 2 is empty"));
    }

    #[test]
    fn each_target_is_shown_with_its_device_model() {
        let points = vec![point("p", "", &[], &[("/dev/sdb", 1.0)])];
        let mut m = manifest("plan", &points);
        let device = |model: Option<&str>| {
            let mut d: DeviceFacts = serde_json::from_str(r#"{"disk": "sdb"}"#).expect("device facts");
            d.model = model.map(str::to_string);
            d
        };
        let file = FileFacts {
            filesystem: "tmpfs".into(),
            mount_point: "/dev/shm".into(),
            source: "tmpfs".into(),
            mount_options: String::new(),
        };
        m.targets = vec![
            TargetFacts {
                path: "/dev/sdb".into(),
                device: Some(device(Some("Samsung SSD 870"))),
                file: None,
                new_file_bytes: None,
                name: None,
            },
            TargetFacts {
                path: "/dev/sdc".into(),
                device: Some(device(None)),
                file: None,
                new_file_bytes: None,
                name: None,
            },
            TargetFacts { path: "/dev/shm/x".into(), device: None, file: Some(file), new_file_bytes: None, name: None },
            TargetFacts { path: "null".into(), device: None, file: None, new_file_bytes: None, name: None },
        ];
        let r = RunInfo::new("nvme", "results/plan-1", &m);
        let models: Vec<&str> = r.targets.iter().map(|t| t.model.as_str()).collect();
        assert_eq!(models, ["Samsung SSD 870", "sdb", "— (tmpfs file)", "— (null target)"]);
        let g = runs_grid(&[r, RunInfo::new("B", "results/plan-2", &manifest("plan", &points))]);
        assert_eq!(g.rows.len(), 5, "a row per target");
        assert_eq!(g.rows[0][..3], [Cell::text("nvme"), Cell::text("results/plan-1"), Cell::text("/dev/sdb")]);
        // Without target facts (schema 1): the plan's targets.
        assert_eq!(g.rows[4][2..], [Cell::text("/dev/sdb"), Cell::text("—")]);
    }
}
