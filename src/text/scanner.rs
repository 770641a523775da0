//! The ASCII word scanner of the fast path ([`super::Canonicalizer::for_each_token`]): the
//! words of ASCII text as `unicode_words` (UAX #29) finds them, from a 64-byte word-byte
//! mask (SSE2 on x86-64) with one branch per run of word bytes.
//!
//! Invariant: [`ascii_words`] gives exactly the words of `unicode_words` on ASCII text, and
//! of [`ascii_words_bytewise`], the byte-at-a-time form it is tested against (`tests.rs`).
//! It is the sketch hot path: its helpers stay `#[inline]`.

/// Word-break classes of ASCII bytes (UAX #29 restricted to ASCII).
const C_OTHER: u8 = 0;
/// ALetter.
const C_LETTER: u8 = 1;
/// Numeric.
const C_DIGIT: u8 = 2;
/// ExtendNumLet (`_`).
const C_EXTEND: u8 = 3;
/// MidLetter (`:`).
const C_MIDLETTER: u8 = 4;
/// MidNumLet and Single_Quote (`.`, `'`).
const C_MIDNUMLET: u8 = 5;
/// MidNum (`,`, `;`).
const C_MIDNUM: u8 = 6;

/// Class of every byte (non-ASCII bytes are [`C_OTHER`]; the scanner only sees ASCII).
const BYTE_CLASS: [u8; 256] = {
    let mut t = [C_OTHER; 256];
    let mut i = 0;
    while i < 128 {
        let c = i as u8;
        t[i] = if c.is_ascii_alphabetic() {
            C_LETTER
        } else if c.is_ascii_digit() {
            C_DIGIT
        } else {
            match c {
                b'_' => C_EXTEND,
                b':' => C_MIDLETTER,
                b'.' | b'\'' => C_MIDNUMLET,
                b',' | b';' => C_MIDNUM,
                _ => C_OTHER,
            }
        };
        i += 1;
    }
    t
};

/// True for the bytes words are made of (letters, digits, `_`).
const IS_WORD: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        let c = BYTE_CLASS[i];
        t[i] = c == C_LETTER || c == C_DIGIT || c == C_EXTEND;
        i += 1;
    }
    t
};

/// Calls `f` on the words of ASCII text `s` as `unicode_words` finds them; stops when `f`
/// returns false.
///
/// The text is classified 64 bytes at a time into a bit mask of word bytes (letters,
/// digits, `_`; SSE2 on x86-64); runs of word bytes are found from the mask's transitions,
/// so the loop branches once per run instead of once per byte. A run that ends at a
/// MidLetter / MidNum / MidNumLet byte between two letters or two digits joins the next run
/// (WB6/7, WB11/12), as in [`ascii_words_bytewise`], the byte-at-a-time form it is tested
/// against.
pub(super) fn ascii_words<'a>(s: &'a str, mut f: impl FnMut(&'a str) -> bool) {
    let b = s.as_bytes();
    let n = b.len();
    // Start of the current segment, when inside one.
    let mut seg: Option<usize> = None;
    // A join at byte `i` continues the segment over the run that starts at `i + 1`.
    let mut skip_start = usize::MAX;
    // Whether the byte before the current chunk is a word byte.
    let mut carry = 0u64;
    let mut base = 0usize;
    while base < n {
        let len = (n - base).min(64);
        let (m, jm) = word_mask(&b[base..base + len]);
        let prev = (m << 1) | carry;
        carry = m >> 63;
        // Run starts (word byte after a non-word one) and ends (non-word byte after a word
        // one); bits past `len` are zero in `m`, so an end can appear at `len` only when
        // `len < 64`, i.e. at the end of the text, handled below.
        let mut edges = (m & !prev) | (!m & prev);
        if len < 64 {
            edges &= (1u64 << len) - 1;
        }
        while edges != 0 {
            let j = edges.trailing_zeros() as usize;
            edges &= edges - 1;
            let i = base + j;
            if (m >> j) & 1 == 1 {
                // A run starts at `i`.
                if i == skip_start {
                    continue;
                }
                seg = Some(i);
            } else {
                // A run ends at `i` (b[i] is not a word byte; b[i - 1] is); only a joiner
                // byte (most ends are spaces) is looked at further.
                if (jm >> j) & 1 == 1 && i + 1 < n && joins(b[i - 1], b[i], b[i + 1]) {
                    skip_start = i + 1;
                    continue;
                }
                if let Some(start) = seg.take() {
                    if !emit_segment(s, start, i, &mut f) {
                        return;
                    }
                }
            }
        }
        base += len;
    }
    if let Some(start) = seg {
        emit_segment(s, start, n, &mut f);
    }
}

/// Whether `mid`, standing between the word byte `prev` and `next`, joins them into one
/// word: MidLetter / MidNumLet between two letters (WB6/7), MidNum / MidNumLet between two
/// digits (WB11/12).
#[inline]
fn joins(prev: u8, mid: u8, next: u8) -> bool {
    let next = BYTE_CLASS[usize::from(next)];
    match (BYTE_CLASS[usize::from(prev)], BYTE_CLASS[usize::from(mid)]) {
        (C_LETTER, C_MIDLETTER | C_MIDNUMLET) => next == C_LETTER,
        (C_DIGIT, C_MIDNUM | C_MIDNUMLET) => next == C_DIGIT,
        _ => false,
    }
}

