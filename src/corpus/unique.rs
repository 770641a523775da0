//! Unique external ids: [`DuplicateIds`] says what a repeated id gets, and [`IdCheck`]
//! applies it, document by document in input order. Both corpus readers (the sequential
//! [`super::CorpusReader`] and the parallel [`super::par`] reader) and the images inputs
//! ([`crate::sketch::ImageInputs`]) pass every external id through an [`IdCheck`] before
//! anyone sees it, so every entry point (sketch, cluster, index build and add) gets ids that
//! are unique within its input.
//!
//! Memory: the check keeps a 96-bit hash per distinct id (12 bytes in an open-addressing
//! table, about 14 to 28 bytes per document), never the id strings; only ids that did repeat
//! are kept as strings (with their next suffix). Two different ids share a 96-bit hash with
//! probability below 2^-33 even for 2^32 documents. The position of the first occurrence is
//! not stored: it is found again (by reading the input again) only when a duplicate stops
//! the run.
//!
//! Invariants: with [`DuplicateIds::Suffix`] the ids handed on are pairwise distinct: the
//! `k`-th occurrence (`k >= 2`) of an id `X` becomes `X#k`, or, when `X#k` was already
//! taken by an earlier document, the next free `X#j` (`j > k`); an input document that holds
//! a taken id such as `X#2` literally is itself a duplicate and renamed the same way. The
//! outcome depends only on the input order, never on threads.

use hashbrown::{HashMap, HashTable};

/// What a repeated external id gets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum DuplicateIds {
    /// Stop with an error naming both occurrences (file and line).
    #[default]
    Error,
    /// Rename the 2nd, 3rd, ... occurrence of `X` to `X#2`, `X#3`, ... (see the module
    /// docs for ids already taken) and count them.
    Suffix,
    /// No check: ids as the input gives them (for inputs whose ids need not be unique, such
    /// as lists of queries, and for reading again corpora indexed before ids were checked).
    #[cfg_attr(feature = "cli", value(skip))]
    Keep,
}

impl DuplicateIds {
    /// The name used in messages and stored configurations.
    pub fn name(self) -> &'static str {
        match self {
            DuplicateIds::Error => "error",
            DuplicateIds::Suffix => "suffix",
            DuplicateIds::Keep => "keep",
        }
    }
}

impl std::str::FromStr for DuplicateIds {
    type Err = crate::Error;
    fn from_str(s: &str) -> crate::Result<Self> {
        match s {
            "error" => Ok(DuplicateIds::Error),
            "suffix" => Ok(DuplicateIds::Suffix),
            "keep" => Ok(DuplicateIds::Keep),
            _ => Err(crate::Error::config(format!(
                "unknown duplicate-id handling {s:?}; expected error or suffix"
            ))),
        }
    }
}

/// A 96-bit hash of an id (three words: an entry of 12 bytes).
type Key = [u32; 3];

fn key_of(id: &str) -> Key {
    let h = xxhash_rust::xxh3::xxh3_128(id.as_bytes());
    [h as u32, (h >> 32) as u32, (h >> 64) as u32]
}

/// The table's hash of a key (its first 64 bits, already uniform).
fn hash_of(k: &Key) -> u64 {
    u64::from(k[0]) | (u64::from(k[1]) << 32)
}

/// A duplicate id found by [`IdCheck::check`] in [`DuplicateIds::Error`] mode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Duplicate {
    /// The repeated id.
    pub id: String,
}

/// Applies a [`DuplicateIds`] policy to the ids of one input, in input order (see the
/// module docs).
#[derive(Debug)]
pub struct IdCheck {
    mode: DuplicateIds,
    seen: HashTable<Key>,
    /// Ids that repeated, with the next suffix to try.
    next_suffix: HashMap<String, u64>,
    renamed: u64,
}

impl IdCheck {
    /// A check with nothing seen yet.
    pub fn new(mode: DuplicateIds) -> Self {
        IdCheck {
            mode,
            seen: HashTable::new(),
            next_suffix: HashMap::new(),
            renamed: 0,
        }
    }

    /// The policy applied.
    pub fn mode(&self) -> DuplicateIds {
        self.mode
    }

    /// Ids renamed so far ([`DuplicateIds::Suffix`]).
    pub fn renamed(&self) -> u64 {
        self.renamed
    }

    /// Inserts `k`; false when it was there already.
    fn insert(&mut self, k: Key) -> bool {
        let h = hash_of(&k);
        match self.seen.entry(h, |x| *x == k, hash_of) {
            hashbrown::hash_table::Entry::Occupied(_) => false,
            hashbrown::hash_table::Entry::Vacant(v) => {
                v.insert(k);
                true
            }
        }
    }

    /// Checks the next id of the input: a new id passes as it is; a repeated one is an
    /// `Err` ([`DuplicateIds::Error`]) or renamed in place ([`DuplicateIds::Suffix`]).
    #[inline]
    pub fn check(&mut self, id: &mut String) -> std::result::Result<(), Duplicate> {
        if self.mode == DuplicateIds::Keep || self.insert(key_of(id)) {
            return Ok(());
        }
        if self.mode == DuplicateIds::Error {
            return Err(Duplicate { id: id.clone() });
        }
        let mut next = self.next_suffix.get(id.as_str()).copied().unwrap_or(2);
        let base_len = id.len();
        let base = id.clone();
        loop {
            id.truncate(base_len);
            id.push('#');
            id.push_str(itoa::Buffer::new().format(next));
            next += 1;
            if self.insert(key_of(id)) {
                break;
            }
        }
        self.next_suffix.insert(base, next);
        self.renamed += 1;
        Ok(())
    }
}

