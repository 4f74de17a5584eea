#!/usr/bin/env python3
"""The Python module's benchmark (docs/performance.md, "The Python
module"): ratios measured in one run, repeated and interleaved (CLI,
module, reference, CLI, module, reference, ...) so that other load hits
all alike; medians of wall time. Not a test: nothing here asserts a time.

  1. joules.summarize(SET) against `joules summarize --csv - SET` (the
     CLI's time as a user sees it, process start included; and against
     `--json`, which hashes the inputs for its provenance as the module's
     frame does): target module / CLI <= 1.10;
  2. against the h5py/numpy reference (tests/reference/summary_ref.py,
     the independent implementation a numpy notebook would be) in the
     same process, building the same DataFrame: target reference /
     module >= 5;
  3. Run.power() of a 10^7-sample run (written by joules.TraceWriter
     here): one call, no Python loop; against h5py reading the same two
     datasets.

    PYTHONPATH=build/python python3 tests/perf/python_bench.py --joules build/joules \\
        --set /tmp/joules-bench/sets-full/study-gzip [--repeat 5] [--workers 1]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "reference"))

import joules  # noqa: E402
import summary_ref  # noqa: E402


def h5_files(d):
    out = []
    for root, dirs, files in os.walk(d):
        out += [os.path.join(root, f) for f in files if f.endswith(".h5")]
    return sorted(out)


def reference_frame(files):
    import h5py
    import pandas as pd

    rows = []
    for path in files:
        with h5py.File(path, "r") as f:
            for name in sorted(f["runs"].keys()):
                r = summary_ref.summarize(path, name, f["runs"][name])
                row = {"file": r["file"], "run": r["run"], "steady_method": r["steady_method"]}
                row.update(r["figures"])
                rows.append(row)
    return pd.DataFrame(rows)


def cpu():
    import resource

    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


CPU = {}


def timed(fn, key=None):
    """Wall seconds of fn() (and, under key, its CPU seconds: this process
    and the children it waited for: the CLI, the study's workers)."""
    c0, t0 = cpu(), time.perf_counter()
    out = fn()
    dt = time.perf_counter() - t0
    if key:
        CPU.setdefault(key, []).append(cpu() - c0)
    return dt, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--joules", default=os.path.join(ROOT, "build", "joules"))
    ap.add_argument("--set", required=True)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--no-reference", action="store_true")
    ap.add_argument("--power-samples", type=int, default=10_000_000)
    a = ap.parse_args()
    files = h5_files(a.set)
    w = ["--workers", str(a.workers)] if a.workers > 1 else []
    t = {"cli": [], "cli_json": [], "module": [], "reference": []}
    n_runs = None
    for rep in range(a.repeat):
        dt, p = timed(lambda: subprocess.run([a.joules, "summarize", "--csv", "-"] + w + [a.set],
                                             capture_output=True, check=True), "cli")
        t["cli"].append(dt)
        dt, p = timed(lambda: subprocess.run([a.joules, "summarize", "--json"] + w + [a.set],
                                             capture_output=True, check=True), "cli_json")
        t["cli_json"].append(dt)
        dt, df = timed(lambda: joules.summarize(a.set, workers=a.workers), "module")
        t["module"].append(dt)
        n_runs = len(df)
        if not a.no_reference:
            dt, ref = timed(lambda: reference_frame(files), "reference")
            t["reference"].append(dt)
            if rep == 0:
                common = [c for c in ref.columns if c in df.columns and c not in ("file", "run", "steady_method")]
                worst = max(float(np.nanmax(np.abs(df[c].to_numpy(float) - ref[c].to_numpy(float)) /
                                            np.maximum(np.abs(ref[c].to_numpy(float)), 1e-300)))
                            if np.isfinite(ref[c].to_numpy(float)).any() else 0.0 for c in common)
                print("reference agrees to %.2g (relative, worst of %d figures)" % (worst, len(common)), flush=True)
        print("rep %d: wall (CPU) cli %.3f (%.3f) s, module %.3f (%.3f) s%s" % (
            rep + 1, t["cli"][-1], CPU["cli"][-1], t["module"][-1], CPU["module"][-1],
            ", reference %.3f (%.3f) s" % (t["reference"][-1], CPU["reference"][-1]) if t["reference"] else ""),
            flush=True)
    med = {k: statistics.median(v) for k, v in t.items() if v}
    out = {"set": a.set, "files": len(files), "runs": n_runs, "repeat": a.repeat, "workers": a.workers,
           "median_s": med, "module_over_cli": med["module"] / med["cli"]}
    cmed = {k: statistics.median(v) for k, v in CPU.items()}
    out["median_cpu_s"] = cmed
    out["cpu_module_over_cli"] = cmed["module"] / cmed["cli"]
    out["module_over_cli_json"] = med["module"] / med["cli_json"]
    out["cpu_module_over_cli_json"] = cmed["module"] / cmed["cli_json"]
    if "reference" in med:
        out["reference_over_module"] = med["reference"] / med["module"]
        out["cpu_reference_over_module"] = cmed["reference"] / cmed["module"]
    # Run.power() of a long run
    with tempfile.TemporaryDirectory(prefix="joules-pybench-") as tmp:
        path = os.path.join(tmp, "long.h5")
        n, piece = a.power_samples, 1_000_000
        with joules.TraceWriter(path) as tw:
            tw.begin_run("long", workload="llm", model="m", task="chat", gpu_model="H100", num_gpus=1,
                         precision="bfloat16", max_batch_size=64)
            for k in range(0, n, piece):
                tt = np.arange(k, min(n, k + piece), dtype=np.float64) * 1e-3
                tw.power(tt, watts=300 + 50 * np.sin(tt))
            tw.end_run()
        tr = joules.open(path)
        run = tr.runs[0]
        pw, h5 = [], []
        import h5py

        for rep in range(a.repeat):
            dt, (tm, wt) = timed(run.power)
            pw.append(dt)
            assert tm.shape == (n,) and wt.shape == (n,)

            def read_h5():
                with h5py.File(path, "r") as f:
                    return f["runs/long/power/time"][()], f["runs/long/power/watts"][()][:, 0].astype(np.float64)

            dt, _ = timed(read_h5)
            h5.append(dt)
        out["power"] = {"samples": n, "median_s": statistics.median(pw), "h5py_median_s": statistics.median(h5),
                        "h5py_over_module": statistics.median(h5) / statistics.median(pw)}
    out["loadavg"] = os.getloadavg()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
