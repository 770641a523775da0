//! The parameters every image of a file was made with ([`SketchParams`]), their check
//! ([`SketchParams::ensure_compatible`]), and their encoding in the header (see the layout
//! in [the module docs](super)).
//!
//! Invariant: [`parse_params`] reads exactly what [`write_params`] wrote and checks every
//! field (codes, bounds, UTF-8, the configurations' own validation).

use crate::codec::{put_varint, ByteSource};
use crate::shingle::ShingleConfig;
use crate::sketch::{Scheme, SketchConfig, Weighting};
use crate::text::{Lang, Normalization, Tokenizer, Unit};
use crate::{Error, Result};
use std::path::Path;

/// Text options that produced the canonical tokens (the text module's configuration, as
/// stored in an images file).
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct TextParams {
    /// Word or character tokens.
    pub unit: Unit,
    /// HTML stripped.
    pub html: bool,
    /// Lowercased.
    pub lowercase: bool,
    /// Which runs of text are words.
    #[serde(default)]
    pub tokenizer: Tokenizer,
    /// Unicode normalization form.
    #[serde(default)]
    pub normalization: Normalization,
    /// Stop-word list: `"english"`, the name of another built-in list (`"german"`), or an
    /// identifier (a hash) of the list.
    pub stopwords: Option<String>,
    /// Snowball stemming.
    pub stem: bool,
    /// The language of stemming.
    #[serde(default)]
    pub lang: Lang,
}

impl Default for TextParams {
    fn default() -> Self {
        TextParams {
            unit: Unit::Word,
            html: false,
            lowercase: true,
            tokenizer: Tokenizer::Unicode,
            normalization: Normalization::None,
            stopwords: None,
            stem: false,
            lang: Lang::ENGLISH,
        }
    }
}

/// Every parameter that determines an image.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct SketchParams {
    /// Text options.
    pub text: TextParams,
    /// Shingle options.
    pub shingle: ShingleConfig,
    /// Scheme options.
    pub sketch: SketchConfig,
    /// Fingerprint of the tf-idf document-frequency table ([`crate::sketch::DocFreq::fingerprint`]).
    pub weight_table: Option<u64>,
}

impl SketchParams {
    /// Names of the parameters and their printed values, in header order.
    fn fields(&self) -> Vec<(&'static str, String)> {
        let t = &self.text;
        vec![
            ("unit", format!("{:?}", t.unit).to_lowercase()),
            ("html", t.html.to_string()),
            ("lowercase", t.lowercase.to_string()),
            ("stopwords", format!("{:?}", t.stopwords)),
            ("stem", t.stem.to_string()),
            ("tokenizer", t.tokenizer.to_string()),
            ("normalize", t.normalization.to_string()),
            (
                "lang",
                if t.stem {
                    t.lang.to_string()
                } else {
                    "-".into()
                },
            ),
            ("shingle-len", self.shingle.len.to_string()),
            ("offset", self.shingle.offset.to_string()),
            ("shingle seed", self.shingle.seed.to_string()),
            ("scheme", self.sketch.scheme.to_string()),
            (
                "size",
                if self.sketch.scheme == Scheme::ModM {
                    "-".into()
                } else {
                    self.sketch.size.to_string()
                },
            ),
            (
                "modulus",
                if self.sketch.scheme == Scheme::ModM {
                    self.sketch.modulus.to_string()
                } else {
                    "-".into()
                },
            ),
            ("seed", self.sketch.seed.to_string()),
            (
                "b-bit",
                self.sketch.bits.map_or("-".into(), |b| b.to_string()),
            ),
            ("weighting", format!("{:?}", self.sketch.weighting)),
            ("weight table", format!("{:?}", self.weight_table)),
        ]
    }

