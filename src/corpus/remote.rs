//! Corpora in object storage: `s3://` and `gs://` URLs, read through the `object_store`
//! crate (the `object-store` feature; a build without it refuses such a URL with an error
//! naming the feature).
//!
//! A URL names a corpus as a local path does ([`super::shards`]):
//! * `s3://bucket/prefix/part-*.jsonl.zst`: a **pattern** in the last segment, matched
//!   against the names of the objects directly under `prefix/` (not recursive);
//! * `s3://bucket/prefix/` (or `s3://bucket`) with a record `--format`: every object under
//!   the prefix, recursively, named by its path relative to the prefix;
//! * `s3://bucket/prefix/` without a format: read as a local directory is, one Parquet
//!   corpus when an object under it is named `*.parquet` (a divided run cuts its objects
//!   by row groups), else one document per object;
//! * `s3://bucket/key`: that one object (a prefix when no object has that key); with a
//!   record `--format` it is read as shards, the object as the one shard.
//!
//! In every case a name segment starting with `.` is skipped, as in a local directory, and
//! `gs://bucket/...` is the same for Google Cloud Storage.
//!
//! **Staging.** The objects are copied into a temporary directory (under `--tmp-dir`, else
//! the system's) that mirrors the corpus, one file per object with the object's name and
//! size, and the run reads that directory as a local sharded corpus: the shards, their
//! order, the DocIds and the ids (`name:line`) are those of the same files on disk, so the
//! outputs are byte-identical. The directory is removed when the run ends, failed or not.
//! Staging rather than streaming keeps every reader of the crate (which seek, and read a
//! corpus more than once) unchanged, and memory bounded: objects are fetched in ranges of
//! [`CHUNK`] bytes written to disk as they come.
//! * A run in one process, or a gathered run, stages every object whole
//!   ([`stage_whole`]): the disk holds the corpus for the run's length.
//! * A divided run ([`stage_pieces`]) stages, in each process, only the byte ranges of its
//!   workers' pieces ([`super::split::assign_pieces`]) into sparse files of the objects'
//!   sizes, and before dividing them the few bytes after each cut point that find the line
//!   start there (of a Parquet object, its footer, which says where its row groups start):
//!   a process fetches about `1/N` of the corpus's bytes.
//!
//! **Outputs.** `--out s3://bucket/prefix` ([`OutDir`]): the run writes into a staging
//! directory as into a local one, and its files are uploaded under the prefix, by their
//! paths in it, only once the run has succeeded, `summary.json` last. In a divided run each
//! process uploads the parts it wrote (their names differ by process), so the prefix ends
//! holding what a local `--out` of every process would.
//!
//! **Configuration** comes from the environment, as the cloud tools read it: for S3
//! `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION` (or
//! `AWS_DEFAULT_REGION`; `us-east-1` if neither), `AWS_ENDPOINT_URL` (or `AWS_ENDPOINT`)
//! for an S3-compatible server, and `AWS_ALLOW_HTTP=true` for one without TLS; for GCS
//! `GOOGLE_SERVICE_ACCOUNT` (or `GOOGLE_APPLICATION_CREDENTIALS`, the path of a service
//! account's JSON key) or `GOOGLE_SERVICE_ACCOUNT_KEY` (the key itself). Requests are
//! retried three times over at most 20 s.
//!
//! Invariants: the list of objects is sorted by name and an empty one is an error naming
//! the URL; a URL that cannot be read (no bucket, no object, a refused connection, bad
//! credentials) is an [`Error::Io`] naming the object's URL and the store's error, raised
//! before anything is written; errors about the staged files name the objects' URLs
//! ([`Staged::name_urls`]).

use std::ops::Range;
use std::path::{Path, PathBuf};

use super::CorpusConfig;
use crate::{Error, Result};

/// The bytes of one ranged request (and the most a fetch holds in memory).
pub const CHUNK: u64 = 8 << 20;

/// True when `path` is an object-store URL (`s3://` or `gs://`).
pub fn is_remote(path: &Path) -> bool {
    path.to_str()
        .is_some_and(|s| s.starts_with("s3://") || s.starts_with("gs://"))
}

