//! `drivelab report DIR...`: the tables of saved results, for the terminal, Markdown or CSV.
//! It reads results directories only; it never measures.

use std::path::Path;

use drivelab_engine::Error;
use drivelab_lab::runner::{self, RunManifest};
use drivelab_lab::store;
use drivelab_report::suite_tables;

use crate::args::ReportArgs;

/// The tables of one results directory, as text.
pub fn render(dir: &Path, format: &str) -> Result<String, Error> {
    let manifest: RunManifest = store::read_json(&dir.join("run.json"))?;
    let points = runner::load_points(dir)?;
    let mut out = String::new();
    for t in suite_tables::tables(&manifest.kind, &points) {
        out += &match format {
            "md" | "markdown" => t.markdown(),
            "csv" => t.csv(),
            _ => t.text(),
        };
        out.push('\n');
    }
    if out.is_empty() {
        out = format!("{}: no finished points yet\n", dir.display());
    }
    Ok(out)
}

pub fn print_tables(dir: &Path) -> Result<(), Error> {
    print!("\n{}", render(dir, "text")?);
    Ok(())
}

pub fn run(args: &ReportArgs) -> Result<crate::run_cmd::Outcome, Error> {
    if !["text", "md", "markdown", "csv"].contains(&args.format.as_str()) {
        return Err(Error::invalid(format!("--format '{}': use text, md or csv", args.format)));
    }
    for d in &args.dirs {
        let dir = Path::new(d);
        if !dir.join("run.json").is_file() {
            return Err(Error::invalid(format!(
                "{d} is not a results directory (no run.json): give a directory made by drivelab plan or suite"
            )));
        }
        if args.dirs.len() > 1 && args.format != "csv" {
            println!("# {d}\n");
        }
        print!("{}", render(dir, &args.format)?);
    }
    Ok(crate::run_cmd::Outcome::Done)
}
