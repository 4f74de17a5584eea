#!/bin/sh
# record_example.sh JOULES PYTHON SOURCE_DIR OUT_DIR (tests/host/CMakeLists.txt)
set -u
joules=$1; py=$2; src=$3; out=$4
if ! "$py" -c 'import h5py, numpy' 2>/dev/null; then
    echo "SKIP: h5py/numpy for $py missing"; exit 77
fi
mkdir -p "$out"
fail=0
"$py" "$src/tests/import/doc_blocks.py" "$src/docs/writing-traces.md" \
    "$src/docs/examples/record_host.py" || fail=1
f="$out/chat.h5"
rm -f "$f"
cp "$src/traces/h100/h100-qwen3-1.7b-shape-chat.h5" "$f" && chmod u+w "$f" || exit 1
"$py" "$src/docs/examples/record_host.py" "$f" b0001 --made-up || exit 1
"$joules" check "$f" > "$out/check.txt" 2>&1
rc=$?
if [ $rc -ne 0 ] || ! grep -q ' 0 fail, .*; 0 runs fail a rule' "$out/check.txt"; then
    cat "$out/check.txt"; echo "FAIL: joules check (exit $rc)"; fail=1
fi
"$joules" inspect "$f" > "$out/inspect.txt" || fail=1
grep -q 'host/: cpu_energy_j (wraps at 262143.32885 J), dram_energy_j (wraps at 65712.999613 J) on 2 sockets, node_watts; source: made-up (record_host.py)' \
    "$out/inspect.txt" || { echo "FAIL: inspect shows no host/ line"; fail=1; }
"$joules" summarize --json "$f" > "$out/summary.json" || fail=1
# By hand (the made-up recorder: sockets at 95 and 80 W, DRAM 12 and 10 W,
# node = 1300 W + the GPU at 1 Hz): over b0001's window [a, b], each counter
# is its rate x (b - a), socket 0's wrap included; the node's AC energy is
# the trapezoid of its samples. Compared with numbers computed here from
# the window the summary reports.
"$py" - "$out/summary.json" "$f" <<'PY' || fail=1
import json, sys
import h5py, numpy as np
runs = {r["run"]: r for r in json.load(open(sys.argv[1]))["runs"]}
r = runs["b0001"]
a, b = r["steady_start_s"], r["steady_end_s"]
h = r["host"]
D = b - a
want = {"cpu0": 95 * D, "cpu1": 80 * D, "dram0": 12 * D, "dram1": 10 * D}
got = {"cpu0": h["cpu_energy_j"][0], "cpu1": h["cpu_energy_j"][1],
       "dram0": h["dram_energy_j"][0], "dram1": h["dram_energy_j"][1]}
bad = [k for k in want if abs(got[k] - want[k]) > 1e-6 * want[k]]
with h5py.File(sys.argv[2]) as f:
    t = f["runs/b0001/host/time"][:]
    w = f["runs/b0001/host/node_watts"][:]
# trapezoid over [a, b] with the watts interpolated at the edges
x = np.concatenate([[a], t[(t > a) & (t < b)], [b]])
node = np.trapz(np.interp(x, t, w), x)
E = r["steady_energy_j"]
checks = [
    ("method", h["method"] == "node_ac"),
    ("node", abs(h["node_energy_j"] - node) <= 1e-9 * node),
    ("total", r["total_energy_j"] == h["node_energy_j"]),
    ("host", abs(r["host_energy_j"] - (node - E)) <= 1e-9 * node),
    ("rest", abs(h["rest_energy_j"] - (node - E - sum(want.values()))) <= 1e-6 * node),
    ("per token", abs(r["total_energy_per_token_j"] - r["total_energy_j"] / r["steady_tokens"]) <= 1e-12),
    ("other runs", all(runs[k].get("host") is None and runs[k]["total_energy_j"] is None
                       for k in runs if k != "b0001")),
]
for k in bad:
    print(f"FAIL: {k} = {got[k]!r}, want {want[k]!r}")
for name, ok in checks:
    if not ok:
        print(f"FAIL: {name}: {json.dumps(r, indent=1)[:2000]}")
print(f"b0001: window {D:.6g} s, CPU+DRAM {h['cpu_dram_energy_j']:.6g} J, node {node:.6g} J, "
      f"J/token GPU {r['energy_per_token_j']:.6g} host {r['host_energy_per_token_j']:.6g} "
      f"total {r['total_energy_per_token_j']:.6g}")
