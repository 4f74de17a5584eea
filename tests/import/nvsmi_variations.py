"""nvidia-smi logs as they come (issue 26, item 3): the variations a user has,
made at test time from the real logs of shared/realworld (read in place; the
variations are written to a temporary folder, never committed):

  every log with power    imports, energy = the trapezoid over its samples (0.5 %)
  UTF-8 BOM, UTF-16LE     (PowerShell's `>`, CRLF) the same energy as the log
  appended sessions       the header again mid-file: one log, a note per header
  cut last line           dropped with a note, the energy of the rest
  reordered polls         GPUs of a poll in another order: the same energy
  no index, 8 GPUs        an error that says so and what to query
  dmon -o DT              read: energy = the trapezoid over its samples
  ';' fields, decimal commas  (a spreadsheet's export) the same energy as the log
  dmon without -o DT, the table of plain nvidia-smi
                          an error naming what the file is
  -l 5                    a note on its resolution; `check` passes its coverage

Exit 77 (skip) when ../shared is absent.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--joules", required=True)
ap.add_argument("--shared", required=True)
ap.add_argument("--out")
a = ap.parse_args()

corpus = os.path.join(a.shared, "realworld", "public-corpus", "nvidia-smi")
h100 = os.path.join(a.shared, "realworld", "nvidia-smi-h100", "nvidia-smi-100ms.csv")
if not (os.path.isdir(corpus) and os.path.isfile(h100)):
    print(f"SKIP: {corpus} or {h100} missing")
    sys.exit(77)
out = a.out or tempfile.mkdtemp(prefix="joules-nvsmi-var-")
os.makedirs(out, exist_ok=True)
failures = []


def check(cond, what):
    print(("ok    " if cond else "FAIL  ") + what)
    if not cond:
        failures.append(what)


def imp(path, *extra):
    """(exit code, summary runs or None, import document or None, stderr)"""
    h5 = os.path.join(out, os.path.basename(path) + ".h5")
    # the required attributes a log does not say (an error otherwise)
    req = ["--set", "workload=llm", "--set", "model=m", "--set", "task=t", "--set",
           "precision=bf16", "--set", "max_batch_size=8", "--set", "gpu_model=GPU"]
    p = subprocess.run([a.joules, "import", "nvidia-smi", path, "--timezone", "UTC", "-o", h5,
                        "--force", "--json", *req, *extra], capture_output=True, text=True)
    doc = json.loads(p.stdout) if p.stdout.strip().startswith("{") else None
    if p.returncode != 0:
        return p.returncode, None, doc, p.stderr
    s = subprocess.run([a.joules, "summarize", "--json", h5], capture_output=True, text=True)
    return p.returncode, json.loads(s.stdout)["runs"], doc, p.stderr


def energy(runs):
    return sum(r["run_energy_j"] for r in runs)


def notes(doc):
    return " | ".join(n["message"] for n in (doc or {}).get("notes", []))


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def write(name, text, encoding="utf-8", newline="\n"):
    p = os.path.join(out, name)
    with open(p, "w", encoding=encoding, newline=newline) as f:
        f.write(text)
    return p


def secs(ts):
    """seconds of a time of day in '2025/04/24 16:02:12.560' or ISO form"""
    t = ts.replace("T", " ").split(" ")[1][:12]
    h, m, s = t.split(":")
    return int(h) * 3600 + int(m) * 60 + float(s[:6])


def num(v):
    return float(v.strip().split(" ")[0])


def trapezoid(rows, tcol, pcol):
    """Energy of one GPU's power over its samples (J)."""
    pts = [(secs(r[tcol]), num(r[pcol])) for r in rows]
    return sum((t1 - t0) * (p0 + p1) / 2 for (t0, p0), (t1, p1) in zip(pts, pts[1:]))


