"""eval/results/methods.md from the sweeps of eval/methods/run.sh: per corpus, best F1 with
its interval, precision at matched recall, and the paired comparisons of simhash and
henzinger."""

import csv
import sys


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def main():
    out = sys.argv[1]
    lines = [
        "# Every method on every labeled corpus",
        "",
        "Written by `eval/methods/run.sh` (`fimdup sweep` of concept, union-find, lsh, "
        "super-shingle, exact, simhash and henzinger over thresholds 0.3 to 0.9 by 0.1, "
        "200 bootstrap resamples). Henzinger (SIGIR 2006) compared Broder's and Charikar's "
        "algorithms by their precision at the same recall; the second table of each corpus "
        "does that: each method's best precision among its thresholds whose recall reaches "
        "the target.",
        "",
    ]
    for spec in sys.argv[2:]:
        tag, rest = spec.split(":", 1)
        title, d = rest.rsplit(":", 1)
        r = rows(f"{d}/results.csv")
        methods = list(dict.fromkeys(x["method"] for x in r))
        lines += [f"## {title}", "", "| method | threshold | k | P | R | best F1 [95 %] |", "|---|---:|---:|---:|---:|---:|"]
        for m in methods:
            b = max((x for x in r if x["method"] == m), key=lambda x: float(x["f1"]))
            lines.append(
                f"| {m} | {float(b['threshold']):.2f} | {b['k']} | {float(b['precision']):.3f} | "
                f"{float(b['recall']):.3f} | {float(b['f1']):.3f} [{float(b['f1_lo']):.3f}, {float(b['f1_hi']):.3f}] |"
            )
        targets = [0.5, 0.7, 0.9]
        lines += ["", "| method | " + " | ".join(f"P at R >= {t} [95 %]" for t in targets) + " |",
                  "|---|" + "---:|" * len(targets)]
        for m in methods:
            cells = []
            for t in targets:
                ok = [x for x in r if x["method"] == m and float(x["recall"]) >= t]
                if not ok:
                    cells.append("-")
                    continue
                b = max(ok, key=lambda x: float(x["precision"]))
                cells.append(f"{float(b['precision']):.3f} [{float(b['precision_lo']):.3f}, {float(b['precision_hi']):.3f}] at {float(b['threshold']):.2f}")
            lines.append(f"| {m} | " + " | ".join(cells) + " |")
        try:
            p = rows(f"{d}/paired.csv")
        except FileNotFoundError:
            p = []
        p = [x for x in p if "simhash" in (x["a"], x["b"]) or "henzinger" in (x["a"], x["b"])]
        if p:
            lines += ["", "| a | b | best F1 a - b [95 %] | a wins | b wins |", "|---|---|---:|---:|---:|"]
            for x in p:
                lines.append(
                    f"| {x['a']} | {x['b']} | {float(x['diff']):+.3f} [{float(x['diff_lo']):+.3f}, {float(x['diff_hi']):+.3f}] | "
                    f"{float(x['a_wins']):.0%} | {float(x['b_wins']):.0%} |"
                )
        lines.append("")
    with open(out, "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