/// A remote corpus copied to a temporary directory, removed when this is dropped.
#[derive(Debug)]
pub struct Staged {
    /// The temporary directory.
    dir: tempfile::TempDir,
    /// The corpus path in it (the pattern, the directory or the one file).
    local: PathBuf,
    /// The URL of the corpus.
    url: PathBuf,
    /// The URL the objects' names are relative to (ends with `/`, or is empty for a URL
    /// of one object).
    base: String,
    /// Bytes fetched from the store.
    fetched: u64,
}

impl Staged {
    /// The local path that reads as the remote corpus.
    pub fn path(&self) -> &Path {
        &self.local
    }

    /// Bytes fetched from the store.
    pub fn fetched(&self) -> u64 {
        self.fetched
    }

    /// The URL of the staged file `p` (of the corpus for its local path; `p` itself when
    /// it is not staged here).
    pub fn url_of(&self, p: &Path) -> PathBuf {
        if p == self.local {
            return self.url.clone();
        }
        match p.strip_prefix(self.dir.path()) {
            Ok(_) if self.base.is_empty() => self.url.clone(),
            Ok(rel) => PathBuf::from(format!("{}{}", self.base, rel.to_string_lossy())),
            Err(_) => p.to_path_buf(),
        }
    }

    /// `e` with the paths of staged files replaced by the URLs of their objects.
    pub fn name_urls(&self, e: Error) -> Error {
        renamed(e, |p| self.url_of(&p))
    }
}

/// `e` with the path it names passed through `url`.
fn renamed(e: Error, url: impl Fn(PathBuf) -> PathBuf) -> Error {
    match e {
        Error::Parse { path, line, msg } => Error::Parse {
            path: url(path),
            line,
            msg,
        },
        Error::Format { path, msg } => Error::Format {
            path: url(path),
            msg,
        },
        Error::Io { path, source } => Error::Io {
            path: url(path),
            source,
        },
        other => other,
    }
}

/// A temporary directory under `tmp` (the system's when `None`).
fn temp_dir(tmp: Option<&Path>) -> Result<tempfile::TempDir> {
    match tmp {
        Some(t) => tempfile::Builder::new()
            .prefix("fimdup-remote")
            .tempdir_in(t),
        None => tempfile::Builder::new().prefix("fimdup-remote").tempdir(),
    }
    .map_err(|e| Error::io(tmp.unwrap_or(Path::new("temporary directory")), e))
}

/// An output directory (`--out`): a local directory is itself; for an object-store URL
/// (`s3://bucket/prefix`) the run writes into a staging directory, and
/// [`OutDir::publish`] uploads its files under the prefix once the run has succeeded
/// (`summary.json` last, so that its presence says the others are complete). A failed run
/// uploads nothing; the staging directory is removed when this is dropped.
#[derive(Debug)]
pub struct OutDir {
    local: PathBuf,
    /// The staging directory and the URL, for an output in object storage.
    remote: Option<(tempfile::TempDir, PathBuf)>,
}

impl OutDir {
    /// The output directory `out`, staged under `tmp` when it is a URL. The store is
    /// reached here (the prefix listed), so that an output URL that cannot be written to is
    /// an error naming it before any work.
    pub fn new(out: &Path, tmp: Option<&Path>) -> Result<OutDir> {
        if !is_remote(out) {
            return Ok(OutDir {
                local: out.to_path_buf(),
                remote: None,
            });
        }
        imp::check_out(out)?;
        let dir = temp_dir(tmp)?;
        Ok(OutDir {
            local: dir.path().join("out"),
            remote: Some((dir, out.to_path_buf())),
        })
    }

    /// The local directory the run writes into.
    pub fn path(&self) -> &Path {
        &self.local
    }

    /// `e` with the paths of staged outputs replaced by their URLs.
    pub fn name_urls(&self, e: Error) -> Error {
        let Some((_, url)) = &self.remote else {
            return e;
        };
        renamed(e, |p| match p.strip_prefix(&self.local) {
            Ok(rel) => PathBuf::from(format!(
                "{}/{}",
                url.to_string_lossy().trim_end_matches('/'),
                rel.to_string_lossy()
            )),
            Err(_) => p,
        })
    }

