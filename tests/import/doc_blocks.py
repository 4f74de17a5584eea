#!/usr/bin/env python3
"""doc_blocks.py DOC.md FILE...: each FILE must appear in DOC.md verbatim as
the body of a fenced code block (so the doc shows what the tests run)."""
import re
import sys

doc = open(sys.argv[1]).read()
blocks = [m.group(1) for m in re.finditer(r"```[a-z]*\n(.*?)```", doc, re.S)]
bad = 0
for path in sys.argv[2:]:
    text = open(path).read()
    if text not in blocks:
        print(f"FAIL: {sys.argv[1]} does not show {path} verbatim in a code block")
        bad = 1
sys.exit(bad)
