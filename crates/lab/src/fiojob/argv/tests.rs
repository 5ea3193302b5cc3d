use super::*;

fn args(text: &str) -> Vec<String> {
    text.split_whitespace().map(String::from).collect()
}

fn ok(text: &str) -> FioArgs {
    split(&args(text)).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn err(text: &str) -> String {
    split(&args(text)).map(|a| format!("accepted: {a:?}")).unwrap_err().to_string()
}

/// Each section as `name: key=value key ...`.
fn shape(a: &FioArgs) -> Vec<String> {
    a.sections
        .iter()
        .map(|s| {
            let o: Vec<String> = s
                .options
                .iter()
                .map(|o| match &o.value {
                    Some(v) => format!("{}={v}", o.key),
                    None => o.key.clone(),
                })
                .collect();
            format!("{}: {}", s.name, o.join(" "))
        })
        .collect()
}

#[test]
fn options_before_the_first_name_are_global_and_each_name_starts_a_job() {
    let a = ok("--direct=1 --bs=4k --name=seq --rw=read --name=rand --rw=randread --iodepth=8");
    assert_eq!(shape(&a), ["global: direct=1 bs=4k", "seq: rw=read", "rand: rw=randread iodepth=8"]);
    assert!(a.files.is_empty());
    let a = ok("--name=only --size=1m");
    assert_eq!(shape(&a), ["only: size=1m"]);
}

#[test]
fn every_spelling_getopt_takes() {
    // -key=v, --key=v and --key v are one option; a bare set-only option sets it.
    let a = ok("-name=a -bs=4k --iodepth 16 --time_based --runtime=1 --group_reporting=1");
    assert_eq!(shape(&a), ["a: bs=4k iodepth=16 time_based runtime=1 group_reporting=1"]);
    assert_eq!(a.written[2], "--iodepth 16", "a refusal names the argument as written");
    // A prefix of one option is that option; of several, refused naming them.
    assert_eq!(shape(&ok("--name=a --runti=2")), ["a: runtime=2"]);
    let e = err("--name=a --iodep=4");
    assert!(e.contains("--iodep=4") && e.contains("--iodepth") && e.contains("--iodepth_low"), "{e}");
    // A set-only option takes a value only after '=': the next word is a job file.
    let a = ok("--name=a --time_based 1");
    assert_eq!((shape(&a), a.files), (vec!["a: time_based".to_string()], vec!["1".to_string()]));
    // fio's lone letters.
    let a = ok("-o out.txt -x b --name=a");
    assert_eq!((a.output.as_deref(), a.only.clone()), (Some("out.txt"), vec!["b".to_string()]));
    assert!(ok("-v").version && ok("-h").help && ok("--minimal").formats.as_deref() == Some("terse"));
}

#[test]
fn job_files_mix_with_options_in_order_and_after_a_double_dash() {
    let a = ok("a.fio --bs=8k b.fio --output-format json+,normal -- --odd.fio");
    assert_eq!(a.files, ["a.fio", "b.fio", "--odd.fio"]);
    assert_eq!(shape(&a), ["global: bs=8k"]);
    assert_eq!(a.formats.as_deref(), Some("json+,normal"));
    assert_eq!(ok("-").files, ["-"], "fio reads a job file from standard input");
}

#[test]
fn fios_own_options_and_drivelabs_safety_flags() {
    let a = ok("--readonly --eta=never --eta-newline=5 --status-interval=2s --section=x --section y --parse-only \
         --warnings-fatal --showcmd --destroy /dev/loop9 --force --overwrite --results out --terse-version=3 \
         --max-jobs=8");
    assert!(a.readonly && a.parse_only && a.warnings_fatal && a.showcmd && a.force && a.overwrite);
    assert_eq!(
        (a.eta, a.eta_newline.as_deref(), a.status_interval.as_deref()),
        (Some(Eta::Never), Some("5"), Some("2s"))
    );
    assert_eq!(
        (a.only.clone(), a.destroy.clone(), a.results.as_deref()),
        (vec!["x".into(), "y".into()], vec!["/dev/loop9".into()], Some("out"))
    );
    assert!(a.sections.is_empty());
    // fio's overwrite job option keeps its `=` form.
    assert_eq!(shape(&ok("--name=a --overwrite=1")), ["a: overwrite=1"]);
}

#[test]
fn bad_input_is_refused_naming_the_argument_and_the_fix() {
    let e = err("--name=a --bs");
    assert!(e.starts_with("--bs: needs a value") && e.contains("--bs=VALUE"), "{e}");
    let e = err("--name");
    assert!(e.contains("--name: needs a value"), "{e}");
    let e = err("--name= --bs=4k");
    assert!(e.starts_with("--name=:") && e.contains("--name=NAME"), "{e}");
    let e = err("--name=a --frobnicate=1");
    assert!(e.starts_with("--frobnicate=1: fio has no such option"), "{e}");
    let e = err("--name=a --direct --bs=4k");
    assert!(e.starts_with("--direct:") && e.contains("(--bs=4k)") && e.contains("--direct=VALUE"), "{e}");
    let e = err("--name=a --rw=");
    assert!(e.contains("--rw=: needs a value"), "{e}");
    let a = ok("--eta=sometimes");
    assert_eq!(a.eta, Some(Eta::Auto), "fio reads any other word as auto");
    let n = a.notices[0].to_string();
    assert!(n.contains("--eta=sometimes") && n.contains("auto"), "{n}");
    assert!(err("--minimal=1").contains("takes no value"));
    assert!(err("--debug=io").contains("debug tracing is not in drivelab"));
    assert!(err("--client=host1").contains("mpirun"));
    assert!(err("--server").contains("mpirun"));
    assert!(err("--section=global").contains("global"));
    assert!(err("--terse-version=2").contains("version 3"));
}

mod plans {
    use super::*;
    use crate::fiojob::from_args;
    use crate::plan::Plan;

    /// A directory of its own for this test's job files.
    fn dir(test: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("drivelab-argv-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn plan(text: &str) -> Result<Plan, Error> {
        from_args(&split(&args(text))?).map(|f| f.plan)
    }

    #[test]
    fn command_line_jobs_are_a_job_files_jobs() {
        let p = plan(
            "--ioengine=libaio --direct=1 --filename=/tmp/x.dat --size=1m --name=seq --rw=read --bs=128k --stonewall \
             --name=rand --rw=randwrite --bs=4k --iodepth=32 --numjobs=2 --stonewall",
        )
        .unwrap();
        let labels: Vec<&str> = p.points.iter().map(|p| p.label.as_str()).collect();
        assert_eq!(labels, ["seq", "rand"]);
        let (a, b) = (&p.points[0].spec, &p.points[1].spec);
        assert_eq!((a.bs[0].bytes, a.read_pct, a.qd, a.direct), (128 << 10, 100, 1, true));
        assert_eq!((b.bs[0].bytes, b.read_pct, b.random_pct, b.qd, b.jobs), (4096, 0, 100, 32, 2));
        assert_eq!(p.points[1].targets, ["/tmp/x.dat"]);
        assert_eq!(p.name, "seq");
    }

    #[test]
    fn a_refused_value_names_the_argument_as_written() {
        let e = plan("--name=a --size=1m --bs=4q").unwrap_err().to_string();
        assert!(e.starts_with("--bs=4q: ") && !e.contains("bs=4q: bs=4q"), "{e}");
        let e = plan("--name=a --size=1m --bs 4q").unwrap_err().to_string();
        assert!(e.starts_with("--bs 4q: "), "{e}");
        let e = plan("--name=a --size=1m --exec_prerun=x").unwrap_err().to_string();
        assert!(e.starts_with("--exec_prerun=x: ") && e.contains("not supported"), "{e}");
        let e = plan("--name=a --time_based").unwrap_err().to_string();
        assert!(e.starts_with("--name=a: [a]: time_based without runtime"), "{e}");
        let e = plan("--bs=4k").unwrap_err().to_string();
        assert!(e.contains("no job") && e.contains("--name=NAME"), "{e}");
    }

    #[test]
    fn job_files_take_the_command_lines_globals_and_are_stonewalled_from_each_other() {
        let d = dir("files");
        let one = d.join("one.fio");
        let two = d.join("two.fio");
        std::fs::write(&one, "[global]\nsize=1m\nfilename=/tmp/one.dat\n[a]\nrw=read\n[b]\nrw=write\n").unwrap();
        std::fs::write(&two, "[c]\nrw=randread\nsize=2m\nfilename=/tmp/two.dat\n").unwrap();
        let (one, two) = (one.display().to_string(), two.display().to_string());
        let p = plan(&format!("--bs=64k --name=cli --size=1m --filename=/tmp/cli.dat {one} {two}")).unwrap();
        let labels: Vec<&str> = p.points.iter().map(|p| p.label.as_str()).collect();
        // cli, a and b run together (no stonewall); the second file waits for the first.
        assert_eq!(labels, ["cli + a + b", "c"]);
        assert_eq!(p.points[0].spec.bs[0].bytes, 64 << 10);
        assert_eq!(p.points[0].concurrent[0].spec.bs[0].bytes, 64 << 10, "the first file takes --bs");
        assert_eq!(p.points[1].spec.bs[0].bytes, 4096, "fio starts a later file from its defaults");
        // --section keeps those jobs only, from the files and the command line.
        let p = plan(&format!("--section=b --section=c --name=cli --size=1m {one} {two}")).unwrap();
        let labels: Vec<&str> = p.points.iter().map(|p| p.label.as_str()).collect();
        assert_eq!(labels, ["b", "c"]);
        let e = plan(&format!("--section=nope {one}")).unwrap_err().to_string();
        assert!(e.contains("--section=nope") && e.contains("no job section"), "{e}");
        // A global of the command line refused in a file's job names the argument.
        let e = plan(&format!("--exec_prerun=ls {one}")).unwrap_err().to_string();
        assert!(e.starts_with("--exec_prerun=ls: "), "{e}");
        // A job file's own refusal keeps FILE:LINE.
        std::fs::write(d.join("bad.fio"), "[x]\nbs=4q\n").unwrap();
        let e = plan(&format!("--name=a --size=1m {}", d.join("bad.fio").display())).unwrap_err().to_string();
        assert!(e.contains("bad.fio:2: bs=4q"), "{e}");
        let missing = d.join("missing.fio").display().to_string();
        let e = plan(&format!("--name=a --size=1m {missing}")).unwrap_err().to_string();
        assert!(e.contains(&missing), "{e}");
        let shown = crate::fiojob::showcmd(&split(&args(&format!("--section=b {one}"))).unwrap()).unwrap();
        assert_eq!(shown, "fio --size=1m --filename=/tmp/one.dat --name=b --rw=write \n");
        std::fs::remove_dir_all(&d).unwrap();
    }
}
