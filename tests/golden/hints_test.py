#!/usr/bin/env python3
"""Hints that work when typed as printed (issue 43): every suggestion a
golden case's output holds is taken as a person would take it and tried.

  - a command to type (in backquotes, or after "from here:" / "try:"): run
    as printed, with the case's ${TMP} made again by its setup; it must not
    be a usage error (exit 2), and one naming a document must reproduce it;
  - "did you mean 'X'?": the case's command again with the word the message
    quotes replaced by X: the same message must not come back, and the
    command must not be a usage error;
  - the energy label's "re-derive" line: run as printed from where the
    labels were made, it reproduces labels.json.

A placeholder in a suggestion (an upper-case word such as DIR or FILE.h5)
is not typed as printed: such a suggestion fails the test unless the case
lists it in hints-allowed (none does). Usage: hints_test.py JOULES SOURCE_DIR.
Exit 0 pass, 1 fail."""
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

JOULES, SRC = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
CASES = os.path.join(SRC, "tests", "golden", "cases")


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def case_env(case, tmp):
    """The case's ${TMP} made again (its setup run), and its args."""
    ctmp = os.path.join(tmp, os.path.basename(case))
    os.makedirs(ctmp, exist_ok=True)
    shared = os.environ.get("JOULES_SHARED_DIR", os.path.join(SRC, "..", "shared"))
    sub = lambda s: s.replace("${TMP}", ctmp).replace("${SHARED}", shared)
    setup = os.path.join(case, "setup")
    if os.path.exists(setup):
        script = "joules=" + shlex.quote(JOULES) + "\nset -e\n" + sub(open(setup).read())
        p = subprocess.run(["sh", "-c", script], cwd=SRC, capture_output=True)
        if p.returncode:
            fail(f"{case}: setup failed: {p.stderr.decode()[-300:]}")
    return sub, sub(open(os.path.join(case, "args")).read().strip())


def run_line(line, cwd=SRC):
    """A command line as a person types it into sh."""
    line = re.sub(r"^joules\b", shlex.quote(JOULES), line.strip())
    return subprocess.run(["sh", "-c", line], cwd=cwd, capture_output=True, timeout=300)


def suggestions(text):
    """The commands a message tells a person to type."""
    out = re.findall(r"`(joules [^`]+)`", text)
    out += [m.strip() for m in re.findall(r"(?:from here|try|run):\s+(joules [^\n]+)", text)]
    # a command after a colon in a message (": joules import kineto ...")
    cmds = ("summarize|inspect|check|frontier|pick|compare|capacity|fit|predict|explain|diagnose|"
            "report|attribute|import|verify|budget|emissions|label|card")
    out += [m.strip().rstrip(")") for m in re.findall(rf": (joules (?:{cmds}) [^`\n]*)", text)
            if "`" not in m]
    return list(dict.fromkeys(out))


