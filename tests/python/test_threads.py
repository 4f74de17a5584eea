"""Threads and the GIL (docs/python.md, "Threads"): the library works with
the GIL released, so other Python threads go on meanwhile; two joules calls
from two threads take turns and both give the CLI's figures.

Run with gate_open.so preloaded (tests/python/CMakeLists.txt): a thread's
joules.open() is held inside the library at the open() of the trace, and
this thread, which needs the GIL to go on, lets it go. No timing: were the
GIL kept, the release could never be given (the shim gives up after 120 s
and the test fails)."""
import os
import shutil
import tempfile
import threading

from common import ROOT, check, done, fail, same

import joules  # noqa: E402

os.chdir(ROOT)


def gil_released():
    gate = os.environ.get("JOULES_TEST_GATE_DIR")
    if not gate or "gate_open" not in os.environ.get("LD_PRELOAD", ""):
        print("note: gate_open.so not preloaded: the GIL test needs it (run by ctest)")
        return
    for f in ("reached", "release", "timed-out"):
        if os.path.exists(os.path.join(gate, f)):
            os.unlink(os.path.join(gate, f))
    path = os.path.join(gate, "gated-trace.h5")
    shutil.copy("traces/h100/h100-qwen3-1.7b-shape-chat.h5", path)
    os.environ["JOULES_TEST_GATE_NAME"] = "gated-trace.h5"  # from now on: held at its open()
    result = {}

    def work():
        try:
            result["trace"] = joules.open(path)
        except Exception as e:  # noqa: BLE001
            result["error"] = e

    t = threading.Thread(target=work)
    t.start()
    # this thread runs Python while the other one is inside the library
    n = 0
    while not os.path.exists(os.path.join(gate, "reached")):
        n += 1
        if not t.is_alive():
            break
    open(os.path.join(gate, "release"), "w").close()
    t.join()
    del os.environ["JOULES_TEST_GATE_NAME"]
    check(not os.path.exists(os.path.join(gate, "timed-out")),
          "the library was held with the GIL kept: the release could not be given")
    check("trace" in result and len(result["trace"].runs) == 5, "the gated open failed: %s" % result.get("error"))
    print("ok: while a thread waited inside the library, this one ran Python (%d loops) and released it" % n)


def two_threads():
    ref = joules.pick("traces/", slo="median_itl<=20ms", output="document")
    out = {}

    def work(k):
        try:
            out[k] = joules.pick("traces/", slo="median_itl<=20ms", output="document")
        except Exception as e:  # noqa: BLE001
            out[k] = e

    ts = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for k in range(4):
        if isinstance(out[k], Exception):
            fail("thread %d: %s" % (k, out[k]))
        else:
            d = same(out[k], ref, ignore=("provenance.created",))
            check(not d, "thread %d's pick differs: %s" % (k, d[:3]))
    print("ok: 4 threads' picks at once equal one pick")


def main():
    gil_released()
    two_threads()
    done("test_threads")


if __name__ == "__main__":
    main()
