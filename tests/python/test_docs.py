"""help(joules.NAME) says what docs/python.md says (its section for NAME,
made into the docstring at build time by src/python/make_docs.py), every
public name of the module has a section, and the page's examples run."""
import inspect
import os
import pydoc
import re
import sys
import tempfile

from common import ROOT, check, done, fail

import joules  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "src", "python"))
import make_docs  # noqa: E402

PAGE = os.path.join(ROOT, "docs", "python.md")


def main():
    text = open(PAGE, encoding="utf-8").read()
    secs = dict(make_docs.sections(text))
    documented = 0
    for name in joules.__all__:
        obj = getattr(joules, name)
        if isinstance(obj, type) and issubclass(obj, BaseException):
            continue  # the exceptions: one section for them all ("Errors")
        if name not in secs:
            fail("joules.%s has no section `joules.%s(...)` in docs/python.md" % (name, name))
            continue
        check(obj.__doc__ == secs[name], "help(joules.%s) is not its section of docs/python.md" % name)
        documented += 1
    for name, doc in secs.items():
        obj = joules
        for part in name.split("."):
            obj = getattr(obj, part, None)
        if obj is None:
            fail("docs/python.md documents %s, which the module does not have" % name)
            continue
        check(getattr(obj, "__doc__", None) == doc, "%s.__doc__ is not its section of docs/python.md" % name)
    # each section's heading is the call's signature as the code has it
    headings = 0
    for m in re.finditer(r"^### `(?:joules\.)?([\w.]+)\((.*)\)`", text, re.M):
        name, params = m.group(1), m.group(2)
        obj = joules
        for part in name.split("."):
            obj = getattr(obj, part, None)
        try:
            sig = str(inspect.signature(obj))[1:-1]
        except (TypeError, ValueError):
            continue  # a C type's method without a signature
        sig = re.sub(r"^self(, )?", "", sig).replace("**kw", "**study").replace("'", '"')
        headings += 1
        check(sig == params, "docs/python.md's heading of %s says (%s), the code (%s)" % (name, params, sig))
    print("ok: %d headings of docs/python.md are their calls' signatures" % headings)
    rendered = pydoc.render_doc(joules.summarize, renderer=pydoc.plaintext)
    first = secs["summarize"].splitlines()[2]
    check(first in rendered, "help(joules.summarize) does not show the page's text: %r" % first)
    print("ok: %d public names and %d methods have their docs/python.md section as help()" % (
        documented, len(secs) - documented))
    # the page's examples (```python blocks marked "# example"), run from the checkout
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    ran = 0
    cwd = os.getcwd()
    os.chdir(ROOT)
    for b in blocks:
        if "# example" not in b.splitlines()[0] if b else True:
            continue
        with tempfile.TemporaryDirectory(prefix="joules-pydoc-") as tmp:
            env = {"__name__": "__example__", "TMP": tmp}
            try:
                exec(compile(b, "docs/python.md example", "exec"), env)
                ran += 1
            except Exception as e:  # noqa: BLE001
                fail("an example of docs/python.md fails: %s: %s\n%s" % (type(e).__name__, e, b[:400]))
    os.chdir(cwd)
    check(ran >= 5, "only %d examples of docs/python.md ran" % ran)
    print("ok: %d examples of docs/python.md run" % ran)
    done("test_docs")


if __name__ == "__main__":
    main()
