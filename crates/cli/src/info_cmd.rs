//! `drivelab info TARGET...`: what a target is, the drive behind it, and whether drivelab would
//! write it (and with which flags), from `lab::info`; as lines for people or `--json`. Never
//! writes.

use drivelab_engine::target::TargetKind;
use drivelab_engine::units::fmt_trimmed;
use drivelab_engine::Error;
use drivelab_lab::info::{self, TargetReport, Verdict};

use crate::args::InfoArgs;
use crate::output::{stdout_line, stdout_text};
use crate::run_cmd::Outcome;

/// One target in `--json`: its report (with whether this drivelab can split latency here), or
/// why it could not be looked at.
#[derive(serde::Serialize)]
#[serde(untagged)]
enum Entry {
    Report {
        #[serde(flatten)]
        report: Box<TargetReport>,
        latency_split: SplitHere,
    },
    Failed {
        path: String,
        error: String,
    },
}

/// Whether `--latency-split` can run in this process (`drivelab_engine::split::unavailable`):
/// a fact of the build and the host, not of a target, given with each target's facts.
#[derive(serde::Serialize)]
struct SplitHere {
    available: bool,
    /// Why not, and what to do about it (None when available).
    reason: Option<String>,
}

fn split_here() -> SplitHere {
    let reason = drivelab_engine::split::unavailable();
    SplitHere { available: reason.is_none(), reason }
}

/// The line `info` ends with: whether `--latency-split` can run here, and why not.
pub fn split_line() -> String {
    match drivelab_engine::split::unavailable() {
        None => "latency split: available (BPF, io_uring and block tracepoints)".into(),
        Some(why) => format!("latency split: unavailable: {why}"),
    }
}

pub fn run(args: &InfoArgs) -> Result<Outcome, Error> {
    let mut entries = Vec::new();
    let mut failed: Vec<Error> = Vec::new();
    for (i, path) in args.targets.iter().enumerate() {
        match info::report(path) {
            Ok(r) => {
                if !args.json {
                    if i > 0 {
                        stdout_line("");
                    }
                    let width = crate::term::width(crate::term::Stream::Stdout);
                    stdout_text(&crate::term::wrap(&render(&r), width));
                }
                entries.push(Entry::Report { report: Box::new(r), latency_split: split_here() });
            }
            Err(e) => {
                crate::term::eprint_warning(&format!("drivelab: {path}: {}", e.cli_message()));
                entries.push(Entry::Failed { path: path.clone(), error: e.cli_message() });
                failed.push(e);
            }
        }
    }
    if !args.json {
        let width = crate::term::width(crate::term::Stream::Stdout);
        stdout_text(&format!("\n{}\n", crate::term::wrap(&split_line(), width).trim_end()));
    }
    if args.json {
        let text = serde_json::to_string_pretty(&entries).map_err(|e| Error::invalid(e.to_string()))?;
        stdout_line(&text);
    }
    match failed.len() {
        0 => Ok(Outcome::Done),
        n => {
            let what = format!("{n} of {} target(s) could not be examined", args.targets.len());
            // The kind of the first failure decides the exit code (2 bad input, 1 the system).
            let first = failed.swap_remove(0);
            Err(if first.is_invalid() {
                Error::invalid(what)
            } else {
                Error::io(what, std::io::Error::other("see above"))
            })
        }
    }
}

