#!/usr/bin/env python3
"""`--runs auto` and the idle power from the log, on real data
(shared/realworld/nvidia-smi-h100, read in place, never copied): the
nvidia-smi log of three runs on an H100, whose true windows are the NVML
trace's runs (@start_time_unix + power/time span).

1. `--runs auto` without the required attributes writes auto.runs.csv (beside -o auto.h5) and
   exits non-zero naming the columns to fill and the command to re-run.
2. Each auto window is compared with the true one: start and end within
   1 s, the run's energy within 3 %.
3. The auto RUNS.csv filled (model, task, ..., the trace's requests as a
   vLLM result JSON, placed at the same wall-clock time) gives energy per
   token within 2 % of the true windows' (printed: the difference).
4. The idle power taken from the log's idle stretches is within 5 % of the
   harness's own @gpu_idle_power_w (measured before each run).

Exit 77 (ctest SKIP) when the data is absent.
    auto_realdata.py --joules BUILD/joules --shared ../shared --out DIR
"""
import argparse
import csv
import datetime
import json
import os
import shlex
import subprocess
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--joules", required=True)
ap.add_argument("--shared", required=True)
ap.add_argument("--out", required=True)
a = ap.parse_args()
d = os.path.join(a.shared, "realworld", "nvidia-smi-h100")
log = os.path.join(d, "nvidia-smi-100ms.csv")
trace = os.path.join(d, "h100-qwen3-8b-shape-chat-nvml.h5")
if not (os.path.isfile(log) and os.path.isfile(trace)):
    print(f"SKIP: {d} (nvidia-smi-100ms.csv + the NVML trace) missing")
    sys.exit(77)
import h5py  # noqa: E402

out = a.out
os.makedirs(out, exist_ok=True)
fail = 0


def bad(msg):
    global fail
    print("FAIL: " + msg)
    fail = 1


