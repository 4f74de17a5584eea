"""Write joules/_docs.py from docs/python.md: each API heading
"### `joules.NAME(...)`" (or "### `Class.method(...)`") and the text under
it, to the next heading, become the docstring of NAME, so that
help(joules.NAME) says what the manual says (tests/python checks it).

    python3 make_docs.py docs/python.md OUT.py
"""
import re
import sys

HEAD = re.compile(r"^#{2,4} `(?:joules\.)?([A-Za-z_][A-Za-z_0-9]*(?:\.[A-Za-z_][A-Za-z_0-9]*)?)(\(.*\))?`\s*$")


def sections(text):
    """(name, docstring) of every API heading of the page."""
    lines = text.splitlines()
    out = []
    i = 0
    while i < len(lines):
        m = HEAD.match(lines[i])
        if not m:
            i += 1
            continue
        name, sig = m.group(1), m.group(2) or ""
        body = []
        i += 1
        while i < len(lines) and not lines[i].startswith("#"):
            body.append(lines[i])
            i += 1
        while body and not body[0].strip():
            body.pop(0)
        while body and not body[-1].strip():
            body.pop()
        out.append((name, "%s%s\n\n%s\n" % (name, sig, "\n".join(body))))
    return out


def main():
    src, dst = sys.argv[1], sys.argv[2]
    with open(src, encoding="utf-8") as f:
        docs = sections(f.read())
    with open(dst, "w", encoding="utf-8") as f:
        f.write("# Generated from docs/python.md by src/python/make_docs.py: do not edit.\n")
        f.write("DOCS = {\n")
        for name, text in docs:
            f.write("    %r: %r,\n" % (name, text))
        f.write("}\n")


if __name__ == "__main__":
    main()
