#!/usr/bin/env python3
"""Cross-check of joules and the numpy reference on synthetic traces that
exercise what the real traces do not: counter restarts (bridged by watts
and by neighbouring rates), a garbage counter, jitter, several GPUs, the
occupancy rule, tokens from the request table, failed requests.

    edge_summary.py --joules PATH --header summary.h --out DIR

writes DIR/edge-cases.h5 (deterministic) and runs compare_summary.py on it.
"""
import argparse
import os
import subprocess
import sys

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def attrs(g, workload, G, B):
    g.attrs.update(workload=workload, model="synthetic/edge", task="edge", gpu_model="H100",
                   num_gpus=np.int64(G), precision="bfloat16", max_batch_size=np.int64(B),
                   gpu_idle_power_w=120.0)


def power(g, t, w, e=None, with_watts=True):
    p = g.create_group("power")
    p["time"] = t
    if with_watts:
        p["watts"] = w.astype(np.float32)
    if e is not None:
        p["energy_j"] = e


def smooth_watts(rng, t, G, base=300.0):
    w = np.empty((len(t), G))
    for k in range(G):
        w[:, k] = base + 80 * np.sin(t * (0.7 + 0.1 * k)) + rng.normal(0, 15, len(t))
    return np.round(w.astype(np.float32), 3).astype(np.float64)


def counter_from(t, w, offset):
    inc = (w[:-1] + w[1:]) * 0.5 * np.diff(t)[:, None]
    return offset + np.vstack([np.zeros((1, w.shape[1])), np.cumsum(inc, axis=0)])


def serve(g, rng, R, B, T_end, fail=(), tokens=True, requests=True):
    """A crude continuous-batching timeline: engine rows every 20 ms."""
    out = rng.integers(20, 120, R).astype(np.int32)
    et = np.arange(0, T_end, 0.02)
    first = np.full(R, np.nan)
    fin = np.full(R, np.nan)
    left = out.copy()
    queue, running = list(range(R)), []
    run_col, tok_col, pre_col = [0], [0], [0]
    tok = pre = 0
    for t in et[1:]:
        admitted = []
        while queue and len(running) < B:
            r = queue.pop(0)
            running.append(r)
            admitted.append(r)
            first[r] = t - 0.005
            pre += 100
        run_col.append(len(running))
        for r in list(running):
            tok += 1
            left[r] -= 1
            if r in fail and left[r] < out[r] // 2:
                running.remove(r)
                continue
            if left[r] <= 0:
                fin[r] = t
                running.remove(r)
        tok_col.append(tok)
        pre_col.append(pre)
    e = g.create_group("engine")
    e["time"] = et
    e["running"] = np.array(run_col, dtype=np.int32)
    if tokens:
        e["tokens_generated"] = np.array(tok_col, dtype=np.int64)
    e["prefill_tokens"] = np.array(pre_col, dtype=np.int64)
    e["kv_cache_usage"] = (np.array(run_col) / (2.0 * B)).astype(np.float32)
    if requests:
        q = g.create_group("requests")
        q["arrival"] = np.zeros(R)
        q["first_token"] = first
        q["finish"] = fin
        q["input_tokens"] = np.full(R, 100, dtype=np.int32)
        q["output_tokens"] = out
        itl, req = [], []
        for r in range(R):
            if np.isfinite(first[r]):
                n = int(out[r]) - 1
                itl.append(rng.uniform(0.015, 0.03, n).astype(np.float32))
                req.append(np.full(n, r, dtype=np.int32))
        i = g.create_group("itl")
        i["seconds"] = np.concatenate(itl)
        i["request"] = np.concatenate(req)


def build(path):
    rng = np.random.default_rng(20261121)
    with h5py.File(path, "w") as f:
        f.attrs["format"] = "joules-trace"
        f.attrs["format_version"] = np.int64(1)
        f.attrs["harness"] = "tests/integration/edge_summary.py"
        runs = f.create_group("runs")
        t = np.arange(0, 30, 0.01) + 0.003

        g = runs.create_group("restart_two_gpus")  # GPU 0 restarts, GPU 1 wraps
        attrs(g, "llm", 2, 8)
        w = smooth_watts(rng, t, 2)
        e = counter_from(t, w, np.array([5.0e4, 4294967.296 - 3000.0]))
        e[1234:, 0] = e[1234:, 0] - e[1234, 0] + 0.4  # restart near zero
        e[:, 1] = np.mod(e[:, 1], 4294967.296)        # 32-bit mJ wrap
        power(g, t, w, e)
        serve(g, rng, 60, 8, 29.5)

        g = runs.create_group("restart_counter_only")  # bridged by neighbour rates
        attrs(g, "llm", 1, 4)
        w = smooth_watts(rng, t, 1)
        e = counter_from(t, w, np.array([7.0e5]))
        e[2000:, 0] = e[2000:, 0] - e[2000, 0] + 2.0
        power(g, t, w, e, with_watts=False)
        serve(g, rng, 30, 4, 29.5)

        g = runs.create_group("garbage_and_jitter")  # GPU 0 garbage, GPU 1 jitter
        attrs(g, "llm", 2, 8)
        w = smooth_watts(rng, t, 2)
        e = counter_from(t, w, np.array([1.0e5, 2.0e5]))
        e[1500, 0] = 10.0            # down and straight back up
        e[800, 1] = e[799, 1] - 0.3  # small decrease
        power(g, t, w, e)
        serve(g, rng, 50, 8, 29.5, fail={3, 17})

        g = runs.create_group("occupancy_only")  # no requests/
        attrs(g, "llm", 1, 16)
        w = smooth_watts(rng, t, 1)
        power(g, t, w, counter_from(t, w, np.array([3.0e3])))
        serve(g, rng, 80, 16, 29.5, requests=False)

        g = runs.create_group("request_tokens")  # no tokens_generated; failures
        attrs(g, "llm", 1, 6)
        w = smooth_watts(rng, t, 1)
        power(g, t, w)
        serve(g, rng, 40, 6, 29.5, fail={5, 9, 30}, tokens=False)

        # spec 1.1: series cut by their source, published figures beside them
        g = runs.create_group("published_beside_series")
        attrs(g, "llm", 2, 8)
        g.attrs["gpu_idle_power_w"] = 70.0
        g.attrs["window"] = "steady_state_only"
        w = smooth_watts(rng, t, 2)
        power(g, t, w)
        serve(g, rng, 60, 8, 29.5)
        sg = g.create_group("summary")
        sg.attrs["source"] = "edge_summary.py"
        sg.attrs["energy_per_token_j"] = 0.75
        sg.attrs["avg_power_w"] = 610.0
        sg.attrs["median_itl_s"] = 0.021
        sg.attrs["avg_kv_cache_usage"] = 0.05


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--joules", required=True)
    ap.add_argument("--header", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, "edge-cases.h5")
    build(path)
    return subprocess.call([sys.executable, os.path.join(HERE, "compare_summary.py"),
                            "--joules", a.joules, "--header", a.header, path])


if __name__ == "__main__":
    sys.exit(main())
