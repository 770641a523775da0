//! The five values, P/R/F1, truth rules, readers and false-duplicate clusters on hand-made
//! examples (worked by hand in the comments).

use std::io::Write;

use fimdup::eval::{
    evaluate, false_clusters, parse_thresholds, Counts, FalseClusterConfig, Labels, Op, Prediction,
    ShingleSets, TruthRule, TruthTable,
};

fn write(dir: &tempfile::TempDir, name: &str, body: &str) -> std::path::PathBuf {
    let p = dir.path().join(name);
    std::fs::File::create(&p)
        .unwrap()
        .write_all(body.as_bytes())
        .unwrap();
    p
}

#[test]
fn five_values_and_prf_by_hand() {
    // Truth T = {ab, ac, bc, de}; found F = {ba (= ab), bc, cd, ef, ab (again)}.
    // |T| = 4, |F| = 4 distinct ({ab, bc, cd, ef}), common = {ab, bc} = 2,
    // unique to truth = {ac, de} = 2, unique to ours = {cd, ef} = 2.
    // P = 2/4 = 0.5, R = 2/4 = 0.5, F1 = 2*.25/1 = 0.5.
    let t = Labels::from_pairs([("a", "b"), ("a", "c"), ("c", "b"), ("d", "e")]).unwrap();
    let f = Prediction::from_pairs([("b", "a"), ("b", "c"), ("c", "d"), ("e", "f"), ("a", "b")])
        .unwrap();
    let c = evaluate(&t, &f);
    assert_eq!(
        c,
        Counts {
            truth_pairs: 4,
            found: 4,
            unique_truth: 2,
            unique_ours: 2,
            common: 2
        }
    );
    assert_eq!(c.precision(), 0.5);
    assert_eq!(c.recall(), 0.5);
    assert_eq!(c.f1(), 0.5);
}

#[test]
fn clusters_give_all_member_pairs_once() {
    // Clusters {a,b,c} and {b,c,d} overlap in bc: pairs ab ac bc | bd cd = 5 distinct.
    // Truth {ab, ad, cd}: common = ab, cd = 2; unique ours = ac, bc, bd = 3; unique truth = ad.
    // P = 2/5 = 0.4, R = 2/3, F1 = 2*(0.4*2/3)/(0.4+2/3) = (16/30)/(32/30) = 0.5.
    let f = Prediction::from_clusters([vec!["a", "b", "c"], vec!["b", "c", "d", "d"], vec!["z"]]);
    let t = Labels::from_pairs([("a", "b"), ("a", "d"), ("c", "d")]).unwrap();
    let c = evaluate(&t, &f);
    assert_eq!((c.truth_pairs, c.found, c.common), (3, 5, 2));
    assert_eq!((c.unique_truth, c.unique_ours), (1, 3));
    assert!((c.precision() - 0.4).abs() < 1e-12);
    assert!((c.recall() - 2.0 / 3.0).abs() < 1e-12);
    assert!((c.f1() - 0.5).abs() < 1e-12);
}

#[test]
fn zero_cases() {
    // nothing found, truth non-empty: P = 1 (vacuous), R = 0, F1 = 0
    let c = Counts::new(3, 0, 0);
    assert_eq!((c.precision(), c.recall(), c.f1()), (1.0, 0.0, 0.0));
    // found something, empty truth: P = 0, R = 1, F1 = 0
    let c = Counts::new(0, 2, 0);
    assert_eq!((c.precision(), c.recall(), c.f1()), (0.0, 1.0, 0.0));
    // both empty: 1, 1, 1
    let c = Counts::new(0, 0, 0);
    assert_eq!((c.precision(), c.recall(), c.f1()), (1.0, 1.0, 1.0));
    // found but none right: P = 0, R = 0, F1 = 0
    let c = Counts::new(2, 2, 0);
    assert_eq!((c.precision(), c.recall(), c.f1()), (0.0, 0.0, 0.0));
}

#[test]
fn truth_rules_parse() {
    let r = TruthRule::parse("edit_similarity>0.85").unwrap();
    assert_eq!(
        (r.column.as_str(), r.op, r.value),
        ("edit_similarity", Op::Gt, 0.85)
    );
    let r = TruthRule::parse(" resemblance >= 0.8 ").unwrap();
    assert_eq!(
        (r.column.as_str(), r.op, r.value),
        ("resemblance", Op::Ge, 0.8)
    );
    assert_eq!(TruthRule::parse("containment_ab<=0.5").unwrap().op, Op::Le);
    assert_eq!(TruthRule::parse("x<1").unwrap().op, Op::Lt);
    assert_eq!(TruthRule::parse("x=1").unwrap().op, Op::Eq);
    assert_eq!(TruthRule::parse("x==1").unwrap().op, Op::Eq);
    assert!(!r_accepts("x>0.5", 0.5) && r_accepts("x>=0.5", 0.5));
    assert!(r_accepts("x<0.5", 0.4) && !r_accepts("x<=0.5", 0.6));
    for bad in [
        "",
        "resemblance",
        ">0.5",
        "resemblance>",
        "resemblance>abc",
        "res emb>0.1",
        "r>nan",
        "r>inf",
    ] {
        let e = TruthRule::parse(bad).unwrap_err().to_string();
        assert!(
            e.contains(&format!("'{bad}'")),
            "error must name the rule: {e}"
        );
    }
    assert_eq!(
        TruthRule::parse("resemblance>=0.8").unwrap().to_string(),
        "resemblance>=0.8"
    );
}