def rows_of(text):
    lines = [ln for ln in text.splitlines() if ln.strip()]
    head = [h.strip() for h in lines[0].split(",")]
    return head, [[f.strip() for f in ln.split(",")] for ln in lines[1:]]


# ---- every log with power: energy = the trapezoid over its samples --------------
logs = []
for d in sorted(os.listdir(corpus)):
    for f in sorted(os.listdir(os.path.join(corpus, d))):
        if f.endswith(".csv"):
            logs.append(os.path.join(corpus, d, f))
for path in logs:
    head, rows = rows_of(read(path))
    pcol = next((i for i, h in enumerate(head) if h.startswith("power.draw")), None)
    if pcol is None or "index" in head and len({r[head.index("index")] for r in rows}) > 1:
        continue
    if len({r[0] for r in rows}) < len(rows):  # several GPUs a time: below
        continue
    rc, runs, doc, err = imp(path)
    ref = trapezoid(rows, 0, pcol)
    got = energy(runs) if runs else float("nan")
    check(rc == 0 and abs(got - ref) <= 0.005 * ref,
          f"{os.path.basename(path)}: {got:.1f} J, trapezoid {ref:.1f} J")

base = os.path.join(corpus, "flame-fluidsgl", "fluidsGL-smi.csv")
text = read(base)
rc, runs, _, _ = imp(base)
e0 = energy(runs)

# ---- encodings -------------------------------------------------------------------
p = write("bom.csv", "\ufeff" + text)
rc, runs, doc, err = imp(p)
check(rc == 0 and abs(energy(runs) - e0) < 1e-6 * e0 and "byte-order mark" in notes(doc),
      "UTF-8 byte-order mark: the same energy, a note")
p = write("utf16.csv", "\ufeff" + text, encoding="utf-16-le", newline="\r\n")
rc, runs, doc, err = imp(p)
check(rc == 0 and abs(energy(runs) - e0) < 1e-6 * e0 and "UTF-16LE" in notes(doc),
      "UTF-16LE with CRLF (PowerShell's >): the same energy, a note")

# ---- appended sessions, a cut last line ------------------------------------------
lines = text.splitlines(keepends=True)
half = len(lines) // 2
p = write("appended.csv", "".join(lines[:half] + [lines[0]] + lines[half:]))
rc, runs, doc, err = imp(p)
check(rc == 0 and abs(energy(runs) - e0) < 1e-6 * e0 and "repeats the header" in notes(doc),
      "a second session appended (header again): one log, the same energy, a note")
p = write("cut.csv", text + lines[5][:17])
rc, runs, doc, err = imp(p)
check(rc == 0 and abs(energy(runs) - e0) < 1e-6 * e0 and "cut short" in notes(doc),
      "a cut last line: dropped with a note, the energy of the rest")

# ---- several GPUs: no index; polls in another GPU order -------------------------
xy = read(os.path.join(corpus, "xypp3-8gpu-wrapper", "nvidia_smi.csv"))
head, rows = rows_of(xy)
gi, ii = head.index("gpu"), head.index("index")
keep = [i for i in range(len(head)) if i not in (gi, ii)]
p = write("noindex.csv", "\n".join(",".join(r[i] for i in keep) for r in [head] + rows) + "\n")
rc, runs, doc, err = imp(p)
check(rc != 0 and "no index or uuid column" in err, "8 GPUs without index: an error saying so")
cols = [gi] + keep
named = [["index" if i == gi else head[i] for i in cols]] + [[r[i] for i in cols] for r in rows]
p = write("indexed.csv", "\n".join(",".join(r) for r in named) + "\n")
rc, runs, doc, err = imp(p)
e8 = energy(runs) if runs else float("nan")
check(rc == 0 and runs and len(runs[0]["gpu_energy_j"]) == 8, "8 GPUs by index: 8 columns")
polls, cur = [], []
for r in named[1:]:
    if cur and r[1] != cur[0][1]:
        polls.append(cur)
        cur = []
    cur.append(r)
