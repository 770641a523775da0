//! Views of an [`Explanation`]: a terminal report ([`terminal`], ANSI colour or plain
//! markers) and HTML ([`html_page`], a self-contained page; [`side_by_side_html`], a
//! fragment to embed with [`CSS`]; [`highlight_html`], one highlighted text).
//!
//! Both views show the CANONICAL texts (what shingles are cut from), and say so.
//!
//! Shared passages are marked
//! - in colour: black on yellow (`ESC[30;43m` ... `ESC[0m`);
//! - in plain text: between `[[` and `]]` (a passage cut by a line break is closed at the
//!   end of the line and reopened on the next);
//! - in HTML: `<mark class="fd-shared">`.
//!
//! Invariants: every text that reaches HTML is escaped (`& < > " '`); control characters of
//! a canonical text are shown as `U+FFFD` in the terminal view, so a document cannot send
//! escape sequences to the terminal; passages out of range or off UTF-8 boundaries are
//! clamped, never a panic. Columns are counted in `char`s (wide characters may misalign
//! them).

use std::fmt::Write as _;
use std::ops::Range;

use super::{merge_ranges, Explanation, MethodDetail, SharedShingle, Verdict};

/// Characters per column of the terminal side-by-side view.
pub const COLUMN: usize = 56;

/// Shared shingles listed in the terminal view (the JSON and HTML views list all).
pub const LISTED: usize = 20;

/// The CSS the fragment of [`side_by_side_html`] needs (classes prefixed `fd-`).
pub const CSS: &str =
    ".fd-pair{display:grid;grid-template-columns:1fr 1fr;gap:1em;align-items:start}\n\
.fd-side{min-width:0;border:1px solid #ccc;border-radius:4px;padding:0.5em}\n\
.fd-id{font-weight:bold;margin:0 0 0.4em 0;font-family:sans-serif}\n\
.fd-stats{color:#555;font-size:0.9em;font-family:sans-serif}\n\
.fd-text{white-space:pre-wrap;overflow-wrap:anywhere;font-family:monospace;margin:0}\n\
mark.fd-shared{background:#ffe27a;color:inherit}\n";

/// Page styles of [`html_page`] besides [`CSS`].
const PAGE_CSS: &str = "body{font-family:sans-serif;margin:1.5em;max-width:1400px}\n\
table.fd-values td,table.fd-shingles td,table.fd-shingles th{padding:0.15em 0.8em;text-align:left;vertical-align:top}\n\
table.fd-shingles{border-collapse:collapse}\n\
table.fd-shingles tr:nth-child(even){background:#f4f4f4}\n\
.fd-note{color:#555}\n\
.fd-paired{color:#070;font-weight:bold}\n\
.fd-missed{color:#a00;font-weight:bold}\n\
code{font-family:monospace}\n";

const ANSI_ON: &str = "\x1b[30;43m";
const ANSI_OFF: &str = "\x1b[0m";
const PLAIN_ON: &str = "[[";
const PLAIN_OFF: &str = "]]";

/// HTML-escapes `s` into `out`.
fn escape_into(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// `s` HTML-escaped (`&`, `<`, `>`, `"`, `'`): the one escaper of every HTML page fimdup
/// writes.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    escape_into(&mut out, s);
    out
}