fn r_accepts(rule: &str, x: f64) -> bool {
    TruthRule::parse(rule).unwrap().accepts(x)
}

#[test]
fn truth_table_with_rule() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        &dir,
        "truth.csv",
        "a,b,resemblance,containment_ab,containment_ba,edit_similarity,kind\n\
         d1,d2,0.900000,0.9,0.9,0.950000,edit\n\
         d1,d3,0.300000,0.3,0.3,0.700000,template\n\
         d4,d3,0.850000,1.0,0.8,0.860000,containment\n\
         d2,d1,0.1,0.1,0.1,0.1,edit\n",
    );
    let t = TruthTable::read(&p).unwrap();
    assert_eq!(t.len(), 3, "the repeated pair d2,d1 is d1,d2 again");
    assert!(t.is_scored());
    let l = t
        .labels(Some(&TruthRule::parse("edit_similarity>0.85").unwrap()))
        .unwrap();
    assert_eq!(
        l.sorted_pairs(),
        vec![("d1".into(), "d2".into()), ("d3".into(), "d4".into())]
    );
    let l = t
        .labels(Some(&TruthRule::parse("resemblance>=0.9").unwrap()))
        .unwrap();
    assert_eq!(l.len(), 1);
    assert!(l.contains("d2", "d1"));
    assert_eq!(t.resemblance("d3", "d1").unwrap(), Some(0.3));
    assert_eq!(t.resemblance("d2", "d3").unwrap(), None);
    // every row when no rule
    assert_eq!(t.labels(None).unwrap().len(), 3);
    // missing column names the rule and the columns
    let e = t
        .labels(Some(&TruthRule::parse("score>0.5").unwrap()))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("score>0.5") && e.contains("edit_similarity"),
        "{e}"
    );
    // a bad number names file:line
    let p2 = write(&dir, "bad.csv", "a,b,resemblance\nx,y,0.5\nx,z,oops\n");
    let t2 = TruthTable::read(&p2).unwrap();
    let e = t2
        .labels(Some(&TruthRule::parse("resemblance>0.1").unwrap()))
        .unwrap_err()
        .to_string();
    assert!(e.contains("bad.csv:3") && e.contains("oops"), "{e}");
}

#[test]
fn plain_pair_lists() {
    let dir = tempfile::tempdir().unwrap();
    // headerless
    let p = write(&dir, "pairs.txt", "x,y\ny,z\n\nz,y\n");
    let t = TruthTable::read(&p).unwrap();
    assert!(t.columns().is_empty());
    assert_eq!(
        t.labels(None).unwrap().sorted_pairs(),
        vec![("x".into(), "y".into()), ("y".into(), "z".into())]
    );
    // self pair and wrong field count name the line
    let p = write(&dir, "selfpair.csv", "a,b\nx,y\nq,q\n");
    let e = TruthTable::read(&p).unwrap_err().to_string();
    assert!(e.contains("selfpair.csv:3"), "{e}");
    let p = write(&dir, "short.csv", "a,b,score\nx,y,1\nx\n");
    let e = TruthTable::read(&p).unwrap_err().to_string();
    assert!(e.contains("short.csv:3"), "{e}");
}

#[test]
fn prediction_readers() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        &dir,
        "pairs.csv",
        "a,b,score\nd1,d2,0.9\nd2,d1,0.9\nd3,d4,0.5\n",
    );
    let f = Prediction::read_pairs_csv(&p).unwrap();
    assert_eq!(f.len(), 2);
    assert!(f.clusters().is_none());
    let p = write(&dir, "nohdr.csv", "d1,d2\n");
    let e = Prediction::read_pairs_csv(&p).unwrap_err().to_string();
    assert!(e.contains("nohdr.csv:1"), "{e}");

    let p = write(
        &dir,
        "clusters.jsonl",
        "{\"id\":0,\"docs\":[\"d1\",\"d2\",\"d3\"],\"support\":7}\n{\"id\":\"c1\",\"docs\":[\"d3\",4]}\n",
    );
    let f = Prediction::read_clusters_jsonl(&p).unwrap();
    // d1d2 d1d3 d2d3 + d3,4 = 4
    assert_eq!(f.len(), 4);
    assert!(f.contains("4", "d3"));
    let cl = f.clusters().unwrap();
    assert_eq!(
        (cl[0].id.as_str(), cl[0].support, cl[1].id.as_str()),
        ("0", Some(7), "c1")
    );
    for (name, body) in [
        ("c2.jsonl", "{\"docs\":[\"a\",\"b\"]}\n{\"docs\":\"a\"}\n"),
        ("c3.jsonl", "{\"docs\":[\"a\",\"b\"]}\nnot json\n"),
        (
            "c4.jsonl",
            "{\"docs\":[\"a\",\"b\"]}\n{\"docs\":[\"a\"],\"support\":-1}\n",
        ),
    ] {
        let p = write(&dir, name, body);
        let e = Prediction::read_clusters_jsonl(&p).unwrap_err().to_string();
        assert!(e.contains(&format!("{name}:2")), "{e}");
    }
}

