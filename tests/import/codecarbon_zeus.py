"""joules import codecarbon / zeus on the real files in shared/realworld
(read in place; skipped, exit 77, when absent) and on variations of them
made here at test time (never committed):

CodeCarbon (realworld/codecarbon/examples/emissions.csv, 28 rows):
  - the rows are grouped into runs here, independently (a run_id's rows, or
    rows without one whose start = timestamp - duration agree to 2.5 s, are
    one run's flushes: totals since start), and every published figure of
    each run's last row is in the trace exactly: GPU energy, host (CPU +
    RAM) and total energy in J (kWh x 3.6e6 / pue), duration, average GPU
    power, emissions, the rate, the intensity applied, every column as
    codecarbon_<name>, start = timestamp - duration (UTC);
  - energy_consumed = cpu + gpu + ram and emissions = rate x duration hold
    in the file (no note); a changed energy_consumed gives a note naming the
    run and the line;
  - columns reordered, a UTF-8 byte-order mark: the same runs and figures;
    an older version's columns (no codecarbon_version/pue; the 1.x layout
    without power columns or GPU): imported, what is missing is missing;
    a cut last line: dropped with a note; a malformed number: an error
    naming file:line:column and the column, the other runs imported; an
    unknown column kept; --set missing: an error naming the attributes.
Zeus (realworld/zeus/tests/profile_data/*.csv):
  - every window a run: gpu<i>_energy exactly, their sum, elapsed_time,
    the average power, num_gpus = the GPU columns, the power limit of the
    optimiser's window names;
  - columns reordered, Unix start_time, a window name holding commas,
    cpu0/dram0 columns (host energy), a BOM, a cut last line, a malformed
    number, --set missing."""
import csv
import io
import json
import math
import os
import random
import subprocess
import sys
from datetime import datetime, timezone

import h5py

joules, shared, work = sys.argv[1:4]
cc_file = os.path.join(shared, "realworld", "codecarbon", "examples", "emissions.csv")
zeus_dir = os.path.join(shared, "realworld", "zeus", "tests", "profile_data")
if not os.path.isfile(cc_file) or not os.path.isdir(zeus_dir):
    print(f"SKIP: {cc_file} or {zeus_dir} missing")
    sys.exit(77)
os.makedirs(work, exist_ok=True)
SET = ["--set", "workload=llm", "--set", "model=none/laptop", "--set", "task=unknown",
       "--set", "precision=float32", "--set", "max_batch_size=1"]
fails = 0


def bad(msg):
    global fails
    fails += 1
    print("FAIL:", msg)


def close(a, b, rel=1e-12):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def run(fmt, path, out, *extra):
    p = subprocess.run([joules, "import", fmt, path, "-o", out, "--force", "--groups", "--json",
                        *extra], capture_output=True, text=True)
    doc = json.loads(p.stdout) if p.stdout.strip() else None
    return p.returncode, doc, p.stderr


def runs_of(h5):
    out = {}
    with h5py.File(h5, "r") as f:
        for name, g in f["runs"].items():
            a = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in g.attrs.items()}
            s = {k: (v.decode() if isinstance(v, bytes) else v)
                 for k, v in g["summary"].attrs.items()}
            out[name] = (a, s)
    return out


def write(name, text, encoding="utf-8"):
    path = os.path.join(work, name)
    with open(path, "w", encoding=encoding, newline="") as f:
        f.write(text)
    return path


# ---- CodeCarbon -------------------------------------------------------------------

raw = open(cc_file, encoding="utf-8").read()
rows = list(csv.DictReader(io.StringIO(raw)))
header = raw.split("\n", 1)[0].split(",")


def num(r, k):
    v = r.get(k, "")
    return float(v) if v not in ("", None) else None


def group(rows):
    """The runs of an emissions.csv, as the importer's doc says: [last row]."""
    runs = []  # [run_id, start, last]
    for r in rows:
        end = datetime.strptime(r["timestamp"], "%Y-%m-%dT%H:%M:%S").replace(
            tzinfo=timezone.utc).timestamp()
        start = end - float(r["duration"])
        for u in reversed(runs):
            if u[0] != r["run_id"]:
                continue
            if not r["run_id"] and abs(u[1] - start) > 2.5:
                continue
            if float(r["duration"]) + 1e-9 < float(u[2]["duration"]):
                continue
            u[2] = r
            break
        else:
            runs.append([r["run_id"], start, r])
    return [(u[1], u[2]) for u in runs]


