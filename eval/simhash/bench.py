"""fimdup's simhash against gaoya's SimHash index on the peers corpus, in one run.

Both read the same JSONL (word 5-gram shingles, lowercased) and find the pairs of 64-bit
fingerprints within Hamming distance h (Manku, Jain and Das Sarma's setting, h = 3; gaoya's
index with the same width, 4 blocks, `par_bulk_query` on every document). Each is timed
end to end as a whole process under /usr/bin/time (median of --repeat runs). Measured:
- seconds and peak RSS, and the ratio gaoya / fimdup;
- precision, recall and F1 against the corpus truth at resemblance 0.8 and 0.9, with a
  bootstrap interval over documents (200 resamples);
- fimdup at the h a threshold of 0.8 implies (h = 9 of 64), where all pairs are compared.
fimdup's missed pairs are counted by tests/it/simhash.rs against a brute-force scan;
gaoya's fingerprints are not exposed, so its missed pairs are not counted. text-dedup's
SimHash needs Hugging Face `datasets` and a Spark or multiprocess run on its own dataset
format; it is not run here.
"""

import argparse
import json
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "peers"))
from bench import load_truth, read_docs, read_fimdup_pairs, timed_median  # noqa: E402


def gaoya_worker(docs, out, h):
    import gaoya

    ids, texts = read_docs(docs)
    ix = gaoya.simhash.SimHashStringIndex(
        hash_size=64, num_blocks=4, hamming_distance=h, analyzer="word", lowercase=True,
        ngram_range=(5, 5),
    )
    for i, t in enumerate(texts):
        ix.insert_document(i, t)
    found = ix.par_bulk_query(texts)
    rows = set()
    for i, near in enumerate(found):
        for j in near:
            if j != i:
                a, b = ids[i], ids[j]
                rows.add((min(a, b), max(a, b)))
    with open(out, "w") as f:
        for a, b in sorted(rows):
            f.write(f"{a},{b}\n")


def read_plain_pairs(path):
    with open(path) as f:
        return {tuple(l.strip().split(",")[:2]) for l in f if l.strip()}


def prf(pred, truth):
    tp = len(pred & truth)
    p = tp / len(pred) if pred else 1.0
    r = tp / len(truth) if truth else 1.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def f1_interval(pred, truth, ids, n=200, seed=0):
    """95 % bootstrap interval of F1 over documents: a resample weighs each pair by the
    product of its two documents' multiplicities."""
    rng = random.Random(seed)
    fs = []
    for _ in range(n):
        w = {}
        for _ in range(len(ids)):
            d = ids[rng.randrange(len(ids))]
            w[d] = w.get(d, 0) + 1
        wt = lambda ps: sum(w.get(a, 0) * w.get(b, 0) for a, b in ps)
        tp, pp, tt = wt(pred & truth), wt(pred), wt(truth)
        p = tp / pp if pp else 1.0
        r = tp / tt if tt else 1.0
        fs.append(2 * p * r / (p + r) if p + r else 0.0)
    fs.sort()
    return fs[int(0.025 * n)], fs[int(0.975 * n) - 1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin")
    ap.add_argument("--corpus")
    ap.add_argument("--work")
    ap.add_argument("--out")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--h", type=int, default=3)
    ap.add_argument("--worker", nargs=3)
    a = ap.parse_args()
    if a.worker:
        gaoya_worker(a.worker[0], a.worker[1], int(a.worker[2]))
        return
    os.makedirs(a.work, exist_ok=True)
    docs = os.path.join(a.corpus, "docs.jsonl")
    ids, _ = read_docs(docs)
    rows = []
    fim_out = os.path.join(a.work, "fimdup")
    fim_cmd = [a.bin, "cluster", docs, "--method", "simhash", "--hamming", str(a.h), "--out", fim_out]
    fs, frss, _, fwalls = timed_median(fim_cmd, a.repeat)
    fim_pairs, _ = read_fimdup_pairs(os.path.join(fim_out, "pairs.csv"))
    g_out = os.path.join(a.work, "gaoya.csv")
    g_cmd = [sys.executable, __file__, "--worker", docs, g_out, str(a.h)]
    gs, grss, _, gwalls = timed_median(g_cmd, a.repeat)
    g_pairs = read_plain_pairs(g_out)
    t8 = os.path.join(a.work, "fimdup-t08")
    ts, trss, _, _ = timed_median([a.bin, "cluster", docs, "--method", "simhash", "--threshold", "0.8", "--out", t8], a.repeat)
    t8_pairs, _ = read_fimdup_pairs(os.path.join(t8, "pairs.csv"))
    lines = [
        "# SimHash: fimdup against gaoya on the peers corpus",
        "",
        f"`eval/simhash/run.sh` (`{os.path.basename(a.bin)}`, {len(ids):,} documents of "
        "`eval/peers/corpus.json`, 2 cores; median of "
        f"{a.repeat} whole-process runs under `/usr/bin/time -v`). 64-bit fingerprints of word "
        f"5-gram shingles, pairs within Hamming distance h = {a.h} (Manku et al.'s setting).",
        "",
        "| tool | h | seconds | peak RSS MiB | pairs | P@0.8 | R@0.8 | F1@0.8 [95 %] | F1@0.9 [95 %] |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    t08, t09 = load_truth(a.corpus, 0.8, a.work), load_truth(a.corpus, 0.9, a.work)
    for name, h, s, rss, pairs in [
        ("fimdup simhash", a.h, fs, frss, fim_pairs),
        ("gaoya SimHashStringIndex", a.h, gs, grss, g_pairs),
        ("fimdup simhash (threshold 0.8)", 9, ts, trss, t8_pairs),
    ]:
        p, r, f = prf(pairs, t08)
        lo, hi = f1_interval(pairs, t08, ids)
        f9 = prf(pairs, t09)[2]
        lo9, hi9 = f1_interval(pairs, t09, ids)
        lines.append(
            f"| {name} | {h} | {s:.2f} | {rss:.0f} | {len(pairs):,} | {p:.3f} | {r:.3f} | "
            f"{f:.3f} [{lo:.3f}, {hi:.3f}] | {f9:.3f} [{lo9:.3f}, {hi9:.3f}] |"
        )
    lines += [
        "",
        f"- **Speed**: gaoya / fimdup = {gs / fs:.1f}x (fimdup runs {', '.join(f'{w:.2f}' for w in fwalls)} s; "
        f"gaoya {', '.join(f'{w:.2f}' for w in gwalls)} s).",
        "- **Pairs within h missed**: none by construction (Manku's tables are exact, checked "
        "against a brute-force scan of every pair of 20,000 documents' fingerprints by "
        "`tests/it/simhash.rs`, h = 5 and 10).",
        "- Both find pairs within h exactly; they differ in their fingerprints (hash "
        "functions, gaoya's own tokenizer) and in what a pair is: fimdup's pairs are the member "
        "pairs of union-find components, gaoya's the query answers.",
        "- At h = 3 of 64 bits a pair needs an estimated resemblance near 0.98, so recall at 0.8 "
        "is low for both; the last row is fimdup at the h the threshold 0.8 implies.",
    ]
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