    /// Uploads the files the run wrote (nothing for a local directory); returns the bytes
    /// uploaded.
    pub fn publish(self) -> Result<u64> {
        match &self.remote {
            None => Ok(0),
            Some((_, url)) => imp::upload(&self.local, url),
        }
    }
}

/// Stages every object of the remote corpus at `url` whole, under `tmp` (the system's
/// temporary directory when `None`); `None` when `url` is not remote.
pub fn stage_whole(url: &Path, cfg: &CorpusConfig, tmp: Option<&Path>) -> Result<Option<Staged>> {
    if !is_remote(url) {
        return Ok(None);
    }
    imp::stage(url, cfg, tmp, None).map(Some)
}

/// Runs `f` on the corpus at `path` as files on disk: `path` itself when it is not
/// remote, else its objects staged whole under `tmp` ([`stage_whole`]; removed when `f`
/// returns), with the staged files' paths in `f`'s error replaced by their objects' URLs.
pub fn with_staged<T>(
    path: &Path,
    cfg: &CorpusConfig,
    tmp: Option<&Path>,
    f: impl FnOnce(&Path) -> Result<T>,
) -> Result<T> {
    match stage_whole(path, cfg, tmp)? {
        None => f(path),
        Some(s) => f(s.path()).map_err(|e| s.name_urls(e)),
    }
}

/// Stages, for the workers `mine` of the `workers` of a divided run, the byte ranges of
/// their pieces of the remote corpus at `url` (see the module docs); `None` when `url` is
/// not remote.
pub fn stage_pieces(
    url: &Path,
    cfg: &CorpusConfig,
    tmp: Option<&Path>,
    workers: usize,
    mine: Range<usize>,
) -> Result<Option<Staged>> {
    if !is_remote(url) {
        return Ok(None);
    }
    imp::stage(url, cfg, tmp, Some((workers, mine))).map(Some)
}

/// The names of the objects of the remote corpus at `url`, sorted (for a pattern whose
/// name says no format: the shards' names say it).
pub(crate) fn names(url: &Path) -> Result<Vec<String>> {
    imp::names(url)
}

/// The format of the remote corpus at `url`, a prefix whose name says none, read as a
/// local directory is ([`super::Format::guess`]): Parquet when an object under it is named
/// `*.parquet`, else one document per object; `None` when `url` is a pattern or names one
/// object (then its name says the format, or nothing does).
pub(crate) fn prefix_format(url: &Path) -> Result<Option<super::Format>> {
    imp::prefix_format(url)
}

#[cfg(not(feature = "object-store"))]
mod imp {
    use super::*;

    fn absent(url: &Path) -> Error {
        Error::format(
            url,
            "a corpus in object storage, but this build of fimdup cannot read one; build it \
             with the `object-store` feature (`cargo build --release --features object-store`, \
             or `--features full`)",
        )
    }

    pub(super) fn stage(
        url: &Path,
        _cfg: &CorpusConfig,
        _tmp: Option<&Path>,
        _divided: Option<(usize, Range<usize>)>,
    ) -> Result<Staged> {
        Err(absent(url))
    }

    pub(super) fn names(url: &Path) -> Result<Vec<String>> {
        Err(absent(url))
    }

    pub(super) fn prefix_format(url: &Path) -> Result<Option<crate::corpus::Format>> {
        Err(absent(url))
    }

    pub(super) fn check_out(url: &Path) -> Result<()> {
        Err(Error::format(
            url,
            "an output in object storage, but this build of fimdup cannot write one; build \
             it with the `object-store` feature (`cargo build --release --features \
             object-store`, or `--features full`)",
        ))
    }

    pub(super) fn upload(_dir: &Path, url: &Path) -> Result<u64> {
        check_out(url).map(|_| 0)
    }
}

#[cfg(feature = "object-store")]
mod imp {
    use std::io::{Seek, SeekFrom, Write};
    use std::sync::Arc;
    use std::time::Duration;

    use object_store::path::Path as Key;
    use object_store::{ObjectStore, RetryConfig};

    use super::*;
    use crate::corpus::shards::matches;
    use crate::corpus::split::{assign_pieces, cut_of, Cut};