expected = group(rows)
out = os.path.join(work, "cc.h5")
rc, doc, err = run("codecarbon", cc_file, out, *SET)
if rc != 0 or not doc:
    bad(f"codecarbon import of the example: rc {rc}: {err}")
    sys.exit(1)
got = runs_of(out)
if len(got) != len(expected):
    bad(f"codecarbon: {len(got)} runs, expected {len(expected)} (28 rows grouped)")
if any("energy_consumed" in n["field"] or "emissions_rate" in n["field"] for n in doc["notes"]):
    bad(f"codecarbon: the example's identities gave a note: {doc['notes']}")
by_line = {}
for name, (a, s) in got.items():
    by_line[(a.get("codecarbon_timestamp"), a.get("codecarbon_run_id", ""))] = (name, a, s)
checked = 0
for start, r in expected:
    key = (r["timestamp"], r["run_id"])
    if key not in by_line:
        bad(f"codecarbon: no run for the row of {key}")
        continue
    name, a, s = by_line[key]
    pue = num(r, "pue") or 1.0
    J = 3.6e6 / pue
    want = {
        "steady_state_duration_s": num(r, "duration"),
        "run_duration_s": num(r, "duration"),
        "steady_state_energy_j": num(r, "gpu_energy") * J,
        "run_energy_j": num(r, "gpu_energy") * J,
        "avg_power_w": num(r, "gpu_energy") * J / num(r, "duration"),
    }
    if num(r, "cpu_energy") is not None:
        want["host_energy_j"] = (num(r, "cpu_energy") + num(r, "ram_energy")) * J
        want["cpu_energy_j"] = num(r, "cpu_energy") * J
    if num(r, "energy_consumed") is not None:
        want["total_energy_j"] = num(r, "energy_consumed") * J
        want["facility_energy_j"] = num(r, "energy_consumed") * 3.6e6
    if num(r, "emissions") is not None:
        want["emissions_kg"] = num(r, "emissions")
        want["emissions_rate_kg_s"] = num(r, "emissions_rate")
    want["ram_energy_j"] = num(r, "ram_energy") * J
    want["last_gpu_power_w"] = num(r, "gpu_power")
    for k, v in want.items():
        if not close(s.get(k), v):
            bad(f"codecarbon {name}: summary/{k} = {s.get(k)}, expected {v}")
    for k in ("cpu_energy_j", "host_energy_j", "total_energy_j", "emissions_kg"):
        if k not in want and k in s:
            bad(f"codecarbon {name}: summary/{k} = {s[k]} but the row has no value for it")
    if num(r, "emissions") is not None and not close(
            a.get("grid_intensity_g_per_kwh"),
            num(r, "emissions") * 1000 / num(r, "energy_consumed")):
        bad(f"codecarbon {name}: @grid_intensity_g_per_kwh {a.get('grid_intensity_g_per_kwh')}")
    if not close(a.get("start_time_unix"), start, 1e-15):
        bad(f"codecarbon {name}: start_time_unix {a.get('start_time_unix')}, expected {start}")
    if a.get("gpu_model") != "Apple M1" or a.get("num_gpus") != 1 or a.get("pue") != pue:
        bad(f"codecarbon {name}: gpu {a.get('gpu_model')} x{a.get('num_gpus')} pue {a.get('pue')}")
    for col in header:
        v = r[col]
        if v == "":
            continue
        kept = a.get("codecarbon_" + col)
        same = kept == v if isinstance(kept, str) else close(float(kept), float(v), 0)
        if not same:
            bad(f"codecarbon {name}: @codecarbon_{col} = {kept!r}, the file has {v!r}")
    if "no energy per token" not in a.get("notes", ""):
        bad(f"codecarbon {name}: the notes do not say what the run is")
    checked += 1
