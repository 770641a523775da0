//! TSV files as pandas writes them (`DataFrame.to_csv(path, sep='\t')`, QUOTE_MINIMAL:
//! fields holding tabs, quotes or line ends quoted, `"` doubled): a corpus whose ids and
//! texts hold tabs, quotes, line ends (`\n`, `\r\n`) and `""` (with pandas' unnamed index
//! column first), a pairs truth and an external scored pairs file, read through every
//! command that takes them. Checked against pandas: the ids and texts as fimdup sees them
//! equal the ones pandas wrote; every result equals that of the same data written by pandas
//! as JSONL (`to_json(orient='records', lines=True)`) and as comma-separated truths; the
//! pair counts of `eval` and of `sweep`'s external rows equal those of the pair lists the
//! script wrote; the kept TSV of `dedup` reads back in pandas as the same rows.
//!
//! Needs `FIMDUP_PYTHON` (a Python with pandas and pyarrow): without it the tests are skipped
//! with a note, or fail under CI.

use crate::common;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use common::{ok, python_with_pyarrow, run_python, s};
use serde_json::Value;

/// Writes into `argv[1]`: `corpus.tsv` (12 groups of 4 near-duplicate texts of 150 words,
/// with fragments holding tabs, quotes, line ends and `""`, some texts quoted whole; a
/// numeric column `n`; the first ids hold a tab, quotes and a line end) and its JSONL twin;
/// `truth.tsv` and `truth.csv` (`a,b,label`: pairs within a group labeled 1, across groups
/// 0); `ext.tsv` and `ext.csv` (`a,b,score`). Prints the lists as JSON.
const MAKE: &str = r##"
import sys, json, random
import pandas as pd
out = sys.argv[1]
rng = random.Random(7)
words = [f"w{i}" for i in range(400)]
fragments = ['say "hi"', 'tab\there', 'line\nbreak', 'dq "" end', 'cr\r\nlf', '"lead', '5" screen']
special = ['tab\tid', 'quote"id', '"starts"', 'nl\nid', 'dq""id']
ids, texts, ns = [], [], []
for g in range(12):
    base = [rng.choice(words) for _ in range(150)]
    for v in range(4):
        t = list(base)
        for _ in range(v):
            t[rng.randrange(150)] = rng.choice(words)
        for j, f in enumerate(fragments):
            if (g + v + j) % 3 == 0:
                t.insert(rng.randrange(len(t)), f)
        text = " ".join(t)
        if (g + v) % 5 == 0:
            text = '"' + text + '"'
        k = len(ids)
        ids.append(special[k] if k < len(special) else f"d{k}")
        texts.append(text)
        ns.append((k * 7) % 11)
df = pd.DataFrame({"id": ids, "text": texts, "n": ns})
df.to_csv(f"{out}/corpus.tsv", sep="\t")
df.to_json(f"{out}/corpus.jsonl", orient="records", lines=True)
pos = [(ids[4 * g], ids[4 * g + 1]) for g in range(12)]
pos += [(ids[4 * g + 3], ids[4 * g + 2]) for g in range(0, 12, 2)]
neg = [(ids[4 * g], ids[4 * g + 4]) for g in range(11)]
truth = pd.DataFrame([(a, b, 1) for a, b in pos] + [(a, b, 0) for a, b in neg],
                     columns=["a", "b", "label"])
truth.to_csv(f"{out}/truth.tsv", sep="\t", index=False)
truth.to_csv(f"{out}/truth.csv", index=False)
ext = [(a, b, 0.9 if i % 3 == 0 else 0.6) for i, (a, b) in enumerate(pos) if i % 4 != 1]
ext += [(a, b, 0.55 if i % 4 == 0 else 0.2) for i, (a, b) in enumerate(neg)]
ext += [(ids[1], ids[7], 0.7)]
e = pd.DataFrame(ext, columns=["a", "b", "score"])
e.to_csv(f"{out}/ext.tsv", sep="\t", index=False)
e.to_csv(f"{out}/ext.csv", index=False)
print(json.dumps({"ids": ids, "pos": pos, "neg": neg, "ext": ext}))
"##;

