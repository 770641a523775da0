//! Images (sketches) of documents: bottom-k, k-mins, one-permutation hashing, mod-m,
//! weighted/bag images, super shingles, fingerprints, estimators, and the images file.
