"""joules import mlperf-power on the real MLPerf Inference v1.0 run in
shared/realworld/mlperf-power-v1.0 (DGX Station A100, BERT-99 Offline).

The reference is computed here from spl.txt and mlperf_log_detail.txt the
way the MLPerf submission checker does it (samples strictly between
power_begin and power_end, Watts > 0, plain mean); joules' published
summary/ figure must equal it and the average power joules recomputes from
the series (jl_summarize) must match it to 0.1 %."""
import glob
import json
import os
import subprocess
import sys
from datetime import datetime

import h5py

joules, shared, work = sys.argv[1:4]
root = os.path.join(shared, "realworld", "mlperf-power-v1.0")
runs = glob.glob(os.path.join(root, "closed/*/results/*/*/*/performance/run_1"))
if not runs:
    print(f"SKIP: no MLPerf power run under {root}")
    sys.exit(77)
run = runs[0]
os.makedirs(work, exist_ok=True)
out = os.path.join(work, "mlperf.h5")

fmt = "%m-%d-%Y %H:%M:%S.%f"
marks = {}
for line in open(os.path.join(run, "mlperf_log_detail.txt")):
    if line.startswith(":::MLLOG"):
        rec = json.loads(line[len(":::MLLOG"):])
        marks[rec["key"]] = rec["value"]
begin = datetime.strptime(marks["power_begin"], fmt)
end = datetime.strptime(marks["power_end"], fmt)
watts = []
for line in open(os.path.join(run, "spl.txt")):
    f = line.split(",")
    if f[0] != "Time":
        continue
    t = datetime.strptime(f[1], fmt)
    if begin < t < end and float(f[3]) > 0:
        watts.append(float(f[3]))
mean = sum(watts) / len(watts)
dur = (end - begin).total_seconds()

p = subprocess.run([joules, "import", "mlperf-power", root, "-o", out, "--json", "--force"],
                   capture_output=True, text=True)
assert p.returncode == 0, p.stderr
doc = json.loads(p.stdout)
assert doc["n_runs"] == 1, doc

with h5py.File(out) as h:
    (name, g), = h["runs"].items()
    assert g.attrs["power_scope"] == "node_ac"
    assert g["power/watts"].shape == (len(watts), 1), g["power/watts"].shape
    s = g["summary"].attrs
    assert abs(s["avg_power_w"] - mean) <= 1e-9 * mean, (s["avg_power_w"], mean)
    assert abs(s["steady_state_duration_s"] - dur) < 1e-6
    assert abs(s["steady_state_energy_j"] - mean * dur) <= 1e-9 * mean * dur
    sps = float(marks["result_samples_per_second"])
    assert abs(s["samples_per_joule"] - sps / mean) <= 1e-9 * sps / mean
    assert abs(s["peak_power_w"] - max(watts)) < 1e-9

p = subprocess.run([joules, "summarize", out, "--json"], capture_output=True, text=True)
assert p.returncode in (0, 1), p.stderr
fig = json.loads(p.stdout)["runs"][0]
rel = abs(fig["avg_power_w"] - mean) / mean
print(f"{len(watts)} samples in ({marks['power_begin']}, {marks['power_end']}); "
      f"checker mean {mean:.4f} W; joules recomputed {fig['avg_power_w']:.4f} W "
      f"({100 * rel:.4f} %); energy {mean * dur:.1f} J; {sps / mean:.4f} samples/J")
assert rel < 1e-3, rel
