//! Fitting a table into the width it is printed at. A table row that wraps reads as two rows, and
//! one that is cut loses figures; so a table wider than the screen is reshaped, in this order,
//! until it fits: its paths are abbreviated from the left (the end of a path names the file),
//! then it is transposed (rows become columns: a sweep of 32 queue depths over 4 workloads reads
//! as 32 rows), else its columns are split into groups that each fit, the row labels repeated.
//! A reshaped table says so in one line, so a reader never takes a group for the whole.
//!
//! The width is the process's: 80 unless the program says otherwise ([`set_width`]: drivelab
//! sets its stdout's width, from the terminal, else `$COLUMNS`, else 80, once at start). A
//! process-wide setting rather than an argument: every table renderer (plan, suite, compare,
//! report views) reaches the text through [`crate::grid`], and none of them needs to know where
//! the text goes.

use std::sync::atomic::{AtomicUsize, Ordering};

/// The width when nothing says otherwise: what a log, a mail or a review quotes.
pub const DEFAULT_WIDTH: usize = 80;

/// Narrower than this, no table is reshaped further (its rows would be single numbers).
const MIN_WIDTH: usize = 40;

/// The fewest columns an abbreviated path keeps (with its `…`).
const MIN_PATH: usize = 16;

/// The narrowest a column of prose (a reason, a verdict) is wrapped to.
const MIN_PROSE: usize = 24;

static WIDTH: AtomicUsize = AtomicUsize::new(DEFAULT_WIDTH);

/// Set the width tables are fitted to (0 is taken as the default).
pub fn set_width(width: usize) {
    WIDTH.store(if width == 0 { DEFAULT_WIDTH } else { width }, Ordering::Relaxed);
}

/// The width tables are fitted to.
pub fn width() -> usize {
    WIDTH.load(Ordering::Relaxed)
}

fn cols(s: &str) -> usize {
    s.chars().count()
}

/// `text` in at most `room` columns, its start replaced by `…` when it does not fit.
pub fn keep_end(text: &str, room: usize) -> String {
    let n = cols(text);
    if n <= room || room < 2 {
        return text.to_string();
    }
    let mut short = String::from("…");
    short.extend(text.chars().skip(n - (room - 1)));
    short
}

/// A cell's width: its widest line (a wrapped cell has several).
fn cell_width(c: &str) -> usize {
    c.lines().map(cols).max().unwrap_or(0)
}

fn widths(grid: &[Vec<String>]) -> Vec<usize> {
    let n = grid.first().map_or(0, Vec::len);
    (0..n).map(|i| grid.iter().map(|r| r.get(i).map_or(0, |c| cell_width(c))).max().unwrap_or(0)).collect()
}

/// The columns a row of `grid` takes: its cells two spaces apart.
fn total(grid: &[Vec<String>]) -> usize {
    let w = widths(grid);
    w.iter().sum::<usize>() + 2 * w.len().saturating_sub(1)
}

fn render(grid: &[Vec<String>], words: &[bool]) -> String {
    let w = widths(grid);
    let mut out = String::new();
    for row in grid {
        // A wrapped cell takes several lines; the row's other cells are blank on the later ones.
        let height = row.iter().map(|c| c.lines().count()).max().unwrap_or(1).max(1);
        for k in 0..height {
            let cells: Vec<String> = row
                .iter()
                .zip(&w)
                .enumerate()
                .map(|(i, (c, &w))| {
                    let c = c.lines().nth(k).unwrap_or("");
                    let fill = " ".repeat(w.saturating_sub(cols(c)));
                    if i == 0 || words.get(i).copied().unwrap_or(false) {
                        format!("{c}{fill}")
                    } else {
                        format!("{fill}{c}")
                    }
                })
                .collect();
            out.push_str(cells.join("  ").trim_end());
            out.push('\n');
        }
    }
    out
}

