//! Text from someone else (issue #39, items 4 and 5), through the binary: a plan whose step name
//! holds a terminal title change (OSC), a screen clear (CSI), a bell, a carriage return, a bidi
//! override, a spreadsheet formula and HTML; a `compare --label` and a fio job name with the
//! same. No text output — the run's own lines, `report` as text, Markdown and CSV (to stdout
//! and to files), `compare`, fio's normal, terse and JSON output — carries a character a
//! terminal obeys; CSV cells holding a formula start with `'`; Markdown holds no tag.

use drivelab_engine::printable::is_unsafe;

use crate::common::*;

/// Everything hostile at once (TOML escapes: the plan file itself is plain text).
const HOSTILE_TOML: &str =
    r#"\u001b]0;PWNED\u0007\u001b[2J\rPASS \u202eSSAP =HYPERLINK(\"http://x\") <script>alert(1)</script>"#;

/// `text` (what `what` printed) holds nothing a terminal obeys.
fn clean(what: &str, text: &str) {
    if let Some(c) = text.chars().find(|c| is_unsafe(*c)) {
        panic!("{what} passed U+{:04X} through:\n{text}", c as u32);
    }
}

fn newest(base: &str) -> String {
    let mut d: Vec<_> = std::fs::read_dir(base).unwrap().flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
    d.sort();
    d.pop().unwrap().to_string_lossy().into_owned()
}

#[test]
fn no_text_output_passes_escapes_formulas_or_tags_from_saved_names() {
    let s = Scratch::new("text-hostile");
    let plan = s.path("p.toml");
    std::fs::write(
        &plan,
        format!(
            "[defaults]\ntime = \"30ms\"\nbs = \"4k\"\n\n[[step]]\nname = \"{HOSTILE_TOML}\"\nrw = \"randread\"\n\n\
             [[step]]\nname = \"=HYPERLINK(\\\"http://x\\\",\\\"ok\\\")\"\nrw = \"randwrite\"\n\n\
             [[step]]\nname = '[link](javascript:alert(1)) \\[x\\](javascript:2)'\nrw = \"read\"\n"
        ),
    )
    .unwrap();
    let (ra, rb) = (s.path("a"), s.path("b"));
    for r in [&ra, &rb] {
        let o = drivelab(&["plan", &plan, "null", "--results", r]);
        assert!(o.status.success(), "{}", stderr(&o));
        clean("the plan's run", &(stdout(&o) + &stderr(&o)));
    }
    let (a, b) = (newest(&ra), newest(&rb));
    for format in ["text", "md", "csv", "json"] {
        let o = drivelab(&["report", &a, "--format", format]);
        assert!(o.status.success(), "{format}: {}", stderr(&o));
        let out = stdout(&o);
        clean(&format!("report --format {format}"), &(out.clone() + &stderr(&o)));
        match format {
            "md" => {
                assert!(!out.contains('<') && out.contains(r"&lt;script\>"), "Markdown holds a tag:\n{out}");
                // A link in a name is text: its brackets escaped (and a backslash before one).
                assert!(out.contains(r"\[link\](javascript:alert(1))"), "Markdown holds a link:\n{out}");
                assert!(out.contains(r"\\\[x\\\](javascript:2)"), "Markdown holds a link:\n{out}");
            }
            "csv" => {
                // A cell starting with a formula is text; no cell starts with one.
                assert!(out.contains("\"'=HYPERLINK("), "{out}");
                assert!(!out.contains(",=") && !out.contains(",\"="), "{out}");
            }
            "json" => {
                // Escaped as JSON escapes it: the same value comes back.
                let v: serde_json::Value = serde_json::from_str(&out).expect("still JSON");
                assert!(v.to_string().contains("PWNED"), "{out}");
            }
            _ => assert!(out.contains("\\u001b]0;PWNED\\u0007"), "escaped, visibly:\n{out}"),
        }
    }
    // The tidy CSV, a cell per field: the label's cell starts with the quote.
    let o = drivelab(&["report", &a, "--format", "csv", "--series"]);
    assert!(o.status.success(), "{}", stderr(&o));
    clean("report --series", &stdout(&o));
    // A file written by -o, and compare with a hostile --label.
    let md = s.path("r.md");
    let o = drivelab(&["report", &a, "--format", "md", "-o", &md]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&md).unwrap();
    clean("report -o r.md", &text);
    assert!(!text.contains("<script"), "{text}");
    assert!(text.starts_with("# "), "-o with --format md writes Markdown (it wrote HTML):\n{text}");
    // JSON streamed into a file is escaped as the JSON streamed to stdout, byte for byte.
    let json = s.path("r.json");
    let o = drivelab(&["report", &a, "--format", "json", "-o", &json]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&json).unwrap();
    clean("report -o r.json", &text);
    assert_eq!(text, stdout(&drivelab(&["report", &a, "--format", "json"])));
    // So is the HTML page streamed to stdout: clean, and the page -o writes.
    let html = s.path("r.html");
    let o = drivelab(&["report", &a, "-o", &html]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = drivelab(&["report", &a, "--format", "html"]);
    assert!(o.status.success(), "{}", stderr(&o));
    clean("report --format html", &stdout(&o));
    assert_eq!(stdout(&o), std::fs::read_to_string(&html).unwrap());
    let label = "\u{1b}]8;;http://evil\u{7}click\u{1b}]8;;\u{7}";
    for format in ["text", "md", "csv"] {
        let o = drivelab(&["compare", &a, &b, "--label", label, "--label", "=1+1", "--format", format]);
        assert!(o.status.success(), "compare {format}: {}", stderr(&o));
        clean(&format!("compare --format {format}"), &(stdout(&o) + &stderr(&o)));
        if format == "csv" {
            assert!(!stdout(&o).lines().any(|l| l.starts_with("=1+1") || l.contains(",=1+1")), "{}", stdout(&o));
        }
    }
}

#[test]
fn fio_mode_escapes_a_hostile_job_name_in_every_format() {
    let s = Scratch::new("text-fio");
    let name = "--name=\u{1b}[2J\u{1b}]0;x\u{7}job\r";
    for format in ["normal", "terse", "json"] {
        let o = drivelab(&[
            "fio",
            name,
            "--ioengine=null",
            "--size=1m",
            "--bs=4k",
            "--results",
            &s.path(format),
            &format!("--output-format={format}"),
        ]);
        assert!(o.status.success(), "{format}: {}", stderr(&o));
        clean(&format!("fio --output-format={format}"), &(stdout(&o) + &stderr(&o)));
        if format == "json" {
            let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("still JSON");
            assert_eq!(v["jobs"][0]["jobname"], "\u{1b}[2J\u{1b}]0;x\u{7}job\r", "the same name, as JSON escapes it");
        }
    }
}