/// Calls `f` on the segment `s[start..end]` unless it is made of `_` alone (no letter or
/// digit: not a word); returns what `f` returns (true for a skipped segment).
#[inline]
fn emit_segment<'a>(
    s: &'a str,
    start: usize,
    end: usize,
    f: &mut impl FnMut(&'a str) -> bool,
) -> bool {
    let w = &s.as_bytes()[start..end];
    let alnum = w[0] != b'_' || w.iter().any(|&c| c != b'_');
    // Both ends are ASCII bytes, so these are char boundaries.
    !alnum || f(&s[start..end])
}

/// True for the bytes that may join two runs of word bytes (`.`, `'`, `:`, `,`, `;`).
const IS_JOINER: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        let c = BYTE_CLASS[i];
        t[i] = c == C_MIDLETTER || c == C_MIDNUMLET || c == C_MIDNUM;
        i += 1;
    }
    t
};

/// Two masks of `chunk` (at most 64 ASCII bytes): bit `j` of the first set when `chunk[j]`
/// is a word byte (`[0-9A-Za-z_]`), of the second when it is a joiner ([`IS_JOINER`]).
#[inline]
fn word_mask(chunk: &[u8]) -> (u64, u64) {
    debug_assert!(chunk.len() <= 64);
    #[cfg(target_arch = "x86_64")]
    if chunk.len() == 64 {
        // SAFETY: SSE2 is part of the x86-64 baseline; the four loads read `chunk[0..64]`.
        return unsafe { word_mask_sse2(chunk.as_ptr()) };
    }
    let (mut m, mut jm) = (0u64, 0u64);
    for (j, &c) in chunk.iter().enumerate() {
        m |= u64::from(IS_WORD[usize::from(c)]) << j;
        jm |= u64::from(IS_JOINER[usize::from(c)]) << j;
    }
    (m, jm)
}

/// [`word_mask`] of the 64 bytes at `p` with SSE2 (ASCII input: the signed comparisons
/// below rely on bytes < 0x80 only for the range tricks, and any byte >= 0x80 is classed
/// as not a word byte all the same).
#[cfg(target_arch = "x86_64")]
#[inline]
unsafe fn word_mask_sse2(p: *const u8) -> (u64, u64) {
    use std::arch::x86_64::*;
    let (mut m, mut jm) = (0u64, 0u64);
    let joiners = [b'.', b'\'', b':', b',', b';'].map(|c| _mm_set1_epi8(c as i8));
    // Ranges by the bias trick: x + (0x80 - lo) < 0x80 - 128 + width, signed.
    let digit_bias = _mm_set1_epi8((0x80u8.wrapping_sub(b'0')) as i8);
    let digit_lim = _mm_set1_epi8((-128i16 + 10) as i8);
    let alpha_bias = _mm_set1_epi8((0x80u8.wrapping_sub(b'a')) as i8);
    let alpha_lim = _mm_set1_epi8((-128i16 + 26) as i8);
    let case = _mm_set1_epi8(0x20);
    let under = _mm_set1_epi8(b'_' as i8);
    for k in 0..4 {
        let v = _mm_loadu_si128(p.add(16 * k) as *const __m128i);
        let d = _mm_cmplt_epi8(_mm_add_epi8(v, digit_bias), digit_lim);
        let a = _mm_cmplt_epi8(_mm_add_epi8(_mm_or_si128(v, case), alpha_bias), alpha_lim);
        let u = _mm_cmpeq_epi8(v, under);
        let w = _mm_or_si128(_mm_or_si128(d, a), u);
        m |= u64::from(_mm_movemask_epi8(w) as u16) << (16 * k);
        let mut j = _mm_cmpeq_epi8(v, joiners[0]);
        for c in &joiners[1..] {
            j = _mm_or_si128(j, _mm_cmpeq_epi8(v, *c));
        }
        jm |= u64::from(_mm_movemask_epi8(j) as u16) << (16 * k);
    }
    (m, jm)
}

/// The byte-at-a-time scanner [`ascii_words`] replaced (its reference in tests).
#[cfg(test)]
fn ascii_words_bytewise(s: &str, mut f: impl FnMut(&str) -> bool) {
    let b = s.as_bytes();
    let n = b.len();
    let mut i = 0;
    loop {
        while i < n && !IS_WORD[usize::from(b[i])] {
            i += 1;
        }
        if i >= n {
            return;
        }
        let start = i;
        loop {
            // A run of letters, digits and `_`.
            while i < n && IS_WORD[usize::from(b[i])] {
                i += 1;
            }
            if i + 1 >= n {
                break;
            }
            // b[i] ends the run; it joins two letters or two digits (WB6/7, WB11/12).
            if !joins(b[i - 1], b[i], b[i + 1]) {
                break;
            }
            i += 2;
        }
        if !emit_segment(s, start, i, &mut f) {
            return;
        }
    }
}

#[cfg(test)]
mod tests;
