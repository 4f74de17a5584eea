"""joules import prometheus on realistic DCGM exporter data made here (never
committed): a 10-minute fleet excerpt of 2 hosts x 2 H100s scraped every
15 s, as Prometheus' query_range API returns it (one file per metric, labels
as dcgm-exporter 3.x and Kubernetes write them) and as a text scrape archive
(the exposition format with timestamps). Checked against figures computed
here from the same samples:
  - --runs-by pod: one run per pod on its GPUs, energy = the counter's
    increase over the pod's span (to 1e-9), power from the trapezoid;
  - RUNS.csv: a window between samples, energy interpolated to its edges
    exactly (not cut to the samples inside);
  - the text archive gives the same summaries as the JSON;
  - mistakes are errors naming file, line and what is wrong: a failed
    query, a sample without its timestamp, time going backwards, a run
    without its required attributes (no placeholder), neither --runs nor
    --runs-by."""
import json
import math
import os
import subprocess
import sys

joules, work = sys.argv[1:3]
os.makedirs(work, exist_ok=True)
T0, STEP = 1764230400.0, 15.0
SET = ["--set", "workload=llm", "--set", "model=org/m", "--set", "task=chat",
       "--set", "precision=bfloat16", "--set", "max_batch_size=64"]
fails = 0


def bad(msg):
    global fails
    fails += 1
    print("FAIL:", msg)


def power(h, g, t):
    return 120 + 300 * (0.5 + 0.5 * math.sin((t + h * 7 + g * 3) / 50.0))


gpus = []  # (labels, times)
for h in (1, 2):
    for g in (0, 1):
        lab = {"gpu": str(g), "UUID": f"GPU-{h}{g}0e7c-51a2", "device": f"nvidia{g}",
               "modelName": "NVIDIA H100 80GB HBM3", "Hostname": f"node{h}",
               "DCGM_FI_DRIVER_VERSION": "580.65.06", "instance": f"10.0.0.{h}:9400",
               "job": "dcgm-exporter"}
        if h == 1:
            lab.update(pod="vllm-a-7d9f", namespace="serve", container="vllm")
            span = (0, 300)
        elif g == 0:
            lab.update(pod="vllm-b-55c1", namespace="serve", container="vllm")
            span = (60, 540)
        else:
            span = (0, 600)
        ts = [T0 + k * STEP for k in range(41) if span[0] <= k * STEP <= span[1]]
        gpus.append((lab, ts, h, g))


def series(name, fn):
    out = []
    for lab, ts, h, g in gpus:
        out.append({"metric": dict(lab, __name__=name), "values": [[t, fn(h, g, ts, i)] for i, t in enumerate(ts)]})
    return out


def energy_mj(h, g, ts, i):
    e = 4.2e9
    for k in range(1, i + 1):
        e += 0.5 * (power(h, g, ts[k - 1] - T0) + power(h, g, ts[k] - T0)) * STEP * 1000
    return str(int(round(e)))


results = {
    "DCGM_FI_DEV_POWER_USAGE": series("DCGM_FI_DEV_POWER_USAGE", lambda h, g, ts, i: f"{power(h, g, ts[i] - T0):.3f}"),
    "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION": series("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", energy_mj),
    "DCGM_FI_DEV_GPU_UTIL": series("DCGM_FI_DEV_GPU_UTIL", lambda h, g, ts, i: str(50 + i % 40)),
    "DCGM_FI_DEV_FB_USED": series("DCGM_FI_DEV_FB_USED", lambda h, g, ts, i: "71234"),
}
files = []
for name, res in results.items():
    f = os.path.join(work, name + ".json")
    json.dump({"status": "success", "data": {"resultType": "matrix", "result": res}}, open(f, "w"))
    files.append(f)
# the same as a scrape archive: one scrape per time, every series
scrapes = {}
for name, res in results.items():
    for s in res:
        lab = ",".join(f'{k}="{v}"' for k, v in s["metric"].items() if k != "__name__")
        for t, v in s["values"]:
            scrapes.setdefault(t, []).append(f"{name}{{{lab}}} {v} {int(round(t * 1000))}")
archive = os.path.join(work, "scrapes.prom")
with open(archive, "w") as f:
    for t in sorted(scrapes):
        f.write("# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).\n# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n")
        f.write("\n".join(scrapes[t]) + "\n")


