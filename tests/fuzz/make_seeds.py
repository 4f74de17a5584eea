#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/).

    /usr/bin/python3 tests/fuzz/make_seeds.py [--models models/] [--mlenergy DIR]

The seeds are committed: HDF5 files carry object timestamps, and a fuzz run
is only reproducible from byte-identical seeds, so rerun this only to change
the corpus (and then check the bounded CI runs are still clean,
docs/robustness.md). Trace seeds are tiny valid traces in every storage form
the reader meets (contiguous, chunked, shuffle+deflate, Zstandard, several
GPUs, several runs, diffusion, summary-only, occupancy, a counter restart),
each under 64 KiB (the -max_len of the runs). JSON seeds come from
models/*.json, the ML.ENERGY data (shared/data/mlenergy-v3, cut to a few
configurations) and the documentation's examples.
"""
import argparse
import ctypes
import json
import os
import sys

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "malformed"))
import tracegen as tg  # noqa: E402

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


def json_seeds(models, mlenergy):
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

    out("rules", "full", json.dumps({"version": "joules.rules/1", "rules": {
        "steady_duration": {"warn": 20, "fail": 4, "enabled": True},
        "power_below_tdp": {"warn": 1.1, "fail": 1.3},
        "failed_requests": {"enabled": False}}}, indent=1))
    out("rules", "empty-rules", '{"version": "joules.rules/1", "rules": {}}')
    out("rules", "bad-key", '{"version": "joules.rules/1", "rules": {"steady_duration": {"wran": 1}}}')
    out("rules", "bad-version", '{"version": "joules.rules/2", "rules": {}}')

    if mlenergy and os.path.isdir(mlenergy):
        with open(os.path.join(mlenergy, "index.json")) as f:
            index = f.read()
        mdir = os.path.join(mlenergy, "models")
        for fn in sorted(os.listdir(mdir)):
            with open(os.path.join(mdir, fn)) as f:
                doc = json.load(f)
            confs = doc.get("configurations")
            if isinstance(confs, list) and len(confs) > 3:
                doc["configurations"] = confs[:3]
            text = json.dumps(doc, indent=1)
            if len(text) + len(index) + 6 > MAX:
                continue
            tag = fn[:-5].split("__")[-1]
            if not os.path.exists(os.path.join(HERE, "corpus", "import", tag)):
                out("import", tag, index + "\n----\n" + text)
                out("import", tag + "-noindex", text)

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
        out("where", "c%02d" % i, c)


def main():
    ap = argparse.ArgumentParser()
    src = os.path.join(HERE, "..", "..")
    ap.add_argument("--models", default=os.path.join(src, "models"))
    ap.add_argument("--mlenergy", default=os.path.join(src, "..", "shared", "data", "mlenergy-v3"))
    a = ap.parse_args()
    traces()
    json_seeds(a.models, a.mlenergy)


if __name__ == "__main__":
    main()
