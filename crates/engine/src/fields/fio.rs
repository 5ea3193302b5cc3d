//! fio's spellings of drivelab's access-spec fields ([`Fio`]: `iodepth` for `qd`, `runtime` for
//! `time`, ...), how each value translates into drivelab's, and the checks only fio's forms need
//! (`rwmixread` against the `rw` it applies to, `filename` lists). Apart from `mod.rs`, the one parser of drivelab's own keys, so the
//! translation of another tool's vocabulary stays in one place.

use super::*;

/// fio's spellings of drivelab's access-spec fields, accepted where the meaning is the same.
/// (`bs`, `direct` and `size` are spelt alike in both; `filename` names targets, see
/// [`split_filename`].)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fio {
    /// `iodepth`: `qd`.
    Iodepth,
    /// `numjobs`: `jobs` (per target in drivelab; fio's one job shares its files).
    Numjobs,
    /// `blocksize`: `bs`.
    Blocksize,
    /// `runtime`: `time`; a bare number is seconds, as in fio.
    Runtime,
    /// `ioengine`: `engine` (io_uring, libaio, io_uring_cmd, psync, sync as psync).
    Ioengine,
    /// `readwrite`: `rw`.
    Readwrite,
    /// `rwmixread`: `read`, for a mixed `rw` only (fio ignores it otherwise).
    Rwmixread,
    /// `rwmixwrite`: `read` = 100 - it, for a mixed `rw` only.
    Rwmixwrite,
    /// `random_distribution`: `distribution` (the same syntax).
    RandomDistribution,
}

impl Fio {
    pub const ALL: [Fio; 9] = [
        Fio::Iodepth,
        Fio::Numjobs,
        Fio::Blocksize,
        Fio::Runtime,
        Fio::Ioengine,
        Fio::Readwrite,
        Fio::Rwmixread,
        Fio::Rwmixwrite,
        Fio::RandomDistribution,
    ];

    /// fio's name: the plan key and (with dashes) the flag.
    pub const fn name(self) -> &'static str {
        match self {
            Fio::Iodepth => "iodepth",
            Fio::Numjobs => "numjobs",
            Fio::Blocksize => "blocksize",
            Fio::Runtime => "runtime",
            Fio::Ioengine => "ioengine",
            Fio::Readwrite => "readwrite",
            Fio::Rwmixread => "rwmixread",
            Fio::Rwmixwrite => "rwmixwrite",
            Fio::RandomDistribution => "random_distribution",
        }
    }

    /// The drivelab field it sets.
    pub const fn field(self) -> Field {
        match self {
            Fio::Iodepth => Field::Qd,
            Fio::Numjobs => Field::Jobs,
            Fio::Blocksize => Field::Bs,
            Fio::Runtime => Field::Time,
            Fio::Ioengine => Field::Engine,
            Fio::Readwrite => Field::Rw,
            Fio::Rwmixread | Fio::Rwmixwrite => Field::Read,
            Fio::RandomDistribution => Field::Distribution,
        }
    }

    pub fn from_name(key: &str) -> Option<Fio> {
        Fio::ALL.into_iter().find(|f| f.name() == key)
    }

    /// `value` (as fio takes it) as the text drivelab's [`Fio::field`] takes; refusals name
    /// fio's key.
    pub fn translate(self, value: &str) -> Result<String, Error> {
        let v = value.trim();
        let bad = |fix: &str| Error::spec(Field::Fio(self), format!("'{v}'"), fix);
        match self {
            Fio::Iodepth | Fio::Numjobs | Fio::Readwrite | Fio::RandomDistribution => Ok(v.to_string()),
            Fio::Blocksize => Ok(v.to_string()),
            Fio::Runtime => {
                if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) {
                    Ok(format!("{v}s"))
                } else if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
                    Err(bad("a bare number is whole seconds, as in fio; write 1.5s or 1500ms for a fraction"))
                } else {
                    Ok(v.to_string())
                }
            }
            // drivelab's engines by their names (`EngineKind::from_name`), and fio's that run as one.
            Fio::Ioengine => match v {
                "sync" => Ok("psync".into()),
                "null" => Err(bad("drivelab has no null engine: give the target null (I/Os complete at once)")),
                _ => EngineKind::from_name(v)
                    .map(|e| e.name().to_string())
                    .ok_or_else(|| bad("drivelab runs io_uring, libaio, io_uring_cmd, psync and sync (as psync)")),
            },
            Fio::Rwmixread | Fio::Rwmixwrite => {
                let pct =
                    parse_pct(v, "").map_err(|e| Error::spec(Field::Fio(self), "", e.trim_start().to_string()))?;
                Ok(if self == Fio::Rwmixread { pct } else { 100 - pct }.to_string())
            }
        }
    }
}