def run(args, expect=0):
    p = subprocess.run([joules] + args, capture_output=True, text=True)
    if p.returncode != expect:
        bad(f"joules {' '.join(args)}: exit {p.returncode}, expected {expect}: {p.stderr}")
    return p


def summaries(path):
    p = run(["summarize", "--jsonl", path])
    return {d["run"]: d for d in (json.loads(l) for l in p.stdout.splitlines())}


# --runs-by pod
out = os.path.join(work, "by-pod.h5")
run(["import", "prometheus"] + files + ["--runs-by", "pod", "-o", out, "--force"] + SET)
s = summaries(out)
if sorted(s) != ["vllm-a-7d9f", "vllm-b-55c1"]:
    bad(f"runs by pod: {sorted(s)}")
else:
    for pod, hosts in (("vllm-a-7d9f", [(1, 0), (1, 1)]), ("vllm-b-55c1", [(2, 0)])):
        want = 0
        for lab, ts, h, g in gpus:
            if (h, g) in hosts:
                want += (int(energy_mj(h, g, ts, len(ts) - 1)) - int(energy_mj(h, g, ts, 0))) / 1000
        got = s[pod]["run_energy_j"]
        if s[pod]["num_gpus"] != len(hosts) or s[pod]["gpu_model"] != "H100":
            bad(f"{pod}: {s[pod]['num_gpus']} x {s[pod]['gpu_model']}, expected {len(hosts)} x H100")
        if s[pod]["energy_source"] != "energy_counter":
            bad(f"{pod}: energy from {s[pod]['energy_source']}, expected the counter")
        if abs(got - want) > 1e-6 * want:
            bad(f"{pod}: energy {got} J, the counter's increase is {want} J")
        print(f"ok: {pod}: {s[pod]['num_gpus']} x H100, {got:.1f} J (counter increase {want:.1f} J)")

# the text archive: the same summaries
out2 = os.path.join(work, "by-pod-text.h5")
run(["import", "prometheus", archive, "--runs-by", "pod", "-o", out2, "--force"] + SET)
s2 = summaries(out2)
for pod in s:
    for k in ("run_energy_j", "gpu_energy_j", "avg_power_w", "peak_power_w", "num_gpus", "run_duration_s"):
        if s[pod].get(k) != s2.get(pod, {}).get(k):
            bad(f"text archive: {pod} {k} = {s2.get(pod, {}).get(k)}, JSON gives {s[pod].get(k)}")
print(f"ok: the scrape archive gives the JSON's summaries ({len(s2)} runs)")

# RUNS.csv: a window between samples, power only: energy interpolated to the edges
runs = os.path.join(work, "runs.csv")
a, b = T0 + 37.5, T0 + 201.0
with open(runs, "w") as f:
    f.write("run,start,end,gpus,model,task\n")
    f.write(f"w1,{a},{b},node1:GPU-100e7c-51a2;node1:GPU-110e7c-51a2,org/w,gpqa\n")
out3 = os.path.join(work, "runs.h5")
run(["import", "prometheus", files[0], "--runs", runs, "-o", out3, "--force"] + SET)
s3 = summaries(out3)


def trapz_window(h, g, lo, hi):
    ts = [T0 + k * STEP for k in range(21)]
    pts = [(t, power(h, g, t - T0)) for t in ts]
    def interp(x):
        for (t1, p1), (t2, p2) in zip(pts, pts[1:]):
            if t1 <= x <= t2:
                return p1 + (p2 - p1) * (x - t1) / (t2 - t1)
    xs = [lo] + [t for t, _ in pts if lo < t < hi] + [hi]
    ys = [interp(x) for x in xs]
    # the series as written (3 decimals)
    ys = [y for y in ys]
    return sum(0.5 * (ys[i] + ys[i + 1]) * (xs[i + 1] - xs[i]) for i in range(len(xs) - 1))


want = trapz_window(1, 0, a, b) + trapz_window(1, 1, a, b)
if "w1" not in s3:
    bad("RUNS.csv run w1 missing")
else:
    got = s3["w1"]["run_energy_j"]
    if abs(got - want) > 1e-4 * want:
        bad(f"w1: energy {got} J over [{a}, {b}], the trapezoid to the edges gives {want} J")
    if s3["w1"]["model"] != "org/w" or s3["w1"]["task"] != "gpqa":
        bad(f"w1: RUNS.csv's attributes not over --set: {s3['w1']['model']}, {s3['w1']['task']}")
    print(f"ok: RUNS.csv window {b - a:.1f} s between samples: {got:.2f} J (trapezoid to its edges {want:.2f} J)")

