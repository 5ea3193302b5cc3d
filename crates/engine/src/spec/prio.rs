//! I/O priorities (fio's `prio`/`prioclass` and its io_uring engine's `cmdprio_*` options):
//! the job's own priority, and per-I/O priorities drawn per direction and block size.
//!
//! Values are Linux's ioprio (`class << 13 | level`): class 1 real-time, 2 best-effort, 3 idle,
//! level 0 (highest) to 7. The job's priority is set on its thread (`ioprio_set`) and on every
//! read and write it submits to io_uring (as fio 3.33 does: an SQPOLL thread does not inherit the
//! thread's priority); a per-I/O one replaces it on that I/O's SQE alone.
//!
//! Per-I/O priorities are written as fio's `cmdprio_bssplit` with every part given:
//! `BS/PCT/CLASS/LEVEL` entries joined by `:`, reads' list `,` writes' list (one list: both);
//! `*` as BS takes every size (fio's `cmdprio_percentage`). `64k/25/1/1:64k/75/3/2,1m/100/2/0`:
//! of the 64 KiB reads 25% run real-time level 1 and 75% idle; every 1 MiB write best-effort 0.
//!
//! What is wrong with a priority is a [`PrioError`]: the words a user reads are written once,
//! there, and a caller can match the kind.

use serde::{Deserialize, Serialize};

/// Most per-I/O entries per direction (the draw keeps them in a fixed array).
pub const MAX_CMDPRIO: usize = 16;

/// Linux's ioprio classes (fio's `prioclass` numbers).
pub const CLASS_RT: u16 = 1;
pub const CLASS_BE: u16 = 2;
pub const CLASS_IDLE: u16 = 3;

/// An ioprio value: `class << 13 | level`. As fio's `ioprio_value`, class 0 (none given) with a
/// level means best-effort.
pub fn value(class: u16, level: u16) -> u16 {
    let class = if class == 0 { CLASS_BE } else { class };
    (class << 13) | level
}

/// The class and level of an ioprio value.
pub fn parts(v: u16) -> (u16, u16) {
    (v >> 13, v & 7)
}

/// One per-I/O priority entry: `pct` percent of the direction's I/Os of `bytes` bytes (0: of
/// every size) get `ioprio`.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct CmdPrio {
    /// The block size the entry applies to; 0: every size.
    pub bytes: u64,
    pub pct: u8,
    pub ioprio: u16,
}

/// A job's priorities.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct IoPrio {
    /// The job's ioprio (fio's `prioclass`/`prio`); 0: none set (the thread's own).
    #[serde(default)]
    pub job: u16,
    /// Per-I/O priorities for reads and for writes (fio's `cmdprio_*`); I/Os no entry picks run
    /// at `job`.
    #[serde(default)]
    pub cmd: [Vec<CmdPrio>; 2],
}

impl IoPrio {
    /// Any per-I/O priority at all.
    pub fn per_io(&self) -> bool {
        self.cmd.iter().any(|d| !d.is_empty())
    }
}

/// Why a priority (or a list of per-I/O ones) does not parse or cannot run. Each kind carries
/// the text or the numbers it refuses; a block size's own error is kept as its text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PrioError {
    #[error("'{text}': give CLASS/LEVEL, e.g. be/4 or 1/0")]
    JobSyntax { text: String },
    #[error("'{text}' is not a priority class: use rt (1), be (2) or idle (3)")]
    Class { text: String },
    #[error("'{text}' is not a priority level: use 0 (highest) to 7")]
    Level { text: String },
    #[error("'{text}': at most two lists, reads' then writes', joined by ','")]
    Lists { text: String },
    #[error("'{entry}': give BS/PCT/CLASS/LEVEL, e.g. 64k/25/1/0 (BS * for every size)")]
    Entry { entry: String },
    /// The entry's block size does not parse: the size parser's words.
    #[error("'{entry}': {why}")]
    EntrySize { entry: String, why: String },
    #[error("'{entry}': the share '{share}' is not a percentage from 0 to 100")]
    Share { entry: String, share: String },
    /// More than [`MAX_CMDPRIO`] entries for `dir` (reads or writes).
    #[error("{entries} entries for {dir}: at most {}", MAX_CMDPRIO)]
    TooManyEntries { dir: &'static str, entries: usize },
    /// The shares of `dir`'s I/Os of `bytes` bytes (0: every size) add up past 100%.
    #[error(
        "the {dir}' shares for {} add up to {total}%: at most 100%",
        if *bytes == 0 { "every size".to_string() } else { format!("{bytes} bytes") }
    )]
    SharesOver { dir: &'static str, bytes: u64, total: u32 },
}

