#!/usr/bin/env python3
"""Docs that are tested (ctest style_docs; docs/architecture.md, "Docs that
are tested").

    check_docs.py ROOT [--quiet]

Reads docs/*.md, README.md, tests/README.md and the comments of
include/joules/*.h under ROOT and checks the claims a machine can check
(the comments of src/'s .c, .h and .py files too, for path and section):

  path       every `src/...`, `include/...`, `tests/...`, `docs/...` and
             `cmake/...` path (backticked, or plain in prose) exists;
  place      a name a doc places in a file ("`jl_foo` in `src/x/y.c`",
             "`jl_foo()` (`src/x/y.c`...", "`src/x/y.c` (`jl_foo`, ...",
             "(`jl_foo`, src/x/y.c", "`x/y.c`'s `jl_foo`",
             a table row that names one file and some names) is defined
             there or in its own header (x.h beside x.c; declared, for a
             header);
  deps       every list of the libraries joules links (a sentence naming
             five or more of them, a table whose first column is
             "library", a list of CMake targets, the `Requires` lines of
             joules.pc) names exactly those of cmake/joules.pc.in and
             cmake/joulesDependencies.cmake (the package config's
             find_dependency), which must agree with each other and with
             CMakeLists.txt's JOULES_LIB_DEPS;
  section    a reference to a doc's section (docs/x.md, "Section") names
             a heading of that doc or a bold paragraph head in it;
  map        docs/architecture.md's file map (section "File map") has one
             row for every file of src/ and none for a file that does not
             exist;
  median     the median length of docs/architecture.md's sentences (prose
             and list items; code and tables left out) is at most 18 words.

Every failure is one line "FILE:LINE: [kind] claim: what is wrong"; the
exit status is 1 when any claim is false, 0 otherwise. The last line counts
the claims checked, by kind.
"""

import io
import os
import re
import statistics
import sys
import tokenize

PREFIXES = ("src", "include", "tests", "docs", "cmake")
MEDIAN_MAX = 18

# The libraries joules links, by a canonical name, with the words a doc
# names each by (case-insensitive, whole words).
LIBS = {
    "hdf5": ("hdf5", "libhdf5"),
    "gsl": ("gsl", "libgsl"),
    "jansson": ("jansson", "libjansson"),
    "zstd": ("libzstd", "zstd", "zstandard"),
    "libdeflate": ("libdeflate",),
    "zlib": ("zlib",),
    "sqlite": ("sqlite", "sqlite3", "libsqlite3"),
}
# pkg-config module and CMake package names to the canonical one.
PC_NAMES = {"jansson": "jansson", "hdf5": "hdf5", "gsl": "gsl",
            "libzstd": "zstd", "libdeflate": "libdeflate", "zlib": "zlib",
            "sqlite3": "sqlite"}
CMAKE_PACKAGES = {"jansson": "jansson", "HDF5": "hdf5", "GSL": "gsl",
                  "zstd": "zstd", "libdeflate": "libdeflate", "ZLIB": "zlib",
                  "SQLite3": "sqlite", "Threads": None, "PkgConfig": None}

failures = []
counts = {}


def count(kind):
    counts[kind] = counts.get(kind, 0) + 1


def fail(rel, line, kind, claim, why):
    failures.append("%s:%d: [%s] %s: %s" % (rel, line, kind, claim, why))


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


# ---------------------------------------------------------------- sources


def blank(m):
    return re.sub(r"[^\n]", " ", m.group(0))


def markdown_prose(text):
    """The text with fenced code blocks blanked (line numbers kept)."""
    return re.sub(r"(?ms)^[ \t]*```.*?^[ \t]*```[^\n]*$", blank, text)


def header_comments(text):
    """Only the comments of a C header, everything else blanked."""
    out = []
    pos = 0
    for m in re.finditer(r"/\*.*?\*/|//[^\n]*", text, re.S):
        out.append(re.sub(r"[^\n]", " ", text[pos:m.start()]))
        out.append(m.group(0))
        pos = m.end()
    out.append(re.sub(r"[^\n]", " ", text[pos:]))
    return "".join(out)


C_TOKEN = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|/\*.*?\*/|//[^\n]*', re.S)


