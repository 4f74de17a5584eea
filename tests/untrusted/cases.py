#!/usr/bin/env python3
"""Untrusted input stays data (docs/security.md): folder walks that end,
bounded work, and the parser findings of issue 35, one ctest per case.

    cases.py --list
    cases.py --joules PATH --work DIR --case NAME

Each case makes its crafted input here, at test time (nothing big is
committed), runs the joules command a user would, and checks what
docs/security.md promises:

  - walk_*: a folder walk ends and reads each file once per (device,
    inode): `self -> .` links, two links pointing at each other's folders,
    one file named three ways; in the study's path listing and in every
    importer that walks a folder;
  - bound_*: work linear in the input and memory bounded per line and per
    value: crafted inputs that took minutes or gigabytes before are read or
    refused with a message. Each runs under a CPU-time limit (RLIMIT_CPU,
    LIMIT_S below) and a memory measure (the child's peak RSS) far from
    what the fixed code needs — an input the old, quadratic code needed
    10-100x the limit for — so no case depends on the machine's speed;
  - parse_*: the other findings: an invalid prometheus.json refused with
    the file and the field, a gzip CRC error said as such, `import --json`
    writing its document (with the errors) when nothing imports.

Python with h5py and numpy (tests/malformed/tracegen.py) makes the traces;
sqlite3 (the standard library) the Nsight export.
"""
import argparse
import gzip
import json
import os
import resource
import shutil
import sqlite3
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(SRC, "tests", "malformed"))
import tracegen as tg  # noqa: E402

LIMIT_S = 60  # CPU seconds a case's command may use (the fixed code needs < 2 s)
CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


class Fail(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Fail(what)


def run(joules, args, cwd, limit=LIMIT_S, env=None):
    """The command under a CPU-time limit; (rc, stdout, stderr, peak RSS in
    MiB). A command killed by the limit (SIGXCPU/SIGKILL) fails the case."""
    def limits():
        resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 5))
    e = dict(os.environ)
    e.update(env or {})
    # the peak RSS of this child alone: a fresh Python runs it and reports
    # its RUSAGE_CHILDREN (this process's own counter keeps earlier children)
    wrapper = ("import resource,subprocess,sys,json\n"
               "p=subprocess.run(sys.argv[1:],capture_output=True)\n"
               "u=resource.getrusage(resource.RUSAGE_CHILDREN)\n"
               "sys.stderr.buffer.write(p.stderr)\n"
               "sys.stdout.buffer.write(p.stdout)\n"
               "open('rss.json','w').write(json.dumps([p.returncode,u.ru_maxrss,"
               "u.ru_utime+u.ru_stime]))\n")
    p = subprocess.run([sys.executable, "-c", wrapper, joules] + args, cwd=cwd,
                       capture_output=True, preexec_fn=limits, env=e, timeout=limit * 4)
    with open(os.path.join(cwd, "rss.json")) as f:
        rc, rss_kb, cpu = json.load(f)
    if os.environ.get("UNTRUSTED_VERBOSE"):  # the figures of docs/security.md
        print("  %s: exit %d, %.2f CPU s, peak RSS %.0f MiB" % (" ".join(args[:2]), rc, cpu,
                                                                 rss_kb / 1024.0))
    out, err = p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    check(rc >= 0, "killed by signal %d (the CPU limit is %d s): %s" % (-rc, limit, err[-500:]))
    check("runtime error" not in err and "Sanitizer" not in err, "sanitizer report:\n" + err[-3000:])
    return rc, out, err, rss_kb / 1024.0


def doc(out, what):
    try:
        return json.loads(out)
    except ValueError:
        raise Fail("%s: stdout is not one JSON document: %r" % (what, out[:300]))


# ---- inputs -------------------------------------------------------------------------


def trace(path, name="r"):
    tg.write_trace(path, [(name, tg.llm_run, dict(T=4.0, dt=0.2, R=6))])
    return path


def mlperf_run(root):
    """One MLPerf power run folder (the fuzz corpus' offline seed) under root."""
    with open(os.path.join(SRC, "tests", "fuzz", "corpus", "import_mlperf_power", "offline")) as f:
        detail, spl = f.read().split("\n----\n", 1)
    d = os.path.join(root, "SYS_H100x1", "gptj-99", "Offline", "performance", "run_1")
    os.makedirs(d)
    with open(os.path.join(d, "mlperf_log_detail.txt"), "w") as f:
        f.write(detail)
    with open(os.path.join(d, "spl.txt"), "w") as f:
        f.write(spl)
    return root


