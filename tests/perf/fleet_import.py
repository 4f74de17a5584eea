"""The fleet generator at a small scale through joules (docs/scaling.md,
"Fleet"): gen_fleet.py makes 16 GPUs x 1 hour of DCGM exporter series as
query_range answers (pods starting and stopping, scrape gaps, an exporter
restart with a counter reset), and
  - `joules import prometheus fleet/ --runs-by pod` (a folder of query
    files) gives one run per pod whose energy is what the generator knows
    its GPUs used: every pod within 0.5 %, the total within 0.1 %;
  - `import --each` of the node folders (one trace per node per day) and
    `summarize` of the folder give the same total;
  - memory is bounded by the samples kept, not the input: the same file
    with 60 MB of a metric joules does not keep is imported in less RSS
    than the file's size (the former importer read files whole).
  - joules-perf-genfleet (the same model in C, for a fleet day: GENFLEET,
    when given) writes node-hour query_range answers and scrape archives
    of 16 GPUs x 2 hours; `import --each` of either gives every pod within
    0.5 % of its truth and the two formats the same energies to 1e-9.
Not a timing: figures are the generator's own. Usage: fleet_import.py
JOULES WORKDIR [GENFLEET] (gen_fleet.py next to this file)."""
import json
import os
import subprocess
import sys

joules, work = sys.argv[1:3]
genfleet = sys.argv[3] if len(sys.argv) > 3 else None
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(work, exist_ok=True)
SET = ["--set", "workload=llm", "--set", "model=org/m", "--set", "task=chat",
       "--set", "precision=bfloat16", "--set", "max_batch_size=64"]
fails = 0


def bad(msg):
    global fails
    fails += 1
    print("FAIL:", msg)


def run(args):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        bad(f"{' '.join(args)}: exit {p.returncode}: {p.stderr[-2000:]}")
    return p


gen = os.path.join(work, "gen")
run([sys.executable, os.path.join(here, "gen_fleet.py"), "-o", gen, "--gpus", "16", "--hours", "1"])
truth = json.load(open(os.path.join(gen, "truth.json")))
pods = truth["pods"]
if len(pods) < 4:
    bad(f"the generator made {len(pods)} pods at this scale, expected several")


def summaries(path):
    p = run([joules, "summarize", "--jsonl", path])
    return [json.loads(l) for l in p.stdout.splitlines()]


# one fleet-wide query file per hour, read as a folder
out = os.path.join(work, "fleet.h5")
run([joules, "import", "prometheus", os.path.join(gen, "fleet"), "--runs-by", "pod", "-o", out, "--force"] + SET)
s = {d["run"]: d for d in summaries(out)}
if sorted(s) != sorted(pods):
    bad(f"runs {sorted(s)}, the generator's pods are {sorted(pods)}")
total = 0.0
for name, want in sorted(pods.items()):
    got = s.get(name, {}).get("run_energy_j")
    if got is None:
        continue
    total += got
    if abs(got - want["energy_j"]) > 5e-3 * want["energy_j"]:
        bad(f"{name}: {got:.1f} J, the generator's GPUs used {want['energy_j']:.1f} J")
    if s[name]["num_gpus"] != len(want["gpus"]):
        bad(f"{name}: {s[name]['num_gpus']} GPUs, expected {len(want['gpus'])}")
err = abs(total - truth["total_energy_j"]) / truth["total_energy_j"]
if err > 1e-3:
    bad(f"fleet total {total:.1f} J vs the generator's {truth['total_energy_j']:.1f} J ({err:.2%})")
print(f"ok: {len(s)} pods from the fleet files, {total:.0f} J, {err:.4%} from the generator's total")

# one trace per node per day, then the folder as one study
traces = os.path.join(work, "traces")
nodes = sorted(os.path.join(gen, "nodes", d) for d in os.listdir(os.path.join(gen, "nodes")))
run([joules, "import", "prometheus"] + nodes + ["--runs-by", "pod", "--each", "-o", traces, "--force"] + SET)
each = summaries(traces)
t2 = sum(d["run_energy_j"] for d in each)
err2 = abs(t2 - truth["total_energy_j"]) / truth["total_energy_j"]
if len(each) != len(pods) or err2 > 1e-3:
    bad(f"--each: {len(each)} runs, {t2:.1f} J vs the generator's {truth['total_energy_j']:.1f} J")
