#!/usr/bin/env python3
"""Turn insitu_record.py's recordings into the in-situ truth and into the
text that insitu_trace (tests/device/insitu_trace.c) writes as joules traces.

    insitu_prepare.py --out DIR REC_DIR [REC_DIR...]

Each REC_DIR holds samples.csv[.gz] and phases.json[.gz] (one device call). Writes:
  DIR/truth.json      per class: energy per iteration doubled - base, from
                      the counter, with the base runs around it
  DIR/profiled.txt    the profiled run (power/, engine/, attributes), for
                      insitu_trace -> profiled.h5 (then `joules import kineto`)
  DIR/loops.txt       one run per isolated loop (power/, one span), for
                      insitu_trace -> loops.h5 (`joules attribute --calibration`);
                      @device_s_per_call as recorded (CUDA events, 5 replays
                      timed before the loop)
  DIR/loops-window.txt the same with @device_s_per_call = the loop's window
                      over its calls (busy as the loop ran: at the power cap
                      the GEMM loops ran 5-15 % slower than the timed replays)
  DIR/align.json      the profiler's clocks, for `joules import kineto --align`
Standard library only (no numpy).
"""
import argparse
import csv
import gzip
import json
import math
import os

ENERGY_DELAY_S = 0.002  # the counter's lag (docs/attribute.md, fitted on the shared square wave)


def load(rec):
    path = os.path.join(rec, "phases.json")
    if os.path.exists(path):
        with open(path) as f:
            ph = json.load(f)
    else:
        with gzip.open(path + ".gz", "rt") as f:
            ph = json.load(f)
    rows = []
    path = os.path.join(rec, "samples.csv.gz")
    # samples.csv: the sampler's own file, left as it is when a recording was cut off
    with (gzip.open(path, "rt") if os.path.exists(path) else open(path[:-3])) as f:
        r = csv.reader(f)
        next(r)
        for t, e, i, a, u in r:
            rows.append((float(t), float(e) / 1e3, float(i) / 1e3, float(a) / 1e3, float(u) / 1e3))
    return ph, rows


def updates(rows):
    """Counter updates: (time, energy J); each change placed at the midpoint
    between the poll that saw it and the one before, less the counter's lag."""
    out = []
    for k in range(1, len(rows)):
        if rows[k][1] != rows[k - 1][1]:
            out.append((0.5 * (rows[k][0] + rows[k - 1][0]) - ENERGY_DELAY_S, rows[k][1]))
    return out


def mean_power(upd, a, b):
    """Counter power over the updates inside [a, b]: (W, seconds covered)."""
    inside = [u for u in upd if a <= u[0] <= b]
    if len(inside) < 3:
        raise SystemExit(f"fewer than 3 counter updates in [{a}, {b}]")
    t0, e0 = inside[0]
    t1, e1 = inside[-1]
    return (e1 - e0) / (t1 - t0), t1 - t0


def loop_energy(run, upd):
    s, e = run["start"], run["end"]
    a, b = s[0], e[-1]
    p, cov = mean_power(upd, a, b)
    it = (b - a) / len(s)
    return dict(label=run["label"], doubled=run["doubled"], iterations=len(s),
                seconds=b - a, covered_s=cov, power_w=p, iteration_s=it, j_per_iteration=p * it)


def truth(recs):
    out = {"runs": [], "classes": []}
    for ph, rows in recs:
        upd = updates(rows)
        runs = [loop_energy(r, upd) for r in ph.get("truth", [])]
        out["runs"] += runs
        for k, r in enumerate(runs):
            if r["doubled"] is None:
                continue
            before, after = runs[k - 1], runs[k + 1]
            base = 0.5 * (before["j_per_iteration"] + after["j_per_iteration"])
            d = r["j_per_iteration"] - base
            # the drift of the base between the two runs around the class: the
            # truth's uncertainty (plus the counter's, ~0.1 % of a run)
            unc = 0.5 * abs(after["j_per_iteration"] - before["j_per_iteration"]) + \
                0.001 * r["j_per_iteration"]
            out["classes"].append(dict(cls=r["doubled"], truth_j_per_iteration=d,
                                       uncertainty_j=unc, doubled_j=r["j_per_iteration"],
                                       base_before_j=before["j_per_iteration"],
                                       base_after_j=after["j_per_iteration"],
                                       doubled_iteration_s=r["iteration_s"],
                                       base_iteration_s=0.5 * (before["iteration_s"] +
                                                               after["iteration_s"])))
    bases = [r["j_per_iteration"] for r in out["runs"] if r["doubled"] is None]
    mu = sum(bases) / len(bases)
    out["base_j_per_iteration"] = dict(
        mean=mu, n=len(bases), min=min(bases), max=max(bases),
        sd=math.sqrt(sum((x - mu) ** 2 for x in bases) / max(1, len(bases) - 1)))
    return out


ATTRS = [("workload", "str", "llm"), ("model", "str", "Qwen3-8B-shaped decoder (random bf16 weights)"),
         ("task", "str", "decode-b512-insitu"), ("gpu_model", "str", "H100"), ("num_gpus", "num", 1),
         ("precision", "str", "bfloat16"), ("max_batch_size", "num", 512)]


def attr_lines(extra):
    out = []
    for k, typ, v in ATTRS + extra:
        out.append(f"attr {k} {typ} {v}" if typ == "str" else f"attr {k} num {v!r}")
    return out


