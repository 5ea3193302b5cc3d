//! `drivelab report DIR...`: saved results of any kind, for the terminal, Markdown, CSV (one
//! tidy row per point, probe or slice; `--tables` the tables), JSON, HTML or PNG, or
//! (`--format csv --series`) every second of every point, probe or stream as CSV. It reads results directories, and fio's JSON output (`results::open`) as results of
//! their own; it never measures.

use std::path::Path;

use drivelab_engine::Error;
use drivelab_lab::results::{self, Keep, Results};
use drivelab_lab::store;
use drivelab_report::Format;

use crate::args::ReportArgs;
use crate::output::stdout_text;
use crate::run_cmd::Outcome;

/// One results directory in a single-document format.
pub fn render(saved: &Results, format: Format) -> Result<String, Error> {
    Ok(drivelab_report::render(saved, format)?)
}

pub fn print_tables(dir: &Path) -> Result<(), Error> {
    // The text exporter wraps the report's prose (its typed warnings, never a table row) and
    // fits its tables to the width main set from stdout (drivelab_report::fit).
    let report = drivelab_report::views::build(&drivelab_report::views::open(dir)?);
    let text = drivelab_report::export::export_text(Format::Text, &report)?;
    stdout_text(&format!("\n{text}"));
    Ok(())
}

/// Write (or refresh) `DIR/report.html`: a view derived from the saved records, replaced whole.
pub fn write_dir_report(dir: &Path) -> Result<(), Error> {
    if !crate::mpi::writes() {
        return Ok(());
    }
    let saved = drivelab_report::views::open(dir)?;
    // Replaced through the opened directory: whatever is at the name (a symlink included) is
    // replaced, never written through; streamed, never held whole.
    store::Dir::open(dir)?.replace_with("report.html", &mut |w| drivelab_report::write_html_page(&saved, w))
}

/// The end of a search (qos, act): its answer line, `DIR/report.html`, and how the process ends
/// (an interrupted search exits 130, one stopped by an I/O error 1, one with no passing load 3).
pub fn end_search(dir: &Path, answer: &str, outcome: &drivelab_lab::results::Outcome) -> Result<Outcome, Error> {
    stdout_text(&format!("{answer}\n"));
    write_dir_report(dir)?;
    stdout_text(&format!("report: {}\n", dir.join("report.html").display()));
    Ok(if outcome.interrupted {
        Outcome::Interrupted
    } else if outcome.errored {
        Outcome::StoppedByError
    } else if outcome.best.is_none() {
        Outcome::NotMet
    } else {
        Outcome::Done
    })
}

pub fn run(args: &ReportArgs) -> Result<Outcome, Error> {
    if args.series && args.format != Format::Csv {
        return Err(Error::invalid(format!(
            "--series writes every second as CSV: add --format csv (not --format {})",
            args.format.name()
        )));
    }
    if args.tables && args.format != Format::Csv {
        return Err(Error::invalid(format!(
            "--tables writes the tables as CSV: add --format csv (not --format {}); the other formats show the tables already",
            args.format.name()
        )));
    }
    // Where the output goes is checked before anything is read or drawn.
    if let Some(out) = &args.output {
        store::check_new_file("-o", out)?;
    }
    if let Some(png_dir) = &args.png {
        if png_dir.is_empty() {
            return Err(Error::invalid("--png needs a directory: --png DIR"));
        }
        if let Some(why) = drivelab_report::png::unavailable() {
            return Err(Error::invalid(format!("--png: {why}")));
        }
    }
    if let Some(fio) = args.fio_format {
        if args.format != Format::Text {
            return Err(Error::invalid(format!(
                "--fio-format {} replaces --format {}: give one of them",
                fio.name(),
                args.format.name()
            )));
        }
        if args.dirs.len() != 1 {
            return Err(Error::invalid(
                "--fio-format writes fio's output of one results directory: give exactly one DIR",
            ));
        }
    }
    // fio's formats read the raw measurements (its json+ bins); `--series` every point's
    // seconds; the reports the figures, and the details of the points they draw.
    let open = |d: &String| {
        let path = Path::new(d);
        match (args.fio_format, args.series) {
            (Some(_), _) => results::open_keeping(path, Keep::Everything),
            (None, true) => results::open_keeping(path, Keep::Figures),
            (None, false) => drivelab_report::views::open(path),
        }
    };
    let all: Vec<Results> = args.dirs.iter().map(open).collect::<Result<_, _>>()?;
    if let Some(fio) = args.fio_format {
        stdout_text(&drivelab_report::fio_out::render(&all[0], fio)?);
        return Ok(Outcome::Done);
    }
    if args.series {
        // One CSV block per directory (a header each), separated by an empty line.
        let blocks: Vec<String> = all.iter().map(drivelab_report::series_csv::csv).collect();
        stdout_text(&blocks.join("\n"));
        return Ok(Outcome::Done);
    }
    if let Some(png_dir) = &args.png {
        if all.len() != 1 {
            return Err(Error::invalid("--png writes the charts of one results directory: give exactly one DIR"));
        }
        let pngs = drivelab_report::chart_pngs(&all[0], 2.0)?;
        let written = drivelab_report::png::write_all_new(Path::new(png_dir), pngs)?;
        stdout_text(&format!("wrote {} chart(s) to {png_dir}\n", written.len()));
        if args.output.is_none() {
            return Ok(Outcome::Done);
        }
    }
    if let Some(out) = &args.output {
        if all.len() != 1 {
            return Err(Error::invalid("-o writes the report of one results directory: give exactly one DIR"));
        }
        store::check_new_file("-o", out)?;
        // The HTML report, unless another format is asked for (`--format md -o r.md` wrote HTML
        // into r.md before): then that format's document, as it would go to stdout.
        match args.format {
            Format::Text | Format::Html => {
                store::write_new_with(Path::new(out), &mut |w| drivelab_report::write_html_page(&all[0], w))?
            }
            // JSON streamed into the file as it is made.
            Format::Json => store::write_new_with(Path::new(out), &mut |w| {
                drivelab_report::write_json(&all[0], w).map_err(std::io::Error::other)
            })?,
            _ => {
                let text = document(args, &all)?;
                let bytes = match drivelab_engine::printable::printable(&text) {
                    std::borrow::Cow::Borrowed(_) => text.into_bytes(),
                    std::borrow::Cow::Owned(escaped) => escaped.into_bytes(),
                };
                store::write_new(Path::new(out), &bytes)?
            }
        };
        stdout_text(&format!("wrote {out}\n"));
        return Ok(Outcome::Done);
    }
    // JSON and HTML streamed out as they are made: a report of 100,000 points is never held whole.
    match (args.format, &all[..]) {
        (Format::Json, [one]) => {
            crate::output::stdout_stream(|w| drivelab_report::write_json(one, w))?;
            return Ok(Outcome::Done);
        }
        (Format::Html, [one]) => {
            crate::output::stdout_stream(|w| drivelab_report::write_html_page(one, w))
                .map_err(|e| Error::io("writing the HTML report", e))?;
            return Ok(Outcome::Done);
        }
        _ => {}
    }
    stdout_text(&document(args, &all)?);
    Ok(Outcome::Done)
}

