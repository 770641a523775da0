//! The drafts of each kind of group ([`Gen`]): unrelated documents, edit families, version
//! chains, template pages, containment and copies, drawn from the one ChaCha8 stream.
//!
//! Invariant: the drafts depend only on the config and the state of the stream; each draft
//! keeps the words of the token sequence its text was rendered from, and the group it
//! belongs to.

use rand::seq::SliceRandom;
use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::lang::{Lexicon, Sep, Tok, Writer};
use super::render::{case_variant, edit, render, whitespace_variant, Style};
use super::GenConfig;

pub(super) struct Draft {
    /// The lexicon index of each token the text was rendered from.
    pub(super) words: Vec<u32>,
    pub(super) text: String,
    pub(super) family: Option<String>,
    pub(super) group: Option<(usize, &'static str)>,
    pub(super) role: String,
}

pub(super) struct Gen<'a> {
    pub(super) cfg: &'a GenConfig,
    pub(super) w: Writer,
    pub(super) rng: ChaCha8Rng,
    pub(super) style: Style,
    pub(super) drafts: Vec<Draft>,
    pub(super) groups: usize,
}

impl<'a> Gen<'a> {
    /// The generator of `cfg`: its lexicon and phrases drawn from the seed's stream, in the
    /// order every generator draws them, and no draft yet.
    pub(super) fn new(cfg: &'a GenConfig) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
        let lex = Lexicon::new(cfg.vocab, cfg.zipf_exponent, &mut rng);
        let w = Writer::new(lex, cfg.phrases, cfg.phrase_prob, &mut rng);
        Gen {
            cfg,
            w,
            rng,
            style: if cfg.html { Style::HtmlA } else { Style::Plain },
            drafts: Vec::new(),
            groups: 0,
        }
    }
}

