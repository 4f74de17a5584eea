#!/usr/bin/env python3
"""The import benchmark's baseline: pandas.read_csv of an nvidia-smi log on
one core (the C parser, which is single-threaded), splitting the fields only:
values with units ("72.19 W") stay strings. Prints the seconds of read_csv
alone, wall and CPU (the interpreter's start and `import pandas` excluded).
    pandas_csv.py LOG.csv
"""
import sys
import time

import pandas as pd

t0, c0 = time.perf_counter(), time.process_time()
df = pd.read_csv(sys.argv[1], skipinitialspace=True)
t1, c1 = time.perf_counter(), time.process_time()
print(f"{len(df)} rows {len(df.columns)} columns wall {t1 - t0:.3f} s cpu {c1 - c0:.3f} s")