    /// What a URL names.
    enum Kind {
        /// The objects directly under the prefix whose names match.
        Pattern(String),
        /// Every object under the prefix.
        Prefix,
        /// The object whose key is the prefix (a prefix when there is none).
        Object,
    }

    /// A store and the corpus it holds.
    struct Remote {
        rt: tokio::runtime::Runtime,
        store: Arc<dyn ObjectStore>,
        /// The corpus's URL, as given.
        url: PathBuf,
        /// `scheme://bucket/`.
        root: String,
        /// The key prefix, without a trailing `/` (empty for the whole bucket).
        prefix: String,
        kind: Kind,
    }

    /// An object of the corpus: its name in the corpus, key and size.
    struct Object {
        name: String,
        key: Key,
        len: u64,
    }

    /// The error of reading `url`.
    fn read_err(url: impl Into<PathBuf>, e: impl std::fmt::Display) -> Error {
        Error::io(url, std::io::Error::other(e.to_string()))
    }

    impl Remote {
        fn open(url: &Path) -> Result<Self> {
            let s = url.to_str().unwrap_or_default();
            let (scheme, rest) = s.split_once("://").unwrap_or(("", s));
            let (bucket, key) = rest.split_once('/').unwrap_or((rest, ""));
            if bucket.is_empty() {
                return Err(Error::config(format!("{s}: the URL names no bucket")));
            }
            let (dir, last) = match key.rsplit_once('/') {
                Some((d, l)) => (d, l),
                None => ("", key),
            };
            let (prefix, kind) = if last.contains(['*', '?']) {
                if dir.contains(['*', '?']) {
                    return Err(Error::config(format!(
                        "{s}: only the last segment of a pattern of shards may hold `*` or `?`"
                    )));
                }
                (dir.to_string(), Kind::Pattern(last.to_string()))
            } else if last.is_empty() {
                (dir.to_string(), Kind::Prefix)
            } else {
                (key.to_string(), Kind::Object)
            };
            let retry = RetryConfig {
                max_retries: 3,
                retry_timeout: Duration::from_secs(20),
                ..RetryConfig::default()
            };
            let store: Arc<dyn ObjectStore> = match scheme {
                "s3" => Arc::new(
                    object_store::aws::AmazonS3Builder::from_env()
                        .with_bucket_name(bucket)
                        .with_retry(retry)
                        .build()
                        .map_err(|e| read_err(url, e))?,
                ),
                "gs" => Arc::new(
                    object_store::gcp::GoogleCloudStorageBuilder::from_env()
                        .with_bucket_name(bucket)
                        .with_retry(retry)
                        .build()
                        .map_err(|e| read_err(url, e))?,
                ),
                _ => {
                    return Err(Error::config(format!(
                        "{s}: not an object-store URL (s3:// or gs://)"
                    )))
                }
            };
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| Error::io(url, e))?;
            Ok(Remote {
                rt,
                store,
                url: url.to_path_buf(),
                root: format!("{scheme}://{bucket}/"),
                prefix: prefix.trim_end_matches('/').to_string(),
                kind,
            })
        }

        /// The URL of `key`.
        fn url_of(&self, key: &Key) -> String {
            format!("{}{}", self.root, key.as_ref())
        }

        /// The objects and folders directly under `prefix`.
        fn list_one(&self, prefix: &str) -> Result<object_store::ListResult> {
            let key = (!prefix.is_empty()).then(|| Key::from(prefix));
            self.rt
                .block_on(self.store.list_with_delimiter(key.as_ref()))
                .map_err(|e| read_err(&self.url, e))
        }

        /// Every object under `prefix` whose path segments (below the corpus's prefix)
        /// do not start with `.`, recursively.
        fn walk(&self, prefix: &str, out: &mut Vec<Object>) -> Result<()> {
            let listed = self.list_one(prefix)?;
            for o in listed.objects {
                if o.location.filename().is_some_and(|n| !n.starts_with('.')) {
                    out.push(Object {
                        name: self.name_of(&o.location),
                        key: o.location,
                        len: o.size,
                    });
                }
            }
            for p in listed.common_prefixes {
                if p.filename().is_some_and(|n| !n.starts_with('.')) {
                    self.walk(p.as_ref(), out)?;
                }
            }
            Ok(())
        }