/// `grid` with the cells of its prose columns (words, not paths) wrapped at spaces, the widest
/// column first, as far as needed to fit `width` (never under [`MIN_PROSE`] columns).
fn wrap_prose(grid: &[Vec<String>], words: &[bool], width: usize) -> Vec<Vec<String>> {
    let mut g = grid.to_vec();
    let paths = path_columns(&g, words);
    let mut prose: Vec<usize> = (1..g.first().map_or(0, Vec::len))
        .filter(|i| words.get(*i).copied().unwrap_or(false) && !paths.contains(i))
        .collect();
    prose.sort_by_key(|&i| std::cmp::Reverse(widths(&g)[i]));
    for i in prose {
        let excess = total(&g).saturating_sub(width);
        if excess == 0 {
            break;
        }
        let room = widths(&g)[i].saturating_sub(excess).max(MIN_PROSE);
        for row in g.iter_mut().skip(1) {
            row[i] = crate::grid::wrap(&row[i], room).trim_end().to_string();
        }
    }
    g
}

/// The columns that hold paths: words (or the labels) with a `/` in a cell below the header.
fn path_columns(grid: &[Vec<String>], words: &[bool]) -> Vec<usize> {
    let n = grid.first().map_or(0, Vec::len);
    (0..n)
        .filter(|&i| i == 0 || words.get(i).copied().unwrap_or(false))
        .filter(|&i| grid.iter().skip(1).any(|r| r.get(i).is_some_and(|c| c.contains('/'))))
        .collect()
}

/// `grid` with its path columns abbreviated from the left as far as needed to fit `width`: the
/// widest cut first, down to the next widest, then both together, and so on (never under
/// [`MIN_PATH`] columns), so no path loses more than it must.
fn shorten_paths(grid: &[Vec<String>], words: &[bool], width: usize) -> Vec<Vec<String>> {
    let mut g = grid.to_vec();
    let paths = path_columns(&g, words);
    let excess = total(&g).saturating_sub(width);
    if paths.is_empty() || excess == 0 {
        return g;
    }
    let w = widths(&g);
    // Each path column keeps at least its heading and MIN_PATH.
    let heads: Vec<usize> = g[0].iter().map(|h| cols(h)).collect();
    let floor = |i: usize| heads[i].max(MIN_PATH);
    let cut_at = |level: usize| -> usize { paths.iter().map(|&i| w[i].saturating_sub(level.max(floor(i)))).sum() };
    let widest = paths.iter().map(|&i| w[i]).max().unwrap_or(0);
    let mut level = widest;
    while level > 0 && cut_at(level) < excess {
        level -= 1;
    }
    for &i in &paths {
        let room = level.max(floor(i));
        for row in g.iter_mut().skip(1) {
            row[i] = keep_end(&row[i], room);
        }
    }
    g
}

/// Rows become columns: the header row becomes the first column.
/// Rows become columns; the corner's `rows \ columns` turns with them (`read \ target`).
fn transpose(grid: &[Vec<String>]) -> Vec<Vec<String>> {
    let n = grid.first().map_or(0, Vec::len);
    let mut out: Vec<Vec<String>> =
        (0..n).map(|i| grid.iter().map(|r| r.get(i).cloned().unwrap_or_default()).collect()).collect();
    if let Some(corner) = out.first_mut().and_then(|r| r.first_mut()) {
        if let Some((rows, cols)) = corner.split_once(" \\ ") {
            *corner = format!("{cols} \\ {rows}");
        }
    }
    out
}

/// `text` with every line wider than `width` broken at spaces; the continuation lines are indented
/// four more than the line they continue, so they read as part of it. A word wider than `width`
/// (a long path) keeps a line of its own.
pub fn wrap(text: &str, width: usize) -> String {
    wrap_under(text, width, None)
}

/// [`wrap`], the continuation lines starting at column `hang` when given (under a column of a
/// table row, say), else four in from the line's own indent. At most half the width.
pub fn wrap_under(text: &str, width: usize, hang: Option<usize>) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        wrap_line(&mut out, line, width, hang);
    }
    out
}

fn wrap_line(out: &mut String, line: &str, width: usize, hang: Option<usize>) {
    if cols(line) <= width {
        out.push_str(line);
        return;
    }
    let indent = line.len() - line.trim_start_matches(' ').len();
    let hang = hang.unwrap_or(indent + 4).min(width / 2);
    out.push_str(&line[..indent]);
    let mut used = indent;
    let mut first = true;
    // Each word with the spaces before it: kept within a line (aligned columns stay aligned),
    // dropped where the line breaks.
    let mut rest = &line[indent..];
    while !rest.is_empty() {
        let gap = rest.len() - rest.trim_start_matches(' ').len();
        let word_end = rest[gap..].find(' ').map_or(rest.len(), |i| gap + i);
        let word = &rest[gap..word_end];
        rest = &rest[word_end..];
        if word.is_empty() {
            break;
        }
        let w = cols(word);
        if !first && used + gap + w > width {
            out.push('\n');
            out.push_str(&" ".repeat(hang));
            used = hang;
        } else {
            out.push_str(&" ".repeat(gap));
            used += gap;
        }
        out.push_str(word);
        used += w;
        first = false;
    }
}

