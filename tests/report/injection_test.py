#!/usr/bin/env python3
"""Figures without a shell (issue 35, item 2; docs/security.md, "Figures and
generated program text"): titles, names and attribute values crafted to run
a command never run one -- not in `joules report`, not when the shipped
.gp scripts are run again with gnuplot in every format -- and never become
markup in the pages.

Three ways in, each through every figure kind it reaches:
  trace   run attributes (model, task, gpu_model, precision), a run's name
          and profiler span names of crafted traces (power, trends,
          frontier, model fit, GPU comparison, task overview, precision;
          the attribution page)
  mlenergy an ML.ENERGY Leaderboard v3 tree whose model_id holds newlines
          and whose gpu_model holds backquotes, through `import mlenergy`
  csv     an nvidia-smi log whose GPU name and a RUNS.csv whose model, task
          and run name are crafted, through `import nvidia-smi` (a crafted
          precision there is refused by the importer: checked too)

Each payload holds a backquoted command (gnuplot substitutes `cmd` inside
double quotes), a newline followed by `!cmd` and by `system("cmd")`, a
trailing backslash (gnuplot continues a comment that ends in one), printf
conversions (tic labels are formats), a macro and HTML. Each command would
create a file MARK-*; the test fails when one exists anywhere under its
folder, when a payload did not reach the scripts (so the test tests
something), when a figure kind is missing, or when a page holds the
payload's markup unescaped.

Usage: injection_test.py JOULES SOURCE_DIR. Exit 0 pass, 1 fail, 77 skip."""
import csv
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

JOULES, SRC = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def skip(msg):
    print("SKIP:", msg)
    sys.exit(77)


def payload(tag):
    return ("x`touch MARK-%s-bq`'\"\n!touch MARK-%s-bang\nsystem(\"touch MARK-%s-sys\")\r"
            "%%n%%s @m <script>alert(1)</script>&amp; \\" % (tag, tag, tag))


def run(args, cwd):
    p = subprocess.run([JOULES] + args, cwd=cwd, capture_output=True)
    if p.returncode:
        fail(f"joules {' '.join(args[:2])} exited {p.returncode}: {p.stderr.decode()[-1500:]}")
    return p


def crafted_traces(tmp):
    import h5py
    import numpy as np
    out = os.path.join(tmp, "traces")
    os.makedirs(out)
    files = {"h100-qwen3-8b-shape-chat.h5": "h100", "h200-qwen3-8b-shape-chat.h5": "h200",
             "h100-qwen3-1.7b-shape-chat.h5": "h100"}
    for name, gdir in files.items():
        dst = os.path.join(out, name)
        shutil.copy(os.path.join(SRC, "traces", gdir, name), dst)
        with h5py.File(dst, "r+") as f:
            runs = sorted(f["runs"].keys())
            for i, rn in enumerate(runs):
                a = f["runs"][rn].attrs
                a["model"] = "evil/" + payload("t-model17" if "1.7b" in name else "t-model8")
                a["task"] = payload("t-task")
                if gdir == "h200":
                    a["gpu_model"] = payload("t-gpu")
                if "8b" in name and gdir == "h100" and i % 2:
                    a["precision"] = payload("t-prec")  # a second precision: the precision figure
            if "8b" in name and gdir == "h100":
                f["runs"].move(runs[-1], "b9`touch MARK-t-run-bq`\n!touch MARK-t-run-bang")
            if "1.7b" in name:  # spans with crafted names: the attribution page
                run_ = f["runs"][runs[-1]]
                t = run_["power/time"][:]
                t0, t1 = float(t[0]) + 1.0, float(t[-1]) - 1.0
                g = run_.create_group("spans")
                g.attrs["source"] = "harness"
                g.attrs["side"] = "gpu"
                g.attrs["window"] = np.array([t0, t1])
                g.attrs["clock"] = "run clock"
                g.attrs["clock_uncertainty_s"] = 0.0
                names = ["layer0." + payload("t-span"), "layer1.mlp<img src=x onerror=alert(1)>",
                         "layer0.mlp<img src=x onerror=alert(1)>", "layer1." + payload("t-span")]
                g.create_dataset("names", data=np.array(names, dtype=h5py.string_dtype()))
                n = 200
                st = np.linspace(t0, t1, n + 1)[:-1]
                d = (t1 - t0) / n
                g.create_dataset("name", data=np.array([i % 4 for i in range(n)], dtype=np.int32))
                g.create_dataset("start", data=st)
                g.create_dataset("end", data=st + d * 0.9)
                g.create_dataset("parent", data=np.full(n, -1, dtype=np.int32))
                g.create_dataset("busy_s", data=np.full(n, d * 0.8, dtype=np.float32))
    return out


