//! The worked example of the seminar report (seeds/001_...): A = "a rose is a rose is a
//! rose", B = "a rose is a flower which is a rose"; exact resemblance 3/5, 3/6, 3/7 for
//! w = 1, 2, 3, through the real token path (`Canonical` tokens, split on spaces here as the
//! text module would).  The sketches must agree with the exact values when they keep every
//! shingle (mod-m with m = 1, bottom-k with n >= |union|).

use fimdup::shingle::{containment, resemblance, shingle_hashes, shingle_set, ShingleConfig};
use fimdup::sketch::{estimate_containment, estimate_resemblance, Scheme, SketchConfig, Sketcher};
use fimdup::text::Canonical;

fn canon(s: &str) -> Canonical {
    let mut tokens = Vec::new();
    let mut pos = 0u32;
    for w in s.split(' ') {
        tokens.push(pos..pos + w.len() as u32);
        pos += w.len() as u32 + 1;
    }
    Canonical {
        text: s.to_string(),
        tokens,
    }
}

const A: &str = "a rose is a rose is a rose";
const B: &str = "a rose is a flower which is a rose";

#[test]
fn rose_exact_resemblance() {
    let (a, b) = (canon(A), canon(B));
    let want = [(1, 3.0 / 5.0), (2, 3.0 / 6.0), (3, 3.0 / 7.0)];
    for (w, r) in want {
        let cfg = ShingleConfig::new(w, 1, 0).unwrap();
        let (sa, sb) = (shingle_set(&a, &cfg), shingle_set(&b, &cfg));
        assert_eq!(resemblance(&sa, &sb), r, "w = {w}");
        assert_eq!(resemblance(&sb, &sa), r, "w = {w}");
        // |S(A)| = 3 for every w here, all shared: A is contained in B.
        assert_eq!(sa.len(), 3);
        assert_eq!(containment(&sa, &sb), 1.0);
        // and B contains A: c(B, A) = 3 / |S(B)| = r.
        assert_eq!(containment(&sb, &sa), r);
    }
    let r3 = {
        let cfg = ShingleConfig::new(3, 1, 0).unwrap();
        resemblance(&shingle_set(&a, &cfg), &shingle_set(&b, &cfg))
    };
    assert_eq!(format!("{r3:.6}"), "0.428571");
}

#[test]
fn rose_sketches_that_keep_everything_are_exact() {
    let (a, b) = (canon(A), canon(B));
    for (w, r) in [(1, 0.6), (2, 0.5), (3, 3.0 / 7.0)] {
        let sh = ShingleConfig::new(w, 1, 4).unwrap();
        for (scheme, size, modulus) in [(Scheme::ModM, 0, 1), (Scheme::BottomK, 64, 1)] {
            let cfg = SketchConfig {
                scheme,
                size,
                modulus,
                seed: 17,
                weighting: None,
                bits: None,
            };
            let sk = Sketcher::new(sh, cfg).unwrap();
            let (ia, ib) = (sk.sketch(&a), sk.sketch(&b));
            assert_eq!(estimate_resemblance(&ia, &ib, &cfg), r, "{scheme} w = {w}");
            if scheme == Scheme::ModM {
                assert_eq!(estimate_containment(&ia, &ib, &cfg).unwrap(), 1.0);
            }
        }
    }
}

#[test]
fn offsets_pick_every_oth_start() {
    // 8 tokens, w = 2, offset 3: starts 0, 3, 6 -> (a rose), (a rose), (a rose).
    let a = canon(A);
    let cfg = ShingleConfig::new(2, 3, 0).unwrap();
    let mut v = Vec::new();
    shingle_hashes(&a, &cfg, &mut v);
    assert_eq!(v.len(), 3);
    assert!(v[0] == v[1] && v[1] == v[2]);
    // offset 2 on B (9 tokens): starts 0,2,4,6 -> (a rose) (is a) (flower which) (is a)
    let b = canon(B);
    let cfg = ShingleConfig::new(2, 2, 0).unwrap();
    let mut v = Vec::new();
    shingle_hashes(&b, &cfg, &mut v);
    assert_eq!(v.len(), 4);
    assert_eq!(v[1], v[3]);
    assert_eq!(shingle_set(&b, &cfg).len(), 3);
}

#[test]
fn short_and_empty_documents_get_the_empty_image() {
    let sh = ShingleConfig::default(); // w = 5
    for scheme in Scheme::ALL {
        let cfg = SketchConfig {
            scheme,
            // A fingerprint's width is a multiple of 64 bits.
            size: if scheme == Scheme::SimHash { 64 } else { 16 },
            modulus: 1,
            seed: 1,
            // ICWS samples weights: the bag of the shingles.
            weighting: (scheme == Scheme::Icws).then_some(fimdup::sketch::Weighting::Bag),
            bits: None,
        };
        let sk = Sketcher::new(sh, cfg).unwrap();
        let short = sk.sketch(&canon("a rose is a"));
        let empty = sk.sketch(&Canonical::default());
        assert!(short.is_empty() && empty.is_empty(), "{scheme}");
        assert_eq!(estimate_resemblance(&short, &empty, &cfg), 0.0);
        let mut keys = Vec::new();
        short.keys(scheme, &mut keys);
        assert!(keys.is_empty());
        let full = sk.sketch(&canon(B));
        assert!(!full.is_empty());
        assert_eq!(estimate_resemblance(&full, &short, &cfg), 0.0);
        assert_eq!(estimate_resemblance(&full, &full, &cfg), 1.0);
    }
}
