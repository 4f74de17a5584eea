"""Two studies in one interpreter keep apart (docs/python.md, "Studies and
their state"; docs/library.md, "Contexts"): each joules.Study owns a
context (joules/context.h), so a document made from one lists that study's
traces only, however many other studies were loaded before or after it,
and lists them as the CLI's provenance does."""
import hashlib
import json
import os
import subprocess

from common import JOULES, ROOT, check, done

import joules  # noqa: E402

os.chdir(ROOT)

A = ["traces/h100/h100-qwen3-1.7b-shape-chat.h5", "traces/h100/h100-qwen3-8b-shape-chat.h5"]
B = ["traces/h200"]
B_FILES = ["traces/h200/h200-qwen3-8b-shape-chat.h5"]


def inputs(doc):
    return [i["path"] for i in doc["provenance"]["inputs"]]


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


a = joules.load(A)
doc_a = joules.summarize(a, output="document")
b = joules.load(B)
doc_b = joules.summarize(b, output="document")
doc_a2 = joules.summarize(a, output="document")  # after b was loaded: still a's files only

check(inputs(doc_a) == A, "study a's provenance inputs: %s, want %s" % (inputs(doc_a), A))
check(inputs(doc_b) == B_FILES, "study b's provenance inputs: %s, want %s" % (inputs(doc_b), B_FILES))
check(inputs(doc_a2) == A, "study a after study b: %s, want %s (b's files leaked)" % (inputs(doc_a2), A))
for doc in (doc_a, doc_b):
    for i in doc["provenance"]["inputs"]:
        check(i.get("sha256") == sha256(i["path"]), "%s: sha256 %s is not the file's" % (i["path"], i.get("sha256")))

# the provenance frame of a study made in between is its own too
a_frame = joules.summarize(a)
check(a_frame.attrs["provenance"]["inputs"] == doc_a["provenance"]["inputs"],
      "a's frame provenance differs from a's document: %s" % a_frame.attrs["provenance"]["inputs"])

# the same inputs as the CLI's read log gives for the same command
r = subprocess.run([JOULES, "summarize", "--json"] + A, capture_output=True, text=True)
if check(r.returncode == 0, "joules summarize: %s" % r.stderr):
    cli = json.loads(r.stdout)
    check(inputs(cli) == inputs(doc_a), "CLI inputs %s, module %s" % (inputs(cli), inputs(doc_a)))

# a study that is gone takes its context with it; the next one starts empty
del b
c = joules.load(B)
check(inputs(joules.summarize(c, output="document")) == B_FILES, "a new study after one freed")

done("python_study_context")
