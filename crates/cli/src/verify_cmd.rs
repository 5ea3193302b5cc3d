//! `drivelab verify DIR`: re-check a device against what a verifying run wrote. Every unit the
//! run's saved map says was written is read back and checked; each wrong unit is counted by
//! kind and the first ones shown. Exit 0 when every unit is as written, 1 when any is not.

use std::path::Path;

use drivelab_engine::Error;
use drivelab_lab::verify;

use crate::args::VerifyArgs;
use crate::output;
use crate::run_cmd::{stop_flag, Outcome};

pub fn run(args: &VerifyArgs) -> Result<Outcome, Error> {
    let stop = stop_flag();
    let r = verify::recheck(Path::new(&args.dir), &stop)?;
    if stop.load(std::sync::atomic::Ordering::SeqCst) {
        return Ok(Outcome::Interrupted);
    }
    if args.json {
        let v: Vec<serde_json::Value> = r
            .targets
            .iter()
            .map(|(path, c)| serde_json::json!({ "target": path, "unit_bytes": r.unit_bytes, "checks": c }))
            .collect();
        let mut text = serde_json::to_string_pretty(&v).map_err(|e| Error::io("encoding JSON", e.into()))?;
        text.push('\n');
        output::stdout_text(&text);
    } else {
        let mut text = format!("verify: what \"{}\" wrote, re-read\n", r.point);
        for (path, c) in &r.targets {
            text += &format!("  {path}: {} units checked, {} wrong", c.checked_units, c.mismatches);
            if c.unreadable_units > 0 {
                let first: Vec<String> = c.first_unreadable_offsets_bytes.iter().map(|o| o.to_string()).collect();
                text +=
                    &format!(", {} unreadable (I/O error; first at offsets {})", c.unreadable_units, first.join(", "));
            }
            if c.mismatches > 0 {
                let kinds: Vec<String> = c.by_kind.iter().map(|(k, n)| format!("{n} {}", k.name())).collect();
                text += &format!(" ({})", kinds.join(", "));
            }
            text += "\n";
            for m in &c.first {
                text += &format!("    {}\n", m.describe());
            }
        }
        output::stdout_text(&text);
    }
    Ok(if r.failed() > 0 { Outcome::StoppedByError } else { Outcome::Done })
}