/// The job's priority from `CLASS/LEVEL` (`2/7`, `idle/0`, `rt/1`, `be/4`).
pub fn parse_job(text: &str) -> Result<u16, PrioError> {
    let t = text.trim();
    let (c, l) = t.split_once('/').ok_or_else(|| PrioError::JobSyntax { text: t.to_string() })?;
    Ok(value(class(c)?, level(l)?))
}

fn class(c: &str) -> Result<u16, PrioError> {
    match c.trim() {
        "rt" | "1" => Ok(CLASS_RT),
        "be" | "2" => Ok(CLASS_BE),
        "idle" | "3" => Ok(CLASS_IDLE),
        "0" | "none" => Ok(0),
        other => Err(PrioError::Class { text: other.to_string() }),
    }
}

fn level(l: &str) -> Result<u16, PrioError> {
    match l.trim().parse::<u16>() {
        Ok(n) if n <= 7 => Ok(n),
        _ => Err(PrioError::Level { text: l.trim().to_string() }),
    }
}

/// `CLASS/LEVEL` as [`parse_job`] reads it back (`rt/1`, `be/4`, `idle/0`). Exact for every value
/// the parser gives; a value it never gives (class 0 with a level, class above 3, bits between
/// the level and the class) is written as its class and level numbers, which read back
/// differently or are refused.
pub fn job_text(v: u16) -> String {
    let (c, l) = parts(v);
    match c {
        CLASS_RT => format!("rt/{l}"),
        CLASS_BE => format!("be/{l}"),
        CLASS_IDLE => format!("idle/{l}"),
        other => format!("{other}/{l}"),
    }
}

/// Per-I/O priorities as [`parse_cmd`] reads them back: `BS/PCT/CLASS/LEVEL` entries joined by
/// `:` (`*` as BS for every size), one list when reads and writes have the same, else
/// `READS,WRITES`.
pub fn cmd_text(cmd: &[Vec<CmdPrio>; 2]) -> String {
    let list = |l: &[CmdPrio]| {
        let entries: Vec<String> = l
            .iter()
            .map(|e| {
                let bs = if e.bytes == 0 { "*".to_string() } else { crate::units::fmt_size(e.bytes) };
                format!("{bs}/{}/{}", e.pct, job_text(e.ioprio))
            })
            .collect();
        entries.join(":")
    };
    if cmd[0] == cmd[1] {
        list(&cmd[0])
    } else {
        format!("{},{}", list(&cmd[0]), list(&cmd[1]))
    }
}

/// Per-I/O priorities from `READS[,WRITES]` lists of `BS/PCT/CLASS/LEVEL` entries.
pub fn parse_cmd(text: &str) -> Result<[Vec<CmdPrio>; 2], PrioError> {
    let t = text.trim();
    let lists: Vec<&str> = t.split(',').collect();
    if lists.len() > 2 {
        return Err(PrioError::Lists { text: t.to_string() });
    }
    let mut out: [Vec<CmdPrio>; 2] = Default::default();
    for (d, list) in lists.iter().enumerate() {
        for e in list.split(':').map(str::trim).filter(|e| !e.is_empty()) {
            let f: Vec<&str> = e.split('/').collect();
            let [bs, pct, c, l] = f[..] else {
                return Err(PrioError::Entry { entry: e.to_string() });
            };
            let bytes = match bs.trim() {
                "*" => 0,
                b => crate::units::parse_size(b)
                    .map_err(|why| PrioError::EntrySize { entry: e.to_string(), why: why.to_string() })?,
            };
            let pct = match pct.trim().parse::<u8>() {
                Ok(p) if p <= 100 => p,
                _ => return Err(PrioError::Share { entry: e.to_string(), share: pct.to_string() }),
            };
            out[d].push(CmdPrio { bytes, pct, ioprio: value(class(c)?, level(l)?) });
        }
    }
    if lists.len() == 1 {
        out[1] = out[0].clone();
    }
    Ok(out)
}

