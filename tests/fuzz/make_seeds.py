#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets.

    /usr/bin/python3 tests/fuzz/make_seeds.py [--models models/]
    /usr/bin/python3 tests/fuzz/make_seeds.py --shared ../shared --out BUILD/fuzz-seeds

The first form writes the committed seeds (tests/fuzz/corpus/<target>/):
synthetic inputs only, made here. HDF5 files carry object timestamps, and a
fuzz run is only reproducible from byte-identical seeds, so rerun it only
to change the corpus (and then check the bounded CI runs are still clean,
docs/robustness.md). Trace seeds are tiny valid traces in every storage form
the reader meets (contiguous, chunked, shuffle+deflate, Zstandard, several
GPUs, several runs, diffusion, summary-only, occupancy, a counter restart;
for trace_spans: spans/ nested with steps and busy_s, the sensor
attributes, host/ with RAPL counters), each under 64 KiB (the -max_len of
the runs). JSON seeds come from models/*.json and the documentation's
examples; the Nsight seeds are rows of a small export (text) and one
SQLite image.

The second form runs at test time (the ctest fixture fuzz_seeds_shared):
seeds from every real file of the public data beside the checkout that a
target reads (shared/realworld, shared/data, shared/attribution-h100,
shared/traces), cut to fit 64 KiB where the format allows (CSV and log
lines, JSON arrays of configurations or events, HDF5 datasets' rows), into
OUT/<target>/. Nothing of it is committed; without the data it writes
empty folders.
"""
import argparse
import ctypes
import gzip
import json
import os
import re
import sqlite3
import sys
import tempfile

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "malformed"))
import tracegen as tg  # noqa: E402
import targets as fuzz_targets  # noqa: E402  (tests/fuzz/targets.txt, the one list)

MAX = 65536


def out(target, name, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    p = os.path.join(d, name)
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(p, mode) as f:
        f.write(data)
    assert os.path.getsize(p) <= MAX, p


def zstd_compress(raw, level=3):
    lib = ctypes.CDLL("libzstd.so.1")
    lib.ZSTD_compressBound.restype = ctypes.c_size_t
    lib.ZSTD_compress.restype = ctypes.c_size_t
    cap = lib.ZSTD_compressBound(ctypes.c_size_t(len(raw)))
    dst = ctypes.create_string_buffer(cap)
    n = lib.ZSTD_compress(dst, ctypes.c_size_t(cap), raw, ctypes.c_size_t(len(raw)), level)
    return dst.raw[:n]


def zstd_dataset(g, name, data, rows):
    data = np.ascontiguousarray(data)
    chunk = (rows,) + data.shape[1:]
    d = g.create_dataset(name, shape=data.shape, dtype=data.dtype, chunks=chunk,
                         compression=32015, compression_opts=(3,), allow_unknown_filter=True,
                         track_times=False)
    for s in range(0, data.shape[0], rows):
        block = np.zeros(chunk, dtype=data.dtype)
        part = data[s:s + rows]
        block[:len(part)] = part
        off = (s,) + (0,) * (data.ndim - 1)
        d.id.write_direct_chunk(off, zstd_compress(block.tobytes()))


def zstd_run(g):
    tg.attrs(g, "llm", 1, 2)
    t = np.round(np.arange(0.0, 6.0 + 1e-9, 0.1), 6)
    w = (300 + 10 * np.sin(np.arange(len(t)))).reshape(-1, 1)
    p = g.create_group("power")
    zstd_dataset(p, "time", t, 16)
    zstd_dataset(p, "watts", w.astype(np.float32), 16)
    zstd_dataset(p, "energy_j", tg.counter(t, w), 16)
    e = g.create_group("engine")
    tg.ds(e, "time", np.arange(0.0, 6.0, 0.5))
    tg.ds(e, "running", np.full(12, 2, dtype=np.int32))


def occupancy_run(g):
    tg.llm_run(g, T=4.0, dt=0.2, with_gpu=False, with_itl=False)
    del g["requests"]


def restart_run(g):
    tg.llm_run(g, T=4.0, dt=0.1, with_gpu=False)
    e = g["power/energy_j"][...]
    e[20:, 0] = e[20:, 0] - e[20, 0] + 0.3
    del g["power/energy_j"]
    tg.ds(g["power"], "energy_j", e)


def traces():
    d = os.path.join(HERE, "corpus", "trace")
    os.makedirs(d, exist_ok=True)
    small = dict(T=4.0, dt=0.2, R=8, B=2)
    specs = {
        "llm-contiguous.h5": [("r0", tg.llm_run, small)],
        "llm-deflate-2gpu.h5": [("r0", tg.llm_run, dict(small, G=2, chunks=8, compression="gzip"))],
        "llm-zstd.h5": [("z", zstd_run, {})],
        "diffusion-summary.h5": [("d0", tg.diffusion_run, dict(batches=3)),
                                 ("s0", tg.summary_run, {})],
        "occupancy.h5": [("o0", occupancy_run, {})],
        "restart.h5": [("c0", restart_run, {})],
    }
    for name, runs in specs.items():
        p = os.path.join(d, name)
        tg.write_trace(p, runs)
        assert os.path.getsize(p) <= MAX, (p, os.path.getsize(p))


def json_seeds(models):
    with open(os.path.join(models, "gpus.json")) as f:
        gpus = f.read()
    with open(os.path.join(models, "models.json")) as f:
        mdl = json.load(f)
    few = dict(list(mdl["models"].items())[:4])
    small_models = json.dumps(dict(mdl, models=few), indent=1)
    out("descriptors", "bundled", gpus + "\n----\n" + small_models)
    out("descriptors", "minimal", '{"gpus": {"X": {"tdp_w": 1}}}\n----\n{"models": {"m": {"layers": 2}}}')
    out("descriptors", "types", '{"gpus": {"H100": {"name": 3, "idle_power_range_w": [1, "a"]}}}'
        '\n----\n{"models": {"Qwen/Qwen3-8B": {"kv_heads": 1.5, "total_params": "8e9"}}}')

    out("check_rules", "full", json.dumps({"version": "joules.rules/1", "rules": {
        "steady_duration": {"warn": 20, "fail": 4, "enabled": True},
        "power_below_tdp": {"warn": 1.1, "fail": 1.3},
        "failed_requests": {"enabled": False}}}, indent=1))
    out("check_rules", "empty-rules", '{"version": "joules.rules/1", "rules": {}}')
    out("check_rules", "bad-key", '{"version": "joules.rules/1", "rules": {"steady_duration": {"wran": 1}}}')
    out("check_rules", "bad-version", '{"version": "joules.rules/2", "rules": {}}')

    for i, e in enumerate(["median_itl<=100ms", "p90_itl<=250ms,ttft_p90<=2s",
                           "batch_latency<=30s", "throughput>=5000tok/s",
                           "energy<=0.5J", "avg_power < 2kW", "tokens_per_joule>=3tok/J",
                           "latency<=1min,energy_per_token<=300mJ", "median_itl<=5J",
                           "avg_sm_clock_mhz>=1.2GHz", "static_energy_share<=40%"]):
        out("slo", "e%02d" % i, e)
    for i, c in enumerate(["\0gpu_model=H100", "\0gpu_model=H100,B200", "\1num_gpus=8",
                           "\0max_batch_size=8.0", "\0model=a,,b", "\0=x",
                           "\0file=traces/h100/x.h5\nrun=b0064", "\1tag=a\nseq_len=1024.0",
                           "\0num_gpus=1e0,0x1,inf,nan", "\0max_batch_size>=64",
                           "\0num_gpus<=2\nmax_batch_size<128", "\1max_batch_size>256",
                           "\0gpu_model!=h200,B200", "\0gpu_model=h100\nprecision=BFLOAT16",
                           "\0num_gpus>=x", "\0num_gpus=>2", "\0a<=1<=2", "\0model!x"]):
        out("study_where", "c%02d" % i, c)


# ---- committed: the targets of issue 35 -------------------------------------------

NSYS_TEXT = """st
I 1 layer0.attention
T 1000000000
N 2000000000 2000300000 59 decode_step 11 -
N 2000010000 2000100000 59 - 11 1
N 2000110000 2000200000 59 layer0.mlp 11 -
N 2000210000 2000220000 59 idle_range 11 -
N 2000000000 0 34 mark 11 -
R 2000001000 2000002000 11 100
R 2000020000 2000021000 11 101
R 2000030000 2000031000 11 102
R 2000120000 2000121000 11 103
R 2000400000 2000401000 11 104
"""


def nsys_seeds():
    out("import_nsys", "projection", NSYS_TEXT.replace("st\n", "stkc\n") +
        "C 2000050000 2000051000 0 100\nK 2000060000 2000100000 0 7 101\n"
        "K 2000100000 2000150000 0 7 102\nK 2000150000 2000180000 0 7 103\n"
        "K 0 0 0 7 103\nK 2000410000 2000420000 0 7 104\n")
    out("import_nsys", "plain-offset", "okm\nN 100 900 59 step 1\nN 200 300 59 a_step 1\n"
        "R 150 160 1 5\nR 250 260 1 6\nK 170 400 0 7 5\nM 270 280 1 6\n")
    out("import_nsys", "no-calls", "k\nN 100 900 59 step 1\n")
    out("import_nsys", "types", "stk\nI x text\nT text\nN a b c d e f\nR 1.5 - 2 x\n"
        "K 9223372036854775807 -9223372036854775808 0 7 1\n")
    # the same rows as an SQLite file (the image path of the target)
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "e.sqlite")
        db = sqlite3.connect(p)
        db.executescript(
            "PRAGMA page_size=512;"
            "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
            "CREATE TABLE NVTX_EVENTS (start INT, end INT, eventType INT, text TEXT,"
            " globalTid INT, textId INT);"
            "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT, end INT, globalTid INT,"
            " correlationId INT);"
            "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT,"
            " streamId INT, correlationId INT);"
            "CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INT);"
            "INSERT INTO StringIds VALUES (1, 'layer0.attention');"
            "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1000000000);"
            "INSERT INTO NVTX_EVENTS VALUES (2000000000, 2000300000, 59, 'decode_step', 11, NULL);"
            "INSERT INTO NVTX_EVENTS VALUES (2000010000, 2000100000, 59, NULL, 11, 1);"
            "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (2000020000, 2000021000, 11, 101);"
            "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (2000060000, 2000100000, 0, 7, 101);")
        db.commit()
        db.close()
        with open(p, "rb") as f:
            out("import_nsys", "export.sqlite", f.read())


ALIGN = {"b0512": {"wall_ns_start": 1795771502003255345, "perf_counter_ns_start": 123265603960,
                   "wall_ns_end": 1795771524035221458, "perf_counter_ns_end": 145297570272,
                   "run_t0_perf_counter_s": 114.449854254, "files": ["p.json"],
                   "baseTimeNanoseconds": 1790857026000000000}}


def align_seeds():
    a = json.dumps(ALIGN, indent=1)
    out("import_kineto_align", "by-key", "\1" + a)
    out("import_kineto_align", "by-files", "\0" + a)
    two = dict(ALIGN, other={"files": ["q.json"], "wall_ns_start": 1})
    out("import_kineto_align", "two-entries", "\0" + json.dumps(two))
    nobase = {"b0512": {k: v for k, v in ALIGN["b0512"].items() if k != "baseTimeNanoseconds"}}
    prof = json.dumps({"traceEvents": [
        {"ph": "X", "cat": "user_annotation", "name": "s_step", "ts": 5, "dur": 90, "pid": 1,
         "tid": 2}]})
    out("import_kineto_align", "with-profile", "\1" + json.dumps(nobase) + "\n----\n" + prof)
    out("import_kineto_align", "extremes", "\1" + json.dumps({"b0512": {
        "wall_ns_start": 9223372036854775807, "perf_counter_ns_start": -9223372036854775808,
        "wall_ns_end": 0, "perf_counter_ns_end": 1.5, "run_t0_perf_counter_s": 1e308}}))


def spans_run(g, nest=True, host=True, G=1):
    tg.llm_run(g, T=4.0, dt=0.1, R=6, G=G)
    p = g["power"]
    p.attrs.update(update_period_s=0.1, watts_kind="average_1s", watts_window_s=1.0,
                   watts_delay_s=0.0, energy_delay_s=0.05, calibration="seed")
    s = g.create_group("spans")
    s.attrs.update(source="harness", side="gpu", window=np.array([0.5, 3.5]),
                   clock="run time", clock_uncertainty_s=1e-6)
    names = ["decode_step", "layer0.attention", "layer0.mlp", "sample"]
    s.create_dataset("names", data=np.array(names, dtype=h5py.string_dtype()), track_times=False)
    rows = []
    for k in range(6):
        t0 = 0.5 + 0.5 * k
        rows.append((0, t0, t0 + 0.4, -1))
        base = len(rows) - 1
        rows.append((1, t0 + 0.05, t0 + 0.2, base if nest else -1))
        rows.append((2, t0 + 0.2, t0 + 0.35, base if nest else -1))
    tg.ds(s, "name", np.array([r[0] for r in rows], dtype=np.int32))
    tg.ds(s, "start", np.array([r[1] for r in rows]))
    tg.ds(s, "end", np.array([r[2] for r in rows]))
    tg.ds(s, "parent", np.array([r[3] for r in rows], dtype=np.int32))
    tg.ds(s, "gpu", np.array([i % G for i in range(len(rows))], dtype=np.int16))
    tg.ds(s, "busy_s", np.array([0.9 * (r[2] - r[1]) for r in rows], dtype=np.float32))
    tg.ds(s, "step", np.array([i // 3 for i in range(len(rows))], dtype=np.int32))
    if host:
        h = g.create_group("host")
        h.attrs["source"] = "RAPL"
        t = np.round(np.arange(0.0, 4.0 + 1e-9, 0.25), 6)
        cpu = np.cumsum(np.full((len(t), 2), 25.0), axis=0)
        cpu[:, 1] = np.mod(cpu[:, 1], 320.0)  # socket 1's counter wraps at 320 J
        tg.ds(h, "time", t)
        tg.ds(h, "cpu_energy_j", cpu)
        tg.ds(h, "dram_energy_j", np.cumsum(np.full((len(t), 2), 5.0), axis=0))
        tg.ds(h, "node_watts", np.full(len(t), 900.0))
        h["cpu_energy_j"].attrs["max_energy_range_j"] = np.array([1e6, 320.0])


def spans_traces():
    d = os.path.join(HERE, "corpus", "trace_spans")
    os.makedirs(d, exist_ok=True)
    specs = {
        "spans-host.h5": [("r0", spans_run, {})],
        "spans-flat-2gpu.h5": [("r0", spans_run, dict(nest=False, host=False, G=2))],
        "spans-two-runs.h5": [("a", spans_run, {}), ("b", spans_run, dict(host=False))],
    }
    for name, runs in specs.items():
        p = os.path.join(d, name)
        tg.write_trace(p, runs, version=1)
        assert os.path.getsize(p) <= MAX, (p, os.path.getsize(p))


# ---- at test time: seeds from the real files beside the checkout ---------------------


SHARED_MAX = 16384  # a seed from real data: small inputs mutate fast (traces: MAX)


def cut_lines(text, limit=SHARED_MAX):
    """The first lines of text that fit (whole lines)."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    return cut[:cut.rfind("\n") + 1] if "\n" in cut else cut


def cut_list(doc, key, limit, dump=lambda d: json.dumps(d, indent=1), most=None):
    """doc with doc[key] (a list) shortened to at most `most` items and
    until it fits."""
    items = doc.get(key) if isinstance(doc, dict) else None
    if not isinstance(items, list):
        return dump(doc)
    n = len(items) if most is None else min(most, len(items))
    while n > 0:
        text = dump(dict(doc, **{key: items[:n]}))
        if len(text) <= limit:
            return text
        n = n // 2 if n > 8 else n - 1
    return dump(dict(doc, **{key: []}))


class Seeds:
    def __init__(self, out):
        self.out = out
        self.n = {}

    def put(self, target, src, data):
        d = os.path.join(self.out, target)
        os.makedirs(d, exist_ok=True)
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogateescape")
        if len(data) > (MAX if target.startswith("trace") else SHARED_MAX):
            return
        name = src.replace("/", "_").replace(" ", "_")[-120:]
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
        self.n[target] = self.n.get(target, 0) + 1


def files_under(root, pred):
    for d, _, fs in os.walk(root):
        for f in sorted(fs):
            p = os.path.join(d, f)
            if pred(p):
                yield p


def read_text(p):
    with open(p, "rb") as f:
        return f.read().decode("utf-8", "surrogateescape")


def h5_cut(src, dst, keep, runs):
    """src with its first `runs` runs and every dataset of more than `keep`
    rows cut to its first rows (attributes and groups as they are)."""
    with h5py.File(src, "r") as a, h5py.File(dst, "w") as b:
        for k, v in a.attrs.items():
            b.attrs[k] = v
        kept = set(sorted(a["runs"].keys())[:runs]) if "runs" in a else set()

        def copy(name, obj):
            parts = name.split("/")
            if parts[0] == "runs" and len(parts) > 1 and parts[1] not in kept:
                return
            if isinstance(obj, h5py.Group):
                g = b.require_group(name)
                for k, v in obj.attrs.items():
                    g.attrs[k] = v
            elif isinstance(obj, h5py.Dataset):
                data = obj[...] if obj.shape == () else obj[:keep]
                ds = b.create_dataset(name, data=data, track_times=False)
                for k, v in obj.attrs.items():
                    ds.attrs[k] = v
        a.visititems(copy)


def kineto_head(path, limit):
    """A Kineto profile's first events that fit, as a whole document with its
    baseTimeNanoseconds (which Kineto writes at the end): the profile is
    streamed through once, never held (they reach 500 MB)."""
    head, tail = b"", b""
    with gzip.open(path, "rb") as f:
        while True:
            b = f.read(1 << 20)
            if not b:
                break
            if len(head) < (4 << 20):
                head += b
            tail = (tail + b)[-65536:]
    text = head.decode("utf-8", "replace")
    at = text.find('"traceEvents"')
    at = text.find("[", at) if at >= 0 else -1
    if at < 0:
        return None
    dec = json.JSONDecoder()
    events, i, size = [], at + 1, 0
    while size < limit:
        while i < len(text) and text[i] in " \t\r\n,":
            i += 1
        try:
            ev, i = dec.raw_decode(text, i)
        except ValueError:
            break
        e = json.dumps(ev)
        if size + len(e) + 2 > limit:
            break
        events.append(ev)
        size += len(e) + 2
    doc = {"schemaVersion": 1, "traceEvents": events}
    m = re.search(rb'"baseTimeNanoseconds"\s*:\s*(\d+)', tail) or \
        re.search(r'"baseTimeNanoseconds"\s*:\s*(\d+)'.encode(), head)
    if m:
        doc["baseTimeNanoseconds"] = int(m.group(1))
    return json.dumps(doc)


def shared_seeds(shared, out):
    sd = Seeds(out)
    rw = os.path.join(shared, "realworld")
    targets = fuzz_targets.names()
    for t in targets:
        os.makedirs(os.path.join(out, t), exist_ok=True)
    if not os.path.isdir(shared):
        print("make_seeds: no %s: only the committed seeds" % shared)
        return
    # nvidia-smi logs (and the table/dmon files people have)
    for p in files_under(os.path.join(rw, "nvidia-smi-h100"), lambda p: p.endswith(".csv")):
        sd.put("import_nvidia_smi", os.path.relpath(p, rw), "\0" + cut_lines(read_text(p)))
    for p in files_under(os.path.join(rw, "public-corpus", "nvidia-smi"),
                         lambda p: not p.endswith("SOURCE.txt")):
        sd.put("import_nvidia_smi", os.path.relpath(p, rw), "\0" + cut_lines(read_text(p)))
    for p in files_under(os.path.join(rw, "codecarbon"), lambda p: p.endswith(".csv")):
        sd.put("import_codecarbon", os.path.relpath(p, rw), cut_lines(read_text(p)))
    for p in files_under(os.path.join(rw, "zeus"), lambda p: p.endswith(".csv")):
        sd.put("import_zeus", os.path.relpath(p, rw), cut_lines(read_text(p)))
    # MLPerf: each run folder's detail log and spl.txt
    for root in (os.path.join(rw, "mlperf-power-v1.0"), os.path.join(rw, "public-corpus", "mlperf-power")):
        for p in files_under(root, lambda p: p.endswith("mlperf_log_detail.txt")):
            spl = os.path.join(os.path.dirname(p), "spl.txt")
            if os.path.exists(spl):
                sd.put("import_mlperf_power", os.path.relpath(p, rw),
                       cut_lines(read_text(p), SHARED_MAX // 2) + "\n----\n" +
                       cut_lines(read_text(spl), SHARED_MAX // 2 - 64))
    # vLLM bench serve results
    for p in files_under(os.path.join(rw, "public-corpus", "vllm-bench"), lambda p: p.endswith(".json")):
        try:
            doc = json.loads(read_text(p))
        except ValueError:
            continue
        for key in ("ttfts", "itls", "input_lens", "output_lens", "generated_texts", "errors",
                    "start_times"):
            if isinstance(doc.get(key), list):  # 20 requests, 20 ITLs each, texts cut
                doc[key] = [x[:20] if isinstance(x, (list, str)) else x for x in doc[key][:20]]
        sd.put("import_vllm", os.path.relpath(p, rw), json.dumps(doc))
    # the Leaderboard: v3 (data/), v2 configuration files and v1 CSVs (realworld)
    for rel in ("mlenergy-v3", "mlenergy-2026-01-01"):
        base = os.path.join(shared, "data", rel)
        idx = os.path.join(base, "index.json")
        index = read_text(idx) if os.path.exists(idx) else ""
        for p in files_under(os.path.join(base, "models"), lambda p: p.endswith(".json")):
            doc = json.loads(read_text(p))
            text = cut_list(doc, "configurations", SHARED_MAX // 2, most=3)
            sd.put("import", rel + "_" + os.path.basename(p), text)
            if index and len(index) + len(text) + 6 <= SHARED_MAX:
                sd.put("import", rel + "_index_" + os.path.basename(p), index + "\n----\n" + text)
    for p in files_under(os.path.join(rw, "mlenergy-leaderboard-v2"),
                         lambda p: p.endswith(".json") or p.endswith(".csv")):
        text = read_text(p)
        if p.endswith(".csv"):
            sd.put("import_mlenergy_v2", os.path.relpath(p, rw), "C" + cut_lines(text))
        else:
            kind = "1" if "/diffusion/" in p else "0"
            sd.put("import_mlenergy_v2", os.path.relpath(p, rw), kind + text)
    for p in files_under(os.path.join(rw, "mlenergy-leaderboard-e0ba9ed"), lambda p: p.endswith(".json")):
        doc = json.loads(read_text(p))
        sd.put("import", os.path.relpath(p, rw),
               cut_list(doc, "configurations", SHARED_MAX, most=3))
    # Kineto profiles: the first events that fit; the alignment file with one
    att = os.path.join(shared, "attribution-h100")
    profiles = []
    for p in files_under(att, lambda p: p.endswith(".json.gz")):
        text = kineto_head(p, SHARED_MAX // 2)
        if not text:
            continue
        profiles.append(text)
        for side in (0, 1, 2):
            sd.put("import_kineto", "%s-side%d" % (os.path.basename(p), side), chr(side) + text)
    al = os.path.join(att, "align.json")
    if os.path.exists(al):
        a = read_text(al)
        sd.put("import_kineto_align", "align.json", "\1" + a)
        sd.put("import_kineto_align", "align.json-files", "\0" + a)
        for i, prof in enumerate(profiles):
            if len(a) + len(prof) + 8 <= SHARED_MAX:
                sd.put("import_kineto_align", "align.json-profile%d" % i, "\1" + a + "\n----\n" + prof)
    # traces: each real trace with its datasets cut to their first rows
    with tempfile.TemporaryDirectory() as tmp:
        for p in list(files_under(os.path.join(shared, "traces"), lambda p: p.endswith(".h5"))) + \
                list(files_under(att, lambda p: p.endswith(".h5"))) + \
                list(files_under(rw, lambda p: p.endswith(".h5"))):
            for runs, keep in ((4, 256), (2, 64), (1, 64), (1, 16), (1, 4)):
                q = os.path.join(tmp, "cut.h5")
                try:
                    h5_cut(p, q, keep, runs)
                except (OSError, TypeError, ValueError, KeyError):
                    break
                if os.path.getsize(q) <= MAX:
                    with open(q, "rb") as f:
                        data = f.read()
                    name = os.path.relpath(p, shared)
                    sd.put("trace", name, data)
                    sd.put("trace_spans", name, data)
                    break
    print("make_seeds: seeds from %s: %s" % (shared, ", ".join(
        "%s %d" % (k, v) for k, v in sorted(sd.n.items()))))


def main():
    ap = argparse.ArgumentParser()
    src = os.path.join(HERE, "..", "..")
    ap.add_argument("--models", default=os.path.join(src, "models"))
    ap.add_argument("--shared", help="the public data folder: seeds at test time into --out")
    ap.add_argument("--out", help="with --shared: the folder of the generated corpora")
    a = ap.parse_args()
    if a.shared:
        shared_seeds(a.shared, a.out)
        return
    traces()
    json_seeds(a.models)
    nsys_seeds()
    align_seeds()
    spans_traces()


if __name__ == "__main__":
    main()