print(f"codecarbon: {checked} runs from {len(rows)} rows, every published figure kept")

# summarize reads them as summary-only runs: GPU, host and total energy
p = subprocess.run([joules, "summarize", out, "--json"], capture_output=True, text=True)
summ = json.loads(p.stdout)["runs"]
if len(summ) != len(expected) or any(x["energy_per_token_j"] is not None for x in summ):
    bad("codecarbon: summarize gives energy per token for runs without tokens")
host = [x for x in summ if x["host_energy_j"] is not None and x["total_energy_j"] is not None]
if len(host) != sum(1 for _, r in expected if r["cpu_energy"] and r["energy_consumed"]):
    bad(f"codecarbon: {len(host)} runs with host and total energy in summarize")


def figures(h5):
    return {n: (round(a.get("start_time_unix", 0), 6),
                tuple(sorted((k, v) for k, v in s.items() if not isinstance(v, str))))
            for n, (a, s) in runs_of(h5).items()}


base = figures(out)


def variant(name, text, *extra, expect_rc=0, encoding="utf-8"):
    path = write(name, text, encoding)
    o = os.path.join(work, name + ".h5")
    rc, doc, err = run("codecarbon", path, o, *SET, *extra)
    if rc != expect_rc:
        bad(f"codecarbon {name}: rc {rc}, expected {expect_rc}: {err}")
    return path, o, doc, err


# columns reordered
cols = list(header)
random.Random(7).shuffle(cols)
buf = io.StringIO()
w = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n")
w.writeheader()
for r in rows:
    w.writerow(r)
_, o, _, _ = variant("reordered.csv", buf.getvalue())
if figures(o) != base:
    bad("codecarbon: reordered columns give other figures")
# a UTF-8 byte-order mark
_, o, doc, _ = variant("bom.csv", "\ufeff" + raw)
if figures(o) != base:
    bad("codecarbon: a byte-order mark gives other figures")


def layout(cols_kept):
    b = io.StringIO()
    w = csv.DictWriter(b, fieldnames=cols_kept, lineterminator="\n", extrasaction="ignore")
    w.writeheader()
    for r in rows:
        w.writerow(r)
    return b.getvalue()


# CodeCarbon 2.2 (2022): no codecarbon_version, no pue
v22 = [c for c in header if c not in ("codecarbon_version", "pue")]
_, o, doc, _ = variant("v2_2.csv", layout(v22))
if figures(o) != base:
    bad("codecarbon: the 2.2 layout (pue 1 written or not) gives other figures")
if not any(n["field"] == "pue" for n in doc["notes"]):
    bad("codecarbon: no note that the file has no pue")
# CodeCarbon 1.x: no power columns, no per-component energy, no GPU
v1 = ["timestamp", "project_name", "run_id", "duration", "emissions", "energy_consumed",
      "country_name", "country_iso_code", "region", "on_cloud", "cloud_provider", "cloud_region"]
_, o, doc, err = variant("v1.csv", layout(v1), expect_rc=3)
if "gpu_model" not in err:
    bad(f"codecarbon 1.x: no GPU in the file and none --set: the error should name gpu_model: {err}")
_, o, doc, err = variant("v1.csv", layout(v1), "--set", "gpu_model=A100", "--set", "num_gpus=1")
v1runs = runs_of(o)
if len(v1runs) != len(expected):
    bad(f"codecarbon 1.x: {len(v1runs)} runs")
for n, (a, s) in v1runs.items():
    if "steady_state_energy_j" in s or "host_energy_j" in s or "total_energy_j" not in s and \
            a.get("codecarbon_energy_consumed"):
        bad(f"codecarbon 1.x {n}: figures invented or lost: {sorted(s)}")
# a PUE of 1.5: CodeCarbon multiplies every energy (and so the emissions) by it;
# the device figures are the same as with PUE 1, the facility energy 1.5 x
pue_rows = []
for r in rows:
    r2 = dict(r, pue="1.5")
    for k in ("cpu_energy", "gpu_energy", "ram_energy", "energy_consumed", "emissions",
              "emissions_rate"):
        if r2[k]:
            r2[k] = repr(float(r2[k]) * 1.5)
    pue_rows.append(r2)
