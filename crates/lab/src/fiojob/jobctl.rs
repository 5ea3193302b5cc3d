//! fio's job-control options (how jobs end, where they run, which errors they survive) read
//! with fio 3.33's meaning, so a job file using them runs here or is refused for a stated
//! reason instead of being half-honoured:
//!
//! - `threads`: not fio's `thread` (fio matches option names exactly, no prefixes) but the
//!   tiobench profile's thread count, which does nothing without `profile=tiobench`.
//! - `create_on_open`: fio creates the file when the job opens it instead of in its layout
//!   phase; drivelab creates (and fills) a new file before measuring either way.
//! - `exitall`/`exit_what`: a job's end (a numjobs clone's included) stops the jobs of its fio
//!   group (`group`, fio's default: `new_group` splits a point's jobs into such groups), every
//!   job of its point (`stonewall`), or every job of the run (`all`: the later groups never
//!   run). Judged as the run goes by `watch`; `all`'s later groups are left out of the plan.
//! - `numa_cpu_nodes`: the nodes' CPUs (from `/sys/devices/system/node`) as the job's `cpus`.
//!   `numa_mem_policy`: honoured where it cannot place memory anywhere but where the kernel
//!   already does (a host whose memory is one node), refused elsewhere.
//! (`zonemode` is `walk`'s, `ignore_error` `onerror`'s; `rate_min` and its kin `watch`'s.)

use super::ini::{LineError, Opt};
use super::notice::Notice;

/// What these options leave for the job once all are read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ctl {
    /// `exitall`: the group ends when its first job ends (with `exit_what`'s scope).
    pub exitall: bool,
    /// `exit_what=all`: with `exitall`, the job's end ends the run, later groups included.
    pub exit_what_all: bool,
    /// The CPUs of `numa_cpu_nodes` (drivelab's `cpus` list).
    pub cpus: Option<Vec<u32>>,
    /// Options read with no effect here.
    pub no_effect: Vec<String>,
    pub notices: Vec<Notice>,
}

/// The host's NUMA nodes: (node, its CPU list as the kernel writes it, has memory).
fn host_nodes() -> Vec<(u32, String)> {
    let mut out = Vec::new();
    if let Ok(dir) = std::fs::read_dir("/sys/devices/system/node") {
        for e in dir.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(n) = name.strip_prefix("node").and_then(|n| n.parse::<u32>().ok()) {
                let cpus = std::fs::read_to_string(e.path().join("cpulist")).unwrap_or_default();
                out.push((n, cpus.trim().to_string()));
            }
        }
    }
    out.sort();
    out
}

fn bad(o: &Opt, why: impl std::fmt::Display) -> LineError {
    let written = match &o.value {
        Some(v) => format!("{}={v}", o.key),
        None => o.key.clone(),
    };
    LineError { line: o.line, message: format!("{written}: {why}") }
}

/// A NUMA node list as fio (libnuma) writes it: `0`, `0-1`, `0,2`, `all`; every node must be
/// one of `host`'s.
pub fn node_list(text: &str, host: &[u32]) -> Result<Vec<u32>, String> {
    let names = || host.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
    if text.trim() == "all" {
        return Ok(host.to_vec());
    }
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let (a, b) = match (a.trim().parse::<u32>(), b.trim().parse::<u32>()) {
            (Ok(a), Ok(b)) if a <= b && b - a < 4096 => (a, b),
            _ => return Err(format!("'{part}' is not a node or a range of nodes (e.g. 0, 0-1, 0,2 or all)")),
        };
        for n in a..=b {
            if !host.contains(&n) {
                return Err(format!(
                    "NUMA node {n} does not exist on this host; its nodes are: {} (see /sys/devices/system/node)",
                    names()
                ));
            }
            if !out.contains(&n) {
                out.push(n);
            }
        }
    }
    if out.is_empty() {
        return Err("no node given; expected e.g. 0, 0-1 or all".into());
    }
    Ok(out)
}

/// fio's `numa_mem_policy`: `MODE[:NODES]`, MODE default, prefer, bind, interleave or local
/// (`prefer` takes one node; `bind` and `interleave` a list; the others none). The nodes it
/// names, checked against `host`.
pub fn mem_policy(text: &str, host: &[u32]) -> Result<Vec<u32>, String> {
    let (mode, nodes) = match text.split_once(':') {
        Some((m, n)) => (m.trim(), Some(n.trim())),
        None => (text.trim(), None),
    };
    match (mode, nodes) {
        ("default" | "local", None) => Ok(Vec::new()),
        ("default" | "local", Some(_)) => Err(format!("{mode} takes no nodes; write {mode}")),
        ("prefer", Some(n)) => {
            let list = node_list(n, host)?;
            if list.len() != 1 {
                return Err("prefer takes one node (prefer:0)".into());
            }
            Ok(list)
        }
        ("bind" | "interleave", Some(n)) => node_list(n, host),
        ("prefer" | "bind" | "interleave", None) => Err(format!("{mode} needs nodes ({mode}:0)")),
        _ => Err("expected default, prefer:N, bind:NODES, interleave:NODES or local".into()),
    }
}