impl Gen<'_> {
    pub(super) fn len_in(&mut self, r: [usize; 2]) -> usize {
        self.rng.gen_range(r[0]..=r[1])
    }

    fn render(&mut self, toks: &[Tok]) -> String {
        render(toks, &self.w.lex, self.style, &mut self.rng)
    }

    fn push(
        &mut self,
        toks: &[Tok],
        text: String,
        group: Option<(usize, &'static str)>,
        role: String,
    ) {
        let family = group.map(|(g, k)| format!("{k}-{g:04}"));
        self.drafts.push(Draft {
            words: toks.iter().map(|t| t.w).collect(),
            text,
            family,
            group,
            role,
        });
    }

    fn new_group(&mut self, kind: &'static str) -> Option<(usize, &'static str)> {
        self.groups += 1;
        Some((self.groups, kind))
    }

    pub(super) fn unrelated(&mut self) {
        let n = self.len_in(self.cfg.doc_words);
        let toks = self.w.prose(n, &mut self.rng);
        let text = self.render(&toks);
        self.push(&toks, text, None, "unrelated".into());
    }

    pub(super) fn edit_family(&mut self, size: usize) {
        let g = self.new_group("edit");
        let n = self.len_in(self.cfg.doc_words);
        let base = self.w.prose(n, &mut self.rng);
        let text = self.render(&base);
        self.push(&base, text, g, "base".into());
        for _ in 1..size {
            let rate = *self
                .cfg
                .edit_rates
                .choose(&mut self.rng)
                .expect("validated");
            let mut t = base.clone();
            edit(&mut t, rate, true, &self.w, &mut self.rng);
            let text = self.render(&t);
            self.push(&t, text, g, format!("edit-{rate:.2}"));
        }
    }

    pub(super) fn chain(&mut self, size: usize) {
        let g = self.new_group("chain");
        let n = self.len_in(self.cfg.doc_words);
        let mut cur = self.w.prose(n, &mut self.rng);
        for v in 1..=size {
            if v > 1 {
                let [lo, hi] = self.cfg.chain_step;
                let rate = if hi > lo {
                    self.rng.gen_range(lo..=hi)
                } else {
                    lo
                };
                edit(&mut cur, rate, false, &self.w, &mut self.rng);
            }
            let text = self.render(&cur);
            self.push(&cur, text, g, format!("v{v:02}"));
        }
    }

    pub(super) fn template_group(&mut self, size: usize) {
        let g = self.new_group("template");
        let lex = &self.w.lex;
        let rng = &mut self.rng;
        let frame_target =
            rng.gen_range(self.cfg.template_frame_words[0]..=self.cfg.template_frame_words[1]);
        // menu: 6-10 items of 1-2 words, one per line
        let mut menu = Vec::new();
        for _ in 0..rng.gen_range(6..=10) {
            for _ in 0..rng.gen_range(1..=2) {
                menu.push(Tok::word(lex.sample(rng)));
            }
            menu.last_mut().expect("item").sep = Sep::Line;
        }
        // header: a title line
        let mut header: Vec<Tok> = (0..rng.gen_range(6..=12))
            .map(|_| Tok::word(lex.sample(rng)))
            .collect();
        header.last_mut().expect("title").sep = Sep::Line;
        // field labels
        let labels: Vec<Vec<Tok>> = (0..self.cfg.template_fields)
            .map(|_| {
                let mut l: Vec<Tok> = (0..rng.gen_range(1..=2))
                    .map(|_| Tok::word(lex.sample(rng)))
                    .collect();
                l.last_mut().expect("label").sep = Sep::Colon;
                l
            })
            .collect();
        let used = menu.len() + header.len() + labels.iter().map(Vec::len).sum::<usize>();
        let footer_words = frame_target.saturating_sub(used).max(10);
        let footer = self.w.prose(footer_words, rng);
        for _ in 0..size {
            let mut t = menu.clone();
            t.extend_from_slice(&header);
            for l in &labels {
                t.extend_from_slice(l);
                if rng.gen_bool(0.3) {
                    t.push(Tok::word(lex.number(rng.gen_range(1000..=2099))));
                } else {
                    for _ in 0..rng.gen_range(1..=3) {
                        t.push(Tok::word(lex.sample_rare(200, rng)));
                    }
                }
                t.last_mut().expect("value").sep = Sep::Line;
            }
            let n = rng
                .gen_range(self.cfg.template_content_words[0]..=self.cfg.template_content_words[1]);
            let mut content: Vec<Tok> = Vec::with_capacity(n);
            while content.len() < n {
                let mut s = Vec::new();
                self.w.sentence(rng, &mut s);
                // content words are rarer than the frame's stock words
                for tok in &mut s {
                    if tok.w < 200 && rng.gen_bool(0.7) {
                        tok.w = lex.sample_rare(200, rng);
                    }
                }
                content.extend(s);
            }
            content.last_mut().expect("content").sep = Sep::Para;
            t.extend(content);
            t.extend_from_slice(&footer);
            let text = render(&t, lex, self.style, rng);
            self.drafts.push(Draft {
                words: t.iter().map(|t| t.w).collect(),
                text,
                family: g.map(|(g, k)| format!("{k}-{g:04}")),
                group: g,
                role: "page".into(),
            });
        }
    }

    pub(super) fn containment(&mut self, size: usize) {
        let g = self.new_group("containment");
        let n = self.len_in(self.cfg.contained_words);
        let inner = self.w.prose(n, &mut self.rng);
        let text = self.render(&inner);
        self.push(&inner, text, g, "contained".into());
        for _ in 1..size {
            let (a, b) = (
                self.len_in(self.cfg.container_extra_words),
                self.len_in(self.cfg.container_extra_words),
            );
            let mut t = self.w.prose(a, &mut self.rng);
            t.extend_from_slice(&inner);
            t.extend(self.w.prose(b, &mut self.rng));
            let text = self.render(&t);
            self.push(&t, text, g, "container".into());
        }
    }

    pub(super) fn copies(&mut self, size: usize) {
        let g = self.new_group("copy");
        let n = self.len_in(self.cfg.doc_words);
        let base = self.w.prose(n, &mut self.rng);
        let text = self.render(&base);
        self.push(&base, text.clone(), g, "base".into());
        let mut kinds = ["exact", "case", "whitespace", "markup"];
        kinds.shuffle(&mut self.rng);
        for &k in kinds.iter().take(size - 1) {
            let t = match k {
                "exact" => text.clone(),
                "case" => case_variant(&text, &mut self.rng),
                "whitespace" => whitespace_variant(&text, &mut self.rng),
                _ => {
                    let st = if self.style == Style::Plain && self.rng.gen_bool(0.5) {
                        Style::HtmlA
                    } else {
                        Style::HtmlB
                    };
                    render(&base, &self.w.lex, st, &mut self.rng)
                }
            };
            self.push(&base, t, g, k.into());
        }
    }
}
