//! Images files (`fimdup sketch` output; `images.bin` and `containment.bin` of an index),
//! whole-file version 1 and streamed version 3, in memory and from a file. The input is
//! read as it is, then with its trailing checksum forged to match (so the field parsers,
//! not the checksum check, see the bytes); both readers must agree on an unsharded file.
#![no_main]

use std::path::Path;

use fimdup::sketch::{ImageReader, ImageSet};
use fimdup_fuzz::write_input;
use libfuzzer_sys::fuzz_target;

fn check(bytes: &[u8]) {
    let set = ImageSet::from_bytes(bytes, Path::new("in.img"));
    let path = write_input("in.img", bytes);
    let streamed = ImageReader::open(&path).and_then(|mut r| {
        let shard = r.shard();
        let mut docs = Vec::new();
        while let Some((id, ext, img)) = r.next_doc()? {
            docs.push((id, ext, img));
        }
        Ok((shard, r.params().clone(), docs))
    });
    match (&set, &streamed) {
        (Ok(set), Ok((shard, params, docs))) => {
            assert_eq!(shard.count, 1);
            assert_eq!(&set.params, params);
            assert_eq!(set.ext_ids.len(), docs.len());
            for (i, (id, ext, img)) in docs.iter().enumerate() {
                assert_eq!(id.0 as usize, i);
                assert_eq!(&set.ext_ids[i], ext);
                assert_eq!(&set.images[i], img);
            }
            // What is read writes back and reads back unchanged.
            let again = set.to_bytes().expect("encode");
            assert_eq!(
                &ImageSet::from_bytes(&again, Path::new("again.img")).expect("re-read"),
                set
            );
        }
        (Ok(_), Err(e)) => panic!("whole-file reader accepted, streamed reader failed: {e}"),
        (Err(e), Ok((shard, _, _))) if shard.count == 1 => {
            panic!("streamed reader accepted, whole-file reader failed: {e}")
        }
        _ => {}
    }
}

fuzz_target!(|data: &[u8]| {
    check(data);
    if data.len() >= 20 {
        let mut forged = data.to_vec();
        let n = forged.len() - 8;
        let sum = xxhash_rust::xxh64::xxh64(&forged[..n], 0);
        forged[n..].copy_from_slice(&sum.to_le_bytes());
        check(&forged);
    }
});
