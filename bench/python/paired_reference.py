"""Reference values for analysis/paired.ts (sign test, Wilcoxon signed-rank, Holm, paired bootstrap).

Re-run (from the repository root; the venv is git-ignored):
    python3 -m venv .bench-venv && .bench-venv/bin/pip install scipy statsmodels numpy
    .bench-venv/bin/python bench/python/paired_reference.py > test/fixtures/analysis/paired_reference.json

The inputs are fixed (generated here from numpy's seeded RandomState and stored in the fixture next to the
outputs, so the TypeScript test reads both). test/analysis/paired.test.ts checks every value to 1e-9.

- sign test: scipy.stats.binomtest(n_pos, n_pos + n_neg, 0.5, alternative='two-sided'), ties dropped;
- Wilcoxon: scipy.stats.wilcoxon(d, zero_method='wilcox', correction=True, method='approx');
- Holm: statsmodels.stats.multitest.multipletests(p, method='holm');
- paired bootstrap: the resampling indices are reproduced here from the documented PRNG (mulberry32, the
  one analysis/bootstrap.ts uses; index = floor(u * size), per stratum in order of first appearance), so
  the TypeScript CI must match these numbers, not merely cover the estimate.
"""
import json
import math
import sys

import numpy as np
import scipy
import statsmodels
from scipy import stats
from statsmodels.stats.multitest import multipletests

M32 = 0xFFFFFFFF


def imul(a: int, b: int) -> int:
    return (a * b) & M32


def mulberry32(seed: int):
    state = [seed & M32]

    def rand() -> float:
        state[0] = (state[0] + 0x6D2B79F5) & M32
        t = state[0]
        t = imul(t ^ (t >> 15), t | 1)
        t ^= (t + imul(t ^ (t >> 7), t | 61)) & M32
        return ((t ^ (t >> 14)) & M32) / 4294967296

    return rand


def quantile7(sorted_vals, q: float) -> float:
    """numpy's linear quantile, written as analysis/bootstrap.ts computes it (same float operations)."""
    n = len(sorted_vals)
    pos = (n - 1) * q
    lo = math.floor(pos)
    hi = min(n - 1, lo + 1)
    return sorted_vals[lo] + (sorted_vals[hi] - sorted_vals[lo]) * (pos - lo)


def paired_bootstrap(ref, a, b, iterations, seed, strata=None):
    n = len(ref)
    if strata is None:
        groups = [list(range(n))]
    else:
        order, members = [], {}
        for i, s in enumerate(strata):
            if s not in members:
                members[s] = []
                order.append(s)
            members[s].append(i)
        groups = [members[s] for s in order]
    rand = mulberry32(seed)
    deltas = []
    for _ in range(iterations):
        r = sa = sb = 0.0
        for g in groups:
            size = len(g)
            for _k in range(size):
                idx = g[math.floor(rand() * size)]
                r += ref[idx]
                sa += a[idx]
                sb += b[idx]
        if r == 0:
            continue
        deltas.append(sb / r - sa / r)
    deltas.sort()
    est = sum(b) / sum(ref) - sum(a) / sum(ref)
    return {"delta": est, "ci95": [quantile7(deltas, 0.025), quantile7(deltas, 0.975)], "iterations": len(deltas)}


def line_cases(rng):
    """Per-line CER differences as the analysis forms them: (edits_b - edits_a) / gold_chars."""
    cases = {
        "small_ties_zeros": [0.1, -0.2, 0.0, 0.1, -0.1, 0.3, 0.0, -0.2, 0.1, 0.05, -0.05, 0.2],
        "all_negative": [-0.01, -0.02, -0.03, -0.04, -0.05, -0.06, -0.07],
        "balanced_sign": [0.5, -0.5, 0.25, -0.25, 0.1, -0.1],
        "single": [0.2],
    }
    gold = rng.randint(10, 80, size=300)
    ea = rng.binomial(gold, 0.08)
    eb = np.maximum(0, ea + rng.randint(-3, 3, size=300))
    cases["lines_300"] = [float((int(y) - int(x)) / int(g)) for g, x, y in zip(gold, ea, eb)]
    gold2 = rng.randint(5, 40, size=1500)
    ea2 = rng.binomial(gold2, 0.05)
    eb2 = np.maximum(0, ea2 - rng.binomial(2, 0.3, size=1500) + rng.binomial(1, 0.2, size=1500))
    cases["lines_1500"] = [float((int(y) - int(x)) / int(g)) for g, x, y in zip(gold2, ea2, eb2)]
    return cases


def tests_for(d):
    arr = np.asarray(d, dtype=float)
    pos, neg = int((arr > 0).sum()), int((arr < 0).sum())
    sign_p = float(stats.binomtest(pos, pos + neg, 0.5, alternative="two-sided").pvalue)
    w = stats.wilcoxon(arr, zero_method="wilcox", correction=True, method="approx")
    return {
        "sign": {"positive": pos, "negative": neg, "ties": int((arr == 0).sum()), "p": sign_p},
        "wilcoxon": {"statistic": float(w.statistic), "z": float(w.zstatistic), "p": float(w.pvalue)},
    }


def bootstrap_cases(rng):
    out = {}
    ref = [int(x) for x in rng.randint(0, 60, size=80)]
    a = [int(rng.binomial(r, 0.1)) if r else int(rng.randint(0, 2)) for r in ref]
    b = [max(0, x + int(rng.randint(-2, 2))) for x in a]
    out["plain"] = {"ref": ref, "a": a, "b": b, "iterations": 400, "seed": 12345}
    strata = [int(i % 3 == 0) + int(i > 50) for i in range(80)]
    out["stratified"] = {"ref": ref, "a": a, "b": b, "iterations": 300, "seed": 7, "strata": strata}
    tiny = {"ref": [0, 0, 5, 3], "a": [1, 0, 2, 1], "b": [0, 0, 1, 1], "iterations": 200, "seed": 99}
    out["with_empty_gold"] = tiny
    for case in out.values():
        case["expected"] = paired_bootstrap(case["ref"], case["a"], case["b"], case["iterations"], case["seed"], case.get("strata"))
    return out


def holm_cases():
    families = {
        "four": [0.01, 0.04, 0.03, 0.005],
        "ties_and_cap": [0.2, 0.2, 0.5, 0.9, 0.01],
        "one": [0.03],
        "monotone_fix": [0.001, 0.0102, 0.0101, 0.04, 0.045],
    }
    return {k: {"p": v, "holm": [float(x) for x in multipletests(v, method="holm")[1]]} for k, v in families.items()}


def main() -> None:
    rng = np.random.RandomState(20240601)
    lines = {k: {"d": d, **tests_for(d)} for k, d in line_cases(rng).items()}
    doc = {
        "generated_by": "bench/python/paired_reference.py",
        "versions": {"scipy": scipy.__version__, "statsmodels": statsmodels.__version__, "numpy": np.__version__},
        "line_tests": lines,
        "holm": holm_cases(),
        "bootstrap": bootstrap_cases(rng),
    }
    json.dump(doc, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