/// fio's `rwmixread`/`rwmixwrite` among `pairs` mean what they mean in fio, or are refused: fio
/// applies them only to a mixed workload (`rw`, `readwrite`, `randrw`) and ignores them for
/// `randread` and the like, where drivelab's `read` would change the mix; and both at once must
/// add up to 100 (fio would quietly let the later one win).
pub fn check_fio_mix(pairs: &[(&str, &str)]) -> Result<(), Error> {
    let field = |k: &str| Field::from_key(k);
    let mix: Vec<(Fio, &str)> = pairs
        .iter()
        .filter_map(|(k, v)| match field(k) {
            Some(Field::Fio(f @ (Fio::Rwmixread | Fio::Rwmixwrite))) => Some((f, *v)),
            _ => None,
        })
        .collect();
    let Some(&(last, value)) = mix.last() else { return Ok(()) };
    check_fio_shares(pairs)?;
    // The word, without fio's :N.
    let rw = pairs
        .iter()
        .rev()
        .find(|(k, _)| field(k).map(Field::canonical) == Some(Field::Rw))
        .map(|(_, v)| v.split(':').next().unwrap_or(v).trim());
    if !matches!(rw, Some("rw" | "readwrite" | "randrw")) {
        let now = match rw {
            Some(w) => format!("{{rw}} is {w}"),
            None => "no {rw} is given (drivelab's default is randread, fio's read)".to_string(),
        };
        return Err(Error::spec(
            Field::Fio(last),
            value.trim(),
            format!(
                "fio applies it only to a mixed workload and {now}; give {{rw}} randrw (or rw, readwrite), \
                 or {{read}} PCT for the share of reads in any workload"
            ),
        ));
    }
    Ok(())
}

/// fio's `rwmixread` and `rwmixwrite` both among `pairs` must add up to 100.
pub fn check_fio_shares(pairs: &[(&str, &str)]) -> Result<(), Error> {
    let find = |f: Fio| pairs.iter().rev().find(|(k, _)| *k == f.name()).map(|(_, v)| v.trim());
    let (Some(r), Some(w)) = (find(Fio::Rwmixread), find(Fio::Rwmixwrite)) else { return Ok(()) };
    let read_of = |f: Fio, v: &str| f.translate(v).ok().and_then(|t| t.parse::<u32>().ok());
    if read_of(Fio::Rwmixread, r) != read_of(Fio::Rwmixwrite, w) {
        return Err(Error::spec(
            Field::Fio(Fio::Rwmixwrite),
            w,
            format!("with {{rwmixread}} {r} the shares do not add up to 100; give only one of them"),
        ));
    }
    Ok(())
}

/// fio's `filename`: targets separated by `:` (`\:` for a colon inside a name).
pub fn split_filename(text: &str) -> Result<Vec<String>, Error> {
    let mut out = vec![String::new()];
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&':') => {
                chars.next();
                out.last_mut().expect("never empty").push(':');
            }
            ':' => out.push(String::new()),
            c => out.last_mut().expect("never empty").push(c),
        }
    }
    if out.iter().any(|t| t.trim().is_empty()) {
        return Err(Error::invalid(format!(
            "filename '{text}' names an empty target: separate targets with single colons, e.g. /dev/sdb:/dev/sdc \
             (write \\: for a colon inside a name)"
        )));
    }
    Ok(out)
}