def c_comments(text):
    """Only the comments of a C file, everything else (string and char
    literals too) blanked, line numbers kept."""
    out = []
    pos = 0
    for m in C_TOKEN.finditer(text):
        if m.group(0)[0] != "/":
            continue
        out.append(re.sub(r"[^\n]", " ", text[pos:m.start()]))
        # a block comment's " * " line heads blanked: a quote may run on
        out.append(re.sub(r"(?m)(?<=\n)([ \t]*)\*(?!/)", r"\1 ", m.group(0)))
        pos = m.end()
    out.append(re.sub(r"[^\n]", " ", text[pos:]))
    return "".join(out)


def py_comments(text):
    """Only the comments and triple-quoted strings (docstrings) of a
    Python file, everything else blanked, line numbers kept."""
    keep = []
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return ""
    for t in toks:
        if t.type == tokenize.COMMENT or (
                t.type == tokenize.STRING and re.match(r"(?i)[rbuf]*(\"\"\"|\'\'\')", t.string)):
            keep.append((t.start, t.end))
    lines = text.split("\n")
    out = [re.sub(r"[^\n]", " ", ln) for ln in lines]
    for (r0, c0), (r1, c1) in keep:
        for r in range(r0, r1 + 1):
            a = c0 if r == r0 else 0
            b = c1 if r == r1 else len(lines[r - 1])
            ln = out[r - 1]
            out[r - 1] = ln[:a] + lines[r - 1][a:b] + ln[b:]
    return "\n".join(out)


def src_comments(root):
    """The comments of src/'s .c, .h and .py files, for the path and
    section checks."""
    out = []
    for d, dirs, files in os.walk(os.path.join(root, "src")):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__")
        for name in sorted(files):
            rel = os.path.relpath(os.path.join(d, name), root).replace(os.sep, "/")
            if name.endswith((".c", ".h")):
                out.append((rel, c_comments(read(os.path.join(d, name)))))
            elif name.endswith(".py"):
                out.append((rel, py_comments(read(os.path.join(d, name)))))
    return out


def sources(root):
    docs = []
    for name in sorted(os.listdir(os.path.join(root, "docs"))):
        if name.endswith(".md"):
            docs.append("docs/" + name)
    docs += ["README.md", "tests/README.md"]
    out = []
    for rel in docs:
        p = os.path.join(root, rel)
        if os.path.exists(p):
            out.append((rel, markdown_prose(read(p))))
    inc = os.path.join(root, "include", "joules")
    for name in sorted(os.listdir(inc)):
        if name.endswith(".h"):
            out.append(("include/joules/" + name,
                        c_comments(read(os.path.join(inc, name)))))
    return out


# ------------------------------------------------------------------ paths

PATH_RE = r"(?:%s)/[A-Za-z0-9_.+/-]*" % "|".join(PREFIXES)
BACKTICK_RE = re.compile(r"`([^`]+)`")
PLAIN_PATH_RE = re.compile(r"(?<![\w/.$:-])(?:\.\./)?(%s)" % PATH_RE)


def clean_path(p):
    p = p.split("#")[0]
    p = re.sub(r":\d+(-\d+)?$", "", p)
    return p.rstrip(".,;:)")


def is_pattern(text, end):
    """A path written as a pattern (`tests/<kind>/`, `src/**/*.c`)."""
    return end < len(text) and text[end] in "*<{[$"


def is_placeholder(path):
    """A path with a one-capital-letter part (`tests/unit/test_X.c`,
    `tests/golden/cases/C/`): a pattern, not a file."""
    return any(re.fullmatch(r"(\w*_)?[A-Z](\.\w+)?", part)
               for part in path.split("/"))


def check_paths(root, rel, text):
    seen = set()
    for m in BACKTICK_RE.finditer(text):
        body = m.group(1).strip()
        pm = re.fullmatch(r"(?:\.\./)?(%s)" % PATH_RE, body)
        if not pm:
            continue
        seen.add(m.start(1))
        check_one_path(root, rel, text, m.start(1), clean_path(pm.group(1)))
    for m in PLAIN_PATH_RE.finditer(text):
        if m.start() in seen or is_pattern(text, m.end()):
            continue
        # inside a backtick span already seen (a path with a pattern)
        before = text[:m.start()]
        if before.count("`") % 2 == 1:
            continue
        check_one_path(root, rel, text, m.start(1), clean_path(m.group(1)))


def check_one_path(root, rel, text, pos, path):
    if not path or is_placeholder(path):
        return
    count("path")
    if not os.path.exists(os.path.join(root, path)):
        fail(rel, line_of(text, pos), "path", "`%s`" % path,
             "no such file or folder")