def crafted_mlenergy(tmp):
    root = os.path.join(tmp, "mlenergy")
    os.makedirs(os.path.join(root, "models"))

    def cfg(gpu, b, base):
        itl = 10 + b * 0.2 * (1.3 if gpu != "H100" else 1.0)
        e = base / b ** 0.5 * (0.8 if gpu != "H100" else 1.0)
        return {"avg_batch_size": b * 0.95, "avg_output_len": 600.0, "avg_power_watts": 300 + 2 * b,
                "energy_per_request_joules": e * 600, "energy_per_token_joules": e, "gpu_model": gpu,
                "max_num_seqs": b, "median_itl_ms": itl, "num_gpus": 1,
                "output_throughput_tokens_per_sec": b / itl * 1000, "p90_itl_ms": itl * 1.4,
                "p95_itl_ms": itl * 1.5, "p99_itl_ms": itl * 1.8,
                "parallelization": {"data_parallel": 1, "expert_parallel": 1,
                                    "notes": payload("m-notes"), "tensor_parallel": 1}}
    for k, mid in enumerate(["org/" + payload("m-model"), "org2/plain-model"]):
        doc = {"model_id": mid, "task": "gpqa", "total_params_billions": 8.0,
               "activated_params_billions": 8.0, "weight_precision": "bfloat16",
               "architecture": payload("m-arch"),
               "configurations": [cfg(g, b, 0.5 + k) for g in ("H100", payload("m-gpu"))
                                  for b in (8, 16, 32, 64, 128, 256)]}
        with open(os.path.join(root, "models", f"m{k}__gpqa.json"), "w") as f:
            json.dump(doc, f, indent=1)
    return root


