"""gen_fleet.py — a serving fleet's GPU telemetry as Prometheus returns it
(docs/scaling.md, "Fleet"): NVIDIA DCGM exporter series scraped every
second, read back through /api/v1/query_range, for benchmarks and the
fleet correctness test. Streaming: one hour of one file is built at a time
(memory is a node-hour's samples, whatever the scale).

    python3 gen_fleet.py -o DIR [--gpus 1000] [--hours 24] [--layout both]

What a real fleet gives, and so what this writes:

  - query_range answers a query with at most 11,000 points per series
    (Prometheus: "exceeded maximum resolution of 11,000 points per
    timeseries"), so a day at step=1s is fetched hour by hour: one file per
    hour, start HH:00:00, end HH:59:59, 3,600 points per series. The query
    is {__name__=~"DCGM_FI_DEV_POWER_USAGE|DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"}:
    both metrics in one answer, compact JSON as Prometheus writes it
    (timestamps in seconds with up to 3 decimals, values as shortest
    strings, series sorted by their label sets, labels sorted by name).
  - layout "fleet": DIR/fleet/HH.json, every GPU of the fleet per hour (the
    file to time against json.load); layout "nodes":
    DIR/nodes/nodeNNN_DATE/HH.json, one folder per node per day (how
    fleets keep them; `joules import prometheus --each` makes one trace of
    each folder).
  - labels as dcgm-exporter 3.x with Kubernetes writes them: gpu, UUID,
    device, modelName, Hostname, DCGM_FI_DRIVER_VERSION, instance, job, and
    pod/namespace/container while a pod holds the GPU (absent when idle:
    Prometheus drops empty labels). A GPU's pod changing is a new series.
  - pods start and stop: each node's 8 GPUs are cut into groups (8, 4+4,
    2+2+4, ...), each group runs pods one after the other (lengths of
    minutes to hours) with idle gaps between them;
  - scrape gaps: Prometheus missing a few scrapes (no staleness marker), so
    query_range repeats the last sample for those steps (the counter stays
    flat then catches up);
  - an exporter restart with a driver reload on some nodes: the target is
    down for 30 s (staleness markers: no points at all), then the energy
    counter starts again from zero.

DIR/truth.json: the generator's own account — every pod's GPUs, first and
last sample and the energy its GPUs really used over that span (the
integral of the power, gaps included), and their total. The fleet ctest
(fleet_import) checks joules' import against it.

--gpus and --hours scale it (--hours may be a fraction: the last file is
then part of an hour). Output is deterministic for a given --seed.
"""
import argparse
import datetime
import hashlib
import json
import math
import os
import random
import sys

ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("-o", "--out", required=True)
ap.add_argument("--gpus", type=int, default=1000, help="GPUs in the fleet (8 per node; default 1000)")
ap.add_argument("--hours", type=float, default=24, help="hours from --start (default 24)")
ap.add_argument("--start", default="2026-11-27T00:00:00Z", help="first sample, UTC, on the hour")
ap.add_argument("--layout", choices=("fleet", "nodes", "both"), default="both")
ap.add_argument("--seed", type=int, default=1)
a = ap.parse_args()

GPN = 8
NODES = (a.gpus + GPN - 1) // GPN
T0 = int(datetime.datetime.strptime(a.start, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc).timestamp())
if T0 % 3600:
    sys.exit("gen_fleet: --start must be on the hour")
SPAN = int(round(a.hours * 3600))
if SPAN < 60 or a.gpus < 1:
    sys.exit("gen_fleet: --hours must give at least a minute and --gpus at least 1")
POWER, ENERGY = "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"
MODELS = ["llama-3-70b", "qwen3-8b", "mixtral-8x7b", "deepseek-v3", "gemma-2-27b"]
GROUPINGS = [[8], [4, 4], [2, 2, 4], [1, 1, 2, 4], [2, 2, 2, 2], [4, 2, 1, 1]]


def gpus_of(node):
    return [g for g in range(GPN) if node * GPN + g < a.gpus]


