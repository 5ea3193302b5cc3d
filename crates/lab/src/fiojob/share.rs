//! Targets given on the command line (`drivelab run JOB.fio TARGET...`) for a job file whose jobs
//! name different files (`filename=raicer` in two jobs, `filename=verifier` in a third): fio
//! runs those on separate files, so one job's writes or punched holes never touch another's
//! data. With as many targets as the file names files, each file is one target, in order of
//! first appearance; with one target, each file gets its own part of it (equal, aligned to
//! 1 MiB when parts are that large), so the jobs stay as apart as on their own files. Otherwise
//! (and for jobs with fio's default per-job files) every job runs on every target given.

use drivelab_engine::units::fmt_size;

use super::notice::Notice;
use super::options::Job;

/// Where a job runs among the targets given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// On every target given.
    All,
    /// On the given target of this index.
    Target(usize),
    /// On part `index` of `of` of the one target given.
    Part { index: usize, of: usize },
}

/// The distinct file lists the jobs name with `filename`, in order of first appearance
/// (jobs of the null engine or with fio's per-job default files aside).
pub fn files<'a>(jobs: impl IntoIterator<Item = &'a Job>) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::new();
    for j in jobs.into_iter().filter(|j| !j.null && !j.file_per_clone && !j.targets.is_empty()) {
        if !out.contains(&j.targets) {
            out.push(j.targets.clone());
        }
    }
    out
}

/// Where `job` runs, given `given` targets and the file's `files`.
pub fn place(job: &Job, files: &[Vec<String>], given: usize) -> Place {
    let Some(index) = files.iter().position(|f| *f == job.targets) else { return Place::All };
    if job.null || job.file_per_clone || files.len() < 2 {
        Place::All
    } else if given == files.len() {
        Place::Target(index)
    } else if given == 1 {
        Place::Part { index, of: files.len() }
    } else {
        Place::All
    }
}

/// The length of each of `of` parts of a target of `size` bytes (0: too small to share).
pub fn part_len(size: u64, of: usize) -> u64 {
    let each = size / of.max(1) as u64;
    let align = if each >= 1 << 20 { 1 << 20 } else { 4096 };
    each / align * align
}

/// Put a job whose spec has its own region (offset, span) into its part; or why not.
pub fn into_part(
    name: &str,
    target: &str,
    size: u64,
    index: usize,
    of: usize,
    spec: &mut drivelab_engine::spec::AccessSpec,
) -> Result<(), String> {
    let (offset, span) = (spec.offset_bytes, spec.span_bytes);
    let len = part_len(size, of);
    if len == 0 || offset >= len {
        return Err(format!(
            "[{name}]: the job file names {of} files and one target was given, so each gets 1/{of} of \
             {target} ({} each): too small for this job{}; give a larger target, or {of} targets",
            fmt_size(len),
            if offset > 0 { format!(" at offset {offset}") } else { String::new() },
        ));
    }
    spec.offset_bytes = index as u64 * len + offset;
    spec.span_bytes = Some(span.unwrap_or(u64::MAX).min(len - offset));
    Ok(())
}

/// What the user is told when the files share one target, or map onto several.
pub fn notice(files: &[Vec<String>], given: &[String], size: Option<u64>) -> Option<Notice> {
    if files.len() < 2 {
        return None;
    }
    let names: Vec<String> = files.iter().map(|f| f.join(":")).collect();
    if given.len() == files.len() {
        return Some(Notice::FilesOnTargets { pairs: names.into_iter().zip(given.iter().cloned()).collect() });
    }
    if given.len() != 1 {
        return None;
    }
    let part_bytes = part_len(size?, files.len());
    Some(Notice::FilesShareTarget { names, part_bytes, target: given[0].clone() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(targets: &[&str]) -> Job {
        Job { name: "j".into(), line: 1, targets: targets.iter().map(|t| t.to_string()).collect(), ..Job::default() }
    }

    #[test]
    fn distinct_files_get_their_own_target_or_part() {
        let (a, b, c) = (job(&["raicer"]), job(&["raicer"]), job(&["verifier"]));
        let files = files([&a, &b, &c]);
        assert_eq!(files, vec![vec!["raicer".to_string()], vec!["verifier".to_string()]]);
        assert_eq!(
            (place(&a, &files, 1), place(&b, &files, 1)),
            (Place::Part { index: 0, of: 2 }, Place::Part { index: 0, of: 2 })
        );
        assert_eq!(place(&c, &files, 1), Place::Part { index: 1, of: 2 });
        assert_eq!(place(&c, &files, 2), Place::Target(1));
        assert_eq!(place(&c, &files, 3), Place::All);
        let one = files_of(&[&a, &b]);
        assert_eq!(place(&a, &one, 1), Place::All, "one file: the target is it");
        let mut own = job(&["x.0.0"]);
        own.file_per_clone = true;
        assert_eq!(place(&own, &files_of(&[&own, &c]), 1), Place::All, "fio's default files stay shared");
    }

    fn files_of(jobs: &[&Job]) -> Vec<Vec<String>> {
        files(jobs.iter().copied())
    }

    #[test]
    fn parts_are_aligned_and_hold_the_jobs_region() {
        assert_eq!(part_len(4 << 20, 2), 2 << 20);
        assert_eq!(part_len((4 << 20) + 12345, 3), 1 << 20);
        assert_eq!(part_len(40960, 3), 12288);
        let mut spec =
            drivelab_engine::spec::AccessSpec { offset_bytes: 4096, span_bytes: Some(999 << 30), ..Default::default() };
        into_part("j", "t", 4 << 20, 1, 2, &mut spec).unwrap();
        assert_eq!((spec.offset_bytes, spec.span_bytes), ((2 << 20) + 4096, Some((2 << 20) - 4096)));
        let e = into_part("j", "t", 4096, 1, 2, &mut Default::default()).unwrap_err();
        assert!(e.contains("2 targets"), "{e}");
        let n = notice(&[vec!["a".into()], vec!["b".into()]], &["t".into()], Some(4 << 20)).unwrap().to_string();
        assert!(n.contains("a at 0") && n.contains("b at 2"), "{n}");
    }
}
