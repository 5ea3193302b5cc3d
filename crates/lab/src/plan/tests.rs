use std::collections::HashSet;

use super::*;

fn plan(text: &str) -> Plan {
    parse(text, "p.toml", &[]).unwrap_or_else(|e| panic!("{e}"))
}

fn err(text: &str) -> String {
    match parse(text, "p.toml", &[]) {
        Ok(p) => panic!("accepted, {} points", p.points.len()),
        Err(e) => {
            assert!(e.is_invalid(), "{e}");
            e.to_string()
        }
    }
}

/// Assert the error starts with `p.toml:LOC: ` and contains every one of `words`.
fn assert_err(text: &str, loc: &str, words: &[&str]) {
    let e = err(text);
    assert!(e.starts_with(&format!("p.toml:{loc}: ")), "expected at {loc}: {e}");
    for w in words {
        assert!(e.contains(w), "expected '{w}' in: {e}");
    }
}

fn labels(p: &Plan) -> Vec<&str> {
    p.points.iter().map(|p| p.label.as_str()).collect()
}

fn range(unit: Unit, text: &str) -> Vec<String> {
    expand_range(unit, text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

const FULL: &str = r#"
name = "nvme qd sweep"
targets = ["/dev/nvme0n1"]
pause = "5s"

[defaults]
bs = "4k"
time = "30s"

[precondition]
rw = "write"
bs = "128k"
io_size = "2g"

[matrix]
qd = "1..64 x2"
read = "0..100 +50"

[[step]]
name = "random read"
rw = "randread"
[step.matrix]
qd = [1, 32]

[[step]]
name = "mixed"
rw = "randrw"
bs = 8192
"#;

#[test]
fn a_full_plan_expands_in_order_with_labels_and_specs() {
    let p = plan(FULL);
    assert_eq!((p.name.as_str(), p.together, p.repeat, p.pause_ns), ("nvme qd sweep", false, 1, 5_000_000_000));
    assert_eq!(p.targets, ["/dev/nvme0n1"]);
    assert_eq!(p.points.len(), 2 + 7 * 3);
    let l = labels(&p);
    assert_eq!(
        &l[..5],
        ["random read qd=1", "random read qd=32", "mixed qd=1 read=0", "mixed qd=1 read=50", "mixed qd=1 read=100"]
    );
    assert_eq!(l[22], "mixed qd=64 read=100");
    assert_eq!(p.points.iter().map(|p| p.index).collect::<Vec<_>>(), (1..=23).collect::<Vec<_>>());

    let first = &p.points[0];
    assert_eq!((first.step.as_str(), first.slug.as_str()), ("random read", "random-read-qd1"));
    assert_eq!((first.spec.qd, first.spec.read_pct, first.spec.random_pct), (1, 100, 100));
    assert_eq!(first.spec.bs[0].bytes, 4096);
    assert_eq!(first.spec.time_ns, Some(30_000_000_000));
    assert_eq!(first.targets, ["/dev/nvme0n1"]);
    assert_eq!(first.estimate_ns, Some(30_000_000_000));
    let f = |p: &Point| p.fields.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ");
    assert_eq!(f(first), "bs=4k time=30s rw=randread qd=1");

    let mixed = &p.points[9]; // qd=4 read=50
    assert_eq!(mixed.label, "mixed qd=4 read=50");
    assert_eq!((mixed.spec.qd, mixed.spec.read_pct, mixed.spec.random_pct), (4, 50, 100));
    assert_eq!(mixed.spec.bs[0].bytes, 8192);
    assert_eq!(f(mixed), "time=30s rw=randrw bs=8192 qd=4 read=50");
    assert_eq!(mixed.slug, "mixed-qd4-read50");

    let pre = p.precondition.as_ref().unwrap();
    assert_eq!((pre.label.as_str(), pre.index), ("precondition", 0));
    assert_eq!((pre.spec.read_pct, pre.spec.random_pct, pre.spec.bs[0].bytes), (0, 0, 128 << 10));
    assert_eq!((pre.spec.io_size_bytes, pre.spec.time_ns, pre.estimate_ns), (Some(2 << 30), None, None));
    assert_eq!(pre.targets, ["/dev/nvme0n1"]);
    // An untimed precondition makes the whole plan's length unknown.
    assert_eq!(p.estimate_ns(), None);
}

#[test]
fn the_example_in_the_module_doc_is_a_valid_plan() {
    let doc: String = include_str!("mod.rs")
        .lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .skip_while(|l| l.trim() != "```toml")
        .skip(1)
        .take_while(|l| l.trim() != "```")
        .map(|l| format!("{}\n", l.strip_prefix(' ').unwrap_or(l)))
        .collect();
    let p = plan(&doc);
    assert_eq!(p.name, "nvme qd sweep");
    assert_eq!(labels(&p)[..3], ["random read qd=1", "random read qd=32", "mixed qd=1 read=0 bs=4k"]);
    assert_eq!(p.points.len(), 2 + 7 * 3 * 2);
    let inline =
        plan("targets = [\"f\"]\nstep = [{ name = \"a\", qd = 2 }, { name = \"b\", matrix = { qd = [3, 4] } }]\n");
    assert_eq!(labels(&inline), ["a", "b qd=3", "b qd=4"]);
}

#[test]
fn without_steps_the_defaults_and_matrix_make_one_unnamed_step() {
    let p = plan("targets = [\"f\"]\n[defaults]\nrw = \"randwrite\"\n[matrix]\nqd = [1, 4]\nbs = [\"4k\", 65536]\n");
    assert_eq!(labels(&p), ["qd=1 bs=4k", "qd=1 bs=65536", "qd=4 bs=4k", "qd=4 bs=65536"]);
    assert_eq!(p.points[0].step, "");
    assert_eq!(p.points[3].slug, "qd4-bs65536");
    assert_eq!((p.points[3].spec.qd, p.points[3].spec.bs[0].bytes, p.points[3].spec.read_pct), (4, 65536, 0));
    assert_eq!(p.name, "p");
    assert!(p.precondition.is_none());

    let p = plan("targets = [\"f\"]\n");
    assert_eq!(labels(&p), ["randread 4k qd1 x1"]);
    assert_eq!(p.points[0].slug, "randread-4k-qd1-x1");
    assert_eq!(p.points[0].spec, AccessSpec::default());
}

#[test]
fn ranges_are_inclusive_and_in_the_unit_of_their_field() {
    assert_eq!(range(Unit::Count, "1..64 x2"), ["1", "2", "4", "8", "16", "32", "64"]);
    assert_eq!(range(Unit::Count, "1..100 x4"), ["1", "4", "16", "64"]);
    assert_eq!(range(Unit::Count, "0..100 +10").len(), 11);
    assert_eq!(range(Unit::Count, "0..100 +30"), ["0", "30", "60", "90"]);
    assert_eq!(range(Unit::Count, "5..5 +1"), ["5"]);
    assert_eq!(range(Unit::Count, " 1 .. 8x2 "), ["1", "2", "4", "8"]);
    let sizes = range(Unit::Size, "512..1m x2");
    assert_eq!(sizes.len(), 12);
    assert_eq!((sizes[0].as_str(), sizes[1].as_str(), sizes[11].as_str()), ("512", "1k", "1m"));
    assert_eq!(range(Unit::Size, "4k..16k +4k"), ["4k", "8k", "12k", "16k"]);
    assert_eq!(range(Unit::Size, "1536..4k +1536"), ["1536", "3k"]);
    assert_eq!(range(Unit::Duration, "10s..30s +10s"), ["10s", "20s", "30s"]);
    assert_eq!(range(Unit::Duration, "250ms..1s x2"), ["250ms", "500ms", "1s"]);
    assert_eq!(range(Unit::Duration, "0s..1.5s +750ms"), ["0s", "750ms", "1500ms"]);
    assert_eq!(range(Unit::Duration, "1us..3us +1us"), ["1us", "2us", "3us"]);

    // Through a plan: values are rendered back and parsed by the field.
    let p = plan("targets = [\"f\"]\n[matrix]\nbs = \"512..1m x2\"\ntime = \"1s..2s +1s\"\n");
    assert_eq!(p.points.len(), 24);
    assert_eq!(p.points[2].label, "bs=1k time=1s");
    assert_eq!((p.points[2].spec.bs[0].bytes, p.points[2].spec.time_ns), (1024, Some(1_000_000_000)));
    assert_eq!(p.points[23].spec.bs[0].bytes, 1 << 20);
    assert_eq!(p.points[23].slug, "bs1m-time2s");
}

#[test]
fn one_target_after_another_or_all_together() {
    let text = "targets = [\"/dev/sdb\", \"/dev/sdc\"]\n[matrix]\nqd = [1, 8]\n";
    let p = plan(text);
    assert_eq!(labels(&p), ["qd=1 on sdb", "qd=8 on sdb", "qd=1 on sdc", "qd=8 on sdc"]);
    let t: Vec<&[String]> = p.points.iter().map(|p| &p.targets[..]).collect();
    assert_eq!(t, [["/dev/sdb"], ["/dev/sdb"], ["/dev/sdc"], ["/dev/sdc"]]);
    assert_eq!(p.points[3].slug, "qd8-on-sdc");

    let p = plan(&format!("together = true\n{text}"));
    assert_eq!(labels(&p), ["qd=1", "qd=8"]);
    assert!(p.points.iter().all(|p| p.targets == ["/dev/sdb", "/dev/sdc"]));

    // File names that clash: the full paths tell the targets apart.
    let p = plan("targets = [\"/mnt/a/t.dat\", \"/mnt/b/t.dat\"]\n");
    assert_eq!(p.points[1].label, "randread 4k qd1 x1 on /mnt/b/t.dat");
    assert_eq!(p.points[1].slug, "randread-4k-qd1-x1-on-mnt-b-t.dat");
}

/// `--label`: a point of one drive among several is labelled by its name (slugs follow, still
/// unique), every point records its drives' names; together, labels stay; a name that is the
/// file name another drive's points are labelled by is refused.
#[test]
fn named_targets_label_their_points_and_a_name_never_stands_for_another_target() {
    use crate::names::{DriveNames, NameError};
    let text = "targets = [\"/dev/sdb\", \"/dev/sdc\"]\nrepeat = 2\n[matrix]\nqd = [1, 8]\n";
    let targets = vec!["/dev/sdb".to_string(), "/dev/sdc".to_string()];
    let names = DriveNames::parse(&["/dev/sdb=SATA II".into()], &targets).unwrap();
    let mut p = plan(text);
    p.name_targets(&names).unwrap();
    assert_eq!(labels(&p)[..2], ["qd=1 on SATA II", "qd=1 on SATA II #2"]);
    assert_eq!(labels(&p)[4], "qd=1 on sdc", "an unnamed target keeps its file name");
    let slugs: HashSet<&str> = p.points.iter().map(|p| p.slug.as_str()).collect();
    assert_eq!(slugs.len(), p.points.len());
    assert_eq!(p.points[1].slug, "qd1-on-sata-ii-2");
    assert_eq!(p.points[0].names.len(), 1);
    assert!(p.points[4].names.is_empty());
    assert_eq!(p.points[0].shown("/dev/sdb"), "SATA II");

    let mut together = plan(&format!("together = true\n{text}"));
    together.name_targets(&names).unwrap();
    assert_eq!(labels(&together)[0], "qd=1");
    assert_eq!(together.points[0].names[0].name, "SATA II");

    let clash = DriveNames::parse(&["/dev/sdb=sdc".into()], &targets).unwrap();
    let e = plan(text).name_targets(&clash).unwrap_err();
    assert!(matches!(e, NameError::AnotherTarget { ref name, .. } if name == "sdc"), "{e}");
}

#[test]
fn repeats_are_innermost_and_numbered() {
    let p =
        plan("targets = [\"f\"]\nrepeat = 3\n[[step]]\nname = \"seq\"\nrw = \"read\"\n[step.matrix]\nqd = [1, 2]\n");
    assert_eq!(labels(&p), ["seq qd=1", "seq qd=1 #2", "seq qd=1 #3", "seq qd=2", "seq qd=2 #2", "seq qd=2 #3"]);
    assert_eq!(p.points[1].slug, "seq-qd1-2");
    assert_eq!(p.points[1].spec, p.points[0].spec);
    let slugs: HashSet<&str> = p.points.iter().map(|p| p.slug.as_str()).collect();
    assert_eq!(slugs.len(), 6);
    // Unnamed steps are numbered.
    let p = plan("targets = [\"f\"]\n[[step]]\nrw = \"read\"\n[[step]]\nrw = \"write\"\n");
    assert_eq!(labels(&p), ["step 1", "step 2"]);
}

#[test]
fn command_line_targets_win() {
    let cli = vec!["/dev/sdx".to_string()];
    let p = parse("targets = [\"/dev/sdb\", \"/dev/sdc\"]\n[precondition]\nrw = \"write\"\n", "p.toml", &cli).unwrap();
    assert_eq!(p.targets, cli);
    assert_eq!(p.points.len(), 1);
    assert_eq!(p.points[0].targets, cli);
    assert_eq!(p.precondition.unwrap().targets, cli);
    let p = parse("", "dir/sweep.toml", &cli).unwrap();
    assert_eq!((p.name.as_str(), p.targets.len()), ("sweep", 1));
    let twice = vec!["a".to_string(), "a".to_string()];
    assert!(parse("", "p.toml", &twice).unwrap_err().to_string().contains("twice"));
}

#[test]
fn the_estimate_sums_points_preconditions_and_pauses() {
    let text = "targets = [\"a\", \"b\"]\npause = \"2s\"\n[defaults]\ntime = \"10s\"\nramp = \"1s\"\n\
                [precondition]\nrw = \"write\"\ntime = \"60s\"\n[matrix]\nqd = [1, 2, 4]\n";
    let p = plan(text);
    // 6 points of 11 s, 2 preconditions of 60 s, 8 runs so 7 pauses of 2 s.
    assert_eq!(p.points[0].estimate_ns, Some(11_000_000_000));
    assert_eq!(p.estimate_ns(), Some((6 * 11 + 2 * 60 + 7 * 2) * 1_000_000_000));
    let p = plan(&format!("together = true\n{text}"));
    // 3 points, 1 precondition, 3 pauses.
    assert_eq!(p.estimate_ns(), Some((3 * 11 + 60 + 3 * 2) * 1_000_000_000));
    // A point bounded only by io_size has no estimate.
    let p = plan("targets = [\"a\"]\n[matrix]\nio_size = [\"1g\", \"2g\"]\n");
    assert_eq!((p.points[0].estimate_ns, p.estimate_ns()), (None, None));
}

#[test]
fn toml_syntax_errors_point_at_the_parser_span() {
    assert_err("name = \"x\"\nrepeat = \n", "2:10", &["invalid TOML", "expected"]);
    assert_err("targets = [\"a\"]\n[defaults]\nbs = \"4k\"\nbs = \"8k\"\n", "4:1", &["duplicate key", "expected"]);
}

#[test]
fn unknown_keys_and_tables_are_named_with_the_allowed_ones() {
    assert_err(
        "targets = [\"a\"]\n  repeats = 2\n",
        "2:3",
        &["'repeats' is not a plan key", "expected one of name, targets"],
    );
    assert_err("targets = [\"a\"]\n[default]\nbs = \"4k\"\n", "2:2", &["'default'", "defaults, precondition"]);
    assert_err("targets = [\"a\"]\nbs = \"4k\"\n", "2:1", &["under [defaults]"]);
    assert_err("targets = [\"a\"]\n[defaults]\ndepth = 4\n", "3:1", &["'depth' is not an access-spec field", "qd"]);
    assert_err("[defaults]\nqd = 1\nrepeat = 2\n", "3:1", &["'repeat'", "before the first [table]"]);
    assert_err("[[step]]\nname = \"a\"\n  depht = 4\n", "3:3", &["'depht'", "qd", "name and matrix"]);
    assert_err("[matrix]\nqd = [1]\nfoo = [1]\n", "3:1", &["'foo' is not an access-spec field"]);
    assert_err("[precondition]\nname = \"x\"\n", "2:1", &["'name' is not an access-spec field"]);
}

#[test]
fn wrong_types_point_at_the_value() {
    assert_err("targets = [\"a\"]\n[defaults]\nbs = [\"4k\"]\n", "3:6", &["bs is an array", "expected a string"]);
    assert_err("targets = [\"a\"]\n[defaults]\nread = 70.5\n", "3:8", &["a float"]);
    assert_err("targets = \"/dev/sdb\"\n", "1:11", &["targets is a string", "expected a list of paths"]);
    assert_err("targets = [\"a\", 1]\n", "1:17", &["integer"]);
    assert_err("targets = [\"a\", \"a\"]\n", "1:17", &["listed twice"]);
    assert_err("together = \"yes\"\n", "1:12", &["expected true or false"]);
    assert_err("name = 3\n", "1:8", &["name is an integer", "expected a string"]);
    assert_err("pause = 5\n", "1:9", &["expected a duration"]);
    assert_err("pause = \"5\"\n", "1:9", &["no unit", "5s"]);
    assert_err("defaults = 4\n", "1:12", &["expected a table"]);
    assert_err("targets = [\"a\"]\n[[step]]\nname = \"a\"\n[[step]]\nname = \"a\"\n", "5:8", &["comes earlier"]);
}

#[test]
fn bad_ranges_say_what_was_expected() {
    let expected = r#"expected a range like "1..64 x2" or "0..100 +10", or a list"#;
    assert_err("[matrix]\nqd = \"64..1 x2\"\n", "2:6", &["start 64 is above the end 1", expected]);
    assert_err("[matrix]\nqd = \"1..64 x1\"\n", "2:6", &["factor 1 is below 2", expected]);
    assert_err("[matrix]\n\nqd = \"1..64 x1.5\"\n", "3:6", &["factor '1.5'"]);
    assert_err("[matrix]\nread = \"0..100 +0\"\n", "2:8", &["step is 0", expected]);
    assert_err("[matrix]\nseed = \"0..20000 +1\"\n", "2:8", &["more than 10000 values"]);
    assert_err("[matrix]\nqd = \"1..64\"\n", "2:6", &["no step"]);
    assert_err("[matrix]\nqd = \"4\"\n", "2:6", &["not a range", expected]);
    assert_err("[matrix]\nqd = 4\n", "2:6", &["qd is an integer", expected]);
    assert_err("[matrix]\nbs = \"512..1MB x2\"\n", "2:6", &["end '1MB' is ambiguous"]);
    assert_err("[matrix]\nqd = \"0..8 x2\"\n", "2:6", &["cannot start at 0"]);
    assert_err("[matrix]\nrw = \"read..write x2\"\n", "2:6", &["rw takes no ranges", "expected a list such as rw = ["]);
    assert_err("[matrix]\ndirect = true\n", "2:10", &["direct takes no ranges", "[true, false]"]);
    // A range whose values the field refuses: at the range.
    assert_err("[matrix]\nread = \"50..200 +50\"\n", "2:8", &["gives 150", "outside 0..100"]);
}

#[test]
fn values_the_fields_refuse_point_at_the_value() {
    assert_err("targets = [\"a\"]\n[defaults]\nqd = 0\n", "3:6", &["qd 0"]);
    assert_err("targets = [\"a\"]\n[defaults]\nbs = \"4KB\"\n", "3:6", &["'4KB' is ambiguous", "4KiB"]);
    assert_err("[[step]]\nrw = \"randomread\"\n", "2:6", &["'randomread'", "randread"]);
    assert_err("[matrix]\nqd = [1, 0, 4]\n", "2:10", &["qd 0"]);
    assert_err("[precondition]\ntime = 30\n", "2:8", &["no unit", "30s"]);
    assert_err("[matrix]\nqd = [1, 1]\n", "2:10", &["lists 1 twice"]);
    assert_err("[matrix]\nqd = [1, [2]]\n", "2:10", &["an array"]);
}

#[test]
fn combinations_point_at_the_step_header_or_the_defaults() {
    let e = err("targets = [\"a\"]\n\n  [defaults]\nengine = \"psync\"\n[matrix]\nqd = [1, 8]\n");
    assert!(e.starts_with("p.toml:3:3: point 'qd=8': qd 8 with engine psync"), "{e}");
    assert_err(
        "targets = [\"a\"]\n[[step]]\nname = \"ok\"\n[[step]]\nname = \"psync\"\nengine = \"psync\"\n[step.matrix]\nqd = [1, 4]\n",
        "4:1",
        &["point 'psync qd=4'", "jobs 4"],
    );
    assert_err("targets = [\"a\"]\n[defaults]\nengine = \"psync\"\nqd = 2\n", "2:1", &["[defaults]: qd 2"]);
    assert_err("[precondition]\nengine = \"psync\"\nqd = 2\n", "1:1", &["[precondition]: qd 2"]);
    assert_err(
        "targets = [\"a\"]\n[defaults]\nengine = \"psync\"\n[[step]]\nname = \"deep\"\nqd = 2\n",
        "4:1",
        &["step 'deep': qd 2"],
    );
}

#[test]
fn repeat_negative_numbers_empty_axes_and_no_targets_are_refused() {
    assert_err("targets = [\"a\"]\nrepeat = 0\n", "2:10", &["repeat = 0", "expected a whole number of 1 or more"]);
    assert_err("targets = [\"a\"]\nrepeat = -2\n", "2:10", &["negative"]);
    assert_err("targets = [\"a\"]\n[defaults]\nqd = -1\n", "3:6", &["qd = -1: negative numbers are not allowed"]);
    assert_err("[matrix]\nqd = [4, -1]\n", "2:10", &["negative"]);
    assert_err("[matrix]\nqd = []\n", "2:6", &["without values", "expected a list of at least one value"]);
    assert_err(
        "name = \"x\"\n",
        "1:1",
        &["the plan names no targets: add targets = [...] or give them on the command line"],
    );
    assert_err("targets = []\n", "1:11", &["names no targets"]);
    assert_err(
        "targets = [\"a\"]\nrepeat = 1000\n[matrix]\nseed = \"1..1000 +1\"\n",
        "2:10",
        &["more than 100000 points"],
    );
}

#[test]
fn locations_count_characters_not_bytes() {
    assert_err("name = \"ü\"; oops\n", "1:11", &["invalid TOML"]);
    let src = Src { text: "ab\ncü", file: "f" };
    assert_eq!(src.at(&Some(6..6)), "f:2:3");
    assert_eq!(src.at(&None), "f:1:1");
}

#[test]
fn slugs_are_file_name_safe() {
    let mut taken = HashSet::new();
    assert_eq!(unique_slug("a b", &mut taken), "a-b");
    assert_eq!(unique_slug("a/b", &mut taken), "a-b-2");
    assert_eq!(unique_slug("%%", &mut taken), "point");
}

#[test]
fn load_reads_the_file_and_names_the_plan_after_it() {
    let dir = std::env::temp_dir().join(format!("drivelab-plan-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("qd-sweep.toml");
    std::fs::write(&path, "targets = [\"f\"]\n[matrix]\nqd = \"1..4 x2\"\n").unwrap();
    let p = load(&path, &[]).unwrap();
    assert_eq!((p.name.as_str(), p.points.len()), ("qd-sweep", 3));
    std::fs::write(&path, b"targets = [\"f\"]\nname = \"\xff\"\n").unwrap();
    let e = load(&path, &[]).unwrap_err().to_string();
    assert!(e.contains("qd-sweep.toml:2:9: ") && e.contains("UTF-8"), "{e}");
    let e = load(&dir.join("missing.toml"), &[]).unwrap_err();
    assert!(e.is_invalid() && e.to_string().contains("no such file"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn fio_spellings_give_the_points_of_drivelabs_own() {
    let fio = parse_file(
        r#"
filename = "/dev/sdb:/dev/sdc"
size = "2g"
[defaults]
blocksize = "64k"
runtime = 30
ioengine = "libaio"
direct = 0
numjobs = 2
[[step]]
name = "mixed"
readwrite = "randrw"
rwmixwrite = 30
[step.matrix]
iodepth = "1..4 x2"
"#,
        "p.toml",
        &[],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let own = plan(
        r#"
targets = ["/dev/sdb", "/dev/sdc"]
[defaults]
bs = "64k"
time = "30s"
engine = "libaio"
buffered = true
jobs = 2
[[step]]
name = "mixed"
rw = "randrw"
read = 70
[step.matrix]
qd = [1, 2, 4]
"#,
    );
    assert_eq!(fio.new_file_bytes, Some(2 << 30));
    assert_eq!(fio.plan.targets, own.targets);
    let specs = |p: &Plan| p.points.iter().map(|p| (p.spec.clone(), p.targets.clone())).collect::<Vec<_>>();
    assert_eq!(specs(&fio.plan), specs(&own));
    assert_eq!(fio.plan.points[0].label, "mixed iodepth=1 on sdb");
    assert!(fio.plan.notices().is_empty() && own.notices().is_empty(), "libaio runs libaio: nothing to say");
    // A step's fio spelling replaces the defaults' own (and the record keeps one of them).
    let p = plan("targets = [\"t\"]\n[defaults]\nqd = 4\n[[step]]\niodepth = 8\n");
    assert_eq!(p.points[0].spec.qd, 8);
    assert_eq!(p.points[0].fields, [("iodepth".to_string(), "8".to_string())]);
    // runtime ranges are in seconds when bare.
    let p = plan("targets = [\"t\"]\n[matrix]\nruntime = \"10..30 +10\"\n");
    let times: Vec<_> = p.points.iter().map(|p| p.spec.time_ns).collect();
    assert_eq!(times, [Some(10_000_000_000), Some(20_000_000_000), Some(30_000_000_000)]);
}

#[test]
fn fio_spellings_that_would_be_ambiguous_are_refused_where_written() {
    assert_err("targets = [\"t\"]\n[defaults]\nqd = 4\niodepth = 8\n", "4:1", &["iodepth and qd both set qd"]);
    assert_err("targets = [\"t\"]\nfilename = \"t\"\n", "2:1", &["filename", "targets", "only one"]);
    assert_err("filename = \"a::b\"\n", "1:12", &["empty target"]);
    assert_err("targets = [\"t\"]\nsize = \"1000\"\n", "2:8", &["size 1000", "multiple of 4096"]);
    assert_err(
        "targets = [\"t\"]\n[defaults]\nrwmixread = 70\nrwmixwrite = 40\nrw = \"randrw\"\n",
        "4:1",
        &["rwmixwrite 40", "add up to 100"],
    );
    // rwmixread without a mixed rw at the point: fio would ignore it.
    assert_err(
        "targets = [\"t\"]\n[defaults]\nrwmixread = 70\n[[step]]\nrw = \"randread\"\n",
        "4:1",
        &["rwmixread 70", "only to a mixed workload"],
    );
    assert_err(
        "targets = [\"t\"]\n[defaults]\nruntime = \"1.5\"\n",
        "3:11",
        &["runtime '1.5'", "whole part of a fraction"],
    );
    assert_err("targets = [\"t\"]\n[defaults]\nioengine = \"windowsaio\"\n", "3:12", &["ioengine 'windowsaio'"]);
    assert_err("targets = [\"t\"]\n[defaults]\nsize = \"1g\"\n", "3:1", &["before the first [table]"]);
}

#[test]
fn count_lists_take_values_and_ranges_as_an_axis_does() {
    assert_eq!(count_list("1,2,4..32 x2").unwrap(), [1, 2, 4, 8, 16, 32]);
    assert_eq!(count_list("1..32x2").unwrap(), [1, 2, 4, 8, 16, 32]);
    assert_eq!(count_list("8, 1..3 +1").unwrap(), [8, 1, 2, 3]);
    assert_eq!(count_list("32").unwrap(), [32]);
    assert!(count_list("1,2,2").unwrap_err().contains("2 is given twice"));
    assert!(count_list("1,,4").unwrap_err().contains("empty item"));
    assert!(count_list("1..32").unwrap_err().contains("no step"), "a range's own error");
    assert!(count_list("four").unwrap_err().contains("'four' is not a whole number"));
}
