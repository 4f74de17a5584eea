#!/usr/bin/env python3
"""Sort fuzzing findings into crashes of joules and known crashes of libhdf5.

    triage.py FUZZER ARTIFACT_OR_DIR...
    triage.py --log SESSION_LOG      (a report that cannot be replayed alone,
                                      e.g. a leak found when the session ends)

Replays each artifact (crash-*, leak-*, timeout-*, oom-*) once with the
fuzz target, reads the sanitizer's report and classifies it by the first
stack frame that is not the sanitizer's, libFuzzer's or libc's:

  joules   the frame is in joules code (a source path under src/ or tests/):
           a bug to fix, exit status 1;
  hdf5     the frame is in libhdf5 (a known HDF5 1.10.8 defect on corrupt
           files, docs/robustness.md): reported, not failed;
  other    no report on replay, or no frame to judge (printed in full).

For leaks the allocation stack is judged the same way, but by its first
frame *outside* the allocator and outside libhdf5's own wrappers: memory
HDF5 allocated and lost on its error paths is `hdf5`; memory allocated by
joules and never freed is `joules`. A timeout is judged by the frame the
fuzzer's alarm interrupted. Findings with the same signature (class + top
three functions) are printed once with a count.
"""
import os
import re
import subprocess
import sys

FRAME = re.compile(r"^\s*#(\d+) 0x[0-9a-f]+ in (\S+) (.*)$|^\s*#(\d+) 0x[0-9a-f]+ +\((.*?)\+0x")
SKIP_FUNCS = re.compile(r"^(__interceptor_|__asan|__sanitizer|__lsan|__ubsan|fuzzer::|malloc$|calloc$|"
                        r"realloc$|free$|strdup$|__libc|__GI_|raise$|abort$|_start$|main$|"
                        r"LLVMFuzzerTestOneInput$|H5MM_|H5FL_|H5allocate_memory$|H5MM$)")


def frames(report, section_re):
    """Frames of the first stack after a line matching section_re."""
    lines = report.splitlines()
    out, started = [], False
    for ln in lines:
        if not started:
            if re.search(section_re, ln):
                started = True
            continue
        m = FRAME.match(ln)
        if m:
            if m.group(2):
                out.append((m.group(2), m.group(3)))
            else:
                out.append(("??", m.group(5)))
        elif out:
            break
    return out


def where(func, loc):
    if "libhdf5" in loc or func.startswith(("H5", "H5_")):
        return "hdf5"
    if re.search(r"/(src|tests)/[^ ]+\.c", loc):
        return "joules"
    return None


def classify(fuzzer, path, report=None):
    kind = os.path.basename(path).split("-")[0]
    if report is not None:  # --log: the report of a session, not a replay
        kind = "exit-leak" if "Done " in report and "LeakSanitizer" in report else "log"
    else:
        try:
            p = subprocess.run([fuzzer, "-timeout=10", "-rss_limit_mb=2048", path],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
            report = p.stdout.decode(errors="replace")
        except subprocess.TimeoutExpired:
            return "other", "replay hung", ""
    if "ERROR: LeakSanitizer" in report:
        fr = frames(report, r"(Direct|Indirect) leak of")
    elif "ERROR: libFuzzer: timeout" in report:
        fr = frames(report, r"ERROR: libFuzzer: timeout")
    elif "out-of-memory" in report:
        fr = frames(report, r"out-of-memory|malloc\(\d+\)")
    elif "ERROR: AddressSanitizer" in report or "runtime error:" in report or "deadly signal" in report:
        fr = frames(report, r"ERROR: AddressSanitizer|runtime error:|deadly signal")
    else:
        return "other", "%s: no report on replay (depends on earlier inputs)" % kind, ""
    cls = None
    top = []
    if fr and all(SKIP_FUNCS.match(f) or "libc.so" in l or "libclang_rt" in l or where(f, l) == "hdf5"
                  for f, l in fr) and any(where(f, l) == "hdf5" for f, l in fr):
        cls = "hdf5"  # only the allocator and HDF5's own wrappers (H5MM_*) on the stack
    for func, loc in fr:
        if SKIP_FUNCS.match(func) or "libc.so" in loc or "libclang_rt" in loc:
            continue
        if cls is None:
            cls = where(func, loc)
        top.append(func)
        if len(top) == 3:
            break
    head = [ln for ln in report.splitlines() if "ERROR:" in ln or "SUMMARY:" in ln][:1]
    sig = "%s: %s" % (kind, " < ".join(top) or "?")
    return cls or "other", sig, "\n".join(head) if cls else report[-3000:]


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    fuzzer = sys.argv[1]
    if fuzzer == "--log":  # triage.py --log LOGFILE: classify a session's own report
        with open(sys.argv[2], errors="replace") as f:
            cls, sig, detail = classify(None, sys.argv[2], f.read())
        print("%-6s %s" % (cls, sig))
        if cls != "hdf5" and detail:
            print("        " + detail.replace("\n", "\n        ")[:3000])
        return 1 if cls != "hdf5" else 0
    paths = []
    for a in sys.argv[2:]:
        if os.path.isdir(a):
            paths += sorted(os.path.join(a, f) for f in os.listdir(a)
                            if f.split("-")[0] in ("crash", "leak", "timeout", "oom", "signal"))
        else:
            paths.append(a)
    seen = {}
    for p in paths:
        cls, sig, detail = classify(fuzzer, p)
        key = (cls, sig)
        if key not in seen:
            seen[key] = [p, 0, detail]
        seen[key][1] += 1
    n_joules = 0
    for (cls, sig), (first, count, detail) in sorted(seen.items()):
        print("%-6s x%-3d %s\n        e.g. %s" % (cls, count, sig, first))
        if cls != "hdf5" and detail:
            print("        " + detail.replace("\n", "\n        ")[:3000])
        if cls == "joules":
            n_joules += count
    total = sum(v[1] for v in seen.values())
    by = {}
    for (cls, _), v in seen.items():
        by[cls] = by.get(cls, 0) + v[1]
    print("%d findings: %s" % (total, ", ".join("%s %d" % kv for kv in sorted(by.items()))))
    return 1 if n_joules else 0


if __name__ == "__main__":
    sys.exit(main())