/// `passages` clamped to `text` and to its UTF-8 boundaries (start down, end up), merged.
fn clamp(text: &str, passages: &[Range<usize>]) -> Vec<Range<usize>> {
    let fit_down = |mut i: usize| {
        i = i.min(text.len());
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let fit_up = |mut i: usize| {
        i = i.min(text.len());
        while !text.is_char_boundary(i) {
            i += 1;
        }
        i
    };
    merge_ranges(
        passages
            .iter()
            .map(|r| fit_down(r.start)..fit_up(r.end))
            .collect(),
    )
}

/// `text` HTML-escaped with `<mark class="fd-shared">` around each passage (byte ranges of
/// `text`; clamped and merged first, so any ranges are accepted).
pub fn highlight_html(text: &str, passages: &[Range<usize>]) -> String {
    let mut out = String::with_capacity(text.len() + 32 * passages.len());
    let mut at = 0;
    for r in clamp(text, passages) {
        escape_into(&mut out, &text[at..r.start]);
        out.push_str("<mark class=\"fd-shared\">");
        escape_into(&mut out, &text[r.clone()]);
        out.push_str("</mark>");
        at = r.end;
    }
    escape_into(&mut out, &text[at..]);
    out
}

/// An HTML fragment: `<div class="fd-pair">` with the two canonical texts in two columns,
/// shared passages in `<mark class="fd-shared">`, every text escaped. Needs [`CSS`].
pub fn side_by_side_html(e: &Explanation) -> String {
    let mut out = String::from("<div class=\"fd-pair\">\n");
    for (label, side, tokens) in [("A", &e.a, e.tokens_a), ("B", &e.b, e.tokens_b)] {
        let _ = writeln!(
            out,
            "<div class=\"fd-side\"><div class=\"fd-id\">{label}: {}</div>\
<div class=\"fd-stats\">{tokens} tokens, {} distinct shingles, {} shared passages</div>\
<pre class=\"fd-text\">{}</pre></div>",
            esc(&side.id),
            side.shingles,
            side.passages.len(),
            highlight_html(&side.text, &side.passages)
        );
    }
    out.push_str("</div>\n");
    out
}

/// What the options were, in words: `word 5-shingles (offset 1), bottom-k images of 128`.
fn options(e: &Explanation) -> String {
    let c = &e.config;
    let unit = match c.text.unit {
        crate::text::Unit::Word => "word",
        crate::text::Unit::Char => "character",
    };
    let images = match c.sketch.scheme {
        crate::sketch::Scheme::ModM => format!("mod-{} images", c.sketch.modulus),
        s => format!("{s} images of {}", c.sketch.size),
    };
    format!(
        "{unit} {}-shingles (offset {}), {images}, seed {}",
        c.shingle.len, c.shingle.offset, c.sketch.seed
    )
}

/// The canonical-text notice shared by both views.
fn canonical_notice(e: &Explanation) -> String {
    let t = &e.config.text;
    let mut steps = Vec::new();
    if t.html {
        steps.push("HTML stripped");
    }
    let norm;
    if t.normalization != crate::text::Normalization::None {
        norm = format!("{}-normalized", t.normalization.name().to_uppercase());
        steps.push(norm.as_str());
    }
    if t.lowercase {
        steps.push("lowercased");
    }
    if t.unit == crate::text::Unit::Word {
        steps.push(match t.tokenizer {
            crate::text::Tokenizer::Unicode => "punctuation dropped",
            crate::text::Tokenizer::Alnum => "split at every character but letters and digits",
            crate::text::Tokenizer::Whitespace => "split at whitespace",
        });
    } else {
        steps.push("whitespace collapsed");
    }
    if t.stopwords.is_some() {
        steps.push("stop words removed");
    }
    let stem;
    if t.stem {
        stem = if t.lang == crate::text::Lang::ENGLISH {
            "stemmed".to_string()
        } else {
            format!("stemmed ({})", t.lang.name())
        };
        steps.push(stem.as_str());
    }
    format!(
        "The texts shown are the CANONICAL texts, what shingles are cut from ({}), not the raw documents.",
        steps.join(", ")
    )
}

/// The verdict's headline: `lsh at resemblance 0.8 (k-mins images of 128)`.
fn verdict_head(v: &Verdict) -> String {
    let th = match v.threshold {
        crate::cluster::Threshold::Resemblance(t) => format!("{} {t}", v.measure.name()),
        crate::cluster::Threshold::MinCommon(k) => format!("min-common {k}"),
    };
    format!(
        "{} at {th} ({} images of {})",
        v.method, v.scheme, v.image_size
    )
}

/// The detail lines of a verdict.
fn verdict_lines(v: &Verdict) -> Vec<String> {
    let mut out = Vec::new();
    if !v.k_rule.is_empty() {
        out.push(format!("rule: {}", v.k_rule));
    }
    match &v.detail {
        MethodDetail::Lsh {
            bands,
            rows,
            colliding_bands,
            agreeing,
            k,
        } => {
            out.push(format!(
                "bands: {bands} x {rows} rows; colliding bands: {}",
                if colliding_bands.is_empty() {
                    "none".to_string()
                } else {
                    colliding_bands
                        .iter()
                        .map(|b| b.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            ));
            out.push(format!("agreeing positions: {agreeing} (filter k = {k})"));
        }
        MethodDetail::SuperShingle {
            per,
            count_a,
            count_b,
            shared,
            shared_indices,
            min_shared,
        } => {
            out.push(format!(
                "super shingles of {per} elements: {count_a} in A, {count_b} in B, {shared} shared (needs {min_shared}); shared indices in A: {shared_indices:?}"
            ));
        }
        MethodDetail::SharedElements {
            shared,
            k,
            estimate,
            threshold,
        } => {
            out.push(format!(
                "shared image elements: {shared} (k = {k}); estimate {estimate:.6}{}",
                threshold.map_or(String::new(), |t| format!(" vs threshold {t}"))
            ));
        }
        MethodDetail::SimHash {
            bits,
            distance,
            hamming,
            estimate,
        } => out.push(format!(
            "hamming distance: {distance} of {bits} bits (h = {hamming}); estimate {estimate:.6}"
        )),
        MethodDetail::Value {
            measure,
            value,
            exact,
            threshold,
        } => out.push(format!(
            "{} {}: {value:.6} vs threshold {threshold}",
            if *exact { "exact" } else { "estimated" },
            measure.name()
        )),
    }
    out.push(format!("note: {}", v.note));
    out
}

/// Positions as `0, 3, 6`.
fn positions(v: &[usize]) -> String {
    let mut s: Vec<String> = v.iter().take(12).map(|p| p.to_string()).collect();
    if v.len() > 12 {
        s.push(format!("... ({} in all)", v.len()));
    }
    s.join(", ")
}

/// The display characters of `text` with whether each is in a passage; control characters
/// become U+FFFD.
fn marked_chars(text: &str, passages: &[Range<usize>]) -> Vec<(char, bool)> {
    let ps = clamp(text, passages);
    let mut k = 0;
    text.char_indices()
        .map(|(i, c)| {
            while k < ps.len() && ps[k].end <= i {
                k += 1;
            }
            let on = k < ps.len() && ps[k].start <= i;
            (if c.is_control() { '\u{FFFD}' } else { c }, on)
        })
        .collect()
}

/// Greedy wrapping of marked characters into lines of at most `width` characters, broken
/// at spaces when a line has one (the breaking space is dropped).
fn wrap(chars: &[(char, bool)], width: usize) -> Vec<&[(char, bool)]> {
    let mut lines = Vec::new();
    let mut start = 0;
    while start < chars.len() {
        if chars.len() - start <= width {
            lines.push(&chars[start..]);
            break;
        }
        let window = &chars[start..start + width + 1];
        match window.iter().rposition(|&(c, _)| c == ' ') {
            Some(p) if p > 0 => {
                lines.push(&chars[start..start + p]);
                start += p + 1;
            }
            _ => {
                lines.push(&chars[start..start + width]);
                start += width;
            }
        }
    }
    lines
}

/// One wrapped line with its markers, and its visible width.
fn render_line(line: &[(char, bool)], color: bool) -> (String, usize) {
    let (on, off) = if color {
        (ANSI_ON, ANSI_OFF)
    } else {
        (PLAIN_ON, PLAIN_OFF)
    };
    let marker_width = if color { 0 } else { 2 };
    let mut s = String::new();
    let mut width = 0;
    let mut open = false;
    for &(c, m) in line {
        if m != open {
            s.push_str(if m { on } else { off });
            width += marker_width;
            open = m;
        }
        s.push(c);
        width += 1;
    }
    if open {
        s.push_str(off);
        width += marker_width;
    }
    (s, width)
}

/// The terminal report: values, verdict, shared shingles (the first [`LISTED`]) and the two
/// canonical texts side by side with shared passages marked (ANSI colour when `color`,
/// else `[[...]]`).
pub fn terminal(e: &Explanation, color: bool) -> String {
    let mut o = String::new();
    let id = |s: &str| {
        s.chars()
            .map(|c| if c.is_control() { '\u{FFFD}' } else { c })
            .collect::<String>()
    };
    let _ = writeln!(o, "A: {}", id(&e.a.id));
    let _ = writeln!(o, "B: {}", id(&e.b.id));
    let _ = writeln!(o, "{}", options(e));
    let shared = e.shared_shingles.len();
    let _ = writeln!(
        o,
        "resemblance     {:.6}  (exact: {shared} shared of {} distinct shingles; {} in A, {} in B)",
        e.resemblance, e.union_shingles, e.a.shingles, e.b.shingles
    );
    let _ = writeln!(o, "containment_ab  {:.6}  (A in B)", e.containment_ab);
    let _ = writeln!(o, "containment_ba  {:.6}  (B in A)", e.containment_ba);
    let _ = writeln!(
        o,
        "estimate        {:.6}  (from the images: {} shared image elements; {} values in A's image, {} in B's)",
        e.estimate, e.shared_image_elements, e.image_size_a, e.image_size_b
    );
    let _ = writeln!(
        o,
        "tokens          {} in A, {} in B",
        e.tokens_a, e.tokens_b
    );
    if let Some(v) = &e.verdict {
        let _ = writeln!(o, "\nverdict: {}", verdict_head(v));
        let _ = writeln!(o, "  {}", v.reason);
        for l in verdict_lines(v) {
            let _ = writeln!(o, "  {l}");
        }
    }
    let _ = writeln!(o, "\nshared shingles ({shared}):");
    for s in e.shared_shingles.iter().take(LISTED) {
        let _ = writeln!(o, "  {}", shingle_line(s));
    }
    if shared > LISTED {
        let _ = writeln!(
            o,
            "  ... {} more (the JSON and HTML outputs list all)",
            shared - LISTED
        );
    }
    let _ = writeln!(o, "\n{}", canonical_notice(e));
    let _ = writeln!(
        o,
        "Shared passages are {}.\n",
        if color {
            "highlighted"
        } else {
            "between [[ and ]]"
        }
    );
    let ca = marked_chars(&e.a.text, &e.a.passages);
    let cb = marked_chars(&e.b.text, &e.b.passages);
    let left: Vec<(String, usize)> = wrap(&ca, COLUMN)
        .into_iter()
        .map(|l| render_line(l, color))
        .collect();
    let right: Vec<(String, usize)> = wrap(&cb, COLUMN)
        .into_iter()
        .map(|l| render_line(l, color))
        .collect();
    let lw = left
        .iter()
        .map(|l| l.1)
        .max()
        .unwrap_or(0)
        .max(COLUMN)
        .max(3 + e.a.id.chars().count());
    let head_a = format!("A: {}", id(&e.a.id));
    let pad = lw.saturating_sub(head_a.chars().count());
    let _ = writeln!(o, "{head_a}{} | B: {}", " ".repeat(pad), id(&e.b.id));
    let _ = writeln!(o, "{}-+-{}", "-".repeat(lw), "-".repeat(COLUMN));
    for i in 0..left.len().max(right.len()) {
        let (ls, lwid) = left.get(i).map_or(("", 0), |l| (l.0.as_str(), l.1));
        let rs = right.get(i).map_or("", |r| r.0.as_str());
        let _ = writeln!(o, "{ls}{} | {rs}", " ".repeat(lw - lwid));
    }
    o
}

/// `"a rose"  A at tokens 0, 3, 6  B at tokens 0, 7`.
fn shingle_line(s: &SharedShingle) -> String {
    let text: String = s
        .text
        .chars()
        .map(|c| if c.is_control() { '\u{FFFD}' } else { c })
        .collect();
    format!(
        "{text:?}  A at token {}  B at token {}",
        positions(&s.positions_a),
        positions(&s.positions_b)
    )
}

/// A self-contained HTML page: values, verdict, every shared shingle and the side-by-side
/// view ([`side_by_side_html`] with [`CSS`] inlined).
pub fn html_page(e: &Explanation) -> String {
    let mut o = String::new();
    let title = format!("fimdup explain: {} vs {}", e.a.id, e.b.id);
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>\n{CSS}{PAGE_CSS}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        esc(&title),
        esc(&title)
    );
    let _ = writeln!(o, "<p class=\"fd-note\">{}</p>", esc(&options(e)));
    let shared = e.shared_shingles.len();
    let rows = [
        (
            "resemblance",
            format!("{:.6}", e.resemblance),
            format!(
                "exact: {shared} shared of {} distinct shingles ({} in A, {} in B)",
                e.union_shingles, e.a.shingles, e.b.shingles
            ),
        ),
        (
            "containment A in B",
            format!("{:.6}", e.containment_ab),
            "|S(A) n S(B)| / |S(A)|".to_string(),
        ),
        (
            "containment B in A",
            format!("{:.6}", e.containment_ba),
            "|S(A) n S(B)| / |S(B)|".to_string(),
        ),
        (
            "estimate",
            format!("{:.6}", e.estimate),
            format!(
                "from the images: {} shared image elements; {} values in A's image, {} in B's",
                e.shared_image_elements, e.image_size_a, e.image_size_b
            ),
        ),
        (
            "tokens",
            format!("{} / {}", e.tokens_a, e.tokens_b),
            "in A / in B".to_string(),
        ),
    ];
    o.push_str("<table class=\"fd-values\">\n");
    for (k, v, note) in rows {
        let _ = writeln!(
            o,
            "<tr><td>{}</td><td><b>{}</b></td><td class=\"fd-note\">{}</td></tr>",
            esc(k),
            esc(&v),
            esc(&note)
        );
    }
    o.push_str("</table>\n");
    if let Some(v) = &e.verdict {
        let _ = writeln!(
            o,
            "<h2>Verdict: {}</h2>\n<p class=\"{}\">{}</p>\n<ul>",
            esc(&verdict_head(v)),
            if v.paired { "fd-paired" } else { "fd-missed" },
            esc(&v.reason)
        );
        for l in verdict_lines(v) {
            let _ = writeln!(o, "<li>{}</li>", esc(&l));
        }
        o.push_str("</ul>\n");
    }
    let _ = writeln!(o, "<h2>Shared shingles ({shared})</h2>");
    if shared > 0 {
        o.push_str("<table class=\"fd-shingles\">\n<tr><th>shingle</th><th>tokens in A</th><th>tokens in B</th></tr>\n");
        for s in &e.shared_shingles {
            let _ = writeln!(
                o,
                "<tr><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
                esc(&s.text),
                esc(&positions(&s.positions_a)),
                esc(&positions(&s.positions_b))
            );
        }
        o.push_str("</table>\n");
    }
    let _ = writeln!(
        o,
        "<h2>Side by side</h2>\n<p class=\"fd-note\">{} Shared passages are highlighted.</p>",
        esc(&canonical_notice(e))
    );
    o.push_str(&side_by_side_html(e));
    o.push_str("</body>\n</html>\n");
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One range as a list (clippy reads `[a..b]` as a mistake).
    fn one(r: Range<usize>) -> Vec<Range<usize>> {
        vec![r]
    }

    #[test]
    fn highlight_html_escapes_and_marks() {
        let t = "a <b> & \"c\" 'd'";
        assert_eq!(
            highlight_html(t, &one(2..5)),
            "a <mark class=\"fd-shared\">&lt;b&gt;</mark> &amp; &quot;c&quot; &#39;d&#39;"
        );
        // No passage: just escaped.
        assert_eq!(highlight_html("<x>", &[]), "&lt;x&gt;");
        // Overlapping passages merge; out-of-range ones are clamped.
        assert_eq!(
            highlight_html("abcdef", &[0..2, 1..3, 5..99]),
            "<mark class=\"fd-shared\">abc</mark>de<mark class=\"fd-shared\">f</mark>"
        );
        // Off a UTF-8 boundary (é is 2 bytes): widened, never a panic.
        assert_eq!(
            highlight_html("é<", &one(1..2)),
            "<mark class=\"fd-shared\">é</mark>&lt;"
        );
        assert_eq!(highlight_html("", &one(3..7)), "");
    }

    #[test]
    fn wrapping_and_markers() {
        let text = "aa bb cc dd";
        let chars = marked_chars(text, &one(3..8));
        let lines = wrap(&chars, 5);
        let plain: Vec<String> = lines.iter().map(|l| render_line(l, false).0).collect();
        assert_eq!(plain, ["aa [[bb]]", "[[cc]] dd"]);
        let (colored, w) = render_line(lines[0], true);
        assert_eq!(colored, format!("aa {ANSI_ON}bb{ANSI_OFF}"));
        assert_eq!(w, 5);
        // A word longer than the width is cut; control characters are replaced.
        let chars = marked_chars("abcdefg\u{1b}", &[]);
        let lines: Vec<String> = wrap(&chars, 3)
            .iter()
            .map(|l| render_line(l, false).0)
            .collect();
        assert_eq!(lines, ["abc", "def", "g\u{FFFD}"]);
    }
}
