"""joules import nvidia-smi with the public vLLM result files of the corpus
(shared/realworld/public-corpus/vllm-bench: benchmark_serving.py results
written before vLLM saved start_times; PROVENANCE.md there). No public
repository pairs such a file with a power log of the same run, so a
one-GPU log over the file's duration is written here at test time (a
ramp, then a steady 400 W); the checks are about what the file gives:

- the file is read, not refused; requests/ is left out (arrivals unknown)
  and @requests_clock says "unknown";
- itl/seconds holds every ITL sample of the file, exactly (float32);
- summary/ holds the client's counts and rates, recomputed here from the
  per-request arrays;
- energy per token = the run's average power / the file's output rate."""
import glob
import json
import math
import os
import subprocess
import sys

import h5py
import numpy as np

joules, shared, work = sys.argv[1:4]
root = os.path.join(shared, "realworld", "public-corpus", "vllm-bench")
files = sorted(glob.glob(os.path.join(root, "*", "*.json")))
if not files:
    print(f"SKIP: {root} missing")
    sys.exit(77)
os.makedirs(work, exist_ok=True)
failures = []

for path in files:
    d = json.load(open(path))
    name = os.path.basename(os.path.dirname(path))
    dur = float(d["duration"])
    log = os.path.join(work, name + ".csv")
    with open(log, "w") as f:  # 10 Hz, 2026/11/23 10:00:00 UTC on
        f.write("timestamp, name, power.draw [W]\n")
        for i in range(int(dur * 10) + 11):
            t = i / 10
            w = 100 + 300 * min(t / 5, 1)
            f.write(f"2026/11/23 {10 + int(t // 3600):02d}:{int(t % 3600 // 60):02d}:"
                    f"{t % 60:06.3f}, NVIDIA H100 80GB HBM3, {w:.2f} W\n")
    runs = os.path.join(work, name + "-runs.csv")
    start = 1795428000.0
    with open(runs, "w") as f:
        f.write("run,start,end,workload,task,precision,max_batch_size,requests\n")
        f.write(f"r,{start:.3f},{start + dur:.3f},llm,chat,bf16,256,{path}\n")
    h5 = os.path.join(work, name + ".h5")
    p = subprocess.run([joules, "import", "nvidia-smi", log, "--runs", runs, "--timezone", "UTC",
                        "-o", h5, "--force", "--json"], capture_output=True, text=True)
    if p.returncode != 0:
        failures.append(f"{name}: import failed: {p.stderr}")
        continue
    ok = [e == "" for e in d["errors"]]
    out = sum(n for n, k in zip(d["output_lens"], ok) if k)
    rate = out / dur
    with h5py.File(h5) as h:
        g = h["runs/r"]
        checks = {
            "no requests/": "requests" not in g,
            "clock unknown": str(g.attrs["requests_clock"]).startswith("unknown"),
            "model from model_id": g.attrs["model"] == d["model_id"],
            "itl samples exact": np.array_equal(
                g["itl/seconds"][:], np.array([x for l in d["itls"] for x in l], np.float32)),
            "completed": int(g["summary"].attrs["completed_requests"]) == sum(ok),
            "output rate": abs(g["summary"].attrs["output_throughput_tok_s"] - rate) <= 1e-9 * rate,
        }
    s = subprocess.run([joules, "summarize", "--json", h5], capture_output=True, text=True)
    fig = json.loads(s.stdout)["runs"][0]
    e = fig["energy_per_token_j"]
    checks["energy per token"] = e is not None and abs(e - fig["avg_power_w"] / rate) <= 1e-9 * e
    ttft = sorted(t for t, k in zip(d["ttfts"], ok) if k)
    checks["ttft median"] = abs(fig["ttft_median_s"] - float(np.percentile(ttft, 50))) < 1e-12
    for what, good in checks.items():
        if not good:
            failures.append(f"{name}: {what}")
    print(f"{name}: {len(d['input_lens'])} requests, {sum(len(l) for l in d['itls'])} ITL samples, "
          f"{rate:.2f} tokens/s, {e:.4f} J/token over the run, median TTFT "
          f"{fig['ttft_median_s'] * 1000:.1f} ms, checks {'ok' if all(checks.values()) else 'FAIL'}")

for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
