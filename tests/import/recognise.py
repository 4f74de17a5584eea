#!/usr/bin/env python3
"""recognise.py JOULES WORK — one recogniser for every command (issue 38 item 8).

A file (or folder) of every format joules imports, and of the common
impostors, is made here from the format (never copied from public data).
Each is handed to `summarize`, `inspect`, `check` and `report`: each must
say what the input is and, where an importer reads it, the exact `joules
import` command. Then each file is given to an importer of another format:
`joules import` must say what it is and name the right command before the
wrong importer misreads it. The suggested -o commands are run where they
need nothing more than the file (fill-in values given), and must import.
"""
import gzip
import os
import shutil
import sqlite3
import subprocess
import sys

joules, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = 0
checks = 0


def bad(msg):
    global failures
    failures += 1
    print("FAIL:", msg)


def put(rel, data):
    p = os.path.join(work, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    return p


def run(args, cwd=None):
    r = subprocess.run([joules] + args, capture_output=True, text=True, cwd=cwd or work,
                       timeout=120)
    return r.returncode, r.stdout, r.stderr


KINETO = ('{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100"}], '
          '"baseTimeNanoseconds": 1700000000000000000, "traceEvents": [{"ph": "X", "cat": '
          '"gpu_user_annotation", "name": "step", "ts": 1, "dur": 5, "pid": 0, "tid": 7}]}')
NVSMI = ("timestamp, name, index, power.draw [W]\n"
         + "".join(f"2026/11/23 10:00:{s:02d}.000, NVIDIA H100 80GB HBM3, 0, 200.00 W\n"
                   for s in range(30)))
DMON = ("#Date       Time        gpu    pwr  gtemp\n#YYYYMMDD   HH:MM:SS    Idx      W      C\n"
        + "".join(f" 20261123   10:00:{s:02d}      0    200     35\n" for s in range(30)))
CODECARBON = ("timestamp,project_name,run_id,duration,emissions,emissions_rate,cpu_power,"
              "gpu_power,ram_power,cpu_energy,gpu_energy,ram_energy,energy_consumed,country_name,"
              "codecarbon_version\n2026-11-23T10:00:30,p,0a1b,30.0,0.001,3.3e-05,40,200,10,"
              "0.0003,0.0017,0.00008,0.00208,France,2.3.4\n")
ZEUS = "start_time,window_name,elapsed_time,gpu0_energy\n1763892000.0,w,30.0,6000.0\n"
VLLM = '{"date": "20261123-100030", "backend": "vllm", "completed": 1, "ttfts": [0.1], "itls": [[0.01]]}'
PROM_TEXT = ('# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).\n'
             '# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n'
             'DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-1",Hostname="n1",pod="a"} 200\n')
PROM_JSON = ('{"status": "success", "data": {"resultType": "matrix", "result": [{"metric": '
             '{"__name__": "DCGM_FI_DEV_POWER_USAGE", "gpu": "0"}, "values": [[1763892000, "200"]]}]}}')
LFS = "version https://git-lfs.github.com/spec/v1\noid sha256:" + "ab" * 32 + "\nsize 1234567\n"

files = {}
files["nvsmi"] = put("gpu.csv", NVSMI)
files["dmon"] = put("dmon.txt", DMON)
files["codecarbon"] = put("emissions.csv", CODECARBON)
files["zeus"] = put("zeus.csv", ZEUS)
files["vllm"] = put("vllm.json", VLLM)
files["kineto"] = put("prof.pt.trace.json", KINETO)
# a two-member gzip (torch.profiler appends): the head is read through zlib
files["kineto_gz"] = put("prof2.pt.trace.json.gz",
                         gzip.compress(KINETO[:40].encode()) + gzip.compress(KINETO[40:].encode()))
dbp = os.path.join(work, "export.sqlite")
db = sqlite3.connect(dbp)
db.execute("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT)")
db.commit()
db.close()
files["nsys"] = dbp
files["nsys_rep"] = put("report1.nsys-rep", b"\x00\x01NSYS\x00" * 16)
files["lfs"] = put("lfs/export.sqlite", LFS)
files["prom_text"] = put("scrape.txt", PROM_TEXT)
files["prom_json"] = put("power.json", PROM_JSON)
files["semicolon"] = put("excel.csv", "timestamp;name;power.draw [W]\n" + "".join(
    f"2026/11/23 10:00:{s:02d}.000;NVIDIA H100;12,06 W\n" for s in range(30)))
files["table"] = put("smi.txt", "Tue Oct 29 19:00:23 2024\n+---------------------------------+\n"
                     "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |\n")
files["mlperf"] = os.path.dirname(put(
    "sub/closed/X/results/SYS_H100x8/resnet50/Offline/performance/run_1/mlperf_log_detail.txt",
    ':::MLLOG {"key": "effective_scenario", "value": "Offline"}\n'))
files["bench"] = os.path.dirname(put("bench/llm/chat/o/m/H100/num_gpus+1/results.json",
                                     '{"benchmark_start_time": 1}'))
files["leaderboard"] = os.path.dirname(put("lb/index.json", "{}"))

# what each is said to be, and the import command's start (None: none reads it)
expect = {
    "nvsmi": ("an nvidia-smi CSV log", "joules import nvidia-smi "),
    "dmon": ("`nvidia-smi dmon -o DT` output", "joules import nvidia-smi "),
    "codecarbon": ("CodeCarbon's emissions.csv", "joules import codecarbon "),
    "zeus": ("a ZeusMonitor log", "joules import zeus "),
    "vllm": ("a vLLM serving-benchmark result", None),
    "kineto": ("PyTorch profiler (Kineto) Chrome trace", "joules import kineto "),
    "kineto_gz": ("PyTorch profiler (Kineto) Chrome trace", "joules import kineto "),
    "nsys": ("an Nsight Systems export", "joules import nsys "),
    "nsys_rep": ("an Nsight Systems report", None),
    "lfs": ("a Git LFS pointer", None),
    "prom_text": ("the Prometheus text exposition format", "joules import prometheus "),
    "prom_json": ("a Prometheus API answer", "joules import prometheus "),
    "semicolon": ("fields separated by ';'", "joules import nvidia-smi "),
    "table": ("human-readable `nvidia-smi` table", None),
    "mlperf": ("MLPerf Inference results", "joules import mlperf-power "),
    "bench": ("ML.ENERGY Benchmark runs", "joules import mlenergy-benchmark "),
    "leaderboard": ("the ML.ENERGY Leaderboard's published data", "joules import mlenergy "),
}

for key, path in files.items():
    what, cmd = expect[key]
    for command in (["summarize"], ["inspect"], ["check"], ["report", "-o", "rep-" + key]):
        checks += 1
        rc, out, err = run(command + [path])
        if rc == 0:
            bad(f"{command[0]} {key}: exit 0 on a file that is no trace")
        if "it looks like" not in err or what not in err:
            bad(f"{command[0]} {key}: does not say it is {what!r}: {err.strip()[:400]}")
        if cmd and f"`{cmd}" not in err:
            bad(f"{command[0]} {key}: no `{cmd}...` command: {err.strip()[:400]}")
        if not cmd and "Import it first" in err:
            bad(f"{command[0]} {key}: suggests an import nothing reads: {err.strip()[:400]}")
        if "cannot open as an HDF5 file" in err:
            bad(f"{command[0]} {key}: the HDF5 reader's message instead of what it is")

# each file given to another importer: named for what it is, before the
# importer misreads it (its own importer is not this one)
wrong = {"nvsmi": "codecarbon", "codecarbon": "nvidia-smi", "zeus": "codecarbon",
         "vllm": "nvidia-smi", "kineto": "nsys", "kineto_gz": "nsys", "nsys": "kineto",
         "lfs": "nsys", "nsys_rep": "nsys", "prom_text": "nvidia-smi", "prom_json": "kineto",
         "dmon": "zeus"}
for key, fmt in wrong.items():
    checks += 1
    what, cmd = expect[key]
    args = ["import", fmt, files[key]]
    args += ["--into", "t.h5:r"] if fmt in ("kineto", "nsys") else ["-o", f"wrong-{key}.h5"]
    rc, out, err = run(args)
    if rc == 0:
        bad(f"import {fmt} {key}: exit 0")
    if f"not a file `joules import {fmt}` reads" not in err or what not in err:
        bad(f"import {fmt} {key}: not named as {what!r}: {err.strip()[:400]}")
    if cmd and f"`{cmd}" not in err:
        bad(f"import {fmt} {key}: no `{cmd}...` command: {err.strip()[:400]}")
    if os.path.exists(os.path.join(work, f"wrong-{key}.h5")):
        bad(f"import {fmt} {key}: wrote a trace")

# the suggested commands, run as printed (fill-in values given), import
fill = {"MODEL": "m", "TASK": "chat", "PRECISION": "bfloat16", "CAP": "8", "GPU": "H100", "N": "1"}
for key in ("nvsmi", "dmon", "codecarbon", "semicolon"):
    checks += 1
    rc, out, err = run(["summarize", files[key]])
    line = err.split("Import it first: `", 1)[1].split("`", 1)[0] if "Import it first: `" in err else ""
    argv = []
    for word in line.split()[1:]:
        key_, _, value = word.partition("=")
        argv.append(f"{key_}={fill[value]}" if value in fill else word)
    if not argv:
        bad(f"{key}: no command to run: {err.strip()[:300]}")
        continue
    rc, out, err = run(argv + ["--force"])
    if rc != 0:
        bad(f"{key}: the suggested command `{' '.join(argv)}` fails ({rc}): {err.strip()[:400]}")

print(f"recognise: {checks} checks, {failures} failed")
sys.exit(1 if failures else 0)
