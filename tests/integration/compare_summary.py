#!/usr/bin/env python3
"""Accuracy check of `joules summarize --json` against the independent numpy
reference (tests/reference/summary_ref.py) on real traces.

    compare_summary.py --joules PATH/joules --header include/joules/summary.h \
        [--rtol 1e-9] FILE.h5 ...

For every run of every file: the same window method and energy source, and
every figure of JL_FIGURE_TABLE equal within rtol (relative) or 1e-12
(absolute, for figures near zero); a figure the reference leaves out must be
null on the C side too. Files h5py cannot read (Zstandard without the
python3-hdf5plugin package) are instead compared with the C summary of the
file of the same name in another folder, which the traces README says holds
the same data: those must be identical. Exit 0 when everything agrees.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REF = os.path.join(HERE, "..", "reference", "summary_ref.py")


def figure_names(header):
    src = open(header).read()
    table = src[src.index("#define JL_FIGURE_TABLE"):src.index("typedef enum")]
    return re.findall(r"X\(\s*\w+\s*,\s*(\w+)\s*,", table)


def run_json(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.stderr.write(p.stderr)
        raise SystemExit(f"{cmd[0]} failed with exit status {p.returncode}")
    return json.loads(p.stdout)


def close(a, b, rtol, atol):
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return abs(a - b) <= atol + rtol * abs(b)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--joules", required=True)
    ap.add_argument("--header", required=True)
    ap.add_argument("--rtol", type=float, default=1e-9)
    ap.add_argument("--atol", type=float, default=1e-12)
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    figs = figure_names(args.header)
    files = sorted(args.files)

    c = run_json([args.joules, "summarize", "--json"] + files)
    ref = run_json([sys.executable, REF] + files)
    crow = {(r["file"], r["run"]): r for r in c["runs"]}
    failures, checked, worst = [], 0, {}

    for r in ref["runs"]:
        key = (r["file"], r["run"])
        cr = crow.get(key)
        if cr is None:
            failures.append(f"{key}: missing from joules output")
            continue
        for k in ("steady_method", "energy_source"):
            if cr.get(k) != r.get(k):
                failures.append(f"{key}: {k} joules {cr.get(k)!r} reference {r.get(k)!r}")
        for f in figs + ["gpu_energy_j", "gpu_avg_power_w"]:
            a, b = cr.get(f), r.get(f)
            if isinstance(b, list) or isinstance(a, list):
                ok = isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and all(
                    close(x, y, args.rtol, args.atol) for x, y in zip(a, b))
            else:
                ok = close(a, b, args.rtol, args.atol)
                if ok and a is not None and b not in (None, 0):
                    worst[f] = max(worst.get(f, 0.0), abs(a - b) / abs(b))
            checked += 1
            if not ok:
                failures.append(f"{key}: {f} joules {a!r} reference {b!r}")

    # Files the reference could not read: same-named twin, identical summary.
    by_base = {}
    for r in c["runs"]:
        by_base.setdefault((os.path.basename(r["file"]), r["run"]), []).append(r)
    for e in ref.get("errors", []):
        key = (e["file"], e["run"])
        twins = [t for t in by_base.get((os.path.basename(e["file"]), e["run"]), [])
                 if t["file"] != e["file"] and (t["file"], t["run"]) not in
                 {(x["file"], x["run"]) for x in ref.get("errors", [])}]
        cr = crow.get(key)
        if not twins or cr is None:
            failures.append(f"{key}: the reference cannot read it ({e['error']}) and there is no twin")
            continue
        tw = twins[0]
        for f in figs + ["gpu_energy_j", "gpu_avg_power_w", "steady_method", "energy_source"]:
            checked += 1
            if cr.get(f) != tw.get(f):
                failures.append(f"{key}: {f} {cr.get(f)!r} differs from {tw['file']}: {tw.get(f)!r}")
        print(f"note: {e['file']} {e['run']}: compared with {tw['file']} (identical data)")

    for f in sorted(worst):
        if worst[f] > 0:
            print(f"max relative difference {f}: {worst[f]:.2e}")
    print(f"{len(ref['runs'])} runs against the reference, {len(ref.get('errors', []))} by twin, "
          f"{checked} values checked, {len(failures)} failures")
    for m in failures:
        print("FAIL", m)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
