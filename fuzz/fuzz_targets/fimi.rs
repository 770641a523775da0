//! FIMI transaction files, with and without the strictly-ascending check; what is read is
//! written back and must read back unchanged.
#![no_main]

use std::io::Cursor;

use fimdup::fimi::{write_rows, FimiOptions, FimiReader, Transactions};
use libfuzzer_sys::fuzz_target;

fn read(bytes: &[u8], strictly_ascending: bool) -> fimdup::Result<Transactions> {
    let mut r = FimiReader::from_reader(
        Box::new(Cursor::new(bytes.to_vec())),
        "in.dat",
        FimiOptions { strictly_ascending },
    );
    let mut t = Transactions::new();
    let mut row = Vec::new();
    while r.read_row(&mut row)? {
        t.push(&row);
    }
    Ok(t)
}

fuzz_target!(|data: &[u8]| {
    let strict = read(data, true);
    let Ok(loose) = read(data, false) else {
        assert!(
            strict.is_err(),
            "accepted as strictly ascending, rejected without the check"
        );
        return;
    };
    if let Ok(s) = &strict {
        assert_eq!(s, &loose);
    }
    let _ = loose.item_bound();
    let mut out = Vec::new();
    write_rows(&mut out, loose.iter()).expect("write to memory");
    assert_eq!(read(&out, false).expect("read back"), loose);
});