/// `64 MiB (67108864 bytes)`.
fn size(bytes: u64) -> String {
    let units = [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")];
    let short = units
        .iter()
        .find(|(shift, _)| bytes >= 1u64 << shift)
        .map(|(shift, unit)| format!("{} {unit}", fmt_trimmed(bytes as f64 / (1u64 << shift) as f64, 1)))
        .unwrap_or_else(|| format!("{bytes} B"));
    if bytes < 1024 {
        short
    } else {
        format!("{short} ({bytes} bytes)")
    }
}

/// A block size: `512 B`, `4 KiB`.
fn block(bytes: u64) -> String {
    if bytes >= 1024 && bytes.is_multiple_of(1024) {
        format!("{} KiB", bytes / 1024)
    } else {
        format!("{bytes} B")
    }
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// The report as aligned lines, each under 80 columns where the facts allow.
pub fn render(r: &TargetReport) -> String {
    let t = &r.target;
    let mut lines: Vec<(String, String)> = Vec::new();
    let mut row = |k: &str, v: String| lines.push((k.to_string(), v));
    let head = match t.kind {
        TargetKind::Null => "the null target: a virtual 1 TiB whose I/Os complete at once".to_string(),
        TargetKind::File if !t.exists => "a file that does not exist yet".to_string(),
        TargetKind::File => {
            let by = if t.created_by_drivelab { ", made by drivelab" } else { "" };
            format!("file, {}{by}", size(t.size_bytes))
        }
        TargetKind::Block => match &r.partition {
            Some(p) => {
                format!("block device, partition {p} of {}, {}", t.disk.as_deref().unwrap_or("?"), size(t.size_bytes))
            }
            None => format!("block device, {}", size(t.size_bytes)),
        },
    };
    if let Some(f) = &r.file {
        row("filesystem", format!("{} on {} at {} ({})", f.filesystem, f.source, f.mount_point, f.mount_options));
    }
    if let Some(d) = &r.device {
        let model = d.model.clone().unwrap_or_else(|| "model not reported".into());
        // A vendor that is a number (virtio's PCI id 0x1af4) or already the model's first word says nothing.
        let vendor = d
            .vendor
            .as_ref()
            .filter(|v| !v.starts_with("0x") && !model.starts_with(v.as_str()))
            .map(|v| format!(" by {v}"))
            .unwrap_or_default();
        row("drive", format!("{model}{vendor} ({})", d.disk));
        let mut ids = Vec::new();
        if let Some(s) = &d.serial {
            ids.push(format!("serial {s}"));
        }
        if let Some(f) = &d.firmware {
            ids.push(format!("firmware {f}"));
        }
        if let Some(tr) = &d.transport {
            ids.push(format!("transport {tr}"));
        }
        if !ids.is_empty() {
            row("", ids.join(", "));
        }
        if let Some(c) = d.capacity_bytes {
            row("capacity", size(c));
        }
    }
    if t.kind != TargetKind::Null && (t.exists || t.kind == TargetKind::Block) {
        let mut b = format!(
            "logical {}, physical {}; O_DIRECT alignment {}",
            block(t.logical_block_bytes),
            block(t.physical_block_bytes),
            block(t.dio_align_bytes)
        );
        if let Some(d) = &r.device {
            if let Some(m) = d.min_io_bytes.filter(|&m| m > 0) {
                b += &format!("; minimum I/O {}", block(m));
            }
            if let Some(o) = d.optimal_io_bytes.filter(|&o| o > 0) {
                b += &format!(", optimal {}", block(o));
            }
        }
        row("blocks", b);
    }
    if let Some(d) = &r.device {
        let mut q = Vec::new();
        if let Some(s) = &d.scheduler {
            q.push(format!("scheduler {s}"));
        }
        if let Some(n) = d.nr_requests {
            q.push(format!("nr_requests {n}"));
        }
        match (d.max_sectors_kb, d.max_hw_sectors_kb) {
            (Some(m), Some(h)) if h != m => q.push(format!("max I/O {m} KiB (hardware {h} KiB)")),
            (Some(m), _) => q.push(format!("max I/O {m} KiB")),
            _ => {}
        }
        if !q.is_empty() {
            row("queue", q.join(", "));
        }
        let mut q = Vec::new();
        match d.discard_max_bytes {
            Some(0) => q.push("no discard (TRIM)".to_string()),
            Some(n) => q.push(format!("discard (TRIM) up to {}", size(n))),
            None => {}
        }
        if let Some(z) = d.zoned.as_deref().filter(|z| *z != "none") {
            q.push(format!("zoned {z}"));
        }
        if d.removable == Some(true) {
            q.push("removable".into());
        }
        if d.read_only == Some(true) {
            q.push("read-only".into());
        }
        if !q.is_empty() {
            row("", q.join(", "));
        }
        if let Some(w) = &d.write_cache {
            row("write cache", w.clone());
        }
        if let Some(rot) = d.rotational {
            row("rotational", yes_no(rot).to_string());
        }
        if let Some(f) = d.loop_backing_file.as_ref().filter(|f| !d.model.as_deref().unwrap_or("").contains(f.as_str()))
        {
            row("loop over", f.clone());
        }
    }
    if t.kind != TargetKind::Null && t.disk.is_some() {
        row(
            "temperature",
            match r.temperature_c {
                Some(c) => format!("{} °C", fmt_trimmed(c, 1)),
                None => "not reported (no hwmon sensor for this disk)".to_string(),
            },
        );
    }
    let w = &r.write;
    row(
        "write",
        match w.verdict {
            Verdict::Allowed => "yes, as named".to_string(),
            Verdict::NeedsFlags => format!("needs {}", w.flags.join(" ")),
            Verdict::Refused => "no, whatever the flags".to_string(),
        },
    );
    for reason in &w.reasons {
        row("", format!("- {reason}"));
    }
    if let Some(n) = &w.note {
        row("", n.clone());
    }
    let mut out = format!("{}: {head}\n", r.path);
    for (k, v) in lines {
        // A list item's continuation lines are indented two more: wrapped two narrower, or a
        // terminal's own wrap at 80 columns put its last word on a line of its own.
        let bullet = v.starts_with("- ");
        for (i, part) in wrap(&v, WIDTH - 15 - if bullet { 2 } else { 0 }).into_iter().enumerate() {
            let key = if i == 0 { k.as_str() } else { "" };
            let indent = if i > 0 && bullet { "  " } else { "" };
            out += &format!("  {key:<12} {indent}{part}\n");
        }
    }
    out
}

/// Lines fit this many columns where words allow.
const WIDTH: usize = 80;

/// `text` in lines of at most `width` characters, broken between words (a longer word alone).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line += word;
    }
    lines.push(line);
    lines
}
