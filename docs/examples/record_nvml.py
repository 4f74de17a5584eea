#!/usr/bin/env python3
"""Record GPU power from NVML into a joules trace while a command runs.

    python3 record_nvml.py OUT.h5 --set model=Qwen/Qwen3-8B --set task=chat \\
        --set precision=bfloat16 --set max_batch_size=64 [--period 0.02] -- COMMAND...
    python3 record_nvml.py OUT.h5 --seconds 30 --set ...      (no command: 30 s)
    python3 record_nvml.py --raw samples.npz --seconds 30     (no joules here: raw samples)
    python3 record_nvml.py OUT.h5 --from-raw samples.npz --set ...   (a trace from them)
    python3 record_nvml.py OUT.h5 --made-up --seconds 5 --set ...    (no GPU: MADE-UP power)

Every GPU's instantaneous power (NVML field POWER_INSTANT) and total
energy counter, sampled every --period seconds in a thread, appended to a
joules.TraceWriter one second at a time: memory stays bounded however
long the run, and each piece is checked as it is written (a time going
back, a negative power raise at once). gpu_model, num_gpus, gpu_tdp_w and
gpu_memory_bytes come from NVML; the other MUST attributes (workload,
model, task, precision, max_batch_size) from --set. The engine's and the
requests' rows are the serving harness's to add (w.engine(...),
w.requests(...), w.itl(...): docs/python.md). --raw writes the samples to
a NumPy file without importing joules (a machine without the module);
--from-raw writes the trace from such a file. Needs nvidia-ml-py (pynvml)
and NumPy; check the result with `joules check OUT.h5`.
"""
import argparse
import subprocess
import sys
import threading
import time

import numpy as np

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("out", nargs="?")
ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
ap.add_argument("--seconds", type=float, default=None)
ap.add_argument("--period", type=float, default=0.02)
ap.add_argument("--raw", metavar="NPZ")
ap.add_argument("--from-raw", metavar="NPZ")
ap.add_argument("--made-up", action="store_true", help="no NVML: made-up power (for tests)")
argv = sys.argv[1:]
cut = argv.index("--") if "--" in argv else len(argv)  # COMMAND... after --
a = ap.parse_args(argv[:cut])
command = argv[cut + 1:]
if not (a.out or a.raw) or (a.out and a.raw):
    ap.error("give OUT.h5 (a trace) or --raw NPZ (samples)")


class NvmlSensor:
    """Every GPU's POWER_INSTANT (W) and total energy (J) through pynvml."""

    def __init__(self):
        import pynvml  # the nvidia-ml-py package

        self.nv = pynvml
        pynvml.nvmlInit()
        self.handles = [pynvml.nvmlDeviceGetHandleByIndex(i) for i in range(pynvml.nvmlDeviceGetCount())]
        name = pynvml.nvmlDeviceGetName(self.handles[0])
        self.name = name.decode() if isinstance(name, bytes) else name
        self.attrs = {
            "gpu_model": next((m for m in ("H200", "H100", "B200", "A100", "L40S", "L4") if m in self.name), self.name),
            "num_gpus": len(self.handles),
            "gpu_tdp_w": pynvml.nvmlDeviceGetPowerManagementDefaultLimit(self.handles[0]) / 1000.0,
            "gpu_memory_bytes": float(pynvml.nvmlDeviceGetMemoryInfo(self.handles[0]).total),
            "gpu_name": self.name,
            "power_source": "NVML POWER_INSTANT and the total energy counter",
        }

    def read(self):
        nv = self.nv
        w = [nv.nvmlDeviceGetFieldValues(h, [nv.NVML_FI_DEV_POWER_INSTANT])[0].value.uiVal / 1000.0
             for h in self.handles]
        e = [nv.nvmlDeviceGetTotalEnergyConsumption(h) / 1000.0 for h in self.handles]
        return w, e


