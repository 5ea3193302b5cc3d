//! fio's priority options, read with fio 3.33's meaning (backend.c, engines/cmdprio.c) into
//! drivelab's `prio` and `cmdprio` fields (engine `spec/prio.rs`):
//!
//! - `prioclass`, `prio`: the job's priority (class 0 with a level is best-effort, as fio's
//!   `ioprio_value`): set on the job's thread and on every I/O it submits.
//! - `cmdprio_percentage=R[,W]` with `cmdprio_class` (default real-time, 1) and `cmdprio`
//!   (default level 0): that share of each direction's I/Os at that priority.
//! - `cmdprio_bssplit=R[,W]`: `BS/PCT` entries at `cmdprio_class`/`cmdprio`, or `BS/PCT/CLASS/LEVEL`
//!   each with its own; entries of 0% are dropped, as fio does. Exclusive with
//!   `cmdprio_percentage`.
//!
//! fio reads the `cmdprio_*` options only for its io_uring and libaio engines; so does drivelab.

use drivelab_engine::spec::prio::{value, CmdPrio, IoPrio, CLASS_RT};
use drivelab_engine::spec::EngineKind;

use super::value::{size, within, KbBase};

/// What the priority options said.
#[derive(Clone, Debug, Default)]
pub struct PrioDraft {
    class: Option<u16>,
    level: Option<u16>,
    /// Per direction (reads, writes).
    pct: Option<[u8; 2]>,
    cmd_class: Option<[u16; 2]>,
    cmd_level: Option<[u16; 2]>,
    /// `cmdprio_bssplit` per direction: (bytes, percent, its own class and level), 0% dropped.
    bssplit: Option<[Split; 2]>,
}

type Split = Vec<(u64, u8, Option<(u16, u16)>)>;

/// `cmdprio_bssplit`'s `READS[,WRITES]` (one list, or an empty writes' one: both directions).
fn bssplit(v: &str, kb: KbBase) -> Result<[Split; 2], String> {
    let dirs: Vec<&str> = v.split(',').collect();
    if dirs.len() > 2 {
        return Err("cmdprio_bssplit takes READS[,WRITES]".into());
    }
    let mut out: [Split; 2] = Default::default();
    for (dir, list) in out.iter_mut().enumerate() {
        let text = dirs.get(dir).filter(|t| !t.trim().is_empty()).unwrap_or(&dirs[0]);
        for e in text.split(':').map(str::trim).filter(|e| !e.is_empty()) {
            let f: Vec<&str> = e.split('/').map(str::trim).collect();
            let (bs, pct, own) = match f[..] {
                [bs, pct] => (bs, pct, None),
                [bs, pct, c, l] => (bs, pct, Some((within(c, 0, 3)? as u16, within(l, 0, 7)? as u16))),
                _ => return Err(format!("'{e}': give BS/PERCENT or BS/PERCENT/CLASS/LEVEL")),
            };
            let (bytes, pct) = (size(bs, kb)?, within(pct, 0, 100)? as u8);
            if pct > 0 {
                list.push((bytes, pct, own));
            }
        }
    }
    Ok(out)
}

/// Is `key` one of fio's priority options?
pub fn is_key(key: &str) -> bool {
    matches!(key, "prio" | "prioclass" | "cmdprio_percentage" | "cmdprio_class" | "cmdprio" | "cmdprio_bssplit")
}

/// `R[,W]`: one value for both directions, or one each (an empty one: the other's).
fn per_dir(v: &str, lo: u64, hi: u64) -> Result<[u16; 2], String> {
    let parts: Vec<&str> = v.split(',').map(str::trim).collect();
    if parts.len() > 2 {
        return Err("give one value, or READ,WRITE".into());
    }
    let r = if parts[0].is_empty() { None } else { Some(within(parts[0], lo, hi)? as u16) };
    let w = match parts.get(1) {
        Some(w) if !w.is_empty() => Some(within(w, lo, hi)? as u16),
        _ => None,
    };
    match (r, w) {
        (Some(r), Some(w)) => Ok([r, w]),
        (Some(x), None) | (None, Some(x)) => Ok([x, x]),
        (None, None) => Err("needs a value".into()),
    }
}

/// Apply option `key=value` (one [`is_key`] accepts).
pub fn apply(d: &mut PrioDraft, key: &str, value: &str, kb: KbBase) -> Result<(), String> {
    let v = value.trim();
    if v.is_empty() {
        return Err("needs a value (key=value)".into());
    }
    match key {
        "prio" => d.level = Some(within(v, 0, 7)? as u16),
        "prioclass" => d.class = Some(within(v, 0, 3)? as u16),
        "cmdprio_percentage" => {
            let p = per_dir(v, 0, 100)?;
            d.pct = Some([p[0] as u8, p[1] as u8]);
        }
        "cmdprio_class" => d.cmd_class = Some(per_dir(v, 1, 3)?),
        "cmdprio" => d.cmd_level = Some(per_dir(v, 0, 7)?),
        "cmdprio_bssplit" => d.bssplit = Some(bssplit(v, kb)?),
        other => return Err(format!("'{other}' is not a priority option")),
    }
    Ok(())
}