    /// `Ok` when images made with `other` can be compared with images made with `self`;
    /// otherwise [`Error::Format`] naming `other_path` and the first differing parameter.
    /// (`size` is ignored for mod-m and `modulus` for the other schemes.)
    pub fn ensure_compatible(&self, other: &SketchParams, other_path: &Path) -> Result<()> {
        for ((name, mine), (_, theirs)) in self.fields().into_iter().zip(other.fields()) {
            if mine != theirs {
                return Err(Error::format(
                    other_path,
                    format!(
                        "images were made with {name} = {theirs}, but {mine} is required; \
                         re-run `fimdup sketch` with the same parameters"
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// Appends the parameters part of a header (after magic and version).
pub(super) fn write_params(out: &mut Vec<u8>, p: &SketchParams) {
    out.push(match p.text.unit {
        Unit::Word => 0,
        Unit::Char => 1,
    });
    // Flag 8: the extended text options follow the stop words (written only when one of them
    // differs from its default, so that such headers stay as they were before them).
    let ext = p.text.tokenizer != Tokenizer::Unicode
        || p.text.normalization != Normalization::None
        || (p.text.stem && p.text.lang != Lang::ENGLISH);
    out.push(
        p.text.html as u8
            | (p.text.lowercase as u8) << 1
            | (p.text.stem as u8) << 2
            | (ext as u8) << 3,
    );
    match &p.text.stopwords {
        None => out.push(0),
        Some(s) => {
            out.push(1);
            put_varint(out, s.len() as u64);
            out.extend_from_slice(s.as_bytes());
        }
    }
    if ext {
        out.push(p.text.tokenizer.code());
        out.push(p.text.normalization.code());
        let lang = p.text.lang.code();
        put_varint(out, lang.len() as u64);
        out.extend_from_slice(lang.as_bytes());
    }
    put_varint(out, p.shingle.len as u64);
    put_varint(out, p.shingle.offset as u64);
    out.extend_from_slice(&p.shingle.seed.to_le_bytes());
    // The high nibble of the scheme byte: 0 for full values, 1 + log2(b) for b-bit values.
    let bits = p.sketch.bits.map_or(0, |b| 1 + b.trailing_zeros() as u8);
    out.push(p.sketch.scheme.code() | bits << 4);
    put_varint(out, p.sketch.size as u64);
    put_varint(out, p.sketch.modulus);
    out.extend_from_slice(&p.sketch.seed.to_le_bytes());
    match p.sketch.weighting {
        None => out.push(0),
        Some(Weighting::Bag) => out.push(1),
        Some(Weighting::TfIdf { total }) => {
            out.push(2);
            put_varint(out, total as u64);
        }
    }
    match p.weight_table {
        None => out.push(0),
        Some(f) => {
            out.push(1);
            out.extend_from_slice(&f.to_le_bytes());
        }
    }
}

/// Parses the parameters part of a header (after magic and version).
pub(super) fn parse_params<S: ByteSource>(c: &mut S) -> Result<SketchParams> {
    let unit = match c.u8("unit")? {
        0 => Unit::Word,
        1 => Unit::Char,
        u => return Err(c.err(format!("unknown unit code {u}"))),
    };
    let flags = c.u8("text flags")?;
    if flags & !15 != 0 {
        return Err(c.err(format!("unknown text flags {flags:#x}")));
    }
    let stopwords = match c.u8("stopwords tag")? {
        0 => None,
        1 => Some(c.string("stopwords")?),
        t => return Err(c.err(format!("bad stopwords tag {t}"))),
    };
    let (mut tokenizer, mut normalization, mut lang) =
        (Tokenizer::Unicode, Normalization::None, Lang::ENGLISH);
    if flags & 8 != 0 {
        let t = c.u8("tokenizer")?;
        tokenizer =
            Tokenizer::from_code(t).ok_or_else(|| c.err(format!("unknown tokenizer code {t}")))?;
        let n = c.u8("normalization")?;
        normalization = Normalization::from_code(n)
            .ok_or_else(|| c.err(format!("unknown normalization code {n}")))?;
        let l = c.string("language")?;
        lang = l.parse().map_err(|e| c.err(e))?;
    }
    let text = TextParams {
        unit,
        html: flags & 1 != 0,
        lowercase: flags & 2 != 0,
        stem: flags & 4 != 0,
        stopwords,
        tokenizer,
        normalization,
        lang,
    };
    let shingle = ShingleConfig {
        len: c.usize_max("shingle length", u32::MAX as u64)?,
        offset: c.usize_max("shingle offset", u32::MAX as u64)?,
        seed: c.u64("shingle seed")?,
    };
    shingle.validate().map_err(|e| c.err(e))?;
    let byte = c.u8("scheme")?;
    let code = byte & 15;
    let scheme =
        Scheme::from_code(code).ok_or_else(|| c.err(format!("unknown scheme code {code}")))?;
    let bits = match byte >> 4 {
        0 => None,
        b @ 1..=4 => Some(1u8 << (b - 1)),
        b => return Err(c.err(format!("unknown b-bit code {b}"))),
    };
    let size = c.usize_max("image size", u32::MAX as u64)?;
    let modulus = c.varint("modulus")?;
    let seed = c.u64("seed")?;
    let weighting = match c.u8("weighting")? {
        0 => None,
        1 => Some(Weighting::Bag),
        2 => Some(Weighting::TfIdf {
            total: c.usize_max("tf-idf total", u32::MAX as u64)? as u32,
        }),
        w => return Err(c.err(format!("unknown weighting code {w}"))),
    };
    let weight_table = match c.u8("weight table tag")? {
        0 => None,
        1 => Some(c.u64("weight table")?),
        t => return Err(c.err(format!("bad weight table tag {t}"))),
    };
    let sketch = SketchConfig {
        scheme,
        size,
        modulus,
        seed,
        weighting,
        bits,
    };
    sketch.validate().map_err(|e| c.err(e))?;
    Ok(SketchParams {
        text,
        shingle,
        sketch,
        weight_table,
    })
}
