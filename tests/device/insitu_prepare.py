#!/usr/bin/env python3
"""Turn insitu_record.py's recordings into the in-situ truth and into the
text that insitu_trace (tests/device/device_insitu_trace.c) writes as joules traces.

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
  DIR/loops-loop.txt  (recordings with busy_s_loop) @device_s_per_call from
                      CUDA events around the loop itself
  DIR/loops-duty.txt  (recordings with --iso-duty) the duty-cycled loops, busy
                      from their own CUDA events: the clocks of a run below the cap
  DIR/align.json      the profiler's clocks, for `joules import kineto --align`
Where the sampler recorded the SM clock, every trace gets gpu/sm_clock_mhz
(one row per poll), so that `joules attribute --calibration` can compare the
loops' clocks with the profiled window's.
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
    rows, clocks = [], []
    path = os.path.join(rec, "samples.csv.gz")
    # samples.csv: the sampler's own file, left as it is when a recording was cut off
    with (gzip.open(path, "rt") if os.path.exists(path) else open(path[:-3])) as f:
        r = csv.reader(f)
        head = next(r)
        # later recordings add sm_mhz, mem_mhz, reasons, temp_c (empty: refused by NVML)
        more = head[5:9] == ["sm_mhz", "mem_mhz", "reasons", "temp_c"]
        for n, row in enumerate(r, 2):
            if len(row) != len(head):
                if n > 2 and len(row) < len(head):  # the last line of a cut-off recording
                    break
                raise SystemExit(f"{path}:{n}: {len(row)} fields, expected {len(head)}")
            t, e, i, a, u = (float(x) for x in row[:5])
            rows.append((t, e / 1e3, i / 1e3, a / 1e3, u / 1e3))
            if more:
                clocks.append((t,) + tuple(int(x) if x else None for x in row[5:9]))
    ph["_clocks"] = clocks
    return ph, rows


# NVML clock-event (throttle) reasons
REASON_SW_POWER_CAP = 0x4
REASON_HW_SLOWDOWN = 0x8 | 0x40 | 0x80  # hardware slowdown, thermal, power brake
REASON_THERMAL = 0x20 | 0x40


def clock_summary(clocks, a, b):
    """SM clock and throttle reasons over the polls inside [a, b] (None: not recorded)."""
    inside = [c for c in clocks if a <= c[0] <= b and c[1] is not None]
    if not inside:
        return None
    sm = [c[1] for c in inside]
    why = [c[3] for c in inside if c[3] is not None]
    temp = [c[4] for c in inside if c[4] is not None]

    def share(mask):
        return sum(1 for w in why if w & mask) / len(why) if why else None

    sm_sorted = sorted(sm)
    return dict(polls=len(inside), sm_mhz_mean=sum(sm) / len(sm),
                sm_mhz_median=sm_sorted[len(sm) // 2], sm_mhz_min=sm_sorted[0],
                sm_mhz_max=sm_sorted[-1], power_cap_share=share(REASON_SW_POWER_CAP),
                hw_slowdown_share=share(REASON_HW_SLOWDOWN), thermal_share=share(REASON_THERMAL),
                temp_c_max=max(temp) if temp else None)


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


def loop_energy(run, upd, clocks=()):
    s, e = run["start"], run["end"]
    a, b = s[0], e[-1]
    p, cov = mean_power(upd, a, b)
    it = (b - a) / len(s)
    out = dict(label=run["label"], doubled=run["doubled"], iterations=len(s),
               seconds=b - a, covered_s=cov, power_w=p, iteration_s=it, j_per_iteration=p * it)
    cs = clock_summary(clocks, a, b)
    if cs is not None:
        out["clocks"] = cs
    return out


def pool(out):
    """Recordings with --repeats (or several folders) double a class more than once:
    its truth is then the mean of its paired differences (each doubled run against
    the base runs just before and after it), its uncertainty their standard error
    (sd / sqrt(n)) plus the counter's 0.1 %; the pairs are kept in "pairs". A class
    doubled once keeps its one pair's figures (half the base runs' difference)."""
    by = {}
    for c in out["classes"]:
        by.setdefault(c["cls"], []).append(c)
    if all(len(v) == 1 for v in by.values()):
        return
    out["pairs"] = out["classes"]
    out["classes"] = []
    for cls, v in by.items():
        if len(v) == 1:
            out["classes"].append(v[0])
            continue
        n = len(v)

        def mean(key, sub=None):
            xs = [c[key] if sub is None else c[key][sub] for c in v]
            return sum(xs) / n
        d = [c["truth_j_per_iteration"] for c in v]
        mu = sum(d) / n
        sd = math.sqrt(sum((x - mu) ** 2 for x in d) / (n - 1))
        c = dict(cls=cls, truth_j_per_iteration=mu,
                 uncertainty_j=sd / math.sqrt(n) + 0.001 * mean("doubled_j"), pairs=n,
                 pair_sd_j=sd, doubled_j=mean("doubled_j"), base_before_j=mean("base_before_j"),
                 base_after_j=mean("base_after_j"), doubled_iteration_s=mean("doubled_iteration_s"),
                 base_iteration_s=mean("base_iteration_s"))
        if all("sm_mhz" in x for x in v):
            c["sm_mhz"] = dict(doubled=mean("sm_mhz", "doubled"), base=mean("sm_mhz", "base"))
            c["power_cap_share"] = dict(doubled=mean("power_cap_share", "doubled"),
                                        base=mean("power_cap_share", "base"))
        out["classes"].append(c)


def truth(recs):
    out = {"runs": [], "classes": []}
    for ph, rows in recs:
        upd = updates(rows)
        runs = [loop_energy(r, upd, ph["_clocks"]) for r in ph.get("truth", [])]
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
            if "clocks" in r:
                out["classes"][-1]["sm_mhz"] = dict(
                    doubled=r["clocks"]["sm_mhz_mean"],
                    base=0.5 * (before["clocks"]["sm_mhz_mean"] + after["clocks"]["sm_mhz_mean"]))
                out["classes"][-1]["power_cap_share"] = dict(
                    doubled=r["clocks"]["power_cap_share"],
                    base=0.5 * (before["clocks"]["power_cap_share"] +
                                after["clocks"]["power_cap_share"]))
    pool(out)
    bases = [r["j_per_iteration"] for r in out["runs"] if r["doubled"] is None]
    mu = sum(bases) / len(bases)
    out["base_j_per_iteration"] = dict(
        mean=mu, n=len(bases), min=min(bases), max=max(bases),
        sd=math.sqrt(sum((x - mu) ** 2 for x in bases) / max(1, len(bases) - 1)))
    return out


def shape_attrs(meta):
    """The run's name and the attributes that name its shape (the first recordings,
    made before --shape existed, are the shared run's decode of 512)."""
    shape = meta.get("shape", "decode")
    task = {"decode": "decode-b%d-insitu", "mixed": "mixed-prefill-decode-b%d-insitu",
            "cpu": "cpu-bound-decode-b%d-insitu"}[shape] % meta["batch"]
    tpk = meta.get("tokens_per_kind", dict(sampled=[meta["batch"]] * 2))
    gpu = meta.get("gpu", "NVIDIA H100 80GB HBM3")
    model = next((g for g in ("H200", "H100", "B200", "A100") if g in gpu), gpu)
    return meta.get("run", "b%04d" % meta["batch"]), [
        ("workload", "str", "llm"), ("model", "str", "Qwen3-8B-shaped decoder (random bf16 weights)"),
        ("task", "str", task), ("gpu_model", "str", model), ("num_gpus", "num", 1),
        ("precision", "str", "bfloat16"), ("max_batch_size", "num", max(tpk["sampled"]))]