# -------------------------------------------------------------- placements

# A name of the project's code: a public, internal or CLI name, or a lower
# case (static) one; not another library's (`MPI_Iprobe`, `H5Dread`) nor a
# C type (`size_t`).
ID_RE = r"(?:(?:jl_|JL_|cli_|CLI_|pyj_)[A-Za-z0-9_]*|[a-z][a-z0-9]*_[a-z0-9_]*(?<!_t)(?![\w]))"
NAME_TOKEN = re.compile(r"`(%s)(?:\(\))?`" % ID_RE)


class Tree:
    """The files of src/ and include/joules/, by path and by base name."""

    def __init__(self, root):
        self.root = root
        self.by_base = {}
        self.cache = {}
        for top in ("src", "include"):
            for d, dirs, files in os.walk(os.path.join(root, top)):
                dirs[:] = sorted(x for x in dirs if x != "__pycache__")
                for f in files:
                    rp = os.path.relpath(os.path.join(d, f), root)
                    self.by_base.setdefault(f, []).append(rp)

    def resolve(self, name, folder=None):
        """A file named in a doc as a repository path, a path under src/
        (`core/stats.c`), a name in FOLDER, or a base name unique in the
        tree; None when none or several."""
        name = name.strip().rstrip("/")
        if folder:
            p = os.path.normpath(os.path.join(folder, name))
            if os.path.isfile(os.path.join(self.root, p)):
                return p
        if "/" in name:
            for p in (name, "src/" + name):
                if os.path.isfile(os.path.join(self.root, p)):
                    return p
        if "/" not in name:
            c = self.by_base.get(name, [])
            if len(c) == 1:
                return c[0]
        return None

    def code(self, path):
        if path not in self.cache:
            text = read(os.path.join(self.root, path))
            # comments out, so a name only mentioned there is not defined
            text = re.sub(r"/\*.*?\*/", blank, text, flags=re.S)
            text = re.sub(r"//[^\n]*", blank, text)
            self.cache[path] = text
        return self.cache[path]

    def defines(self, path, name):
        """NAME is defined in the C file PATH (or declared in its own
        header, x.h beside x.c: a type or macro of the unit), or declared
        in the header PATH."""
        text = self.code(path)
        n = re.escape(name)
        if path.endswith(".h") or path.endswith(".py"):
            return re.search(r"\b%s\b" % n, text) is not None
        if self.defines_c(text, name):
            return True
        own = path[:-2] + ".h"
        if os.path.isfile(os.path.join(self.root, own)) and \
                re.search(r"\b%s\b" % n, self.code(own)):
            return True
        return False

    def defines_c(self, text, name):
        n = re.escape(name)
        if name in self.macro_names(text):
            return True
        # a test: TEST(name) or test_name() (tests/unit/test.h)
        if re.search(r"(?m)^[A-Z_]+\(\s*%s\s*[,)]" % n, text) or \
                re.search(r"(?m)^(?![ \t#])[^;{}\n]*\btest_%s\s*\(" % n, text):
            return True
        pats = [
            # a function: at column 0, the name and its parameters
            r"(?m)^(?![ \t#])[^;{}\n]*\b%s\s*\([^;]*?(\{|$)" % n,
            r"(?m)^#\s*define\s+%s\b" % n,
            # a variable or table at file scope
            r"(?m)^(?![ \t#])[^(;\n]*\b%s\s*(\[[^\]]*\])*\s*(=|;)" % n,
            # a type
            r"(?m)^}\s*%s\s*;" % n,
            r"(?m)^(typedef\s+)?(struct|enum|union)\s+%s\b" % n,
            r"(?m)^typedef\b[^;]*\b%s\s*;" % n,
        ]
        return any(re.search(p, text) for p in pats)

    @staticmethod
    def macro_names(text):
        """The names a file's own macros define where it invokes them at
        file scope: `DEFINE_SELECT(d, double, jl__quantiles_d)` defines
        jl__quantiles_d and, through `jl__select_##SUFFIX`, jl__select_d."""
        joined = text.replace("\\\n", " ")
        out = set()
        for d in re.finditer(r"(?m)^#\s*define\s+(\w+)\(([^)]*)\)(.*)$", joined):
            params = [x.strip() for x in d.group(2).split(",")]
            body = d.group(3)
            for call in re.finditer(r"(?m)^%s\(([^)]*)\)" % re.escape(d.group(1)), joined):
                args = [x.strip() for x in call.group(1).split(",")]
                amap = dict(zip(params, args))
                for a in args:
                    if re.fullmatch(r"\w+", a):
                        out.add(a)
                for pm in re.finditer(r"(\w*)##(\w+)|(\w+)##(\w*)", body):
                    left, right = (pm.group(1), pm.group(2)) if pm.group(2) else \
                        (pm.group(3), pm.group(4))
                    out.add(amap.get(left, left) + amap.get(right, right))
        return out


