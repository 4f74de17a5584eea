"""The module keeps nothing of a call it has returned from: every kind of
call repeated 60 times after 10 to warm up, the process's peak resident
size may grow by less than 8 MiB, where a result document or a run's
arrays kept per call would add tens (a pick document of the bundled
traces is ~0.3 MiB; a run's power series 0.05 MiB).

In the sanitizer tree the resident size says nothing (the allocator's
quarantine keeps freed memory): there LeakSanitizer checks at exit
instead (tests/python/CMakeLists.txt: PYTHONMALLOC=malloc, CPython's own
allocations left out by the module that called malloc), after every kind
of call ran 3 times; a block joules, numpy or libhdf5 allocated and lost
fails the test. A Python object the module made and never released is
not seen there (CPython allocated it): the release tree's check covers
that. So that the check cannot pass unseen, a child interpreter with the
same settings first loses a block on purpose and must be reported."""
import os
import resource
import subprocess
import sys
import tempfile

import numpy as np

from common import ROOT, check, done

import joules  # noqa: E402

os.chdir(ROOT)
SMALL = "traces/h100/h100-qwen3-8b-shape-chat.h5"


def rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def calls(tmp):
    study = joules.load("traces/")
    t = joules.open(SMALL)
    n = [0]

    def write():
        n[0] += 1
        with joules.TraceWriter(os.path.join(tmp, "w%d.h5" % (n[0] % 3))) as w:
            w.begin_run("r", workload="llm", model="m", task="chat", gpu_model="H100", num_gpus=1,
                        precision="bfloat16", max_batch_size=8)
            w.power(np.arange(1000) * 0.01, watts=np.full(1000, 300.0))
            try:
                w.power([0.0], watts=[1.0])
            except joules.InvalidDataError:
                pass
            w.end_run()

    def refusals():
        for f in (lambda: joules.pick(study, slo="median_itl<=10"), lambda: t.runs[0].energy_counter() and
                  joules.summarize("/nonexistent")):
            try:
                f()
            except joules.Error:
                pass

    return [
        ("pick document", lambda: joules.pick(study, slo="median_itl<=20ms", output="document")),
        ("frontier frames", lambda: joules.frontier(study)),
        ("summary table", lambda: study._c.table()),
        ("run summary", lambda: [r.summary() for r in t.runs]),
        ("power arrays", lambda: [r.power() for r in t.runs]),
        ("engine frame", lambda: t.runs[3].engine()),
        ("writer", write),
        ("refusals", refusals),
    ]


LOSE_ONE = "import ctypes; ctypes.CDLL(None).malloc.restype = ctypes.c_void_p; ctypes.CDLL(None).malloc(4321)"


def leak_check_armed():
    """LeakSanitizer reports a block lost in a child with this process's settings."""
    for need in ("detect_leaks=1", "malloc_context_size=2"):
        if need not in os.environ.get("ASAN_OPTIONS", ""):
            return "ASAN_OPTIONS lacks %s (run by ctest)" % need
    if "suppressions=" not in os.environ.get("LSAN_OPTIONS", "") or os.environ.get("PYTHONMALLOC") != "malloc":
        return "LSAN_OPTIONS' suppressions or PYTHONMALLOC=malloc not set (run by ctest)"
    r = subprocess.run([sys.executable, "-c", LOSE_ONE], capture_output=True, text=True)
    if r.returncode == 0 or "4321 byte(s) leaked in 1 allocation" not in r.stderr:
        return "a block lost on purpose was not reported (exit %d): %s" % (r.returncode, r.stderr[-400:])
    return None


def main():
    if "asan" in os.environ.get("LD_PRELOAD", ""):
        why = leak_check_armed()
        check(why is None, "the leak check is not armed: %s" % why)
        if why is None:
            print("ok: LeakSanitizer reported a block lost on purpose by a child interpreter")
        with tempfile.TemporaryDirectory(prefix="joules-pyleak-") as tmp:
            for name, fn in calls(tmp):
                for _ in range(3):
                    fn()
                print("ok: %s: 3 calls (LeakSanitizer checks at exit)" % name)
        done("test_leaks")
    with tempfile.TemporaryDirectory(prefix="joules-pyleak-") as tmp:
        for name, fn in calls(tmp):
            for _ in range(10):
                fn()
            before = rss_mib()
            for _ in range(60):
                fn()
            grew = rss_mib() - before
            check(grew < 8, "%s: 60 calls grew the process by %.1f MiB" % (name, grew))
            print("ok: %s: 60 calls, peak resident size +%.1f MiB" % (name, grew))
    done("test_leaks")


if __name__ == "__main__":
    main()