/// The files of [`MAKE`] in `dir`, the Python and the lists it printed; `None` without a
/// Python with pandas.
fn make(dir: &Path) -> Option<(PathBuf, Value)> {
    let py = python_with_pyarrow()?;
    let lists = run_python(&py, MAKE, &[s(dir)]);
    Some((py, serde_json::from_str(&lists).unwrap()))
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap()
}

/// An unordered pair of ids.
fn pair(a: &Value, b: &Value) -> (String, String) {
    let (a, b) = (a.as_str().unwrap(), b.as_str().unwrap());
    if a <= b {
        (a.to_string(), b.to_string())
    } else {
        (b.to_string(), a.to_string())
    }
}

/// The pairs of the list `name` of the printed lists, each with its score (or 1).
fn pairs(lists: &Value, name: &str) -> Vec<((String, String), f64)> {
    lists[name]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                pair(&p[0], &p[1]),
                p.get(2).and_then(Value::as_f64).unwrap_or(1.0),
            )
        })
        .collect()
}

fn json_out(args: &[&str]) -> Value {
    serde_json::from_slice(&ok(args).stdout).unwrap()
}

#[test]
fn corpus_tsv_reads_as_pandas_wrote_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let Some((py, lists)) = make(d) else {
        return;
    };
    let (tsv, twin) = (d.join("corpus.tsv"), d.join("corpus.jsonl"));
    let ids: Vec<&str> = lists["ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 48);

    // dedup keeping every document (exact, only identical ones removed: none) with the
    // documents written as JSONL and as Parquet: the ids and texts as fimdup read them,
    // compared in pandas with the ones it wrote.
    let (out_jsonl, out_parquet) = (d.join("all-jsonl"), d.join("all-parquet"));
    let formats = [("jsonl", &out_jsonl), ("parquet", &out_parquet)];
    let parquet = cfg!(feature = "parquet");
    for (format, out) in formats.into_iter().take(if parquet { 2 } else { 1 }) {
        ok(&[
            "dedup",
            s(&tsv),
            "--method",
            "exact",
            "--threshold",
            "1",
            "--out-format",
            format,
            "--out",
            s(out),
        ]);
    }
    if !parquet {
        let o = common::run(&[
            "dedup",
            s(&tsv),
            "--out-format",
            "parquet",
            "--out",
            s(&out_parquet),
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains("`parquet` feature"), "{err}");
        common::left_out(
            "tsv_pandas: the kept rows as Parquet, read in pandas",
            "parquet",
        );
    }
    let kept_parquet = out_parquet.join("kept.parquet");
    let checked = run_python(
        &py,
        r#"
import sys, pandas as pd
df = pd.read_json(sys.argv[1], orient="records", lines=True, dtype=False)
seen_all = [pd.read_json(sys.argv[2], orient="records", lines=True, dtype=False)]
if sys.argv[3] != "-":
    seen_all.append(pd.read_parquet(sys.argv[3]))
for seen in seen_all:
    assert list(seen.columns) == ["id", "text"], seen.columns
    assert seen["id"].tolist() == df["id"].tolist(), (seen["id"].tolist(), df["id"].tolist())
    for a, b in zip(seen["text"], df["text"]):
        assert a == b, (a, b)
    for c in ['\t', '\n', '\r\n', '""', '"']:
        assert any(c in t for t in seen["text"]), c
print(len(df))
"#,
        &[
            s(&twin),
            s(&out_jsonl.join("kept.jsonl")),
            if parquet { s(&kept_parquet) } else { "-" },
        ],
    );
    assert_eq!(checked.trim(), "48");

    // sketch: the same images and id table as the twin's.
    let (a, b) = (d.join("a.img"), d.join("b.img"));
    ok(&["sketch", s(&tsv), "--out", s(&a)]);
    ok(&["sketch", s(&twin), "--out", s(&b)]);
    assert_eq!(read(&a), read(&b));
    let table = String::from_utf8(read(&d.join("a.img.ids.tsv"))).unwrap();
    assert_eq!(
        table,
        String::from_utf8(read(&d.join("b.img.ids.tsv"))).unwrap()
    );
    assert!(
        table.contains("\n0\ttab\\tid\n1\tquote\"id\n2\t\"starts\"\n3\tnl\\nid\n"),
        "{table}"
    );

    // cluster: the same clusters and pairs as the twin's, for two methods.
    for method in ["concept", "exact"] {
        let (a, b) = (d.join(format!("c-{method}")), d.join(format!("j-{method}")));
        for (input, o) in [(&tsv, &a), (&twin, &b)] {
            ok(&[
                "cluster",
                s(input),
                "--method",
                method,
                "--threshold",
                "0.7",
                "--out",
                s(o),
            ]);
        }
        let found = read(&a.join("pairs.csv"));
        assert_eq!(found, read(&b.join("pairs.csv")), "{method}");
        assert_eq!(
            read(&a.join("clusters.jsonl")),
            read(&b.join("clusters.jsonl")),
            "{method}"
        );
        // Near-duplicates were found, the pair of two quoted ids among them.
        let found = String::from_utf8(found).unwrap();
        assert!(found.lines().count() > 5, "{method}: {found}");
        assert!(
            found.contains("\"\"\"starts\"\"\",\"quote\"\"id\""),
            "{method}: {found}"
        );
    }

    // explain: the same report of a pair of ids holding a tab and a quote.
    let ids_arg = format!("{},{}", ids[0], ids[1]);
    let e_tsv = json_out(&["explain", "--corpus", s(&tsv), "--ids", &ids_arg, "--json"]);
    let e_twin = json_out(&["explain", "--corpus", s(&twin), "--ids", &ids_arg, "--json"]);
    assert_eq!(e_tsv, e_twin);
    assert_eq!(e_tsv["a"]["id"], ids[0]);

    // overlap: each collection holds every document of the other.
    let o = json_out(&["overlap", s(&tsv), s(&twin), "--json"]);
    for side in ["a_in_b", "b_in_a"] {
        assert_eq!(o[side]["population"], 48, "{o}");
        assert_eq!(o[side]["hits"], 48, "{o}");
    }

    // index build from the TSV, queried with the twin: every document finds itself.
    let ix = d.join("ix");
    ok(&["index", "build", s(&tsv), "--out", s(&ix)]);
    let q = json_out(&[
        "index",
        "query",
        s(&ix),
        "--jsonl",
        s(&twin),
        "--threshold",
        "0.7",
        "--json",
    ]);
    let queries = q["queries"].as_array().unwrap();
    assert_eq!(queries.len(), 48);
    for (query, id) in queries.iter().zip(&ids) {
        assert_eq!(query["query"], *id);
        let hits = query["hits"].as_array().unwrap();
        assert!(
            hits.iter()
                .any(|h| h["ext_id"] == *id && h["estimate"].as_f64() == Some(1.0)),
            "{query}"
        );
    }
}

#[test]
fn dedup_kept_tsv_reads_back_in_pandas() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let Some((py, _)) = make(d) else {
        return;
    };
    // Keep by the column `n` (read back from each row the reader writes again).
    let (a, b) = (d.join("tsv"), d.join("twin"));
    for (input, o) in [("corpus.tsv", &a), ("corpus.jsonl", &b)] {
        ok(&[
            "dedup",
            s(&d.join(input)),
            "--threshold",
            "0.7",
            "--keep",
            "field:n:desc",
            "--out",
            s(o),
        ]);
    }
    assert_eq!(read(&a.join("removed.csv")), read(&b.join("removed.csv")));
    // kept.tsv in pandas: the rows of the corpus pandas wrote whose ids the twin kept, with
    // the index column and every value as written.
    let kept = run_python(
        &py,
        r#"
import sys, pandas as pd
df = pd.read_json(sys.argv[1], orient="records", lines=True, dtype=False)
twin = pd.read_json(sys.argv[2], orient="records", lines=True, dtype=False)
got = pd.read_csv(sys.argv[3], sep="\t", index_col=0, keep_default_na=False)
want = df[df["id"].isin(set(twin["id"]))]
pd.testing.assert_frame_equal(got, want, check_names=False)
assert 0 < len(got) < len(df), len(got)
print(len(got))
"#,
        &[
            s(&d.join("corpus.jsonl")),
            s(&b.join("kept.jsonl")),
            s(&a.join("kept.tsv")),
        ],
    );
    let removed = String::from_utf8(read(&a.join("removed.csv"))).unwrap();
    assert_eq!(
        kept.trim().parse::<usize>().unwrap() + removed.lines().count() - 1,
        48
    );
}

