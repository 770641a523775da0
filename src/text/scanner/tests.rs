//! The chunked scanner against the byte-at-a-time one.

use super::{ascii_words, ascii_words_bytewise, word_mask, IS_JOINER, IS_WORD};
use proptest::prelude::*;

/// A word scanner under test.
type Scanner = fn(&str, &mut dyn FnMut(&str) -> bool);

fn words(s: &str, stop_after: usize, scan: Scanner) -> Vec<String> {
    let mut v = Vec::new();
    scan(s, &mut |w| {
        v.push(w.to_string());
        v.len() < stop_after
    });
    v
}

fn fast(s: &str, f: &mut dyn FnMut(&str) -> bool) {
    ascii_words(s, f)
}

fn slow(s: &str, f: &mut dyn FnMut(&str) -> bool) {
    ascii_words_bytewise(s, f)
}

/// ASCII text heavy in the bytes that matter: letters, digits, `_`, the Mid* joiners
/// and separators, long enough to cross several 64-byte chunks.
fn ascii_text() -> impl Strategy<Value = String> {
    let byte = prop_oneof![
        8 => prop::sample::select(b"abcXYZ".to_vec()),
        3 => prop::sample::select(b"0189".to_vec()),
        3 => prop::sample::select(b" .':,;_".to_vec()),
        1 => 0u8..128,
    ];
    prop::collection::vec(byte, 0..400).prop_map(|b| String::from_utf8(b).unwrap())
}

#[test]
fn word_mask_matches_the_table_for_every_byte() {
    for c in 0u8..=255 {
        let chunk = [c; 64];
        let want = if IS_WORD[usize::from(c)] { u64::MAX } else { 0 };
        let joiner = if IS_JOINER[usize::from(c)] {
            u64::MAX
        } else {
            0
        };
        assert_eq!(word_mask(&chunk), (want, joiner), "byte {c:#x}");
        assert_eq!(
            word_mask(&chunk[..5]),
            (want & 0x1f, joiner & 0x1f),
            "byte {c:#x}"
        );
    }
}

#[test]
fn joins_and_runs_across_chunk_boundaries() {
    for pad in 0..130 {
        for tail in [
            "a.b c", "1,2 x", "a:b", "__ _a_", "ab.", "a'b'c", "1.a", "x",
        ] {
            let s = format!("{}{tail}", " ".repeat(pad));
            assert_eq!(
                words(&s, usize::MAX, fast),
                words(&s, usize::MAX, slow),
                "{s:?}"
            );
            let s = format!("{}{tail}", "w".repeat(pad));
            assert_eq!(
                words(&s, usize::MAX, fast),
                words(&s, usize::MAX, slow),
                "{s:?}"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn chunked_scanner_equals_bytewise(s in ascii_text(), stop in 1usize..50) {
        prop_assert_eq!(words(&s, usize::MAX, fast), words(&s, usize::MAX, slow));
        prop_assert_eq!(words(&s, stop, fast), words(&s, stop, slow));
    }
}
