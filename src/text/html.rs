//! A small, forgiving HTML-to-text state machine (no DOM).
//!
//! What it does, in one pass over the input:
//! - tags are removed; *block* tags (`p`, `div`, `br`, `li`, `td`, headings, ...) become one
//!   space so that words on either side do not run together, inline tags (`b`, `a`, `span`,
//!   ...) become nothing;
//! - comments (`<!-- ... -->`), doctype / processing instructions / CDATA (`<!...>`, `<?...>`)
//!   are dropped, and so are the bodies of `<script>` and `<style>`;
//! - `<img alt="...">` keeps its alt text (surrounded by spaces), as Haveliwala et al. 2000 do;
//! - character references are decoded: named ones from the HTML 4 set (all of Latin-1, the
//!   typographic punctuation, `&apos;`), decimal `&#NNN;` and hex `&#xHHH;` (the `;` is
//!   optional for numeric ones, required for named ones); invalid code points become U+FFFD,
//!   `&#128;`..`&#159;` are read as Windows-1252 as browsers do; unknown names stay as
//!   written;
//! - a `<` that does not start a tag (`a < b`) is kept as text.
//!
//! Invariant: it never panics, whatever the input (unterminated tags, comments, scripts or
//! attribute quotes simply run to the end of the input and are dropped), and it runs in time
//! linear in the input. All delimiters are ASCII, so every slice taken is on a UTF-8 boundary.

/// Strips HTML from `src`, returning the text.
pub fn strip_html(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    strip_html_into(src, &mut out);
    out
}

/// Strips HTML from `src`, appending the text to `out` (which is not cleared).
pub fn strip_html_into(src: &str, out: &mut String) {
    let b = src.as_bytes();
    let n = b.len();
    let mut i = 0;
    while i < n {
        // Copy the run of plain text up to the next '<' or '&'.
        let next = memchr::memchr2(b'<', b'&', &b[i..]).map_or(n, |k| i + k);
        out.push_str(&src[i..next]);
        i = next;
        if i >= n {
            break;
        }
        if b[i] == b'&' {
            i = decode_entity(src, i, out);
            continue;
        }
        // b[i] == b'<'
        let rest = &b[i + 1..];
        if rest.starts_with(b"!--") {
            i = match memchr::memmem::find(&b[i + 4..], b"-->") {
                Some(k) => i + 4 + k + 3,
                None => n,
            };
        } else if rest.first().is_some_and(|&c| c == b'!' || c == b'?') {
            i = memchr::memchr(b'>', &b[i + 1..]).map_or(n, |k| i + 1 + k + 1);
        } else if rest.first().is_some_and(|c| c.is_ascii_alphabetic())
            || (rest.first() == Some(&b'/') && rest.get(1).is_some_and(|c| c.is_ascii_alphabetic()))
        {
            i = tag(src, i, out);
        } else {
            out.push('<');
            i += 1;
        }
    }
}

/// Tags whose content is not text.
const RAW_TEXT: &[&[u8]] = &[b"script", b"style"];

/// Tags that break the flow of text (rendered as one space).
const BLOCK: &[&[u8]] = &[
    b"address",
    b"article",
    b"aside",
    b"blockquote",
    b"body",
    b"br",
    b"caption",
    b"center",
    b"dd",
    b"details",
    b"dialog",
    b"div",
    b"dl",
    b"dt",
    b"fieldset",
    b"figcaption",
    b"figure",
    b"footer",
    b"form",
    b"frame",
    b"h1",
    b"h2",
    b"h3",
    b"h4",
    b"h5",
    b"h6",
    b"head",
    b"header",
    b"hr",
    b"html",
    b"iframe",
    b"input",
    b"legend",
    b"li",
    b"main",
    b"menu",
    b"meta",
    b"nav",
    b"noscript",
    b"ol",
    b"option",
    b"p",
    b"pre",
    b"section",
    b"select",
    b"summary",
    b"table",
    b"tbody",
    b"td",
    b"textarea",
    b"tfoot",
    b"th",
    b"thead",
    b"title",
    b"tr",
    b"ul",
];

fn is_name_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-' || c == b'_' || c == b':'
}

