#!/usr/bin/env python3
"""Do `joules summarize --json` and the numpy reference agree on a benchmark
set? (So that timing one against the other compares equal work.)

    agree.py [--rtol 1e-6] [--atol 1e-9] JOULES.json REF.json

Every run the reference summarised must be in the joules output with the
same window method and energy source and every figure of JL_FIGURE_TABLE
within rtol (relative) or atol (absolute); a figure missing on one side must
be missing on the other. Last line: "agree N runs, V values, F failures,
max rel diff D" (or "DISAGREE ..."); exit 1 on any failure.
"""
import argparse
import json
import os
import re
import sys

HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                      "include", "joules", "summary.h")


def figure_names():
    src = open(HEADER).read()
    table = src[src.index("#define JL_FIGURE_TABLE"):src.index("typedef enum")]
    return re.findall(r"X\(\s*\w+\s*,\s*(\w+)\s*,", table)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rtol", type=float, default=1e-6)
    ap.add_argument("--atol", type=float, default=1e-9)
    ap.add_argument("joules")
    ap.add_argument("ref")
    a = ap.parse_args()
    j = json.load(open(a.joules))
    r = json.load(open(a.ref))
    by = {(x["file"], x["run"]): x for x in j["runs"]}
    figs = figure_names() + ["gpu_energy_j", "gpu_avg_power_w"]
    fails, values, worst = [], 0, 0.0

    def close(x, y):
        nonlocal worst
        if x is None or y is None:
            return x is None and y is None
        if abs(y) > 0:
            worst = max(worst, abs(x - y) / abs(y))
        return abs(x - y) <= a.atol + a.rtol * abs(y)

    for row in r["runs"]:
        key = (row["file"], row["run"])
        c = by.get(key)
        if c is None:
            fails.append(f"{key}: not in the joules output")
            continue
        for k in ("steady_method", "energy_source"):
            if c.get(k) != row.get(k):
                fails.append(f"{key}: {k} {c.get(k)!r} vs {row.get(k)!r}")
        for f in figs:
            x, y = c.get(f), row.get(f)
            values += 1
            if isinstance(x, list) or isinstance(y, list):
                ok = (isinstance(x, list) and isinstance(y, list) and len(x) == len(y)
                      and all(close(p, q) for p, q in zip(x, y)))
            else:
                ok = close(x, y)
            if not ok:
                fails.append(f"{key}: {f} joules {x!r} reference {y!r}")
    if r.get("errors"):
        fails.append(f"the reference could not read {len(r['errors'])} runs")
    for m in fails[:20]:
        print("FAIL", m)
    word = "agree" if not fails and r["runs"] else "DISAGREE"
    print(f"{word} {len(r['runs'])} runs, {values} values, {len(fails)} failures, "
          f"max rel diff {worst:.1e}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