#[test]
fn false_duplicate_clusters() {
    // Chain x0 -> x1 -> x2: neighbours share most of their words, the ends do not.
    let base: Vec<String> = (0..40).map(|i| format!("w{i}")).collect();
    let mut x1 = base.clone();
    for i in (0..40).step_by(10) {
        x1[i] = format!("v{i}");
    }
    let mut x2 = x1.clone();
    for i in (5..40).step_by(10) {
        x2[i] = format!("u{i}");
    }
    let docs = [
        ("x0", base.join(" ")),
        ("x1", x1.join(" ")),
        ("x2", x2.join(" ")),
        ("y0", base.join(" ").to_uppercase()),
    ];
    let s = ShingleSets::from_texts(docs.iter().map(|(a, b)| (*a, b.as_str())));
    // independent count: x0 vs x2: 36 shingles each; x2 has a substitution every 5 words,
    // so no 5-window of x2 avoids them all: resemblance 0.
    assert_eq!(s.resemblance("x0", "x2"), Some(0.0));
    assert_eq!(s.resemblance("x0", "y0"), Some(1.0));
    let f = Prediction::from_clusters([vec!["x0", "x1", "x2"], vec!["x0", "y0"]]);
    let rep = false_clusters(&f, None, Some(&s), &FalseClusterConfig::default())
        .unwrap()
        .unwrap();
    assert_eq!(
        (rep.clusters, rep.false_clusters, rep.unresolved_pairs),
        (2, 1, 0)
    );
    let ex = &rep.examples[0];
    assert_eq!(
        (
            ex.id.as_str(),
            ex.size,
            ex.worst_a.as_str(),
            ex.worst_b.as_str()
        ),
        ("0", 3, "x0", "x2")
    );
    assert_eq!(ex.worst_resemblance, 0.0);
    // Without a corpus nothing resolves; with a truth table the listed pair resolves.
    let dir = tempfile::tempdir().unwrap();
    let p = write(&dir, "t.csv", "a,b,resemblance\nx0,x2,0.2\n");
    let t = TruthTable::read(&p).unwrap();
    let rep = false_clusters(&f, Some(&t), None, &FalseClusterConfig::default())
        .unwrap()
        .unwrap();
    assert_eq!((rep.false_clusters, rep.unresolved_pairs), (1, 3));
    assert_eq!(rep.examples[0].worst_resemblance, 0.2);
    // pairs only: no cluster check
    let g = Prediction::from_pairs([("x0", "x2")]).unwrap();
    assert!(
        false_clusters(&g, None, Some(&s), &FalseClusterConfig::default())
            .unwrap()
            .is_none()
    );
    let bad = FalseClusterConfig {
        floor: 1.5,
        ..Default::default()
    };
    assert!(false_clusters(&f, None, Some(&s), &bad).is_err());
}

#[test]
fn thresholds_parse() {
    let v = parse_thresholds("0.95:0.5:0.05").unwrap();
    assert_eq!(v.len(), 10);
    assert_eq!(v[0], 0.95);
    assert_eq!(v[9], 0.5);
    assert_eq!(v[1], 0.9);
    assert_eq!(v[7], 0.6);
    assert_eq!(parse_thresholds("0.5:0.95:-0.05").unwrap(), {
        let mut w = v.clone();
        w.reverse();
        w
    });
    assert_eq!(
        parse_thresholds("150:100:5").unwrap(),
        (0..=10).map(|i| 150.0 - 5.0 * i as f64).collect::<Vec<_>>()
    );
    // step does not divide the span: stop is not reached
    assert_eq!(
        parse_thresholds("1:0:0.3").unwrap(),
        vec![1.0, 0.7, 0.4, 0.1]
    );
    assert_eq!(parse_thresholds("0.9, 0.8").unwrap(), vec![0.9, 0.8]);
    assert_eq!(parse_thresholds("0.7").unwrap(), vec![0.7]);
    assert_eq!(parse_thresholds("0.7:0.7:0.1").unwrap(), vec![0.7]);
    for bad in ["", "1:0", "1:0:0", "a:0:1", "0:1:1e-9", "0.9,x"] {
        let e = parse_thresholds(bad).unwrap_err().to_string();
        assert!(e.contains(&format!("'{bad}'")), "{e}");
    }
}
