"""Small, valid joules traces written with h5py (format v1,
shared/spec/trace-format.md), used by the malformed-input suite
(tests/malformed/cases.py) and by the fuzz seed generator
(tests/fuzz/make_seeds.py). Everything is deterministic.

    write_trace(path, [("run_name", builder_kwargs), ...], **file_kwargs)

A run built by llm_run() has power/ (watts float32 + energy_j), gpu/,
engine/, requests/ and itl/ with a request table that gives the spec's
steady state (max_batch_size 4, 12 requests). diffusion_run() has batches/;
summary_run() only summary/ attributes.
"""
import h5py
import numpy as np


def root(f, fmt="joules-trace", version=1):
    if fmt is not None:
        f.attrs["format"] = fmt
    if version is not None:
        f.attrs["format_version"] = np.int64(version)
    f.attrs["harness"] = "tests/malformed/tracegen.py"
    f.attrs["created_utc"] = "2026-01-01T00:00:00Z"


def attrs(g, workload="llm", G=1, B=4, **extra):
    g.attrs.update(workload=workload, model="synthetic/tiny", task="chat", gpu_model="H100",
                   num_gpus=np.int64(G), precision="bfloat16", max_batch_size=np.int64(B),
                   gpu_idle_power_w=120.0, gpu_tdp_w=700.0)
    for k, v in extra.items():
        g.attrs[k] = v


def ds(g, name, data, chunks=None, compression=None, **kw):
    return g.create_dataset(name, data=data, chunks=chunks, compression=compression,
                            track_times=False, **kw)


def counter(t, w, offset=1000.0):
    """Cumulative energy (J) of watts [N, G] sampled at t: the trapezoid."""
    inc = (w[:-1] + w[1:]) * 0.5 * np.diff(t)[:, None]
    return offset + np.vstack([np.zeros((1, w.shape[1])), np.cumsum(inc, axis=0)])


def llm_run(g, G=1, B=4, R=12, T=12.0, dt=0.1, watts=300.0, counter_scale=1.0,
            chunks=None, compression=None, with_gpu=True, with_itl=True, **extra):
    attrs(g, "llm", G, B, **extra)
    t = np.round(np.arange(0.0, T + 1e-9, dt), 6)
    n = len(t)
    k = np.arange(n, dtype=np.float64)
    w = np.empty((n, G))
    for j in range(G):
        w[:, j] = watts + 20.0 * np.sin(0.3 * k + j) + 5.0 * j
    w = w.astype(np.float32).astype(np.float64)
    e = counter(t, w) * counter_scale
    p = g.create_group("power")
    c = (min(chunks, n),) if chunks else None
    c2 = (min(chunks, n), G) if chunks else None
    ds(p, "time", t, c, compression)
    ds(p, "watts", w.astype(np.float32), c2, compression)
    ds(p, "energy_j", e, c2, compression)
    if with_gpu:
        q = g.create_group("gpu")
        tg = t[::5]
        ds(q, "time", tg)
        ds(q, "sm_clock_mhz", np.full((len(tg), G), 1980.0))
        ds(q, "sm_util", np.full((len(tg), G), 0.9))
    et = np.round(np.arange(0.0, T + 1e-9, 0.5), 6)
    m = len(et)
    eg = g.create_group("engine")
    ds(eg, "time", et)
    running = np.full(m, B, dtype=np.int32)
    running[0] = 0
    ds(eg, "running", running)
    ds(eg, "waiting", np.zeros(m, dtype=np.int32))
    ds(eg, "tokens_generated", (np.arange(m, dtype=np.int64) * 40))
    ds(eg, "prefill_tokens", (np.minimum(np.arange(m), R) * 100).astype(np.int64))
    ds(eg, "kv_cache_usage", np.full(m, 0.25, dtype=np.float32))
    i = np.arange(R, dtype=np.float64)
    arrival = 0.1 * i
    first = arrival + 0.2
    finish = first + 2.0 + 0.5 * i
    rq = g.create_group("requests")
    ds(rq, "arrival", arrival)
    ds(rq, "first_token", first)
    ds(rq, "finish", finish)
    ds(rq, "input_tokens", np.full(R, 100, dtype=np.int32))
    ds(rq, "output_tokens", np.full(R, 50, dtype=np.int32))
    if with_itl:
        it = g.create_group("itl")
        sec = np.tile(np.array([0.02, 0.025, 0.03], dtype=np.float32), R)
        req = np.repeat(np.arange(R, dtype=np.int32), 3)
        ds(it, "seconds", sec)
        ds(it, "request", req)
    return g


def diffusion_run(g, G=1, batches=6, **extra):
    attrs(g, "diffusion", G, 2, denoising_steps=np.int64(25), height=np.int64(512),
          width=np.int64(512), **extra)
    t = np.round(np.arange(0.0, 10.0 + 1e-9, 0.1), 6)
    w = np.full((len(t), G), 400.0, dtype=np.float32)
    p = g.create_group("power")
    ds(p, "time", t)
    ds(p, "watts", w)
    b = g.create_group("batches")
    start = 1.0 + 1.2 * np.arange(batches)
    ds(b, "start", start)
    ds(b, "end", start + 1.0)
    ds(b, "size", np.full(batches, 2, dtype=np.int32))
    return g


def summary_run(g, **extra):
    attrs(g, "llm", 1, 8, **extra)
    s = g.create_group("summary")
    s.attrs.update(energy_per_token_j=0.25, avg_power_w=450.0, output_throughput_tok_s=1800.0,
                   median_itl_s=0.021, avg_batch_size=7.5, steady_state_duration_s=120.0)
    return g


def write_trace(path, runs, fmt="joules-trace", version=1, userblock=None):
    """runs: list of (name, builder, kwargs)."""
    with h5py.File(path, "w") as f:
        root(f, fmt, version)
        r = f.create_group("runs")
        for name, builder, kw in runs:
            builder(r.create_group(name), **kw)
    return path


def good_trace(path, name="good"):
    return write_trace(path, [(name, llm_run, {})])
