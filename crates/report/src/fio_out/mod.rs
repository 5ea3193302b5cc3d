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

impl FioFormat {
    /// fio's name of the format.
    pub fn name(self) -> &'static str {
        FioFormat::NAMES.iter().find(|(_, f)| *f == self).map_or("normal", |(n, _)| n)
    }
}
