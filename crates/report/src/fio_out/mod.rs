//! fio's output formats written from drivelab's results (`drivelab fio --output-format=...`,
//! `drivelab report DIR --format fio-json`): a program, script or plotter written for fio's
//! output reads drivelab's unchanged.
//!
//! The shape is fio 3.3x's; the figures are drivelab's measurement in fio's units.
//!
//! - [`model`]: saved results as fio's job entries (groups, `group_reporting`, options).
//! - [`figures`]: a result's figures in fio's terms, shared by every format.
//! - [`json`] (json, json+ with [`plat`]'s bins), [`normal`], [`terse`]: the formats.
//! - [`jw`]: an ordered JSON writer in fio's layout; [`text`]: fio's number formatting.

mod figures;
mod json;
mod jw;
mod model;
mod normal;
mod plat;
mod terse;
#[cfg(test)]
mod tests;
mod text;

use drivelab_engine::Error;
use drivelab_lab::results::Results;

/// One of fio's `--output-format` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FioFormat {
    /// fio's text block per job (the default).
    Normal,
    /// fio's JSON document.
    Json,
    /// fio's JSON with each latency histogram's bins.
    JsonPlus,
    /// fio's semicolon-separated line per job, version 3.
    Terse,
}

impl FioFormat {
    /// fio's names, in the order fio lists them.
    pub const NAMES: [(&'static str, FioFormat); 4] = [
        ("normal", FioFormat::Normal),
        ("json", FioFormat::Json),
        ("json+", FioFormat::JsonPlus),
        ("terse", FioFormat::Terse),
    ];

    /// `--output-format=LIST` as fio reads it: a comma list of names (`json,normal`).
    pub fn parse_list(text: &str) -> Result<Vec<FioFormat>, Error> {
        let mut out = Vec::new();
        for word in text.split(',').map(str::trim) {
            let f = FioFormat::NAMES.iter().find(|(n, _)| *n == word).map(|(_, f)| *f).ok_or_else(|| {
                Error::invalid(format!(
                    "--output-format={text}: '{word}' is not one of fio's formats; expected normal, json, json+ or terse \
                     (or a comma list of them)"
                ))
            })?;
            if !out.contains(&f) {
                out.push(f);
            }
        }
        Ok(out)
    }
}

/// What fio would print for `results` in `format`.
pub fn render(results: &Results, format: FioFormat) -> Result<String, Error> {
    let m = model::build(results)?;
    Ok(match format {
        FioFormat::Normal => normal::render(&m),
        FioFormat::Json => json::render(&m, false),
        FioFormat::JsonPlus => json::render(&m, true),
        FioFormat::Terse => terse::render(&m),
    })
}

/// What fio writes on stdout (or into its `--output` file) before its jobs' report: its
/// warnings about the jobs as it reads them, in every format; with the normal output its job
/// lines ([`job_lines`]); then, in every format, its note for each clone of a synchronous job
/// asked for a deeper queue.
pub fn before_report(jobs: &[drivelab_lab::fiojob::JobLine], normal: bool) -> String {
    let mut out = String::new();
    for j in jobs {
        if j.banner.says.sprandom_sets_lfsr {
            out.push_str("fio: sprandom sets random_generator=lfsr\n");
        }
        if j.banner.says.sprandom_sets_norandommap {
            out.push_str("fio: sprandom sets norandommap=1\n");
        }
        if j.banner.says.writers_overlap {
            out.push_str(
                "fio: multiple writers may overwrite blocks that belong to other jobs. This can cause verification \
                 failures.\n",
            );
        }
        if j.banner.says.verify_never_starts {
            out.push_str("fio: verification read phase will never start because write phase uses all of runtime\n");
        }
    }
    if normal {
        out.push_str(&job_lines(jobs));
    }
    for j in jobs.iter().filter(|j| j.banner.says.depth_capped) {
        for _ in 0..j.clones {
            out.push_str(
                "note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will be capped at 1\n",
            );
        }
    }
    out
}

/// What fio's normal output says before its jobs run (stdout, or its `--output` file): each
/// job's line (`NAME: (g=G): rw=RW, bs=(R) MIN-MAX, (W) ..., (T) ..., ioengine=E, iodepth=N`,
/// `...` after it for its clones), fio's version, `Starting N processes` (threads when the job
/// says `thread`), and `NAME: Laying out IO file (1 file / NMiB)` for each file a job makes
/// (`Laying out IO files (N files / total NMiB)` for a job's several).
pub fn job_lines(jobs: &[drivelab_lab::fiojob::JobLine]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let bs = |(lo, hi): (u64, u64)| format!("{}-{}", text::num2str(lo, 4, true, "B"), text::num2str(hi, 4, true, "B"));
    for j in jobs {
        let b = &j.banner;
        let _ = writeln!(
            out,
            "{}: (g={}): rw={}, bs=(R) {}, (W) {}, (T) {}, ioengine={}, iodepth={}",
            j.name,
            j.group,
            b.rw,
            bs(b.bs[0]),
            bs(b.bs[1]),
            bs(b.bs[2]),
            b.engine,
            b.iodepth
        );
        if j.clones > 1 {
            out.push_str("...\n");
        }
    }
    let count = |thread: bool| jobs.iter().filter(|j| j.banner.thread == thread).map(|j| j.clones).sum::<u64>();
    let (threads, processes) = (count(true), count(false));
    let _ = writeln!(out, "{}", json::FIO_VERSION);
    out.push_str("Starting ");
    if threads > 0 {
        let _ = write!(out, "{threads} thread{}", if threads > 1 { "s" } else { "" });
    }
    if processes > 0 {
        if threads > 0 {
            out.push_str(" and ");
        }
        let _ = write!(out, "{processes} process{}", if processes > 1 { "es" } else { "" });
    }
    out.push('\n');
    for j in jobs {
        for set in &j.new_files {
            let total = (j.file_bytes.saturating_mul(set.len() as u64)) >> 20;
            let _ = match set.len() {
                1 => writeln!(out, "{}: Laying out IO file (1 file / {total}MiB)", j.name),
                n => writeln!(out, "{}: Laying out IO files ({n} files / total {total}MiB)", j.name),
            };
        }
    }
    out
}

/// What fio writes on stderr for the jobs of `results` that failed (nothing for a clean run):
/// per verify failure kept, fio's `verify: bad ...` line (at most 8 per job); per I/O error, the
/// operation, errno and first offset; then fio's closing line for the job
/// (`fio: pid=0, err=N/file:drivelab, func=..., error=...`). Control characters in names are
/// shown escaped.
pub fn error_lines(results: &Results) -> Result<String, Error> {
    use std::fmt::Write;
    let m = model::build(results)?;
    let clean = |t: &str| -> String {
        t.chars().flat_map(|c| if c.is_control() { c.escape_default().collect::<Vec<_>>() } else { vec![c] }).collect()
    };
    let mut out = String::new();
    for e in &m.entries {
        let r = e.result;
        let errno = figures::job_error(r);
        if errno == 0 {
            continue;
        }
        let checks = r.kinds.verify.iter().flat_map(|v| std::iter::once(&v.inline).chain(v.after.as_ref()));
        for c in checks.flat_map(|c| &c.first).take(8) {
            let at =
                format!("at file {} offset {}, length {}", clean(&c.target), c.offset_bytes, c.expected.unit_bytes);
            let _ = match &c.found {
                None => writeln!(out, "verify: bad magic header {at}"),
                Some(h) if h.unit_bytes != c.expected.unit_bytes => {
                    writeln!(out, "verify: bad header length {}, wanted {} {at}", h.unit_bytes, c.expected.unit_bytes)
                }
                Some(h) if h.offset_bytes != c.expected.offset_bytes => {
                    writeln!(out, "verify: bad header offset {}, wanted {} {at}", h.offset_bytes, c.offset_bytes)
                }
                Some(_) => writeln!(out, "verify: bad checksum {at} ({} bits differ)", c.bits),
            };
        }
        for x in r.errors.iter().filter(|x| !x.continued) {
            let _ = writeln!(
                out,
                "fio: io_u error on file {}: {}: {} offset={}, count={}",
                clean(&x.target),
                figures::strerror(if x.errno == 0 { 5 } else { x.errno }),
                clean(&x.op),
                x.first_offset_bytes,
                x.count
            );
        }
        let func = if r.errors.is_empty() { "verify" } else { "io_u error" };
        let _ = writeln!(
            out,
            "fio: pid=0, err={errno}/file:drivelab, func={func}, error={} (job {})",
            figures::strerror(errno),
            clean(&e.name)
        );
    }
    Ok(out)
}

impl FioFormat {
    /// fio's name of the format.
    pub fn name(self) -> &'static str {
        FioFormat::NAMES.iter().find(|(_, f)| *f == self).map_or("normal", |(n, _)| n)
    }
}
