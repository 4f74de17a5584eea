"""device_scaling.py — joules past two cores (docs/scaling.md, "Session 11:
16 cores"), run by tests/perf/device_run.sh once joules is built:

  A. sets: the study set (tiled real H100 runs, Zstandard, 10 runs a file),
     the per-rank floor sets (study-zstd/gzip at the quick scale, one long
     run of 10^5 requests, four of them), a fleet day (joules-perf-genfleet:
     1,000 GPUs x 24 h of node-hour query_range answers, and its first 4 h
     linked apart) and scrape archives (16 node-days);
  B. each rank against the decode floor (CPU of joules summarize --json
     --workers 1 / CPU of joules-perf-rawread --decode), interleaved rounds;
  C. the study at 1, 2, 4, 8 and 16 ranks (and one process, and 2 ranks
     with the static shares), interleaved rounds: wall, speed-up, rank 0's
     serial part, each rank's share and units, peak RSS per rank; outputs
     compared with one process's;
  D. the fleet: import --each of the 4-hour set and summarize of its traces
     at each rank count; the whole day at the most ranks (its time, the
     energy against the generator's truth); the scrape archives;
  E. results.json and results.md in --out.

Wall and CPU from os.wait4 (CPU: user + system of the command and every
process it waited for). A deadline (--deadline, Unix seconds) leaves out
what would not fit, saying so."""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time

ap = argparse.ArgumentParser()
ap.add_argument("--build", required=True)
ap.add_argument("--src", required=True)
ap.add_argument("--work", required=True)
ap.add_argument("--out", required=True)
ap.add_argument("--scale", default="device")
ap.add_argument("--time", default="/usr/bin/time")
ap.add_argument("--deadline", type=float, default=time.time() + 420)
a = ap.parse_args()

J = os.path.join(a.build, "joules")
GEN = os.path.join(a.build, "tests/perf/joules-perf-gen")
RAW = os.path.join(a.build, "tests/perf/joules-perf-rawread")
GF = os.path.join(a.build, "tests/perf/joules-perf-genfleet")
NCPU = os.cpu_count() or 1
DEV = a.scale == "device"
RANKS = [n for n in (1, 2, 4, 8, 16) if n <= max(NCPU, 2)] if DEV else [1, 2]
STUDY_FILES = 800 if DEV else 40
ROUNDS = 3 if DEV else 2
FLOOR_ROUNDS = 5 if DEV else 3
FLEET_GPUS, FLEET_HOURS = (1000, 24) if DEV else (64, 2)
SCRAPE_GPUS, SCRAPE_HOURS = (128, 24) if DEV else (16, 1)
SUBSET_HOURS = 4 if DEV else 1
H100 = [os.path.join(a.src, "traces/h100", f) for f in
        ("h100-qwen3-8b-shape-chat.h5", "h100-qwen3-1.7b-shape-chat.h5")]
SETS = ["--set", "workload=llm", "--set", "model=org/m", "--set", "task=chat",
        "--set", "precision=bfloat16", "--set", "max_batch_size=64"]
os.makedirs(a.out, exist_ok=True)
R = {"machine": {"cpus": NCPU, "scale": a.scale, "ranks": RANKS}, "skipped": []}
T0 = time.time()
LIMIT = 150  # seconds a command may take


def log(msg):
    print(f"[{time.time() - T0:6.1f} s] {msg}", file=sys.stderr, flush=True)


def fits(name, seconds):
    if time.time() + seconds <= a.deadline:
        return True
    R["skipped"].append(f"{name} (needs ~{seconds:.0f} s, {a.deadline - time.time():.0f} s left)")
    log(f"left out: {name}")
    return False


def save():
    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump(R, f, indent=1, sort_keys=True)


def run(cmd, env=None, out=subprocess.DEVNULL, err=None, check=True):
    """wall s, CPU s, exit status, stderr text (stdout too when out is PIPE)."""
    e = dict(os.environ, **(env or {}))
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT if out is subprocess.PIPE else subprocess.PIPE,
                         env=e)
    stream = p.stdout if out is subprocess.PIPE else p.stderr
    # nothing may hang the run: killed after LIMIT seconds (mpirun ends its ranks)
    timer = threading.Timer(LIMIT, p.kill)
    timer.start()
    text = stream.read().decode(errors="replace")  # read before the wait: a pipe may fill
    _, status, ru = os.wait4(p.pid, 0)
    timer.cancel()
    wall = time.perf_counter() - t
    stream.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    if check and p.returncode not in (0, 1):
        log(f"FAIL ({p.returncode}): {' '.join(cmd)[:300]}\n{text[-1500:]}")
    return wall, ru.ru_utime + ru.ru_stime, p.returncode, text


