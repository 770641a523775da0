//! Bootstrap intervals (`--bootstrap`): their coverage checked by simulation, and the
//! outputs of `sweep` and `eval` with them.
//!
//! Coverage: corpora of the generator with known truth; the 95 % interval of F1 from a
//! corpus of 300 documents must cover the F1 of a corpus twenty times larger made with the
//! same parameters (another seed) in at least 90 % of 100 seeds, with documents and with
//! the generator's families as the resampled unit.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use fimdup::cluster::{Input, JobBuilder, Method, Threshold};
use fimdup::eval::{evaluate, BootstrapConfig, Labels, Prediction, Resampler, Units};
use fimdup::gen::{generate, write_corpus, GenConfig, GeneratedCorpus};

use super::common::{ok, run, s};

/// The method's threshold, and the resemblance from which a truth pair is positive.
const THRESHOLD: f64 = 0.7;

fn config(seed: u64, docs: usize) -> GenConfig {
    GenConfig {
        seed,
        docs,
        ..GenConfig::default()
    }
}

/// The truth's positives (resemblance at least [`THRESHOLD`], from the generator's exact
/// truth) and union-find's pairs on the corpus at [`THRESHOLD`].
fn run_method(corpus: &GeneratedCorpus) -> (Labels, Prediction) {
    let dir = tempfile::tempdir().unwrap();
    write_corpus(dir.path(), corpus).unwrap();
    let labels = Labels::from_pairs(
        corpus
            .truth
            .iter()
            .filter(|r| r.resemblance >= THRESHOLD)
            .map(|r| (r.a.as_str(), r.b.as_str())),
    )
    .unwrap();
    let job = JobBuilder::new(Method::UnionFind)
        .threshold(Threshold::Resemblance(THRESHOLD))
        .build()
        .unwrap();
    let out = job
        .run(&Input::Corpus(dir.path().join("docs.jsonl")), &|_| {})
        .unwrap();
    let ids = &out.ext_ids;
    let pred = Prediction::from_pairs(
        out.output
            .pairs
            .iter()
            .map(|p| (ids[p.a.index()].as_str(), ids[p.b.index()].as_str())),
    )
    .unwrap();
    (labels, pred)
}

/// Share of seeds whose interval covers `target`, and the intervals' mean width.
#[derive(Default)]
struct Coverage {
    covered: u32,
    seeds: u32,
    width: f64,
}

impl Coverage {
    fn add(&mut self, lo: f64, hi: f64, target: f64) {
        self.seeds += 1;
        self.width += hi - lo;
        if lo <= target && target <= hi {
            self.covered += 1;
        }
    }
    fn share(&self) -> f64 {
        f64::from(self.covered) / f64::from(self.seeds)
    }
    fn mean_width(&self) -> f64 {
        self.width / f64::from(self.seeds)
    }
}

#[test]
fn f1_intervals_cover_the_f1_of_a_large_corpus() {
    let t0 = Instant::now();
    let (small, large, seeds, resamples) = (300, 6000, 100u64, 200);
    let (labels, pred) = run_method(&generate(&config(1_000_003, large)).unwrap());
    let target = evaluate(&labels, &pred).f1();
    let (mut docs, mut groups) = (Coverage::default(), Coverage::default());
    for seed in 0..seeds {
        let corpus = generate(&config(seed, small)).unwrap();
        let (labels, pred) = run_method(&corpus);
        let boot = BootstrapConfig {
            resamples,
            seed: 1000 + seed,
            group_by: None,
        };
        for (units, cov) in [
            (
                Units::documents(corpus.docs.iter().map(|d| d.id.as_str())),
                &mut docs,
            ),
            (
                Units::groups(
                    corpus
                        .docs
                        .iter()
                        .map(|d| (d.id.as_str(), d.family.as_deref())),
                ),
                &mut groups,
            ),
        ] {
            let mut r = Resampler::new(units, &labels);
            r.add_row(&labels, &pred, None);
            let iv = r.run(&boot).unwrap().rows[0].f1;
            cov.add(iv.lo, iv.hi, target);
        }
    }
    eprintln!(
        "F1 of {large} documents {target:.4}; 95 % intervals from {small} documents cover it in \
         {:.2} of {seeds} seeds resampling documents (mean width {:.3}), {:.2} resampling \
         families (mean width {:.3}); {:.1} s",
        docs.share(),
        docs.mean_width(),
        groups.share(),
        groups.mean_width(),
        t0.elapsed().as_secs_f64()
    );
    for (unit, c) in [("documents", &docs), ("families", &groups)] {
        assert!(c.share() >= 0.90, "{unit}: coverage {}", c.share());
        // an interval wide enough to cover anything would pass too: it must be informative
        assert!(
            c.mean_width() > 0.02 && c.mean_width() < 0.5,
            "{unit}: mean width {}",
            c.mean_width()
        );
    }
}

