//! The chunked stream against the slice reader.

use super::stream::Stream;
use crate::codec::{put_varint, ByteSource, SliceReader};
use std::path::Path;

/// The chunked stream hands out the same bytes, errors and checksum as a slice, whatever
/// the chunk size, across chunk boundaries.
#[test]
fn stream_equals_cursor_across_chunk_boundaries() {
    let p = Path::new("s.img");
    let mut data = Vec::new();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for i in 0..5000u64 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        put_varint(&mut data, x >> (i % 64));
    }
    let trailer = 0xdead_beef_u64.to_le_bytes();
    for chunk in [1usize, 2, 3, 7, 64, 1000, 1 << 20] {
        let mut bytes = data.clone();
        bytes.extend_from_slice(&trailer);
        let mut s = Stream::with_chunk(Box::new(std::io::Cursor::new(bytes.clone())), chunk, p);
        let mut c = SliceReader::new(&bytes, p);
        let mut n = 0;
        while c.at() < data.len() as u64 {
            assert_eq!(
                s.varint("v").unwrap(),
                c.varint("v").unwrap(),
                "chunk {chunk}"
            );
            n += 1;
        }
        assert_eq!(n, 5000);
        assert_eq!(s.at(), data.len() as u64);
        assert_eq!(
            s.digest(),
            xxhash_rust::xxh64::xxh64(&data, 0),
            "chunk {chunk}"
        );
        assert_eq!(s.raw(8, "trailer").unwrap(), trailer);
        assert_eq!(s.digest(), xxhash_rust::xxh64::xxh64(&data, 0));
        assert!(s.at_eof().unwrap());
        let e = s.take(1, "more").unwrap_err().to_string();
        let want = format!("s.img: at byte {}: truncated reading more", bytes.len());
        assert!(e.starts_with(&want), "{e}");
    }
    // A take longer than the chunk and longer than what is left.
    let mut s = Stream::with_chunk(Box::new(std::io::Cursor::new(data.clone())), 5, p);
    assert_eq!(s.take(100, "block").unwrap(), &data[..100]);
    let e = s.take(data.len(), "rest").unwrap_err().to_string();
    let want = format!(
        "s.img: at byte 100: truncated reading rest ({} bytes expected, {} left)",
        data.len(),
        data.len() - 100
    );
    assert_eq!(e, want);
}
