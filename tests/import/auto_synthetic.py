#!/usr/bin/env python3
"""nvidia-smi `--runs auto` and the idle power from the log's idle stretches
on logs made here with known steps (seeded noise, 10 Hz):

  steps       three runs at 300/420/540 W over an idle of 60 W (noise 2 W idle,
              15 W load): three auto windows within 0.15 s of the true edges,
              idle 60 W within 1 W, the runs file as the importer reads it
  dip         a run whose power falls to idle for 0.5 s mid-run stays one run;
              a 3 s fall splits it (two runs), as docs/import.md says
  b2b         two runs back to back at 300 W then 540 W, no idle between: one
              auto run (a level change is not cut), named in the doc
  flat        a log under load throughout: no run found, an error naming why
  two GPUs    idle 55 W and 65 W: the run's gpu_idle_power_w is their mean, 60
  idle rules  a RUNS.csv gpu_idle_power_w column and --set win over the log's
              (a note says which); runs that leave no idle stretch leave it
              missing (idle_power_w null) with a note saying so
  outputs     an existing runs file is kept without --force; --runs-out; -o X.h5 writes X.runs.csv (--each: one per input);
              the streamed import and the in-memory one (--sort) agree
    auto_synthetic.py --joules BUILD/joules --out DIR
"""
import argparse
import csv
import datetime
import json
import os
import random
import subprocess
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--joules", required=True)
ap.add_argument("--out", required=True)
a = ap.parse_args()
os.makedirs(a.out, exist_ok=True)
T0 = 1795472000.0  # 2026-11-23T21:33:20Z
SETS = ["--set", "workload=llm", "--set", "model=m", "--set", "task=chat", "--set",
        "precision=bfloat16", "--set", "max_batch_size=8"]
fail = 0


def bad(msg):
    global fail
    print("FAIL: " + msg)
    fail = 1


def write_log(name, segments, gpus=(0,), idle=None, seed=1, field="power.draw.instant"):
    """segments: (seconds, watts per GPU or None for idle); 10 Hz."""
    rng = random.Random(seed)
    idle = idle or [60.0] * len(gpus)
    path = os.path.join(a.out, name)
    t = T0
    with open(path, "w") as f:
        f.write(f"timestamp, index, name, {field} [W]\n")
        for dur, w in segments:
            for _ in range(int(round(dur * 10))):
                stamp = datetime.datetime.fromtimestamp(t, datetime.timezone.utc)
                s = stamp.strftime("%Y/%m/%d %H:%M:%S.") + f"{stamp.microsecond // 1000:03d}"
                for g in gpus:
                    x = idle[g] + rng.gauss(0, 2) if w is None else w + rng.gauss(0, 15)
                    f.write(f"{s}, {g}, NVIDIA H100 80GB HBM3, {x:.2f} W\n")
                t += 0.1
    return path


def truth(segments):
    """The true [start, end] of each load segment (Unix s)."""
    t, out = T0, []
    for dur, w in segments:
        if w is not None:
            out.append((t, t + dur))
        t += dur
    return out


def imp(log, *args, ok=True):
    h5 = os.path.join(a.out, os.path.basename(log) + ".h5")
    p = subprocess.run([a.joules, "import", "nvidia-smi", log, "--timezone", "UTC", "-o", h5,
                        "--force", *args], capture_output=True, text=True)
    if ok and p.returncode != 0:
        bad(f"{log} {args}: exit {p.returncode}: {p.stderr}")
        return p, {}
    runs = {}
    if p.returncode == 0:
        q = subprocess.run([a.joules, "summarize", "--json", h5], capture_output=True, text=True)
        runs = {r["run"]: r for r in json.loads(q.stdout)["runs"]}
    return p, runs


