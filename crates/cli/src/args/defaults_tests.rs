//! The CLI's defaults against the lab's and the engine's, where each is defined: a flag whose
//! default drifts from what it configures fails here.

use super::*;
use drivelab_engine::spec::AccessSpec;
use drivelab_lab::steady::SteadyRule;

fn cli(argv: &[&str]) -> Command {
    let mut v = vec!["drivelab"];
    v.extend_from_slice(argv);
    Cli::try_parse_from(v).unwrap_or_else(|e| panic!("{argv:?}: {e}")).command.unwrap()
}

fn points(argv: &[&str]) -> PointsArgs {
    match cli(argv) {
        Command::Plan(p) => p.steady,
        Command::Suite(s) => s.steady,
        _ => unreachable!(),
    }
}

#[test]
fn a_plans_flags_default_to_the_labs_steady_state_and_repeat_rules() {
    for argv in [&["plan", "p.toml", "null"][..], &["suite", "bsqd", "null"][..]] {
        let given = points(argv);
        assert_eq!(given, PointsArgs::default(), "{argv:?}: clap's defaults are the lab's");
        assert_eq!(given.repeat().unwrap(), Repeat::default());
        assert_eq!(given.rule().unwrap(), None, "no --steady, no rule");
    }
    let steady = points(&["plan", "p.toml", "null", "--steady"]);
    assert_eq!(steady.rule().unwrap(), Some(SteadyRule::default()), "--steady alone is the PTS's rule");
    let median = points(&["plan", "p.toml", "null", "--repeat", "3", "--pick", "median"]);
    assert_eq!(median.repeat().unwrap(), Repeat { runs: 3, pick: Pick::Median });
}

#[test]
fn a_bare_run_is_the_engines_default_spec() {
    let Command::Run(r) = cli(&["run", "null"]) else { unreachable!() };
    assert_eq!(r.spec().unwrap(), AccessSpec::default(), "run's flag defaults are AccessSpec::default()");
}

#[test]
fn the_spec_flags_given_are_clap_s_account_not_a_comparison_with_a_fake_argv() {
    use clap::{CommandFactory, FromArgMatches};
    let given = |argv: &[&str]| {
        let mut v = vec!["drivelab", "run", "job.fio"];
        v.extend_from_slice(argv);
        let m = Cli::command().try_get_matches_from(v).unwrap();
        let Some(Command::Run(mut r)) = Cli::from_arg_matches(&m).unwrap().command else { unreachable!() };
        r.note_given();
        r.given_spec_flags
    };
    // --bs 4k is the default's value, and given: a bare run's fields hid it.
    assert_eq!(given(&["--bs", "4k", "--iodepth", "8"]), ["--bs", "--iodepth"]);
    assert_eq!(given(&["--results", "r", "-q", "--var", "BS=4k", "--overwrite"]), Vec::<String>::new(), "not the spec");
    assert_eq!(given(&[]), Vec::<String>::new());
}

#[test]
fn a_stray_value_reads_as_one_and_a_name_does_not() {
    for (w, kind) in [
        ("5KB", "a size"),
        ("4k", "a size"),
        ("100", "a size"),
        ("1g", "a size"),
        ("500ms", "a duration"),
        ("1.5s", "a duration"),
        ("50%", "a share"),
        ("yes", "a switch's value"),
        ("OFF", "a switch's value"),
    ] {
        assert_eq!(super::reads_as_value(w), Some(kind), "{w}");
    }
    for w in ["./5KB", "null", "disk.img", "/dev/loop0", "4k.dat", "2024-run", "0x", "%", "", "yesterday"] {
        assert_eq!(super::reads_as_value(w), None, "{w}");
    }
}
