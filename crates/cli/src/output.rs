//! Saving a run's result: JSON written whole or not at all (`lab::store`), never over an
//! existing file, checked before the run so nothing is measured in vain.

use std::path::Path;

use drivelab_engine::result::RunResult;
use drivelab_engine::Error;

/// Refuse an output path that exists (checked before the run, so nothing is measured in vain).
pub fn check_json_path(path: &str) -> Result<(), Error> {
    if path == "-" {
        return Ok(());
    }
    let p = Path::new(path);
    if p.exists() {
        return Err(Error::invalid(format!(
            "--json {path} exists: drivelab never overwrites results; remove it or choose another name"
        )));
    }
    let dir = p.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !dir.is_dir() {
        return Err(Error::invalid(format!(
            "--json {path}: directory {} does not exist; create it first",
            dir.display()
        )));
    }
    Ok(())
}

/// Write `result` to `path` (whole or not at all, never over a file; `-`: standard output).
pub fn write_json(path: &str, result: &RunResult) -> Result<(), Error> {
    if path == "-" {
        let text = serde_json::to_string_pretty(result).map_err(|e| Error::io("encoding JSON", e.into()))?;
        println!("{text}");
        return Ok(());
    }
    drivelab_lab::store::write_json(Path::new(path), result)
}
