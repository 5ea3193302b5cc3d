//! fio's JSON output as fio 3.x writes it (`--output-format=json` and `json+`), read as it is:
//! the parts drivelab's results have room for, typed, and nothing interpreted yet. A file may
//! hold several documents (`--status-interval`: one per interval, each cumulative) and text
//! before the first (fio prints some notes to standard output); [`parse`] takes them apart and
//! names what is wrong when something is.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};

/// One JSON document of fio's output.
#[derive(Clone, Debug, Deserialize)]
pub struct Doc {
    #[serde(rename = "fio version")]
    pub version: String,
    /// Set when drivelab wrote the document in fio's format (`drivelab report --fio-format`):
    /// drivelab's version.
    #[serde(rename = "drivelab version", default)]
    pub drivelab: Option<String>,
    /// When fio wrote the document (its run ends then), Unix epoch ms.
    #[serde(default)]
    pub timestamp_ms: Option<u64>,
    /// Options of the job file's `[global]` section, as given.
    #[serde(rename = "global options", default)]
    pub global: Options,
    pub jobs: Vec<Job>,
}

/// One job, or with `group_reporting` one reporting group (named after its first job).
#[derive(Clone, Debug, Deserialize)]
pub struct Job {
    pub jobname: String,
    pub groupid: u64,
    /// The first error's errno (0: none).
    #[serde(default)]
    pub error: i64,
    /// Seconds since fio started, when the document was written.
    #[serde(default)]
    pub elapsed: u64,
    /// The job's own options, as given (those of `[global]` are in [`Doc::global`]). Options
    /// without a value (`time_based`, `stonewall`) are not listed by fio.
    #[serde(rename = "job options", default)]
    pub options: Options,
    #[serde(default)]
    pub read: Option<Dir>,
    #[serde(default)]
    pub write: Option<Dir>,
    #[serde(default)]
    pub trim: Option<Dir>,
    /// `unified_rw_reporting`: reads and writes reported together, in place of both.
    #[serde(default)]
    pub mixed: Option<Dir>,
    /// fsync and friends (`fsync=N`).
    #[serde(default)]
    pub sync: Option<SyncDir>,
    /// The job's time running, ms (summed over the jobs of a reporting group).
    #[serde(default)]
    pub job_runtime: u64,
    /// User and system CPU, % of the job's runtime (for a reporting group, of its jobs' summed
    /// runtime).
    #[serde(default)]
    pub usr_cpu: f64,
    #[serde(default)]
    pub sys_cpu: f64,
    /// With `continue_on_error`: errors counted, and the first one's errno.
    #[serde(default)]
    pub total_err: Option<u64>,
}

/// The statistics of one direction (read, write, trim or mixed).
#[derive(Clone, Debug, Deserialize)]
pub struct Dir {
    pub io_bytes: u64,
    pub bw_bytes: f64,
    pub iops: f64,
    /// The direction's measured window, ms.
    pub runtime: u64,
    pub total_ios: u64,
    #[serde(default)]
    pub short_ios: u64,
    #[serde(default)]
    pub drop_ios: u64,
    pub slat_ns: Lat,
    pub clat_ns: Lat,
    pub lat_ns: Lat,
}

/// fsyncs (fio's `sync` object).
#[derive(Clone, Debug, Deserialize)]
pub struct SyncDir {
    pub total_ios: u64,
    pub lat_ns: Lat,
}

/// One latency statistic in ns: fio's exact min, max, mean and deviation; its percentiles when
/// it computed them; with json+ the histogram they came from.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct Lat {
    #[serde(default)]
    pub min: u64,
    #[serde(default)]
    pub max: u64,
    #[serde(default)]
    pub mean: f64,
    #[serde(default)]
    pub stddev: f64,
    #[serde(rename = "N", default)]
    pub n: u64,
    /// Percentile (as fio writes it: `"99.000000"`) -> ns.
    #[serde(default, deserialize_with = "percentile")]
    pub percentile: Option<BTreeMap<String, u64>>,
    /// json+: a bin's value (the middle of fio's bucket, ns) -> I/Os in it.
    #[serde(default, deserialize_with = "bins")]
    pub bins: Option<BTreeMap<String, u64>>,
}

/// An optional object that, when given, is one: fio leaves out what it did not compute and never
/// writes `null` in its place (absent is `None` through `#[serde(default)]`).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D, field: &str) -> Result<Option<T>, D::Error> {
    match Option::<T>::deserialize(d)? {
        Some(v) => Ok(Some(v)),
        None => Err(de::Error::custom(format!(
            "\"{field}\": null, which fio never writes (it leaves out what it did not compute): not a valid fio \
             result; use the file fio wrote, unedited"
        ))),
    }
}