def uuid(node, g):
    h = hashlib.sha1(f"{a.seed}/{node}/{g}".encode()).hexdigest()
    return f"GPU-{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def plan_node(node):
    """The node's pods, scrape gaps and restart: deterministic per node."""
    rng = random.Random(a.seed * 1000003 + node)
    groups, g0 = [], 0
    for size in rng.choice(GROUPINGS):
        groups.append(list(range(g0, g0 + size)))
        g0 += size
    pods = []  # (start, end, name, model, [gpu indices]) in seconds from T0, end exclusive
    for grp in groups:
        grp = [g for g in grp if node * GPN + g < a.gpus]
        if not grp:
            continue
        t = -rng.randint(0, 3 * 3600)  # the first pod may have started before the window
        while t < SPAN:
            if rng.random() < 0.85:
                dur = int(min(6 * 3600, max(300, rng.expovariate(1 / 5400))))
                model = rng.choice(MODELS)
                name = f"vllm-{model}-{rng.getrandbits(32):08x}"
                s, e = max(t, 0), min(t + dur, SPAN)
                if e - s >= 2:
                    pods.append((s, e, name, model, grp))
                t += dur
            t += rng.randint(60, 600)  # idle between pods
    gaps = []  # (start, length): missed scrapes, the last sample repeated
    for h in range(0, SPAN, 3600):
        if rng.random() < 0.3:
            gaps.append((h + rng.randint(60, 3500), rng.randint(3, 15)))
    restart = None  # (start, 30 s down), a driver reload: the counter from 0
    if node % 10 == 3 or (node == 0 and NODES < 4):
        restart = (int(SPAN * rng.uniform(0.3, 0.7)), 30)
    return pods, gaps, restart


def watts(node, g, t, pod):
    """Power (W) at second t: a pod's load with its own rhythm, or idle."""
    x = t + T0 % 100000
    if pod is None:
        return round(61.5 + 2.5 * math.sin(x * 0.011 + g), 3)
    k = int(pod[2][-8:], 16)
    base = 260 + (k % 300)
    w = base + 90 * math.sin(x / (120 + k % 500) + g) + 20 * math.sin(x * 0.37 + node)
    return round(min(700.0, max(70.0, w)), 3)


def label_set(node, g, pod):
    lab = {"DCGM_FI_DRIVER_VERSION": "580.65.06", "Hostname": f"node{node:03d}", "UUID": uuid(node, g),
           "device": f"nvidia{g}", "gpu": str(g), "instance": f"10.{node // 250}.{node % 250}.7:9400",
           "job": "dcgm-exporter", "modelName": "NVIDIA H100 80GB HBM3"}
    if pod is not None:
        lab.update(pod=pod[2], namespace="serve", container="vllm")
    return lab


def value_text(v):
    """Prometheus' value string: the shortest form (Go's 'f', -1)."""
    s = repr(float(v))
    return s[:-2] if s.endswith(".0") else s


def ts_text(t):
    return str(T0 + t)  # on the second: no fraction (MarshalTimestamp)


class GPU:
    """One GPU's state across hours: its counter and its true energy."""

    def __init__(self):
        self.counter_mj = 4.2e9 + random.Random(a.seed).random() * 1e9
        self.true_j = 0.0
        self.last_w = None  # the last second's power (what the counter integrates)
        self.last_sample = None  # (power text, counter text): repeated in a scrape gap


def node_hour(node, plan, state, h0, h1):
    """The series of one node for seconds [h0, h1): a list of (labels,
    values) with values [(t, (power text, counter text))], and the true
    energy at every pod's first and last sample recorded in TRUTH."""
    pods, gaps, restart = plan
    gap = set()
    for s, n in gaps:
        gap.update(range(s, s + n))
    down = set(range(restart[0], restart[0] + restart[1])) if restart else set()
    out = {}
    for g in gpus_of(node):
        st = state[g]
        mine = sorted((p for p in pods if g in p[4]), key=lambda p: p[0])
        k = 0
        for t in range(h0, h1):
            while k < len(mine) and mine[k][1] <= t:
                k += 1
            pod = mine[k] if k < len(mine) and mine[k][0] <= t else None
            w = watts(node, g, t, pod)
            if st.last_w is not None:
                e = 0.5 * (st.last_w + w)  # J over the second
                st.true_j += e
                st.counter_mj += e * 1000.0
            st.last_w = w
            if t in down:
                if t == restart[0]:
                    st.counter_mj = 0.0  # the driver reloaded
                continue  # target down: stale, no point
            edge = pod is not None and (t == pod[0] or t == pod[1] - 1)
            if t in gap and st.last_sample is not None and not edge:
                sample = st.last_sample  # a missed scrape: the last sample again
            else:
                sample = (value_text(w), value_text(int(round(st.counter_mj))))
                st.last_sample = sample
            key = pod[2] if pod else ""
            ser = out.get((g, key))
            if ser is None:
                ser = out[(g, key)] = [label_set(node, g, pod), []]
            ser[1].append((t, sample))
            if pod:
                tr = TRUTH.get(pod[2])
                if tr is None:
                    tr = TRUTH[pod[2]] = {"gpus": {}, "first": t, "last": t}
                tr["last"] = max(tr["last"], t)
                e = tr["gpus"].setdefault(f"node{node:03d}:{uuid(node, g)}", [st.true_j, st.true_j])
                e[1] = st.true_j
    return out.values()


