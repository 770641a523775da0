//! Writes the seed corpus of the index target: every file of both base indexes, each
//! behind the selector byte that puts it back in its place.
//! Run: `cargo run --release --example index_seeds -- seeds/index` (in `fuzz/`).

use fimdup_fuzz::{base_index, index_selector};

fn main() {
    let out = std::path::PathBuf::from(std::env::args().nth(1).expect("usage: index_seeds DIR"));
    std::fs::create_dir_all(&out).expect("seed dir");
    for which in 0..2 {
        let base = base_index(which);
        let mut files = vec![("CURRENT", base.current.clone())];
        files.extend(
            base.files
                .iter()
                .map(|f| (f.name.as_str(), f.bytes.clone())),
        );
        for (name, bytes) in files {
            let sel = index_selector(which, name).expect("every file has a selector");
            let mut seed = vec![sel];
            seed.extend_from_slice(&bytes);
            let file = name.replace('/', "-");
            std::fs::write(out.join(format!("base{which}-{file}")), seed).expect("write seed");
        }
    }
}