/// Handles a tag starting at `start` (`b[start] == '<'`); returns the index after it.
fn tag(src: &str, start: usize, out: &mut String) -> usize {
    let b = src.as_bytes();
    let n = b.len();
    let mut i = start + 1;
    let closing = b[i] == b'/';
    if closing {
        i += 1;
    }
    let name_start = i;
    while i < n && is_name_byte(b[i]) {
        i += 1;
    }
    let name = &b[name_start..i];
    let mut alt: Option<(usize, usize)> = None;
    let is_img = !closing && name.eq_ignore_ascii_case(b"img");
    // Attributes.
    let end = loop {
        while i < n && (b[i].is_ascii_whitespace() || b[i] == b'/') {
            i += 1;
        }
        if i >= n {
            return n; // unterminated tag: dropped
        }
        if b[i] == b'>' {
            break i + 1;
        }
        let an_start = i;
        while i < n && !b[i].is_ascii_whitespace() && !matches!(b[i], b'=' | b'>' | b'/') {
            i += 1;
        }
        let attr_name = &b[an_start..i];
        let mut j = i;
        while j < n && b[j].is_ascii_whitespace() {
            j += 1;
        }
        if j < n && b[j] == b'=' {
            j += 1;
            while j < n && b[j].is_ascii_whitespace() {
                j += 1;
            }
            if j >= n {
                return n;
            }
            let (vs, ve, next) = if b[j] == b'"' || b[j] == b'\'' {
                let q = b[j];
                match memchr::memchr(q, &b[j + 1..]) {
                    Some(k) => (j + 1, j + 1 + k, j + 1 + k + 1),
                    None => return n, // unterminated quote: dropped
                }
            } else {
                let mut k = j;
                while k < n && !b[k].is_ascii_whitespace() && b[k] != b'>' {
                    k += 1;
                }
                (j, k, k)
            };
            if is_img && attr_name.eq_ignore_ascii_case(b"alt") {
                alt = Some((vs, ve));
            }
            i = next;
        } else if i == an_start {
            // Cannot happen (the byte is not whitespace, '/', '>'), but never loop forever.
            i += 1;
        }
    };
    let lname = name.to_ascii_lowercase();
    if let Some((vs, ve)) = alt {
        out.push(' ');
        // Alt text may itself hold character references.
        let v = &src[vs..ve];
        let vb = v.as_bytes();
        let mut k = 0;
        while k < vb.len() {
            let next = memchr::memchr(b'&', &vb[k..]).map_or(vb.len(), |x| k + x);
            out.push_str(&v[k..next]);
            k = next;
            if k < vb.len() {
                k = decode_entity(v, k, out);
            }
        }
        out.push(' ');
    } else if BLOCK.contains(&lname.as_slice()) {
        out.push(' ');
    }
    if !closing && RAW_TEXT.contains(&lname.as_slice()) {
        return skip_raw_text(b, end, &lname);
    }
    end
}

/// Skips the body of a raw-text element up to and including `</name ...>`.
fn skip_raw_text(b: &[u8], from: usize, name: &[u8]) -> usize {
    let n = b.len();
    let mut i = from;
    while let Some(k) = memchr::memchr(b'<', &b[i..]) {
        let p = i + k;
        let after = p + 2 + name.len();
        if b.get(p + 1) == Some(&b'/')
            && after <= n
            && b[p + 2..after].eq_ignore_ascii_case(name)
            && b.get(after).is_none_or(|&c| !is_name_byte(c))
        {
            return memchr::memchr(b'>', &b[after..]).map_or(n, |x| after + x + 1);
        }
        i = p + 1;
    }
    n
}

