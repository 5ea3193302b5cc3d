//! The HTML report checked in a real browser: headless Chromium loads it without console
//! errors, every chart is drawn (an SVG with content in the DOM), the page fetches nothing, a
//! screenshot is not blank, and no text of a chart overlaps another or leaves its chart, nor
//! any table or chart the page (measured by the browser's own layout of the text). Skips, saying why, where Chromium is not installed (.ci/run
//! installs Debian's chromium package).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{drivelab, stderr, Scratch};

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
    if !crate::common::full_tier() {
        return;
    }
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
    let m = measure(&bin, &s.0.join("measure"), &report);
    assert!(m.problems.is_empty(), "{}: {:#?}", report.display(), m.problems);

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
    if !crate::common::full_tier() {
        return;
    }
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
        let m = measure(&bin, &s.0.join(format!("measure-{}", title.len())), &report);
        assert!(m.svgs >= 1 && m.texts > 10, "{m:?}");
        assert!(m.problems.is_empty(), "{}: {:#?}", report.display(), m.problems);
    }
}

/// What the browser measured of a page's text.
#[derive(Debug)]
struct Measured {
    svgs: usize,
    texts: usize,
    /// "overlap|svg index|text|text", "outside|svg index|text", "wide|TAG|right>page right".
    problems: Vec<String>,
}

/// Each SVG `<text>` box as the browser lays it out (getBoundingClientRect, after rotation): two
/// boxes of one chart sharing more than a pixel each way overlap; a box past its SVG's edge
/// leaves it; a table or chart past the page's right edge runs off the page.
const MEASURE_JS: &str = r#"(function () {
  var out = [], texts = 0, svgs = document.querySelectorAll('svg');
  var page = document.body.getBoundingClientRect();
  svgs.forEach(function (svg, si) {
    var sr = svg.getBoundingClientRect(), rs = [];
    svg.querySelectorAll('text').forEach(function (t) {
      var s = t.textContent.trim();
      if (!s) return;
      var r = t.getBoundingClientRect();
      texts++;
      if (r.left < sr.left - 0.5 || r.right > sr.right + 0.5 || r.top < sr.top - 0.5 || r.bottom > sr.bottom + 0.5)
        out.push('outside|' + si + '|' + s);
      rs.push([r, s]);
    });
    for (var i = 0; i < rs.length; i++)
      for (var j = i + 1; j < rs.length; j++) {
        var a = rs[i][0], b = rs[j][0];
        var w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        var h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (w > 1 && h > 1) out.push('overlap|' + si + '|' + rs[i][1] + '|' + rs[j][1]);
      }
  });
  document.querySelectorAll('table, svg').forEach(function (t) {
    var r = t.getBoundingClientRect();
    if (r.right > page.right + 1) out.push('wide|' + t.tagName + '|' + Math.round(r.right) + '>' + Math.round(page.right));
  });
  var pre = document.createElement('pre');
  pre.id = 'measured';
  pre.textContent = svgs.length + ' ' + texts + '\n' + out.join('\n');
  document.body.appendChild(pre);
})();"#;

/// `page` measured in headless Chromium at 1100 px wide: a copy with [`MEASURE_JS`] (the
/// report itself has no script) dumped after load.
fn measure(bin: &str, profile: &Path, page: &Path) -> Measured {
    let html = std::fs::read_to_string(page).unwrap();
    let copy = profile.with_extension("measure.html");
    std::fs::write(&copy, html.replace("</body>", &format!("<script>{MEASURE_JS}</script></body>"))).unwrap();
    let o = browser(bin, profile, &["--window-size=1100,800", "--dump-dom"], &copy);
    assert!(o.status.success(), "chromium failed: {}", String::from_utf8_lossy(&o.stderr));
    let dom = String::from_utf8_lossy(&o.stdout);
    let start = dom.find("<pre id=\"measured\">").expect("the measuring script ran") + "<pre id=\"measured\">".len();
    let text = &dom[start..start + dom[start..].find("</pre>").expect("closed pre")];
    let text = text.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">");
    let mut lines = text.lines();
    let mut head = lines.next().expect("counts").split(' ').map(|n| n.parse::<usize>().expect("a count"));
    let (svgs, texts) = (head.next().unwrap(), head.next().unwrap());
    Measured { svgs, texts, problems: lines.filter(|l| !l.is_empty()).map(String::from).collect() }
}

