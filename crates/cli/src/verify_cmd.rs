//! `drivelab verify DIR`: re-check a device against what a verifying run wrote. Every unit the
//! run's saved map says was written is read back and checked; each wrong unit is counted by
//! kind and the first ones shown. `drivelab verify --journal FILE [TARGET...]`: after a crash,
//! judge every unit the journal says was written against what the drive promised was durable.
//! Exit 0 when every unit is as written, 1 when any is not, 2 on bad input.

use std::path::Path;

use drivelab_engine::result::Checks;
use drivelab_engine::verify::CrashChecks;
use drivelab_engine::Error;
use drivelab_lab::verify::{self, CrashRecheck};

use crate::args::VerifyArgs;
use crate::output;
use crate::run_cmd::{stop_flag, Outcome};

pub fn run(args: &VerifyArgs) -> Result<Outcome, Error> {
    if let Some(j) = &args.journal {
        return after_crash(args, Path::new(j));
    }
    let [dir] = args.paths.as_slice() else {
        return Err(Error::invalid(format!(
            "{} paths given: give one results directory (drivelab verify DIR), or a journal and its targets \
             (drivelab verify --journal FILE [TARGET...])",
            args.paths.len()
        )));
    };
    let stop = stop_flag();
    let r = verify::recheck(Path::new(dir), &stop)?;
    if stop.load(std::sync::atomic::Ordering::SeqCst) {
        return Ok(Outcome::Interrupted);
    }
    if args.json {
        let v: Vec<serde_json::Value> = r
            .targets
            .iter()
            .map(|(path, c)| serde_json::json!({ "target": path, "unit_bytes": r.unit_bytes, "checks": c }))
            .collect();
        print_json(&serde_json::Value::Array(v))?;
    } else {
        let mut text = format!("verify: what \"{}\" wrote, re-read\n", r.point);
        for (path, c) in &r.targets {
            text += &format!("  {path}: {} units checked, {} wrong", c.checked_units, c.mismatches);
            text += &checks_detail(c);
        }
        output::stdout_text(&text);
    }
    Ok(if r.failed() > 0 { Outcome::StoppedByError } else { Outcome::Done })
}

/// `--journal`: replay, judge, print.
fn after_crash(args: &VerifyArgs, journal: &Path) -> Result<Outcome, Error> {
    let stop = stop_flag();
    let r = verify::after_crash(journal, &args.paths, &stop)?;
    if stop.load(std::sync::atomic::Ordering::SeqCst) {
        return Ok(Outcome::Interrupted);
    }
    if args.json {
        let rp = &r.replayed;
        print_json(&serde_json::json!({
            "journal": journal.display().to_string(),
            "segments": rp.segments,
            "records": rp.records,
            "ignored_tail_bytes": rp.ignored_tail_bytes,
            "snapshot_differences_units": rp.snapshot_differences,
            "targets": r.targets,
        }))?;
    } else {
        output::stdout_text(&crash_text(journal, &r));
    }
    Ok(if r.failed() > 0 { Outcome::StoppedByError } else { Outcome::Done })
}

/// The human report of `--journal`: per target, durable writes checked and lost, then what was
/// not yet durable.
fn crash_text(journal: &Path, r: &CrashRecheck) -> String {
    let rp = &r.replayed;
    let mut text = format!(
        "verify: after a crash, against the journal {} ({} runs, {} records{})\n",
        journal.display(),
        rp.segments,
        rp.records,
        if rp.ignored_tail_bytes > 0 {
            format!("; its last {} bytes were cut by the crash and are ignored", rp.ignored_tail_bytes)
        } else {
            String::new()
        }
    );
    for c in &r.targets {
        text += &target_text(c);
    }
    text += if r.failed() > 0 {
        "  LOST: the drive acknowledged these writes as durable and did not keep them\n"
    } else {
        "  every write acknowledged as durable survived\n"
    };
    text
}

fn target_text(c: &CrashChecks) -> String {
    let d = &c.durable;
    let n = &c.not_durable;
    let mut text = format!("  {}: {} durable units checked, {} lost or wrong", c.target, d.checked_units, d.mismatches);
    text += &checks_detail(d);
    text += &format!(
        "    not yet durable: {} landed, {} acknowledged but lost (not flushed), {} in flight not landed, {} torn; \
         {} unjudged\n",
        n.landed_units, n.acked_lost_units, n.in_flight_not_landed_units, n.torn_units, c.unjudged_units
    );
    text
}

/// ", 3 unreadable …" and " (2 stale)" and the first mismatches, one per line.
fn checks_detail(c: &Checks) -> String {
    let mut text = String::new();
    if c.unreadable_units > 0 {
        let first: Vec<String> = c.first_unreadable_offsets_bytes.iter().map(|o| o.to_string()).collect();
        text += &format!(", {} unreadable (I/O error; first at offsets {})", c.unreadable_units, first.join(", "));
    }
    if c.mismatches > 0 {
        let kinds: Vec<String> = c.by_kind.iter().map(|(k, n)| format!("{n} {}", k.name())).collect();
        text += &format!(" ({})", kinds.join(", "));
    }
    text += "\n";
    for m in &c.first {
        text += &format!("    {}\n", m.describe());
    }
    text
}

fn print_json(v: &serde_json::Value) -> Result<(), Error> {
    let mut text = serde_json::to_string_pretty(v).map_err(|e| Error::io("encoding JSON", e.into()))?;
    text.push('\n');
    output::stdout_text(&text);
    Ok(())
}