# mistakes
def refused(args, expect, *words):
    p = run(args, expect)
    for w in words:
        if w not in p.stderr:
            bad(f"joules {' '.join(args[:3])} ...: the message does not say '{w}': {p.stderr}")


err = os.path.join(work, "error.json")
json.dump({"status": "error", "errorType": "bad_data", "error": "invalid parameter \"query\""}, open(err, "w"))
refused(["import", "prometheus", err, "--runs-by", "pod", "-o", os.path.join(work, "x.h5")] + SET, 3,
        "error.json", "the query failed", "invalid parameter")
nots = os.path.join(work, "nots.prom")
open(nots, "w").write('# TYPE DCGM_FI_DEV_POWER_USAGE gauge\nDCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-1"} 250.5\n')
refused(["import", "prometheus", nots, "--runs-by", "pod", "-o", os.path.join(work, "x.h5")] + SET, 3,
        "nots.prom", "line 2", "timestamp", "/api/v1/query_range", "query=DCGM_FI_DEV_POWER_USAGE",
        "step=1s", "date +%s%3N")
# the scrape loop the message gives, its awk program run as printed on three
# scrapes of this file a second apart: the archive it makes imports
msg = run(["import", "prometheus", nots, "--runs-by", "pod", "-o", os.path.join(work, "x.h5")] + SET,
          3).stderr
awk_prog = msg.split("awk -v t=$(date +%s%3N) '", 1)[1].split("'", 1)[0]
arch = os.path.join(work, "loop.prom")
with open(arch, "w") as f:
    scrape = open(nots).read().replace('UUID="GPU-1"', 'UUID="GPU-1",pod="p"')
    for k in range(3):
        f.write(subprocess.run(["awk", "-v", f"t={1764230400000 + 1000 * k}", awk_prog],
                               input=scrape, capture_output=True, text=True, check=True).stdout)
p = run(["import", "prometheus", arch, "--runs-by", "pod", "-o", os.path.join(work, "loop.h5"),
         "--force", "--set", "gpu_model=H100"] + SET, 0)
if "3 samples" not in p.stdout:
    bad(f"the scrape loop's archive does not import its 3 samples: {p.stdout} {p.stderr}")
back = os.path.join(work, "back.prom")
open(back, "w").write('DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-1",pod="p"} 250 1764230415000\n'
                      'DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-1",pod="p"} 251 1764230400000\n')
refused(["import", "prometheus", back, "--runs-by", "pod", "-o", os.path.join(work, "x.h5")] + SET, 3,
        "back.prom", "line 2", "backwards")
refused(["import", "prometheus", files[0], "--runs-by", "pod", "-o", os.path.join(work, "x.h5")], 3,
        "vllm-a-7d9f", "model", "no placeholder")
refused(["import", "prometheus", files[0], "-o", os.path.join(work, "x.h5")] + SET, 2, "--runs-by")
# RUNS.csv is the kit's one reader (kit_runs.c), nvidia-smi's rules: a run
# named twice and nvidia-smi's own columns are errors naming file:line (a
# bad --runs file: exit 2, as a bad time in it always was)
twice = os.path.join(work, "twice.csv")
with open(twice, "w") as f:
    f.write(f"run,start,end\nw1,{a},{b}\nw1,{a},{b}\n")
refused(["import", "prometheus", files[0], "--runs", twice, "-o", os.path.join(work, "x.h5")] + SET, 2,
        "twice.csv:3", "named twice")
reqs = os.path.join(work, "reqs.csv")
with open(reqs, "w") as f:
    f.write(f"run,start,end,requests\nw1,{a},{b},w1.json\n")
refused(["import", "prometheus", files[0], "--runs", reqs, "-o", os.path.join(work, "x.h5")] + SET, 2,
        "reqs.csv", "requests", "nvidia-smi")
if os.path.exists(os.path.join(work, "x.h5")):
    bad("a refused import left x.h5")
print(f"prometheus: {'all checks passed' if not fails else str(fails) + ' failed'}")
sys.exit(1 if fails else 0)
