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
    let tables = suite_tables::tables(&manifest.kind, &points);
    if format == "json" {
        let mut text = serde_json::to_string_pretty(&tables).map_err(|e| Error::io("encoding JSON", e.into()))?;
        text.push('\n');
        return Ok(text);
    }
    let mut out = String::new();
    for t in tables {
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

/// The HTML report of one results directory.
pub fn html(dir: &Path) -> Result<String, Error> {
    let manifest: RunManifest = store::read_json(&dir.join("run.json"))?;
    let points = runner::load_points(dir)?;
    Ok(drivelab_report::html::report(&manifest, &points))
}

/// Write (or refresh) `DIR/report.html`: a view derived from the saved points, replaced whole.
pub fn write_dir_report(dir: &Path) -> Result<(), Error> {
    let text = html(dir)?;
    let tmp = dir.join(".report.html.tmp");
    std::fs::write(&tmp, text).map_err(|e| Error::io(format!("writing {}", tmp.display()), e))?;
    std::fs::rename(&tmp, dir.join("report.html"))
        .map_err(|e| Error::io(format!("saving {}/report.html", dir.display()), e))
}

pub fn run(args: &ReportArgs) -> Result<crate::run_cmd::Outcome, Error> {
    if let Some(png_dir) = &args.png {
        if args.dirs.len() != 1 {
            return Err(Error::invalid("--png writes the charts of one results directory: give exactly one DIR"));
        }
        let page = html(Path::new(&args.dirs[0]))?;
        let written = drivelab_report::png::write_chart_pngs(&page, Path::new(png_dir), 2.0).map_err(Error::invalid)?;
        println!("wrote {} chart(s) to {png_dir}", written.len());
        if args.output.is_none() {
            return Ok(crate::run_cmd::Outcome::Done);
        }
    }
    if let Some(out) = &args.output {
        if args.dirs.len() != 1 {
            return Err(Error::invalid("-o writes the report of one results directory: give exactly one DIR"));
        }
        let dir = Path::new(&args.dirs[0]);
        if !dir.join("run.json").is_file() {
            return Err(Error::invalid(format!("{} is not a results directory (no run.json)", args.dirs[0])));
        }
        if Path::new(out).exists() {
            return Err(Error::invalid(format!(
                "-o {out} exists: drivelab never overwrites files; remove it or choose another name"
            )));
        }
        store::write_new(Path::new(out), html(dir)?.as_bytes())?;
        println!("wrote {out}");
        return Ok(crate::run_cmd::Outcome::Done);
    }
    if !["text", "md", "markdown", "csv", "json"].contains(&args.format.as_str()) {
        return Err(Error::invalid(format!("--format '{}': use text, md, csv or json", args.format)));
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
