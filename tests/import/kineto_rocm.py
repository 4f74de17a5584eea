"""joules import kineto on PyTorch profiler traces recorded on ROCm (issue 38),
made here in the shape Kineto's writers give them, never copied from one:

- the document: schemaVersion, deviceProperties (one entry per device, the
  fields libkineto's DeviceProperties.cpp writes from hipDeviceProp_t:
  maxSharedMemoryPerMultiProcessor where a CUDA build writes
  regsPerMultiprocessor and sharedMemPerBlockOptin; warpSize 64),
  distributedInfo (RCCL answers as "nccl"), baseTimeNanoseconds, traceEvents;
- pid/tid as Kineto lays them out: CPU events on the process id and thread
  id; GPU events (RoctracerActivity: deviceId() the HIP device, resourceId()
  the HSA queue) on pid = device, tid = queue; process_name / thread_name
  metadata ("M") for each; the profiler's "Trace" span on pid "Spans";
- categories: cpu_op, user_annotation, cuda_runtime (HIP's calls keep
  ActivityType::CUDA_RUNTIME: hipLaunchKernel, hipMemcpyWithStream,
  hipExtModuleLaunchKernel), kernel, gpu_memcpy, gpu_memset,
  gpu_user_annotation, ac2g flow events ("s"/"f"); GPU events with no args
  (roctracer's metadataJson() is empty);
- ts in µs with fractions, several steps of layers, two devices, two
  queues, kernels outside every annotation, a copy in a step but in no
  layer, and the same trace gzipped.

The importer must give the spans (count, names, times on the run's clock),
each span's busy_s (the device work folded into its innermost annotation),
the totals in and outside the spans as generated here, and name the
platform ROCm (AMD) with the device count and name. A CUDA trace of the
same shape is named CUDA (NVIDIA), a ROCm trace whose device properties are
empty (hipGetDeviceProperties failed) is still ROCm by its HIP calls, and a
CPU-only profile names no platform.

usage: kineto_rocm.py JOULES OUTDIR"""
import datetime
import gzip
import json
import os
import random
import shutil
import subprocess
import sys

import h5py

joules, out = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
shutil.rmtree(out, ignore_errors=True)
os.makedirs(out)
T0 = 1795000000.0  # the run's @start_time_unix (the log's first sample)
PLACE_S = 2.0  # the profile's ts 0 is run time 2 s
failures = []


