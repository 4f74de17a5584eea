#!/usr/bin/env python3
"""Model-level 2-fold held-out check of the what-if's long-context constant.

The GPU-model transfer factors (src/model/whatif.c, docs/model.md "What if")
carry terms that apply only to sources whose mean context per running
sequence (input + output/2) exceeds a threshold L (2,000 tokens shipped): the
reasoning workloads, whose single-GPU H100 -> B200 ratio at small caps is
~1.5-2x that of chat. L was chosen on the same what-if leave-one-out it is
quoted with (docs/model-accuracy.md). This script asks how much that choice
flatters the figures: the models are split into two fixed halves (the
distinct base model ids -- FP8/BF16 twins together -- sorted, alternating, as
tests/model/heldout_2fold.py), L is chosen on one half's LLM GPU-model
transfer points and the other half is scored with it, and vice versa.

    tests/model/whatif_2fold.py build/joules /tmp/mlenergy.h5

* Grid: L in {1000, 1500, 2000, 3000, 5000, off} tokens, each one run of
  `joules fit --what-if-loo --json` with JOULES_WHATIF_LONG_CONTEXT=L (a
  developer override read by the library; "off": 1e12).
* Every point of either fold is predicted with factors learned without its
  own model, so scoring a fold never fits to it; what the halves share is
  only the choice of L.
* Choice on a fold: the smallest p90 of |predicted - actual| / actual over its
  LLM gpu_model points, ties (within 0.005 percentage point) by the smaller
  median.

--cache DIR keeps each run's JSON (DIR/L.json) and reuses it.
Exit 0 always unless joules fails; the numbers are the result.
"""
import json
import os
import subprocess
import sys

GRID = ["1000", "1500", "2000", "3000", "5000", "1e12"]
SHIPPED = "2000"
TWIN = ("-FP8", "-BF16", "-fp8", "-bf16")


def base(m):
    for s in TWIN:
        if m.endswith(s):
            return m[: -len(s)]
    return m


def quant(v, q):
    v = sorted(v)
    if not v:
        return float("nan")
    h = q * (len(v) - 1)
    a = int(h)
    return v[a] + (h - a) * ((v[a + 1] - v[a]) if a + 1 < len(v) else 0)


def run(joules, h5, L, cache):
    path = os.path.join(cache, f"{L}.json") if cache else None
    if path and os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    env = dict(os.environ, JOULES_WHATIF_LONG_CONTEXT=L)
    out = subprocess.run([joules, "fit", "--what-if-loo", "--json", h5], env=env,
                         check=True, capture_output=True, text=True).stdout
    d = json.loads(out)
    if path:
        with open(path, "w") as f:
            json.dump(d, f)
    return d


def points(d, transfer):
    d = d.get("what_if_loo", d)
    return [(base(p["model"]), p["abs_rel_error"]) for p in d["points"]
            if p["transfer"] == transfer and p.get("workload") == "llm"
            and p["abs_rel_error"] is not None]


def stats(rows, fold):
    e = [x for m, x in rows if m in fold]
    return len(e), quant(e, 0.5), quant(e, 0.9)


def main():
    args = sys.argv[1:]
    cache = None
    if "--cache" in args:
        i = args.index("--cache")
        cache = args[i + 1]
        del args[i:i + 2]
        os.makedirs(cache, exist_ok=True)
    if len(args) != 2:
        sys.exit(__doc__)
    joules, h5 = args
    res = {L: run(joules, h5, L, cache) for L in GRID}
    gm = {L: points(d, "gpu_model") for L, d in res.items()}
    models = sorted({m for m, _ in gm[SHIPPED]})
    folds = {"A": set(models[0::2]), "B": set(models[1::2])}
    print(f"{len(models)} base models with LLM gpu_model points: fold A {len(folds['A'])}, "
          f"fold B {len(folds['B'])}")
    print("L       " + "  ".join(f"fold {k}: n  median  p90" for k in folds))
    for L in GRID:
        print(f"{L:>6}  " + "  ".join("%9d %6.2f %6.2f" % (lambda s: (s[0], 100 * s[1], 100 * s[2]))(
            stats(gm[L], folds[k])) for k in folds))
    for tr, te in (("A", "B"), ("B", "A")):
        best = min(GRID, key=lambda L: (round(100 * stats(gm[L], folds[tr])[2], 3) // 0.005,
                                        stats(gm[L], folds[tr])[1]))
        n, med, p90 = stats(gm[best], folds[te])
        _, smed, sp90 = stats(gm[SHIPPED], folds[te])
        _, omed, op90 = stats(gm["1e12"], folds[te])
        print(f"chosen on {tr}: L={best}; scored on {te} ({n} points): median {100 * med:.2f} %, "
              f"p90 {100 * p90:.2f} % (shipped L={SHIPPED}: {100 * smed:.2f} / {100 * sp90:.2f}; "
              f"off: {100 * omed:.2f} / {100 * op90:.2f})")


if __name__ == "__main__":
    main()