def power_lines(rows, t0, a, b):
    return ["power %.6f %.3f %.3f %.3f" % (t - t0, e, i, av)
            for t, e, i, av, _ in rows if a <= t <= b]


def profiled(ph, rows):
    p = ph["profile"]
    meta = ph["meta"]
    t0 = p["start"][0]
    idle_a, idle_b = p["idle_before"]
    idle = [r[2] for r in rows if idle_a + 0.3 <= r[0] <= idle_b]
    after = p["after"]
    end = after["end"][-1] + 0.2
    rec = [i for i, f in enumerate(p["profiled"]) if f == 1]
    lines = ["run b0512"]
    lines += attr_lines([
        ("start_time_unix", "num", meta["start_time_unix"] + (t0 - meta["start_perf"])),
        ("gpu_idle_power_w", "num", sum(idle) / len(idle)),
        ("gpu_tdp_w", "num", meta["power_limit_w"]),
        ("iteration_s_profiled", "num", p["iteration_s_profiled"]),
        ("iteration_s_unprofiled", "num", p["iteration_s_unprofiled"]),
        ("profiled_iterations", "num", len(rec)),
        ("profiler_schedule", "str", p["schedule"]),
        ("decode_batch", "num", meta["batch"]),
        ("decode_context_tokens", "num", sum(meta["lens"])),
        ("power_source", "str", "NVML via ctypes (energy counter, instant field, 1-s average)"),
        ("notes", "str", "tests/device/insitu_record.py on %s, driver %s, torch %s, triton %s" %
         (meta["gpu"], meta["driver"], meta["torch"], meta["triton"])),
    ])
    lines += power_lines(rows, t0, idle_a + 0.3, end)
    tok = 0
    for e in p["end"] + after["end"]:
        tok += meta["batch"]
        lines.append("engine %.6f %d %d" % (e - t0, meta["batch"], tok))
    lines.append("end")
    align = {"b0512": dict(
        wall_ns_start=p["wall_ns_start"], perf_counter_ns_start=p["perf_counter_ns_start"],
        wall_ns_end=p["wall_ns_end"], perf_counter_ns_end=p["perf_counter_ns_end"],
        run_t0_perf_counter_s=t0, schedule=p["schedule"], activities=p["activities"], run="b0512",
        files=["profile-gpu.json.gz"],
        window_run_s=[p["window_perf"][0] - t0, p["window_perf"][1] - t0],
        stop_stall_s=p["stop_stall_s"], json_bytes=p["json_bytes"],
        baseTimeNanoseconds=p["baseTimeNanoseconds"], trace_file="profiled.h5")}
    return lines, align, len(rec)


def loops(ph, rows, busy_from):
    """busy_from "events": @device_s_per_call as recorded (CUDA events over 5
    replays just before the loop); "window": the loop's own window over its
    calls (the replays are queued back to back, so the GPU is busy throughout)."""
    lines = []
    for it in ph["iso"]:
        dps = (it["device_s_per_call"] if busy_from == "events"
               else (it["end"] - it["start"]) / it["calls"])
        a0 = it["idle"][0]
        idle = [r[2] for r in rows if a0 + 0.3 <= r[0] <= it["idle"][1]]
        lines.append(f"run iso_decode_{it['cls']}")
        lines += attr_lines([("gpu_idle_power_w", "num", sum(idle) / len(idle)),
                             ("calls", "num", it["calls"]),
                             ("device_s_per_call", "num", dps),
                             ("device_s_per_call_from", "str", busy_from),
                             ("loop_mode", "str", "cuda_graph_replay")])
        lines += power_lines(rows, a0, a0, it["end"] + 0.3)
        lines.append("span loop.%s %.6f %.6f" % (it["cls"], it["start"] - a0, it["end"] - a0))
        lines.append("end")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("recs", nargs="+")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    recs = [load(r) for r in args.recs]
    tr = truth(recs)
    for ph, rows in recs:
        if "profile" in ph:
            lines, align, n_rec = profiled(ph, rows)
            tr["profiled_iterations"] = n_rec
            with open(os.path.join(args.out, "profiled.txt"), "w") as f:
                f.write("\n".join(lines) + "\n")
            with open(os.path.join(args.out, "align.json"), "w") as f:
                json.dump(align, f, indent=1)
        if "iso" in ph:
            for busy_from, name in (("events", "loops.txt"), ("window", "loops-window.txt")):
                with open(os.path.join(args.out, name), "w") as f:
                    f.write("\n".join(loops(ph, rows, busy_from)) + "\n")
    with open(os.path.join(args.out, "truth.json"), "w") as f:
        json.dump(tr, f, indent=1)
    b = tr["base_j_per_iteration"]
    print(f"base: {b['mean']:.4f} J/iteration (n {b['n']}, sd {b['sd']:.4f}, "
          f"{b['min']:.4f}..{b['max']:.4f})")
    for c in tr["classes"]:
        print(f"{c['cls']:>11}: truth {c['truth_j_per_iteration']:8.4f} ± {c['uncertainty_j']:.4f} "
              f"J/iteration ({c['base_iteration_s']*1e3:.2f} -> {c['doubled_iteration_s']*1e3:.2f} ms)")


if __name__ == "__main__":
    main()