def med(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if len(xs) % 2 else 0.5 * (xs[len(xs) // 2 - 1] + xs[len(xs) // 2])


def mpirun(n, args, env_names=()):
    x = []
    for v in ("LD_LIBRARY_PATH",) + tuple(env_names):
        x += ["-x", v]
    return ["mpirun", "-n", str(n)] + x + [a.time, "-f", "joules-rss-kib:%M", J] + args


def du(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            total += os.path.getsize(os.path.join(root, f))
    return total


def par(cmds):
    """Run the commands at once; wait for all."""
    ps = [subprocess.Popen(c, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for c in cmds]
    bad = 0
    for c, p in zip(cmds, ps):
        err = p.communicate()[1]
        if p.returncode:
            bad += 1
            log(f"FAIL: {' '.join(c)[:200]}: {err.decode(errors='replace')[-500:]}")
    return bad


def shm_dir():
    st = os.statvfs("/dev/shm") if os.path.isdir("/dev/shm") else None
    free = st.f_bavail * st.f_frsize if st else 0
    return "/dev/shm/joules-device" if DEV and free > 30e9 else os.path.join(a.work, "data")


D = shm_dir()
shutil.rmtree(D, ignore_errors=True)
os.makedirs(D)
R["machine"]["data_dir"] = D

# ---------------------------------------------------------------- A. sets
t = time.time()
study = os.path.join(D, "study")
os.makedirs(study)
jobs = max(1, min(NCPU, 16))
per = [STUDY_FILES // jobs + (1 if k < STUDY_FILES % jobs else 0) for k in range(jobs)]
cmds = [[GEN, "tile", "--codec", "zstd", "--files", str(n), "--runs", "10"] + H100 +
        ["-o", study, "--prefix", f"study-zstd-{k:02d}"] for k, n in enumerate(per) if n]
fl = os.path.join(D, "floor")
cmds += [[GEN, "tile", "--codec", c, "--files", "20", "--runs", "10"] + H100 +
         ["-o", os.path.join(fl, f"study-{c}"), "--prefix", f"study-{c}"] for c in ("zstd", "gzip")]
cmds += [[GEN, "synth", "--codec", c, "--files", "1", "--runs", "1", "--gpus", "8", "--requests", "100000",
          "--mean-output", "83", "--seed", "7", "-o", os.path.join(fl, f"long1-{c}"), "--prefix", f"long1-{c}"]
         for c in ("zstd", "gzip")]
cmds += [[GEN, "synth", "--codec", "zstd", "--files", "4", "--runs", "1", "--gpus", "8", "--requests", "100000",
          "--mean-output", "83", "--seed", "7", "-o", os.path.join(D, "long4-zstd"), "--prefix", "long4-zstd"]]
fleet = os.path.join(D, "fleetday")
cmds += [[GF, "-o", fleet, "--gpus", str(FLEET_GPUS), "--hours", str(FLEET_HOURS), "--format", "json",
          "--jobs", str(max(1, NCPU // 2))]]
scrape = os.path.join(D, "scrape")
cmds += [[GF, "-o", scrape, "--gpus", str(SCRAPE_GPUS), "--hours", str(SCRAPE_HOURS), "--format", "text",
          "--jobs", str(max(1, NCPU // 2))]]
if par(cmds):
    log("FAIL: generating the sets")
# the fleet's first hours, linked apart: the set timed at every rank count
sub = os.path.join(D, "fleetsub")
for node in sorted(os.listdir(os.path.join(fleet, "nodes"))):
    src = os.path.join(fleet, "nodes", node)
    os.makedirs(os.path.join(sub, node))
    for f in sorted(os.listdir(src))[:SUBSET_HOURS]:
        os.link(os.path.join(src, f), os.path.join(sub, node, f))
R["sets"] = {
    "study": {"files": len(os.listdir(study)), "bytes": du(study)},
    "fleet_day": {"gpus": FLEET_GPUS, "hours": FLEET_HOURS, "node_days": len(os.listdir(os.path.join(fleet, "nodes"))),
                  "bytes": du(os.path.join(fleet, "nodes"))},
    "fleet_subset": {"hours": SUBSET_HOURS, "bytes": du(sub)},
    "scrape": {"gpus": SCRAPE_GPUS, "hours": SCRAPE_HOURS, "node_days": len(os.listdir(os.path.join(scrape, "scrape"))),
               "bytes": du(os.path.join(scrape, "scrape"))},
    "seconds": time.time() - t,
}
log(f"sets: {R['sets']}")
save()
# read once: the page cache holds them
for d in (study, fl, os.path.join(D, "long4-zstd"), sub):
    subprocess.run(["cat"] + [os.path.join(r, f) for r, _, fs in os.walk(d) for f in fs],
                   stdout=subprocess.DEVNULL)

# ---------------------------------------------------------------- B. floor
if fits("per-rank floor", 60 if DEV else 200):
    fsets = [("study-zstd", os.path.join(fl, "study-zstd")), ("study-gzip", os.path.join(fl, "study-gzip")),
             ("long1-zstd", os.path.join(fl, "long1-zstd")), ("long1-gzip", os.path.join(fl, "long1-gzip")),
             ("long4-zstd", os.path.join(D, "long4-zstd"))]
    env = {"SOURCE_DATE_EPOCH": "1"}
    res = {k: {"floor": [], "joules": [], "ratio": []} for k, _ in fsets}
    for rnd in range(FLOOR_ROUNDS):
        for k, p in fsets:
            _, cf, _, _ = run([RAW, "--decode", p])
            _, cj, _, _ = run([J, "summarize", "--json", "--workers", "1", p], env=env)
            res[k]["floor"].append(cf)
            res[k]["joules"].append(cj)
            res[k]["ratio"].append(cj / cf if cf > 0 else 0)
    R["floor"] = {k: {"floor_ms": 1e3 * med(v["floor"]), "joules_ms": 1e3 * med(v["joules"]),
                      "ratio_of_medians": med(v["joules"]) / med(v["floor"]),
                      "median_ratio": med(v["ratio"]), "rounds": FLOOR_ROUNDS} for k, v in res.items()}
    log(f"floor: {json.dumps(R['floor'])}")
    save()

# ---------------------------------------------------------------- C. study
TIMES = re.compile(r"joules-mpi-times: rank (\d+) of (\d+): share ([0-9.]+) s, exchange ([0-9.]+) s, "
                   r"after ([0-9.]+) s, sent (\d+) B, received (\d+) B, units (\d+)")


def strip_prov(path):
    try:
        d = json.load(open(path))
    except ValueError:
        return None
    for k in ("command", "created"):
        d.get("provenance", {}).pop(k, None)
    return d


def rank_info(err):
    ranks = [m.groups() for m in TIMES.finditer(err)]
    rss = [int(x) for x in re.findall(r"joules-rss-kib:(\d+)", err)]
    return {"shares": sorted(float(r[2]) for r in ranks), "after0": [float(r[4]) for r in ranks if r[0] == "0"],
            "units": sorted(int(r[7]) for r in ranks), "rss_kib_max": max(rss) if rss else None}


def scaling(name, path, args, rounds, est_round):
    """The command at every rank count, interleaved rounds."""
    out = {}
    ref = os.path.join(a.work, f"{name}-one.json")
    names = ["one"] + [f"r{n}" for n in RANKS] + (["r2s"] if 2 in RANKS else [])
    walls = {n: [] for n in names}
    info = {}
    env = {"SOURCE_DATE_EPOCH": "1", "JOULES_MPI_TIMES": "1"}
    for rnd in range(rounds):
        if not fits(f"{name} round {rnd + 1}", est_round):
            break
        t_round = time.time()
        for n in names:
            if n == "one" and rnd > 0 and DEV:
                continue  # one process once: mpirun's own start is what it shows
            dst = os.path.join(a.work, f"{name}-{n}.json")
            with open(dst, "w") as fo:
                if n == "one":
                    cmd = [a.time, "-f", "joules-rss-kib:%M", J] + args + [path]
                    w, c, rc, err = run(cmd, env=env, out=fo)
                else:
                    k = int(n[1:].rstrip("s"))
                    e = dict(env)
                    names_x = ("JOULES_MPI_TIMES", "SOURCE_DATE_EPOCH")
                    if n.endswith("s"):
                        e["JOULES_MPI_STATIC"] = "1"
                        names_x += ("JOULES_MPI_STATIC",)
                    w, c, rc, err = run(mpirun(k, args + [path], names_x), env=e, out=fo)
            walls[n].append(w)
            same = info.get(n, {}).get("same_as_one_process")
            info[n] = rank_info(err)
            info[n]["exit"] = rc
            if n != "one":
                info[n]["same_as_one_process"] = (same is not False) and strip_prov(dst) == strip_prov(ref)
        est_round = 1.1 * (time.time() - t_round)
    r1 = med(walls["r1"]) if walls["r1"] else None
    for n in names:
        if not walls[n]:
            continue
        m = med(walls[n])
        d = {"wall_s": m, "walls": walls[n], **info[n]}
        if r1:
            d["speedup_vs_r1"] = r1 / m
            if n.startswith("r") and n != "r1":
                k = int(n[1:].rstrip("s"))
                d["amdahl_s"] = (k / d["speedup_vs_r1"] - 1) / (k - 1)
            if d.get("after0"):
                d["serial_share"] = d["after0"][0] / r1
        out[n] = d
    return out


if fits("study scaling", 40):
    R["study"] = scaling("study", study, ["summarize", "--json"], ROUNDS, 60 if DEV else 120)
    log("study: " + ", ".join(f"{k} {v['wall_s']:.2f} s ({v.get('speedup_vs_r1', 0):.2f}x)"
                             for k, v in R["study"].items()))
    save()

# ---------------------------------------------------------------- D. fleet


def import_each(inputs, n, dst, quiet=True):
    shutil.rmtree(dst, ignore_errors=True)
    args = ["import", "prometheus"] + inputs + ["--runs-by", "pod", "--each", "-o", dst] + SETS + \
        (["--quiet"] if quiet else [])
    cmd = [a.time, "-f", "joules-rss-kib:%M", J] + args if n == 1 else mpirun(n, args)
    w, c, rc, err = run(cmd, out=subprocess.PIPE)  # the import's lines (on stdout) count samples
    rss = [int(x) for x in re.findall(r"joules-rss-kib:(\d+)", err)]
    samples = sum(int(x) for x in re.findall(r"(\d+) samples\)", err))
    return {"wall_s": w, "cpu_s": c, "exit": rc, "rss_kib_max": max(rss) if rss else None,
            "samples": samples or None}


nodes_sub = sorted(os.path.join(sub, x) for x in os.listdir(sub))
if fits("fleet import scaling", 60 if DEV else 200):
    fi = {}
    for n in RANKS:
        if not fits(f"fleet import at {n} ranks", 5):
            break
        d = import_each(nodes_sub, n, os.path.join(D, f"fleet-traces-{n}"), quiet=n != 1)
        d["mb_per_s"] = R["sets"]["fleet_subset"]["bytes"] / d["wall_s"] / 1e6
        fi[f"r{n}"] = d
        log(f"fleet import {n} ranks: {d['wall_s']:.2f} s")
    b1 = fi.get("r1")
    if b1:
        b1["per_core_mb_per_s"] = R["sets"]["fleet_subset"]["bytes"] / b1["cpu_s"] / 1e6
        if b1.get("samples"):
            b1["per_core_samples_per_s"] = b1["samples"] / b1["cpu_s"]
    for k, v in fi.items():
        if b1:
            v["speedup_vs_r1"] = b1["wall_s"] / v["wall_s"]
    R["fleet_import"] = fi
    save()
    traces = os.path.join(D, f"fleet-traces-{RANKS[-1]}")
    if os.path.isdir(os.path.join(D, "fleet-traces-1")):
        traces = os.path.join(D, "fleet-traces-1")
    if fits("fleet summarize scaling", 30):
        R["fleet_summarize"] = scaling("fleet", traces, ["summarize", "--json"], 2, 30 if DEV else 60)
        save()

# the whole day at the most ranks: import, then summarize
nodes_day = sorted(os.path.join(fleet, "nodes", x) for x in os.listdir(os.path.join(fleet, "nodes")))
top = RANKS[-1]
if fits(f"the fleet day at {top} ranks", 40 if DEV else 120):
    day = import_each(nodes_day, top, os.path.join(D, "day-traces"))
    dst = os.path.join(a.work, "day-summary.json")
    with open(dst, "w") as fo:
        w, c, rc, err = run(mpirun(top, ["summarize", "--json", os.path.join(D, "day-traces")]), out=fo)
    runs = (json.load(open(dst)) or {}).get("runs", []) if rc in (0, 1) else []
    truth = json.load(open(os.path.join(fleet, "truth.json")))
    total = sum(r.get("run_energy_j") or 0 for r in runs)
    R["fleet_day"] = {"ranks": top, "import": day, "summarize_wall_s": w, "summarize_exit": rc,
                      "summarize_rss_kib_max": rank_info(err)["rss_kib_max"],
                      "total_wall_s": day["wall_s"] + w, "runs": len(runs), "pods": len(truth["pods"]),
                      "energy_vs_truth": total / truth["total_energy_j"] - 1 if truth["total_energy_j"] else None,
                      "bytes": R["sets"]["fleet_day"]["bytes"]}
    log(f"fleet day at {top} ranks: import {day['wall_s']:.2f} s, summarize {w:.2f} s, "
        f"{len(runs)} runs of {len(truth['pods'])} pods, energy {R['fleet_day']['energy_vs_truth']:.2e}")
    save()

# scrape archives: one node-day on one core, and every node-day at the most ranks
sc = sorted(os.path.join(scrape, "scrape", x) for x in os.listdir(os.path.join(scrape, "scrape")))
if sc and fits("scrape archives", 30 if DEV else 60):
    one = import_each(sc[:1], 1, os.path.join(D, "scrape-1"), quiet=False)
    one["bytes"] = du(sc[0])
    one["per_core_mb_per_s"] = one["bytes"] / one["cpu_s"] / 1e6
    if one.get("samples"):
        one["per_core_samples_per_s"] = one["samples"] / one["cpu_s"]
    allr = import_each(sc, top, os.path.join(D, "scrape-all"))
    allr["bytes"] = R["sets"]["scrape"]["bytes"]
    allr["mb_per_s"] = allr["bytes"] / allr["wall_s"] / 1e6
    R["scrape"] = {"one_node_day_one_core": one, f"all_at_{top}_ranks": allr}
    save()

# ---------------------------------------------------------------- E. report
lines = [f"# joules past two cores ({NCPU} CPUs, scale {a.scale})", ""]
if "floor" in R:
    lines += ["## Each rank against the decode floor (CPU, summarize --json --workers 1)", "",
              "| set | floor ms | joules ms | ratio of medians | median of ratios |", "|---|---:|---:|---:|---:|"]
    for k, v in R["floor"].items():
        lines.append(f"| {k} | {v['floor_ms']:.1f} | {v['joules_ms']:.1f} | {v['ratio_of_medians']:.2f}x | "
                     f"{v['median_ratio']:.2f}x |")
for key, title in (("study", "The study set"), ("fleet_summarize", "The fleet's traces (summarize)")):
    if key not in R:
        continue
    lines += ["", f"## {title}", "", "| run | wall s | vs 1 rank | Amdahl s | serial share | shares s | units | "
              "peak RSS MiB | same output |", "|---|---:|---:|---:|---:|---|---|---:|---|"]
    for n, v in R[key].items():
        sh = v.get("shares") or []
        un = v.get("units") or []
        lines.append(f"| {n} | {v['wall_s']:.3f} | {v.get('speedup_vs_r1', 0):.2f}x | {v.get('amdahl_s', float('nan')):.4f} | "
                     f"{100 * v.get('serial_share', float('nan')):.2f} % | "
                     f"{(f'{sh[0]:.2f}-{sh[-1]:.2f}') if sh else '-'} | {(f'{un[0]}-{un[-1]}') if un else '-'} | "
                     f"{(v.get('rss_kib_max') or 0) / 1024:.1f} | {v.get('same_as_one_process', '-')} |")
if "fleet_import" in R:
    lines += ["", "## Fleet import --each (node-days)", "", "| ranks | wall s | vs 1 | MB/s | peak RSS MiB |",
              "|---|---:|---:|---:|---:|"]
    for n, v in R["fleet_import"].items():
        lines.append(f"| {n} | {v['wall_s']:.2f} | {v.get('speedup_vs_r1', 0):.2f}x | {v['mb_per_s']:.0f} | "
                     f"{(v.get('rss_kib_max') or 0) / 1024:.1f} |")
for k in ("fleet_day", "scrape"):
    if k in R:
        lines += ["", f"## {k}", "", "```", json.dumps(R[k], indent=1, sort_keys=True), "```"]
if R["skipped"]:
    lines += ["", "Left out: " + "; ".join(R["skipped"])]
with open(os.path.join(a.out, "results.md"), "w") as f:
    f.write("\n".join(lines) + "\n")
save()
print("\n".join(lines))
