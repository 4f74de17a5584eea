#!/usr/bin/env python3
"""ctest style_docs_negative: check_docs.py can fail.

    check_docs_negative.py ROOT

Copies the docs, headers, sources and cmake files of ROOT into a
temporary tree (tests/ linked, not copied), checks that check_docs.py
passes on the copy as it is, then breaks one claim at a time and requires
the checker to fail with a line naming the file, the line and the claim.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = os.path.join(HERE, "check_docs.py")


def run(tree):
    p = subprocess.run([sys.executable, CHECKER, tree], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    return p.returncode, p.stdout


def read(p):
    with open(p, encoding="utf-8") as f:
        return f.read()


# The files a case changed, with what they held (None: made by the case),
# so that the next case starts from the unbroken copy.
touched = {}


def write(p, s):
    if p not in touched:
        touched[p] = read(p) if os.path.exists(p) else None
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w", encoding="utf-8") as f:
        f.write(s)


def restore():
    for p, s in touched.items():
        if s is None:
            os.remove(p)
        else:
            with open(p, "w", encoding="utf-8") as f:
                f.write(s)
    touched.clear()


def append(tree, rel, text):
    """Append TEXT as a paragraph of REL; the line it starts on."""
    p = os.path.join(tree, rel)
    s = read(p)
    if not s.endswith("\n"):
        s += "\n"
    s += "\n"
    line = s.count("\n") + 1
    write(p, s + text + "\n")
    return line


def replace(tree, rel, old, new, regex=False):
    """Replace the first OLD in REL; the line it was on."""
    p = os.path.join(tree, rel)
    s = read(p)
    m = re.search(old if regex else re.escape(old), s)
    if not m:
        raise SystemExit("FAIL: %s no longer holds %r: update check_docs_negative.py" % (rel, old))
    write(p, s[:m.start()] + new + s[m.end():])
    return s.count("\n", 0, m.start()) + 1


def line_of(tree, rel, pattern):
    s = read(os.path.join(tree, rel))
    m = re.search(pattern, s, re.M)
    if not m:
        raise SystemExit("FAIL: %s has no %r: update check_docs_negative.py" % (rel, pattern))
    return s.count("\n", 0, m.start()) + 1


# Each case: a function that breaks the copy and returns what the failure
# must say (file, line, claim: a regular expression). The first cases add
# one sentence to a file: (name, file, sentence, kind, claim).
APPENDED = [
    ("c_path", "docs/library.md", "The writer is `src/core/no_such_file.c`.",
     "path", r"`src/core/no_such_file\.c`"),
    ("c_path_plain", "docs/cli.md", "See src/trace/no_such_room.c for the rules.",
     "path", r"`src/trace/no_such_room\.c`"),
    ("c_path_header", "include/joules/error.h", "/* Errors: see `src/core/nope.c`. */",
     "path", r"`src/core/nope\.c`"),
    ("c_place", "docs/cli.md", "One run in numbers is `jl_summarize` in `src/core/util.c`.",
     "place", r"`jl_summarize` in `src/core/util\.c`: not defined"),
    ("c_place_paren", "docs/summary.md",
     "The document is `jl_pick_document()` (`src/summary/summary_json.c`).",
     "place", r"`jl_pick_document` in `src/summary/summary_json\.c`"),
    ("c_section", "docs/cli.md", 'The rules are in docs/summary.md, "No such section here".',
     "section", r'summary\.md, "No such section here": docs/summary\.md has no heading'),
    ("c_place_possessive", "docs/check.md", "The rule is `src/core/util.c`'s `jl_summarize`.",
     "place", r"`jl_summarize` in `src/core/util\.c`"),
    ("c_place_comma", "docs/check.md", "One run in numbers (`jl_summarize`, src/core/hash.c).",
     "place", r"`jl_summarize` in `src/core/hash\.c`"),
    ("c_place_file_first", "docs/check.md",
     "The open is `src/trace/trace_read.c` (`jl_trace_open`, `jl_summarize`).",
     "place", r"`jl_summarize` in `src/trace/trace_read\.c`"),
    # src/ comments: a section named across a " * " line break, a path in
    # a Python comment
    ("c_src_section", "src/account/carbon.c",
     '/* The rules are in docs/accounting.md, "No such\n * section here". */',
     "section", r'accounting\.md, "No such section here": docs/accounting\.md has no heading'),
    ("c_src_path_py", "src/python/make_docs.py", "# the pages: see src/core/nope_py.c",
     "path", r"`src/core/nope_py\.c`"),
]


def appended(name, rel, sentence, kind, claim):
    def case(t):
        n = append(t, rel, sentence)
        return r"^%s:%d: \[%s\] %s" % (re.escape(rel), n, kind, claim)
    case.__name__ = name
    return case


def c_place_table(t):
    n = replace(t, "docs/architecture.md", "| | `version.c` | `jl_version`,",
                "| | `version.c` | `jl_summarize`,")
    return r"^docs/architecture\.md:%d: \[place\] `jl_summarize` in `version\.c`: not defined in src/core/version\.c" % n


def c_deps_sentence(t):
    n = line_of(t, "README.md", r"^It builds against")
    replace(t, "README.md", "SQLite and jansson", "and jansson")
    return r"^README\.md:%d: \[deps\] .*leaves out sqlite" % n


def c_deps_pc_quoted(t):
    n = replace(t, "docs/library.md", "libdeflate zlib sqlite3`", "libdeflate zlib`")
    return r"^docs/library\.md:%d: \[deps\] `Requires\.private: hdf5 gsl libzstd libdeflate zlib`" % n


def c_deps_table(t):
    n = line_of(t, "docs/architecture.md", r"^\| library \| why \|")
    replace(t, "docs/architecture.md", r"(?m)^\| zlib \|.*\n", "", regex=True)
    return r"^docs/architecture\.md:%d: \[deps\] the table of libraries: leaves out zlib" % n


def c_deps_build(t):
    replace(t, "cmake/joules.pc.in", " sqlite3", "")
    return r"^cmake/joules\.pc\.in:1: \[deps\] .*differs from cmake/joulesDependencies\.cmake"


def c_deps_targets(t):
    n = replace(t, "docs/library.md", "`SQLite::SQLite3`,", "")
    return r"^docs/library\.md:\d+: \[deps\] .*leaves out the targets SQLite::SQLite3"


def c_map_missing(t):
    write(os.path.join(t, "src/json/json_new.c"), "/* a new file */\n")
    n = line_of(t, "docs/architecture.md", r"^## File map")
    return r"^docs/architecture\.md:%d: \[map\] `src/json/json_new\.c`: file of src/ with no row" % n


def c_map_extra(t):
    n = replace(t, "docs/architecture.md", "| | `version.c` |",
                "| | `gone.c` | a file that is not there |\n| | `version.c` |")
    return r"^docs/architecture\.md:%d: \[map\] `src/core/gone\.c`: no such file" % n


def c_map_dropped(t):
    replace(t, "docs/architecture.md", r"(?m)^\| \| `walk\.h` \|.*\n", "", regex=True)
    return r"^docs/architecture\.md:\d+: \[map\] `src/core/walk\.h`: file of src/ with no row"


def c_median(t):
    p = os.path.join(t, "docs/architecture.md")
    s = read(p)
    # every sentence of a paragraph run into one
    write(p, re.sub(r"\.(\s+)(?=[A-Z`])", r",\1", s))
    return r"^docs/architecture\.md:1: \[median\] median sentence length \d+(\.\d+)? words"


CASES = [appended(*a) for a in APPENDED] + [
         c_place_table,
         c_deps_sentence, c_deps_pc_quoted, c_deps_table, c_deps_build, c_deps_targets,
         c_map_missing, c_map_extra, c_map_dropped, c_median]


def make_tree(root, dst):
    for d in ("docs", "include", "src", "cmake"):
        shutil.copytree(os.path.join(root, d), os.path.join(dst, d),
                        ignore=shutil.ignore_patterns("__pycache__", "*.png", "examples"))
    # docs/examples and the screenshot are named by paths: link them
    for d in ("docs/examples", "docs/report-first-screen.png"):
        if os.path.exists(os.path.join(root, d)):
            os.symlink(os.path.join(os.path.abspath(root), d), os.path.join(dst, d))
    for f in ("README.md", "CMakeLists.txt"):
        shutil.copy(os.path.join(root, f), os.path.join(dst, f))
    for d in ("tests", "models", "traces", "notebooks-export"):
        if os.path.exists(os.path.join(root, d)):
            os.symlink(os.path.join(os.path.abspath(root), d), os.path.join(dst, d))


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: check_docs_negative.py ROOT\n")
        return 2
    root = argv[1]
    bad = 0
    with tempfile.TemporaryDirectory(prefix="joules-docs-") as tmp:
        base = os.path.join(tmp, "base")
        make_tree(root, base)
        rc, out = run(base)
        if rc != 0:
            print("FAIL: the unbroken copy does not pass check_docs.py (ctest style_docs says why):")
            print(out)
            return 1
        for case in CASES:
            t = base
            want = case(t)
            rc, out = run(t)
            restore()
            if rc == 1 and re.search(want, out, re.M):
                print("ok: %s: %s" % (case.__name__, next(
                    l for l in out.splitlines() if re.search(want, l))))
            else:
                bad += 1
                print("FAIL: %s: exit %d, no line matching %r in:\n%s" % (case.__name__, rc, want, out))
    print("%d of %d broken claims caught" % (len(CASES) - bad, len(CASES)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
