//! `drivelab compare A B [C...]`: results of the same kind from different devices or runs, side
//! by side, with deltas against the first, and points present in one but not another called
//! out. It reads results directories only.

use std::path::Path;

use drivelab_engine::Error;
use drivelab_lab::{results, store};
use drivelab_report::compare::{self, Run};

use crate::args::CompareArgs;
use crate::output::stdout_text;
use crate::run_cmd::Outcome;

pub fn run(args: &CompareArgs) -> Result<Outcome, Error> {
    let mut runs = Vec::new();
    for d in &args.dirs {
        let saved = results::load(Path::new(d))?;
        runs.push(Run { name: d.clone(), manifest: saved.manifest, points: saved.points });
    }
    if let Some(out) = &args.output {
        if Path::new(out).exists() {
            return Err(Error::invalid(format!(
                "-o {out} exists: drivelab never overwrites files; remove it or choose another name"
            )));
        }
        let page = drivelab_report::html::compare_report(&compare::compare(&runs)?);
        store::write_new(Path::new(out), page.as_bytes())?;
        stdout_text(&format!("wrote {out}\n"));
        return Ok(Outcome::Done);
    }
    stdout_text(&compare::render(&runs, args.format.into())?);
    Ok(Outcome::Done)
}
