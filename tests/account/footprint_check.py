#!/usr/bin/env python3
"""The footprint `joules emissions` gives by default, checked against an
independent integral (docs/accounting.md, "What each command counts"):

    footprint_check.py JOULES INTENSITY.csv FILE.h5 ...

For every run of every file, the raw power of the whole run (first to last
power sample) is integrated with the grid intensity and PUE of each moment:
the energy counter's increments (constant power between two samples) where
power/energy_j is recorded, else power/watts (linear between samples), each
sample interval split at the series' hour boundaries. It runs joules twice:
with a constant 400 g/kWh and PUE 1.2, and with INTENSITY.csv (an hourly
Electricity Maps export) and an hourly PUE series this script writes, and
compares every run's kg CO2eq and energy and the document's total with its
own, to 1e-9 relative. Prints the totals; exit 0 when they agree.
"""
import csv
import datetime as dt
import json
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

RTOL = 1e-9


def series_csv(path, tcol, vcol):
    """(starts, ends, values) of an hourly series: each value holds from its
    time to the next row's, at most one step (the lower median spacing)."""
    t, v = [], []
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            if not row[vcol].strip():
                continue
            s = row[tcol].replace("T", " ").replace("Z", "")
            when = dt.datetime.strptime(s[:19], "%Y-%m-%d %H:%M:%S").replace(tzinfo=dt.timezone.utc)
            t.append(when.timestamp())
            v.append(float(row[vcol]))
    t, v = np.array(t), np.array(v)
    step = np.sort(np.diff(t))[(len(t) - 2) // 2] if len(t) > 1 else 3600.0
    ends = np.where(np.append(np.diff(t), np.inf) <= step, np.append(t[1:], 0), t + step)
    return t, ends, v


def value_at(ser, x):
    t, e, v = ser
    i = np.searchsorted(t, x, side="right") - 1
    if i < 0 or x >= e[i]:
        raise SystemExit(f"time {x} outside the series")
    return v[i]


def breaks(ser, a, b):
    t, e, _ = ser
    pts = np.concatenate((t, e))
    return sorted(p for p in pts if a < p < b)


def run_footprint(t, p_or_e, counter, t0, pue, inten):
    """grams CO2eq and J of one run: t sample times (run time), counter:
    cumulative J (steps of constant power), else watts (linear)."""
    grams = energy = 0.0
    for i in range(len(t) - 1):
        u, w = t[i], t[i + 1]
        if not w > u:
            continue
        cuts = [u] + [x - t0 for x in sorted(set(breaks(pue, t0 + u, t0 + w)) |
                                            set(breaks(inten, t0 + u, t0 + w)))] + [w]
        for a, b in zip(cuts[:-1], cuts[1:]):
            if counter:
                de = (p_or_e[i + 1] - p_or_e[i]) * (b - a) / (w - u)
            else:
                pa = p_or_e[i] + (p_or_e[i + 1] - p_or_e[i]) * (a - u) / (w - u)
                pb = p_or_e[i] + (p_or_e[i + 1] - p_or_e[i]) * (b - u) / (w - u)
                de = (pa + pb) / 2 * (b - a)
            mid = t0 + (a + b) / 2
            energy += de
            grams += de / 3.6e6 * value_at(pue, mid) * value_at(inten, mid)
    return grams, energy


def ours(files, pue, inten):
    out = {}
    for path in files:
        with h5py.File(path, "r") as f:
            for name, r in f["runs"].items():
                if "power" not in r:
                    continue
                t = r["power/time"][:]
                t0 = float(r.attrs["start_time_unix"])
                if "energy_j" in r["power"]:
                    g, e = run_footprint(t, r["power/energy_j"][:].sum(axis=1), True, t0, pue, inten)
                else:
                    g, e = run_footprint(t, r["power/watts"][:].sum(axis=1), False, t0, pue, inten)
                out[(os.path.abspath(path), name)] = (g, e)
    return out


def close(a, b):
    return abs(a - b) <= RTOL * abs(b)


def main():
    joules, hourly, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    tmp = tempfile.mkdtemp(prefix="joules-footprint-")
    pue_csv = os.path.join(tmp, "pue.csv")
    with open(pue_csv, "w") as f:  # an hourly PUE of its own over the traces' day, 1.1 .. 1.445
        f.write("datetime,pue\n")
        for h in range(24):
            f.write(f"2026-11-21T{h:02d}:00:00Z,{1.1 + 0.015 * h:.3f}\n")
    const = ((np.array([-np.inf]), np.array([np.inf]), np.array([1.2])),
             (np.array([-np.inf]), np.array([np.inf]), np.array([400.0])))
    hourly_ser = (series_csv(pue_csv, "datetime", "pue"),
                  series_csv(hourly, "Datetime (UTC)", "Carbon Intensity gCO\u2082eq/kWh (direct)"))
    cases = [("constant 400 g/kWh, PUE 1.2", ["--grid-intensity", "400", "--pue", "1.2"], const),
             ("hourly intensity and PUE", ["--grid-intensity", hourly, "--pue", pue_csv], hourly_ser)]
    bad = 0
    for label, args, (pue, inten) in cases:
        want = ours(files, pue, inten)
        p = subprocess.run([joules, "emissions", "--json"] + args + files, capture_output=True,
                           text=True)
        if p.returncode != 0:
            print(p.stderr)
            raise SystemExit(f"joules emissions failed ({p.returncode})")
        doc = json.loads(p.stdout)
        tot_g = tot_e = 0.0
        for r in doc["runs"]:
            key = (os.path.abspath(r["file"]), r["run"])
            if r["error"]:
                print(f"FAIL {key}: {r['error']}")
                bad += 1
                continue
            g, e = want[key]
            tot_g += g
            tot_e += e
            if r["boundary"]["window"] != "run":
                print(f"FAIL {key}: counted {r['boundary']}, not the whole run")
                bad += 1
            if not close(r["kg_co2eq"]["average"] * 1000, g) or not close(r["energy_kwh"] * 3.6e6, e):
                print(f"FAIL {key}: joules {r['kg_co2eq']['average'] * 1000} g, {r['energy_kwh'] * 3.6e6} J;"
                      f" the integral {g} g, {e} J")
                bad += 1
        T = doc["total"]
        if not close(T["kg_co2eq"]["average"] * 1000, tot_g) or not close(T["energy_kwh"] * 3.6e6, tot_e):
            print(f"FAIL total: joules {T['kg_co2eq']['average']} kg {T['energy_kwh']} kWh; "
                  f"the integral {tot_g / 1000} kg {tot_e / 3.6e6} kWh")
            bad += 1
        print(f"{label}: {len(doc['runs'])} runs, {tot_e / 3.6e6:.9g} kWh, {tot_g / 1000:.9g} kg CO2eq"
              f" (joules {T['energy_kwh']:.9g} kWh, {T['kg_co2eq']['average']:.9g} kg)")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
