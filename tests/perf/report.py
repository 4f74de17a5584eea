#!/usr/bin/env python3
"""Markdown tables from one run of tests/perf/bench.sh (results-*.tsv).

    report.py --repeat N --scale full|quick --out OUTDIR RESULTS.tsv

Times are medians of the N interleaved repetitions; every ratio compares
two medians of the same run. Peak memory is the largest maximum resident
set size seen over the repetitions (KiB from GNU time, shown in MiB).

The last table lists every target with its measured ratio, its goal and the
1-minute load average while its measurements ran (median over them); the
exit status is 1 when any target is missed, so a regression shows.
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
    "dec1": "decode floor: H5Dread_chunk + decompress of the needed datasets, nothing else",
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
    loads = defaultdict(list)
    info = defaultdict(dict)
    pandas = ([], [])  # read_csv alone: wall, CPU
    for line in open(a.results):
        f = line.rstrip("\n").split("\t")
        if len(f) == 4 and f[1] == "pandas_read_csv":
            pandas[0].append(float(f[2]))
            pandas[1].append(float(f[3]))
        elif len(f) in (6, 7):
            s, label, sec, kib, rc, cpu = f[:6]
            if len(f) == 7 and f[6] not in ("", "-"):
                loads[(s, label)].append(float(f[6]))
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
      "joules 2 w s (CPU) | speed-up 2 w | raw speed-up 2 w | decode floor s (CPU) | joules / floor |")
    p("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
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
          f"{ratio(t(s, 'j1'), t(s, 'j2'))} | {ratio(t(s, 'raw1'), t(s, 'raw2'))} | "
          f"{fmt_s(t(s, 'dec1'))} ({fmt_c(c(s, 'dec1'))}) | {ratio(t(s, 'j1'), t(s, 'dec1'))} "
          f"({ratio(c(s, 'j1'), c(s, 'dec1'))}) |")
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
        for step in ("json_load", "import", "frontier", "pick", "compare", "frontier_w2", "pick_w2",
                     "compare_w2", "fit", "report_nofig", "report", "report_index_bytes", "report_files"):
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
        p("")

    if ("mlebench", "import") in med:
        size = int(info["mlebench"]["size"][0]) / 1e6
        p(f"ML.ENERGY Benchmark import of one {size:.0f} MB results.json "
          f"(load average before: {info['mlebench']['load'][0]}):")
        p("")
        p("| command | median s | peak MiB |")
        p("|---|---|---|")
        p(f"| joules import mlenergy-benchmark | {fmt_s(t('mlebench', 'import'))} | {mib('mlebench', 'import')} |")
        p(f"| Python json.load | {fmt_s(t('mlebench', 'pyjson'))} | {mib('mlebench', 'pyjson')} |")
        p("")

    # Targets: one table, every ratio beside its goal, and the exit status.
    rows_t = []

    def load_of(*keys):
        v = [x for k in keys for x in loads.get(k, [])]
        return f"{statistics.median(v):.1f}" if v else "-"

    def cpu_ratio(num, den):
        """CPU ratio of sum(num) / sum(den), each a list of (set, label)."""
        a = [c(*k) for k in num]
        b = [c(*k) for k in den]
        if any(x is None for x in a + b) or not sum(b):
            return None
        return sum(a) / sum(b)

    def target(name, value, goal, ok, keys, unit="x", cpu=None):
        text = "-" if value is None else f"{value:.2f}{unit}"
        if cpu is not None:
            text += f" ({cpu:.2f})"
        rows_t.append((name, text, goal, load_of(*keys), ok))

    for s in sets:
        if t(s, "dec1"):
            r = t(s, "j1") / t(s, "dec1")
            # issue 29: each rank near the physical limit (a cluster multiplies
            # what a rank wastes); other sets reported only
            lim = 3.0 if s.startswith("long") else 1.5 if s.startswith("study") else None
            if lim is None:
                target(f"{s}: joules / decode floor, 1 worker (reported: the next limit)", r, "-",
                       None, [(s, "j1"), (s, "dec1")], cpu=cpu_ratio([(s, "j1")], [(s, "dec1")]))
            else:
                target(f"{s}: joules / decode floor, 1 worker", r, f"<= {lim:g}x", r <= lim,
                       [(s, "j1"), (s, "dec1")], cpu=cpu_ratio([(s, "j1")], [(s, "dec1")]))
        if t(s, "raw1"):
            r = t(s, "j1") / t(s, "raw1")
            lim = 3.0 if s.startswith("long") else 2.0
            target(f"{s}: joules / raw read (same decoder), 1 worker", r, f"<= {lim:g}x", r <= lim,
                   [(s, "j1"), (s, "raw1")], cpu=cpu_ratio([(s, "j1")], [(s, "raw1")]))
        if s.endswith("gzip") and t(s, "rawh1"):
            r = t(s, "j1") / t(s, "rawh1")
            target(f"{s}: joules / plain HDF5 read (H5Dread, zlib), 1 worker", r, "<= 1.25x",
                   r <= 1.25, [(s, "j1"), (s, "rawh1")], cpu=cpu_ratio([(s, "j1")], [(s, "rawh1")]))
    for s in ("study-gzip", "study-zstd"):
        if t(s, "j2"):
            r = t(s, "j1") / t(s, "j2")
            target(f"{s}: speed-up with 2 workers (raw read: "
                   f"{t(s, 'raw1') / t(s, 'raw2'):.2f}x)", r, ">= 1.7x", r >= 1.7,
                   [(s, "j1"), (s, "j2")])
    for s in sets:
        if t(s, "py"):
            r1 = t(s, "py") / t(s, "j1")
            r2 = t(s, "py") / t(s, "j2")
            want1, want2 = (5.0, 8.0) if s.startswith("study") else (1.0, 1.0)
            target(f"{s}: Python reference / joules, 1 worker", r1, f">= {want1:g}x", r1 >= want1,
                   [(s, "py"), (s, "j1")], cpu=cpu_ratio([(s, "py")], [(s, "j1")]))
            target(f"{s}: Python reference / joules, 2 workers", r2, f">= {want2:g}x", r2 >= want2,
                   [(s, "py"), (s, "j2")])
    jl = t("mlenergy", "json_load")
    if jl:
        for step in ("frontier", "pick", "compare"):
            if t("mlenergy", step) is not None:
                r = t("mlenergy", step) / jl
                target(f"ML.ENERGY: {step} / Python json.load of the model files", r, "<= 1.0x",
                       r <= 1.0, [("mlenergy", step), ("mlenergy", "json_load")],
                       cpu=cpu_ratio([("mlenergy", step)], [("mlenergy", "json_load")]))
        steps = [t("mlenergy", x) for x in ("import", "frontier", "pick", "compare")]
        if all(x is not None for x in steps):
            r = sum(steps) / jl
            four = [("mlenergy", x) for x in ("import", "frontier", "pick", "compare")]
            target("ML.ENERGY: import + frontier + pick + compare / json.load", r, "<= 2.5x",
                   r <= 2.5, four + [("mlenergy", "json_load")],
                   cpu=cpu_ratio(four, [("mlenergy", "json_load")]))
    rn, rf = t("mlenergy", "report_nofig"), t("mlenergy", "report")
    if rn and rf:
        target("ML.ENERGY: report / the same report with --no-figures", rf / rn, "<= 3.0x",
               rf / rn <= 3.0, [("mlenergy", "report"), ("mlenergy", "report_nofig")],
               cpu=cpu_ratio([("mlenergy", "report")], [("mlenergy", "report_nofig")]))
    ib = info.get("mlenergy", {}).get("report_index_bytes")
    if ib:
        target(f"ML.ENERGY: report index.html ({info['mlenergy'].get('report_files', ['?'])[0]} files "
               f"in the directory)", int(ib[0]) / 1e6, "< 2 MB", int(ib[0]) < 2_000_000,
               [("mlenergy", "report")], unit=" MB")
    if ("nvsmi", "import") in med and pandas[0]:
        pw, pc = statistics.median(pandas[0]), statistics.median(pandas[1])
        jw, jc = t("nvsmi", "import"), c("nvsmi", "import")
        size, rows = info["nvsmi"]["size"]
        target(f"nvidia-smi import ({int(size) / 1e6:.0f} MB, {int(rows):,} rows, peak "
               f"{rss[('nvsmi', 'import')] / 1024:.0f} MiB): pandas.read_csv / joules, one core "
               f"(judged by CPU; wall {pw:.2f} / {jw:.2f} s)", pc / jc if jc else None,
               ">= 3x (CPU)", bool(jc) and pc / jc >= 3.0, [("nvsmi", "import")])
    if ("huge", "j1") in med:
        m1 = rss[("huge", "j1")] / 1024
        m2 = rss[("huge", "j2")] / 1024
        gb = int(info["huge"].get("size", ["0"])[0]) / 1e9
        target(f"huge set ({gb:.0f} GB): peak RSS at 1 worker", m1, "< 64 MiB", m1 < 64,
               [("huge", "j1")], unit=" MiB")
        target(f"huge set ({gb:.0f} GB): peak RSS per process at 2 workers", m2, "< 256 MiB",
               m2 < 256, [("huge", "j2")], unit=" MiB")
    if ("mlebench", "import") in med and t("mlebench", "pyjson"):
        r = t("mlebench", "pyjson") / t("mlebench", "import")
        m = rss[("mlebench", "import")] / 1024
        target(f"ML.ENERGY Benchmark results.json import: Python json.load / joules (peak {m:.0f} MiB)",
               r, ">= 5x", r >= 5, [("mlebench", "import"), ("mlebench", "pyjson")],
               cpu=cpu_ratio([("mlebench", "pyjson")], [("mlebench", "import")]))
        target("ML.ENERGY Benchmark results.json import: peak RSS", m, "< 64 MiB", m < 64,
               [("mlebench", "import")], unit=" MiB")
    if rows_t:
        p("Measured: the wall-time ratio (medians of the same run), the CPU-time ratio in "
          "parentheses where it means the same (GNU time counts CPU in 10 ms steps: coarse for "
          "steps under ~0.2 s); met or missed is judged on wall time.\n")
        p("| target | measured | goal | load avg (1 min) | |")
        p("|---|---:|---|---:|---|")
        for name, value, goal, load, ok in rows_t:
            verdict = "reported" if ok is None else "met" if ok else "**MISSED**"
            p(f"| {name} | {value} | {goal} | {load} | {verdict} |")
        judged = [r for r in rows_t if r[4] is not None]
        missed = sum(1 for r in judged if not r[4])
        p("")
        p(f"{len(judged) - missed} of {len(judged)} targets met" +
          (f"; {missed} missed (exit status 1)" if missed else ""))
    print("\n".join(out))
    return 1 if any(r[4] is False for r in rows_t) else 0


if __name__ == "__main__":
    sys.exit(main())
