//! The CSV/TSV dialect: the one configuration of the `csv` crate's reader and writer for
//! every comma- or tab-separated file fimdup reads or writes (corpora and their kept rows,
//! truths, pair and external files, keep keys, its own `pairs.csv`, `removed.csv`,
//! `results.csv` and `errors.csv`), and [`QuoteScanner`], which follows the same grammar
//! over raw bytes.
//!
//! The rule is RFC 4180 quoting for both separators, as pandas' `to_csv` (also with
//! `sep='\t'`) and Python's `csv` module write it: a field that starts with `"` is quoted;
//! it runs to the next `"` that is not doubled, may hold separators and line breaks, and
//! `""` inside it is one `"` (bytes after its closing quote, up to the next separator or
//! line end, are appended unquoted). A field that does not start with `"` is unquoted and
//! keeps every `"` in it literally (`5" screen`). Rows end at `\n`, `\r\n` or `\r` outside
//! quoted fields; blank lines hold no row.
//!
//! Invariants: [`reader`] and [`writer`] agree, so a record written by [`writer`] reads
//! back equal through [`reader`] (the writer quotes a field only when needed: when it holds
//! the separator, a `"`, `\r` or `\n`, and a record of one empty field as `""`);
//! [`QuoteScanner`] is in a quoted field after some bytes exactly when the reader would be.

use memchr::{memchr, memchr3};

/// The quote character.
pub(crate) const QUOTE: u8 = b'"';

/// The field separator: a tab for TSV, a comma for CSV.
pub(crate) fn separator(tab: bool) -> u8 {
    if tab {
        b'\t'
    } else {
        b','
    }
}

/// The fields of one CSV/TSV row as a corpus reader writes it back
/// ([`crate::corpus::CorpusReader::record`], `preamble`).
pub(crate) fn parse_row(bytes: &[u8], tab: bool) -> crate::Result<Vec<String>> {
    let mut r = reader(tab).has_headers(false).from_reader(bytes);
    let mut rec = csv::StringRecord::new();
    r.read_record(&mut rec)
        .map_err(|e| crate::Error::config(format!("re-reading a row: {e}")))?;
    Ok(rec.iter().map(str::to_string).collect())
}

/// A reader builder with the dialect's separator and quoting; callers set what differs by
/// file kind (headers, ragged rows, trimming).
pub(crate) fn reader(tab: bool) -> csv::ReaderBuilder {
    let mut b = csv::ReaderBuilder::new();
    b.delimiter(separator(tab))
        .quote(QUOTE)
        .quoting(true)
        .double_quote(true)
        .escape(None)
        .comment(None)
        .terminator(csv::Terminator::CRLF);
    b
}

/// A writer builder with the dialect's separator and quoting, rows ended by `\n`.
pub(crate) fn writer(tab: bool) -> csv::WriterBuilder {
    let mut b = csv::WriterBuilder::new();
    b.delimiter(separator(tab))
        .quote(QUOTE)
        .quote_style(csv::QuoteStyle::Necessary)
        .double_quote(true)
        .terminator(csv::Terminator::Any(b'\n'));
    b
}

/// Where a byte stream stands in the dialect's grammar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// At the start of a line outside a quoted field (a row, or a blank line).
    RowStart,
    /// After a separator.
    FieldStart,
    /// Inside an unquoted field.
    Unquoted,
    /// Inside a quoted field.
    Quoted,
    /// After a `"` inside a quoted field: closing it, or the first of a `""`.
    QuoteInQuoted,
}

/// Follows the quoting of a stream of bytes fed to it in order, as the reader parses it:
/// whether the bytes so far end inside a quoted field, at the start of a line, or
/// elsewhere. Readers use it to tell line ends inside fields from those between rows, and
/// an input that ends inside a quoted field (which the `csv` crate accepts silently).
#[derive(Clone, Debug)]
pub(crate) struct QuoteScanner {
    sep: u8,
    state: State,
}

impl QuoteScanner {
    /// A scanner at the start of an input with the separator of TSV (`tab`) or CSV.
    pub(crate) fn new(tab: bool) -> Self {
        QuoteScanner {
            sep: separator(tab),
            state: State::RowStart,
        }
    }

    /// The state after `b` in state `s`.
    fn next(&self, s: State, b: u8) -> State {
        match s {
            State::Quoted if b == QUOTE => State::QuoteInQuoted,
            State::Quoted => State::Quoted,
            State::QuoteInQuoted if b == QUOTE => State::Quoted,
            State::RowStart | State::FieldStart if b == QUOTE => State::Quoted,
            _ if b == self.sep => State::FieldStart,
            _ if b == b'\n' || b == b'\r' => State::RowStart,
            _ => State::Unquoted,
        }
    }

    /// Feeds one byte.
    pub(crate) fn step(&mut self, b: u8) {
        self.state = self.next(self.state, b);
    }