        /// The name of `key` in the corpus: its path below the prefix.
        fn name_of(&self, key: &Key) -> String {
            let k = key.as_ref();
            if self.prefix.is_empty() {
                k.to_string()
            } else {
                k.strip_prefix(&self.prefix)
                    .map_or(k, |r| r.trim_start_matches('/'))
                    .to_string()
            }
        }

        /// The corpus's objects, sorted by name; none is an error.
        fn objects(&self) -> Result<Vec<Object>> {
            let mut found = Vec::new();
            let what = match &self.kind {
                Kind::Pattern(pattern) => {
                    for o in self.list_one(&self.prefix)?.objects {
                        let name = o.location.filename().unwrap_or_default().to_string();
                        if (name.starts_with('.') && !pattern.starts_with('.'))
                            || !matches(pattern.as_bytes(), name.as_bytes())
                        {
                            continue;
                        }
                        found.push(Object {
                            name,
                            key: o.location,
                            len: o.size,
                        });
                    }
                    "no object matches the pattern"
                }
                Kind::Prefix => {
                    self.walk(&self.prefix, &mut found)?;
                    "no object under the prefix"
                }
                Kind::Object => {
                    let key = Key::from(self.prefix.as_str());
                    match self.rt.block_on(self.store.head(&key)) {
                        Ok(meta) => found.push(Object {
                            name: key.filename().unwrap_or_default().to_string(),
                            key,
                            len: meta.size,
                        }),
                        Err(object_store::Error::NotFound { .. }) => {
                            self.walk(&self.prefix, &mut found)?;
                        }
                        Err(e) => return Err(read_err(&self.url, e)),
                    }
                    "no such object, and no object under it as a prefix"
                }
            };
            if found.is_empty() {
                return Err(Error::config(format!(
                    "{}: {what}; expected a corpus",
                    self.url.display()
                )));
            }
            found.sort_by(|a, b| a.name.cmp(&b.name));
            Ok(found)
        }

        /// Writes the bytes `range` of `o` into `file` at the same offsets, in ranged
        /// requests of at most [`CHUNK`] bytes; returns the bytes fetched.
        fn fetch(
            &self,
            o: &Object,
            file: &mut std::fs::File,
            local: &Path,
            range: Range<u64>,
        ) -> Result<u64> {
            let mut at = range.start;
            while at < range.end {
                let to = (at + CHUNK).min(range.end);
                let bytes = self
                    .rt
                    .block_on(self.store.get_range(&o.key, at..to))
                    .map_err(|e| read_err(self.url_of(&o.key), e))?;
                if bytes.is_empty() {
                    return Err(read_err(
                        self.url_of(&o.key),
                        format!("no bytes from offset {at} of an object of {} bytes", o.len),
                    ));
                }
                file.seek(SeekFrom::Start(at))
                    .and_then(|_| file.write_all(&bytes))
                    .map_err(|e| Error::io(local, e))?;
                at += bytes.len() as u64;
            }
            Ok(range.end.saturating_sub(range.start))
        }

        /// Fetches the footer of the Parquet object `o` (its metadata, its length and the
        /// magic), or the whole object when it is too short to hold one; returns the bytes
        /// fetched.
        fn fetch_footer(&self, o: &Object, file: &mut std::fs::File, local: &Path) -> Result<u64> {
            if o.len < 12 {
                return self.fetch(o, file, local, 0..o.len);
            }
            let mut got = self.fetch(o, file, local, o.len - 8..o.len)?;
            let mut tail = [0u8; 8];
            file.seek(SeekFrom::Start(o.len - 8))
                .and_then(|_| std::io::Read::read_exact(file, &mut tail))
                .map_err(|e| Error::io(local, e))?;
            let meta = u64::from(u32::from_le_bytes(tail[..4].try_into().expect("4 bytes")));
            let start = o.len.saturating_sub(8 + meta);
            got += self.fetch(o, file, local, start..o.len - 8)?;
            Ok(got)
        }