def bad(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def run(args):
    return subprocess.run([joules] + args, capture_output=True, text=True, cwd=out)


def make_run(name):
    """A run of 30 s at 10 Hz (an nvidia-smi-style log: only its clock matters here)."""
    log = os.path.join(out, name + ".csv")
    with open(log, "w") as f:
        f.write("timestamp, index, name, power.draw.instant [W]\n")
        for i in range(300):
            s = datetime.datetime.fromtimestamp(T0 + 0.1 * i, datetime.timezone.utc)
            f.write(s.strftime("%Y/%m/%d %H:%M:%S.") + f"{s.microsecond // 1000:03d}, 0, "
                    f"AMD Instinct MI300X, {300 + 5 * (i % 7):.2f} W\n")
    p = run(["import", "nvidia-smi", log, "-o", name + ".h5", "--timezone", "UTC", "--set", "workload=llm",
             "--set", "model=m", "--set", "task=chat", "--set", "precision=bf16", "--set",
             "max_batch_size=8", "--quiet"])
    if p.returncode:
        bad(f"making the run: {p.stderr[-500:]}")
    return os.path.join(out, name + ".h5")


ROCM_DEV = {"name": "AMD Instinct MI300X", "totalGlobalMem": 206141652992, "computeMajor": 9,
            "computeMinor": 4, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,
            "regsPerBlock": 65536, "warpSize": 64, "sharedMemPerBlock": 65536, "numSms": 304,
            "maxSharedMemoryPerMultiProcessor": 65536}
CUDA_DEV = {"name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85045346304, "computeMajor": 9,
            "computeMinor": 0, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,
            "regsPerBlock": 65536, "warpSize": 32, "sharedMemPerBlock": 49152, "numSms": 132,
            "regsPerMultiprocessor": 65536, "sharedMemPerBlockOptin": 232448, "sharedMemPerMultiprocessor": 233472}


def generate(seed, platform="rocm", devices=2, with_props=True, gpu=True):
    """A profile and what the importer must find in it: the GPU-side spans
    (start, end in run time; name; device; busy_s) and the device time in
    and outside them."""
    rng = random.Random(seed)
    pid, tids = 31337, (31337, 31402)
    ev, want = [], []
    launch = "hipLaunchKernel" if platform == "rocm" else "cudaLaunchKernel"
    copy = "hipMemcpyWithStream" if platform == "rocm" else "cudaMemcpyAsync"
    ev.append({"name": "process_name", "ph": "M", "ts": 0, "pid": pid, "tid": 0, "args": {"name": "python"}})
    for t in tids:
        ev.append({"name": "thread_name", "ph": "M", "ts": 0, "pid": pid, "tid": t,
                   "args": {"name": f"thread {t} (python)"}})
    corr = [1000]
    busy_in = busy_out = 0.0

    def gpu_event(cat, name, dev, q, ts, dur, cpu_ts):
        corr[0] += 1
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": launch if cat == "kernel" else copy, "pid": pid,
                   "tid": tids[0], "ts": round(cpu_ts, 3), "dur": 4.125,
                   "args": {"cid": 2, "correlation": corr[0], "stream": "0x55d0c3a0", "grid": [304, 1, 1],
                            "block": [256, 1, 1], "shared memory": 0}})
        ev.append({"ph": "X", "cat": cat, "name": name, "pid": dev, "tid": q, "ts": round(ts, 3),
                   "dur": round(dur, 3), "args": {}})
        ev.append({"ph": "s", "id": corr[0], "pid": pid, "tid": tids[0], "ts": round(cpu_ts, 3), "cat": "ac2g",
                   "name": "ac2g"})
        ev.append({"ph": "f", "id": corr[0], "pid": dev, "tid": q, "ts": round(ts, 3), "cat": "ac2g",
                   "name": "ac2g", "bp": "e"})
        return round(dur, 3)

    t = 1000.0  # µs after baseTimeNanoseconds
    for dev in range(devices if gpu else 0):
        ev.append({"name": "process_name", "ph": "M", "ts": 0, "pid": dev, "tid": 0, "args": {"name": "python"}})
        ev.append({"name": "process_labels", "ph": "M", "ts": 0, "pid": dev, "tid": 0,
                   "args": {"labels": f"GPU {dev}"}})
        for q in (0, 1):
            ev.append({"name": "thread_name", "ph": "M", "ts": 0, "pid": dev, "tid": q,
                       "args": {"name": f"stream {q}"}})
    for step in range(4):
        s0 = t
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step}", "pid": pid,
                   "tid": tids[0], "ts": round(s0, 3), "dur": 0})  # its length set below
        step_ev = ev[-1]
        gs = []  # the step's GPU-side annotations, per device: [ts, end, busy own]
        for dev in range(devices if gpu else 0):
            q = step % 2
            g0 = t + 20
            own = gpu_event("gpu_memcpy", "Memcpy HtoD (Host -> Device)", dev, q, g0 + 1, rng.uniform(5, 30),
                            t + 2)
            lt = g0 + 40
            layers = []
            for layer in range(3):
                l0 = lt
                k = lt + 2
                lbusy = 0.0
                for j in range(rng.randint(2, 5)):
                    d = rng.uniform(3, 120)
                    lbusy += gpu_event("kernel", f"Cijk_Alik_Bljk_HHS_BH_MT{j}_layer{layer}", dev, q, k, d, k - 8)
                    k += d + rng.uniform(0.5, 6)
                if layer == 1:
                    lbusy += gpu_event("gpu_memset", "Memset (Device)", dev, q, k, 2.5, k - 5)
                    k += 4
                layers.append((l0, k + 1, f"layer{layer}.{'attn' if layer % 2 else 'mlp'}", lbusy))
                lt = k + 1 + rng.uniform(1, 10)
            g1 = lt + 5
            gs.append((dev, q, g0, g1, own, layers))
            # a kernel between steps: outside every annotation
            busy_out += gpu_event("kernel", "elementwise_kernel_unannotated", dev, q, g1 + 10, 7.75, g1)
        end = max([g[3] for g in gs] + [t + 200]) + 30
        step_ev["dur"] = round(end - s0, 3)
        for dev, q, g0, g1, own, layers in gs:
            ev.append({"ph": "X", "cat": "gpu_user_annotation", "name": f"ProfilerStep#{step}", "pid": dev,
                       "tid": q, "ts": round(g0, 3), "dur": round(g1 - g0, 3)})
            want.append((g0, g1, f"ProfilerStep#{step}", dev, own))
            busy_in += own
            for l0, l1, name, lb in layers:
                ev.append({"ph": "X", "cat": "gpu_user_annotation", "name": name, "pid": dev, "tid": q,
                           "ts": round(l0, 3), "dur": round(l1 - l0, 3)})
                want.append((l0, l1, name, dev, lb))
                busy_in += lb
            ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": pid, "tid": tids[1],
                       "ts": round(g0 - 10, 3), "dur": 9.5, "args": {"External id": step}})
        if not gpu:
            for layer in range(2):
                ev.append({"ph": "X", "cat": "user_annotation", "name": f"layer{layer}", "pid": pid,
                           "tid": tids[0], "ts": round(t + 10 + 50 * layer, 3), "dur": 40.0})
            want.append((s0, end, f"ProfilerStep#{step}", 0, 0))
        t = end + 50
    ev.append({"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans",
               "tid": "PyTorch Profiler", "ts": 500.0, "dur": round(t - 500 + 100, 3)})
    rng.shuffle(ev)  # Kineto writes CPU and GPU events in no common order
    base = int((T0 + PLACE_S) * 1e9)
    props = [dict(id=i, **(ROCM_DEV if platform == "rocm" else CUDA_DEV)) for i in range(devices)]
    doc = {"schemaVersion": 1, "deviceProperties": props if with_props else [],
           "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1}, "record_shapes": 1,
           "with_stack": 0, "trace_id": "0F4A1B2C3D4E5F60", "displayTimeUnit": "ms",
           "baseTimeNanoseconds": base, "traceEvents": ev,
           "traceName": f"/tmp/{platform}.pt.trace.json"}
    return doc, want, busy_in * 1e-6, busy_out * 1e-6