/// The report of `all` in `args.format` (not HTML's `-o`): the tidy CSV of every directory in
/// one table, each directory's tables as CSV, or each directory's report.
fn document(args: &ReportArgs, all: &[Results]) -> Result<String, Error> {
    let format: Format = args.format;
    if format == Format::Csv && !args.tables {
        // The tidy table: every directory's rows in one, each naming its directory.
        return Ok(drivelab_report::tidy_csv::csv_of(&all.iter().collect::<Vec<_>>()));
    }
    if format == Format::Csv {
        // The tables of each directory, separated by an empty line.
        let blocks = all.iter().map(drivelab_report::tables_csv).collect::<Result<Vec<String>, _>>()?;
        return Ok(blocks.join("\n"));
    }
    if let [one] = all {
        // One directory: its document as it is (no copy of a large one).
        return render(one, format);
    }
    let mut text = String::new();
    for (d, saved) in args.dirs.iter().zip(all) {
        if all.len() > 1 {
            text += &format!("# {d}\n\n");
        }
        text += &render(saved, format)?;
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use drivelab_report::model::{Cell, Column, Grid, Report, Section, Unit};

    #[test]
    fn warnings_are_wrapped_from_the_reports_list_and_table_rows_never() {
        // A row whose label reads like a warning (a point so named) was wrapped as one: the
        // lines were told apart by their "warning: " prefix.
        let label = "warning: a point labelled like a warning, longer than the screen is wide".to_string();
        let mut section = Section::new("s");
        section.tables.push(
            Grid {
                title: "t".into(),
                columns: vec![Column::new("point", Unit::Count), Column::new("IOPS", Unit::Iops)],
                rows: vec![vec![Cell::Text(label.clone()), Cell::Num(1.0)]],
            }
            .into(),
        );
        let warning = "the CPU, not the target, was the limit of every point of this plan, so its figures are the \
                       host's, not the drive's, whatever the drive could have done";
        let report = Report {
            title: "r".into(),
            answer: Vec::new(),
            facts: Vec::new(),
            warnings: vec![warning.into()],
            notes: Vec::new(),
            sections: vec![section],
        };
        // At the default width, 80: the row (79 columns) fits and is kept whole.
        let text = drivelab_report::export::export_text(drivelab_report::Format::Text, &report).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.iter().any(|l| l.starts_with(&label)), "the row whole: {text}");
        let first = lines.iter().position(|l| l.starts_with("warning: the CPU")).expect("the warning");
        assert!(lines[first].chars().count() <= 80 && lines[first + 1].starts_with("    "), "wrapped: {text}");
        let said: String =
            lines[first..].iter().take_while(|l| !l.is_empty()).map(|l| l.trim()).collect::<Vec<_>>().join(" ");
        assert_eq!(said, format!("warning: {warning}"), "nothing lost");
    }
}