#[test]
fn no_chart_text_overlaps_or_leaves_its_chart_on_an_iometer_report_or_a_compare_page() {
    if !crate::common::full_tier() {
        return;
    }
    let Some(bin) = chromium() else {
        common::skip("chromium is not installed (apt-get install chromium)");
        return;
    };
    let s = Scratch::new("browser-overlap");
    let (a, b) = (s.path("a.dat"), s.path("b.dat"));
    // Iometer's 32 outstanding I/Os per disk on two disks: 64 bars a chart, and column names
    // ("32 DQL/Disk") wider than their columns.
    let io = s.path("iometer");
    let o = drivelab(&[
        "suite",
        "iometer",
        &a,
        &b,
        "--size",
        "8m",
        "--dql",
        "32",
        "--time",
        "10ms",
        "--results",
        &io,
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report = results_dir(&io).join("report.html");
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(html.contains("p99 latency against IOPS") && html.contains("Latency exceedance"), "hockey and tail charts");
    // The PNG export draws the same charts.
    let pngs = s.path("png");
    let o = drivelab(&["report", &results_dir(&io).to_string_lossy(), "--png", &pngs]);
    assert!(o.status.success(), "{}", stderr(&o));
    let names: Vec<String> =
        std::fs::read_dir(&pngs).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    for kind in ["against-iops", "exceedance"] {
        assert!(names.iter().any(|n| n.contains(kind) && n.ends_with(".png")), "a {kind} PNG in {names:?}");
    }
    // The same plan on each device, compared.
    let mut runs = Vec::new();
    for (t, name) in [(&a, "qa"), (&b, "qb")] {
        let dir = s.path(name);
        let o = drivelab(&["suite", "quick", t, "--size", "8m", "--time", "20ms", "--results", &dir, "-q"]);
        assert!(o.status.success(), "{}", stderr(&o));
        runs.push(results_dir(&dir).to_string_lossy().into_owned());
    }
    let cmp = s.path("compare.html");
    let o = drivelab(&["compare", &runs[0], &runs[1], "-o", &cmp]);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = std::fs::read_to_string(&cmp).unwrap();
    for part in ["Run facts", "Latency percentiles per run", "Latency exceedance per run", "command line"] {
        assert!(page.contains(part), "the compare page has {part}");
    }
    // The panels a review draws beside a suite's tables (issue #38): JBOD's bars per workload,
    // the mixed curve's 70/30 bars per drive, bsqd's IOPS lines per block size; and a log panel.
    let mut pages = vec![(report, 8 + 2 + 8 + 3), (PathBuf::from(&cmp), 4 + 2)];
    for (suite, targets, time, min_svgs) in [
        ("jbod", vec![a.as_str(), b.as_str()], "20ms", 5 + 4 * 4),
        ("mixed", vec![a.as_str(), b.as_str()], "20ms", 2 * 3),
        ("bsqd", vec![a.as_str()], "5ms", 4 + 2),
    ] {
        let dir = s.path(suite);
        let mut args = vec!["suite", suite];
        args.extend(&targets);
        args.extend(["--size", "8m", "--time", time, "--results", &dir, "-q"]);
        let o = drivelab(&args);
        assert!(o.status.success(), "{suite}: {}", stderr(&o));
        let page = results_dir(&dir).join("report.html");
        let html = std::fs::read_to_string(&page).unwrap();
        let panel = match suite {
            "jbod" => ": MB/s by number of drives",
            "mixed" => "70/30 read/write, per drive",
            _ => "a line per block size",
        };
        assert!(html.contains(panel), "{suite}: {panel}");
        pages.push((page, min_svgs));
    }
    for (file, min_svgs) in pages {
        let m = measure(&bin, &s.0.join(format!("profile-{min_svgs}")), &file);
        // Every chart measured has its words (titles, ticks, legends): how many depends on the data.
        assert!(m.svgs >= min_svgs && m.texts > 10 * min_svgs, "{}: {m:?}", file.display());
        assert!(m.problems.is_empty(), "{}: {:#?}", file.display(), m.problems);
    }
}