def place(tree, rel, text, pos, name, fname, folder=None):
    """`name` placed in the file FNAME: a claim when FNAME names one C file
    or header (a missing path is the path check's to report)."""
    path = tree.resolve(fname, folder)
    if path is None or not path.endswith((".c", ".h")):
        return
    count("place")
    if not tree.defines(path, name):
        what = "declared" if path.endswith(".h") else "defined"
        fail(rel, line_of(text, pos), "place",
             "`%s` in `%s`" % (name, fname), "not %s in %s" % (what, path))


FILE_TOKEN = r"`?((?:%s/)?[A-Za-z0-9_./-]*[A-Za-z0-9_]\.[ch])`?" % "|".join(PREFIXES)
# "`jl_foo` in `src/x.c`", "`jl_foo()` is defined in src/x.c"
P_IN = re.compile(r"`(%s)(?:\(\))?`\s+(?:is\s+)?(?:defined\s+)?in\s+%s(?![\w/])"
                  % (ID_RE, FILE_TOKEN))
# "`jl_foo()` (`src/x.c`...", "`jl_foo` (src/x.c:"
P_PAREN = re.compile(r"`(%s)(?:\(\))?`\s+\(%s(?![\w/])" % (ID_RE, FILE_TOKEN))
# "`src/x.c` (`jl_foo`, `jl_bar`" and "`src/x.c`: `jl_foo`, ..."
P_FILE_FIRST = re.compile(r"%s(?:\s+\(|:\s+)((?:`%s(?:\(\))?`(?:,\s*|\s+and\s+|\s+or\s+)?)+)"
                          % (FILE_TOKEN, ID_RE))


# "`src/x.c`'s `jl_foo`", "`x.c`'s `jl_foo`"
P_POSSESSIVE = re.compile(r"%s's\s+`(%s)(?:\(\))?`" % (FILE_TOKEN, ID_RE))


# "(`jl_foo`, src/x.c", "(`jl_foo()`, quantile.c;" -- the file not in
# backticks ("(`jl_foo`, `x.c`)" reads as a list of two)
P_COMMA = re.compile(r"\(`(%s)(?:\(\))?`,\s+((?:%s/)?[A-Za-z0-9_./-]*[A-Za-z0-9_]\.[ch])(?=[;:),.\s])"
                     % (ID_RE, "|".join(PREFIXES)))


def check_places(tree, rel, text):
    for m in P_POSSESSIVE.finditer(text):
        place(tree, rel, text, m.start(), m.group(2), m.group(1))
    for m in P_COMMA.finditer(text):
        place(tree, rel, text, m.start(), m.group(1), m.group(2))
    for m in P_IN.finditer(text):
        place(tree, rel, text, m.start(), m.group(1), m.group(2))
    for m in P_PAREN.finditer(text):
        place(tree, rel, text, m.start(), m.group(1), m.group(2))
    for m in P_FILE_FIRST.finditer(text):
        for n in NAME_TOKEN.finditer(m.group(2)):
            place(tree, rel, text, m.start(), n.group(1), m.group(1))
    check_table_places(tree, rel, text)