/// Why `p` cannot run: entries past [`MAX_CMDPRIO`], or one size's shares over 100%.
pub fn check(p: &IoPrio) -> Result<(), PrioError> {
    for (d, list) in p.cmd.iter().enumerate() {
        let dir = if d == 0 { "reads" } else { "writes" };
        if list.len() > MAX_CMDPRIO {
            return Err(PrioError::TooManyEntries { dir, entries: list.len() });
        }
        for e in list {
            // An entry for every size counts with each size's own.
            let total: u32 =
                list.iter().filter(|o| o.bytes == e.bytes || o.bytes == 0 || e.bytes == 0).map(|o| o.pct as u32).sum();
            if total > 100 {
                return Err(PrioError::SharesOver { dir, bytes: e.bytes, total });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fios_values_and_both_syntaxes_parse() {
        assert_eq!(parse_job("2/7").unwrap(), 0x4007);
        assert_eq!(parse_job("idle/0").unwrap(), 0x6000);
        assert_eq!(parse_job("0/3").unwrap(), 0x4003, "no class with a level: best-effort, as fio");
        assert_eq!(parse_job("4/0").unwrap_err(), PrioError::Class { text: "4".into() });
        assert_eq!(parse_job("1/8").unwrap_err().to_string(), "'8' is not a priority level: use 0 (highest) to 7");
        let c = parse_cmd("64k/25/1/1:64k/75/3/2,1m/100/2/0").unwrap();
        assert_eq!(
            c[0],
            vec![CmdPrio { bytes: 65536, pct: 25, ioprio: 0x2001 }, CmdPrio { bytes: 65536, pct: 75, ioprio: 0x6002 }]
        );
        assert_eq!(c[1], vec![CmdPrio { bytes: 1 << 20, pct: 100, ioprio: 0x4000 }]);
        let both = parse_cmd("*/20/1/0").unwrap();
        assert_eq!(both[0], both[1], "one list: both directions");
        assert!(parse_cmd("64k/25/1").unwrap_err().to_string().contains("BS/PCT/CLASS/LEVEL"));
        assert!(parse_cmd("64k/101/1/0").unwrap_err().to_string().contains("percentage"));
    }

    #[test]
    fn the_texts_read_back() {
        for job in ["rt/0", "be/4", "idle/7", "2/3", "0/5"] {
            let v = parse_job(job).unwrap();
            assert_eq!(parse_job(&job_text(v)).unwrap(), v, "{job}");
        }
        assert_eq!(job_text(parse_job("1/2").unwrap()), "rt/2");
        for cmd in ["64k/25/1/1:64k/75/3/2,1m/100/2/0", "*/20/1/0", "4k/25/rt/1,*/10/2/0", ",8k/5/idle/1", ""] {
            let c = parse_cmd(cmd).unwrap();
            assert_eq!(parse_cmd(&cmd_text(&c)).unwrap(), c, "{cmd}: {}", cmd_text(&c));
        }
        assert_eq!(cmd_text(&parse_cmd("*/20/1/0").unwrap()), "*/20/rt/0", "one list for both");
    }

    #[test]
    fn shares_of_one_size_over_100_are_refused() {
        let p = IoPrio { job: 0, cmd: parse_cmd("64k/60/1/0:64k/50/3/0").unwrap() };
        let e = check(&p).unwrap_err();
        assert_eq!(e, PrioError::SharesOver { dir: "reads", bytes: 65536, total: 110 });
        assert_eq!(e.to_string(), "the reads' shares for 65536 bytes add up to 110%: at most 100%");
        let ok = IoPrio { job: 0, cmd: parse_cmd("64k/60/1/0:1m/50/3/0").unwrap() };
        assert!(check(&ok).is_ok());
    }
}
