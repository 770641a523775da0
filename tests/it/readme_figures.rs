//! The figures the README quotes from `eval/results/` are the figures those files hold: each
//! quoted sentence is rebuilt here from the results file's table, so a regenerated result
//! that moves a figure fails this test until the README says the same.

use std::collections::HashMap;
use std::path::Path;

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

/// The README with every run of whitespace made one space, so a sentence may wrap anywhere.
fn readme() -> String {
    read("README.md")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The rows of the markdown table whose header row starts with `| first |`: each row's cells,
/// trimmed, keyed by its first cell joined with its second when `two_keys`.
fn table(md: &str, first: &str, two_keys: bool) -> HashMap<String, Vec<String>> {
    let lines: Vec<&str> = md.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.starts_with(&format!("| {first} |")))
        .unwrap_or_else(|| panic!("no table starting with `| {first} |`"));
    let mut rows = HashMap::new();
    for l in lines[start + 2..].iter().take_while(|l| l.starts_with('|')) {
        let cells: Vec<String> = l
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_string())
            .collect();
        let key = if two_keys {
            format!("{} {}", cells[0], cells[1])
        } else {
            cells[0].clone()
        };
        rows.insert(key, cells);
    }
    rows
}

fn num(cells: &[String], i: usize) -> f64 {
    cells[i].replace(',', "").parse().unwrap()
}

fn assert_quoted(readme: &str, sentence: &str, source: &str) {
    assert!(
        readme.contains(sentence),
        "the README should say, from {source}:\n  {sentence}"
    );
}

#[test]
fn peers_figures_match_peers_md() {
    let md = read("eval/results/peers.md");
    // | tool | wall s | peak RSS MiB | pairs | precision | recall | F1 | wall / fimdup concept |
    let t = table(&md, "tool | wall s", false);
    let (concept, verified, rensa) = (
        &t["fimdup concept"],
        &t["fimdup concept --verify exact"],
        &t["rensa"],
    );
    assert_eq!(num(verified, 6), 1.0, "{verified:?}");
    let sentence = format!(
        "(F1 {:.3}), against F1 {:.2} without it, in {:.2} s end to end on 2 cores \
         (rensa: {:.1} s at F1 {:.2}; `eval/results/peers.md`)",
        num(verified, 6),
        num(concept, 6),
        num(verified, 1),
        num(rensa, 1),
        num(rensa, 6),
    );
    assert_quoted(&readme(), &sentence, "eval/results/peers.md");
}

#[test]
fn distributed_figures_match_dist_md() {
    let md = read("eval/results/dist.md");
    // | docs | method | 1p s | 2x1 s | 2x1/1p | ... | sent B/doc per process | ...
    let t = table(&md, "docs | method | 1p s | 2x1 s", true);
    let row = &t["1,000,000 concept"];
    let sent: u64 = row[8].split(" / ").nth(1).unwrap().parse().unwrap();
    let bytes = if sent >= 1000 {
        format!("{},{:03}", sent / 1000, sent % 1000)
    } else {
        sent.to_string()
    };
    let sentence = format!(
        "2 processes x 1 worker cluster 1M documents in {:.1} s (concept) against {:.1} s \
         for the plain command, process 1 sending {bytes} bytes a document",
        num(row, 3),
        num(row, 2),
    );
    assert_quoted(&readme(), &sentence, "eval/results/dist.md");
}