def crafted_csv(tmp, precision=None):
    """precision None: a valid one; else the crafted one (the importer
    checks precisions against the trace format's vocabulary)."""
    root = os.path.join(tmp, "csv" if precision is None else "csv-prec")
    os.makedirs(root)
    # an nvidia-smi log is one line a sample: its GPU name keeps no newline
    # or comma, but all the rest
    gpu = "NVIDIA " + payload("c-smi").replace("\n", " ").replace("\r", " ").replace('"', "'")
    with open(os.path.join(root, "smi.csv"), "w") as f:
        f.write("timestamp, index, name, power.draw [W], power.draw.instant [W], power.limit [W], "
                "utilization.gpu [%], memory.used [MiB], memory.total [MiB], temperature.gpu\n")
        for i in range(1200):
            s = 600 + i * 0.1
            p = 150 + 200 * ((i // 100) % 2)
            f.write("2026/11/23 10:%02d:%06.3f, 0, %s, %.2f W, %.2f W, 700.00 W, 50 %%, 1000 MiB, "
                    "81559 MiB, 40\n" % (int(s // 60), s % 60, gpu.replace(",", ";"), p, p + 5))
    rows = [["run", "start", "end", "gpus", "model", "task", "precision", "max_batch_size"]]
    for k in range(6):
        s = 600 + k * 20
        rows.append(["r%d%s" % (k, "`touch MARK-c-run-bq`\n!touch MARK-c-run-bang" if k == 0 else ""),
                     "2026-11-23T10:%02d:%02dZ" % (s // 60, s % 60),
                     "2026-11-23T10:%02d:%02dZ" % ((s + 15) // 60, (s + 15) % 60), "0",
                     "org/" + payload("c-model"), payload("c-task"), precision or "bfloat16",
                     str(2 ** k)])
    with open(os.path.join(root, "runs.csv"), "w", newline="") as f:
        csv.writer(f).writerows(rows)
    return root


def live_text(line):
    """What in one script line gnuplot could run: a line that starts a shell
    escape or system(), a backquote outside single-quoted literals (where
    gnuplot substitutes commands), a comment continued by a backslash."""
    if re.match(r"\s*(!|system\b)", line):
        return "a shell escape"
    i, n = 0, len(line.rstrip("\n"))
    while i < n:
        c = line[i]
        if c == "'":  # a single-quoted literal: '' is a quote, nothing else counts
            i += 1
            while i < n and not (line[i] == "'" and (i + 1 >= n or line[i + 1] != "'")):
                i += 2 if line[i] == "'" else 1
        elif c == '"':
            i += 1
            while i < n and line[i] != '"':
                if line[i] == "`":
                    return "a backquote in a double-quoted string"
                i += 2 if line[i] == "\\" else 1
        elif c == "`":
            return "a backquote outside a literal"
        elif c == "#":
            return "a comment continued onto the next line" if line.rstrip("\n").endswith("\\") else None
        i += 1
    return None


def markers(tmp):
    return [os.path.relpath(p, tmp) for p in glob.glob(os.path.join(tmp, "**", "MARK*"), recursive=True)]


def check_report(tmp, name, inp, kinds, tags):
    out = os.path.join(tmp, "rep-" + name)
    run(["report", inp, "-o", out, "--formats", "svg,pdf,png"], cwd=os.path.join(tmp, "work"))
    rep = json.load(open(os.path.join(out, "data", "report.json")))
    have = {f["kind"] for f in rep["figures"]}
    if not kinds <= have:
        fail(f"{name}: figure kinds {sorted(kinds - have)} not drawn (have {sorted(have)})")
    figdir = os.path.join(out, "figures")
    scripts = sorted(glob.glob(os.path.join(figdir, "*.gp")))
    text = "".join(open(p, encoding="utf-8").read() for p in scripts)
    for tag in tags:  # the payloads did reach the scripts, as inert text
        if f"touch MARK-{tag}-bq" not in text:
            fail(f"{name}: payload {tag} is in no script (the test would test nothing)")
    for p in scripts:
        for ln, line in enumerate(open(p, encoding="utf-8"), 1):
            why = live_text(line)
            if why:
                fail(f"{os.path.basename(p)}:{ln}: {why}: {line[:160]!r}")
    for svg in glob.glob(os.path.join(figdir, "*.svg")):
        ET.parse(svg)  # valid XML whatever the names held
    # the shipped scripts, run again as docs/report.md says, in every format
    for p in scripts:
        for fmt in ("svg", "png", "pdf", "pdf1"):
            subprocess.run(["gnuplot", "-e", f"fmt='{fmt}'", os.path.basename(p)], cwd=figdir,
                           capture_output=True, timeout=120)
    for page in glob.glob(os.path.join(out, "*.html")):
        html = open(page, encoding="utf-8").read()
        for bad in ("<script", "<img src=x"):
            if bad in html:
                fail(f"{name}: {os.path.basename(page)} holds '{bad}' unescaped")
    left = markers(tmp)
    if left:
        fail(f"{name}: a crafted name ran a command: {left}")
    print(f"ok: {name}: {len(scripts)} scripts ({', '.join(sorted(have))}) drawn and re-run in "
          f"4 formats, no command ran, pages escaped")
    return rep


def main():
    if not shutil.which("gnuplot"):
        skip("gnuplot not installed (the scripts cannot be run)")
    try:
        import h5py  # noqa: F401
        import numpy  # noqa: F401
    except ImportError:
        skip("python3 h5py/numpy not installed (the crafted traces)")
    tmp = tempfile.mkdtemp(prefix="joules-injection-")
    try:
        work = os.path.join(tmp, "work")
        os.makedirs(work)
        # 1. traces
        t = crafted_traces(tmp)
        rep = check_report(tmp, "trace", t, {"power", "batch_trends", "frontier", "model_fit",
                                             "gpu_comparison", "task_overview", "precision"},
                           ["t-model8", "t-model17", "t-task", "t-gpu", "t-prec"])
        if not os.path.exists(os.path.join(tmp, "rep-trace", "attribution.html")):
            fail("trace: no attribution page (the crafted spans were not read)")
        # 2. ML.ENERGY JSON through import mlenergy
        ml = crafted_mlenergy(tmp)
        run(["import", "mlenergy", ml, "-o", os.path.join(tmp, "ml.h5")], cwd=work)
        check_report(tmp, "mlenergy", os.path.join(tmp, "ml.h5"),
                     {"batch_trends", "frontier", "model_fit", "gpu_comparison", "task_overview"},
                     ["m-model", "m-gpu"])
        # 3. CSV through import nvidia-smi. A crafted precision is refused
        # by the importer (not a precision of the trace format), so it
        # never reaches a figure: that refusal is checked first
        c = crafted_csv(tmp, payload("c-prec"))
        p = subprocess.run([JOULES, "import", "nvidia-smi", os.path.join(c, "smi.csv"), "--runs",
                            os.path.join(c, "runs.csv"), "--timezone", "UTC", "--set", "workload=llm",
                            "-o", os.path.join(tmp, "csv-prec.h5")], cwd=work, capture_output=True)
        if p.returncode != 3 or b"field 'precision'" not in p.stderr:
            fail(f"csv: a crafted precision: exit {p.returncode}, not 3 naming the field: "
                 f"{p.stderr.decode()[-500:]}")
        if os.path.exists(os.path.join(tmp, "csv-prec.h5")) or markers(tmp):
            fail(f"csv: a crafted precision left {markers(tmp) or 'csv-prec.h5'}")
        c = crafted_csv(tmp)
        run(["import", "nvidia-smi", os.path.join(c, "smi.csv"), "--runs", os.path.join(c, "runs.csv"),
             "--timezone", "UTC", "--set", "workload=llm", "-o", os.path.join(tmp, "csv.h5")], cwd=work)
        check_report(tmp, "csv", os.path.join(tmp, "csv.h5"), {"power", "batch_trends"},
                     ["c-model", "c-task", "c-smi"])
        del rep
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