/// Whether the ids of a corpus read with `cfg` in `format` can repeat at all: line numbers
/// (plain lines, or an empty id field or column), relative paths (directories) and the
/// positions of in-memory texts without an id column cannot.
pub(crate) fn ids_can_repeat(format: super::Format, cfg: &super::CorpusConfig) -> bool {
    use super::Format::*;
    match format {
        Jsonl => !cfg.id_field.is_empty(),
        Csv | Tsv | Parquet => !cfg.id_column.is_empty(),
        Lines | Dir => false,
        Warc => true,
        Texts => cfg.texts.as_ref().is_some_and(|t| t.texts().has_ids()),
    }
}

/// The check a corpus read with `cfg` in `format` gets: `None` when its ids cannot repeat
/// or the policy is [`DuplicateIds::Keep`].
pub(super) fn check_for(format: super::Format, cfg: &super::CorpusConfig) -> Option<IdCheck> {
    (cfg.duplicate_ids != DuplicateIds::Keep && ids_can_repeat(format, cfg))
        .then(|| IdCheck::new(cfg.duplicate_ids))
}

/// The first repeated id among `ids` (`(line, id)` in input order) as
/// [`DuplicateIds::Error`] finds it: `(its line, the id, the line of its first
/// occurrence)`; `None` when no id repeats.
pub fn first_repeat<'a>(
    ids: impl IntoIterator<Item = (u64, &'a str)>,
) -> Option<(u64, String, u64)> {
    let mut check = IdCheck::new(DuplicateIds::Error);
    let mut first_line: hashbrown::HashMap<&str, u64> = hashbrown::HashMap::new();
    for (line, id) in ids {
        if check.check(&mut id.to_string()).is_err() {
            let first = first_line.get(id).copied().unwrap_or(0);
            return Some((line, id.to_string(), first));
        }
        first_line.insert(id, line);
    }
    None
}

/// The error of a duplicate at `path:line` whose first occurrence is at `first` (file and
/// line), when it could be found again.
/// The error of id `id` at `line` of `path` repeating the one at `first_line`, as the
/// in-order check reports it (for checks that know both lines, such as the divided
/// multi-process run's owners of ids).
pub fn duplicate_id_error(
    path: &std::path::Path,
    line: u64,
    id: &str,
    first_line: u64,
) -> crate::Error {
    duplicate_error(
        path,
        line,
        &Duplicate { id: id.to_string() },
        Some((path.to_path_buf(), first_line)),
    )
}

pub(crate) fn duplicate_error(
    path: &std::path::Path,
    line: u64,
    d: &Duplicate,
    first: Option<(std::path::PathBuf, u64)>,
) -> crate::Error {
    let first = match first {
        Some((p, l)) => format!("first seen at {}:{l}", p.display()),
        None => "first seen earlier in the same input".to_string(),
    };
    crate::Error::parse(path, line, format!("duplicate id {:?} ({first})", d.id))
}

/// Finds the file and line of the first document whose id is `id` by reading the corpus at
/// `path` again (without the check); `None` for standard input or when it cannot be found.
pub(super) fn first_occurrence(
    path: &std::path::Path,
    cfg: &super::CorpusConfig,
    id: &str,
) -> Option<(std::path::PathBuf, u64)> {
    if path == std::path::Path::new("-") {
        return None;
    }
    let cfg = super::CorpusConfig {
        duplicate_ids: DuplicateIds::Keep,
        ..cfg.clone()
    };
    let mut r = super::open(path, &cfg).ok()?;
    while let Some(Ok(d)) = r.next() {
        if d.ext_id == id {
            return Some((r.current_file().to_path_buf(), r.last_line()));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(mode: DuplicateIds, ids: &[&str]) -> Result<Vec<String>, Duplicate> {
        let mut c = IdCheck::new(mode);
        ids.iter()
            .map(|s| {
                let mut s = s.to_string();
                c.check(&mut s).map(|_| s)
            })
            .collect()
    }

    #[test]
    fn suffixes_are_unique_even_against_real_ids() {
        let got = run(
            DuplicateIds::Suffix,
            &["1", "1#2", "1", "1", "2", "1#3", "1#2", "2"],
        )
        .unwrap();
        assert_eq!(
            got,
            ["1", "1#2", "1#3", "1#4", "2", "1#3#2", "1#2#2", "2#2"]
        );
        let mut c = IdCheck::new(DuplicateIds::Suffix);
        for s in &got {
            let mut s = s.clone();
            c.check(&mut s).unwrap();
            assert_eq!(c.renamed(), 0, "all distinct");
        }
    }

    #[test]
    fn error_and_keep() {
        assert_eq!(
            run(DuplicateIds::Error, &["a", "b", "a"]),
            Err(Duplicate { id: "a".into() })
        );
        assert_eq!(
            run(DuplicateIds::Keep, &["a", "a"]).unwrap(),
            ["a", "a"].map(String::from)
        );
        assert_eq!(
            "suffix".parse::<DuplicateIds>().unwrap(),
            DuplicateIds::Suffix
        );
        assert!("x".parse::<DuplicateIds>().is_err());
    }
}
