//! Helpers on ascending, duplicate-free slices (shingle sets, DocId lists, row lists).
//!
//! Invariant: every function here takes its inputs ascending and duplicate-free; on other
//! inputs the results are unspecified (but memory-safe).

/// Size of the intersection of two ascending, duplicate-free slices (a merge: linear in
/// `a.len() + b.len()`).
pub fn intersection_size<T: Ord>(a: &[T], b: &[T]) -> usize {
    let (mut i, mut j, mut c) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                c += 1;
                i += 1;
                j += 1;
            }
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intersection_sizes() {
        assert_eq!(intersection_size::<u32>(&[], &[]), 0);
        assert_eq!(intersection_size(&[1u32, 3, 5], &[]), 0);
        assert_eq!(intersection_size(&[1u32, 3, 5, 9], &[0, 3, 4, 5, 10]), 2);
        assert_eq!(intersection_size(&[1u64, 2, 3], &[1, 2, 3]), 3);
        assert_eq!(intersection_size(&[u64::MAX], &[0, u64::MAX]), 1);
    }
}