sys.exit(1 if bad or not all(ok for _, ok in checks) else 0)
PY
# the CSV carries the same four figures
rm -f "$out/summary.csv"
"$joules" summarize --csv "$out/summary.csv" "$f" > /dev/null || fail=1
"$py" - "$out/summary.json" "$out/summary.csv" <<'PY' || fail=1
import csv, json, sys
js = {r["run"]: r for r in json.load(open(sys.argv[1]))["runs"]}
for row in csv.DictReader(open(sys.argv[2])):
    for k in ("host_energy_j", "total_energy_j", "host_energy_per_token_j",
              "total_energy_per_token_j"):
        want = js[row["run"]][k]
        got = float(row[k]) if row[k] else None
        if (want is None) != (got is None) or (got is not None and abs(got - want) > 1e-9 * abs(want)):
            sys.exit(f"FAIL: CSV {row['run']} {k} = {row[k]!r}, JSON {want!r}")
PY
# every run with host/: the card and the report show the whole system
for r in b0004 b0016 b0064 b0256; do
    "$py" "$src/docs/examples/record_host.py" "$f" $r --made-up || fail=1
done
"$joules" card "$f" > "$out/card.md" 2>/dev/null || fail=1
grep -q '^| chat | 1 x H100 | 0.03716 | 0.09553 | 0.1327 | node AC; host = node - GPUs |$' \
    "$out/card.md" || { echo "FAIL: the card has no whole-system row"; fail=1; }
# the accounts count the node (issue 36): emissions' default is the whole run
# at node scope, its energy the summary's run_total_energy_j; at --scope gpu
# the node's energy beyond the GPUs is what it left out; the label says node
"$joules" summarize --json "$f" > "$out/summary-all.json" || fail=1
"$joules" emissions --json --grid-intensity 400 "$f" > "$out/em.json" || fail=1
"$joules" emissions --json --scope gpu --grid-intensity 400 "$f" > "$out/em-gpu.json" || fail=1
"$joules" label --json "$f" > "$out/label.json" || fail=1
"$py" - "$out/summary-all.json" "$out/em.json" "$out/em-gpu.json" "$out/label.json" <<'PY' || fail=1
import json, sys
s = {r["run"]: r for r in json.load(open(sys.argv[1]))["runs"]}
em = json.load(open(sys.argv[2]))
gpu = {r["run"]: r for r in json.load(open(sys.argv[3]))["runs"]}
lab = json.load(open(sys.argv[4]))["labels"]
bad = []
for r in em["runs"]:
    x = s[r["run"]]
    node = x["run_total_energy_j"]
    if r["boundary"]["scope"] != "node" or r["boundary"]["window"] != "run":
        bad.append(f"{r['run']}: boundary {r['boundary']}")
    if abs(r["energy_kwh"] * 3.6e6 - node) > 1e-9 * node:
        bad.append(f"{r['run']}: {r['energy_kwh'] * 3.6e6} J counted, node {node} J")
    if abs(r["kg_co2eq"]["average"] - node / 3.6e6 * 0.4) > 1e-9 * node / 3.6e6:
        bad.append(f"{r['run']}: kg {r['kg_co2eq']['average']}")
    g = gpu[r["run"]]
    lo = g["left_out"]
    if (g["boundary"]["scope"] != "gpu" or lo["wider_scope"] != "node"
            or abs(lo["wider_scope_kwh"] * 3.6e6 - (node - x["run_energy_j"])) > 1e-9 * node):
        bad.append(f"{r['run']} at --scope gpu: {g['boundary']} left out {lo}")
if len(em["runs"]) != 5:
    bad.append(f"{len(em['runs'])} runs counted")
if not lab or any(l["boundary"] != {"window": "run", "scope": "node"}
                  or not l["energy"].startswith("node energy") for l in lab):
    bad.append(f"label: {[(l['boundary'], l['energy']) for l in lab]}")
for b in bad:
    print("FAIL: node scope:", b)
print(f"node scope: {em['total']['energy_kwh']:.6g} kWh counted over 5 runs, "
      f"{sum(g['energy_kwh'] for g in gpu.values()):.6g} kWh at GPU scope")
sys.exit(1 if bad else 0)
PY
rm -rf "$out/report"
"$joules" report -o "$out/report" "$f" > /dev/null 2>&1 || fail=1
grep -q 'The whole system (5 runs with host/)' "$out/report/runs.html" ||
    { echo "FAIL: runs.html has no whole-system table"; fail=1; }
exit $fail