def attr_lines(base, extra):
    out = []
    for k, typ, v in base + extra:
        out.append(f"attr {k} {typ} {v}" if typ == "str" else f"attr {k} num {v!r}")
    return out


def power_lines(rows, t0, a, b):
    return ["power %.6f %.3f %.3f %.3f" % (t - t0, e, i, av)
            for t, e, i, av, _ in rows if a <= t <= b]


def gpu_lines(clocks, t0, a, b):
    """gpu/sm_clock_mhz: every poll with a clock inside [a, b]."""
    return ["gpu %.6f %d" % (c[0] - t0, c[1]) for c in clocks if a <= c[0] <= b and c[1] is not None]


def profiled(ph, rows):
    p = ph["profile"]
    meta = ph["meta"]
    t0 = p["start"][0]
    idle_a, idle_b = p["idle_before"]
    idle = [r[2] for r in rows if idle_a + 0.3 <= r[0] <= idle_b]
    after = p["after"]
    end = after["end"][-1] + 0.2
    rec = [i for i, f in enumerate(p["profiled"]) if f == 1]
    run, base = shape_attrs(meta)
    lines = ["run " + run]
    shape_extra = []
    if meta.get("shape", "decode") == "mixed":
        pf = meta["prefill"]
        shape_extra = [("prefill_chunks", "num", pf["chunks"]), ("prefill_tokens", "num", pf["tokens"]),
                       ("prefill_every", "num", pf["every"])]
    elif meta.get("shape") == "cpu":
        shape_extra = [("host_ms_per_step", "num", meta["host_ms"])]
    lines += attr_lines(base, shape_extra + [
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
    lines += gpu_lines(ph["_clocks"], t0, idle_a + 0.3, end)
    tok = 0
    sampled = meta.get("tokens_per_kind", dict(sampled=[meta["batch"]] * 2))["sampled"]
    kinds = p.get("kinds", [0] * len(p["end"])) + after.get("kinds", [0] * len(after["end"]))
    for e, k in zip(p["end"] + after["end"], kinds):
        tok += sampled[k]
        lines.append("engine %.6f %d %d" % (e - t0, sampled[k], tok))
    lines.append("end")
    align = {run: dict(
        wall_ns_start=p["wall_ns_start"], perf_counter_ns_start=p["perf_counter_ns_start"],
        wall_ns_end=p["wall_ns_end"], perf_counter_ns_end=p["perf_counter_ns_end"],
        run_t0_perf_counter_s=t0, schedule=p["schedule"], activities=p["activities"], run=run,
        files=["profile-gpu.json.gz"],
        window_run_s=[p["window_perf"][0] - t0, p["window_perf"][1] - t0],
        stop_stall_s=p["stop_stall_s"], json_bytes=p["json_bytes"],
        baseTimeNanoseconds=p["baseTimeNanoseconds"], trace_file="profiled.h5")}
    return lines, align, len(rec)


def loops(ph, rows, busy_from, key="iso"):
    """busy_from "events": @device_s_per_call as recorded (CUDA events over 5
    replays just before the loop); "window": the loop's own window over its
    calls (the replays are queued back to back, so the GPU is busy throughout);
    "loop": CUDA events around the loop's own replays (busy_s_loop). key "iso":
    the back-to-back loops, "iso_duty": the duty-cycled ones."""
    lines = []
    run, base = shape_attrs(ph["meta"])
    prefix = "iso_decode_" if run == "b0512" else "iso_%s_" % run
    for it in ph[key]:
        dps = {"events": it["device_s_per_call"],
               "window": (it["end"] - it["start"]) / it["calls"],
               "loop": it.get("busy_s_loop", 0) / it["calls"]}[busy_from]
        a0 = it["idle"][0]
        idle = [r[2] for r in rows if a0 + 0.3 <= r[0] <= it["idle"][1]]
        lines.append(prefix + it["cls"])
        lines[-1] = "run " + lines[-1]
        lines += attr_lines(base, [("gpu_idle_power_w", "num", sum(idle) / len(idle)),
                             ("calls", "num", it["calls"]),
                             ("device_s_per_call", "num", dps),
                             ("device_s_per_call_from", "str", busy_from),
                             ("loop_duty", "num", it.get("duty", 1.0)),
                             ("loop_mode", "str", "cuda_graph_replay")])
        lines += power_lines(rows, a0, a0, it["end"] + 0.3)
        lines += gpu_lines(ph["_clocks"], a0, a0, it["end"] + 0.3)
        lines.append("span loop.%s %.6f %.6f" % (it["cls"], it["start"] - a0, it["end"] - a0))
        lines.append("end")
    return lines


def clocks_lines(tr):
    """The clock summary per truth run, printed."""
    out = []
    for r in tr["runs"]:
        c = r.get("clocks")
        if c is None:
            continue
        out.append(f"{r['label']:>16}: {r['power_w']:6.1f} W, SM {c['sm_mhz_mean']:6.0f} MHz "
                   f"(median {c['sm_mhz_median']}, {c['sm_mhz_min']}-{c['sm_mhz_max']}), "
                   f"power cap {100*c['power_cap_share']:5.1f} % of polls, "
                   f"hw slowdown {100*c['hw_slowdown_share']:.1f} %, max {c['temp_c_max']} C")
    return out


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
            todo = [("events", "loops.txt", "iso"), ("window", "loops-window.txt", "iso")]
            if all("busy_s_loop" in it for it in ph["iso"]):
                todo.append(("loop", "loops-loop.txt", "iso"))
            if ph.get("iso_duty"):
                todo.append(("loop", "loops-duty.txt", "iso_duty"))
            for busy_from, name, key in todo:
                with open(os.path.join(args.out, name), "w") as f:
                    f.write("\n".join(loops(ph, rows, busy_from, key)) + "\n")
    for ph, _ in recs:
        p = ph.get("profile")
        if p is not None and ph["_clocks"]:
            cs = clock_summary(ph["_clocks"], *p["window_perf"])
            tr["profile_clocks"] = cs
        if ph.get("iso") and ph["_clocks"]:
            tr["iso_clocks"] = {it["cls"]: clock_summary(ph["_clocks"], it["start"], it["end"])
                                for it in ph["iso"]}
        if ph.get("iso_duty") and ph["_clocks"]:
            tr["iso_duty_clocks"] = {it["cls"]: clock_summary(ph["_clocks"], it["start"], it["end"])
                                     for it in ph["iso_duty"]}
    with open(os.path.join(args.out, "truth.json"), "w") as f:
        json.dump(tr, f, indent=1)
    b = tr["base_j_per_iteration"]
    print(f"base: {b['mean']:.4f} J/iteration (n {b['n']}, sd {b['sd']:.4f}, "
          f"{b['min']:.4f}..{b['max']:.4f})")
    for c in tr["classes"]:
        print(f"{c['cls']:>11}: truth {c['truth_j_per_iteration']:8.4f} ± {c['uncertainty_j']:.4f} "
              f"J/iteration ({c['base_iteration_s']*1e3:.2f} -> {c['doubled_iteration_s']*1e3:.2f} ms)"
              + (f", {c['pairs']} pairs, sd {c['pair_sd_j']:.4f}" if "pairs" in c else ""))
    for line in clocks_lines(tr):
        print(line)


if __name__ == "__main__":
    main()
