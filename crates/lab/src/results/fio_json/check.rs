//! fio's figures checked before they become results: a file whose numbers fio could not have
//! written (a negative deviation, a mean outside min..max, a throughput that its own bytes and
//! runtime do not give) is refused by the field's name, never charted as a measurement. fio
//! computes `bw_bytes` as `io_bytes * 1000 / runtime` and `iops` as `total_ios * 1000 /
//! runtime` (0 for a runtime of 0), so both are checked against those, within 1% + 1.

use super::doc::{Dir, Doc, Lat};

/// The first impossible figure in `docs`, named by its place (`jobs[0].read.bw_bytes`).
pub fn figures(docs: &[Doc]) -> Result<(), String> {
    for (n, d) in docs.iter().enumerate() {
        let at_doc = if docs.len() > 1 { format!("document {}: ", n + 1) } else { String::new() };
        // Dates and durations a clock could have given (up to the year 9999; a century).
        if let Some(ms) = d.timestamp_ms.filter(|&ms| ms > LAST_DATE_MS) {
            return Err(invalid(&format!("{at_doc}timestamp_ms"), ms, "it is after the year 9999"));
        }
        for (i, j) in d.jobs.iter().enumerate() {
            let at = |field: &str| format!("{at_doc}jobs[{i}].{field}");
            if j.elapsed > CENTURY_S {
                return Err(invalid(&at("elapsed"), j.elapsed, "it is over a century in seconds"));
            }
            for (name, v) in [("usr_cpu", j.usr_cpu), ("sys_cpu", j.sys_cpu)] {
                non_negative(v, &at(name))?;
            }
            let dirs = [("read", &j.read), ("write", &j.write), ("trim", &j.trim), ("mixed", &j.mixed)];
            for (name, dir) in dirs {
                if let Some(dir) = dir {
                    direction(dir, &at(name))?;
                }
            }
            if let Some(s) = &j.sync {
                lat(&s.lat_ns, &at("sync.lat_ns"))?;
            }
        }
    }
    Ok(())
}

/// 9999-12-31T23:59:59.999Z in Unix ms.
const LAST_DATE_MS: u64 = 253_402_300_799_999;
/// A hundred years in seconds.
const CENTURY_S: u64 = 100 * 366 * 86_400;

fn invalid(field: &str, value: impl std::fmt::Display, why: &str) -> String {
    format!(
        "{field} is {value}, which fio does not write ({why}): this is not a valid fio result; use the file fio \
         wrote, unedited"
    )
}

fn non_negative(v: f64, field: &str) -> Result<(), String> {
    if !(v.is_finite() && v >= 0.0) {
        return Err(invalid(field, v, "it is never negative"));
    }
    Ok(())
}

fn direction(d: &Dir, at: &str) -> Result<(), String> {
    let field = |f: &str| format!("{at}.{f}");
    non_negative(d.bw_bytes, &field("bw_bytes"))?;
    non_negative(d.iops, &field("iops"))?;
    let per_s = |count: u64| if d.runtime == 0 { 0.0 } else { count as f64 * 1000.0 / d.runtime as f64 };
    let agrees = |given: f64, want: f64| (given - want).abs() <= want * 0.01 + 1.0;
    let bw = per_s(d.io_bytes);
    if !agrees(d.bw_bytes, bw) {
        let why = format!("io_bytes {} in runtime {} ms is {bw:.0} bytes/s", d.io_bytes, d.runtime);
        return Err(invalid(&field("bw_bytes"), d.bw_bytes, &why));
    }
    let iops = per_s(d.total_ios);
    if !agrees(d.iops, iops) {
        let why = format!("total_ios {} in runtime {} ms is {iops:.0} IOPS", d.total_ios, d.runtime);
        return Err(invalid(&field("iops"), d.iops, &why));
    }
    lat(&d.slat_ns, &field("slat_ns"))?;
    lat(&d.clat_ns, &field("clat_ns"))?;
    lat(&d.lat_ns, &field("lat_ns"))
}

fn lat(l: &Lat, at: &str) -> Result<(), String> {
    let field = |f: &str| format!("{at}.{f}");
    non_negative(l.mean, &field("mean"))?;
    non_negative(l.stddev, &field("stddev"))?;
    if l.n > 0 {
        if l.min > l.max {
            return Err(invalid(&field("min"), l.min, &format!("above max {}", l.max)));
        }
        // fio prints the mean with 6 decimals; allow for that rounding.
        if l.mean + 1.0 < l.min as f64 || l.mean > l.max as f64 + 1.0 {
            return Err(invalid(&field("mean"), l.mean, &format!("outside min {} .. max {}", l.min, l.max)));
        }
    }
    Ok(())
}
