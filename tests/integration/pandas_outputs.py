"""The outputs people load in one line (issue 14, part 4), loaded the way
they would: pandas.read_json(lines=True) on every command's --jsonl,
pandas.read_csv on summarize --csv with joules' and the ML.ENERGY data
toolkit's names. Checks rows, columns, names and unit conversions against
the same command's --json document.

usage: pandas_outputs.py --joules JOULES (--traces DIR | --mlenergy DIR)
Exit 77 (skip) when pandas is missing."""
import argparse
import io
import json
import math
import os
import subprocess
import sys
import tempfile

try:
    import pandas as pd
except ImportError:
    print("SKIP: pandas is not installed")
    sys.exit(77)

FAIL = []


def check(cond, what):
    if not cond:
        FAIL.append(what)
        print("FAIL:", what)


def run(joules, *args):
    r = subprocess.run([joules, *args], capture_output=True, text=True)
    if r.returncode not in (0, 1):
        raise SystemExit(f"joules {' '.join(args)}: exit {r.returncode}: {r.stderr}")
    return r.stdout


def same(a, b):
    if a is None or (isinstance(a, float) and math.isnan(a)):
        return b is None or (isinstance(b, float) and math.isnan(b))
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def mlenergy_part(j, mlenergy):
    """The ML.ENERGY data set imported and loaded with the toolkit's names
    (its own ctest, pandas_outputs_mlenergy: skipped where the data is absent)."""
    if not os.path.isdir(mlenergy):
        print(f"SKIP: {mlenergy} is missing (public data beside the checkout, never committed)")
        sys.exit(77)
    with tempfile.TemporaryDirectory() as d:
        h5 = os.path.join(d, "mle.h5")
        subprocess.run([j, "import", "mlenergy", mlenergy, "-o", h5], check=True,
                       capture_output=True)
        mc = os.path.join(d, "mle.csv")
        run(j, "summarize", "--csv", mc, "--names", "mlenergy", h5)
        m = pd.read_csv(mc, low_memory=False)
        for col in ("nickname", "source", "tensor_parallel", "max_num_seqs"):
            check(col in m.columns and m[col].notna().any(), f"ML.ENERGY import: column {col}")
        # notebooks written against the toolkit: the best GPQA run by energy per token
        g = m[m["task"] == "gpqa"]
        best = g.loc[g["energy_per_token_joules"].idxmin()]
        check(best["energy_per_token_joules"] > 0, "ML.ENERGY: a GPQA minimum")
        print(f"ok: ML.ENERGY import, {len(m)} runs; GPQA minimum {best['nickname']} "
              f"{best['energy_per_token_joules']:.4f} J/token on {best['gpu_model']}")
    if FAIL:
        sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--joules", required=True)
    ap.add_argument("--traces")
    ap.add_argument("--mlenergy")
    a = ap.parse_args()
    if a.mlenergy:
        mlenergy_part(a.joules, a.mlenergy)
        return
    j, t = a.joules, a.traces
    slo = "median_itl<=100ms"
    # every command with rows: --jsonl has exactly the document's rows
    cases = [
        (["summarize"], "runs", None),
        (["check"], "runs", None),
        (["diagnose"], "runs", None),
        (["frontier"], "frontiers", "points"),
        (["pick", "--slo", slo], "picks", None),
        (["compare", "--by", "gpu_model", "--baseline", "H100", "--slo", slo], "comparisons", None),
        (["capacity", "--power-budget", "1e6", "--slo", slo], "entries", None),
        (["fit"], "groups", "points"),
    ]
    for args, key, sub in cases:
        doc = json.loads(run(j, *args, "--json", t))
        rows = doc[key] if not sub else [r for g in doc[key] for r in g[sub]]
        df = pd.read_json(io.StringIO(run(j, *args, "--jsonl", t)), lines=True)
        check(len(df) == len(rows), f"{args[0]} --jsonl: {len(df)} rows, the document has {len(rows)}")
        check(len(df) > 0, f"{args[0]} --jsonl: no rows")
        if sub:  # nested rows carry their parent's scalar fields
            for col in ("model", "task"):
                check(col in df.columns, f"{args[0]} --jsonl: no '{col}' column")
    # summarize --jsonl = the runs of --json, value for value
    doc = json.loads(run(j, "summarize", "--json", t))
    df = pd.read_json(io.StringIO(run(j, "summarize", "--jsonl", t)), lines=True)
    for i, r in enumerate(doc["runs"]):
        for k in ("energy_per_token_j", "energy_per_item_j", "median_itl_s", "avg_power_w"):
            v = df[k].iloc[i]
            check(same(r[k], None if pd.isna(v) else float(v)), f"summarize --jsonl row {i} {k}")
    # CSV: every attribute, extra ones included, is a column
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "runs.csv")
        run(j, "summarize", "--csv", p, t)
        csv = pd.read_csv(p)
        attrs = set()
        for r in doc["runs"]:
            attrs |= {k for k, v in r.items() if not isinstance(v, (list, dict))}
            attrs |= set(r.get("extra_attributes", {}))
        missing = sorted(attrs - set(csv.columns))
        check(not missing, f"summarize --csv lacks columns {missing}")
        check(len(csv) == len(doc["runs"]), "summarize --csv: one row per run")
        # the toolkit's names and units
        pm = os.path.join(d, "ml.csv")
        run(j, "summarize", "--csv", pm, "--names", "mlenergy", t)
        ml = pd.read_csv(pm)
        for col in ("model_id", "weight_precision", "max_num_seqs", "batch_size",
                    "energy_per_token_joules", "energy_per_generation_joules", "median_itl_ms",
                    "output_throughput_tokens_per_sec", "avg_power_watts"):
            check(col in ml.columns, f"--names mlenergy: no column {col}")
        for col in ("energy_per_token_j", "median_itl_s", "max_batch_size", "precision"):
            check(col not in ml.columns, f"--names mlenergy: column {col} still there")
        for i in range(len(csv)):
            if not pd.isna(csv["median_itl_s"].iloc[i]):
                check(same(1000 * csv["median_itl_s"].iloc[i], ml["median_itl_ms"].iloc[i]),
                      f"row {i}: median_itl_ms = 1000 x median_itl_s")
            dif = csv["workload"].iloc[i] == "diffusion"
            col = "batch_size" if dif else "max_num_seqs"
            other = "max_num_seqs" if dif else "batch_size"
            check(ml[col].iloc[i] == csv["max_batch_size"].iloc[i] and pd.isna(ml[other].iloc[i]),
                  f"row {i}: the cap under {col} only")
        # the same names in --jsonl
        mj = pd.read_json(io.StringIO(run(j, "summarize", "--jsonl", "--names", "mlenergy", t)), lines=True)
        check("energy_per_token_joules" in mj.columns and "extra_attributes" not in mj.columns,
              "--jsonl --names mlenergy: toolkit names, extra attributes lifted")
    if FAIL:
        sys.exit(1)
    print("ok: --jsonl of 8 commands, summarize CSV columns, --names mlenergy")


if __name__ == "__main__":
    main()