b = io.StringIO()
w = csv.DictWriter(b, fieldnames=header, lineterminator="\n")
w.writeheader()
w.writerows(pue_rows)
_, o, _, _ = variant("pue.csv", b.getvalue())
for n, (a, s) in runs_of(o).items():
    a1, s1 = got[n]
    for k in ("steady_state_energy_j", "host_energy_j", "total_energy_j", "avg_power_w"):
        if k in s1 and not close(s.get(k), s1[k], 1e-9):
            bad(f"codecarbon pue 1.5 {n}: {k} {s.get(k)}, with pue 1 {s1[k]}")
    if "facility_energy_j" in s1 and not close(s["facility_energy_j"],
                                               1.5 * s1["facility_energy_j"], 1e-9):
        bad(f"codecarbon pue 1.5 {n}: facility energy {s['facility_energy_j']}")
    if a.get("pue") != 1.5:
        bad(f"codecarbon pue 1.5 {n}: @pue {a.get('pue')}")
# an unknown column is kept
lines = raw.split("\n")
extra = "\n".join([lines[0] + ",my_label"] + [ln + ",x" + str(i) for i, ln in
                                               enumerate(lines[1:]) if ln] + [""])
_, o, doc, _ = variant("extra.csv", extra)
if not all(a.get("codecarbon_my_label", "").startswith("x") for a, _ in runs_of(o).values()) \
        or not any(n["field"] == "my_label" for n in doc["notes"]):
    bad("codecarbon: an unknown column is not kept with a note")
# a cut last line
_, o, doc, _ = variant("cut.csv", raw[:len(raw) - 40])
if len(runs_of(o)) != len(expected) - 1 or not any("cut" in n["message"] for n in doc["notes"]):
    bad("codecarbon: a cut last line is not dropped with a note")
# a malformed number: file:line:column and the column named
mal_lines = raw.split("\n")
f5 = mal_lines[4].split(",")
f5[3] = "12.3.4"
mal_lines[4] = ",".join(f5)
col = len(",".join(f5[:3])) + 2
path, o, doc, err = variant("malformed.csv", "\n".join(mal_lines), expect_rc=1)
want = f"malformed.csv:5:{col}"
if want not in err or "duration" not in err or "12.3.4" not in err:
    bad(f"codecarbon: malformed number: expected '{want}' and 'duration' in: {err}")
if not os.path.exists(o) or len(runs_of(o)) < len(expected) - 1:
    bad("codecarbon: one malformed row stopped the other runs")
# a disagreement between energy_consumed and its parts: a note, the published kept
dis = [dict(r) for r in rows]
dis[0]["energy_consumed"] = repr(float(dis[0]["energy_consumed"]) * 1.2)
b = io.StringIO()
w = csv.DictWriter(b, fieldnames=header, lineterminator="\n")
w.writeheader()
w.writerows(dis)
_, o, doc, _ = variant("disagree.csv", b.getvalue())
if not any(n["field"] == "energy_consumed" and "line 2" in n["message"] for n in doc["notes"]):
    bad(f"codecarbon: energy_consumed 20 % off its parts gives no note: {doc['notes']}")
# ... and goes through the published-vs-recomputed machinery: summarize keeps
# both (the published one the headline), check's published_agrees warns
p = subprocess.run([joules, "summarize", o, "--json"], capture_output=True, text=True)
r0 = [x for x in json.loads(p.stdout)["runs"] if x["run"].endswith(rows[0]["run_id"])][0]
d0 = [d for d in r0.get("disagreements", []) if d["figure"] == "total_energy_j"]
if not d0 or not d0[0]["marked"] or not close(d0[0]["relative_difference"], 1 / 1.2 - 1, 1e-9) \
        or not close(r0["total_energy_j"], float(dis[0]["energy_consumed"]) * 3.6e6, 1e-9):
    bad(f"codecarbon: the disagreement is not in summarize's published/recomputed: {d0}")
p = subprocess.run([joules, "check", o, "--json"], capture_output=True, text=True)
res = [run["rules"]["published_agrees"] for run in json.loads(p.stdout)["runs"]
       if run["run"].endswith(rows[0]["run_id"])]