/// The rows of a results.csv by `(method, threshold)`, each by column.
type Rows = BTreeMap<(String, String), BTreeMap<String, String>>;

/// The rows of a results.csv by `(method, threshold)`: every column but the timing ones.
fn results(dir: &Path) -> (Vec<String>, Rows) {
    let text = std::fs::read_to_string(dir.join("results.csv")).unwrap();
    let mut lines = text.lines();
    let head: Vec<String> = lines
        .next()
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect();
    let mut rows = BTreeMap::new();
    for l in lines {
        let row: BTreeMap<String, String> = head
            .iter()
            .cloned()
            .zip(l.split(',').map(str::to_string))
            .filter(|(k, _)| !fimdup::report::TIMING_COLUMNS.contains(&k.as_str()))
            .collect();
        rows.insert((row["method"].clone(), row["threshold"].clone()), row);
    }
    (head, rows)
}

fn num(v: &str) -> f64 {
    v.parse().unwrap()
}

#[test]
fn sweep_and_eval_with_a_bootstrap() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g");
    ok(&["gen", "--out", s(&g), "--docs", "400", "--seed", "11"]);
    let (docs, truth) = (g.join("docs.jsonl"), g.join("truth.csv"));
    let sweep = |out: &str, extra: &[&str]| {
        let out = dir.path().join(out);
        let mut args = vec![
            "sweep",
            s(&docs),
            "--truth",
            s(&truth),
            "--truth-rule",
            "resemblance>=0.7",
            "--methods",
            "concept,union-find",
            "--thresholds",
            "0.9:0.6:0.1",
            "--errors",
            "0",
            "--out",
            s(&out),
        ];
        args.extend(extra);
        ok(&args);
        out
    };
    let plain = sweep("plain", &[]);
    let one = sweep(
        "one",
        &[
            "--bootstrap",
            "300",
            "--bootstrap-seed",
            "9",
            "--threads",
            "1",
        ],
    );
    let two = sweep(
        "two",
        &[
            "--bootstrap",
            "300",
            "--bootstrap-seed",
            "9",
            "--threads",
            "2",
        ],
    );
    let other = sweep("other", &["--bootstrap", "300", "--bootstrap-seed", "10"]);

    // Without --bootstrap: the columns as before (the repetitions' spread last), no band,
    // no paired table.
    let timing = ["repeats", "seconds_max", "peak_rss_max_bytes"];
    let (head, plain_rows) = results(&plain);
    assert_eq!(head.len(), 17);
    assert_eq!(head[14..], timing);
    assert!(!dir.path().join("plain/paired.csv").exists());
    let svg = std::fs::read_to_string(plain.join("f1.svg")).unwrap();
    assert!(!svg.contains("<polygon"));
    let html = std::fs::read_to_string(plain.join("report.html")).unwrap();
    assert!(!html.contains("Paired comparison"));

    // With it: six more columns before the spread, the other columns unchanged.
    let (head, rows) = results(&one);
    assert_eq!(head[20..], timing);
    assert_eq!(
        head[14..20],
        [
            "precision_lo",
            "precision_hi",
            "recall_lo",
            "recall_hi",
            "f1_lo",
            "f1_hi"
        ]
    );
    assert_eq!(rows.len(), plain_rows.len());
    for (k, r) in &rows {
        for (c, v) in &plain_rows[k] {
            assert_eq!(&r[c], v, "{k:?} {c}");
        }
        for m in ["precision", "recall", "f1"] {
            let (lo, hi) = (num(&r[&format!("{m}_lo")]), num(&r[&format!("{m}_hi")]));
            assert!(
                (0.0..=1.0).contains(&lo) && lo <= hi && hi <= 1.0,
                "{k:?} {m}"
            );
        }
    }
    // The same seed gives the same bytes for any thread count; another seed other intervals.
    assert_eq!(results(&one), results(&two));
    for f in ["paired.csv", "f1.svg"] {
        assert_eq!(
            std::fs::read(one.join(f)).unwrap(),
            std::fs::read(two.join(f)).unwrap(),
            "{f}"
        );
    }
    assert_ne!(results(&one).1, results(&other).1);
    let svg = std::fs::read_to_string(one.join("f1.svg")).unwrap();
    assert_eq!(svg.matches("<polygon").count(), 2, "one band per method");

    // paired.csv: the difference of the best F1 of results.csv.
    let best = |m: &str| {
        rows.values()
            .filter(|r| r["method"] == m)
            .map(|r| num(&r["f1"]))
            .fold(f64::NEG_INFINITY, f64::max)
    };
    let paired = std::fs::read_to_string(one.join("paired.csv")).unwrap();
    let mut lines = paired.lines();
    assert_eq!(
        lines.next().unwrap(),
        "a,b,best_f1_a,best_f1_b,diff,diff_lo,diff_hi,a_wins,b_wins"
    );
    let p: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(lines.next(), None);
    assert_eq!((p[0], p[1]), ("concept", "union-find"));
    assert_eq!(num(p[4]), best("concept") - best("union-find"));
    assert!(num(p[5]) <= num(p[6]));
    assert!(num(p[7]) + num(p[8]) <= 1.0 + 1e-12);
    let html = std::fs::read_to_string(one.join("report.html")).unwrap();
    assert!(html.contains("Paired comparison") && html.contains("concept - union-find"));

    // eval on the same pairs, corpus and seed resamples the same documents the same way.
    let cl = dir.path().join("cl");
    ok(&[
        "cluster",
        s(&docs),
        "--method",
        "union-find",
        "--threshold",
        "0.7",
        "--out",
        s(&cl),
    ]);
    let o = ok(&[
        "eval",
        "--truth",
        s(&truth),
        "--truth-rule",
        "resemblance>=0.7",
        "--pairs",
        s(&cl.join("pairs.csv")),
        "--corpus",
        s(&docs),
        "--bootstrap",
        "300",
        "--bootstrap-seed",
        "9",
        "--json",
    ]);
    let ev: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let row = &rows[&("union-find".to_string(), "0.7".to_string())];
    assert_eq!(ev["f1"].as_f64().unwrap(), num(&row["f1"]));
    for c in [
        "precision_lo",
        "precision_hi",
        "recall_lo",
        "recall_hi",
        "f1_lo",
        "f1_hi",
    ] {
        assert_eq!(ev[c].as_f64().unwrap(), num(&row[c]), "{c}");
    }
    assert_eq!(ev["bootstrap"]["units"], 400);

    // Groups: the generator's families.
    let fam = sweep("fam", &["--bootstrap", "300", "--group-by", "family"]);
    let html = std::fs::read_to_string(fam.join("report.html")).unwrap();
    assert!(html.contains("groups by the record field &#39;family&#39;"));
    // families as the unit (seed 0) against documents (seed 10): other intervals
    assert_ne!(results(&fam).1, results(&other).1);
}

#[test]
fn bad_bootstrap_options_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g");
    ok(&["gen", "--out", s(&g), "--docs", "60", "--seed", "2"]);
    let (docs, truth) = (g.join("docs.jsonl"), g.join("truth.csv"));
    let lines = dir.path().join("docs.txt");
    std::fs::write(&lines, "a b c d e f\na b c d e g\n").unwrap();
    let out = dir.path().join("out");
    let cases: [(Vec<&str>, &str); 3] = [
        (
            vec![
                "sweep",
                s(&docs),
                "--truth",
                s(&truth),
                "--bootstrap",
                "1",
                "--out",
                s(&out),
            ],
            "1 resamples; expected 2 to 1000000",
        ),
        (
            vec![
                "sweep",
                s(&lines),
                "--truth",
                s(&truth),
                "--bootstrap",
                "50",
                "--group-by",
                "task",
                "--out",
                s(&out),
            ],
            "not JSONL, CSV/TSV or Parquet",
        ),
        (
            vec![
                "eval",
                "--truth",
                s(&truth),
                "--pairs",
                s(&truth),
                "--bootstrap",
                "50",
                "--group-by",
                "family",
            ],
            "--corpus",
        ),
    ];
    for (args, want) in cases {
        let o = run(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}