print(f"ok: --each: {len(os.listdir(traces))} node-day traces, {len(each)} runs, {err2:.4%} from the total")

# the C generator (a fleet day's files): both formats, node by node
if genfleet:
    g2 = os.path.join(work, "genc")
    run([genfleet, "-o", g2, "--gpus", "16", "--hours", "2", "--format", "both", "--jobs", "2"])
    t3 = json.load(open(os.path.join(g2, "truth.json")))
    by_format = {}
    for fmt in ("nodes", "scrape"):
        d = os.path.join(g2, fmt)
        out = os.path.join(work, "genc-" + fmt)
        run([joules, "import", "prometheus"] + sorted(os.path.join(d, x) for x in os.listdir(d))
            + ["--runs-by", "pod", "--each", "-o", out, "--force"] + SET)
        got = {r["run"]: r["run_energy_j"] for r in summaries(out)}
        by_format[fmt] = got
        if sorted(got) != sorted(t3["pods"]):
            bad(f"genfleet {fmt}: runs {sorted(got)}, its pods are {sorted(t3['pods'])}")
        worst = max((abs(got.get(n, 0) - p["energy_j"]) / p["energy_j"] for n, p in t3["pods"].items()),
                    default=1)
        if worst > 5e-3:
            bad(f"genfleet {fmt}: a pod {worst:.2%} from the generator's energy")
        print(f"ok: genfleet {fmt}: {len(got)} pods, worst {worst:.4%} from the generator's energy")
    diff = max((abs(by_format["nodes"][n] - by_format["scrape"].get(n, 0)) / by_format["nodes"][n]
                for n in by_format["nodes"]), default=1)
    if diff > 1e-9:
        bad(f"genfleet: query_range and the scrape archive differ by {diff:.3g} on a pod")
    print(f"ok: genfleet: query_range and the scrape archive agree ({diff:.2g})")

# bounded memory: 60 MB of samples of a metric joules leaves out, streamed past
big = os.path.join(work, "with-xid.json")
hour = os.path.join(gen, "fleet", sorted(os.listdir(os.path.join(gen, "fleet")))[0])
with open(hour) as f:
    text = f.read()
with open(big, "w") as f:  # written in pieces: a child's peak RSS counts its parent's pages
    i = text.index('"result":[') + len('"result":[')
    f.write(text[:i])
    f.write('{"metric":{"__name__":"DCGM_FI_DEV_XID_ERRORS","gpu":"0","UUID":"GPU-x","Hostname":"node999"},'
            '"values":[[1795737600,"0"]')
    for k0 in range(1, 3600000, 10000):
        f.write("".join(f',[{1795737600 + k},"0"]' for k in range(k0, min(k0 + 10000, 3600000))))
    f.write("]}," + text[i:])
del text
size = os.path.getsize(big)
proc = subprocess.Popen([joules, "import", "prometheus", big, "--runs-by", "pod", "-o", os.path.join(work, "xid.h5"),
                         "--force"] + SET, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_, status, usage = os.wait4(proc.pid, 0)
rss = usage.ru_maxrss * 1024  # KiB on Linux
if os.waitstatus_to_exitcode(status) != 0:
    bad(f"import of {big}: exit {os.waitstatus_to_exitcode(status)}")
if os.environ.get("JOULES_TEST_SANITIZED"):
    print(f"note: a {size / 1e6:.0f} MB file imported in {rss / 1e6:.0f} MB (peak RSS); "
          "the memory bound is not judged under ASan (its shadow memory counts)")
elif rss >= size / 2:
    bad(f"import of a {size} B file took {rss} B of memory: not bounded by the samples kept")
else:
    print(f"ok: a {size / 1e6:.0f} MB file imported in {rss / 1e6:.0f} MB (peak RSS)")
sys.exit(1 if fails else 0)
