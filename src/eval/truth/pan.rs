//! The reader of PAN plagiarism-detection truths (PAN-PC-09/10/11 style): a directory of
//! XML files, searched recursively for `*.xml` (names starting with `.` skipped), each
//!
//! ```xml
//! <document reference="suspicious-document00001.txt">
//!   <feature name="plagiarism" source_reference="source-document01234.txt" ... />
//! </document>
//! ```
//!
//! Document ids are the `reference` values as written (a corpus read from a flat directory
//! of those files has them as ids). Suspicious documents: those with a `plagiarism` feature
//! in their XML, or whose reference starts with `suspicious`; source documents: every
//! `source_reference`, and the documents without a plagiarism feature whose reference does
//! not start with `suspicious`. A plagiarism feature links its document with its
//! `source_reference` (one without, an intrinsic case, links nothing); other features
//! (`about`, `language`, ...) and other attributes are ignored. Several XML files of one
//! reference are merged.
//!
//! Invariants: files are read in path order and the sets are sorted, so nothing depends on
//! directory or hash order; malformed XML, a root that is not `<document reference=..>`,
//! and a case linking a document with itself are errors naming the file and line.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use quick_xml::events::{BytesStart, Event};
use quick_xml::XmlVersion;

use crate::{Error, Result};

/// The documents and plagiarism cases of a PAN directory.
#[derive(Clone, Debug, Default)]
pub(crate) struct PanCases {
    /// Suspicious documents.
    pub suspicious: BTreeSet<String>,
    /// Source documents.
    pub sources: BTreeSet<String>,
    /// (suspicious, source) pairs linked by at least one plagiarism case.
    pub cases: BTreeSet<(String, String)>,
}

impl PanCases {
    /// Reads every `*.xml` under `dir`.
    pub fn read(dir: &Path) -> Result<Self> {
        let meta = std::fs::metadata(dir).map_err(|e| Error::io(dir, e))?;
        if !meta.is_dir() {
            return Err(Error::format(
                dir,
                "not a directory; a pan truth is a directory of PAN XML files",
            ));
        }
        let mut files = Vec::new();
        crate::corpus::walk(dir, "", &mut files)?;
        files.retain(|(rel, _)| {
            Path::new(rel)
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("xml"))
        });
        files.sort_by(|a, b| a.0.cmp(&b.0));
        if files.is_empty() {
            return Err(Error::format(dir, "no *.xml file in the directory"));
        }
        // Each reference: whether some XML of it has a plagiarism feature.
        let mut docs: BTreeMap<String, bool> = BTreeMap::new();
        let mut p = PanCases::default();
        for (_, path) in &files {
            let doc = read_xml(path)?;
            *docs.entry(doc.reference.clone()).or_default() |= doc.plagiarism;
            for src in doc.sources {
                p.cases.insert((doc.reference.clone(), src));
            }
        }
        for (r, plagiarism) in docs {
            if plagiarism || r.starts_with("suspicious") {
                p.suspicious.insert(r);
            } else {
                p.sources.insert(r);
            }
        }
        p.sources.extend(p.cases.iter().map(|(_, s)| s.clone()));
        Ok(p)
    }
}

/// What one XML file says.
struct XmlDoc {
    reference: String,
    /// It has at least one plagiarism feature.
    plagiarism: bool,
    /// The `source_reference` of each plagiarism feature.
    sources: Vec<String>,
}

/// The 1-based line of byte `pos` of `text`.
fn line_at(text: &str, pos: u64) -> u64 {
    let end = (pos as usize).min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count() as u64
        + 1
}

fn read_xml(path: &Path) -> Result<XmlDoc> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() as u64 + 1;
            return Err(Error::parse(path, line, "not UTF-8 text"));
        }
    };
    let mut r = quick_xml::Reader::from_str(&text);
    let mut doc: Option<XmlDoc> = None;
    let mut depth = 0usize;
    loop {
        let ev = r.read_event().map_err(|e| {
            Error::parse(
                path,
                line_at(&text, r.error_position()),
                format!("invalid XML: {e}"),
            )
        })?;
        let at = || line_at(&text, r.buffer_position());
        match ev {
            Event::Start(e) => {
                element(path, at(), &e, depth, &mut doc)?;
                depth += 1;
            }
            Event::Empty(e) => element(path, at(), &e, depth, &mut doc)?,
            Event::End(_) => depth = depth.saturating_sub(1),
            Event::Eof => break,
            _ => {}
        }
    }
    if depth > 0 {
        return Err(Error::parse(
            path,
            line_at(&text, text.len() as u64),
            "invalid XML: unexpected end of file inside an element",
        ));
    }
    doc.ok_or_else(|| {
        Error::parse(
            path,
            1,
            "expected a <document reference=\"...\"> element (PAN plagiarism XML)",
        )
    })
}

/// Takes in one start (or empty) element at `depth` (0 = root).
fn element(
    path: &Path,
    line: u64,
    e: &BytesStart<'_>,
    depth: usize,
    doc: &mut Option<XmlDoc>,
) -> Result<()> {
    let attr = |name: &str| -> Result<Option<String>> {
        let a = e
            .try_get_attribute(name)
            .map_err(|err| Error::parse(path, line, format!("invalid XML attribute: {err}")))?;
        a.map(|a| {
            a.normalized_value(XmlVersion::Implicit1_0)
                .map(|v| v.trim().to_string())
                .map_err(|err| Error::parse(path, line, format!("invalid XML attribute: {err}")))
        })
        .transpose()
    };
    let name = e.local_name();
    if depth == 0 {
        if doc.is_some() {
            return Err(Error::parse(path, line, "a second root element"));
        }
        if name.as_ref() != "document" {
            return Err(Error::parse(
                path,
                line,
                "expected the root element <document reference=\"...\"> (PAN plagiarism XML)",
            ));
        }
        let reference = attr("reference")?
            .filter(|r| !r.is_empty())
            .ok_or_else(|| Error::parse(path, line, "<document> has no reference attribute"))?;
        *doc = Some(XmlDoc {
            reference,
            plagiarism: false,
            sources: Vec::new(),
        });
        return Ok(());
    }
    let Some(d) = doc.as_mut() else {
        return Ok(());
    };
    if name.as_ref() == "feature" && attr("name")?.as_deref() == Some("plagiarism") {
        d.plagiarism = true;
        if let Some(src) = attr("source_reference")?.filter(|s| !s.is_empty()) {
            if src == d.reference {
                return Err(Error::parse(
                    path,
                    line,
                    format!("a plagiarism case links {src} with itself"),
                ));
            }
            d.sources.push(src);
        }
    }
    Ok(())
}