/// `first` then `text`, wrapped at spaces to `width`, every later line indented `hang` columns:
/// a warning, a note or an answer's value continued under itself. Each line ends in "\n".
pub fn hanging(first: &str, text: &str, width: usize, hang: usize) -> String {
    let hang = hang.min(width / 2);
    let mut out = String::new();
    let mut line = first.to_string();
    let mut empty = true;
    for word in text.split_whitespace() {
        if !empty && cols(&line) + 1 + cols(word) > width {
            out += line.trim_end();
            out.push('\n');
            line = " ".repeat(hang);
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line += word;
        empty = false;
    }
    out += line.trim_end();
    out.push('\n');
    out
}

/// The data columns of `grid` (1..) in groups that each fit `width` beside the labels: as few
/// groups as filling each in turn needs, the columns then spread evenly over them (7 + 2 columns
/// read worse than 5 + 4) where the even split fits too.
/// The columns that say what a row is and start every group: the leading columns read as words
/// (a compare table's `run` and `direction`), at least the first.
fn lead(words: &[bool], grid: &[Vec<String>]) -> usize {
    let cols = grid.first().map_or(1, Vec::len);
    words.iter().take_while(|w| **w).count().min(cols.saturating_sub(1)).max(1)
}

fn groups(grid: &[Vec<String>], width: usize, lead: usize) -> Vec<std::ops::Range<usize>> {
    let w = widths(grid);
    let labels: usize = w.iter().take(lead).sum::<usize>() + 2 * lead.saturating_sub(1);
    let fits =
        |r: &std::ops::Range<usize>| r.len() == 1 || labels + r.clone().map(|i| 2 + w[i]).sum::<usize>() <= width;
    let mut greedy = Vec::new();
    let mut start = lead.min(w.len());
    while start < w.len() {
        let mut end = start + 1;
        while end < w.len() && fits(&(start..end + 1)) {
            end += 1;
        }
        greedy.push(start..end);
        start = end;
    }
    let (n, k) = (w.len().saturating_sub(lead), greedy.len());
    if k < 2 {
        return greedy;
    }
    // k groups of n / k columns, the first n % k one more.
    let mut even = Vec::with_capacity(k);
    let mut start = lead;
    for g in 0..k {
        let len = n / k + usize::from(g < n % k);
        even.push(start..start + len);
        start += len;
    }
    if even.iter().all(fits) {
        even
    } else {
        greedy
    }
}

fn columns_of(grid: &[Vec<String>], keep: &[usize]) -> Vec<Vec<String>> {
    grid.iter().map(|r| keep.iter().map(|&i| r[i].clone()).collect()).collect()
}

/// The rows of `grid` (a header row, then rows; the first column labels) aligned two spaces
/// apart in at most `width` columns where it can be done: paths abbreviated, else transposed,
/// else in column groups, each reshaping said in a line before the rows. `words` marks the
/// columns read left to right (the labels always are).
pub fn table(grid: &[Vec<String>], words: &[bool], width: usize) -> String {
    let width = width.max(MIN_WIDTH);
    if grid.is_empty() || total(grid) <= width {
        return render(grid, words);
    }
    let grid = shorten_paths(grid, words, width);
    if total(&grid) <= width {
        return render(&grid, words);
    }
    let wrapped = wrap_prose(&grid, words, width);
    if total(&wrapped) <= width {
        return render(&wrapped, words);
    }
    let turned = transpose(&grid);
    if total(&turned) <= width {
        return format!("(transposed to fit {width} columns)\n{}", render(&turned, &[]));
    }
    // In groups (prose wrapped within its column): the way round that needs fewer, the table
    // as it was on a tie.
    let (g, words) = if groups(&turned, width, 1).len() < groups(&wrapped, width, lead(words, &wrapped)).len() {
        (turned, Vec::new())
    } else {
        (wrapped, words.to_vec())
    };
    let lead = lead(&words, &g);
    let parts = groups(&g, width, lead);
    let n = g[0].len() - lead;
    let mut out = String::new();
    for (k, r) in parts.iter().enumerate() {
        if k > 0 {
            out.push('\n');
        }
        let keep: Vec<usize> = (0..lead).chain(r.clone()).collect();
        let part_words: Vec<bool> = keep.iter().map(|&i| words.get(i).copied().unwrap_or(false)).collect();
        let (first, last) = (r.start + 1 - lead, r.end - lead);
        let cols = if r.len() == 1 { format!("column {first}") } else { format!("columns {first}-{last}") };
        out += &format!("({cols} of {n}, to fit {width} columns)\n");
        out += &render(&columns_of(&g, &keep), &part_words);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(rows: &[&[&str]]) -> Vec<Vec<String>> {
        rows.iter().map(|r| r.iter().map(|c| c.to_string()).collect()).collect()
    }

    fn widest(text: &str) -> usize {
        text.lines().map(cols).max().unwrap_or(0)
    }

    #[test]
    fn a_table_that_fits_is_left_as_it_is() {
        let g = grid(&[&["bs", "qd 1", "qd 2"], &["4k", "1.00", "22.5"]]);
        assert_eq!(table(&g, &[], 80), "bs  qd 1  qd 2\n4k  1.00  22.5\n");
    }

    #[test]
    fn every_column_group_repeats_the_columns_that_say_what_a_row_is() {
        // A compare table: `run` and `direction` say what a row is; 12 figures do not fit.
        let mut header = vec!["run".to_string(), "direction".to_string()];
        header.extend((1..=12).map(|i| format!("figure{i:02}")));
        let row = |run: &str| {
            let mut r = vec![run.to_string(), "read".to_string()];
            r.extend((1..=12).map(|i| format!("{}", 100_000 + i)));
            r
        };
        // Enough runs that the table turned round does not fit either.
        let mut g = vec![header];
        g.extend((1..=12).map(|i| row(&format!("candidate{i}"))));
        let mut words = vec![true, true];
        words.extend([false; 12]);
        let text = table(&g, &words, 80);
        let groups: Vec<&str> = text.split("\n(").collect();
        assert!(groups.len() > 1, "{text}");
        for part in &groups {
            assert!(part.contains("run") && part.contains("direction") && part.contains("candidate"), "{part}");
        }
        assert!(text.starts_with("(columns 1-"), "{text}");
        assert!(text.contains(" of 12, to fit 80 columns)"), "{text}");
    }

    #[test]
    fn a_wide_sweep_is_transposed_and_says_so() {
        // 4 workloads over 32 queue depths: 32 columns of "12,345" do not fit; 4 columns do.
        let mut head = vec!["workload".to_string()];
        head.extend((1..=32).map(|q| format!("qd {q}")));
        let mut g = vec![head];
        for w in ["4k read", "4k write", "128k read", "128k write"] {
            let mut r = vec![w.to_string()];
            r.extend((1..=32).map(|q| format!("{},345", q * 3)));
            g.push(r);
        }
        assert!(total(&g) > 80);
        let t = table(&g, &[], 80);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "(transposed to fit 80 columns)");
        let turned = transpose(&[vec!["target \\ read".into(), "0".into()], vec!["a".into(), "1".into()]]);
        assert_eq!(turned[0], ["read \\ target", "a"], "the corner turns with the table");
        assert!(lines[1].starts_with("workload") && lines[1].contains("128k write"), "{t}");
        assert_eq!(lines.len(), 1 + 1 + 32, "a row per queue depth: {t}");
        assert!(lines[2].starts_with("qd 1 ") && lines[2].ends_with("3,345"), "{t}");
        assert!(widest(&t) <= 80, "{t}");
    }

    #[test]
    fn a_table_too_wide_both_ways_is_split_into_column_groups_each_with_its_labels() {
        let mut head = vec!["workload".to_string()];
        head.extend((1..=16).map(|q| format!("qd {q}")));
        let mut g = vec![head];
        for w in 0..16 {
            let mut r = vec![format!("workload {w}")];
            r.extend((1..=16).map(|q| format!("{}.{q}", 1000 + w)));
            g.push(r);
        }
        let t = table(&g, &[], 80);
        assert!(widest(&t) <= 80, "{t}");
        let said: Vec<&str> = t.lines().filter(|l| l.starts_with('(')).collect();
        assert!(
            said.len() >= 2 && said[0].starts_with("(columns 1-") && said[0].ends_with("of 16, to fit 80 columns)"),
            "{t}"
        );
        // Every figure is there, each once, and every group repeats the row labels.
        for w in 0..16 {
            for q in 1..=16 {
                let figure = format!("{}.{q}", 1000 + w);
                assert_eq!(t.split_whitespace().filter(|c| *c == figure).count(), 1, "{figure}: {t}");
            }
            assert_eq!(t.matches(&format!("workload {w} ")).count(), said.len(), "{t}");
        }
    }

    #[test]
    fn paths_are_abbreviated_from_the_left_before_anything_is_reshaped() {
        let long = format!("/tmp/{}/target-a.dat", "d".repeat(70));
        let g = grid(&[&["target", "IOPS", "MB/s"], &[&long, "12,345", "48.2"], &["/dev/loop3", "9,001", "35.2"]]);
        let t = table(&g, &[], 80);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 3, "not reshaped: {t}");
        assert!(lines[1].starts_with('…') && lines[1].contains("/target-a.dat"), "{t}");
        assert!(lines[2].starts_with("/dev/loop3 "), "a short path is kept: {t}");
        assert!(widest(&t) <= 80, "{t}");
        assert_eq!(keep_end("/a/b/c.dat", 6), "…c.dat");
        // Two path columns give up alike: neither is cut to nothing while the other stays whole.
        let (a, b) = (format!("/results/{}/run-1", "r".repeat(50)), format!("/targets/{}/one.dat", "t".repeat(45)));
        let g = grid(&[&["run", "results directory", "target"], &["fast", &a, &b]]);
        let t = table(&g, &[false, true, true], 80);
        let cells: Vec<&str> = t.lines().nth(1).unwrap().split("  ").filter(|c| !c.is_empty()).collect();
        assert!(widest(&t) <= 80, "{t}");
        assert!(cells[1].ends_with("/run-1") && cells[2].trim().ends_with("/one.dat"), "{t}");
        assert!(cols(cells[1]).abs_diff(cols(cells[2].trim())) <= 1, "cut alike: {t}");
    }

    #[test]
    fn a_column_of_prose_is_wrapped_within_its_column() {
        let why = "missed p99 1.20ms > 500µs, p99.9 4.10ms > 1.00ms: the target could not carry this rate";
        let g = grid(&[&["load", "IOPS", "verdict"], &["50,000", "31,000", why], &["25,000", "25,000", "met"]]);
        let t = table(&g, &[false, false, true], 60);
        assert!(widest(&t) <= 60, "{t}");
        let lines: Vec<&str> = t.lines().collect();
        assert!(lines[1].starts_with("50,000  31,000  missed p99"), "{t}");
        assert!(lines[2].starts_with("                "), "continued under its column: {t}");
        assert!(lines.last().unwrap().starts_with("25,000  25,000  met"), "{t}");
        let said: Vec<&str> = lines[1..lines.len() - 1].iter().map(|l| &l[16..]).collect();
        assert_eq!(said.join(" ").split_whitespace().collect::<Vec<_>>().join(" "), why, "every word: {t}");
    }

    #[test]
    fn prose_hangs_under_its_first_line_and_keeps_every_word() {
        let text = "CPU-bound on 3 of 12 points: drivelab's busiest job thread used 55–60% of a core; there the CPU, not the target, was the limit";
        let w = hanging("warning: ", text, 60, 4);
        assert!(widest(&w) <= 60, "{w}");
        assert!(
            w.starts_with("warning: CPU-bound")
                && w.lines().skip(1).all(|l| l.starts_with("    ") && !l.starts_with("     ")),
            "{w}"
        );
        assert_eq!(w.split_whitespace().skip(1).collect::<Vec<_>>().join(" "), text);
        assert_eq!(hanging("  key  ", "value", 80, 7), "  key  value\n");
    }

    #[test]
    fn the_width_is_the_one_set() {
        let g = grid(&[&["w", "a", "b"], &["x", &"1".repeat(50), &"2".repeat(50)]]);
        assert!(table(&g, &[], 120).lines().count() == 2);
        assert!(table(&g, &[], 80).starts_with("(transposed to fit 80 columns)"));
    }
}
