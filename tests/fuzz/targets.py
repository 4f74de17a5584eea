#!/usr/bin/env python3
"""The fuzz targets of tests/fuzz/targets.txt, the one list (tests/README.md,
"fuzz"): the reader of make_seeds.py, tests/python/test_fuzz.py,
tests/run_all.sh and tests/style/check_tests.sh (CMake reads the same
lines itself, tests/fuzz/CMakeLists.txt).

    targets.py            the names, one a line
    targets.py --exe      the executables (fuzz_NAME), one a line

A line that is blank or begins with # is not a target; every other line is
NAME RUNS SEED INPUT, and its first word is the target's name."""
import os
import sys

LIST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "targets.txt")


def names(path=LIST):
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                out.append(line.split()[0])
    return out


if __name__ == "__main__":
    prefix = "fuzz_" if sys.argv[1:] == ["--exe"] else ""
    for n in names():
        print(prefix + n)