#[test]
fn truth_and_external_tsv_in_eval_and_sweep() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let Some((_, lists)) = make(d) else {
        return;
    };
    let pos: HashSet<_> = pairs(&lists, "pos").into_iter().map(|p| p.0).collect();
    let neg: HashSet<_> = pairs(&lists, "neg").into_iter().map(|p| p.0).collect();
    let ext = pairs(&lists, "ext");
    let truth = d.join("truth.tsv");
    let ext_tsv = d.join("ext.tsv");

    // eval: the external pairs as predicted pairs against the truth.
    let found: HashSet<_> = ext.iter().map(|p| p.0.clone()).collect();
    let common = found.intersection(&pos).count();
    for labeled_only in [false, true] {
        let mut args = vec![
            "eval",
            "--truth",
            s(&truth),
            "--truth-rule",
            "label>=1",
            "--pairs",
            s(&ext_tsv),
            "--json",
        ];
        if labeled_only {
            args.push("--labeled-only");
        }
        let e = json_out(&args);
        let listed = found
            .iter()
            .filter(|p| !labeled_only || pos.contains(*p) || neg.contains(*p))
            .count();
        assert_eq!(e["truth_format"], "pairs", "{e}");
        assert_eq!(e["truth_pairs"], pos.len(), "{e}");
        assert_eq!(e["found"], listed, "{e}");
        assert_eq!(e["common"], common, "{e}");
    }

    // sweep over the TSV corpus with the TSV truth and external pairs: the results of the
    // twin (JSONL corpus, comma-separated truth and pairs), and the external rows counted
    // from the lists.
    let (a, b) = (d.join("sw-tsv"), d.join("sw-csv"));
    for (corpus, truth, ext, o) in [
        ("corpus.tsv", "truth.tsv", "ext.tsv", &a),
        ("corpus.jsonl", "truth.csv", "ext.csv", &b),
    ] {
        ok(&[
            "sweep",
            s(&d.join(corpus)),
            "--truth",
            s(&d.join(truth)),
            "--truth-rule",
            "label>=1",
            "--methods",
            "exact,concept",
            "--thresholds",
            "0.8,0.5",
            "--external",
            &format!("tool={}", s(&d.join(ext))),
            "--out",
            s(o),
        ]);
    }
    let rows = |dir: &Path| -> Vec<Vec<String>> {
        let mut r = csv::Reader::from_path(dir.join("results.csv")).unwrap();
        let h = r.headers().unwrap().clone();
        // Everything but the timings and memory.
        let keep: Vec<usize> = (0..h.len())
            .filter(|&i| !fimdup::report::TIMING_COLUMNS.contains(&&h[i]))
            .collect();
        let mut v = vec![keep.iter().map(|&i| h[i].to_string()).collect()];
        for rec in r.records() {
            let rec = rec.unwrap();
            v.push(keep.iter().map(|&i| rec[i].to_string()).collect());
        }
        v
    };
    let got = rows(&a);
    assert_eq!(got, rows(&b));
    let col = |name: &str| got[0].iter().position(|h| h == name).unwrap();
    let (method, threshold) = (col("method"), col("threshold"));
    let (found_col, common_col, truth_col) = (col("found"), col("common"), col("truth_pairs"));
    let mut tool_rows = 0;
    for r in &got[1..] {
        assert_eq!(r[truth_col], pos.len().to_string(), "{r:?}");
        if r[method] != "tool" {
            continue;
        }
        tool_rows += 1;
        let t: f64 = r[threshold].parse().unwrap();
        let at: HashSet<_> = ext.iter().filter(|p| p.1 >= t).map(|p| &p.0).collect();
        assert_eq!(r[found_col], at.len().to_string(), "{r:?}");
        let common = at.iter().filter(|p| pos.contains(**p)).count();
        assert_eq!(r[common_col], common.to_string(), "{r:?}");
    }
    assert_eq!(tool_rows, 2);
    // The exact method finds some of the labeled duplicates at 0.5.
    assert!(got[1..]
        .iter()
        .any(|r| r[method] == "exact" && r[common_col] != "0"));
}