class MadeUpSensor:
    """MADE-UP power for tests without a GPU: 100 W and a slow swing."""

    attrs = {"gpu_model": "H100", "num_gpus": 1, "gpu_tdp_w": 700.0, "power_source": "MADE-UP (no NVML)"}

    def __init__(self):
        self.t0 = time.monotonic()

    def read(self):  # the power 100 + 50 sin(t) W, and its exact integral as the counter
        t = time.monotonic() - self.t0
        return [100.0 + 50.0 * np.sin(t)], [100.0 * t + 50.0 * (1.0 - np.cos(t))]


def record(sensor, sink, t0):
    """Sample until the command exits (or --seconds pass), times from t0
    (time.monotonic()); sink(t, w, e) gets a second of samples at a time."""
    stop = threading.Event()
    proc = subprocess.Popen(command) if command else None

    def sample():
        buf, due = [], time.monotonic()
        while not stop.is_set():
            w, e = sensor.read()
            buf.append((time.monotonic() - t0, w, e))
            if buf[-1][0] - buf[0][0] >= 1.0:  # one piece a second
                sink(*map(np.array, zip(*buf)))
                buf = []
            due += a.period  # on a grid: the reads' own time does not stretch the period
            time.sleep(max(0.0, due - time.monotonic()))
        if buf:
            sink(*map(np.array, zip(*buf)))

    th = threading.Thread(target=sample)
    th.start()
    try:
        if proc:
            proc.wait()
        else:
            time.sleep(a.seconds if a.seconds is not None else 10.0)
    finally:
        stop.set()
        th.join()
    return proc.returncode if proc else 0


def attributes(sensor_attrs, start):
    attrs = dict(workload="llm", start_time_unix=start)
    attrs.update(sensor_attrs)
    for kv in a.set:
        k, _, v = kv.partition("=")
        try:
            attrs[k] = int(v) if v.lstrip("-").isdigit() else float(v) if k.endswith(("_w", "_s", "_bytes")) else v
        except ValueError:
            attrs[k] = v
    return attrs


if a.from_raw:  # a trace from samples recorded elsewhere (--raw)
    import joules

    raw = np.load(a.from_raw, allow_pickle=False)
    attrs = attributes({k[5:]: raw[k].item() for k in raw.files if k.startswith("attr_")},
                       float(raw["start_time_unix"]))
    with joules.TraceWriter(a.out) as w:
        w.begin_run("recorded", **attrs)
        t, watts, energy = raw["time"], raw["watts"], raw["energy_j"]
        for k in range(0, len(t), 1000):  # in pieces, as a recorder writes
            w.power(t[k:k + 1000], watts=watts[k:k + 1000], energy_j=energy[k:k + 1000])
        w.end_run()
    print(f"wrote {a.out}: {len(t)} samples of {watts.shape[1]} GPU(s) from {a.from_raw}")
    sys.exit(0)

sensor = MadeUpSensor() if a.made_up else NvmlSensor()
if a.raw:  # no joules on this machine: keep the samples
    parts = []
    t0, start = time.monotonic(), time.time()
    rc = record(sensor, lambda t, w, e: parts.append((t, w, e)), t0)
    t, w, e = (np.concatenate(x) for x in zip(*parts))
    np.savez(a.raw, time=t, watts=w, energy_j=e, start_time_unix=start,
             **{"attr_" + k: v for k, v in sensor.attrs.items()})
    print(f"wrote {a.raw}: {len(t)} samples of {w.shape[1]} GPU(s), {t[-1]:.1f} s")
    sys.exit(rc)

import joules  # noqa: E402  (only where a trace is written)

with joules.TraceWriter(a.out) as w:
    t0, start = time.monotonic(), time.time()  # the run's t = 0
    w.begin_run("recorded", **attributes(sensor.attrs, start))
    n = [0]

    def piece(t, watts, energy):
        w.power(t, watts=watts, energy_j=energy)
        n[0] += len(t)

    rc = record(sensor, piece, t0)
    w.end_run()
print(f"wrote {a.out}: {n[0]} samples of {sensor.attrs['num_gpus']} GPU(s)" +
      (" (MADE-UP power)" if a.made_up else f" ({sensor.name})"))
sys.exit(rc)