def bench_tree(root):
    """The ML.ENERGY Benchmark fixture runs (tests/fixtures) copied under root."""
    shutil.copytree(os.path.join(SRC, "tests", "fixtures", "mlenergy-benchmark", "run"), root)
    return root


def scrapes(path, n_series=2, samples=3, pods=None):
    """A DCGM exporter text scrape archive: n_series GPUs' power, samples
    each; with pods, GPU g's series carries pod="p<g % pods>" (pods=1: only
    GPU 0's)."""
    with open(path, "w") as f:
        for k in range(samples):
            for g in range(n_series):
                pod = "" if pods is None or (pods == 1 and g) else ',pod="p%d"' % (g % pods)
                f.write('DCGM_FI_DEV_POWER_USAGE{gpu="%d",UUID="GPU-%d",Hostname="h",'
                        'modelName="NVIDIA H100 80GB HBM3"%s} %d %d\n'
                        % (g, g, pod, 300 + g % 7, 1700000000000 + 1000 * k))
    return path


def nvsmi_log(path, rows=20, extra_cols=0):
    names = ["timestamp", "index", "name", "power.draw [W]"] + ["x%d" % i for i in range(extra_cols)]
    with open(path, "w") as f:
        f.write(", ".join(names) + "\n")
        for i in range(rows):
            cells = ["2026/11/23 22:17:%02d.000" % i, "0", "NVIDIA H100 80GB HBM3", "%d.0 W" % (300 + i)]
            f.write(", ".join(cells + ["1"] * extra_cols) + "\n")
    return path


def lb_model(n, extra=None):
    """An ML.ENERGY Leaderboard (v3) model file of n configurations; extra:
    text added to each configuration's object."""
    confs = ['{"gpu_model": "H100", "num_gpus": 1, "max_num_seqs": %d, '
             '"energy_per_token_joules": %g%s}' % (8 * (i + 1), 0.5 + i, extra or "")
             for i in range(n)]
    return ('{"model_id": "o/M", "task": "gpqa", "weight_precision": "bfloat16", '
            '"configurations": [' + ",\n".join(confs) + "]}")


SETS = ["--set", "workload=llm", "--set", "model=org/m", "--set", "task=chat",
        "--set", "precision=bfloat16", "--set", "max_batch_size=8"]


# ---- folder walks ---------------------------------------------------------------------


def study_runs(joules, work, args):
    rc, out, err, _ = run(joules, ["summarize", "--json"] + args, work)
    check(rc == 0, "summarize exit %d: %s" % (rc, err[-800:]))
    d = doc(out, "summarize --json")
    return d, [r["file"] for r in d["runs"]]


@case
def walk_self_link(joules, work):
    """`self -> .` in a folder: each trace once (before: 33 times, to the
    depth limit, and an error)."""
    t = os.path.join(work, "t")
    os.makedirs(t)
    trace(os.path.join(t, "a.h5"))
    trace(os.path.join(t, "b.h5"))
    os.symlink(".", os.path.join(t, "self"))
    d, files = study_runs(joules, work, ["t"])
    check(sorted(files) == ["t/a.h5", "t/b.h5"], "runs read from %s" % sorted(set(files))[:5])
    check(len(files) == 2, "%d runs, expected 2" % len(files))
    # the provenance lists each input once too
    inputs = [i["path"] for i in d["provenance"]["inputs"]]
    check(sorted(inputs) == ["t/a.h5", "t/b.h5"], "provenance inputs %s" % inputs[:5])


@case
def walk_two_self_links(joules, work):
    """Two `-> .` links: before, 2^32 paths (the walk never ended)."""
    t = os.path.join(work, "t")
    os.makedirs(t)
    trace(os.path.join(t, "a.h5"))
    os.symlink(".", os.path.join(t, "s1"))
    os.symlink(".", os.path.join(t, "s2"))
    _, files = study_runs(joules, work, ["t"])
    check(files == ["t/a.h5"], "runs from %s" % files[:5])


@case
def walk_two_link_loop(joules, work):
    """a/to_b -> ../b and b/to_a -> ../a: a loop of two links."""
    for d in ("a", "b"):
        os.makedirs(os.path.join(work, "t", d))
        trace(os.path.join(work, "t", d, "x.h5"))
    os.symlink("../b", os.path.join(work, "t", "a", "to_b"))
    os.symlink("../a", os.path.join(work, "t", "b", "to_a"))
    _, files = study_runs(joules, work, ["t"])
    # each file once, by the first name the walk meets (names sorted, depth
    # first: b's file through a/to_b)
    check(sorted(files) == ["t/a/to_b/x.h5", "t/a/x.h5"], "runs from %s" % sorted(files)[:6])