/// The job's priorities, or why the options cannot run on `engine`.
pub fn finish(d: &PrioDraft, engine: EngineKind) -> Result<Option<IoPrio>, String> {
    let mut out = IoPrio::default();
    if d.class.is_some() || d.level.is_some() {
        out.job = value(d.class.unwrap_or(0), d.level.unwrap_or(0));
    }
    let class = d.cmd_class.unwrap_or([CLASS_RT; 2]);
    let level = d.cmd_level.unwrap_or([0; 2]);
    let implicit = |dir: usize| value(class[dir], level[dir]);
    match (&d.pct, &d.bssplit) {
        (Some(p), Some(_)) if p.iter().any(|&x| x > 0) => {
            return Err("cmdprio_percentage and cmdprio_bssplit are mutually exclusive (as in fio): give one".into())
        }
        (_, Some(split)) => {
            for (dir, list) in out.cmd.iter_mut().enumerate() {
                for &(bytes, pct, own) in &split[dir] {
                    let ioprio = own.map_or_else(|| implicit(dir), |(c, l)| value(c, l));
                    list.push(CmdPrio { bytes, pct, ioprio });
                }
            }
        }
        (Some(p), None) => {
            for (dir, list) in out.cmd.iter_mut().enumerate() {
                if p[dir] > 0 {
                    list.push(CmdPrio { bytes: 0, pct: p[dir], ioprio: implicit(dir) });
                }
            }
        }
        (None, None) => {}
    }
    if out.cmd.iter().any(|l| !l.is_empty()) && !engine.takes_io_prio() {
        return Err(format!(
            "per-I/O priorities are io_uring's and libaio's in fio; this job runs {}: give ioengine=io_uring or libaio",
            engine.name()
        ));
    }
    Ok((out != IoPrio::default()).then_some(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The priorities as `prio` (`CLASS/LEVEL`) and `cmdprio` (`BS/PCT/CLASS/LEVEL` lists) texts.
    fn run(opts: &[(&str, &str)], engine: &str) -> Result<Vec<(String, String)>, String> {
        use drivelab_engine::spec::prio::parts;
        let mut d = PrioDraft::default();
        for (k, v) in opts {
            apply(&mut d, k, v, KbBase::Binary)?;
        }
        let Some(p) = finish(&d, EngineKind::from_name(engine).unwrap())? else { return Ok(Vec::new()) };
        let mut out = Vec::new();
        if p.job != 0 {
            let (c, l) = parts(p.job);
            out.push(("prio".to_string(), format!("{c}/{l}")));
        }
        let list = |l: &[CmdPrio]| {
            let entry = |e: &CmdPrio| {
                let (c, l) = parts(e.ioprio);
                let bs = if e.bytes == 0 { "*".to_string() } else { e.bytes.to_string() };
                format!("{bs}/{}/{c}/{l}", e.pct)
            };
            l.iter().map(entry).collect::<Vec<_>>().join(":")
        };
        if p.cmd.iter().any(|l| !l.is_empty()) {
            out.push(("cmdprio".to_string(), format!("{},{}", list(&p.cmd[0]), list(&p.cmd[1]))));
        }
        Ok(out)
    }

    fn field(out: &[(String, String)], k: &str) -> Option<String> {
        out.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone())
    }

    #[test]
    fn fios_examples_become_drivelabs_fields() {
        // cmdprio-percentage.fio
        let o = run(&[("prioclass", "3"), ("cmdprio_percentage", "20"), ("cmdprio_class", "1")], "uring").unwrap();
        assert_eq!(field(&o, "prio").as_deref(), Some("3/0"));
        assert_eq!(field(&o, "cmdprio").as_deref(), Some("*/20/1/0,*/20/1/0"));
        // cmdprio-bssplit.fio's three jobs.
        let o =
            run(&[("cmdprio_bssplit", "64k/100:1024k/0,1024k/0"), ("cmdprio_class", "1"), ("cmdprio", "0")], "uring")
                .unwrap();
        assert_eq!(field(&o, "cmdprio").as_deref(), Some("65536/100/1/0,"));
        assert_eq!(field(&o, "prio"), None);
        let adv = [("cmdprio_bssplit", "64k/25/1/1:64k/75/3/2:1024k/0,1024k/0"), ("prioclass", "2"), ("prio", "7")];
        let o = run(&adv, "uring").unwrap();
        assert_eq!(field(&o, "cmdprio").as_deref(), Some("65536/25/1/1:65536/75/3/2,"));
        assert_eq!(field(&o, "prio").as_deref(), Some("2/7"));
        // The engine's own reading of the same priorities gives the same values.
        let mut s = drivelab_engine::spec::AccessSpec::default();
        for (k, v) in &o {
            drivelab_engine::options::apply(&mut s, k, v).unwrap();
        }
        let p = s.prio.unwrap();
        assert_eq!((p.job, p.cmd[0].len(), p.cmd[1].len()), (0x4007, 2, 0));
    }

    #[test]
    fn a_level_alone_is_best_effort_and_one_value_serves_both_directions() {
        let o = run(&[("prio", "5")], "psync").unwrap();
        assert_eq!(field(&o, "prio").as_deref(), Some("2/5"));
        let o = run(&[("cmdprio_percentage", ",30"), ("cmdprio", "4,6")], "uring").unwrap();
        assert_eq!(field(&o, "cmdprio").as_deref(), Some("*/30/1/4,*/30/1/6"));
    }

    #[test]
    fn what_fio_refuses_is_refused() {
        assert!(run(&[("prio", "8")], "uring").is_err());
        assert!(run(&[("cmdprio_class", "0")], "uring").is_err(), "fio's cmdprio_class is 1 to 3");
        let both = run(&[("cmdprio_percentage", "10"), ("cmdprio_bssplit", "4k/10")], "uring").unwrap_err();
        assert!(both.contains("mutually exclusive"), "{both}");
        let e = run(&[("cmdprio_percentage", "10")], "psync").unwrap_err();
        assert!(e.contains("ioengine=io_uring"), "{e}");
        assert!(run(&[("cmdprio_bssplit", "4k/10/1")], "uring").unwrap_err().contains("BS/PERCENT"));
    }
}
