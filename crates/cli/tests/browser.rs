//! The HTML report checked in a real browser: headless Chromium loads it without console
//! errors, every chart is drawn (an SVG with content in the DOM), the page fetches nothing, and
//! a screenshot is not blank. Skips, saying why, where Chromium is not installed (.ci/run
//! installs Debian's chromium package).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{drivelab, stderr, Scratch};

fn chromium() -> Option<String> {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find(|b| Command::new(b).arg("--version").output().map(|o| o.status.success()).unwrap_or(false))
        .map(|b| b.to_string())
}

fn browser(bin: &str, profile: &Path, extra: &[&str], page: &Path) -> std::process::Output {
    Command::new(bin)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"])
        .args(["--disable-background-networking", "--disable-component-update", "--disable-sync"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("run chromium")
}

/// The page in headless Chromium: `charts` SVGs survive loading, each with drawn content (a
/// sparkline: its line and tooltip), and the console shows no errors.
fn loads_cleanly(bin: &str, profile: &Path, report: &Path, charts: usize) {
    let o = browser(bin, profile, &["--enable-logging=stderr", "--v=0", "--dump-dom"], report);
    let dom = String::from_utf8_lossy(&o.stdout);
    let log = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "chromium failed: {log}");
    assert_eq!(dom.matches("<svg").count(), charts, "every chart survives loading");
    for svg in dom.split("<svg").skip(1) {
        let body = &svg[..svg.find("</svg>").expect("closed svg")];
        let marks = body.matches("<path").count()
            + body.matches("<rect").count()
            + body.matches("<polyline").count()
            + body.matches("<circle").count()
            + body.matches("<line").count();
        // A sparkline is its zero line and its series (or "no data"), with a tooltip.
        let spark = body[..body.find('>').unwrap_or(0)].contains(r#"class="spark""#);
        if spark {
            assert!(marks >= 1 && body.contains("<title>") && body.contains("<text"), "an empty sparkline: {body}");
        } else {
            assert!(marks >= 3, "an empty chart: {}", &body[..body.len().min(200)]);
        }
    }
    let console_errors: Vec<&str> =
        log.lines().filter(|l| l.contains("CONSOLE") && (l.contains("rror") || l.contains("Uncaught"))).collect();
    assert!(console_errors.is_empty(), "console errors: {console_errors:?}");
}

fn results_dir(base: &str) -> PathBuf {
    std::fs::read_dir(base).unwrap().next().unwrap().unwrap().path()
}

#[test]
fn the_report_renders_in_a_real_browser_with_every_chart_drawn() {
    let Some(bin) = chromium() else {
        common::skip("chromium is not installed (apt-get install chromium)");
        return;
    };
    let s = Scratch::new("browser");
    let results = s.path("results");
    let o = drivelab(&["suite", "quick", "null", "--time", "150ms", "--results", &results, "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report = results_dir(&results).join("report.html");
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(html.starts_with("<!doctype html>"));
    for external in ["<script", "<link", "src=\"http", "href=\"http", "url(http"] {
        assert!(!html.contains(external), "the report must be self-contained: found {external}");
    }
    let charts = html.matches("<svg").count();
    let sparks = html.matches(r#"class="spark""#).count();
    assert_eq!(sparks, 2 * 8, "an IOPS and a p99 sparkline for each of the 8 points");
    assert!(charts >= 4 + 2 + sparks, "one chart per table, latency charts, sparklines: {charts}");

    // The DOM after load: every chart is still an SVG with drawn content; no console errors.
    loads_cleanly(&bin, &s.0.join("profile"), &report, charts);

    // A screenshot (the same command anyone can run) that is not blank.
    let png = s.0.join("shot.png");
    let o = Command::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/report-screenshot"))
        .arg(&report)
        .arg(&png)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&png).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let px = &buf[..info.buffer_size()];
    let channels = info.color_type.samples();
    let non_white = px.chunks(channels).filter(|c| c.iter().take(3).any(|&v| v < 200)).count();
    let total = px.len() / channels;
    assert!(non_white * 100 > total, "the screenshot is (almost) blank: {non_white} of {total} pixels drawn");
}

#[test]
fn qos_and_act_reports_render_in_a_real_browser_with_their_charts_drawn() {
    let Some(bin) = chromium() else {
        eprintln!("skipped: chromium is not installed (apt-get install chromium)");
        return;
    };
    let s = Scratch::new("browser-search");
    let (qos_results, act_results) = (s.path("qos"), s.path("act"));
    let target = s.path("t.dat");
    let o = drivelab(&[
        "qos",
        &target,
        "--size",
        "32m",
        "--objective",
        "p99<2ms,p99.9<10ms",
        "--time",
        "300ms",
        "--by",
        "qd",
        "--max-qd",
        "4",
        "--results",
        &qos_results,
        "-q",
    ]);
    assert!(o.status.code().is_some_and(|c| c == 0 || c == 3), "{}", stderr(&o));
    let o = drivelab(&[
        "act",
        &target,
        "--size",
        "32m",
        "--time",
        "2s",
        "--slice",
        "1s",
        "--no-prep",
        "--overwrite",
        "--power-cmd",
        "echo 5",
        "--results",
        &act_results,
        "-q",
    ]);
    assert!(o.status.code().is_some_and(|c| c == 0 || c == 3), "{}", stderr(&o));
    for (base, title) in [(&qos_results, "Probe ladder"), (&act_results, "per slice")] {
        let report = results_dir(base).join("report.html");
        let html = std::fs::read_to_string(&report).unwrap();
        assert!(html.contains(title), "{title} in {}", report.display());
        for external in ["<script", "<link", "src=\"http", "href=\"http", "url(http"] {
            assert!(!html.contains(external), "the report must be self-contained: found {external}");
        }
        let charts = html.matches("<svg").count();
        assert!(charts >= 1, "a chart in {}", report.display());
        loads_cleanly(&bin, &s.0.join(format!("profile-{charts}-{}", title.len())), &report, charts);
    }
}
