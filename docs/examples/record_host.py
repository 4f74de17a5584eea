#!/usr/bin/env python3
"""Record the rest of the system into a run's host/ group (trace format 1.2,
docs/trace-format.md): RAPL's CPU package and DRAM counters of every socket
(Linux powercap) and, when ipmitool is there, the node's AC power.

    python3 record_host.py TRACE.h5 RUN --seconds 60     # sample now, then write
    python3 record_host.py TRACE.h5 RUN --made-up        # made-up samples over RUN's power/time

In a harness, start HostSampler with the run's own t = 0 (time.monotonic()
when power sampling started) beside the power sampler, stop it with the run,
then write_host() into the run's group. Reading energy_uj needs root on
Linux >= 5.10 (or a udev rule / chmod on those files).
"""
import argparse
import glob
import os
import re
import subprocess
import threading
import time

import h5py
import numpy as np

RAPL = "/sys/class/powercap"


def read(path):
    with open(path) as f:
        return f.read().strip()


def rapl_zones():
    """[(package file, DRAM file or None, package range J, DRAM range J)] per socket."""
    zones = []
    for pkg in sorted(glob.glob(f"{RAPL}/intel-rapl:[0-9]*")):
        if ":" in os.path.basename(pkg)[len("intel-rapl:"):]:
            continue  # a sub-zone
        dram = [z for z in glob.glob(f"{pkg}/intel-rapl:*:*") if read(f"{z}/name") == "dram"]
        zones.append((f"{pkg}/energy_uj", dram and f"{dram[0]}/energy_uj",
                      int(read(f"{pkg}/max_energy_range_uj")) / 1e6,
                      dram and int(read(f"{dram[0]}/max_energy_range_uj")) / 1e6))
    return zones


def node_watts():
    """The node's AC power from the BMC (IPMI DCMI), or NaN."""
    try:
        out = subprocess.run(["ipmitool", "dcmi", "power", "reading"], capture_output=True,
                             text=True, timeout=5).stdout
        m = re.search(r"Instantaneous power reading:\s*([0-9.]+)\s*Watts", out)
        return float(m.group(1)) if m else float("nan")
    except (OSError, subprocess.TimeoutExpired):
        return float("nan")


class HostSampler(threading.Thread):
    """Every `period` s: run time, each socket's counters (J) and node AC (W)."""

    def __init__(self, t0, period=1.0, ipmi=True):
        super().__init__(daemon=True)
        self.t0, self.period, self.ipmi = t0, period, ipmi
        self.zones = rapl_zones()
        self.rows, self.stop_ = [], threading.Event()

    def run(self):
        while not self.stop_.is_set():
            t = time.monotonic() - self.t0
            cpu = [int(read(z[0])) / 1e6 for z in self.zones]
            dram = [int(read(z[1])) / 1e6 for z in self.zones if z[1]]
            self.rows.append((t, cpu, dram, node_watts() if self.ipmi else float("nan")))
            self.stop_.wait(self.period)

    def stop(self):
        self.stop_.set()
        self.join()


def write_host(run, t, cpu, dram, node, cpu_range, dram_range, source):
    """host/ into the run group: time [T], counters [T, S], node_watts [T]."""
    h = run.require_group("host")
    h.attrs["source"] = source
    h.create_dataset("time", data=np.asarray(t, dtype="f8"))
    if cpu is not None:
        h.create_dataset("cpu_energy_j", data=np.asarray(cpu, dtype="f8"))
        h["cpu_energy_j"].attrs["max_energy_range_j"] = np.asarray(cpu_range, dtype="f8")
    if dram is not None:
        h.create_dataset("dram_energy_j", data=np.asarray(dram, dtype="f8"))
        h["dram_energy_j"].attrs["max_energy_range_j"] = np.asarray(dram_range, dtype="f8")
    if node is not None and np.all(np.isfinite(node)):
        h.create_dataset("node_watts", data=np.asarray(node, dtype="f8"))


def made_up(run):
    """MADE-UP samples at 1 Hz over the run's power/time: 2 sockets at 95 and
    80 W (the first wrapping at RAPL's usual 262143.33 J), DRAM at 12 and 10 W,
    the node at 1300 W + the GPUs."""
    pt = run["power/time"][:]
    t = np.arange(pt[0], pt[-1] + 1.0, 1.0)
    gpu = np.interp(t, pt, run["power/watts"][:].sum(axis=1))
    rng = [262143.328850, 262143.328850]
    cpu = np.stack([(262000.0 + 95.0 * (t - t[0])) % rng[0], 80.0 * (t - t[0])], axis=1)
    dram = np.stack([12.0 * (t - t[0]), 10.0 * (t - t[0])], axis=1)
    return t, cpu, dram, 1300.0 + gpu, rng, [65712.999613] * 2, "made-up (record_host.py)"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("trace")
    p.add_argument("run")
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--made-up", action="store_true")
    a = p.parse_args()
    with h5py.File(a.trace, "r+") as f:
        run = f["runs"][a.run]
        if a.made_up:
            write_host(run, *made_up(run))
            return
        s = HostSampler(time.monotonic())
        s.start()
        time.sleep(a.seconds)
        s.stop()
        t = [r[0] for r in s.rows]
        dram = [r[2] for r in s.rows] if all(z[1] for z in s.zones) else None
        write_host(run, t, [r[1] for r in s.rows], dram, [r[3] for r in s.rows],
                   [z[2] for z in s.zones], [z[3] for z in s.zones], "rapl+ipmi")
    print(f"wrote {a.trace} /runs/{a.run}/host: {len(t)} samples, {len(s.zones)} sockets")


if __name__ == "__main__":
    main()
