"""device_compare.py — before and after on a quiet machine (docs/performance.md,
"Session 11"), run by tests/perf/device_run.sh CARRY OUT compare once both
trees are built: the binary of the tree before (--base) and of this one
(--new), interleaved round by round:

  A. the machine's cores (lscpu);
  B. each rank against the decode floor: CPU of summarize --json --workers 1
     over CPU of joules-perf-rawread --decode, both binaries;
  C. the notebook comparison: Python's json.load of the ML.ENERGY model
     files against import mlenergy, frontier, pick and compare (text and
     --json), wall and CPU;
  D. 2 ranks against 1 on the study set: on every core (Open MPI's binding
     and none) and on two cores (taskset -c 0,1), units on demand and the
     static shares.

Writes compare.json and compare.md in --out."""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import threading
import time

ap = argparse.ArgumentParser()
ap.add_argument("--base", required=True)  # build folder of the tree before
ap.add_argument("--new", required=True)
ap.add_argument("--src", required=True)
ap.add_argument("--work", required=True)
ap.add_argument("--out", required=True)
ap.add_argument("--mlenergy", required=True)
ap.add_argument("--deadline", type=float, default=time.time() + 120)
ap.add_argument("--floor-rounds", type=int, default=7)
ap.add_argument("--nb-rounds", type=int, default=15)
ap.add_argument("--study-files", type=int, default=400)
ap.add_argument("--mpi-rounds", type=int, default=5)
a = ap.parse_args()
T0 = time.time()
os.makedirs(a.out, exist_ok=True)
NCPU = os.cpu_count() or 1
R = {"skipped": []}
B = {"base": os.path.join(a.base, "joules"), "new": os.path.join(a.new, "joules")}
GEN = os.path.join(a.new, "tests/perf/joules-perf-gen")
RAW = os.path.join(a.new, "tests/perf/joules-perf-rawread")
H100 = [os.path.join(a.src, "traces/h100", f) for f in
        ("h100-qwen3-8b-shape-chat.h5", "h100-qwen3-1.7b-shape-chat.h5")]


def log(m):
    print(f"[{time.time() - T0:6.1f} s] {m}", file=sys.stderr, flush=True)


def run(cmd, env=None, out=subprocess.DEVNULL):
    e = dict(os.environ, **(env or {}))
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE, env=e)
    timer = threading.Timer(100, p.kill)
    timer.start()
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    timer.cancel()
    p.stderr.close()
    rc = os.waitstatus_to_exitcode(status)
    if rc not in (0, 1):
        log(f"FAIL {rc}: {' '.join(cmd)[:200]}: {err.decode(errors='replace')[-400:]}")
    return time.perf_counter() - t, ru.ru_utime + ru.ru_stime


def med(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])


def save():
    with open(os.path.join(a.out, "compare.json"), "w") as f:
        json.dump(R, f, indent=1, sort_keys=True)


def left(s):
    return a.deadline - time.time() > s


# ---- A
try:
    R["lscpu"] = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout
except (OSError, subprocess.SubprocessError):
    R["lscpu"] = open("/proc/cpuinfo").read()[:3000]
log("cores: " + " | ".join(l for l in R["lscpu"].splitlines()
                             if l.split(":")[0].strip() in ("CPU(s)", "Thread(s) per core", "Core(s) per socket",
                                                            "Socket(s)", "Model name", "NUMA node(s)")))

# ---- sets
D = os.path.join(a.work, "cmp")
shutil.rmtree(D, ignore_errors=True)
os.makedirs(D)
fl = os.path.join(D, "floor")
cmds = [[GEN, "tile", "--codec", c, "--files", "20", "--runs", "10"] + H100 +
        ["-o", os.path.join(fl, f"study-{c}"), "--prefix", f"study-{c}"] for c in ("zstd", "gzip")]
cmds += [[GEN, "synth", "--codec", c, "--files", "1", "--runs", "1", "--gpus", "8", "--requests", "100000",
          "--mean-output", "83", "--seed", "7", "-o", os.path.join(fl, f"long1-{c}"), "--prefix", f"long1-{c}"]
         for c in ("zstd", "gzip")]
cmds += [[GEN, "synth", "--codec", "zstd", "--files", "4", "--runs", "1", "--gpus", "8", "--requests", "100000",
          "--mean-output", "83", "--seed", "7", "-o", os.path.join(fl, "long4-zstd"), "--prefix", "long4-zstd"]]
