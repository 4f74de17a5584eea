#!/usr/bin/env python3
"""Markdown tables from one run of tests/perf/bench.sh (results-*.tsv).

    report.py --repeat N --scale full|quick --out OUTDIR RESULTS.tsv

Times are medians of the N interleaved repetitions; every ratio compares
two medians of the same run. Peak memory is the largest maximum resident
set size seen over the repetitions (KiB from GNU time, shown in MiB).
"""
import argparse
import os
import statistics
import sys
from collections import defaultdict

LABELS = {
    "raw1": "raw read (needed datasets)",
    "rawh1": "raw read (needed datasets), H5Dread with HDF5's filters",
    "rawall1": "raw read (every dataset)",
    "j1": "joules summarize, 1 worker",
    "raw2": "raw read, 2 workers",
    "j2": "joules summarize, 2 workers",
    "py": "Python reference",
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=0)
    ap.add_argument("--scale", default="")
    ap.add_argument("--out", default="")
    ap.add_argument("results")
    a = ap.parse_args()
    times = defaultdict(list)
    cpus = defaultdict(list)
    rss = defaultdict(int)
    rcs = defaultdict(int)
    info = defaultdict(dict)
    pandas = ([], [])  # read_csv alone: wall, CPU
    for line in open(a.results):
        f = line.rstrip("\n").split("\t")
        if len(f) == 4 and f[1] == "pandas_read_csv":
            pandas[0].append(float(f[2]))
            pandas[1].append(float(f[3]))
        elif len(f) == 6:
            s, label, sec, kib, rc, cpu = f
            times[(s, label)].append(float(sec))
            cpus[(s, label)].append(float(cpu))
            rss[(s, label)] = max(rss[(s, label)], int(kib or 0))
            rcs[(s, label)] = max(rcs[(s, label)], int(rc))
        elif len(f) >= 3:
            info[f[0]][f[1]] = f[2:]
    med = {k: statistics.median(v) for k, v in times.items()}
    cmed = {k: statistics.median(v) for k, v in cpus.items()}

    def c(s, l):
        return cmed.get((s, l))

    def t(s, l):
        return med.get((s, l))

    def fmt_s(v):
        return "-" if v is None else f"{v:.3f}"

    def fmt_c(v):
        return "-" if v is None else f"{v:.2f}"

    def ratio(x, y, digits=2):
        return "-" if x is None or y is None or y == 0 else f"{x / y:.{digits}f}"

    def mib(s, l):
        k = rss.get((s, l))
        return "-" if not k else f"{k / 1024:.0f}"

    def counts(s):
        path = os.path.join(a.out, f"{s}.raw1.out")
        try:
            w = open(path).read().split()
            return w[1], w[3]
        except (OSError, IndexError):
            return "?", "?"

    sets = [s for s in ("small-gzip", "study-gzip", "study-zstd", "long-gzip", "long-zstd")
            if (s, "j1") in med]
    out = []
    p = out.append
    p(f"### Benchmark ({a.scale} scale, median of {a.repeat} interleaved runs)\n")
    p("Wall s = median wall time; CPU s = user + system of the process and its workers. "
      "Ratios: wall (CPU).\n")
    p("| set | files | runs | on disk MB | decoded MB (needed / all) | raw read s | joules 1 w s (CPU) | "
      "joules / raw | joules / raw --all | raw read, HDF5's filters s (CPU) | "
      "joules 2 w s (CPU) | speed-up 2 w | raw speed-up 2 w |")
    p("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for s in sets:
        nf, nr = counts(s)
        size = info[s].get("size", ["0", "0"])
        disk = info[s].get("disk", ["0", "0"])
        p(f"| {s} | {nf} | {nr} | {int(disk[0]) / 1024:.0f} | "
          f"{int(size[0]) / 1e6:.0f} / {int(size[1]) / 1e6:.0f} | {fmt_s(t(s, 'raw1'))} | "
          f"{fmt_s(t(s, 'j1'))} ({fmt_c(c(s, 'j1'))}) | {ratio(t(s, 'j1'), t(s, 'raw1'))} "
          f"({ratio(c(s, 'j1'), c(s, 'raw1'))}) | "
          f"{ratio(t(s, 'j1'), t(s, 'rawall1'))} ({ratio(c(s, 'j1'), c(s, 'rawall1'))}) | "
          f"{fmt_s(t(s, 'rawh1'))} ({fmt_c(c(s, 'rawh1'))}) | "
          f"{fmt_s(t(s, 'j2'))} ({fmt_c(c(s, 'j2'))}) | "
          f"{ratio(t(s, 'j1'), t(s, 'j2'))} | {ratio(t(s, 'raw1'), t(s, 'raw2'))} |")
    p("")
    p("| set | Python s | Python / joules 1 w | Python / joules 2 w | agreement (1e-6 rel) | "
      "2 w output = 1 w | peak RSS MiB: joules 1 w / 2 w (per process) / Python |")
    p("|---|---:|---:|---:|---|---|---:|")
    for s in sets:
        agree = info[s].get("agree", ["-"])[0]
        same = info[s].get("workers_output", ["-"])[0]
        py = t(s, "py")
        note = "" if py is not None else " (h5py has no Zstandard filter)" if "zstd" in s else ""
        p(f"| {s} | {fmt_s(py)}{note} | {ratio(py, t(s, 'j1'))} ({ratio(c(s, 'py'), c(s, 'j1'))}) | "
          f"{ratio(py, t(s, 'j2'))} | "
          f"{agree} | {same} | {mib(s, 'j1')} / {mib(s, 'j2')} / {mib(s, 'py')} |")
    p("")
    if ("huge", "j1") in med:
        size = info["huge"].get("size", ["0", "0"])
        p("| memory | decoded GB (needed / all) | joules 1 w s | peak RSS MiB 1 w | "
          "joules 2 w s | peak RSS MiB 2 w (per process) | raw read s | raw read peak RSS MiB |")
        p("|---|---:|---:|---:|---:|---:|---:|---:|")
        p(f"| huge | {int(size[0]) / 1e9:.1f} / {int(size[1]) / 1e9:.1f} | {fmt_s(t('huge', 'j1'))} | "
          f"{mib('huge', 'j1')} | {fmt_s(t('huge', 'j2'))} | {mib('huge', 'j2')} | "
          f"{fmt_s(t('huge', 'raw1'))} | {mib('huge', 'raw1')} |")
        p("")
    pairs = [("study", "study-gzip", "study-zstd"), ("long", "long-gzip", "long-zstd")]
    rows = [x for x in pairs if (x[1], "j1") in med and (x[2], "j1") in med]
    if rows:
        p("| gzip vs Zstandard | on disk MB gzip / zstd | joules 1 w s gzip / zstd | zstd speed-up | "
          "raw read s gzip / zstd |")
        p("|---|---:|---:|---:|---:|")
        for name, g, z in rows:
            dg = int(info[g].get("disk", ["0"])[0]) / 1024
            dz = int(info[z].get("disk", ["0"])[0]) / 1024
            p(f"| {name} | {dg:.0f} / {dz:.0f} | {fmt_s(t(g, 'j1'))} / {fmt_s(t(z, 'j1'))} | "
              f"{ratio(t(g, 'j1'), t(z, 'j1'))} | {fmt_s(t(g, 'raw1'))} / {fmt_s(t(z, 'raw1'))} |")
        p("")
    if "mlenergy" in info or any(k[0] == "mlenergy" for k in med):
        p("| ML.ENERGY step | wall s | peak RSS MiB |")
        p("|---|---:|---:|")
        for step in ("import", "floor", "frontier", "pick", "compare", "frontier_w2", "pick_w2",
                     "compare_w2", "fit", "report"):
            if (step in info.get("mlenergy", {})):
                p(f"| {step} | {info['mlenergy'][step][0]} | - |")
            elif ("mlenergy", step) in med:
                bad = " (failed: see out/mlenergy." + step + ".err)" if rcs[("mlenergy", step)] > 1 else ""
                p(f"| {step} | {fmt_s(t('mlenergy', step))}{bad} | {mib('mlenergy', step)} |")
        steps = [t("mlenergy", x) for x in ("import", "frontier", "pick", "compare")]
        if all(x is not None for x in steps):
            cpu = sum(c("mlenergy", x) or 0 for x in ("import", "frontier", "pick", "compare"))
            p(f"| import + frontier + pick + compare | {sum(steps):.3f} (CPU {cpu:.2f}) | - |")
            w2 = [t("mlenergy", x) for x in ("frontier_w2", "pick_w2", "compare_w2")]
            if all(x is not None for x in w2):
                p(f"| import + frontier + pick + compare, --workers 2 | {steps[0] + sum(w2):.3f} | - |")
            fl = t("mlenergy", "floor")
            if fl is not None:
                p(f"| import + 3 x floor (joules import, then attribute reads alone) | {steps[0] + 3 * fl:.3f} | - |")
        p("")

    # Targets
    p("Targets:")

    def target(name, ok, detail):
        p(f"- {'met' if ok else 'NOT met'}: {name} ({detail})")

    for s in sets:
        r = t(s, "j1") / t(s, "raw1") if t(s, "raw1") else None
        if r is not None:
            rc_ = c(s, "j1") / c(s, "raw1") if c(s, "raw1") else float("nan")
            target(f"{s}: analysis adds <= 25% over the raw read at 1 worker", r <= 1.25,
                   f"joules / raw = {r:.2f} wall, {rc_:.2f} CPU")
    for s in ("study-gzip", "study-zstd"):
        if t(s, "j2"):
            r = t(s, "j1") / t(s, "j2")
            util = c(s, "j2") / t(s, "j2") if t(s, "j2") else 0
            target(f"{s}: >= 1.7x with 2 workers", r >= 1.7,
                   f"{r:.2f}x; the 2-worker run got {util:.2f} cores on average "
                   f"(CPU / wall); raw read {t(s, 'raw1') / t(s, 'raw2'):.2f}x")
    for s in sets:
        if t(s, "py"):
            r1 = t(s, "py") / t(s, "j1")
            r2 = t(s, "py") / t(s, "j2")
            want1, want2 = (3.0, 5.0) if s.startswith("study") else (1.0, 1.0)
            target(f"{s}: faster than Python, {want1:g}x at 1 worker, {want2:g}x at 2",
                   r1 >= want1 and r2 >= want2, f"{r1:.1f}x / {r2:.1f}x")
    steps = [t("mlenergy", x) for x in ("import", "frontier", "pick", "compare")]
    if all(x is not None for x in steps):
        w2 = [t("mlenergy", x) for x in ("frontier_w2", "pick_w2", "compare_w2")]
        best = min(sum(steps), steps[0] + sum(w2)) if all(x is not None for x in w2) else sum(steps)
        target("ML.ENERGY import + frontier + pick + compare < 0.5 s", best < 0.5,
               f"{sum(steps):.2f} s wall at 1 worker, {best:.2f} s at best with --workers 2")
    if ("nvsmi", "import") in med and pandas[0]:
        pw, pc = statistics.median(pandas[0]), statistics.median(pandas[1])
        jw, jc = t("nvsmi", "import"), c("nvsmi", "import")
        size, rows = info["nvsmi"]["size"]
        target("nvidia-smi import >= 3x faster than pandas.read_csv (one core)",
               pc / jc >= 3.0,
               f"{int(size) / 1e6:.0f} MB, {int(rows):,} rows: joules {jw:.2f} s wall / {jc:.2f} s "
               f"CPU, peak {rss[('nvsmi', 'import')] / 1024:.0f} MiB; read_csv {pw:.2f} s wall / "
               f"{pc:.2f} s CPU: {pc / jc:.1f}x by CPU, {pw / jw:.1f}x by wall")
    if ("huge", "j1") in med:
        m1 = rss[("huge", "j1")] / 1024
        m2 = rss[("huge", "j2")] / 1024
        target("peak memory < 256 MiB summarising the huge set", max(m1, m2) < 256,
               f"{m1:.0f} MiB at 1 worker, {m2:.0f} MiB per process at 2")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
