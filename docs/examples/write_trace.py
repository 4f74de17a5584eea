#!/usr/bin/env python3
"""Write one run in the joules trace format v1 (docs/trace-format.md).

    python3 write_trace.py OUT.h5 [--seconds 12] [--made-up]

Power comes from NVML (`pip install nvidia-ml-py`), sampled every 20 ms in a
thread: instantaneous power and the energy counter of every GPU. The
serving engine is a STAND-IN: a made-up continuous-batching loop that plays
the part of your server (replace `serve()` with your harness's requests and
engine rows). Without NVML, or with --made-up, power is MADE UP too
(100 W + 2 W per running sequence) and the file says so in @notes and
@harness: such a file is for testing the pipeline, not for measuring.
Requires h5py and numpy. Check the result with `joules check OUT.h5`.
"""
import argparse
import threading
import time
from datetime import datetime, timezone

import h5py
import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--seconds", type=float, default=12.0)
ap.add_argument("--made-up", action="store_true", help="no NVML: made-up power (for CI)")
a = ap.parse_args()

MAX_BATCH, STEP_S = 8, 0.02  # the server's max_num_seqs; one decode step


def serve(duration, rng):
    """STAND-IN for your server: R requests arriving over the first third,
    continuous batching up to MAX_BATCH, one token per running request per
    step. Returns the engine timeline and the request table (times in s)."""
    R = 64
    arrival = np.sort(rng.uniform(0, duration / 3, R))
    want = rng.integers(20, 80, R)
    first = np.full(R, np.nan)
    finish = np.full(R, np.nan)
    done = np.zeros(R, int)
    itl_s, itl_req, eng_t, eng_run, eng_tok = [], [], [], [], []
    running, last_tok, total, t = [], {}, 0, 0.0
    while np.isnan(finish).any():  # until every request is done
        for i in range(R):  # admit in arrival order while there is room
            if len(running) < MAX_BATCH and arrival[i] <= t and np.isnan(first[i]) and i not in running:
                running.append(i)
        t += STEP_S
        for i in list(running):
            done[i] += 1
            total += 1
            if done[i] == 1:
                first[i] = t
            else:
                itl_s.append(t - last_tok[i])
                itl_req.append(i)
            last_tok[i] = t
            if done[i] == want[i]:
                finish[i] = t
                running.remove(i)
        eng_t.append(t)
        eng_run.append(len(running))
        eng_tok.append(total)
    return dict(arrival=arrival, first=first, finish=finish, inp=rng.integers(50, 500, R),
                out=done, itl_s=np.array(itl_s), itl_req=np.array(itl_req),
                eng_t=np.array(eng_t), eng_run=np.array(eng_run), eng_tok=np.array(eng_tok))


nvml = None
if not a.made_up:
    try:
        import pynvml as nvml  # the nvidia-ml-py package
        nvml.nvmlInit()
    except Exception as e:  # no driver, no GPU, no package
        print(f"NVML not available ({e}): power is MADE UP")
        nvml = None

t0_wall, t0 = time.time(), time.monotonic()  # t = 0 of the run
samples = []  # (t, [W per GPU], [J per GPU])
stop = threading.Event()
if nvml:
    handles = [nvml.nvmlDeviceGetHandleByIndex(i) for i in range(nvml.nvmlDeviceGetCount())]

    def sampler():
        while not stop.is_set():
            w = [nvml.nvmlDeviceGetFieldValues(h, [nvml.NVML_FI_DEV_POWER_INSTANT])[0].value.uiVal
                 / 1000.0 for h in handles]
            e = [nvml.nvmlDeviceGetTotalEnergyConsumption(h) / 1000.0 for h in handles]
            samples.append((time.monotonic() - t0, w, e))
            time.sleep(0.02)

    th = threading.Thread(target=sampler)
    th.start()

eng = serve(a.seconds, np.random.default_rng(7))
span = max(a.seconds, eng["eng_t"][-1] + 0.1)  # the run lasts until the last request
if nvml:
    while time.monotonic() - t0 < span:  # the stand-in server takes no time: wait
        time.sleep(0.05)
    stop.set()
    th.join()
    pt = np.array([s[0] for s in samples])
    watts = np.array([s[1] for s in samples])
    energy = np.array([s[2] for s in samples])
    name = nvml.nvmlDeviceGetName(handles[0])
    name = name.decode() if isinstance(name, bytes) else name
    gpu_model = next((m for m in ("H100", "H200", "B200", "A100", "L40S", "L4") if m in name), name)
    mem = nvml.nvmlDeviceGetMemoryInfo(handles[0]).total
    tdp = nvml.nvmlDeviceGetPowerManagementDefaultLimit(handles[0]) / 1000.0
    source = f"NVML ({name}): POWER_INSTANT field and the total energy counter every 20 ms"
else:  # MADE-UP power, from the stand-in's batch occupancy
    pt = np.arange(0, span, 0.02)
    run = np.interp(pt, eng["eng_t"], eng["eng_run"])
    watts = (100.0 + 2.0 * run)[:, None]
    energy = np.concatenate([[0.0], np.cumsum((watts[1:, 0] + watts[:-1, 0]) / 2 * np.diff(pt))])[:, None]
    gpu_model, mem, tdp = "H100", 85520809984, 700.0
    source = "MADE-UP numbers (no NVML): power = 100 W + 2 W per running sequence"

G = watts.shape[1]
with h5py.File(a.out, "w") as f:
    f.attrs["format"] = "joules-trace"
    f.attrs["format_version"] = 1
    f.attrs["harness"] = f"docs/examples/write_trace.py; power: {source}"
    f.attrs["created_utc"] = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    r = f.create_group("runs").create_group("example")
    r.attrs.update(dict(workload="llm", model="example/stand-in", task="chat", gpu_model=gpu_model,
                        num_gpus=G, precision="bfloat16", max_batch_size=MAX_BATCH,
                        start_time_unix=t0_wall, gpu_memory_bytes=mem, gpu_tdp_w=tdp,
                        notes="Engine and requests: a made-up stand-in server. Power: " + source))
    p = r.create_group("power")
    p["time"] = pt.astype("f8")
    p["watts"] = watts.astype("f4")
    p["energy_j"] = energy.astype("f8")
    e = r.create_group("engine")
    e["time"] = eng["eng_t"].astype("f8")
    e["running"] = eng["eng_run"].astype("i4")
    e["tokens_generated"] = eng["eng_tok"].astype("i8")
    q = r.create_group("requests")
    q["arrival"], q["first_token"], q["finish"] = eng["arrival"], eng["first"], eng["finish"]
    q["input_tokens"] = eng["inp"].astype("i4")
    q["output_tokens"] = eng["out"].astype("i4")
    i = r.create_group("itl")
    i["seconds"] = eng["itl_s"].astype("f4")
    i["request"] = eng["itl_req"].astype("i4")
print(f"wrote {a.out}: {len(pt)} power samples of {G} GPU(s), {len(eng['arrival'])} requests; {source}")