@case
def walk_same_file_three_ways(joules, work):
    """One file as x.h5, a hard link y.h5, a symlink z.h5, and named again
    as t/x.h5 and t/./x.h5: read once."""
    t = os.path.join(work, "t")
    os.makedirs(t)
    trace(os.path.join(t, "x.h5"))
    os.link(os.path.join(t, "x.h5"), os.path.join(t, "y.h5"))
    os.symlink("x.h5", os.path.join(t, "z.h5"))
    _, files = study_runs(joules, work, ["t", "t/x.h5", "t/./x.h5"])
    check(len(files) == 1, "%d runs from %s, expected one file's run" % (len(files), files))


def imported(joules, work, args, what):
    rc, out, err, _ = run(joules, ["import"] + args + ["--json"], work)
    d = doc(out, what)
    return rc, d, err


@case
def walk_import_mlperf_loop(joules, work):
    """import mlperf-power over a tree with `self -> .` and a two-link loop:
    the run once."""
    root = mlperf_run(os.path.join(work, "m"))
    os.symlink(".", os.path.join(root, "SYS_H100x1", "self"))
    os.symlink("../..", os.path.join(root, "SYS_H100x1", "gptj-99", "up"))
    rc, d, err = imported(joules, work, ["mlperf-power", "m", "-o", "m.h5"], "import mlperf-power")
    check(rc == 0 and d["n_runs"] == 1, "exit %d, %d runs: %s" % (rc, d["n_runs"], err[-600:]))


@case
def walk_import_bench_loop(joules, work):
    """import mlenergy-benchmark over its run tree with a link back up: each
    run once (as without the link)."""
    root = bench_tree(os.path.join(work, "b"))
    rc0, d0, err0 = imported(joules, work, ["mlenergy-benchmark", "b", "-o", "b0.h5"], "plain")
    os.symlink("..", os.path.join(root, "llm", "back"))
    os.symlink(".", os.path.join(root, "self"))
    rc, d, err = imported(joules, work, ["mlenergy-benchmark", "b", "-o", "b.h5"], "with links")
    check(d0["n_runs"] > 0, "the fixture imports nothing: %s" % err0[-400:])
    check(rc == rc0 and d["n_runs"] == d0["n_runs"] and d["n_duplicates"] == 0,
          "%d runs (%d duplicates), %d without the links: %s"
          % (d["n_runs"], d["n_duplicates"], d0["n_runs"], err[-600:]))


@case
def walk_import_prometheus_repeat(joules, work):
    """import prometheus over a folder holding a scrape and a link to it,
    and the file named again: read once (before: read twice, "time goes
    backwards")."""
    os.makedirs(os.path.join(work, "p"))
    scrapes(os.path.join(work, "p", "a.prom"), n_series=1, samples=5)
    os.symlink("a.prom", os.path.join(work, "p", "b.prom"))
    rc, d, err = imported(joules, work, ["prometheus", "p", "p/a.prom", "--runs-by", "gpu",
                                         "-o", "p.h5"] + SETS, "import prometheus")
    check(rc == 0 and d["n_runs"] == 1, "exit %d, %d runs: %s" % (rc, d["n_runs"], err[-600:]))
    check(d["details"]["samples"] == 5, "samples %s, expected 5" % d["details"].get("samples"))


@case
def walk_import_leaderboard_hardlink(joules, work):
    """The Leaderboard's models/ with one file twice (a hard link): its
    configurations once, no __dup runs."""
    os.makedirs(os.path.join(work, "lb", "models"))
    with open(os.path.join(work, "lb", "models", "a.json"), "w") as f:
        f.write(lb_model(3))
    rc0, d0, err0 = imported(joules, work, ["mlenergy", "lb", "-o", "lb0.h5"], "plain")
    os.link(os.path.join(work, "lb", "models", "a.json"), os.path.join(work, "lb", "models", "b.json"))
    rc, d, err = imported(joules, work, ["mlenergy", "lb", "-o", "lb.h5"], "with the link")
    check(d0["n_runs"] > 0, "the seed imports nothing: %s" % err0[-400:])
    check(d["n_runs"] == d0["n_runs"] and d["n_duplicates"] == d0["n_duplicates"],
          "%d runs, %d duplicates (without the link: %d, %d)"
          % (d["n_runs"], d["n_duplicates"], d0["n_runs"], d0["n_duplicates"]))


