//! What a plan's or suite's keys and values are called on a chart, so that no axis or legend
//! shows a bare value: a legend of `1 2 4 8 16 32` leaves the reader to guess whether those are
//! queue depths, jobs or drives. An axis says what it is and its unit ("queue depth (I/Os per
//! job)", "throughput (MB/s)"); a legend entry says which key its value belongs to, with the
//! value's unit ("qd 8", "bs 4 KiB", "read 70%").
//!
//! Keys are the plan fields a table is keyed by (`Table::row_header`, `col_header`), named as
//! plan files name them; words that describe themselves (targets, steps, fio's rw words) are
//! left as they are.

use drivelab_engine::units::parse_size;
use drivelab_lab::results::Kind;

use crate::suite_tables;
use crate::tables::Table;

/// Keys whose values are sizes in bytes (plan spelling: `4k`, `1m`).
const SIZE_KEYS: [&str; 6] = ["bs", "align", "offset", "span", "io_size", "size"];

/// Keys whose values name themselves in a legend (a target's path, a step's name, `randread`,
/// a run's label in a comparison).
const SELF_NAMED: [&str; 5] = ["target", "step", "rw", "run", crate::compare::LABEL_KEY];

/// What a table's rows or columns are keyed by, as an axis description with its unit (a suite
/// may word its own, e.g. Iometer's DQL).
pub(crate) fn axis_label(kind: Kind, key: &str) -> String {
    let own = kind.suite().and_then(|id| suite_tables::views(id).axes.iter().find(|(k, _)| *k == key));
    if let Some((_, label)) = own {
        return label.to_string();
    }
    match key {
        "qd" => "queue depth (I/Os per job)",
        "bs" => "block size (bytes, k = 1024)",
        "align" => "alignment (bytes, k = 1024)",
        "offset" => "offset (bytes, k = 1024)",
        "span" => "span (bytes, k = 1024)",
        "io_size" => "bytes per job (k = 1024)",
        "size" => "file size (bytes, k = 1024)",
        "read" => "reads (% of I/Os)",
        "random" => "random (% of I/Os)",
        "jobs" => "jobs (threads per target)",
        "batch" => "I/Os per submit call",
        "targets" | "drives" => "drives at once (count)",
        "time" => "measured time per point",
        "ramp" => "ramp time per point",
        "rate" => "offered rate (per second)",
        "rw" => "workload",
        "step" => "test",
        "data" => "data written",
        "sync" => "sync mode",
        "engine" => "I/O engine",
        crate::compare::LABEL_KEY => "point (by label)",
        other => other,
    }
    .to_string()
}

/// The quantity on a chart's value axis for a table's unit: "throughput (MB/s)".
pub(crate) fn value_axis(unit: &str) -> String {
    let what = match unit {
        "MB/s" | "MiB/s" => "throughput",
        "IOPS" => "I/Os per second",
        "µs" => "latency",
        "%" => "percent",
        "W" => "power",
        "MB/s/W" => "throughput per watt",
        "drives" => "drives",
        _ => return unit.to_string(),
    };
    format!("{what} ({unit})")
}

/// A size in bytes as a legend reads it: "512 B", "4 KiB", "1 MiB".
fn bytes(n: u64) -> String {
    for (shift, unit) in [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")] {
        if n >= 1 << shift && n.is_multiple_of(1 << shift) {
            return format!("{} {unit}", n >> shift);
        }
    }
    format!("{n} B")
}

/// A value of `key` as a legend entry: the key and the value with its unit ("qd 8",
/// "bs 4 KiB", "read 70%", "3 drives"); self-describing words as they are ("randread").
pub(crate) fn legend_entry(key: &str, value: &str) -> String {
    match key {
        k if SELF_NAMED.contains(&k) || k.contains(' ') || value.is_empty() => value.to_string(),
        k if SIZE_KEYS.contains(&k) => match parse_size(value) {
            Ok(n) => format!("{k} {}", bytes(n)),
            Err(_) => format!("{k} {value}"),
        },
        "read" | "random" if value.parse::<f64>().is_ok() => format!("{key} {value}%"),
        "targets" | "drives" => format!("{value} drives"),
        k => format!("{k} {value}"),
    }
}

/// `t` with its rows named for a legend: each row's key value as [`legend_entry`] words it.
pub(crate) fn legend_rows(t: &Table) -> Table {
    let rows = t.rows.iter().map(|(name, v)| (legend_entry(&t.row_header, name), v.clone())).collect();
    Table { rows, ..t.clone() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legend_entries_say_which_key_and_unit_their_value_is_of() {
        assert_eq!(legend_entry("qd", "8"), "qd 8");
        assert_eq!(legend_entry("jobs", "32"), "jobs 32");
        assert_eq!(legend_entry("bs", "4k"), "bs 4 KiB");
        assert_eq!(legend_entry("bs", "512"), "bs 512 B");
        assert_eq!(legend_entry("bs", "1m"), "bs 1 MiB");
        assert_eq!(legend_entry("bs", "4k:70,64k:30"), "bs 4k:70,64k:30", "a split stays as written");
        assert_eq!(legend_entry("read", "70"), "read 70%");
        assert_eq!(legend_entry("targets", "3"), "3 drives");
        assert_eq!(legend_entry("time", "10s"), "time 10s");
        assert_eq!(legend_entry("sync", "fsync:1"), "sync fsync:1");
        // Words that name themselves, and joined keys that already say "bs=4k rw=read".
        assert_eq!(legend_entry("target", "/dev/sda"), "/dev/sda");
        assert_eq!(legend_entry("rw", "randread"), "randread");
        assert_eq!(legend_entry("bs rw", "bs=4k rw=read"), "bs=4k rw=read");
    }

    #[test]
    fn value_axes_name_their_quantity_and_unit() {
        assert_eq!(value_axis("MB/s"), "throughput (MB/s)");
        assert_eq!(value_axis("IOPS"), "I/Os per second (IOPS)");
        assert_eq!(value_axis("µs"), "latency (µs)");
        assert_eq!(value_axis("furlongs"), "furlongs");
        for key in ["qd", "bs", "jobs", "read", "time", "io_size", "sync"] {
            assert_ne!(axis_label(Kind::Plan, key), key, "{key} is described");
        }
    }
}
