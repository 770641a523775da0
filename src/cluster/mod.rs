//! Clustering methods (concept clusters by maximal frequent itemsets, Broder union-find, LSH
//! with center clustering, super shingles, exact similarity join).
