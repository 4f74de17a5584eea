#!/usr/bin/env python3
"""Writes a synthetic nvidia-smi log for the import benchmark: the fields
and formatting of `nvidia-smi --query-gpu=timestamp,index,uuid,name,pstate,
power.draw,power.draw.average,power.draw.instant,power.limit,clocks.sm,
clocks.mem,utilization.gpu,utilization.memory,memory.used,memory.total,
temperature.gpu --format=csv -lms 100` (units in the header and the values),
G GPUs, HOURS hours at 10 Hz. Made-up numbers (a sawtooth load), for timing
only.
    gen_nvsmi.py OUT.csv --gpus 8 --hours 24
"""
import argparse
import datetime

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--gpus", type=int, default=8)
ap.add_argument("--hours", type=float, default=24.0)
a = ap.parse_args()
n = int(a.hours * 3600 * 10)
t0 = datetime.datetime(2026, 11, 23, 0, 0, 0)
uu = [f"GPU-{g:08x}-6f7a-ae02-db35-de5d0cff50b8" for g in range(a.gpus)]
with open(a.out, "w", buffering=1 << 22) as f:
    f.write("timestamp, index, uuid, name, pstate, power.draw [W], power.draw.average [W], "
            "power.draw.instant [W], power.limit [W], clocks.current.sm [MHz], "
            "clocks.current.memory [MHz], utilization.gpu [%], utilization.memory [%], "
            "memory.used [MiB], memory.total [MiB], temperature.gpu\n")
    step = datetime.timedelta(milliseconds=100)
    t = t0
    for i in range(n):
        ts = t.strftime("%Y/%m/%d %H:%M:%S.") + f"{t.microsecond // 1000:03d}"
        load = (i % 600) / 600.0
        rows = []
        for g in range(a.gpus):
            w = 70.0 + 600.0 * load + g
            rows.append(f"{ts}, {g}, {uu[g]}, NVIDIA H100 80GB HBM3, P0, {w:.2f} W, {w - 3:.2f} W, "
                        f"{w + 5:.2f} W, 700.00 W, {1980 - g} MHz, 2619 MHz, {int(load * 100)} %, "
                        f"{int(load * 40)} %, {1000 + i % 70000} MiB, 81559 MiB, {38 + int(load * 30)}\n")
        f.write("".join(rows))
        t += step