def tables(text):
    """(first line, header cells, [(line, cells)]) of each table."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if lines[i].startswith("|") and i + 1 < len(lines) and \
                re.match(r"^\|[\s:|-]+\|\s*$", lines[i + 1]):
            head = split_row(lines[i])
            rows = []
            j = i + 2
            while j < len(lines) and lines[j].startswith("|"):
                rows.append((j + 1, split_row(lines[j])))
                j += 1
            yield i + 1, head, rows
            i = j
        else:
            i += 1


def split_row(line):
    cells = re.split(r"(?<!\\)\|", line.strip())
    return [c.strip() for c in cells[1:-1]]


def check_table_places(tree, rel, text):
    for _, head, rows in tables(text):
        fcol = None
        folder_col = None
        for k, h in enumerate(head):
            if h.lower() == "file":
                fcol = k
            if h.lower() == "folder":
                folder_col = k
        folder = None
        for line, cells in rows:
            if folder_col is not None and folder_col < len(cells) and cells[folder_col]:
                f = re.sub(r"[`*]", "", cells[folder_col]).strip()
                if f:
                    folder = f if f.startswith("src/") else "src/" + f
            files = []
            if fcol is not None and fcol < len(cells):
                files = re.findall(r"`([A-Za-z0-9_./-]+\.[ch])`", cells[fcol])
            if len(files) != 1:
                continue
            pos = sum(len(x) + 1 for x in text.split("\n")[:line - 1])
            for c, cell in enumerate(cells):
                if c <= fcol:
                    continue
                for n in NAME_TOKEN.finditer(cell):
                    place(tree, rel, text, pos, n.group(1), files[0], folder)


# ---------------------------------------------------------------- sections

# docs/x.md, "Section" (or x.md "Section"; either across a line break): a heading
# of that doc, or the bold head of one of its paragraphs, starts with it.
SECTION_REF = re.compile(r'(?<![\w/.-])(?:docs/)?([a-z0-9-]+\.md)\)?,?\s+"([^"\n]+(?:\n[^"\n]+)?)"')


def doc_sections(root, rel, cache={}):
    if rel not in cache:
        s = markdown_prose(read(os.path.join(root, rel)))
        heads = [re.sub(r"[`*]", "", m.group(1)).strip()
                 for m in re.finditer(r"(?m)^#+\s+(.*)$", s)]
        bold = [m.group(1).strip() for m in re.finditer(r"\*\*([^*\n]+)\*\*", s)]
        cache[rel] = heads + bold
    return cache[rel]


def check_sections(root, rel, text):
    for m in SECTION_REF.finditer(text):
        doc, sec = m.group(1), " ".join(m.group(2).split())
        target = None
        for cand in ("docs/" + doc, doc, os.path.join(os.path.dirname(rel), doc)):
            if os.path.isfile(os.path.join(root, cand)):
                target = os.path.normpath(cand)
                break
        if target is None:
            continue  # the path check's, or another repository's doc
        count("section")
        want = re.sub(r"[`*]", "", sec).rstrip(".:")
        if not any(h == want or h.startswith(want) for h in doc_sections(root, target)):
            fail(rel, line_of(text, m.start()), "section", '%s, "%s"' % (doc, sec),
                 "%s has no heading or bold paragraph head starting so" % target)


# ------------------------------------------------------------ dependencies


def deps_from_build(root):
    """The dependency sets of joules.pc.in, joulesDependencies.cmake and
    CMakeLists.txt; a failure where they disagree."""
    pc_rel = "cmake/joules.pc.in"
    pc = read(os.path.join(root, pc_rel))
    pc_req = {}
    for key in ("Requires", "Requires.private"):
        m = re.search(r"(?m)^%s:\s*(.*)$" % re.escape(key), pc)
        pc_req[key] = m.group(1).split() if m else []
    pc_set = set()
    for n in pc_req["Requires"] + pc_req["Requires.private"]:
        pc_set.add(PC_NAMES.get(n, n))

    dep_rel = "cmake/joulesDependencies.cmake"
    dep_text = read(os.path.join(root, dep_rel))
    code = re.sub(r"(?m)#.*$", "", dep_text)
    cm_set = set()
    targets = set()
    for m in re.finditer(r"joules_dependency\((\w+)", code):
        v = CMAKE_PACKAGES.get(m.group(1), m.group(1))
        if v:
            cm_set.add(v)
    for m in re.finditer(r"joules_config_or_pkgconfig\((\w+)\s+(\S+)\s+(\S+)\)", code):
        cm_set.add(CMAKE_PACKAGES.get(m.group(1), m.group(1)))
        targets.add(m.group(2))
    for m in re.finditer(r"TARGET\s+(\w+::\w+)", code):
        targets.add(m.group(1))

    top = read(os.path.join(root, "CMakeLists.txt"))
    m = re.search(r"set\(JOULES_LIB_DEPS([^)]*)\)", top)
    lib_targets = set(re.findall(r"\w+::\w+", m.group(1))) if m else set()
    lib_targets.add("jansson::jansson")  # linked publicly, beside the list

    count("deps")
    if pc_set != cm_set:
        fail(pc_rel, 1, "deps", "Requires: %s / Requires.private: %s"
             % (" ".join(pc_req["Requires"]), " ".join(pc_req["Requires.private"])),
             "differs from %s's find_dependency list (%s)"
             % (dep_rel, ", ".join(sorted(cm_set))))
    count("deps")
    if lib_targets - targets:
        fail(dep_rel, 1, "deps", "the package config's targets",
             "CMakeLists.txt's JOULES_LIB_DEPS links %s, which it does not recreate"
             % ", ".join(sorted(lib_targets - targets)))
    return pc_req, pc_set, targets, dep_rel, dep_text


def libs_named(s):
    found = set()
    for canon, words in LIBS.items():
        for w in words:
            if re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(w), s, re.I):
                found.add(canon)
    return found


def sentences_with_pos(text):
    """(start, sentence) of the prose: paragraphs split at . ! ? before a
    space (tables and headings are their own units)."""
    out = []
    for m in re.finditer(r"(?s)(?:[^\n]|\n(?!\s*\n))+", text):
        para = m.group(0)
        lead = len(para) - len(para.lstrip())
        para = para[lead:]
        base = m.start() + lead
        if para.lstrip().startswith("|") or para.lstrip().startswith("#"):
            continue
        start = 0
        for s in re.finditer(r"(?<=[.!?])\s+(?=[A-Z`(\[*\"'0-9])", para):
            if not abbreviation(para[:s.start()]):
                out.append((base + start, para[start:s.start()]))
                start = s.end()
        out.append((base + start, para[start:]))
    return out


def abbreviation(before):
    return re.search(r"(\be\.g|\bi\.e|\bvs|\betc|\bcf|\bNo|\bSec|\bFig)\.$", before) \
        is not None


def check_deps(root, srcs):
    pc_req, pc_set, targets, dep_rel, dep_text = deps_from_build(root)
    need = pc_set  # every dependency is required (MPI is the program's)
    for rel, text in srcs + [(dep_rel, header_comments_cmake(dep_text))]:
        # a sentence naming five or more of the libraries names them all
        for pos, s in sentences_with_pos(text):
            named = libs_named(s)
            if len(named) >= 5:
                count("deps")
                missing = need - named
                if missing:
                    fail(rel, line_of(text, pos), "deps", short(s),
                         "leaves out %s (cmake/joules.pc.in)" % ", ".join(sorted(missing)))
            tnamed = set(re.findall(r"\b(\w+::\w+)\b", s)) & (targets | {"joules::joules"})
            tnamed.discard("joules::joules")
            if len(tnamed) >= 3:
                count("deps")
                missing = targets - tnamed
                if missing:
                    fail(rel, line_of(text, pos), "deps", short(s),
                         "leaves out the targets %s (%s)" % (", ".join(sorted(missing)), dep_rel))
        # a table of the libraries
        for line, head, rows in tables(text):
            if not head or head[0].lower() not in ("library", "libraries", "dependency"):
                continue
            count("deps")
            named = set()
            for _, cells in rows:
                if cells and "optional" not in cells[0].lower():
                    named |= libs_named(cells[0])
            if named != need:
                bits = []
                if need - named:
                    bits.append("leaves out %s" % ", ".join(sorted(need - named)))
                if named - need:
                    bits.append("names %s, not linked" % ", ".join(sorted(named - need)))
                fail(rel, line, "deps", "the table of libraries",
                     "; ".join(bits) + " (cmake/joules.pc.in)")
        # joules.pc's lines quoted
        for m in re.finditer(r"`(Requires(?:\.private)?):\s*([^`]*)`", text):
            count("deps")
            quoted = m.group(2).split()
            if quoted != pc_req[m.group(1)]:
                fail(rel, line_of(text, m.start()), "deps", "`%s: %s`" % (m.group(1), " ".join(quoted)),
                     "cmake/joules.pc.in has `%s: %s`" % (m.group(1), " ".join(pc_req[m.group(1)])))


def header_comments_cmake(text):
    return "\n".join(re.sub(r"^[^#]*#?", "", l) if "#" in l else "" for l in text.split("\n"))


def short(s):
    s = " ".join(s.split())
    return '"%s"' % (s if len(s) <= 70 else s[:67] + "...")


# ---------------------------------------------------------------- file map


def src_files(root):
    out = set()
    for d, dirs, files in os.walk(os.path.join(root, "src")):
        dirs[:] = [x for x in dirs if x != "__pycache__"]
        for f in files:
            if f.endswith((".c", ".h", ".py")):
                out.add(os.path.relpath(os.path.join(d, f), root))
    return out


def check_map(root):
    rel = "docs/architecture.md"
    text = markdown_prose(read(os.path.join(root, rel)))
    m = re.search(r"(?m)^## File map\s*$", text)
    if not m:
        count("map")
        fail(rel, 1, "map", "the file map", 'no section "## File map"')
        return
    end = re.search(r"(?m)^## ", text[m.end():])
    body_end = m.end() + end.start() if end else len(text)
    section = text[:body_end]
    listed = {}
    for tline, head, rows in tables(section):
        if tline < line_of(text, m.start()):
            continue
        hl = [h.lower() for h in head]
        if "file" not in hl:
            continue
        fcol = hl.index("file")
        fold = hl.index("folder") if "folder" in hl else None
        folder = None
        for line, cells in rows:
            if fold is not None and fold < len(cells) and cells[fold].strip("`* "):
                folder = cells[fold].strip("`* ")
            if fcol >= len(cells):
                continue
            for f in re.findall(r"`([^`]+)`", cells[fcol]):
                if folder is None:
                    fail(rel, line, "map", "`%s`" % f, "row without a folder")
                    continue
                p = os.path.normpath(os.path.join(folder, f))
                count("map")
                if p in listed:
                    fail(rel, line, "map", "`%s`" % p, "listed twice (also line %d)" % listed[p])
                listed.setdefault(p, line)
                if not os.path.isfile(os.path.join(root, p)):
                    fail(rel, line, "map", "`%s`" % p, "no such file in src/: remove the row")
    head_line = line_of(text, m.start())
    for p in sorted(src_files(root) - set(listed)):
        count("map")
        fail(rel, head_line, "map", "`%s`" % p,
             "file of src/ with no row in the file map: add a row to the table of %s"
             % os.path.dirname(p))


# ------------------------------------------------------------------ median


def prose_sentences(text):
    text = markdown_prose(text)
    text = re.sub(r"(?m)^\|.*$", "", text)          # tables
    text = re.sub(r"(?m)^#.*$", "", text)           # headings
    text = re.sub(r"(?m)^\s*[-*]\s+|^\s*\d+\.\s+", "\n", text)  # list items
    out = []
    for pos, s in sentences_with_pos(text):
        words = re.findall(r"\S+", s)
        words = [w for w in words if re.search(r"[A-Za-z0-9]", w)]
        if words:
            out.append((pos, len(words)))
    return out


def median_words(path):
    lens = [n for _, n in prose_sentences(read(path))]
    return (statistics.median(lens) if lens else 0), len(lens)


def check_median(root):
    rel = "docs/architecture.md"
    med, n = median_words(os.path.join(root, rel))
    count("median")
    if med > MEDIAN_MAX:
        fail(rel, 1, "median", "median sentence length %g words (%d sentences)" % (med, n),
             "over %d" % MEDIAN_MAX)
    return med, n


# -------------------------------------------------------------------- main


def main(argv):
    if len(argv) < 2:
        sys.stderr.write("usage: check_docs.py ROOT [--quiet] [--median FILE]\n")
        return 2
    root = argv[1]
    if "--median" in argv:
        med, n = median_words(argv[argv.index("--median") + 1])
        print("median %g words over %d sentences" % (med, n))
        return 0
    srcs = sources(root)
    tree = Tree(root)
    for rel, text in srcs:
        check_paths(root, rel, text)
        check_places(tree, rel, text)
        if rel.endswith(".md") or rel.startswith("include/"):
            check_sections(root, rel, text)
    for rel, text in src_comments(root):
        check_paths(root, rel, text)
        check_sections(root, rel, text)
    check_deps(root, srcs)
    check_map(root)
    med, n = check_median(root)
    for f in failures:
        print(f)
    total = sum(counts.values())
    print("style_docs: %d claims checked (%s); architecture.md median %g words over %d sentences; %d false"
          % (total, ", ".join("%s %d" % (k, counts[k]) for k in sorted(counts)), med, n, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
