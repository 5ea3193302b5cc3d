//! Saving results: JSON written whole or not at all, never over an existing file.

use std::io::Write;
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

/// Write `result` to `path` atomically: a temporary file, then a hard link that fails rather than
/// replace a file that appeared meanwhile.
pub fn write_json(path: &str, result: &RunResult) -> Result<(), Error> {
    let text = serde_json::to_string_pretty(result).map_err(|e| Error::io("encoding JSON", e.into()))?;
    if path == "-" {
        println!("{text}");
        return Ok(());
    }
    let p = Path::new(path);
    let tmp = p.with_file_name(format!(
        ".{}.tmp{}",
        p.file_name().and_then(|n| n.to_str()).unwrap_or("result"),
        std::process::id()
    ));
    let mut f = std::fs::File::create(&tmp).map_err(|e| Error::io(format!("creating {}", tmp.display()), e))?;
    f.write_all(text.as_bytes())
        .and_then(|_| f.write_all(b"\n"))
        .and_then(|_| f.sync_all())
        .map_err(|e| Error::io(format!("writing {}", tmp.display()), e))?;
    let linked = std::fs::hard_link(&tmp, p);
    let _ = std::fs::remove_file(&tmp);
    linked.map_err(|e| Error::io(format!("saving {path}"), e))
}