if not res or res[0]["level"] != "warn":
    bad(f"codecarbon: check's published_agrees does not warn on a 17 % disagreement: {res}")
# --set missing: the attributes named, nothing imported
rc, _, err = run("codecarbon", cc_file, os.path.join(work, "noset.h5"))
if rc == 0 or not all(k in err for k in ("workload", "model", "task", "precision",
                                         "max_batch_size")):
    bad(f"codecarbon without --set: rc {rc}: {err}")

# handed to an analysis command, each file says what it is and the import to run
for path, fmt in ((cc_file, "codecarbon"), (os.path.join(zeus_dir, sorted(os.listdir(zeus_dir))[0]),
                                            "zeus")):
    p = subprocess.run([joules, "summarize", path], capture_output=True, text=True)
    if p.returncode == 0 or f"joules import {fmt} " not in p.stderr:
        bad(f"summarize {os.path.basename(path)}: no `joules import {fmt}` advice: {p.stderr}")

# ---- Zeus -------------------------------------------------------------------------

ZSET = SET + ["--set", "gpu_model=A40"]
nwin = 0
for fn in sorted(os.listdir(zeus_dir)):
    path = os.path.join(zeus_dir, fn)
    text = open(path).read()
    zrows = list(csv.DictReader(io.StringIO(text)))
    gcols = [c for c in zrows[0] if c.startswith("gpu")]
    o = os.path.join(work, "zeus_" + str(nwin) + ".h5")
    rc, doc, err = run("zeus", path, o, *ZSET)
    if rc != 0:
        bad(f"zeus {fn}: rc {rc}: {err}")
        continue
    got = runs_of(o)
    if len(got) != len(zrows):
        bad(f"zeus {fn}: {len(got)} runs for {len(zrows)} windows")
    for r in zrows:
        name = fn[:-4] + "__" + r["window_name"].lstrip("_")
        if name not in got:
            bad(f"zeus {fn}: no run {name}")
            continue
        a, s = got[name]
        tot = sum(float(r[c]) for c in gcols)
        for c in gcols:
            if s.get(c + "_j") != float(r[c]):
                bad(f"zeus {name}: summary/{c}_j {s.get(c + '_j')} != {r[c]}")
        el = float(r["elapsed_time"])
        if not (close(s["steady_state_energy_j"], tot) and s["steady_state_duration_s"] == el
                and close(s["avg_power_w"], tot / el) and a["num_gpus"] == len(gcols)):
            bad(f"zeus {name}: figures {s}")
        limit = float(r["window_name"].rsplit("_", 1)[1])
        # the optimiser's limit bounds every GPU: the average power of the
        # window cannot exceed limit x GPUs (NVML enforces it)
        if s["avg_power_w"] > limit * len(gcols) * 1.01:
            bad(f"zeus {name}: {s['avg_power_w']} W above the power limit {limit} W x {len(gcols)}")
        if a.get("gpu_tdp_w") != limit or a.get("zeus_monotonic_start_s") != float(
                r["start_time"]) or "start_time_unix" in a:
            bad(f"zeus {name}: power limit / start {a}")
        nwin += 1
print(f"zeus: {nwin} windows, every gpu<i>_energy kept")

a40 = os.path.join(zeus_dir, "A40+resnet18+gpu0,1,2,3.csv")
ztext = open(a40).read()
zrows = list(csv.DictReader(io.StringIO(ztext)))
zhead = list(zrows[0])


def zvariant(name, text, *extra, expect_rc=0, encoding="utf-8"):
    path = write("z_" + name, text, encoding)
    o = os.path.join(work, "z_" + name + ".h5")
    rc, doc, err = run("zeus", path, o, *ZSET, *extra)
    if rc != expect_rc:
        bad(f"zeus {name}: rc {rc}, expected {expect_rc}: {err}")
    return o, doc, err


def zfig(h5):
    return sorted((n.split("__", 1)[1], tuple(sorted((k, v) for k, v in s.items()
                                                      if not isinstance(v, str))))
                  for n, (a, s) in runs_of(h5).items())