study = os.path.join(D, "study")
jobs = min(NCPU, 16)
per = [a.study_files // jobs + (1 if k < a.study_files % jobs else 0) for k in range(jobs)]
cmds += [[GEN, "tile", "--codec", "zstd", "--files", str(n), "--runs", "10"] + H100 +
         ["-o", study, "--prefix", f"s{k:02d}"] for k, n in enumerate(per) if n]
ps = [subprocess.Popen(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for c in cmds]
for p in ps:
    p.wait()
for d in (fl, study):
    subprocess.run(["cat"] + glob.glob(os.path.join(d, "**", "*.h5"), recursive=True), stdout=subprocess.DEVNULL)
log("sets made")

# ---- B
sets = sorted(os.listdir(fl))
fr = {s: {"floor": [], "base": [], "new": []} for s in sets}
for rnd in range(a.floor_rounds):
    if not left(25):
        R["skipped"].append(f"floor rounds from {rnd + 1}")
        break
    for s in sets:
        p = os.path.join(fl, s)
        fr[s]["floor"].append(run([RAW, "--decode", p])[1])
        for b in ("base", "new"):
            fr[s][b].append(run([B[b], "summarize", "--json", "--workers", "1", p],
                                env={"SOURCE_DATE_EPOCH": "1"})[1])
R["floor"] = {}
for s, v in fr.items():
    if not v["floor"]:
        continue
    f = med(v["floor"])
    R["floor"][s] = {"rounds": len(v["floor"]), "floor_ms": 1e3 * f,
                     **{f"{b}_ms": 1e3 * med(v[b]) for b in ("base", "new")},
                     **{f"{b}_ratio": med(v[b]) / f for b in ("base", "new")},
                     **{f"{b}_median_ratio": med([x / y for x, y in zip(v[b], v["floor"])]) for b in ("base", "new")}}
log("floor: " + json.dumps(R["floor"]))
save()

# ---- C
M = os.path.join(D, "mle")
os.makedirs(M)
models = sorted(glob.glob(os.path.join(a.mlenergy, "models", "*.json")))
py = [sys.executable, "-c", "import json, sys; [json.load(open(f)) for f in sys.argv[1:]]"] + models
for b in ("base", "new"):
    run([B[b], "import", "mlenergy", a.mlenergy, "-o", os.path.join(M, f"{b}.h5"), "--quiet", "--force"])
steps = {"import": ["import", "mlenergy", a.mlenergy, "-o", "@OUT", "--quiet", "--force"],
         "frontier": ["frontier", "@H5"], "frontier_json": ["frontier", "--json", "@H5"],
         "pick": ["pick", "@H5"], "pick_json": ["pick", "--json", "@H5"],
         "compare": ["compare", "--by", "gpu_model", "--baseline", "H100", "@H5"],
         "compare_json": ["compare", "--by", "gpu_model", "--baseline", "H100", "--json", "@H5"]}
nb = {"json_load": {"wall": [], "cpu": []}}
for b in ("base", "new"):
    for k in steps:
        nb[f"{b}:{k}"] = {"wall": [], "cpu": []}
for rnd in range(a.nb_rounds):
    if not left(15):
        R["skipped"].append(f"notebook rounds from {rnd + 1}")
        break
    w, c = run(py)
    nb["json_load"]["wall"].append(w)
    nb["json_load"]["cpu"].append(c)
    for b in ("base", "new"):
        for k, args in steps.items():
            cmd = [B[b]] + [x.replace("@OUT", os.path.join(M, f"{b}-imp.h5")).replace("@H5", os.path.join(M, f"{b}.h5"))
                            for x in args]
            w, c = run(cmd, env={"SOURCE_DATE_EPOCH": "1"})
            nb[f"{b}:{k}"]["wall"].append(w)
            nb[f"{b}:{k}"]["cpu"].append(c)
if nb["json_load"]["wall"]:
    out = {k: {"wall_ms": 1e3 * med(v["wall"]), "cpu_ms": 1e3 * med(v["cpu"]), "rounds": len(v["wall"])}
           for k, v in nb.items()}
    jl_w, jl_c = out["json_load"]["wall_ms"], out["json_load"]["cpu_ms"]
    for b in ("base", "new"):
        g = lambda k, m: out[f"{b}:{k}"][m]
        for m, ref in (("wall_ms", jl_w), ("cpu_ms", jl_c)):
            pipe = g("import", m) + g("frontier_json", m) + g("pick_json", m) + g("compare_json", m)
            out[f"{b}:pipeline_over_json_load_{m[:-3]}"] = pipe / ref
            out[f"{b}:slowest_reader_over_json_load_{m[:-3]}"] = max(g(k, m) for k in ("frontier_json", "pick_json",
                                                                                         "compare_json")) / ref
            for k in ("frontier", "pick", "compare"):
                out[f"{b}:{k}_json_over_text_{m[:-3]}"] = g(k + "_json", m) / g(k, m)
    R["notebook"] = out
    log("notebook: " + json.dumps({k: v for k, v in out.items() if "over" in k}))
    save()

# ---- D
# 2 ranks against 1, on the whole machine and on two of its cores (taskset
# -c 0,1: the 2-core machine of issue 42's target, quiet), the units on
# demand and the static shares of session 10 (JOULES_MPI_STATIC=1) in the
# same rounds.
env = {"OMPI_MCA_rmaps_base_oversubscribe": "1", "SOURCE_DATE_EPOCH": "1", "JOULES_MPI_TIMES": "1"}
two = ["taskset", "-c", "0,1"]
variants = {"r1": ([], ["-n", "1"], {}), "r2": ([], ["-n", "2"], {}),
            "r2_bind_none": ([], ["-n", "2", "--bind-to", "none"], {}),
            "c2_r1": (two, ["-n", "1"], {}), "c2_r2": (two, ["-n", "2"], {}),
            "c2_r2_static": (two, ["-n", "2"], {"JOULES_MPI_STATIC": "1"})}
if not shutil.which("taskset") or NCPU < 2:
    R["skipped"].append("2-core rounds (no taskset or one CPU)")
    variants = {k: v for k, v in variants.items() if not k.startswith("c2_")}
st = {k: [] for k in variants}
for rnd in range(a.mpi_rounds):
    if not left(45):
        R["skipped"].append(f"2-rank rounds from {rnd + 1}")
        break
    for k, (pre, v, ev) in variants.items():
        st[k].append(run(pre + ["mpirun"] + v + ["-x", "LD_LIBRARY_PATH", "-x", "JOULES_MPI_STATIC",
                                                 B["new"], "summarize", "--json", study],
                         env=dict(env, JOULES_MPI_STATIC=ev.get("JOULES_MPI_STATIC", "")))[0])
if st["r1"]:
    R["binding"] = {}
    for k, v in st.items():
        if not v:
            continue
        base = st["c2_r1"] if k.startswith("c2_") else st["r1"]
        R["binding"][k] = {"wall_s": med(v), "walls": v, "speedup": med(base) / med(v),
                           "speedup_by_round": [x / y for x, y in zip(base, v)]}
    log("binding: " + json.dumps({k: round(v["speedup"], 3) for k, v in R["binding"].items()}))
save()

lines = ["# Before / after on the device", ""]
if "floor" in R:
    lines += ["| set | floor ms | before ms | after ms | before / floor | after / floor (median of rounds) |",
              "|---|---:|---:|---:|---:|---:|"]
    for s, v in R["floor"].items():
        lines.append(f"| {s} | {v['floor_ms']:.1f} | {v['base_ms']:.1f} | {v['new_ms']:.1f} | "
                     f"{v['base_ratio']:.2f}x ({v['base_median_ratio']:.2f}x) | "
                     f"{v['new_ratio']:.2f}x ({v['new_median_ratio']:.2f}x) |")
if "notebook" in R:
    lines += ["", "| notebook step | wall ms before / after | CPU ms before / after |", "|---|---:|---:|"]
    n = R["notebook"]
    lines.append(f"| json.load | {n['json_load']['wall_ms']:.1f} | {n['json_load']['cpu_ms']:.1f} |")
    for k in steps:
        lines.append(f"| {k} | {n['base:' + k]['wall_ms']:.1f} / {n['new:' + k]['wall_ms']:.1f} | "
                     f"{n['base:' + k]['cpu_ms']:.1f} / {n['new:' + k]['cpu_ms']:.1f} |")
    for k in sorted(x for x in n if "over" in x and x.startswith("new:")):
        lines.append(f"| {k[4:]} | {n['base:' + k[4:]]:.2f} -> {n[k]:.2f} | |")
if "binding" in R:
    lines += ["", "| 2 ranks (c2: on cores 0,1) | wall s | vs 1 rank | by round |", "|---|---:|---:|---|"]
    for k, v in R["binding"].items():
        lines.append(f"| {k} | {v['wall_s']:.3f} | {v['speedup']:.2f}x | "
                     + " ".join(f"{x:.2f}" for x in v["speedup_by_round"]) + " |")
if R["skipped"]:
    lines += ["", "Left out: " + "; ".join(R["skipped"])]
open(os.path.join(a.out, "compare.md"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