# ---- bounded work ---------------------------------------------------------------------


def profiled_trace(work):
    p = os.path.join(work, "t.h5")
    shutil.copy(os.path.join(SRC, "traces", "h100", "h100-qwen3-8b-shape-chat.h5"), p)
    return p


@case
def bound_nsys_names(joules, work):
    """An Nsight export of 100,000 NVTX ranges with 100,000 names (long,
    as module paths are, alike but for their ends), each launching a
    kernel: before, a scan of the names per range (minutes). The
    ranges are placed at --offset 0 whatever their fit to the power
    (--allow-misaligned): the case measures the names, not the clock."""
    n = 100000
    prefix = "model.decoder.layers.attention.self_attn.q_proj." * 4
    db = sqlite3.connect(os.path.join(work, "e.sqlite"))
    db.executescript(
        "CREATE TABLE NVTX_EVENTS (start INT, end INT, eventType INT, text TEXT, globalTid INT);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT, end INT, globalTid INT,"
        " correlationId INT);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT,"
        " streamId INT, correlationId INT);")
    t0 = 1000000000
    db.executemany("INSERT INTO NVTX_EVENTS VALUES (?, ?, 59, ?, 11)",
                   ((t0 + 1000 * i, t0 + 1000 * i + 900, prefix + "%06d" % i) for i in range(n)))
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 11, ?)",
                   ((t0 + 1000 * i + 10, t0 + 1000 * i + 20, i) for i in range(n)))
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 7, ?)",
                   ((t0 + 1000 * i + 30, t0 + 1000 * i + 800, i) for i in range(n)))
    db.commit()
    db.close()
    profiled_trace(work)
    rc, out, err, _ = run(joules, ["import", "nsys", "e.sqlite", "--into", "t.h5:b0001",
                                   "--offset", "0", "--allow-misaligned", "--json"], work)
    check(rc == 0, "exit %d: %s" % (rc, err[-600:]))
    check(doc(out, "import nsys")["details"]["spans"] == n, "spans: %s" % out[:300])


@case
def bound_nvsmi_header(joules, work):
    """An nvidia-smi header of 10^7 columns (before: > 300 s): refused at
    the CSV reader's 4,096 fields a row, with the line; a log of 4,000
    columns joules has no place for is read (one note each, kept)."""
    with open(os.path.join(work, "wide.csv"), "w") as f:
        f.write("timestamp, power.draw [W]" + ", x" * (10 ** 7) + "\n")
        f.write("2026/11/23 22:17:22.120, 300 W\n")
    rc, out, err, rss = run(joules, ["import", "nvidia-smi", "wide.csv", "--timezone", "UTC",
                                     "--set", "gpu_model=H100", "-o", "w.h5"] + SETS, work)
    check(rc != 0 and "more than 4096 fields" in err and "wide.csv" in err,
          "exit %d: %s" % (rc, err[-400:]))
    nvsmi_log(os.path.join(work, "ok.csv"), extra_cols=4000)
    rc, out, err, _ = run(joules, ["import", "nvidia-smi", "ok.csv", "--timezone", "UTC", "-o",
                                   "ok.h5", "--json"] + SETS, work)
    check(rc == 0, "4,000 columns: exit %d: %s" % (rc, err[-400:]))
    notes = doc(out, "import nvidia-smi")["notes"]
    check(sum(1 for n in notes if "column not imported" in n["message"]) == 4000,
          "%d notes" % len(notes))


@case
def bound_note_dedup(joules, work):
    """An ML.ENERGY model file with 30,000 configurations, each with a key
    given twice with the same value: one note, counted in linear time
    (before: a scan of every repeat per repeat, minutes)."""
    n = 30000
    os.makedirs(os.path.join(work, "lb", "models"))
    with open(os.path.join(work, "lb", "models", "m.json"), "w") as f:
        f.write(lb_model(n, ', "x_dup": 1, "x_dup": 1'))
    rc, out, err, _ = run(joules, ["import", "mlenergy", "lb", "-o", "lb.h5", "--json"], work)
    d = doc(out, "import mlenergy")
    notes = [x for x in d["notes"] if "given twice with the same value" in x["message"]]
    check(notes and ("in %d objects" % n) in notes[0]["message"],
          "exit %d, notes %s: %s" % (rc, [x["message"] for x in d["notes"]][:3], err[-400:]))