def main():
    tmp = tempfile.mkdtemp(prefix="joules-hints-")
    n_cmd = n_dym = 0
    try:
        for case in sorted(glob.glob(os.path.join(CASES, "*"))):
            if not os.path.exists(os.path.join(case, "args")):
                continue
            name = os.path.basename(case)
            text = ""
            for f in ("expected.stdout", "expected.stderr"):
                p = os.path.join(case, f)
                if os.path.exists(p):
                    text += open(p, errors="replace").read()
            if "${SHARED}" in open(os.path.join(case, "args")).read() and not os.path.isdir(
                    os.environ.get("JOULES_SHARED_DIR", os.path.join(SRC, "..", "shared"))):
                continue
            allowed = set()
            if os.path.exists(os.path.join(case, "hints-allowed")):
                allowed = {l.strip() for l in open(os.path.join(case, "hints-allowed")) if l.strip()}
            # usage lines of --help are not suggestions
            body = "\n".join(l for l in text.splitlines() if not l.startswith("usage:"))
            sub, args = None, None
            for cmd in suggestions(body):
                if cmd in allowed:
                    continue
                if re.search(r"(?<![\w$-])[A-Z][A-Z0-9_]*(?:\.[a-z0-9]+)?(?![\w-])", cmd.replace("${TMP}", "")) \
                        or "..." in cmd:
                    fail(f"{name}: the suggestion `{cmd}` has a placeholder: it cannot be typed as printed")
                if sub is None:
                    sub, args = case_env(case, tmp)
                p = run_line(sub(cmd))
                if p.returncode == 2:
                    fail(f"{name}: `{cmd}` is a usage error as printed: {p.stderr.decode()[-300:]}")
                if " verify " in f" {cmd} " and p.returncode != 0:
                    fail(f"{name}: `{cmd}` does not reproduce the document (exit {p.returncode}): "
                         f"{p.stdout.decode()[-300:]}")
                n_cmd += 1
            for line in body.splitlines():
                m = re.search(r"did you mean '([^']+)'\?", line)
                if not m:
                    continue
                meant = m.group(1)
                if sub is None:
                    sub, args = case_env(case, tmp)
                # what was typed: the word right before "(did you mean", else
                # the last quoted one before it
                before = line[:m.start()]
                w = re.search(r"(\S+) \($", before)
                q = re.findall(r"'([^']+)'", before)
                typed = w.group(1).strip("'\":") if w else (q[-1] if q else "")
                if typed not in args and q:
                    typed = q[-1]
                if sub is None:
                    sub, args = case_env(case, tmp)
                # the word as typed: alone, or as the key or value of a clause
                words = shlex.split(args)
                fixed, done = [], False
                for w in words:
                    if not done and w == typed:
                        w, done = meant, True
                    elif not done and re.search(rf"(^|[=,]){re.escape(typed)}($|[=<>!,])", w):
                        w, done = re.sub(rf"(^|[=,]){re.escape(typed)}($|[=<>!,])",
                                         lambda x: x.group(1) + meant + x.group(2), w, count=1), True
                    elif not done and w.startswith(typed) and re.match(r"[<>=!]", w[len(typed):] or "="):
                        w, done = meant + w[len(typed):], True
                    fixed.append(w)
                if not done:
                    # a name inside a file the case reads: the file with the word replaced
                    for i, w in enumerate(fixed):
                        if os.path.isfile(os.path.join(SRC, w)) and typed in open(os.path.join(SRC, w), errors="replace").read():
                            nf = os.path.join(tmp, f"{name}-{os.path.basename(w)}")
                            open(nf, "w").write(open(os.path.join(SRC, w)).read().replace(f'"{typed}"', f'"{meant}"'))
                            fixed[i], done = nf, True
                            break
                if not done:
                    fail(f"{name}: cannot find '{typed}' in the command to try '{meant}' in its place")
                p = subprocess.run([JOULES] + fixed, cwd=SRC, capture_output=True, timeout=300)
                again = p.stderr.decode()
                if p.returncode == 2 or f"'{typed}'" in again and "did you mean" in again:
                    fail(f"{name}: '{meant}' for '{typed}' does not work: exit {p.returncode}: {again[-300:]}")
                n_dym += 1
        # the label's line, as printed, from where the labels were made
        work = os.path.join(tmp, "label")
        os.makedirs(os.path.join(work, "traces"))
        shutil.copy(os.path.join(SRC, "traces", "h100", "h100-qwen3-8b-shape-chat.h5"), os.path.join(work, "traces"))
        shutil.copy(os.path.join(SRC, "traces", "h200", "h200-qwen3-8b-shape-chat.h5"), os.path.join(work, "traces"))
        p = subprocess.run([JOULES, "label", "--slo", "median_itl<=50ms", "-o", "labels/", "traces/"],
                           cwd=work, capture_output=True)
        if p.returncode:
            fail("label: " + p.stderr.decode()[-300:])
        svgs = glob.glob(os.path.join(work, "labels", "*.svg"))
        lines = {m for s in svgs for m in re.findall(r"re-derive: (joules verify [^<]+)<", open(s).read())}
        if len(lines) != 1:
            fail(f"the labels' re-derive lines: {lines}")
        line = lines.pop().replace("&amp;", "&")
        p = run_line(line, cwd=work)
        if p.returncode != 0 or b"verdict: reproduces" not in p.stdout:
            fail(f"the label's `{line}` does not reproduce labels.json: {p.stdout.decode()[-300:]}")
        # and verify's own hint, typed from somewhere else
        p = subprocess.run([JOULES, "verify", os.path.join(work, "labels", "labels.json")], cwd=tmp,
                           capture_output=True)
        hint = suggestions(p.stderr.decode())
        if p.returncode != 3 or len(hint) != 1:
            fail(f"verify from elsewhere: exit {p.returncode}, hint {hint}: {p.stderr.decode()[-300:]}")
        q = run_line(hint[0], cwd=tmp)
        if q.returncode != 0:
            fail(f"verify's hint `{hint[0]}` does not reproduce: {q.stdout.decode()[-300:]}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"ok: {n_cmd} suggested commands run as printed, {n_dym} 'did you mean' taken, "
          f"the label's verify line and verify's -C hint reproduce")


if __name__ == "__main__":
    main()
