//! Truths as they are published -- PAN XML directories, cluster assignments (JSONL, CSV),
//! TSV pair lists -- read into the right positive and labeled pairs, auto-detected, and
//! evaluated by `fimdup eval`; bad input exits 2 naming file and line. External prediction
//! files, scored and unscored, give the right pairs at each threshold.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use common::{ok, run, s};
use fimdup::eval::{External, ExternalSpec, TruthFormat, TruthRule, TruthTable};

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, text).unwrap();
    p
}

fn pair(a: &str, b: &str) -> (String, String) {
    if a < b {
        (a.into(), b.into())
    } else {
        (b.into(), a.into())
    }
}

const S: [&str; 4] = [
    "suspicious-document00001.txt",
    "suspicious-document00002.txt",
    "suspicious-document00003.txt",
    "suspicious-document00004.txt",
];
const R: [&str; 3] = [
    "source-document00001.txt",
    "source-document00002.txt",
    "source-document00003.txt",
];

fn plagiarism(source: &str) -> String {
    format!(
        "  <feature name=\"plagiarism\" type=\"artificial\" obfuscation=\"high\" this_offset=\"10\" \
         this_length=\"200\" source_reference=\"{source}\" source_offset=\"5\" source_length=\"190\"/>\n"
    )
}

fn pan_xml(reference: &str, features: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<document reference=\"{reference}\">\n{features}</document>\n"
    )
}

/// A PAN-PC style directory: suspicious 1 has two cases from source 1 (and an about
/// feature), suspicious 2 one case each from sources 2 and 1, suspicious 3 none, suspicious
/// 4 an intrinsic case (no source); source 3 appears only through its own XML. Sources sit
/// in a subdirectory beside their texts.
fn pan_dir(root: &Path) -> PathBuf {
    let dir = root.join("pan");
    let about = "  <feature name=\"about\" authors=\"A. Author\" title=\"T &amp; U\"/>\n";
    write(
        &dir,
        "susp/suspicious-document00001.xml",
        &pan_xml(
            S[0],
            &format!("{about}{}{}", plagiarism(R[0]), plagiarism(R[0])),
        ),
    );
    write(
        &dir,
        "susp/suspicious-document00002.xml",
        &pan_xml(S[1], &format!("{}{}", plagiarism(R[1]), plagiarism(R[0]))),
    );
    write(
        &dir,
        "susp/suspicious-document00003.xml",
        &pan_xml(S[2], "  <feature name=\"language\" value=\"en\"/>\n"),
    );
    write(
        &dir,
        "susp/suspicious-document00004.xml",
        &pan_xml(
            S[3],
            "  <feature name=\"plagiarism\" type=\"intrinsic\" this_offset=\"0\" this_length=\"9\">\n  </feature>\n",
        ),
    );
    for r in R {
        let stem = r.trim_end_matches(".txt");
        write(
            &dir,
            &format!("src/{stem}.xml"),
            &pan_xml(r, "  <feature name=\"language\" value=\"en\"/>\n"),
        );
        write(&dir, &format!("src/{r}"), "some text, not XML <");
    }
    dir
}

#[test]
fn pan_directory_gives_the_cases_and_the_suspicious_x_source_pairs() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = pan_dir(tmp.path());
    assert_eq!(TruthFormat::Auto.resolve(&dir).unwrap(), TruthFormat::Pan);
    let t = TruthTable::read_as(&dir, TruthFormat::Auto).unwrap();
    assert_eq!(t.format(), TruthFormat::Pan);
    assert!(t.format().labeled_only_by_default());
    assert!(t.columns().is_empty());
    let positives: Vec<(String, String)> = [(S[0], R[0]), (S[1], R[0]), (S[1], R[1])]
        .into_iter()
        .map(|(a, b)| pair(a, b))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    assert_eq!(t.labels(None).unwrap().sorted_pairs(), positives);
    // Labeled: exactly the 4 x 3 suspicious x source pairs, among every pair of the seven
    // documents and an unknown one.
    let listed = t.listed();
    assert_eq!(listed.len(), 12);
    assert_eq!(t.len(), 12);
    let all: Vec<&str> = S.iter().chain(&R).copied().chain(["other.txt"]).collect();
    let mut got = BTreeSet::new();
    for (i, a) in all.iter().enumerate() {
        for b in &all[i + 1..] {
            if listed.contains(a, b) {
                assert!(listed.contains(b, a));
                got.insert(pair(a, b));
            }
        }
    }
    let want: BTreeSet<_> = S
        .iter()
        .flat_map(|s| R.iter().map(move |r| pair(s, r)))
        .collect();
    assert_eq!(got, want);
    // No value columns: a rule is refused, saying why.
    let e = t
        .labels(Some(&TruthRule::parse("resemblance>0.5").unwrap()))
        .unwrap_err()
        .to_string();
    assert!(e.contains("pan") && e.contains("no value columns"), "{e}");
}

