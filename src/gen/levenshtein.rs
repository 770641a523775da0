//! A fast exact word-level Levenshtein distance for the generator's truth: the
//! bit-parallel algorithm of Myers (1999) in the multi-block form of Hyyrö (2003), over
//! sequences of `u32` token ids. It returns exactly what the quadratic
//! [`crate::eval::similarity::levenshtein`] returns (tested against it), in
//! `O(n * ceil(m / 64))` word operations instead of `O(n * m)`.

/// Exact Levenshtein distance (unit-cost insert, delete, substitute) between two token
/// sequences.
pub fn levenshtein_u32(a: &[u32], b: &[u32]) -> usize {
    // pattern = the shorter sequence (fewer blocks), text = the longer
    let (text, pat) = if a.len() < b.len() { (b, a) } else { (a, b) };
    let m = pat.len();
    if m == 0 {
        return text.len();
    }
    let words = m.div_ceil(64);
    // Peq: for each distinct pattern token, its position bitmask, `words` u64 per token.
    let mut index: hashbrown::HashMap<u32, usize> =
        hashbrown::HashMap::with_capacity_and_hasher(m, Default::default());
    let mut peq: Vec<u64> = Vec::with_capacity(m * words);
    for (i, &t) in pat.iter().enumerate() {
        let slot = *index.entry(t).or_insert_with(|| {
            let s = peq.len() / words;
            peq.resize(peq.len() + words, 0);
            s
        });
        peq[slot * words + i / 64] |= 1u64 << (i % 64);
    }
    let last = 1u64 << ((m - 1) % 64);
    let mut vp = vec![!0u64; words];
    let mut vn = vec![0u64; words];
    let zeros = vec![0u64; words];
    let mut score = m;
    for &c in text {
        let eq: &[u64] = match index.get(&c) {
            Some(&s) => &peq[s * words..(s + 1) * words],
            None => &zeros,
        };
        // global distance: the top row grows by one per text token
        let mut hp_carry = 1u64;
        let mut hn_carry = 0u64;
        for w in 0..words {
            let x = eq[w] | hn_carry;
            let d0 = (((x & vp[w]).wrapping_add(vp[w])) ^ vp[w]) | x | vn[w];
            let mut hp = vn[w] | !(d0 | vp[w]);
            let mut hn = d0 & vp[w];
            let (hp_in, hn_in) = (hp_carry, hn_carry);
            if w + 1 < words {
                hp_carry = hp >> 63;
                hn_carry = hn >> 63;
            } else {
                hp_carry = u64::from(hp & last != 0);
                hn_carry = u64::from(hn & last != 0);
            }
            hp = (hp << 1) | hp_in;
            hn = (hn << 1) | hn_in;
            vp[w] = hn | !(d0 | hp);
            vn[w] = hp & d0;
        }
        score = score + hp_carry as usize - hn_carry as usize;
    }
    score
}

/// `1 - levenshtein / max(len)` (1 when both are empty), as
/// [`crate::eval::similarity::edit_similarity`].
pub fn edit_similarity_u32(a: &[u32], b: &[u32]) -> f64 {
    let m = a.len().max(b.len());
    if m == 0 {
        1.0
    } else {
        1.0 - levenshtein_u32(a, b) as f64 / m as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::similarity::levenshtein;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn by_hand() {
        assert_eq!(levenshtein_u32(&[], &[]), 0);
        assert_eq!(levenshtein_u32(&[], &[1, 2]), 2);
        assert_eq!(levenshtein_u32(&[1, 2, 3], &[]), 3);
        // kitten -> sitting = 3
        let k: Vec<u32> = "kitten".bytes().map(u32::from).collect();
        let s: Vec<u32> = "sitting".bytes().map(u32::from).collect();
        assert_eq!(levenshtein_u32(&k, &s), 3);
        assert_eq!(levenshtein_u32(&s, &k), 3);
    }

    /// Random pairs across block boundaries (lengths 0..200, so 0 to 4 blocks), small
    /// alphabets (many repeats) and edited copies: equal to the quadratic reference.
    #[test]
    fn matches_quadratic_reference() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for round in 0..600 {
            let alpha = [2u32, 5, 50, 100_000][round % 4];
            let la = rng.gen_range(0..200);
            let a: Vec<u32> = (0..la).map(|_| rng.gen_range(0..alpha)).collect();
            let b: Vec<u32> = if round % 2 == 0 {
                let lb = rng.gen_range(0..200);
                (0..lb).map(|_| rng.gen_range(0..alpha)).collect()
            } else {
                let mut b = a.clone();
                for _ in 0..rng.gen_range(0..20) {
                    match rng.gen_range(0..3) {
                        0 if !b.is_empty() => {
                            let i = rng.gen_range(0..b.len());
                            b[i] = rng.gen_range(0..alpha);
                        }
                        1 => {
                            let i = rng.gen_range(0..=b.len());
                            b.insert(i, rng.gen_range(0..alpha));
                        }
                        _ if !b.is_empty() => {
                            let i = rng.gen_range(0..b.len());
                            b.remove(i);
                        }
                        _ => {}
                    }
                }
                b
            };
            assert_eq!(
                levenshtein_u32(&a, &b),
                levenshtein(&a, &b),
                "round {round}: {a:?} vs {b:?}"
            );
        }
    }
}