fn percentile<'de, D: Deserializer<'de>>(d: D) -> Result<Option<BTreeMap<String, u64>>, D::Error> {
    present(d, "percentile")
}

fn bins<'de, D: Deserializer<'de>>(d: D) -> Result<Option<BTreeMap<String, u64>>, D::Error> {
    present(d, "bins")
}

/// A job's options as fio lists them, in fio's order, every value as text.
#[derive(Clone, Debug, Default)]
pub struct Options(pub Vec<(String, String)>);

impl<'de> Deserialize<'de> for Options {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Options, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Options;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of option names and values")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Options, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, serde_json::Value>()? {
                    let text = match v {
                        serde_json::Value::String(s) => s,
                        serde_json::Value::Number(n) => n.to_string(),
                        serde_json::Value::Bool(b) => b.to_string(),
                        serde_json::Value::Null => String::new(),
                        other => return Err(de::Error::custom(format!("option {k} has the value {other}"))),
                    };
                    out.push((k, text));
                }
                Ok(Options(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// What [`parse`] found.
#[derive(Debug)]
pub struct Parsed {
    /// Every document in order; the last is the run's result, the others (with
    /// `--status-interval`) its progress, each cumulative.
    pub docs: Vec<Doc>,
    /// The first line of text fio printed before its JSON, if any.
    pub preamble: Option<String>,
}

/// True when `head` (the start of a file) looks like fio's JSON output: its first document
/// names `"fio version"`.
pub fn looks_like_fio(head: &[u8]) -> bool {
    let Some(start) = json_start(head) else { return false };
    let rest = &head[start..];
    let window = &rest[..rest.len().min(512)];
    window.windows(b"\"fio version\"".len()).any(|w| w == b"\"fio version\"")
}

/// Where the first document starts: the first line that begins with `{`.
fn json_start(bytes: &[u8]) -> Option<usize> {
    let mut at = 0;
    for line in bytes.split(|&b| b == b'\n') {
        if line.first() == Some(&b'{') {
            return Some(at);
        }
        at += line.len() + 1;
    }
    None
}

/// The documents of fio's output `bytes`; an error says what is wrong (the caller names the
/// file). Text before the first document is blanked, not cut, so positions in errors are the
/// file's own lines and columns.
pub fn parse(bytes: &[u8]) -> Result<Parsed, String> {
    let start = json_start(bytes).ok_or("no JSON document in it (no line starts with '{')")?;
    let preamble = std::str::from_utf8(&bytes[..start])
        .ok()
        .and_then(|t| t.lines().map(str::trim).find(|l| !l.is_empty()).map(str::to_string));
    let mut text = bytes.to_vec();
    text[..start].iter_mut().filter(|b| **b != b'\n').for_each(|b| *b = b' ');
    refuse_fio_2(&text)?;
    let mut docs = Vec::new();
    for doc in serde_json::Deserializer::from_slice(&text).into_iter::<Doc>() {
        match doc {
            Ok(d) => docs.push(d),
            Err(e) if e.is_eof() => {
                return Err(format!(
                    "fio's JSON ends in the middle of a document ({e}): the file is cut short (fio writes it \
                     whole when the run ends; was fio stopped, or the file copied while it ran?)"
                ))
            }
            Err(e) if docs.is_empty() => return Err(format!("not fio's JSON output as fio 3.x writes it: {e}")),
            Err(e) => return Err(format!("something other than fio's JSON after document {}: {e}", docs.len())),
        }
    }
    if docs.is_empty() {
        return Err("no JSON document in it".into());
    }
    Ok(Parsed { docs, preamble })
}

/// fio 2.x wrote latencies in µs under other names (`clat`, not `clat_ns`): refused by name
/// rather than reported as a missing field.
fn refuse_fio_2(text: &[u8]) -> Result<(), String> {
    #[derive(Deserialize)]
    struct Head {
        #[serde(rename = "fio version")]
        version: Option<String>,
    }
    let first = serde_json::Deserializer::from_slice(text).into_iter::<Head>().next();
    let Some(Ok(Head { version: Some(v) })) = first else { return Ok(()) };
    let major = v.trim_start_matches("fio-").split('.').next().and_then(|m| m.parse::<u32>().ok());
    match major {
        Some(m) if m < 3 => Err(format!(
            "{v} wrote it: fio before 3.0 gave latencies in µs under other names, which drivelab does not read; \
             run fio 3.x"
        )),
        _ => Ok(()),
    }
}