zbase = zfig(zvariant("base.csv", ztext)[0])
# columns reordered (the GPUs first)
cols = zhead[3:][::-1] + ["elapsed_time", "window_name", "start_time"]
b = io.StringIO()
w = csv.DictWriter(b, fieldnames=cols, lineterminator="\n")
w.writeheader()
w.writerows(zrows)
if zfig(zvariant("reordered.csv", b.getvalue())[0]) != zbase:
    bad("zeus: reordered columns give other figures")
# a byte-order mark
if zfig(zvariant("bom.csv", "\ufeff" + ztext)[0]) != zbase:
    bad("zeus: a byte-order mark gives other figures")
# current Zeus: Unix start_time
T0 = 1764230400.0
lines = ztext.split("\n")
unix = [lines[0]] + [str(T0 + float(ln.split(",", 1)[0]) - 13586624) + "," + ln.split(",", 1)[1]
                     for ln in lines[1:] if ln] + [""]
o, doc, _ = zvariant("unix.csv", "\n".join(unix))
starts = sorted(a["start_time_unix"] for a, _ in runs_of(o).values())
if len(starts) != len(zrows) or abs(starts[0] - (T0 + 0.12895549)) > 1e-6:
    bad(f"zeus: Unix start_time not read as @start_time_unix: {starts[:2]}")
# a window name holding commas (Zeus writes it unquoted)
cm = lines[:]
cm[1] = cm[1].replace("__GlobalPowerLimitOptimizer_300", "epoch 1, step 3, eval")
o, doc, _ = zvariant("comma.csv", "\n".join(cm))
names = {a["zeus_window_name"] for a, _ in runs_of(o).values()}
if "epoch 1, step 3, eval" not in names:
    bad(f"zeus: a window name with commas not joined back: {sorted(names)[:3]}")
# cpu and dram energy columns: host energy
hc = io.StringIO()
w = csv.DictWriter(hc, fieldnames=zhead + ["cpu0_energy", "dram0_energy"], lineterminator="\n")
w.writeheader()
for r in zrows:
    w.writerow(dict(r, cpu0_energy="100.5", dram0_energy="20.25"))
o, _, _ = zvariant("host.csv", hc.getvalue())
for n, (a, s) in runs_of(o).items():
    g = s["steady_state_energy_j"]
    if s.get("host_energy_j") != 120.75 or not close(s.get("total_energy_j"), g + 120.75):
        bad(f"zeus host: {n}: host {s.get('host_energy_j')} total {s.get('total_energy_j')}")
        break
# a cut last line
o, doc, _ = zvariant("cut.csv", ztext[:len(ztext) - 30])
if len(runs_of(o)) != len(zrows) - 1 or not any("cut" in n["message"] for n in doc["notes"]):
    bad("zeus: a cut last line is not dropped with a note")
# a malformed number
ml = ztext.split("\n")
f4 = ml[3].split(",")
f4[4] = "41x70"
ml[3] = ",".join(f4)
col = len(",".join(f4[:4])) + 2
o, doc, err = zvariant("malformed.csv", "\n".join(ml), expect_rc=1)
if f"z_malformed.csv:4:{col}" not in err or "gpu1_energy" not in err:
    bad(f"zeus: malformed number: expected z_malformed.csv:4:{col} and gpu1_energy in: {err}")
if len(runs_of(o)) != len(zrows) - 1:
    bad("zeus: one malformed row stopped the other windows")
# not a Zeus log
o, doc, err = zvariant("notzeus.csv", raw, expect_rc=3)
# the recogniser every command shares names it and the command that reads it
if ("not a file `joules import zeus` reads" not in err or "CodeCarbon's emissions.csv" not in err
        or "`joules import codecarbon " not in err):
    bad(f"zeus: an emissions.csv is not refused as CodeCarbon's with its import command: {err}")
# --set missing
rc, _, err = run("zeus", a40, os.path.join(work, "znoset.h5"))
if rc == 0 or "gpu_model" not in err:
    bad(f"zeus without --set: rc {rc}: {err}")

if fails:
    print(f"{fails} failures")
    sys.exit(1)
print("OK")
