//! Shingles: w-grams of canonical tokens (words or characters) with a length and an offset
//! (the distance between the starts of two consecutive shingles, IK09), hashed to 64 bits
//! with a seeded, stable hash.