polls.append(cur)
mixed = [p_[::-1] if k % 2 else p_[3:] + p_[:3] for k, p_ in enumerate(polls)]
p = write("reordered.csv", "\n".join(",".join(r) for r in [named[0]] + sum(mixed, [])) + "\n")
rc, runs, doc, err = imp(p)
check(rc == 0 and abs(energy(runs) - e8) < 1e-6 * e8,
      f"polls in another GPU order: the same energy ({energy(runs) if runs else 0:.1f} J)")

# ---- dmon ------------------------------------------------------------------------
head, rows = rows_of(read(h100))
tcol, pcol = 0, head.index("power.draw [W]")
seen, dm = set(), []
for r in rows:  # one sample a second, as dmon writes
    if r[0][:19] not in seen:
        seen.add(r[0][:19])
        dm.append(r)
out_lines = ["#Date       Time        gpu   pwr gtemp mtemp    sm   mem",
             "#YYYYMMDD   HH:MM:SS    Idx     W     C     C     %     %"]
for k, r in enumerate(dm):
    if k and k % 20 == 0:
        out_lines += out_lines[:2]
    d, t = r[0].split(" ")
    out_lines.append(f" {d.replace('/', '')}   {t[:8]}      0   {round(num(r[pcol])):>3}"
                     f"    {r[head.index('temperature.gpu')]}     -     0     0")
p = write("dmon.txt", "\n".join(out_lines) + "\n")
rc, runs, doc, err = imp(p)
ref = sum((secs(b[0][:19]) - secs(a_[0][:19])) * (round(num(a_[pcol])) + round(num(b[pcol]))) / 2
          for a_, b in zip(dm, dm[1:]))
got = energy(runs) if runs else float("nan")
check(rc == 0 and abs(got - ref) <= 0.005 * ref, f"dmon -o DT: {got:.1f} J, trapezoid {ref:.1f} J")
p = write("dmon-plain.txt", "\n".join(ln.replace("#Date       Time        ", "#")
                                      for ln in out_lines[:4]) + "\n")
rc, runs, doc, err = imp(p)
check(rc != 0 and "dmon" in err and "-o DT" in err, "dmon without -o DT: an error naming it")
rc, runs, doc, err = imp(os.path.join(corpus, "slurmmwe-table", "gpu_usage.log"))
check(rc != 0 and "human-readable table" in err, "the table of plain nvidia-smi: named")
# ';' between fields and decimal commas (a spreadsheet's export in a
# decimal-comma locale): read, the same energy as the log
semi = "\n".join(";".join(f.replace(".", ",") if f[:1].isdigit() and " " in f and ":" not in f
                           else f for f in ln.split(", ")) for ln in text.splitlines()) + "\n"
p = write("semicolon.csv", semi)
rc, runs, doc, err = imp(p)
got = energy(runs) if runs else float("nan")
semi_notes = notes(doc)
check(rc == 0 and abs(got - e0) <= 1e-6 * e0 and "';'" in semi_notes
      and "decimal commas" in semi_notes,
      f"';'-separated fields with decimal commas: {got:.1f} J, the log {e0:.1f} J")

# ---- a log polled every 5 s ------------------------------------------------------
gl = read(os.path.join(corpus, "ignasipc-gpulog", "gpu_log.csv")).splitlines(keepends=True)
p = write("l5.csv", "".join(gl[:1] + gl[1::5]))
rc, runs, doc, err = imp(p)
h5 = os.path.join(out, "l5.csv.h5")
ck = subprocess.run([a.joules, "check", h5], capture_output=True, text=True).stdout
check(rc == 0 and "polls every" in notes(doc) and "pass power_sample_coverage" in ck,
      "-l 5: a note on its resolution, check passes power_sample_coverage")

if failures:
    print(f"FAIL: {len(failures)} of the variations")
    sys.exit(1)
print("all variations as they should be")