@case
def bound_prom_line(joules, work):
    """A Prometheus scrape with one 64 MiB line: refused at 1 MiB a line, in
    bounded memory (before: the line read whole, RSS twice its size). The
    bound: the peak RSS of reading a small scrape plus 32 MiB (the
    sanitizer build's own memory is in both)."""
    scrapes(os.path.join(work, "small.prom"), n_series=1, samples=3)
    rc, out, err, base = run(joules, ["import", "prometheus", "small.prom", "--runs-by", "gpu",
                                      "-o", "s.h5"] + SETS, work)
    check(rc == 0, "the small scrape: exit %d: %s" % (rc, err[-400:]))
    with open(os.path.join(work, "big.prom"), "w") as f:
        f.write('DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-0",x="' + "a" * (64 << 20) + '"} 1 1\n')
    rc, out, err, rss = run(joules, ["import", "prometheus", "big.prom", "--runs-by", "gpu",
                                     "-o", "p.h5"] + SETS, work)
    check(rc != 0 and "longer than 1048576 bytes" in err and "big.prom" in err,
          "exit %d: %s" % (rc, err[-400:]))
    check(rss < base + 32, "peak RSS %.0f MiB for a refused 64 MiB line (a small scrape: %.0f)"
          % (rss, base))


@case
def bound_series_line(joules, work):
    """A grid-intensity CSV with one 64 MiB line: refused at the CSV
    reader's 16 MiB a row, in bounded memory (before: getline read it
    whole, its buffer doubled to 128 MiB). The bound: a small series' peak
    RSS plus 48 MiB (the reader's buffer grows to 32 MiB before it refuses)."""
    tr = os.path.join(SRC, "traces", "h100", "h100-qwen3-1.7b-shape-chat.h5")
    with open(os.path.join(work, "ok.csv"), "w") as f:
        f.write("datetime,value\n2020-01-01T00:00:00Z,400\n2100-01-01T00:00:00Z,400\n")
    rc, out, err, base = run(joules, ["emissions", "--grid-intensity", "ok.csv", tr], work)
    check(rc == 0, "the small series: exit %d: %s" % (rc, err[-400:]))
    with open(os.path.join(work, "big.csv"), "w") as f:
        f.write("datetime,value\n2020-01-01T00:00:00Z," + "4" * (64 << 20) + "\n")
    rc, out, err, rss = run(joules, ["emissions", "--grid-intensity", "big.csv", tr], work)
    check(rc != 0 and "longer than 16 MiB" in err and "big.csv" in err,
          "exit %d: %s" % (rc, err[-400:]))
    check(rss < base + 48, "peak RSS %.0f MiB for a refused 64 MiB line (a small series: %.0f)"
          % (rss, base))


@case
def bound_prom_series(joules, work):
    """A scrape archive of 100,000 distinct series (GPUs), one of them a
    pod's (the run): before, a scan of the series and of the GPUs per
    sample (> 100 s)."""
    scrapes(os.path.join(work, "s.prom"), n_series=100000, samples=2, pods=1)
    rc, out, err, _ = run(joules, ["import", "prometheus", "s.prom", "--runs-by", "pod",
                                   "-o", "s.h5", "--json", "--quiet"] + SETS, work)
    d = doc(out, "import prometheus")
    check(d["details"].get("series") == 100000, "series %s: %s" % (d["details"], err[-400:]))


@case
def bound_runs_csv(joules, work):
    """A RUNS.csv of 100,000 runs (before: a scan of the names per run)."""
    nvsmi_log(os.path.join(work, "g.csv"), rows=40)
    with open(os.path.join(work, "runs.csv"), "w") as f:
        f.write("run,start,end\n")
        for i in range(100000):
            f.write("r%d,2026-11-23T22:17:%02d.0Z,2026-11-23T22:17:%02d.5Z\n"
                    % (i, 1 + i % 30, 1 + i % 30))
        f.write("r7,2026-11-23T22:17:01.0Z,2026-11-23T22:17:02.0Z\n")
    rc, out, err, _ = run(joules, ["import", "nvidia-smi", "g.csv", "--runs", "runs.csv",
                                   "--timezone", "UTC", "-o", "g.h5"] + SETS, work)
    check(rc != 0 and "run 'r7' is named twice" in err, "exit %d: %s" % (rc, err[-400:]))


# ---- the parser findings -----------------------------------------------------------


