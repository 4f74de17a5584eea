"""joules import mlenergy on the ML.ENERGY Leaderboard v2 data in
shared/realworld/mlenergy-leaderboard-v2/data: every configuration file
(LLM, MLLM, diffusion) and every v1 legacy CSV row becomes a run; figures
read back from the trace equal the files' values (checked here with Python's
json/csv, independently of joules); `joules frontier` works on the import;
a broken file among good ones is reported and the others are imported."""
import csv
import glob
import json
import os
import shutil
import subprocess
import sys

import h5py

joules, shared, work = sys.argv[1:4]
data = os.path.join(shared, "realworld", "mlenergy-leaderboard-v2", "data")
if not os.path.isdir(data):
    print(f"SKIP: no ML.ENERGY v2 data at {data}")
    sys.exit(77)
os.makedirs(work, exist_ok=True)
out = os.path.join(work, "v2.h5")

configs = sorted(f for f in glob.glob(os.path.join(data, "*", "*", "*", "*", "*", "*.json"))
                 if os.path.basename(f) != "models.json")
rows = 0
for f in glob.glob(os.path.join(data, "legacy", "*_benchmark.csv")):
    rows += sum(1 for _ in csv.DictReader(open(f)))

# one group per run (--groups), so h5py reads each run as the spec lays it
# out; the default layout (/summary_table) must summarise the same
p = subprocess.run([joules, "import", "mlenergy", data, "-o", out, "--json", "--force", "--groups"],
                   capture_output=True, text=True)
assert p.returncode == 0, p.stderr
doc = json.loads(p.stdout)
assert doc["n_runs"] == len(configs) + rows, (doc["n_runs"], len(configs), rows)
table = os.path.join(work, "v2-table.h5")
p = subprocess.run([joules, "import", "mlenergy", data, "-o", table, "--quiet", "--force"],
                   capture_output=True, text=True)
assert p.returncode == 0, p.stderr
csvs = []
for f in (out, table):
    p = subprocess.run([joules, "summarize", "--csv", "-", f], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    csvs.append(p.stdout.replace(f, "FILE"))
assert csvs[0] == csvs[1], "the summary table summarises differently from the run groups"

by_family = {}
with h5py.File(out) as h:
    runs = h["runs"]
    for f in configs:
        rel = os.path.relpath(f, data).split(os.sep)
        family, task, gpu, org, model, name = rel
        by_family[family] = by_family.get(family, 0) + 1
        d = json.load(open(f))
        run = runs["v2__%s__%s__%s__%s__%s" % (task, org, model, gpu.replace(" ", "_"), name[:-5])]
        a, s = run.attrs, run["summary"].attrs
        assert a["model"] == d["Model"] and a["task"] == task
        assert a["gpu_name"] == d["GPU"]
        if family == "diffusion":
            e = d.get("Energy/image (J)", d.get("Energy/video (J)"))
            assert abs(s["energy_per_item_j"] - e) <= 1e-12 * e
            assert abs(s["batch_latency_s"] - d["Batch latency (s)"]) < 1e-12
            assert a["max_batch_size"] == d["Batch size"]
        else:
            assert a["num_gpus"] == d["TP"] * d["PP"]
            assert abs(s["energy_per_request_j"] - d["Energy/req (J)"]) <= 1e-12 * d["Energy/req (J)"]
            ept = d["Energy/req (J)"] / d["Avg Output Tokens"]
            assert abs(s["energy_per_token_j"] - ept) <= 1e-12 * ept
            assert abs(s["avg_tpot_s"] - d["Avg TPOT (s)"]) < 1e-15
    v1 = [k for k in runs if k.startswith("v1__")]
    assert len(v1) == rows, (len(v1), rows)
print("imported", doc["n_runs"], "runs:", by_family, "+", rows, "v1 rows")
assert set(by_family) == {"llm_text_generation", "mllm_text_generation", "diffusion"}

p = subprocess.run([joules, "frontier", out, "--json"], capture_output=True, text=True)
assert p.returncode == 0, p.stderr
fr = json.loads(p.stdout)["frontiers"]
llm = [f for f in fr if f["workload"] in ("llm", "mllm") and f["points"]]
dif = [f for f in fr if f["workload"] == "diffusion" and f["points"]]
assert llm and dif, (len(llm), len(dif))
assert all(f["latency_figure"] == "avg_tpot_s" for f in llm)
print(len(fr), "frontiers,", len(llm), "LLM/MLLM and", len(dif), "diffusion with points")

# one broken file among good ones
tree = os.path.join(work, "broken", "llm_text_generation", "chat")
shutil.rmtree(os.path.join(work, "broken"), ignore_errors=True)
src = os.path.dirname(next(f for f in configs if "/llm_text_generation/chat/" in f))
rel = os.path.relpath(src, os.path.join(data, "llm_text_generation", "chat"))
dst = os.path.join(tree, rel)
shutil.copytree(src, dst)
good = len(glob.glob(os.path.join(dst, "*.json")))
with open(os.path.join(dst, "bs9999+tp1+pp1.json"), "w") as f:
    f.write('{"Model": "x", "GPU": "NVIDIA H100 80GB HBM3", "Energy/req (J)": ')
p = subprocess.run([joules, "import", "mlenergy", os.path.join(work, "broken"), "-o",
                    os.path.join(work, "broken.h5"), "--json", "--force"], capture_output=True, text=True)
assert p.returncode != 0 and json.loads(p.stdout)["n_runs"] == good, (p.returncode, p.stdout)
assert "bs9999+tp1+pp1.json" in p.stderr, p.stderr
print("broken file reported:", p.stderr.strip().splitlines()[0])
