//! `drivelab compare A B [C...]`: results of the same suite or plan from different devices or
//! runs, side by side, with deltas against the first, and points present in one but not another
//! called out. It reads results directories only.

use std::path::Path;

use drivelab_engine::Error;
use drivelab_lab::runner::{self, RunManifest};
use drivelab_lab::store;
use drivelab_report::compare::{self, Run};

use crate::args::CompareArgs;
use crate::run_cmd::Outcome;

pub fn run(args: &CompareArgs) -> Result<Outcome, Error> {
    if !["text", "md", "markdown", "csv"].contains(&args.format.as_str()) {
        return Err(Error::invalid(format!("--format '{}': use text, md or csv", args.format)));
    }
    let mut runs = Vec::new();
    for d in &args.dirs {
        let dir = Path::new(d);
        if !dir.join("run.json").is_file() {
            return Err(Error::invalid(format!(
                "{d} is not a results directory (no run.json): give directories made by drivelab plan or suite"
            )));
        }
        let manifest: RunManifest = store::read_json(&dir.join("run.json"))?;
        runs.push(Run { name: d.clone(), manifest, points: runner::load_points(dir)? });
    }
    if let Some(out) = &args.output {
        if Path::new(out).exists() {
            return Err(Error::invalid(format!(
                "-o {out} exists: drivelab never overwrites files; remove it or choose another name"
            )));
        }
        let page = drivelab_report::html::compare_report(&compare::compare(&runs)?);
        store::write_new(Path::new(out), page.as_bytes())?;
        println!("wrote {out}");
        return Ok(Outcome::Done);
    }
    print!("{}", compare::render(&runs, &args.format)?);
    Ok(Outcome::Done)
}