def auto_rows(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    iso = lambda s: datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
    return [(r["run"], iso(r["start"]), iso(r["end"]), r) for r in rows]


# steps: three runs, idle between, noise
steps = [(10, None), (20, 300), (8, None), (20, 420), (8, None), (20, 540), (10, None)]
log = write_log("steps.csv", steps)
ro = os.path.join(a.out, "steps.runs.csv")
p, runs = imp(log, "--runs", "auto", "--runs-out", ro, *SETS)
rows = auto_rows(ro)
for (s0, e0), (name, s1, e1, _) in zip(truth(steps), rows):
    print(f"steps {name}: start {s1 - s0:+.3f} s, end {e1 - e0:+.3f} s")
    if abs(s1 - s0) > 0.15 or abs(e1 - e0) > 0.15:
        bad(f"steps {name}: {s1 - s0:+.3f} / {e1 - e0:+.3f} s off the true edges")
if len(rows) != 3 or len(runs) != 3:
    bad(f"steps: {len(rows)} rows, {len(runs)} runs, expected 3")
for r in runs.values():
    if not abs(r["gpu_idle_power_w"] - 60) <= 1:
        bad(f"steps {r['run']}: gpu_idle_power_w {r['gpu_idle_power_w']}, true 60")
if "rises to" not in p.stderr or "falls below" not in p.stderr:
    bad("steps: thresholds not printed")
# the import document carries the thresholds
q = subprocess.run([a.joules, "import", "nvidia-smi", log, "--timezone", "UTC", "--runs", "auto",
                    "--runs-out", ro, "--force", "--json", "-o", os.path.join(a.out, "j.h5"),
                    *SETS], capture_output=True, text=True)
det = json.loads(q.stdout)["details"] if q.returncode == 0 else {}
if not (det.get("runs_auto_file") == ro and 57 < det.get("runs_auto_floor_w", 0) < 62 and
        det.get("runs_auto_floor_w") < det.get("runs_auto_fall_w") < det.get("runs_auto_rise_w")):
    bad(f"--json details: {det}")
# the file written is a RUNS.csv the importer reads (the same runs back)
p2, again = imp(log, "--runs", ro, *SETS)
if sorted(again) != sorted(runs):
    bad(f"steps: the runs file read back gives {sorted(again)}")

# dip: 0.5 s mid-run merged; 3 s split
for dip, want in ((0.5, 1), (3.0, 2)):
    seg = [(10, None), (10, 400), (dip, None), (10, 400), (10, None)]
    lg = write_log(f"dip{dip}.csv", seg, seed=2)
    rof = os.path.join(a.out, f"dip{dip}.runs.csv")
    imp(lg, "--runs", "auto", "--runs-out", rof, *SETS)
    got = auto_rows(rof)
    print(f"dip of {dip} s mid-run: {len(got)} run(s) " +
          ", ".join(f"{e - s:.1f} s" for _, s, e, _ in got))
    if len(got) != want:
        bad(f"a dip of {dip} s: {len(got)} runs, expected {want}")

# back to back, no idle between: one run
b2b = [(10, None), (15, 300), (15, 540), (10, None)]
lg = write_log("b2b.csv", b2b, seed=3)
rof = os.path.join(a.out, "b2b.runs.csv")
imp(lg, "--runs", "auto", "--runs-out", rof, *SETS)
got = auto_rows(rof)
print(f"back to back: {len(got)} run(s) " + ", ".join(f"{e - s:.1f} s" for _, s, e, _ in got))
if len(got) != 1:
    bad(f"back-to-back runs: {len(got)} auto runs (the doc says one)")

# flat: under load throughout
lg = write_log("flat.csv", [(60, 400)], seed=4)
p, _ = imp(lg, "--runs", "auto", "--runs-out", os.path.join(a.out, "flat.runs.csv"), *SETS,
           ok=False)
print("flat:", p.stderr.strip().splitlines()[0] if p.stderr.strip() else "(nothing)")
if p.returncode == 0 or "no run" not in p.stderr or "one level" not in p.stderr:
    bad(f"flat log: exit {p.returncode}, {p.stderr}")

# two GPUs: idle 55 and 65 W, the run's idle their mean
lg = write_log("two.csv", [(10, None), (20, 300), (10, None)], gpus=(0, 1), idle=[55, 65], seed=5)
p, runs = imp(lg, "--runs", "auto", "--runs-out", os.path.join(a.out, "two.runs.csv"), *SETS)
for r in runs.values():
    print(f"two GPUs: gpu_idle_power_w {r['gpu_idle_power_w']:.2f}, idle_power_w "
          f"{r['idle_power_w']:.2f}")
    if not abs(r["gpu_idle_power_w"] - 60) <= 1 or not abs(r["idle_power_w"] - 120) <= 2:
        bad(f"two GPUs: gpu_idle_power_w {r['gpu_idle_power_w']}, idle_power_w "
            f"{r['idle_power_w']}")
if len(runs) != 1:
    bad(f"two GPUs: {len(runs)} runs")

# runs on one GPU each (a gpus column): each GPU's idle judged against its own runs
part = os.path.join(a.out, "part.csv")
rng = random.Random(6)
with open(part, "w") as f:
    f.write("timestamp, index, name, power.draw.instant [W]\n")
    for i in range(700):
        t = T0 + 0.1 * i
        stamp = datetime.datetime.fromtimestamp(t, datetime.timezone.utc)
        s = stamp.strftime("%Y/%m/%d %H:%M:%S.") + f"{stamp.microsecond // 1000:03d}"
        for g, (lo, hi) in enumerate(((10, 30), (40, 60))):
            x = 400 if lo <= 0.1 * i < hi else 55 + 10 * g
            f.write(f"{s}, {g}, NVIDIA H100 80GB HBM3, {x + rng.gauss(0, 1):.2f} W\n")
rc = os.path.join(a.out, "part.runs.csv")
with open(rc, "w") as f:
    f.write(f"run,start,end,gpus\ng0,{T0 + 10},{T0 + 30},0\ng1,{T0 + 40},{T0 + 60},1\n")
p, runs = imp(part, "--runs", rc, *SETS)
idle = {k: v["gpu_idle_power_w"] for k, v in runs.items()}
print("runs on one GPU each: gpu_idle_power_w", idle)
if not (abs(idle.get("g0", 0) - 55) <= 1 and abs(idle.get("g1", 0) - 65) <= 1):
    bad(f"runs on one GPU each: {idle} (GPU 0 idles at 55 W, GPU 1 at 65 W)")

# idle rules with a RUNS.csv
rc = os.path.join(a.out, "idle.runs.csv")
(s0, e0), (s1, e1), (s2, e2) = truth(steps)
with open(rc, "w") as f:
    f.write("run,start,end,gpu_idle_power_w\n")
    f.write(f"r1,{s0},{e0},77\nr2,{s1},{e1},\nr3,{s2},{e2},\n")
p, runs = imp(log, "--runs", rc, *SETS)
if runs.get("r1", {}).get("gpu_idle_power_w") != 77 or \
        not abs(runs.get("r2", {}).get("gpu_idle_power_w", 0) - 60) <= 1:
    bad(f"RUNS.csv idle: {[(k, v['gpu_idle_power_w']) for k, v in runs.items()]}")
if "wins over" not in p.stderr:
    bad("RUNS.csv idle: no note saying which idle won")
p, runs = imp(log, "--runs", rc, *SETS, "--set", "gpu_idle_power_w=88")
if [v["gpu_idle_power_w"] for k, v in sorted(runs.items())] != [77, 88, 88]:
    bad(f"--set idle: {[(k, v['gpu_idle_power_w']) for k, v in sorted(runs.items())]}")
# no idle stretch: the runs cover the whole log
with open(rc, "w") as f:
    f.write(f"run,start,end\nall,{T0 - 1},{T0 + 200}\n")
p, runs = imp(log, "--runs", rc, *SETS)
r = runs.get("all", {})
if r.get("gpu_idle_power_w") is not None or r.get("idle_power_w") is not None or \
        "no usable idle stretch" not in p.stderr:
    bad(f"no idle stretch: gpu_idle_power_w {r.get('gpu_idle_power_w')}, {p.stderr}")
else:
    print("no idle stretch: gpu_idle_power_w left missing, note:",
          [ln for ln in p.stderr.splitlines() if "idle" in ln][0][:160])

# outputs: an existing file is kept without --force, replaced with it; streamed == in memory
ro2 = os.path.join(a.out, "keep.runs.csv")
with open(ro2, "w") as f:
    f.write("edited\n")
p = subprocess.run([a.joules, "import", "nvidia-smi", log, "--timezone", "UTC", "--runs", "auto",
                    "--runs-out", ro2, "-o", os.path.join(a.out, "keep.h5"), *SETS],
                   capture_output=True, text=True)
if p.returncode == 0 or open(ro2).read() != "edited\n" or "already exists" not in p.stderr:
    bad(f"an existing runs file was replaced without --force: {p.stderr}")
sums = []
for extra in ([], ["--sort"]):
    _, runs = imp(log, "--runs", "auto", "--runs-out", ro2, *SETS, *extra)
    sums.append({k: (round(v["run_energy_j"], 6), v["gpu_idle_power_w"]) for k, v in runs.items()})
if sums[0] != sums[1] or len(sums[0]) != 3:
    bad(f"streamed and in-memory differ: {sums}")
# the default place: -o x.h5 gives x.runs.csv
sub = os.path.join(a.out, "beside")
os.makedirs(sub, exist_ok=True)
p = subprocess.run([a.joules, "import", "nvidia-smi", log, "--timezone", "UTC", "--runs", "auto",
                    "-o", os.path.join(sub, "x.h5"), "--force"], capture_output=True, text=True)
if p.returncode == 0 or not os.path.exists(os.path.join(sub, "x.runs.csv")) or \
        os.path.exists(os.path.join(sub, "x.h5")):
    bad(f"without attributes: exit {p.returncode}, x.runs.csv beside -o x.h5? {os.listdir(sub)}")
# --each: one runs file per input, beside its trace
each = os.path.join(a.out, "each")
lg2 = write_log("steps2.csv", steps, seed=9)
p = subprocess.run([a.joules, "import", "nvidia-smi", log, lg2, "--each", "-o", each, "--force",
                    "--timezone", "UTC", "--runs", "auto", "--quiet", *SETS],
                   capture_output=True, text=True)
got = sorted(os.listdir(each)) if os.path.isdir(each) else []
print("--each:", got)
if p.returncode != 0 or got != ["steps.h5", "steps.runs.csv", "steps2.h5", "steps2.runs.csv"]:
    bad(f"--each --runs auto: exit {p.returncode}, {got}, {p.stderr}")
sys.exit(fail)
