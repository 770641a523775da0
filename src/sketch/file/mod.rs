//! The images file: every document's external id and image, with all the parameters that
//! made them, so that a later stage refuses images made with other parameters.
//!
//! Layout (version 1; integers little endian, `varint` = unsigned LEB128):
//!
//! ```text
//! magic    8 bytes  b"FIMDUPIM"
//! version  u32      1
//! header   text:    u8 unit (0 word, 1 char), u8 flags (1 html, 2 lowercase, 4 stem),
//!                   u8 has_stopwords, [varint len, UTF-8 bytes]
//!          shingle: varint len, varint offset, u64 seed
//!          sketch:  u8 scheme (low nibble: 0 bottom-k, 1 k-mins, 2 one-permutation,
//!                   3 mod-m, 4 simhash, 5 icws; high nibble: 0 full values, 1 + log2(b)
//!                   for b-bit),
//!                   varint size, varint modulus, u64 seed,
//!                   u8 weighting (0 none, 1 bag, 2 tf-idf) [tf-idf: varint total],
//!                   u8 has_weight_table [u64 DocFreq fingerprint]
//!          varint doc_count
//! docs     doc_count times: varint id_len, id (UTF-8), varint nvalues, values:
//!            sorted schemes: first value, then the gaps to the previous value, as varints
//!            positional schemes: each value as a varint (simhash: each word)
//!            b-bit images: ceil(nvalues b / 8) bytes, value i in bits i b .. (i+1) b
//! trailer  u64      xxh64 (seed 0) of every byte before it
//! ```
//!
//! Version 3 is the streamed form ([`ImageWriter`], [`ImageReader`]): written as the
//! documents come, read one record at a time:
//!
//! ```text
//! magic    8 bytes  b"FIMDUPIM"
//! version  u32      3
//! header   text, shingle, sketch as in version 1 (no doc_count), then
//!          varint shard index i, varint shard count N (see [`Shard`]; 0, 1 = whole corpus)
//! docs     per document: u8 tag 1, then the document as in version 1
//! end      u8 tag 0, varint doc_count
//! trailer  u64      xxh64 (seed 0) of every byte before it
//! ```
//!
//! The `j`-th record of shard `i/N` has DocId `i + N j`. A version-3 reader checks each
//! record as it comes and the count and checksum at the end, so a truncated or corrupted
//! file fails (naming the file) before a stage commits its output.
//!
//! Reading checks, in order: magic, version, checksum (so truncation and bit flips are
//! caught before parsing), then every field (bounds, UTF-8, scheme codes, image layout:
//! positional images have 0 or `size` values (simhash `size / 64`), sorted ones are strictly ascending, bottom-k
//! ones have at most `size`, mod-m values are multiples of `m`). Every failure is an
//! [`Error::Format`](crate::Error::Format) naming the file and the byte offset; nothing
//! panics.

//! The code is split along the format: `params` (the header's parameters), `shard`, `record`
//! (one document), `set` (the whole-file form), `writer` and `reader` (the streamed form,
//! read through the hashing chunked source of `stream`). Integers go through
//! the crate's one byte codec, [`crate::codec`].

mod params;
mod reader;
mod record;
mod set;
mod shard;
mod stream;
mod writer;

#[cfg(test)]
mod tests;

pub use params::{SketchParams, TextParams};
pub use reader::ImageReader;
pub use set::{read_images_streamed, scan_images_streamed, write_images, ImageSet};
pub use shard::Shard;
pub(crate) use stream::Stream;
pub use writer::ImageWriter;

/// Magic bytes at the start of an images file.
pub const MAGIC: &[u8; 8] = b"FIMDUPIM";
/// Version of the whole-file format ([`ImageSet::to_bytes`], [`ImageSet::write`]).
pub const VERSION: u32 = 1;
/// Version of the streamed format ([`ImageWriter`], [`ImageReader`]).
pub const STREAM_VERSION: u32 = 3;

/// Record tags of a version-3 file.
const TAG_DOC: u8 = 1;
const TAG_END: u8 = 0;

/// Whether the file at `path` starts with [`MAGIC`] (an images file of the sketch stage,
/// whatever its name; the raw bytes are checked, so a gzipped images file is not one);
/// `false` when it cannot be read.
pub fn is_images_file(path: &std::path::Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 8];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok()
        && &magic == MAGIC
}
