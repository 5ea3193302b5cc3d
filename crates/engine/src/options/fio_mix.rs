//! fio's spellings that need more than their own value: `rwmixread`/`rwmixwrite` against the
//! `rw` they apply to, fio's `filename` lists, and the notices of what runs a little differently
//! from fio.

use super::Field;
use crate::error::Error;
use crate::units::parse_pct;

/// fio's `rwmixread`/`rwmixwrite` among `pairs` mean what they mean in fio, or are refused: fio
/// applies them only to a mixed workload (`rw`, `readwrite`, `randrw`) and ignores them for
/// `randread` and the like, where drivelab's `read` would change the mix; and both at once must
/// add up to 100 (fio would quietly let the later one win).
pub fn check_fio_mix(pairs: &[(&str, &str)]) -> Result<(), Error> {
    let field = |k: &str| Field::from_key(k);
    let mix: Vec<(&'static str, &str)> = pairs
        .iter()
        .filter_map(|(k, v)| match field(k) {
            Some(Field::As(f @ ("rwmixread" | "rwmixwrite"))) => Some((f, *v)),
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
            Field::As(last),
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
    let find = |name: &str| pairs.iter().rev().find(|(k, _)| *k == name).map(|(_, v)| v.trim());
    let (Some(r), Some(w)) = (find("rwmixread"), find("rwmixwrite")) else { return Ok(()) };
    let (read, write) = (parse_pct(r, "").ok(), parse_pct(w, "").ok());
    if read.zip(write).is_some_and(|(r, w)| r as u32 + w as u32 != 100) {
        return Err(Error::spec(
            Field::As("rwmixwrite"),
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

/// What the user should be told about `pairs` (fio spellings that run as something close to
/// what fio would run), once each.
pub fn notices<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Vec<String> {
    let pairs: Vec<(&str, &str)> = pairs.into_iter().collect();
    let mut out: Vec<String> = Vec::new();
    let last = |f: Field| pairs.iter().rev().find(|(k, _)| Field::from_key(k).map(Field::canonical) == Some(f));
    if let (Some((ek, ev)), Some((qk, qv))) = (last(Field::Engine), last(Field::Qd)) {
        let fio = matches!(Field::from_key(ek), Some(Field::As(_)));
        let sync = fio && super::parse_engine(ev).is_ok_and(|e| e == crate::spec::EngineKind::Psync);
        if sync && qv.trim().parse::<u32>().is_ok_and(|q| q > 1) {
            out.push(format!(
                "{ek} {}: a synchronous engine runs one I/O at a time, so {qk} {} runs at depth 1, as in fio",
                ev.trim(),
                qv.trim()
            ));
        }
    }
    out
}
