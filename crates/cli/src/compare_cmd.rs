//! `drivelab compare A B [C...]`: results of the same kind from different devices or runs, side
//! by side, with deltas against the first. Plans and suites are compared table by table (points
//! present in one but not another called out); qos, act and run results by their headline
//! figures. Runs are named by `--label` (else A, B, C...) and listed first with their
//! directories, targets and device models. It reads results directories, and fio's JSON output
//! (`results::open`) as results of their own: a fio run beside a drivelab run of the same job.

use std::path::Path;

use drivelab_engine::Error;
use drivelab_lab::results::{self, Kind, Results};
use drivelab_lab::store;
use drivelab_report::compare::{self, Run};
use drivelab_report::compare_runs;
use drivelab_report::{compare_figures, export, Format};

use crate::args::CompareArgs;
use crate::output::stdout_text;
use crate::run_cmd::Outcome;

fn check_output(out: &str) -> Result<(), Error> {
    store::check_new_file("-o", out)
}

pub fn run(args: &CompareArgs) -> Result<Outcome, Error> {
    // Labels first: a wrong count is refused before any directory is read.
    let labels = compare_runs::labels(&args.labels, args.dirs.len())?;
    if let Some(out) = &args.output {
        check_output(out)?;
    }
    let mut saved: Vec<(String, Results)> = Vec::new();
    for (d, label) in args.dirs.iter().zip(labels) {
        saved.push((label, results::open_keeping(Path::new(d), results::Keep::Figures)?));
    }
    // Headline figures for searches and for runs of one point each; a run beside a plan (a fio
    // output of one job beside a drivelab plan) is compared point by point, as plans are.
    let figures = match saved[0].1.manifest.kind {
        Kind::Qos | Kind::Act => true,
        Kind::Run => saved.iter().all(|(_, r)| r.manifest.kind == Kind::Run),
        Kind::Plan | Kind::Suite(_) => false,
    };
    if figures {
        let report = compare_figures::compare(&saved)?;
        let (format, out) = match &args.output {
            Some(out) => (Format::Html, Some(out)),
            None => (args.format, None),
        };
        let text = export::export_text(format, &report)?;
        match out {
            Some(out) => {
                store::write_new(Path::new(out), text.as_bytes())?;
                stdout_text(&format!("wrote {out}\n"));
            }
            None => stdout_text(&text),
        }
        return Ok(Outcome::Done);
    }
    let runs: Vec<Run> = saved
        .into_iter()
        .zip(&args.dirs)
        .map(|((label, r), dir)| Run { label, dir: dir.clone(), manifest: r.manifest, points: r.points })
        .collect();
    if let Some(out) = &args.output {
        let page = drivelab_report::export::html::page(&drivelab_report::compare_page::page_report(&runs)?);
        store::write_new(Path::new(out), page.as_bytes())?;
        stdout_text(&format!("wrote {out}\n"));
        return Ok(Outcome::Done);
    }
    stdout_text(&compare::render(&runs, args.format)?);
    Ok(Outcome::Done)
}