def iso(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


true = {}  # name -> (start, end, attrs, first request offset from the true start)
with h5py.File(trace, "r") as f:
    for name, r in f["runs"].items():
        t = r["power/time"][:]
        s = float(r.attrs["start_time_unix"])
        arr = r["requests/arrival"][:]
        ft = r["requests/first_token"][:]
        req, sec = r["itl/request"][:], r["itl/seconds"][:]
        itls = [[] for _ in arr]
        for q, x in zip(req, sec):
            itls[int(q)].append(float(x))
        doc = {"model_id": r.attrs["model"], "max_concurrency": int(r.attrs["max_batch_size"]),
               "input_lens": [int(x) for x in r["requests/input_tokens"][:]],
               "output_lens": [int(x) for x in r["requests/output_tokens"][:]],
               "ttfts": [float(b - c) for b, c in zip(ft, arr)], "itls": itls,
               "start_times": [float(x) + 5000.0 for x in arr], "errors": ["" for _ in arr]}
        with open(os.path.join(out, f"{name}.json"), "w") as j:
            json.dump(doc, j)
        attrs = {k: (r.attrs[k].decode() if isinstance(r.attrs[k], bytes) else r.attrs[k])
                 for k in ("model", "task", "precision", "max_batch_size", "gpu_idle_power_w")}
        true[name] = (s + t[0], s + t[-1], attrs, float(arr.min()) - float(t[0]))
names = sorted(true, key=lambda n: true[n][0])

# 1. no attributes: auto.runs.csv written, an error naming the columns and the command
auto_csv = os.path.join(out, "auto.runs.csv")
h5 = os.path.join(out, "auto.h5")
for stale in (auto_csv, h5):
    if os.path.exists(stale):
        os.remove(stale)
p = subprocess.run([a.joules, "import", "nvidia-smi", log, "--runs", "auto", "--timezone", "UTC",
                    "-o", h5], capture_output=True, text=True)
print(p.stderr.strip())
if p.returncode == 0 or os.path.exists(h5):
    bad("--runs auto without model/task/precision/max_batch_size imported")
for col in ("workload", "model", "task", "precision", "max_batch_size"):
    if col not in p.stderr:
        bad(f"the error does not name the column {col}")
rerun = [ln.strip() for ln in p.stderr.splitlines() if ln.strip().startswith("joules import nvidia-smi")]
if not rerun or f"--runs {auto_csv}" not in rerun[0] or f"-o {h5}" not in rerun[0]:
    bad(f"no re-run command with --runs {auto_csv} -o {h5}: {rerun}")
if "rises to" not in p.stderr or "falls below" not in p.stderr:
    bad("the thresholds are not printed")
with open(auto_csv) as fh:
    rows = list(csv.DictReader(fh))
if [c for c in rows[0]] != ["run", "start", "end", "gpus", "workload", "model", "task",
                            "precision", "max_batch_size", "requests", "requests_offset"]:
    bad(f"auto.runs.csv columns: {list(rows[0])}")
if len(rows) != len(true):
    bad(f"{len(rows)} auto runs, {len(true)} true ones")
    sys.exit(1)

# 2. windows against the true ones
print("true run  auto run  start error s  end error s")
for name, row in zip(names, rows):
    s0, e0 = true[name][:2]
    s1, e1 = iso(row["start"]), iso(row["end"])
    print(f"{name}     {row['run']}    {s1 - s0:+.3f}        {e1 - e0:+.3f}")
    if abs(s1 - s0) > 1.0 or abs(e1 - e0) > 1.0:
        bad(f"{row['run']}: window {s1 - s0:+.3f} / {e1 - e0:+.3f} s off {name}'s")

# 3. both RUNS.csv filled alike (the requests at the same wall-clock time): energy per token
cols = "run,start,end,gpus,workload,model,task,precision,max_batch_size,requests,requests_offset"
true_csv, filled = os.path.join(out, "runs-true.csv"), os.path.join(out, "runs-auto-filled.csv")
with open(true_csv, "w") as t_out, open(filled, "w") as a_out:
    t_out.write(cols + "\n")
    a_out.write(cols + "\n")
    for name, row in zip(names, rows):
        s0, e0, at, off = true[name]
        s1, e1 = iso(row["start"]), iso(row["end"])
        rest = (f",llm,{at['model']},{at['task']},{at['precision']},{at['max_batch_size']},"
                f"{name}.json")
        t_out.write(f"{name},{s0:.6f},{e0:.6f},{rest},{off:.6f}\n")
        a_out.write(f"{name},{row['start']},{row['end']},{rest},{off + s0 - s1:.6f}\n")


def imp_sum(runs, path):
    p = subprocess.run([a.joules, "import", "nvidia-smi", log, "--runs", runs, "--timezone",
                        "UTC", "-o", path, "--force", "--quiet"], capture_output=True, text=True)
    if p.returncode != 0:
        print(p.stderr)
        sys.exit(1)
    p = subprocess.run([a.joules, "summarize", "--json", path], capture_output=True, text=True)
    return {r["run"]: r for r in json.loads(p.stdout)["runs"]}


st, sa = imp_sum(true_csv, os.path.join(out, "true.h5")), imp_sum(filled, h5)
print("run    energy true J  auto J   diff    J/token true  auto     diff    idle W log  harness")
for name in names:
    e0, e1 = st[name]["run_energy_j"], sa[name]["run_energy_j"]
    t0, t1 = st[name]["energy_per_token_j"], sa[name]["energy_per_token_j"]
    idle, ref = sa[name]["gpu_idle_power_w"], float(true[name][2]["gpu_idle_power_w"])
    print(f"{name}  {e0:10.1f}  {e1:9.1f}  {e1 / e0 - 1:+6.2%}  {t0:10.4f}  {t1:8.4f}  "
          f"{t1 / t0 - 1:+6.2%}  {idle:8.1f}  {ref:8.1f}")
    if abs(e1 / e0 - 1) > 0.03:
        bad(f"{name}: run energy {e1 / e0 - 1:+.2%} off the true window's (limit 3 %)")
    if abs(t1 / t0 - 1) > 0.02:
        bad(f"{name}: energy per token {t1 / t0 - 1:+.2%} off the true window's (limit 2 %)")
    # 4. idle from the log's idle stretches against the harness's own
    if not (abs(idle / ref - 1) <= 0.05):
        bad(f"{name}: gpu_idle_power_w {idle} from the log, the harness measured {ref:.1f}")

# 5. all attributes given: --runs auto imports at once (written as the log is read),
#    the same windows as the in-memory path (--sort)
one = [a.joules, "import", "nvidia-smi", log, "--runs", "auto", "--timezone", "UTC", "--force",
       "--quiet", "--set", "workload=llm", "--set", "model=Qwen3-8B", "--set", "task=chat",
       "--set", "precision=bfloat16", "--set", "max_batch_size=32"]
sums = []
for extra in ([], ["--sort"]):
    o = os.path.join(out, f"direct{len(extra)}.h5")
    p = subprocess.run(one + extra + ["-o", o, "--runs-out", os.path.join(out, "direct.csv")],
                       capture_output=True, text=True)
    if p.returncode != 0:
        bad(f"--runs auto with every attribute given: exit {p.returncode}: {p.stderr}")
        sys.exit(1)
    q = subprocess.run([a.joules, "summarize", "--json", o], capture_output=True, text=True)
    sums.append({r["run"]: (round(r["run_energy_j"], 6), r["gpu_idle_power_w"])
                 for r in json.loads(q.stdout)["runs"]})
print("direct import:", shlex.join(one[1:4] + ["..."]), sums[0])
if sums[0] != sums[1] or len(sums[0]) != len(true):
    bad(f"streamed and in-memory --runs auto differ: {sums}")
sys.exit(fail)