def import_and_check(label, doc, want, busy_in, busy_out, platform, vendor, devices, name, gz=False):
    trace = make_run(label)
    prof = os.path.join(out, label + ".pt.trace.json" + (".gz" if gz else ""))
    data = json.dumps(doc, indent=1).encode()
    with open(prof, "wb") as f:
        f.write(gzip.compress(data) if gz else data)
    before = len(failures)
    p = run(["import", "kineto", prof, "--into", f"{trace}:{label}", "--json"])
    if p.returncode:
        bad(f"{label}: import kineto: exit {p.returncode}: {p.stderr[-800:]}")
        return
    res = json.loads(p.stdout)
    det = res.get("details") or res.get("detail") or {}
    if not det:  # the document's shape: one import's details, wherever it puts them
        stack = [res]
        while stack:
            o = stack.pop()
            if isinstance(o, dict):
                if "device_busy_in_spans_s" in o:
                    det = o
                    break
                stack.extend(o.values())
            elif isinstance(o, list):
                stack.extend(o)

    def num(k):
        v = det.get(k)
        return float(v) if v is not None else None

    if num("spans") != len(want):
        bad(f"{label}: {num('spans')} spans, generated {len(want)}")
    if abs((num("device_busy_in_spans_s") or 0) - busy_in) > 1e-9 + 1e-6 * busy_in:
        bad(f"{label}: device busy in spans {num('device_busy_in_spans_s')} s, generated {busy_in:.9f} s")
    if abs((num("device_busy_outside_spans_s") or 0) - busy_out) > 1e-9:
        bad(f"{label}: device busy outside spans {num('device_busy_outside_spans_s')} s, generated "
            f"{busy_out:.9f} s")
    got = (det.get("gpu_platform"), det.get("gpu_vendor"), num("gpu_devices"), det.get("gpu_name"))
    if got != (platform, vendor, devices, name):
        bad(f"{label}: platform {got}, expected {(platform, vendor, devices, name)}")
    t = run(["import", "kineto", prof, "--into", f"{trace}:{label}"])  # again, as text
    text = t.stderr + t.stdout
    if platform and f"{platform} ({vendor})" not in text:
        bad(f"{label}: the import's text does not name {platform} ({vendor}): {text[-600:]}")
    with h5py.File(trace, "r") as f:
        g = f[f"runs/{label}/spans"]
        names = [x.decode() if isinstance(x, bytes) else x for x in g["names"][()]]
        rows = sorted(zip(g["start"][()], g["end"][()], [names[i] for i in g["name"][()]],
                          g["gpu"][()] if "gpu" in g else [0] * len(g["start"]),
                          g["busy_s"][()] if "busy_s" in g else [0.0] * len(g["start"])),
                      key=lambda r: (r[3], r[0]))
    exp = sorted(((PLACE_S + a * 1e-6, PLACE_S + b * 1e-6, n, d, u * 1e-6) for a, b, n, d, u in want),
                 key=lambda r: (r[3], r[0]))
    worst = 0.0
    for r, e in zip(rows, exp):
        if r[2] != e[2] or int(r[3]) != e[3] or abs(r[0] - e[0]) > 2e-6 or abs(r[1] - e[1]) > 2e-6:
            bad(f"{label}: span {r[2]} gpu {r[3]} [{r[0]:.6f}, {r[1]:.6f}] where {e[2]} gpu {e[3]} "
                f"[{e[0]:.6f}, {e[1]:.6f}] was generated")
            break
        worst = max(worst, abs(float(r[4]) - e[4]))
    if worst > 1e-7:  # busy_s is float32: a few ulps of ~1e-4 s
        bad(f"{label}: a span's busy_s differs from its generated kernels' sum by {worst:.3g} s")
    if len(rows) == len(exp) and len(failures) == before:
        print(f"ok: {label}: {len(rows)} spans, busy in spans {busy_in * 1e3:.3f} ms, outside "
              f"{busy_out * 1e3:.3f} ms, every span's busy_s within {worst:.2g} s; platform "
              f"{platform} ({vendor}) x{devices} {name}: " + text.strip().splitlines()[-1][-90:])