def write_series(f, series, first):
    """Both metrics of each series, sorted as Prometheus sorts the matrix."""
    rows = []
    for lab, vals in series:
        for name, k in ((POWER, 0), (ENERGY, 1)):
            full = dict(lab, __name__=name)
            rows.append((sorted(full.items()), full, vals, k))
    rows.sort(key=lambda r: r[0])
    for _, full, vals, k in rows:
        f.write(("" if first else ",") + '{"metric":' + json.dumps(dict(sorted(full.items())), separators=(",", ":"))
                + ',"values":[' + ",".join(f'[{ts_text(t)},"{s[k]}"]' for t, s in vals) + "]}")
        first = False
    return first


HEAD = '{"status":"success","data":{"resultType":"matrix","result":['
TAIL = "]}}"
TRUTH = {}
os.makedirs(a.out, exist_ok=True)
plans = [plan_node(n) for n in range(NODES)]
layouts = ["fleet", "nodes"] if a.layout == "both" else [a.layout]
for layout in layouts:
    TRUTH = {}
    states = [[GPU() for _ in range(GPN)] for _ in range(NODES)]
    for h0 in range(0, SPAN, 3600):
        h1 = min(SPAN, h0 + 3600)
        hh = datetime.datetime.fromtimestamp(T0 + h0, datetime.timezone.utc)
        name = hh.strftime("%Y-%m-%dT%H") + ".json"
        if layout == "fleet":
            os.makedirs(os.path.join(a.out, "fleet"), exist_ok=True)
            path = os.path.join(a.out, "fleet", name)
            with open(path + ".tmp", "w") as f:
                f.write(HEAD)
                first = True
                for n in range(NODES):
                    first = write_series(f, node_hour(n, plans[n], states[n], h0, h1), first)
                f.write(TAIL)
            os.replace(path + ".tmp", path)
        else:
            for n in range(NODES):
                d = os.path.join(a.out, "nodes", f"node{n:03d}_{hh.strftime('%Y-%m-%d')}")
                os.makedirs(d, exist_ok=True)
                path = os.path.join(d, name)
                with open(path + ".tmp", "w") as f:
                    f.write(HEAD)
                    write_series(f, node_hour(n, plans[n], states[n], h0, h1), True)
                    f.write(TAIL)
                os.replace(path + ".tmp", path)
        print(f"gen_fleet: {layout} {name} ({a.gpus} GPUs)", file=sys.stderr)

pods = {}
total = 0.0
for name, tr in sorted(TRUTH.items()):
    if tr["last"] <= tr["first"]:
        continue
    e = sum(b - a_ for a_, b in tr["gpus"].values())
    pods[name] = {"gpus": sorted(tr["gpus"]), "first": T0 + tr["first"], "last": T0 + tr["last"], "energy_j": e}
    total += e
with open(os.path.join(a.out, "truth.json"), "w") as f:
    json.dump({"gpus": a.gpus, "nodes": NODES, "hours": a.hours, "start": T0, "pods": pods,
               "total_energy_j": total}, f, indent=1, sort_keys=True)
print(f"gen_fleet: {len(pods)} pods, {total / 3.6e6:.3f} kWh in pods", file=sys.stderr)
