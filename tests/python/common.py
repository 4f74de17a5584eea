"""What the Python module's tests share (tests/python/): where things are,
running the CLI, comparing a module document with the CLI's --json, and
the pass/fail/skip protocol of the other tests (exit 77: skipped, with one
SKIP: line saying what is missing)."""
import json
import math
import os
import subprocess
import sys

ROOT = os.environ.get("JOULES_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
JOULES = os.environ.get("JOULES_BIN", "joules")
SHARED = os.environ.get("JOULES_SHARED_DIR", os.path.join(ROOT, "..", "shared"))
TRACES = os.path.join(ROOT, "traces")

failures = []


def skip(why):
    print("SKIP: " + why)
    sys.exit(77)


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def check(cond, msg):
    if not cond:
        fail(msg)
    return cond


def done(name):
    if failures:
        print("%s: %d failure(s)" % (name, len(failures)))
        sys.exit(1)
    print("%s: ok" % name)
    sys.exit(0)


def cli(args, check_rc=None, env=None):
    """Run joules ARGS (argv without "joules"): (rc, stdout, stderr)."""
    p = subprocess.run([JOULES] + list(args), capture_output=True, cwd=ROOT,
                       env=dict(os.environ, **(env or {})))
    if check_rc is not None and p.returncode != check_rc:
        fail("joules %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.decode()[-2000:]))
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def cli_json(args):
    rc, out, err = cli(args)
    try:
        return rc, json.loads(out), err
    except ValueError:
        fail("joules %s: no JSON (exit %d): %s" % (" ".join(args), rc, err[-2000:]))
        return rc, None, err


def same(a, b, where="", rel=1e-9, ignore=()):
    """The differences between two JSON values: numbers to rel (the CLI
    prints 12 significant digits), everything else exactly. Paths in
    ignore ("provenance.created") are not compared."""
    out = []
    if where in ignore:
        return out
    if isinstance(a, bool) or isinstance(b, bool):
        if a is not b:
            out.append("%s: %r != %r" % (where, a, b))
    elif isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if not (a == b or (math.isnan(a) and math.isnan(b)) or abs(a - b) <= rel * max(abs(a), abs(b))):
            out.append("%s: %r != %r" % (where, a, b))
    elif isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                if (where + "." + k).lstrip(".") not in ignore:
                    out.append("%s.%s: only in %s" % (where, k, "the module" if k in a else "the CLI"))
                continue
            out += same(a[k], b[k], (where + "." + k).lstrip("."), rel, ignore)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append("%s: %d items != %d" % (where, len(a), len(b)))
        else:
            for i, (x, y) in enumerate(zip(a, b)):
                out += same(x, y, "%s[%d]" % (where, i), rel, ignore)
    elif a != b:
        out.append("%s: %r != %r" % (where, a, b))
    return out


def against_cli(name, doc, extra_ignore=()):
    """A module document against the CLI's: the command its provenance
    names is run and its --json compared leaf by leaf (the time of the
    provenance aside). Returns the CLI's document."""
    cmd = doc["provenance"]["command"]
    rc, ref, err = cli_json(cmd[1:])
    if ref is None:
        return None
    diffs = same(doc, ref, ignore=("provenance.created",) + tuple(extra_ignore))
    if diffs:
        fail("%s: %d differences from `%s`, e.g. %s" % (name, len(diffs), " ".join(cmd), "; ".join(diffs[:5])))
    else:
        print("ok: %s equals `%s` (%d leaves)" % (name, " ".join(cmd), count_leaves(ref)))
    return ref


def count_leaves(v):
    if isinstance(v, dict):
        return sum(count_leaves(x) for x in v.values())
    if isinstance(v, list):
        return sum(count_leaves(x) for x in v)
    return 1