@case
def parse_prometheus_json_invalid(joules, work):
    """An ML.ENERGY Benchmark run whose prometheus.json is not the harness's:
    refused naming the file and the field (before: imported without its
    engine rows, said by no one)."""
    base = os.path.join(SRC, "tests", "fixtures", "mlenergy-benchmark", "run", "llm", "gpqa", "org",
                        "Mid-8B", "H100", "num_gpus+2+max_num_seqs+2")
    for i, (text, words) in enumerate([
            ("{}", 'no "timeline" array'),
            ('{"timelines": [1]}', 'no "timeline" array'),
            ('{"timeline": []} {"timeline": []}', "after the document")]):
        d = os.path.join(work, "r%d" % i)
        shutil.copytree(base, d)
        with open(os.path.join(d, "prometheus.json"), "w") as f:
            f.write(text)
        rc, out, err, _ = run(joules, ["import", "mlenergy-benchmark", d, "-o", "r%d.h5" % i], work)
        check(rc != 0 and words in err and "prometheus.json" in err,
              "%r: exit %d: %s" % (text, rc, err[-400:]))
        check(not os.path.exists(os.path.join(work, "r%d.h5" % i)), "%r: a trace was written" % text)
    # an empty timeline is the harness's and is said
    d = os.path.join(work, "empty")
    shutil.copytree(base, d)
    with open(os.path.join(d, "prometheus.json"), "w") as f:
        f.write('{"timeline": []}')
    rc, out, err, _ = run(joules, ["import", "mlenergy-benchmark", d, "-o", "e.h5", "--json"], work)
    notes = [n["message"] for n in doc(out, "import")["notes"]]
    check(rc == 0 and any("no engine/ rows" in n for n in notes), "notes %s" % notes)


@case
def parse_gzip_crc(joules, work):
    """A Kineto profile whose gzip CRC is wrong: said as such (before: "read
    error: Success" or the errno of something else)."""
    raw = gzip.compress(json.dumps({"baseTimeNanoseconds": 1, "traceEvents": [
        {"ph": "X", "cat": "gpu_user_annotation", "name": "a", "ts": 10, "dur": 5, "pid": 0,
         "tid": 1}] * 50}).encode())
    b = bytearray(raw)
    b[-8] ^= 0xFF  # the CRC-32
    with open(os.path.join(work, "p.json.gz"), "wb") as f:
        f.write(bytes(b))
    profiled_trace(work)
    rc, out, err, _ = run(joules, ["import", "kineto", "p.json.gz", "--into", "t.h5:b0001",
                                   "--offset", "0"], work)
    check(rc != 0 and "gzip data is corrupt" in err and "incorrect data check" in err
          and "Success" not in err, "exit %d: %s" % (rc, err[-400:]))


@case
def parse_import_json_no_run(joules, work):
    """`import --json` when no run imports: the joules.import/1 document with
    the errors, output null (before: nothing on stdout)."""
    with open(os.path.join(work, "z.csv"), "w") as f:
        f.write("not,a,zeus,log\n1,2,3,4\n")
    rc, out, err, _ = run(joules, ["import", "zeus", "z.csv", "-o", "z.h5", "--json"] + SETS
                          + ["--set", "gpu_model=H100"], work)
    d = doc(out, "import --json")
    check(rc != 0 and d["schema"] == "joules.import/1" and d["n_runs"] == 0
          and d["output"] is None and d["errors"], "exit %d: %s" % (rc, out[:400]))
    check(not os.path.exists(os.path.join(work, "z.h5")), "a trace was written")
    profiled_trace(work)
    rc, out, err, _ = run(joules, ["import", "kineto", "missing.json", "--into", "t.h5:b0001",
                                   "--json"], work)
    d = doc(out, "import --into --json")
    check(rc != 0 and d["n_runs"] == 0 and d["errors"], "--into: exit %d: %s" % (rc, out[:300]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--joules")
    ap.add_argument("--work")
    ap.add_argument("--case")
    a = ap.parse_args()
    if a.list:
        print(";".join(sorted(CASES)))
        return 0
    work = os.path.join(a.work, a.case)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    try:
        CASES[a.case](os.path.abspath(a.joules), work)
    except Fail as e:
        print("FAIL: %s: %s" % (a.case, e))
        return 1
    except subprocess.TimeoutExpired as e:
        print("FAIL: %s: did not end (%s)" % (a.case, e))
        return 1
    print("ok: %s" % a.case)
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
