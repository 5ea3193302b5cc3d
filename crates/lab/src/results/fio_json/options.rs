//! A fio job's options (its `[global]` ones, then its own) as a drivelab access spec, the fields
//! behind it and the targets it ran on, as far as they map; what does not map is named.
//!
//! The spec is what the job-file reader makes of the same options (`lab::fiojob`, through the
//! one option table): fio's defaults (`rw=read`, `bs=4k`, `iodepth=1`, buffered, psync), then
//! the options in order, so a fio result imported and the same job run by drivelab have the same
//! spec. Options are taken one at a time: one that drivelab does not run is named in
//! `untranslated` (with why), never fatal, since the result is fio's and stands without it.

use drivelab_engine::options::{self, split_filename};
use drivelab_engine::spec::AccessSpec;

use super::doc::Options;
use crate::fiojob;

/// What a job ran, in drivelab's words.
#[derive(Clone, Debug)]
pub struct Workload {
    /// The options given that set the spec, as given (fio's spelling).
    pub fields: Vec<(String, String)>,
    pub spec: AccessSpec,
    /// Where it ran: `null` for fio's null engine, else its files.
    pub targets: Vec<String>,
    /// fio's ioengine as fio names it (`psync`, fio's default, when not given).
    pub engine: String,
    /// `key=value (why)` of each option given that drivelab's spec does not hold.
    pub untranslated: Vec<String>,
}

/// The workload of job `jobname` (its `clone`-th job of that name in its group, for fio's own
/// file names).
pub fn workload(global: &Options, job: &Options, jobname: &str, clone: usize) -> Workload {
    let all: Vec<&(String, String)> = global.0.iter().chain(&job.0).collect();
    let last = |key: &str| all.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
    let engine = last("ioengine").unwrap_or("psync").trim().to_string();
    // fio applies rwmixread/rwmixwrite to the mix of the final rw, wherever they were given.
    let is_mix = |k: &str| k == "rwmixread" || k == "rwmixwrite";
    let in_order: Vec<&&(String, String)> =
        all.iter().filter(|(k, _)| !is_mix(k)).chain(all.iter().filter(|(k, _)| is_mix(k))).collect();
    // fio's null engine is drivelab's null target, not an engine.
    let fields = in_order
        .iter()
        .filter(|(k, v)| options::by_fio(k).is_some_and(|o| o.in_own()) && !(k == "ioengine" && v.trim() == "null"))
        .map(|(k, v)| (k.clone(), v.trim().to_string()))
        .collect();
    // Files and names say where fio ran, not what: the result's targets keep them.
    let mut kept: Vec<(String, String)> = in_order
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "filename" | "directory" | "name"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let mut untranslated = Vec::new();
    // An option the reader refuses is named and left out, and the rest read again; a refusal of
    // the job as a whole (options that do not go together) leaves out the last option given.
    let spec = loop {
        match fiojob::job_spec(jobname, &kept) {
            Ok(spec) => break spec,
            Err((at, why)) => {
                let Some(i) = at.filter(|&i| i < kept.len()).or(kept.len().checked_sub(1)) else {
                    break AccessSpec::default();
                };
                let (k, v) = kept.remove(i);
                untranslated.push(if why.starts_with(&format!("{k}=")) {
                    why
                } else {
                    format!("{k}={} ({why})", v.trim())
                });
            }
        }
    };
    let targets = targets(&engine, last("filename"), last("directory"), jobname, clone);
    Workload { fields, spec, targets, engine, untranslated }
}

/// Where a job ran: `null`, its `filename` list (under `directory`), or the file fio names
/// itself (`jobname.N.0`).
fn targets(engine: &str, filename: Option<&str>, directory: Option<&str>, jobname: &str, clone: usize) -> Vec<String> {
    if engine == "null" {
        return vec!["null".into()];
    }
    let names = match filename {
        Some(f) => split_filename(f).unwrap_or_else(|_| vec![f.to_string()]),
        None => vec![format!("{jobname}.{clone}.0")],
    };
    names
        .into_iter()
        .map(|n| match directory {
            Some(d) if !n.starts_with('/') => format!("{}/{n}", d.trim_end_matches('/')),
            _ => n,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use drivelab_engine::spec::{EngineKind, SyncMode};

    fn opts(pairs: &[(&str, &str)]) -> Options {
        Options(pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect())
    }

    #[test]
    fn a_job_is_fios_defaults_then_its_global_then_its_own_options() {
        let global = opts(&[("ioengine", "io_uring"), ("bs", "4k"), ("rwmixread", "70"), ("size", "64m")]);
        let w = workload(&global, &opts(&[("rw", "randrw"), ("iodepth", "8"), ("direct", "1")]), "a", 0);
        let s = &w.spec;
        assert_eq!((s.read_pct, s.random_pct, s.qd, s.jobs, s.direct), (70, 100, 8, 1, true));
        assert_eq!((s.engine, s.span_bytes, s.io_size_bytes), (EngineKind::Uring, Some(64 << 20), Some(64 << 20)));
        assert_eq!(w.targets, ["a.0.0"], "fio names the file itself");
        let keys: Vec<&str> = w.fields.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["ioengine", "bs", "rw", "iodepth", "direct", "rwmixread"], "the mix after the rw");
        assert!(w.untranslated.is_empty(), "{:?}", w.untranslated);

        let w = workload(&opts(&[]), &opts(&[]), "b", 2);
        let s = &w.spec;
        assert_eq!(
            (s.read_pct, s.random_pct, s.direct, s.engine),
            (100, 0, false, EngineKind::Psync),
            "fio's defaults"
        );
        assert_eq!((w.engine.as_str(), w.targets.as_slice()), ("psync", ["b.2.0".to_string()].as_slice()));
    }

    #[test]
    fn options_translate_as_a_job_files_and_what_drivelab_does_not_run_is_named() {
        let w = workload(
            &opts(&[("ioengine", "null"), ("rwmixread", "70")]),
            &opts(&[("rw", "randread:8"), ("bs", "4k,64k"), ("rate", "10m"), ("runtime", "2"), ("exec_prerun", "ls")]),
            "j",
            0,
        );
        assert_eq!(w.targets, ["null"]);
        assert_eq!(w.spec.time_ns, Some(2_000_000_000));
        // What a job file's reader runs, the import reads the same way (one translation).
        assert_eq!(w.spec.random_every_ios, 8, "fio's rw=WORD:N");
        assert_eq!(w.spec.bs_write.as_ref().map(|b| b[0].bytes), Some(65536), "fio's bs=READ,WRITE");
        assert!(w.spec.rate.is_some(), "fio's rate");
        let said = w.untranslated.join("; ");
        for key in [
            "rwmixread=70: fio applies it only to a mixed workload",
            "exec_prerun=ls: option 'exec_prerun' is not supported",
        ] {
            assert!(said.contains(key), "{key}: {said}");
        }
        assert_eq!(w.untranslated.len(), 2, "{said}");
        assert_eq!(w.spec.read_pct, 100, "rwmixread left alone for a read-only rw");
        let w = workload(&opts(&[]), &opts(&[("filename", "/dev/a:/dev/b"), ("fsync", "4")]), "j", 0);
        assert_eq!(w.targets, ["/dev/a", "/dev/b"]);
        assert_eq!(w.spec.sync, SyncMode::Fsync { every: 4 });
    }
}