    /// Feeds `bytes` (skipping through the inside of fields with `memchr`).
    pub(crate) fn feed(&mut self, mut bytes: &[u8]) {
        while let Some(&b) = bytes.first() {
            let at = match self.state {
                State::Quoted => memchr(QUOTE, bytes),
                State::Unquoted => memchr3(self.sep, b'\n', b'\r', bytes),
                _ => {
                    self.step(b);
                    bytes = &bytes[1..];
                    continue;
                }
            };
            let Some(i) = at else { return };
            self.step(bytes[i]);
            bytes = &bytes[i + 1..];
        }
    }

    /// True when the bytes fed so far end inside a quoted field (before its closing quote):
    /// a line end fed next belongs to the field.
    pub(crate) fn in_quoted_field(&self) -> bool {
        self.state == State::Quoted
    }

    /// True when the bytes fed so far end a line outside any quoted field (or nothing was
    /// fed): the next byte starts a row or a blank line.
    pub(crate) fn at_row_start(&self) -> bool {
        self.state == State::RowStart
    }
}

/// The error message of an input that ends inside a quoted field of the row starting at
/// the line it is given with.
pub(crate) const UNCLOSED_QUOTE: &str = "the file ends inside a quoted field of the row starting here; expected a closing \" (a field that starts with \" is quoted, and \"\" inside it is one \")";

#[cfg(test)]
mod tests {
    use super::*;

    /// The fields of every row of `text` as the dialect's reader reads them.
    fn rows(text: &str, tab: bool) -> Vec<Vec<String>> {
        let mut r = reader(tab)
            .has_headers(false)
            .flexible(true)
            .from_reader(text.as_bytes());
        r.records()
            .map(|r| r.unwrap().iter().map(str::to_string).collect())
            .collect()
    }

    #[test]
    fn quoted_and_unquoted_fields() {
        let tsv = "a\tb\n\"x\ty\"\t\"1\n2 \"\"q\"\"\"\n5\" screen\ts\"\"t\n\"\"\t\"a\"b\n";
        assert_eq!(
            rows(tsv, true),
            [
                vec!["a", "b"],
                vec!["x\ty", "1\n2 \"q\""],
                vec!["5\" screen", "s\"\"t"],
                vec!["", "ab"],
            ]
        );
        // The same rows with commas.
        let csv = "a,b\n\"x,y\",\"1\n2 \"\"q\"\"\"\n5\" screen,s\"\"t\n\"\",\"a\"b\n";
        assert_eq!(
            rows(csv, false),
            [
                vec!["a", "b"],
                vec!["x,y", "1\n2 \"q\""],
                vec!["5\" screen", "s\"\"t"],
                vec!["", "ab"],
            ]
        );
    }

    #[test]
    fn written_records_read_back_equal() {
        let fields: &[&[&str]] = &[
            &["plain", "5\" screen", "\"starts quoted\"", "tab\there"],
            &["line\nbreak", "cr\r\nlf", "", "a,b"],
            &[""],
            &["\"\""],
        ];
        for tab in [true, false] {
            let mut w = writer(tab).flexible(true).from_writer(Vec::new());
            for f in fields {
                w.write_record(*f).unwrap();
            }
            let text = String::from_utf8(w.into_inner().unwrap()).unwrap();
            let got = rows(&text, tab);
            let want: Vec<Vec<String>> = fields
                .iter()
                .map(|f| f.iter().map(|s| s.to_string()).collect())
                .collect();
            assert_eq!(got, want, "{text:?}");
        }
        // Only fields that need it are quoted.
        let mut w = writer(true).from_writer(Vec::new());
        w.write_record(["a b", "a,b", "5\"", "x\ty"]).unwrap();
        assert_eq!(
            String::from_utf8(w.into_inner().unwrap()).unwrap(),
            "a b\ta,b\t\"5\"\"\"\t\"x\ty\"\n"
        );
    }

    /// The scanner after each prefix of a text, checked against the reader: it is in a
    /// quoted field exactly when a line end fed next belongs to a field, that is, when the
    /// reader reads the prefix followed by `\nz` into a last field ending in `\nz`.
    #[test]
    fn scanner_follows_the_reader() {
        let text = "a\t\"b\tc\"\"\n\"x\n5\"\t\"\"\r\n\n\"q\"r\t\"\"\"\"\t\"open\nrest";
        for tab in [true, false] {
            let text = if tab {
                text.to_string()
            } else {
                text.replace('\t', ",")
            };
            let mut stepped = QuoteScanner::new(tab);
            for (i, &b) in text.as_bytes().iter().enumerate() {
                stepped.step(b);
                // Fed at once, skipping through fields: the same state.
                let mut whole = QuoteScanner::new(tab);
                whole.feed(&text.as_bytes()[..=i]);
                assert_eq!(whole.state, stepped.state);
                let prefix = &text[..=i];
                let open = rows(&format!("{prefix}\nz"), tab)
                    .last()
                    .and_then(|r| r.last())
                    .is_some_and(|f| f.ends_with("\nz"));
                assert_eq!(stepped.in_quoted_field(), open, "{prefix:?}");
            }
        }
        let mut s = QuoteScanner::new(true);
        assert!(s.at_row_start());
        s.feed(b"a\t\"b\nc\"\r");
        assert!(s.at_row_start());
        s.feed(b"\"open\n");
        assert!(s.in_quoted_field());
    }
}
