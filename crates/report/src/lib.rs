//! drivelab's report layer: what saved results look like to a reader.
//!
//! Measuring and reporting meet only at the results directory (`run.json` and
//! `points/NNNN-<slug>.json`, see `drivelab_lab::runner`): this crate reads saved points and
//! turns them into tables. It never runs an I/O, so a report can be made, remade or reshaped
//! long after the drive is gone.

pub mod charts;
pub mod compare;
mod grid;
pub mod html;
pub mod png;
pub mod suite_tables;
pub mod tables;

/// What `report` and `compare` print: one format enum for every exporter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Aligned text for a terminal.
    Text,
    Markdown,
    Csv,
    /// The tables as data.
    Json,
}

pub use tables::{build, default_tables, Dir, Key, Metric, Table, TableSpec};

#[cfg(test)]
mod test_support;
