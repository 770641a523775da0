//! Rendering token sequences as text (plain or HTML) and the surface variants of exact
//! copies (case, whitespace, markup), plus the word edits that make near-duplicates.
//!
//! Invariant: every rendering of a token sequence, with any variant, has the same canonical
//! token sequence (lowercased `\w+` words of the text with `<...>` tags removed): tags and
//! whitespace changes never touch a word, and no tag sits inside a word.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::lang::{Lexicon, Sep, Tok, Writer};

/// How a document is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Plain text, paragraphs separated by blank lines.
    Plain,
    /// An HTML page (`<p>` paragraphs).
    HtmlA,
    /// A differently marked-up HTML page (`<div><span>`, some `<b>`/`<i>` emphasis).
    HtmlB,
}

fn push_cap(s: &mut String, w: &str, cap: bool) {
    let mut cs = w.chars();
    match (cap, cs.next()) {
        (true, Some(c)) => {
            s.extend(c.to_uppercase());
            s.push_str(cs.as_str());
        }
        _ => s.push_str(w),
    }
}

/// Renders tokens in `style`; `rng` draws the emphasis of [`Style::HtmlB`].
pub fn render(toks: &[Tok], lex: &Lexicon, style: Style, rng: &mut ChaCha8Rng) -> String {
    let (open, close, para, line) = match style {
        Style::Plain => ("", "", ".\n\n", "\n"),
        Style::HtmlA => (
            "<!DOCTYPE html>\n<html>\n<body>\n<div class=\"content\">\n<p>",
            "</p>\n</div>\n</body>\n</html>\n",
            ".</p>\n<p>",
            "<br>\n",
        ),
        Style::HtmlB => (
            "<html><head><meta charset=\"utf-8\"></head><body>\n<article>\n<div class=\"para\"><span>",
            "</span></div>\n</article></body></html>\n",
            ".</span></div>\n<div class=\"para\"><span>",
            "<br/>\n",
        ),
    };
    let mut s = String::with_capacity(toks.len() * 8 + open.len() + close.len());
    s.push_str(open);
    let mut start = true;
    for (i, t) in toks.iter().enumerate() {
        let last = i + 1 == toks.len();
        let w = lex.word(t.w);
        let emph = if style == Style::HtmlB && rng.gen_bool(0.04) {
            Some(if rng.gen_bool(0.5) { "b" } else { "i" })
        } else {
            None
        };
        if let Some(tag) = emph {
            s.push('<');
            s.push_str(tag);
            s.push('>');
        }
        push_cap(&mut s, w, start);
        if let Some(tag) = emph {
            s.push_str("</");
            s.push_str(tag);
            s.push('>');
        }
        start = false;
        match t.sep {
            Sep::Space => {
                if !last {
                    s.push(' ')
                }
            }
            Sep::Comma => s.push_str(if last { "." } else { ", " }),
            Sep::Colon => s.push_str(if last { ":" } else { ": " }),
            Sep::Period => {
                s.push_str(if last { "." } else { ". " });
                start = true;
            }
            Sep::Line => {
                if !last {
                    s.push_str(line);
                }
                start = true;
            }
            Sep::Para => {
                s.push_str(if last { "." } else { para });
                start = true;
            }
        }
    }
    s.push_str(close);
    if style == Style::Plain {
        s.push('\n');
    }
    s
}

/// Applies `f` to every character outside `<...>` tags.
fn map_text(s: &str, mut f: impl FnMut(char, &mut String)) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    let mut in_tag = false;
    for c in s.chars() {
        if in_tag {
            out.push(c);
            in_tag = c != '>';
        } else if c == '<' {
            out.push(c);
            in_tag = true;
        } else {
            f(c, &mut out);
        }
    }
    out
}

/// A copy differing only in letter case (outside tags): all upper, all lower, Title Case, or
/// random words upper-cased.
pub fn case_variant(s: &str, rng: &mut ChaCha8Rng) -> String {
    match rng.gen_range(0..4) {
        0 => map_text(s, |c, o| o.extend(c.to_uppercase())),
        1 => map_text(s, |c, o| o.extend(c.to_lowercase())),
        2 => {
            let mut prev_word = false;
            map_text(s, |c, o| {
                if c.is_alphanumeric() && !prev_word {
                    o.extend(c.to_uppercase());
                } else {
                    o.push(c);
                }
                prev_word = c.is_alphanumeric();
            })
        }
        _ => {
            let mut prev_word = false;
            let mut upper = false;
            map_text(s, |c, o| {
                if c.is_alphanumeric() {
                    if !prev_word {
                        upper = rng.gen_bool(0.3);
                    }
                    if upper {
                        o.extend(c.to_uppercase());
                    } else {
                        o.push(c);
                    }
                } else {
                    o.push(c);
                }
                prev_word = c.is_alphanumeric();
            })
        }
    }
}

/// A copy differing only in whitespace (outside tags): every whitespace run replaced by a
/// random non-empty run, plus leading and trailing whitespace.
pub fn whitespace_variant(s: &str, rng: &mut ChaCha8Rng) -> String {
    const RUNS: &[&str] = &[" ", "  ", "   ", "\t", "\n", " \n ", "\n\n", " \t "];
    let mut in_ws = false;
    let mut out = map_text(s, |c, o| {
        if c.is_whitespace() {
            if !in_ws {
                o.push_str(RUNS[rng.gen_range(0..RUNS.len())]);
            }
            in_ws = true;
        } else {
            in_ws = false;
            o.push(c);
        }
    });
    out.insert_str(0, ["", " ", "\n", "\t "][rng.gen_range(0..4)]);
    out.push_str(["", " ", "\n\n", " \t"][rng.gen_range(0..4)]);
    out
}

/// Edits `toks` in place until about `rate * len` words are touched: substitute, insert and
/// delete touch one word each; a block move (only when `moves`) touches the moved words.
/// Returns the number of words touched.
pub fn edit(
    toks: &mut Vec<Tok>,
    rate: f64,
    moves: bool,
    w: &Writer,
    rng: &mut ChaCha8Rng,
) -> usize {
    let budget = ((rate * toks.len() as f64).round() as usize).max(1);
    let mut touched = 0;
    while touched < budget {
        let op = rng.gen_range(0..if moves { 5 } else { 4 });
        match op {
            // substitute (weight 2)
            0 | 1 => {
                let i = rng.gen_range(0..toks.len());
                let old = toks[i].w;
                let mut nw = w.lex.sample(rng);
                while nw == old {
                    nw = w.lex.sample(rng);
                }
                toks[i].w = nw;
                touched += 1;
            }
            // insert
            2 => {
                let i = rng.gen_range(0..=toks.len());
                toks.insert(i, Tok::word(w.lex.sample(rng)));
                touched += 1;
            }
            // delete
            3 => {
                if toks.len() <= 10 {
                    continue;
                }
                let i = rng.gen_range(0..toks.len());
                let t = toks.remove(i);
                if !matches!(t.sep, Sep::Space | Sep::Comma) && i > 0 {
                    toks[i - 1].sep = t.sep;
                }
                touched += 1;
            }
            // move a block
            _ => {
                let len = rng.gen_range(3..=10).min(budget - touched);
                if len < 3 || toks.len() < 2 * len + 2 {
                    continue;
                }
                let i = rng.gen_range(0..=toks.len() - len);
                let block: Vec<Tok> = toks.drain(i..i + len).collect();
                let mut j = rng.gen_range(0..=toks.len());
                if j == i {
                    j = if j == 0 { toks.len() } else { 0 };
                }
                toks.splice(j..j, block);
                touched += len;
            }
        }
    }
    touched
}
