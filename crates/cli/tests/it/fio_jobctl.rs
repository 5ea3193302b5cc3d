//! fio's job-control options in job files (issue #27, item 4), through the binary on a real
//! file: `threads`, `create_on_open`, `exitall`/`exit_what` run (`fio_delay` tests their scopes);
//! `numa_cpu_nodes` becomes the nodes' CPUs (recorded in the
//! point), a node the host lacks is refused naming the host's nodes; `zonemode=zbd` without
//! `zonesize` is refused with why; `--cap-time`/`--cap-size` shorten a job file and say so, and are refused elsewhere.

use crate::common;

use std::path::{Path, PathBuf};

use crate::common::{drivelab_in, skip, stderr, Scratch};

/// The host's NUMA nodes and their CPUs as drivelab lists them (`0,1`), from sysfs.
fn nodes() -> Vec<(u32, String)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/sys/devices/system/node").into_iter().flatten().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(n) = name.strip_prefix("node").and_then(|n| n.parse::<u32>().ok()) else { continue };
        let list = std::fs::read_to_string(e.path().join("cpulist")).unwrap_or_default();
        let mut cpus = Vec::new();
        for part in list.trim().split(',').filter(|p| !p.is_empty()) {
            let (a, b) = part.split_once('-').unwrap_or((part, part));
            cpus.extend(a.parse::<u32>().unwrap()..=b.parse::<u32>().unwrap());
        }
        out.push((n, cpus.iter().map(u32::to_string).collect::<Vec<_>>().join(",")));
    }
    out.sort();
    out
}

fn points(base: &Path) -> Vec<serde_json::Value> {
    let dir: PathBuf = std::fs::read_dir(base).unwrap().next().unwrap().unwrap().path();
    common::saved_points(&dir)
}

#[test]
fn job_control_options_of_a_lone_job_run_and_the_nodes_cpus_are_its_cpus() {
    let nodes = nodes();
    let Some((node, cpus)) = nodes.iter().find(|(_, c)| !c.is_empty()).cloned() else {
        skip("this host lists no NUMA node with CPUs in /sys/devices/system/node");
        return;
    };
    let s = Scratch::new("fio-jobctl");
    let job = s.0.join("ctl.fio");
    std::fs::write(
        &job,
        format!(
            "[global]\nthreads=1\nexitall\nexit_what=all\nexitall_on_error=1\n[one]\nrw=randread\nsize=1m\n\
             runtime=5\nfilename=data.dat\ncreate_on_open=1\nnuma_cpu_nodes={node}\nnuma_mem_policy=local\n"
        ),
    )
    .unwrap();
    let o = drivelab_in(&s.0, &["run", job.to_str().unwrap(), "--cap-time", "100ms", "--results", "res", "-q"]);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("threads") && err.contains("create_on_open") && err.contains("no effect"), "{err}");
    if nodes.len() == 1 {
        assert!(err.contains("numa_mem_policy=local: this host's memory is one NUMA node"), "{err}");
    }
    assert!(err.contains("--cap-time 100ms: shortened run"), "{err}");
    let p = &points(&s.0.join("res"))[0];
    let fields: Vec<(String, String)> = serde_json::from_value(p["point"]["fields"].clone()).unwrap();
    let last = |k: &str| fields.iter().rev().find(|(f, _)| f == k).map(|(_, v)| v.clone());
    assert_eq!(last("cpus"), Some(cpus), "numa_cpu_nodes={node} runs on the node's CPUs");
    assert_eq!(last("time").as_deref(), Some("100ms"), "runtime=5 capped: {fields:?}");
    assert_eq!(p["point"]["spec"]["time_ns"], 100_000_000);
    assert!(p["result"]["total"]["ops"].as_u64().unwrap() > 0);
    assert_eq!(std::fs::metadata(s.0.join("data.dat")).unwrap().len(), 1 << 20);
}

#[test]
fn what_cannot_be_honoured_is_refused_by_file_and_line_with_the_reason() {
    let s = Scratch::new("fio-jobctl-refused");
    let host = nodes();
    let missing = host.iter().map(|(n, _)| n + 1).max().unwrap_or(1);
    let names = host.iter().map(|(n, _)| n.to_string()).collect::<Vec<_>>().join(", ");
    let mut cases = vec![
        ("[a]\nsize=1m\nzonemode=zbd\n", 1, "it needs zonesize (as in fio)".to_string()),
        ("[a]\nsize=1m\nignore_error=,EWHAT\n", 3, "ignore_error=,EWHAT: 'EWHAT' is not an errno name".to_string()),
        (
            "[a]\nsize=1m\nrate_iops=100\nrate_iops_min=200\n",
            1,
            "[a]: rate_iops_min=200 is above rate_iops=100: the minimum can never be met".to_string(),
        ),
        (
            "[a]\nsize=1m\nrw=randrw\nratemin=1m,2m\n",
            1,
            "[a]: ratemin=1m,2m: '1m,2m': per-direction minimums are supported when".to_string(),
        ),
        ("[a]\nsize=1m\nexit_what=some\n", 3, "expected group, stonewall or all".to_string()),
    ];
    let numa = format!("[a]\nsize=1m\nnuma_cpu_nodes={missing}\n");
    if !host.is_empty() {
        let says = format!("NUMA node {missing} does not exist on this host; its nodes are: {names}");
        cases.push((numa.as_str(), 3, says));
    }
    for (text, line, says) in &cases {
        let job = s.0.join("bad.fio");
        std::fs::write(&job, text).unwrap();
        let o = drivelab_in(&s.0, &["run", job.to_str().unwrap(), "--results", "res"]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{text}: {err}");
        assert!(err.contains(&format!("bad.fio:{line}: ")) && err.contains(says.as_str()), "{text}: {err}");
        assert!(!s.0.join("res").exists() && !s.0.join("a.0.0").exists(), "{text}: nothing is created");
    }
}

#[test]
fn the_caps_are_for_job_files_and_need_a_value_above_zero() {
    let s = Scratch::new("fio-cap-flags");
    let o = drivelab_in(&s.0, &["run", "null", "--cap-time", "1s"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--cap-time/--cap-size shorten a fio job file's jobs"), "{}", stderr(&o));
    let job = s.0.join("j.fio");
    std::fs::write(&job, "[j]\nioengine=null\nsize=1m\n").unwrap();
    for (flag, v, says) in [("--cap-time", "0", "a time above zero"), ("--cap-size", "1k", "4k or more")] {
        let o = drivelab_in(&s.0, &["plan", job.to_str().unwrap(), flag, v, "--dry-run"]);
        assert_eq!(o.status.code(), Some(2), "{flag} {v}");
        assert!(stderr(&o).contains(says), "{}", stderr(&o));
    }
    let toml = s.0.join("p.toml");
    std::fs::write(&toml, "name = \"p\"\ntargets = [\"null\"]\n[[point]]\nrw = \"read\"\n").unwrap();
    let o = drivelab_in(&s.0, &["plan", toml.to_str().unwrap(), "--cap-size", "1m", "--dry-run"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("a TOML plan sets its own time and span"), "{}", stderr(&o));
}
