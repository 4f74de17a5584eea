"""The module keeps nothing of a call it has returned from (its own
memory: LeakSanitizer cannot tell CPython's memory at exit from a leak of
the extension, so the ASan tree runs the Python tests without it): every
kind of call repeated 60 times after 10 to warm up, the process's peak
resident size may grow by less than 8 MiB, where a result document or a
run's arrays kept per call would add tens (a pick document of the bundled
traces is ~0.3 MiB; a run's power series 0.05 MiB)."""
import os
import resource
import tempfile

import numpy as np

from common import ROOT, check, done, skip

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


def main():
    if "asan" in os.environ.get("LD_PRELOAD", ""):
        skip("the sanitizers' allocator keeps freed memory (quarantine): resident size says nothing here")
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