/// Decodes the character reference at `src[at] == '&'`, pushing the result (or the `&`
/// itself when it is not a reference) onto `out`; returns the index after what was consumed.
fn decode_entity(src: &str, at: usize, out: &mut String) -> usize {
    let b = src.as_bytes();
    let n = b.len();
    let mut i = at + 1;
    if i < n && b[i] == b'#' {
        i += 1;
        let hex = i < n && (b[i] == b'x' || b[i] == b'X');
        if hex {
            i += 1;
        }
        let ds = i;
        let mut v: u32 = 0;
        while i < n {
            let d = if hex {
                (b[i] as char).to_digit(16)
            } else {
                (b[i] as char).to_digit(10)
            };
            match d {
                Some(d) => {
                    v = v
                        .saturating_mul(if hex { 16 } else { 10 })
                        .saturating_add(d);
                    i += 1;
                }
                None => break,
            }
        }
        if i == ds {
            out.push('&');
            return at + 1;
        }
        if i < n && b[i] == b';' {
            i += 1;
        }
        let c = match v {
            0 => '\u{FFFD}',
            // Windows-1252 C1 range as browsers do for the common ones.
            0x80..=0x9F => win1252(v),
            _ => char::from_u32(v).unwrap_or('\u{FFFD}'),
        };
        out.push(c);
        return i;
    }
    let ns = i;
    while i < n && i - ns < 32 && b[i].is_ascii_alphanumeric() {
        i += 1;
    }
    if i > ns && i < n && b[i] == b';' {
        if let Some(s) = named_entity(&src[ns..i]) {
            out.push_str(s);
            return i + 1;
        }
    }
    out.push('&');
    at + 1
}

fn win1252(v: u32) -> char {
    const T: [u32; 32] = [
        0x20AC, 0xFFFD, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
        0x2039, 0x0152, 0xFFFD, 0x017D, 0xFFFD, 0xFFFD, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
        0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0xFFFD, 0x017E, 0x0178,
    ];
    char::from_u32(T[(v - 0x80) as usize]).unwrap_or('\u{FFFD}')
}

/// HTML 4 Latin-1 entity names, for U+00A0 ..= U+00FF in order.
pub(crate) const LATIN1: [&str; 96] = [
    "nbsp", "iexcl", "cent", "pound", "curren", "yen", "brvbar", "sect", "uml", "copy", "ordf",
    "laquo", "not", "shy", "reg", "macr", "deg", "plusmn", "sup2", "sup3", "acute", "micro",
    "para", "middot", "cedil", "sup1", "ordm", "raquo", "frac14", "frac12", "frac34", "iquest",
    "Agrave", "Aacute", "Acirc", "Atilde", "Auml", "Aring", "AElig", "Ccedil", "Egrave", "Eacute",
    "Ecirc", "Euml", "Igrave", "Iacute", "Icirc", "Iuml", "ETH", "Ntilde", "Ograve", "Oacute",
    "Ocirc", "Otilde", "Ouml", "times", "Oslash", "Ugrave", "Uacute", "Ucirc", "Uuml", "Yacute",
    "THORN", "szlig", "agrave", "aacute", "acirc", "atilde", "auml", "aring", "aelig", "ccedil",
    "egrave", "eacute", "ecirc", "euml", "igrave", "iacute", "icirc", "iuml", "eth", "ntilde",
    "ograve", "oacute", "ocirc", "otilde", "ouml", "divide", "oslash", "ugrave", "uacute", "ucirc",
    "uuml", "yacute", "thorn", "yuml",
];

/// Other named references (HTML 4 special and symbol subsets that occur in web text).
const OTHER: &[(&str, &str)] = &[
    ("amp", "&"),
    ("lt", "<"),
    ("gt", ">"),
    ("quot", "\""),
    ("apos", "'"),
    ("OElig", "\u{152}"),
    ("oelig", "\u{153}"),
    ("Scaron", "\u{160}"),
    ("scaron", "\u{161}"),
    ("Yuml", "\u{178}"),
    ("fnof", "\u{192}"),
    ("circ", "\u{2C6}"),
    ("tilde", "\u{2DC}"),
    ("ensp", "\u{2002}"),
    ("emsp", "\u{2003}"),
    ("thinsp", "\u{2009}"),
    ("zwnj", "\u{200C}"),
    ("zwj", "\u{200D}"),
    ("lrm", "\u{200E}"),
    ("rlm", "\u{200F}"),
    ("ndash", "\u{2013}"),
    ("mdash", "\u{2014}"),
    ("lsquo", "\u{2018}"),
    ("rsquo", "\u{2019}"),
    ("sbquo", "\u{201A}"),
    ("ldquo", "\u{201C}"),
    ("rdquo", "\u{201D}"),
    ("bdquo", "\u{201E}"),
    ("dagger", "\u{2020}"),
    ("Dagger", "\u{2021}"),
    ("bull", "\u{2022}"),
    ("hellip", "\u{2026}"),
    ("permil", "\u{2030}"),
    ("prime", "\u{2032}"),
    ("Prime", "\u{2033}"),
    ("lsaquo", "\u{2039}"),
    ("rsaquo", "\u{203A}"),
    ("oline", "\u{203E}"),
    ("frasl", "\u{2044}"),
    ("euro", "\u{20AC}"),
    ("trade", "\u{2122}"),
    ("larr", "\u{2190}"),
    ("uarr", "\u{2191}"),
    ("rarr", "\u{2192}"),
    ("darr", "\u{2193}"),
    ("harr", "\u{2194}"),
    ("minus", "\u{2212}"),
    ("le", "\u{2264}"),
    ("ge", "\u{2265}"),
    ("ne", "\u{2260}"),
    ("infin", "\u{221E}"),
    ("alpha", "\u{3B1}"),
    ("beta", "\u{3B2}"),
    ("gamma", "\u{3B3}"),
    ("delta", "\u{3B4}"),
    ("pi", "\u{3C0}"),
    ("sigma", "\u{3C3}"),
    ("mu", "\u{3BC}"),
];