doc, want, bi, bo = generate(38, "rocm", devices=2)
import_and_check("rocm", doc, want, bi, bo, "ROCm", "AMD", 2.0, "AMD Instinct MI300X")
import_and_check("rocm_gz", doc, want, bi, bo, "ROCm", "AMD", 2.0, "AMD Instinct MI300X", gz=True)
doc, want, bi, bo = generate(7, "rocm", devices=1, with_props=False)
import_and_check("rocm_noprops", doc, want, bi, bo, "ROCm", "AMD", None, None)
doc, want, bi, bo = generate(38, "cuda", devices=2)
import_and_check("cuda", doc, want, bi, bo, "CUDA", "NVIDIA", 2.0, "NVIDIA H100 80GB HBM3")

# CPU-only: no GPU events, no devices: CPU-side spans, no platform named
doc, want, _, _ = generate(5, "rocm", devices=0, with_props=False, gpu=False)
trace = make_run("cpu")
prof = os.path.join(out, "cpu.pt.trace.json")
with open(prof, "w") as f:
    json.dump(doc, f)
p = run(["import", "kineto", prof, "--into", f"{trace}:cpu", "--json"])
if p.returncode:
    bad(f"cpu: import kineto: exit {p.returncode}: {p.stderr[-500:]}")
elif "gpu_platform" in p.stdout or "ROCm" in p.stderr + p.stdout:
    bad(f"cpu: a CPU-only profile was given a platform: {p.stdout[-500:]}")
else:
    print("ok: cpu-only profile: CPU-side spans, no platform named")

if failures:
    print(f"{len(failures)} failures")
    sys.exit(1)
print("kineto_rocm: every check passed")