        /// Fetches the bytes of `o` from `pos - 1` on until the end of the line holding
        /// byte `pos - 1` (what [`crate::corpus::split`] reads to cut at `pos`).
        fn fetch_line_end(
            &self,
            o: &Object,
            file: &mut std::fs::File,
            local: &Path,
            pos: u64,
        ) -> Result<u64> {
            let mut fetched = 0;
            let mut at = pos - 1;
            let step = 1u64 << 16;
            while at < o.len {
                let to = (at + step).min(o.len);
                let bytes = self
                    .rt
                    .block_on(self.store.get_range(&o.key, at..to))
                    .map_err(|e| read_err(self.url_of(&o.key), e))?;
                file.seek(SeekFrom::Start(at))
                    .and_then(|_| file.write_all(&bytes))
                    .map_err(|e| Error::io(local, e))?;
                fetched += bytes.len() as u64;
                if bytes.is_empty() || bytes.contains(&b'\n') {
                    break;
                }
                at = to;
            }
            Ok(fetched)
        }
    }

    /// Opens the store of the output URL `url` and lists its prefix.
    pub(super) fn check_out(url: &Path) -> Result<()> {
        let r = Remote::open(url)?;
        if let Kind::Pattern(_) = r.kind {
            return Err(Error::config(format!(
                "{}: an output URL names a prefix (`s3://bucket/dir`), not a pattern",
                url.display()
            )));
        }
        r.list_one(&r.prefix).map(|_| ())
    }

    /// Uploads every file under `dir` (recursively, hidden names skipped) to the prefix of
    /// `url`, by its path below `dir`, in name order with a top-level `summary.json` last: a file of at most
    /// [`CHUNK`] bytes in one request, a larger one in parts of [`CHUNK`] bytes (at most
    /// four in flight). Returns the bytes uploaded.
    pub(super) fn upload(dir: &Path, url: &Path) -> Result<u64> {
        use object_store::WriteMultipart;
        use std::io::Read;

        let r = Remote::open(url)?;
        let mut files = Vec::new();
        if dir.exists() {
            // Hidden names (an unfinished atomic write's temporary file) are not outputs.
            crate::corpus::walk(dir, "", &mut files)?;
        }
        files.sort_by_key(|(name, _)| (name == "summary.json", name.clone()));
        let mut sent = 0;
        for (name, path) in files {
            let key = match r.prefix.as_str() {
                "" => Key::from(name.as_str()),
                p => Key::from(format!("{p}/{name}")),
            };
            let err = |e: object_store::Error| read_err(r.url_of(&key), e);
            let mut file = std::fs::File::open(&path).map_err(|e| Error::io(&path, e))?;
            let len = file.metadata().map_err(|e| Error::io(&path, e))?.len();
            if len <= CHUNK {
                let mut bytes = Vec::with_capacity(len as usize);
                file.read_to_end(&mut bytes)
                    .map_err(|e| Error::io(&path, e))?;
                r.rt.block_on(r.store.put(&key, bytes.into()))
                    .map_err(err)?;
            } else {
                r.rt.block_on(async {
                    let up = r.store.put_multipart(&key).await.map_err(err)?;
                    let mut w = WriteMultipart::new_with_chunk_size(up, CHUNK as usize);
                    let mut buf = vec![0u8; CHUNK as usize];
                    loop {
                        let n = file.read(&mut buf).map_err(|e| Error::io(&path, e))?;
                        if n == 0 {
                            break;
                        }
                        w.wait_for_capacity(4).await.map_err(err)?;
                        w.write(&buf[..n]);
                    }
                    w.finish().await.map_err(err).map(|_| ())
                })?;
            }
            sent += len;
        }
        Ok(sent)
    }

    /// The corpus's objects' names, sorted.
    pub(super) fn names(url: &Path) -> Result<Vec<String>> {
        let r = Remote::open(url)?;
        Ok(r.objects()?.into_iter().map(|o| o.name).collect())
    }

    pub(super) fn prefix_format(url: &Path) -> Result<Option<crate::corpus::Format>> {
        let r = Remote::open(url)?;
        if matches!(r.kind, Kind::Pattern(_)) {
            return Ok(None);
        }
        let objects = r.objects()?;
        if matches!(r.kind, Kind::Object) && objects[0].key.as_ref() == r.prefix {
            return Ok(None);
        }
        let parquet =
            (objects.iter()).any(|o| crate::corpus::parquet::is_parquet_name(Path::new(&o.name)));
        Ok(Some(if parquet {
            crate::corpus::Format::Parquet
        } else {
            crate::corpus::Format::Dir
        }))
    }

    pub(super) fn stage(
        url: &Path,
        cfg: &CorpusConfig,
        tmp: Option<&Path>,
        divided: Option<(usize, Range<usize>)>,
    ) -> Result<Staged> {
        let r = Remote::open(url)?;
        let objects = r.objects()?;
        let dir = temp_dir(tmp)?;
        // One object is one file, unless a record format makes the URL name shards.
        let one = matches!(r.kind, Kind::Object)
            && objects.len() == 1
            && objects[0].key.as_ref() == r.prefix
            && !crate::corpus::shards::is_sharded(url, cfg);
        let (local, base) = match &r.kind {
            Kind::Pattern(p) => (dir.path().join(p), format!("{}{}/", r.root, r.prefix)),
            _ if one => (dir.path().join(&objects[0].name), String::new()),
            Kind::Object if objects[0].key.as_ref() == r.prefix => {
                // The one object as a shard: its URL is its parent's and its name.
                let parent = r.prefix.rsplit_once('/').map_or("", |p| p.0);
                let base = match parent {
                    "" => r.root.clone(),
                    p => format!("{}{p}/", r.root),
                };
                (dir.path().to_path_buf(), base)
            }
            _ if r.prefix.is_empty() => (dir.path().to_path_buf(), r.root.clone()),
            _ => (dir.path().to_path_buf(), format!("{}{}/", r.root, r.prefix)),
        };
        let mut staged = Staged {
            local,
            url: url.to_path_buf(),
            base,
            fetched: 0,
            dir,
        };
        // The files, of the objects' sizes (sparse until fetched).
        let mut files = Vec::with_capacity(objects.len());
        for o in &objects {
            let p = staged.dir.path().join(&o.name);
            if let Some(parent) = p.parent() {
                std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
            }
            let f = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(true)
                .open(&p)
                .map_err(|e| Error::io(&p, e))?;
            f.set_len(o.len).map_err(|e| Error::io(&p, e))?;
            files.push((p, f));
        }
        let Some((workers, mine)) = divided else {
            for (o, (p, f)) in objects.iter().zip(&mut files) {
                staged.fetched += r.fetch(o, f, p, 0..o.len)?;
            }
            return Ok(staged);
        };
        // The bytes that find the line starts at the workers' bounds, as `assign_pieces`
        // reads them, then the pieces of this process's workers.
        let mut cut = Vec::with_capacity(objects.len());
        for (i, (p, f)) in files.iter_mut().enumerate() {
            let c = cut_of(p, cfg)?;
            if c == Cut::RowGroups {
                // Where the row groups start is in the footer.
                staged.fetched += r.fetch_footer(&objects[i], f, p)?;
            }
            cut.push(c);
        }
        let n = workers.max(1) as u128;
        let total: u64 = objects.iter().map(|o| o.len).sum();
        let mut at = 0u64;
        for (i, o) in objects.iter().enumerate() {
            if cut[i] == Cut::Lines {
                for w in 1..n {
                    let x = (u128::from(total) * w / n) as u64;
                    if x > at && x < at + o.len {
                        let (p, f) = &mut files[i];
                        staged.fetched += r.fetch_line_end(o, f, p, x - at)?;
                    }
                }
            }
            at += o.len;
        }
        let args: Vec<(&Path, u64, Cut)> = (files.iter().zip(&objects).zip(&cut))
            .map(|(((p, _), o), &c)| (p.as_path(), o.len, c))
            .collect();
        let pieces = assign_pieces(&args, workers)?;
        drop(args);
        for w in mine {
            for piece in pieces.get(w).into_iter().flatten() {
                let (p, f) = &mut files[piece.file];
                staged.fetched += r.fetch(&objects[piece.file], f, p, piece.start..piece.end)?;
            }
        }
        Ok(staged)
    }
}
