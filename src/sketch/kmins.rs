//! The k-mins inner loop: `mins[i] = min(mins[i], min_x a[i] * x + b[i])` in wrapping
//! 64-bit arithmetic. The same portable body is compiled three times (baseline, AVX2,
//! AVX-512F+DQ) and the widest one the CPU supports is chosen at run time; integer
//! arithmetic is exact, so every variant gives identical results.

#[inline(always)]
fn body(a: &[u64], b: &[u64], xs: &[u64], mins: &mut [u64]) {
    let n = mins.len();
    let (a, b) = (&a[..n], &b[..n]);
    let mut chunks = xs.chunks_exact(4);
    for c in &mut chunks {
        let (x0, x1, x2, x3) = (c[0], c[1], c[2], c[3]);
        for ((m, &ai), &bi) in mins.iter_mut().zip(a).zip(b) {
            let v0 = ai.wrapping_mul(x0).wrapping_add(bi);
            let v1 = ai.wrapping_mul(x1).wrapping_add(bi);
            let v2 = ai.wrapping_mul(x2).wrapping_add(bi);
            let v3 = ai.wrapping_mul(x3).wrapping_add(bi);
            *m = (*m).min(v0.min(v1).min(v2.min(v3)));
        }
    }
    for &x in chunks.remainder() {
        for ((m, &ai), &bi) in mins.iter_mut().zip(a).zip(b) {
            *m = (*m).min(ai.wrapping_mul(x).wrapping_add(bi));
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
fn body_avx512(a: &[u64], b: &[u64], xs: &[u64], mins: &mut [u64]) {
    body(a, b, xs, mins)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn body_avx2(a: &[u64], b: &[u64], xs: &[u64], mins: &mut [u64]) {
    body(a, b, xs, mins)
}

/// Folds the shingle hashes `xs` into `mins` (`a`, `b` at least `mins.len()` long).
pub(super) fn update(a: &[u64], b: &[u64], xs: &[u64], mins: &mut [u64]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512dq")
            && std::arch::is_x86_feature_detected!("avx512f")
        {
            // SAFETY: the CPU supports the features the function is compiled for.
            return unsafe { body_avx512(a, b, xs, mins) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: as above.
            return unsafe { body_avx2(a, b, xs, mins) };
        }
    }
    body(a, b, xs, mins)
}

/// The portable variant, for tests comparing it with the dispatched one.
#[cfg(test)]
pub(super) fn update_portable(a: &[u64], b: &[u64], xs: &[u64], mins: &mut [u64]) {
    body(a, b, xs, mins)
}

#[cfg(test)]
mod tests {
    #[test]
    fn dispatched_equals_portable() {
        let mut s = 7u64;
        let mut r = || super::super::hash::splitmix64(&mut s);
        let a: Vec<u64> = (0..77).map(|_| r() | 1).collect();
        let b: Vec<u64> = (0..77).map(|_| r()).collect();
        let xs: Vec<u64> = (0..303).map(|_| r()).collect();
        let (mut m1, mut m2) = (vec![u64::MAX; 77], vec![u64::MAX; 77]);
        super::update(&a, &b, &xs, &mut m1);
        super::update_portable(&a, &b, &xs, &mut m2);
        assert_eq!(m1, m2);
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            let mut m3 = vec![u64::MAX; 77];
            // SAFETY: AVX2 is present.
            unsafe { super::body_avx2(&a, &b, &xs, &mut m3) };
            assert_eq!(m3, m2);
        }
        for i in 0..77 {
            let want = xs
                .iter()
                .map(|&x| a[i].wrapping_mul(x).wrapping_add(b[i]))
                .min();
            assert_eq!(Some(m1[i]), want);
        }
    }
}