/// The CPUs of `nodes` (kernel cpulists such as `0-3,8`) as one list.
fn node_cpus(nodes: &[u32], host: &[(u32, String)]) -> Result<Vec<u32>, String> {
    let mut lists = Vec::new();
    for n in nodes {
        let l = host.iter().find(|(h, _)| h == n).map(|(_, c)| c.as_str()).unwrap_or("");
        if l.is_empty() {
            return Err(format!("NUMA node {n} has no CPUs; give a node with CPUs"));
        }
        lists.extend(super::value::cpu_list(l)?);
    }
    Ok(lists)
}

/// Give `job` what the options left: the nodes' CPUs, `exitall`, notices.
pub fn merge(c: Ctl, job: &mut super::options::Job) {
    if let Some(cpus) = c.cpus {
        job.spec.cpus = drivelab_engine::spec::CpuPlacement::List(cpus);
    }
    job.exitall = c.exitall;
    job.exit_what_all = c.exit_what_all;
    for k in c.no_effect {
        if !job.no_effect.contains(&k) {
            job.no_effect.push(k);
        }
    }
    job.notices.extend(c.notices);
}

/// Apply option `o` when it is one of this module's; `None` when it is not.
pub fn apply(c: &mut Ctl, o: &Opt) -> Option<Result<(), LineError>> {
    let value = o.value.as_deref().map(str::trim);
    let need = || value.filter(|v| !v.is_empty()).ok_or_else(|| bad(o, "needs a value (key=value)"));
    let flag = || super::value::boolean(value).map_err(|e| bad(o, e));
    let host = || host_nodes();
    let ids = |h: &[(u32, String)]| h.iter().map(|(n, _)| *n).collect::<Vec<_>>();
    let key = o.key.as_str();
    let r = || -> Result<(), LineError> {
        match key {
            "exitall" => c.exitall = flag()?,
            "exit_what" => {
                let v = need()?;
                if !matches!(v, "group" | "stonewall" | "all") {
                    return Err(bad(o, "expected group, stonewall or all"));
                }
                c.exit_what_all = v == "all";
            }
            "numa_cpu_nodes" => {
                let h = host();
                let nodes = node_list(need()?, &ids(&h)).map_err(|e| bad(o, e))?;
                c.cpus = Some(node_cpus(&nodes, &h).map_err(|e| bad(o, e))?);
            }
            "numa_mem_policy" => {
                let h = host();
                mem_policy(need()?, &ids(&h)).map_err(|e| bad(o, e))?;
                if h.len() > 1 {
                    return Err(bad(
                        o,
                        format!(
                            "a memory policy on a host of {} NUMA nodes is not supported: drivelab's buffers \
                             are placed by the kernel's default policy; pin the job with numa_cpu_nodes (its \
                             memory then comes from the local node), or run drivelab under numactl",
                            h.len()
                        ),
                    ));
                }
                Notice::NumaMemPolicy { policy: need()?.to_string() }.push_to(&mut c.notices);
            }
            _ => unreachable!("apply is called for this module's keys"),
        }
        Ok(())
    };
    const KEYS: &[&str] = &["exitall", "exit_what", "numa_cpu_nodes", "numa_mem_policy"];
    KEYS.contains(&key).then(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opt(k: &str, v: Option<&str>) -> Opt {
        Opt { key: k.into(), value: v.map(str::to_string), line: 3 }
    }

    #[test]
    fn node_lists_are_checked_against_the_hosts_nodes() {
        assert_eq!(node_list("0-1", &[0, 1]), Ok(vec![0, 1]));
        assert_eq!(node_list("1,0,1", &[0, 1]), Ok(vec![1, 0]));
        assert_eq!(node_list("all", &[0, 1, 2]), Ok(vec![0, 1, 2]));
        let e = node_list("0-1", &[0]).unwrap_err();
        assert!(e.contains("node 1 does not exist") && e.contains("nodes are: 0"), "{e}");
        assert!(node_list("x", &[0]).is_err());
        assert!(node_list("", &[0]).is_err());
    }

    #[test]
    fn memory_policies_have_fios_modes() {
        assert_eq!(mem_policy("bind:0", &[0]), Ok(vec![0]));
        assert_eq!(mem_policy("interleave:0-1", &[0, 1]), Ok(vec![0, 1]));
        assert_eq!(mem_policy("local", &[0]), Ok(vec![]));
        assert!(mem_policy("prefer:0-1", &[0, 1]).unwrap_err().contains("one node"));
        assert!(mem_policy("bind", &[0]).unwrap_err().contains("needs nodes"));
        assert!(mem_policy("local:0", &[0]).is_err());
        assert!(mem_policy("interleave:3", &[0]).unwrap_err().contains("does not exist"));
        assert!(mem_policy("spread", &[0]).is_err());
    }

    #[test]
    fn only_this_modules_options_are_taken() {
        let mut c = Ctl::default();
        assert!(apply(&mut c, &opt("bs", Some("4k"))).is_none());
        assert!(apply(&mut c, &opt("exitall", None)).unwrap().is_ok());
        assert!(c.exitall);
        assert!(apply(&mut c, &opt("zonemode", Some("zbd"))).is_none(), "zbd zones are walk.rs's");
        assert!(apply(&mut c, &opt("exit_what", Some("some"))).unwrap().is_err());
    }
}