/// The replacement text of a named character reference (name without `&` and `;`).
pub fn named_entity(name: &str) -> Option<&'static str> {
    if let Some(p) = LATIN1.iter().position(|&e| e == name) {
        return Some(LATIN1_STR[p]);
    }
    OTHER.iter().find(|(k, _)| *k == name).map(|(_, v)| *v)
}

/// U+00A0 ..= U+00FF as static strings (index-aligned with [`LATIN1`]).
const LATIN1_STR: [&str; 96] = [
    "\u{A0}", "\u{A1}", "\u{A2}", "\u{A3}", "\u{A4}", "\u{A5}", "\u{A6}", "\u{A7}", "\u{A8}",
    "\u{A9}", "\u{AA}", "\u{AB}", "\u{AC}", "\u{AD}", "\u{AE}", "\u{AF}", "\u{B0}", "\u{B1}",
    "\u{B2}", "\u{B3}", "\u{B4}", "\u{B5}", "\u{B6}", "\u{B7}", "\u{B8}", "\u{B9}", "\u{BA}",
    "\u{BB}", "\u{BC}", "\u{BD}", "\u{BE}", "\u{BF}", "\u{C0}", "\u{C1}", "\u{C2}", "\u{C3}",
    "\u{C4}", "\u{C5}", "\u{C6}", "\u{C7}", "\u{C8}", "\u{C9}", "\u{CA}", "\u{CB}", "\u{CC}",
    "\u{CD}", "\u{CE}", "\u{CF}", "\u{D0}", "\u{D1}", "\u{D2}", "\u{D3}", "\u{D4}", "\u{D5}",
    "\u{D6}", "\u{D7}", "\u{D8}", "\u{D9}", "\u{DA}", "\u{DB}", "\u{DC}", "\u{DD}", "\u{DE}",
    "\u{DF}", "\u{E0}", "\u{E1}", "\u{E2}", "\u{E3}", "\u{E4}", "\u{E5}", "\u{E6}", "\u{E7}",
    "\u{E8}", "\u{E9}", "\u{EA}", "\u{EB}", "\u{EC}", "\u{ED}", "\u{EE}", "\u{EF}", "\u{F0}",
    "\u{F1}", "\u{F2}", "\u{F3}", "\u{F4}", "\u{F5}", "\u{F6}", "\u{F7}", "\u{F8}", "\u{F9}",
    "\u{FA}", "\u{FB}", "\u{FC}", "\u{FD}", "\u{FE}", "\u{FF}",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin1_table_is_aligned() {
        for (i, s) in LATIN1_STR.iter().enumerate() {
            assert_eq!(s.chars().next().unwrap() as u32, 0xA0 + i as u32);
        }
        assert_eq!(named_entity("eacute"), Some("é"));
        assert_eq!(named_entity("Eacute"), Some("É"));
        assert_eq!(named_entity("yuml"), Some("ÿ"));
        assert_eq!(named_entity("copy"), Some("©"));
        assert_eq!(named_entity("szlig"), Some("ß"));
        assert_eq!(named_entity("nosuch"), None);
    }

    #[test]
    fn basic() {
        assert_eq!(strip_html("<p>Hello <b>wor</b>ld</p>"), " Hello world ");
        assert_eq!(strip_html("a < b &amp; c > d"), "a < b & c > d");
    }
}