#[test]
fn eval_on_a_pan_directory_is_labeled_only() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = pan_dir(tmp.path());
    // s1-r1 and s2-r2 are true positives; s3-r3 a false positive; s1-s2 (two suspicious),
    // r1-r2 (two sources) and s1-other (unknown) are not labeled and so ignored.
    let pred = write(
        tmp.path(),
        "P.csv",
        &format!(
            "a,b,score\n{},{},1\n{},{},1\n{},{},1\n{},{},1\n{},{},1\n{},other.txt,1\n",
            S[0], R[0], R[1], S[1], S[2], R[2], S[0], S[1], R[0], R[1], S[0]
        ),
    );
    let o = ok(&["eval", "--truth", s(&dir), "--pairs", s(&pred), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["truth_format"], "pan");
    assert_eq!(v["labeled_only"], true);
    let five: Vec<u64> = [
        "truth_pairs",
        "found",
        "unique_truth",
        "unique_ours",
        "common",
    ]
    .iter()
    .map(|k| v[k].as_u64().unwrap())
    .collect();
    assert_eq!(five, vec![3, 3, 1, 1, 2]);
    assert!((v["precision"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-12);
    assert!((v["recall"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-12);
    // The table says which pairs count.
    let o = ok(&["eval", "--truth", s(&dir), "--pairs", s(&pred)]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("pan format") && out.contains("labeled only"),
        "{out}"
    );
    // A rule on a PAN truth: exit 2, naming the directory.
    let o = run(&[
        "eval",
        "--truth",
        s(&dir),
        "--truth-rule",
        "resemblance>0.5",
        "--pairs",
        s(&pred),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("no value columns"), "{err}");
}

#[test]
fn malformed_pan_xml_exits_2_naming_file_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = pan_dir(tmp.path());
    write(
        &dir,
        "susp/suspicious-document00009.xml",
        "<?xml version=\"1.0\"?>\n<document reference=\"suspicious-document00009.txt\">\n  <feature name=\"plagiarism\" source_reference=\"x.txt\">\n</document>\n",
    );
    let pred = write(tmp.path(), "P.csv", "a,b\nx,y\n");
    let o = run(&["eval", "--truth", s(&dir), "--pairs", s(&pred)]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("suspicious-document00009.xml:4"), "{err}");
    // A root that is not <document reference=..> names the file too.
    std::fs::remove_file(dir.join("susp/suspicious-document00009.xml")).unwrap();
    write(&dir, "notes.xml", "<notes>\n</notes>\n");
    let o = run(&["eval", "--truth", s(&dir), "--pairs", s(&pred)]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("notes.xml:1") && err.contains("document"),
        "{err}"
    );
}

const CLUSTERS_JSONL: &str = "{\"id\": \"d1\", \"cluster\": \"c1\"}\n\
{\"id\": \"d2\", \"cluster\": \"c1\"}\n\
\n\
{\"id\": \"d3\", \"cluster\": 7}\n\
{\"id\": 4, \"cluster\": \"7\"}\n\
{\"id\": \"d5\", \"cluster\": \"c1\"}\n\
{\"id\": \"d6\", \"cluster\": \"solo\"}\n\
{\"id\": \"d2\", \"cluster\": \"c1\"}\n";

const CLUSTERS_CSV: &str = "id,cluster\nd1,c1\nd2,c1\nd3,7\n4,7\n\nd5,c1\nd6,solo\nd2,c1\n";

#[test]
fn cluster_assignments_give_within_cluster_positives_and_all_document_pairs() {
    let tmp = tempfile::tempdir().unwrap();
    let jsonl = write(tmp.path(), "truth.jsonl", CLUSTERS_JSONL);
    let csv = write(tmp.path(), "truth.csv", CLUSTERS_CSV);
    let tsv = write(tmp.path(), "truth.txt", &CLUSTERS_CSV.replace(',', "\t"));
    let docs = ["d1", "d2", "d3", "4", "d5", "d6"];
    let want: Vec<(String, String)> = [("d1", "d2"), ("d1", "d5"), ("d2", "d5"), ("d3", "4")]
        .into_iter()
        .map(|(a, b)| pair(a, b))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    for p in [&jsonl, &csv, &tsv] {
        assert_eq!(
            TruthFormat::Auto.resolve(p).unwrap(),
            TruthFormat::Clusters,
            "{p:?}"
        );
        let t = TruthTable::read_as(p, TruthFormat::Auto).unwrap();
        assert_eq!(t.format(), TruthFormat::Clusters);
        assert!(!t.format().labeled_only_by_default());
        assert_eq!(t.labels(None).unwrap().sorted_pairs(), want, "{p:?}");
        let listed = t.listed();
        assert_eq!(listed.len(), 15, "{p:?}");
        for (i, a) in docs.iter().enumerate() {
            for b in &docs[i + 1..] {
                assert!(listed.contains(a, b), "{a} {b}");
            }
            assert!(!listed.contains(a, "d7") && !listed.contains(a, a));
        }
        assert!(t
            .labels(Some(&TruthRule::parse("score>0").unwrap()))
            .is_err());
    }
    // Explicit formats agree with auto.
    let t = TruthTable::read_as(&csv, TruthFormat::Clusters).unwrap();
    assert_eq!(t.labels(None).unwrap().sorted_pairs(), want);
    // The same file read as pairs is a pair list of (id, cluster) rows.
    let t = TruthTable::read_as(&csv, TruthFormat::Pairs).unwrap();
    assert_eq!(t.format(), TruthFormat::Pairs);
    assert!(t.labels(None).unwrap().contains("d1", "c1"));
    // eval on a cluster truth: d1-d2 TP, d1-d6 FP, d3-d7 FP (unlabeled document counts
    // without --labeled-only, is ignored with it).
    let pred = write(tmp.path(), "P.csv", "a,b\nd1,d2\nd1,d6\nd3,d7\n");
    let o = ok(&["eval", "--truth", s(&jsonl), "--pairs", s(&pred), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["truth_format"], "clusters");
    assert_eq!(v["labeled_only"], false);
    assert_eq!(
        (v["found"].as_u64(), v["common"].as_u64()),
        (Some(3), Some(1))
    );
    assert_eq!(v["truth_pairs"].as_u64(), Some(4));
    let o = ok(&[
        "eval",
        "--truth",
        s(&jsonl),
        "--pairs",
        s(&pred),
        "--labeled-only",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (v["found"].as_u64(), v["common"].as_u64()),
        (Some(2), Some(1))
    );
}

#[test]
fn a_document_in_two_clusters_exits_2_naming_file_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    let pred = write(tmp.path(), "P.csv", "a,b\nx,y\n");
    let jsonl = write(
        tmp.path(),
        "two.jsonl",
        "{\"id\": \"d1\", \"cluster\": \"c1\"}\n{\"id\": \"d2\", \"cluster\": \"c1\"}\n{\"id\": \"d1\", \"cluster\": \"c2\"}\n",
    );
    let csv = write(tmp.path(), "two.csv", "id,cluster\nd1,c1\n\nd1,c2\n");
    for (p, at) in [(&jsonl, "two.jsonl:3"), (&csv, "two.csv:4")] {
        let o = run(&["eval", "--truth", s(p), "--pairs", s(&pred)]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(at) && err.contains("d1"), "{err}");
    }
    // A cluster-assignment file without the header, read as clusters.
    let bad = write(tmp.path(), "nohead.csv", "d1,c1\n");
    let o = run(&[
        "eval",
        "--truth",
        s(&bad),
        "--truth-format",
        "clusters",
        "--pairs",
        s(&pred),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("nohead.csv:1") && err.contains("id,cluster"),
        "{err}"
    );
    // An unknown format name is refused.
    let o = run(&[
        "eval",
        "--truth",
        s(&bad),
        "--truth-format",
        "xml",
        "--pairs",
        s(&pred),
    ]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn tsv_pair_lists_and_auto_detection_of_pairs() {
    let tmp = tempfile::tempdir().unwrap();
    let with_header = write(
        tmp.path(),
        "truth.tsv",
        "a\tb\tresemblance\nx\ty\t0.9\ny\tz\t0.2\n",
    );
    let headerless = write(tmp.path(), "truth.txt", "x\ty\n\ny\tz\n");
    let csv = write(tmp.path(), "truth.csv", "a,b\nx,y\ny,z\n");
    for p in [&with_header, &headerless, &csv] {
        assert_eq!(TruthFormat::Auto.resolve(p).unwrap(), TruthFormat::Pairs);
        let t = TruthTable::read_as(p, TruthFormat::Auto).unwrap();
        assert_eq!(t.format(), TruthFormat::Pairs);
        assert_eq!(
            t.labels(None).unwrap().sorted_pairs(),
            vec![pair("x", "y"), pair("y", "z")],
            "{p:?}"
        );
        assert_eq!(t.listed().len(), 2);
    }
    let t = TruthTable::read(&with_header).unwrap();
    assert_eq!(t.columns(), ["resemblance"]);
    assert_eq!(t.resemblance("y", "x").unwrap(), Some(0.9));
    let l = t
        .labels(Some(&TruthRule::parse("resemblance>=0.5").unwrap()))
        .unwrap();
    assert_eq!(l.sorted_pairs(), vec![pair("x", "y")]);
    // A short TSV row names the line and the separator.
    let bad = write(
        tmp.path(),
        "bad.tsv",
        "a\tb\tresemblance\nx\ty\t0.9\nx\tz\n",
    );
    let e = TruthTable::read(&bad).unwrap_err().to_string();
    assert!(
        e.contains("bad.tsv:3") && e.contains("tab-separated"),
        "{e}"
    );
    // eval reads a TSV truth and TSV predicted pairs.
    let pred = write(tmp.path(), "P.tsv", "a\tb\ny\tx\n");
    let o = ok(&[
        "eval",
        "--truth",
        s(&headerless),
        "--pairs",
        s(&pred),
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["truth_format"], "pairs");
    assert_eq!(
        (v["found"].as_u64(), v["common"].as_u64()),
        (Some(1), Some(1))
    );
}

#[test]
fn external_predictions_at_thresholds() {
    let tmp = tempfile::tempdir().unwrap();
    let sorted = |e: &External, t: f64| e.at(t).sorted_pairs();
    // Scored by the column named score (wherever it is); a repeated pair keeps its highest.
    let scored = write(
        tmp.path(),
        "scored.csv",
        "a,b,method,score\nx,y,m,0.9\ny,z,m,0.4\ny,x,m,0.2\nz,w,m,0.6\n",
    );
    let e = External::read("other", &scored).unwrap();
    assert_eq!(e.name(), "other");
    assert!(e.is_scored());
    assert_eq!(e.len(), 3);
    assert_eq!(sorted(&e, 0.5), vec![pair("w", "z"), pair("x", "y")]);
    assert_eq!(sorted(&e, 0.6), vec![pair("w", "z"), pair("x", "y")]);
    assert_eq!(sorted(&e, 0.61), vec![pair("x", "y")]);
    assert!(e.at(0.95).is_empty());
    assert_eq!(e.at(0.0).len(), 3);
    let listed: Vec<(String, String, Option<f64>)> = e
        .pairs_with_scores()
        .map(|(a, b, s)| (a.to_string(), b.to_string(), s))
        .collect();
    assert_eq!(
        listed,
        vec![
            ("x".into(), "y".into(), Some(0.9)),
            ("y".into(), "z".into(), Some(0.4)),
            ("w".into(), "z".into(), Some(0.6)),
        ]
    );
    // A single third column is the score, whatever its name; TSV too.
    let third = write(tmp.path(), "third.tsv", "a\tb\tsim\nx\ty\t0.3\ny\tz\t0.7\n");
    let e = External::read("sim", &third).unwrap();
    assert!(e.is_scored());
    assert_eq!(sorted(&e, 0.5), vec![pair("y", "z")]);
    // No score column (none, or several without one named score): every pair, always.
    for (name, text) in [
        ("plain.csv", "a,b\nx,y\ny,z\n"),
        ("two.csv", "a,b,p,q\nx,y,1,2\ny,z,3,4\n"),
    ] {
        let e = External::read("plain", &write(tmp.path(), name, text)).unwrap();
        assert!(!e.is_scored());
        assert_eq!(sorted(&e, 0.99), vec![pair("x", "y"), pair("y", "z")]);
        assert!(e.pairs_with_scores().all(|(_, _, s)| s.is_none()));
    }
    // A bad score names the file and line.
    for (name, text, at) in [
        ("nan.csv", "a,b,score\nx,y,0.5\ny,z,NaN\n", "nan.csv:3"),
        ("word.csv", "a,b,score\nx,y,high\n", "word.csv:2"),
        ("missing.csv", "a,b,score\nx,y,1\nx,z\n", "missing.csv:3"),
    ] {
        let e = External::read("bad", &write(tmp.path(), name, text))
            .unwrap_err()
            .to_string();
        assert!(e.contains(at), "{e}");
    }
    // NAME=PATH.
    let spec = ExternalSpec::parse("tool = out/pairs.csv").unwrap();
    assert_eq!(
        (spec.name.as_str(), spec.path.as_path()),
        ("tool", Path::new("out/pairs.csv"))
    );
    assert_eq!(
        ExternalSpec::parse("a=b=c.csv").unwrap().path,
        Path::new("b=c.csv")
    );
    for bad in ["pairs.csv", "=pairs.csv", "name=", " = x"] {
        let e = ExternalSpec::parse(bad).unwrap_err().to_string();
        assert!(e.contains("NAME=PAIRS.csv"), "{bad}: {e}");
    }
    let e = ExternalSpec::parse(&format!("x={}", s(&scored)))
        .unwrap()
        .read()
        .unwrap();
    assert_eq!(e.name(), "x");
}

/// Forty distinct words of document `i`.
fn text(i: usize) -> String {
    (0..40)
        .map(|w| format!("w{i}x{w}"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn sweep_on_a_pan_directory_is_labeled_only_by_default() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = pan_dir(tmp.path());
    // The corpus: a flat directory whose file names are the references. Suspicious 1 and 3
    // copy source 1: s1-r1 is a case (TP), s3-r1 is not (FP), s1-s3 is not labeled.
    let corpus = tmp.path().join("corpus");
    for (i, name) in S.iter().chain(&R).enumerate() {
        let t = if [S[0], S[2], R[0]].contains(name) {
            text(100)
        } else {
            text(i)
        };
        write(&corpus, name, &t);
    }
    let out = tmp.path().join("out");
    let o = ok(&[
        "sweep",
        s(&corpus),
        "--truth",
        s(&dir),
        "--methods",
        "exact",
        "--thresholds",
        "0.9",
        "--out",
        s(&out),
        "--json",
    ]);
    let rows: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let r = &rows["rows"][0];
    assert_eq!(
        (
            r["truth_pairs"].as_u64(),
            r["found"].as_u64(),
            r["common"].as_u64()
        ),
        (Some(3), Some(2), Some(1)),
        "{r}"
    );
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains("truth format") && md.contains("labeled only by default"),
        "{md}"
    );
}
