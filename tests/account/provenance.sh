#!/bin/sh
# The provenance block: every joules.*/N document of a command carries one;
# two runs under the same SOURCE_DATE_EPOCH give identical bytes (the block
# included); the inputs are the trace files with their sizes and SHA-256
# (sha256sum agrees); an output (-o, --csv) is never listed as an input; an
# import keeps its sources' hashes in the trace's @provenance.
#   provenance.sh JOULES SOURCE_DIR SHARED_DIR
set -u
J=$1 SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$SRC" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
SOURCE_DATE_EPOCH=86400 "$J" summarize --json --force --csv "$T/s.csv" traces/ >"$T/a.json"
SOURCE_DATE_EPOCH=86400 "$J" summarize --json --force --csv "$T/s.csv" traces/ >"$T/b.json"
cmp -s "$T/a.json" "$T/b.json" || bad "two runs differ under SOURCE_DATE_EPOCH"
jq -e '.provenance.created == "1970-01-02T00:00:00Z"' "$T/a.json" >/dev/null || bad "created not from SOURCE_DATE_EPOCH"
jq -e '.provenance.schema == "joules.provenance/1" and .provenance.joules.version != null and .provenance.rules.version == "joules.rules/1"' "$T/a.json" >/dev/null || bad "block incomplete"
jq -e '.provenance.command == ["joules","summarize","--json","--force","--csv","'"$T"'/s.csv","traces/"]' "$T/a.json" >/dev/null || bad "command line"
jq -e '[.provenance.inputs[].path] | index("'"$T"'/s.csv") == null' "$T/a.json" >/dev/null || bad "the --csv output listed as an input"
jq -r '.provenance.inputs[] | select(.path | endswith(".h5")) | "\(.sha256)  \(.path)"' "$T/a.json" >"$T/sums"
[ "$(wc -l <"$T/sums")" = 4 ] || bad "expected the 4 trace files as inputs: $(cat "$T/sums")"
sha256sum -c --quiet "$T/sums" || bad "sha256sum disagrees"
jq -r '.provenance.inputs[] | select(.path | endswith(".h5")) | "\(.bytes) \(.path)"' "$T/a.json" | while read -r size path; do
    [ "$(wc -c <"$path")" = "$size" ] || echo "FAIL: size of $path"
done | grep FAIL && fail=1
# the time is the only thing that moves
SOURCE_DATE_EPOCH=0 "$J" summarize --json --force --csv "$T/s.csv" traces/ >"$T/c.json"
[ "$(diff "$T/a.json" "$T/c.json" | grep -c '^[<>]')" = 2 ] || bad "more than the time differs between two epochs"
# the text writer's documents (frontier) carry it too, in sorted place
"$J" frontier --json traces/ >"$T/f.json"
# the inputs are the files read: the 4 traces, not traces/README.md beside them
jq -e '[.provenance.inputs[].path] | length == 4 and all(endswith(".h5"))' "$T/f.json" >/dev/null ||
    bad "frontier's inputs are not the 4 traces it read: $(jq -c '[.provenance.inputs[].path]' "$T/f.json")"
jq -e '(keys_unsorted == keys) and (.provenance | keys_unsorted == keys)' "$T/f.json" >/dev/null || bad "frontier's document keys not sorted"
# an import keeps its sources' hashes in the trace (@provenance)
# (exit 1: the fixture holds a broken results.json on purpose)
"$J" import mlenergy-benchmark tests/fixtures/mlenergy-benchmark -o "$T/b.h5" --quiet >/dev/null 2>&1
[ -f "$T/b.h5" ] || bad "import wrote no trace"
/usr/bin/python3 - "$T/b.h5" <<'PY' || bad "the trace's @provenance"
import hashlib, json, sys, h5py
p = json.loads(h5py.File(sys.argv[1], "r").attrs["provenance"])
assert p["schema"] == "joules.provenance/1" and p["command"][1] == "import", p["command"]
assert p["inputs"], "no inputs"
for i in p["inputs"]:
    assert hashlib.sha256(open(i["path"], "rb").read()).hexdigest() == i["sha256"], i["path"]
PY
# an import lists the files it read, not every argument that names a file:
# a folder holding files named like the format word and the zone's value
mkdir -p "$T/w"
cp tests/golden/data/nvsmi-2gpu.csv "$T/w/gpu.csv"
cp tests/golden/data/nvsmi-runs.csv "$T/w/runs.csv"
: >"$T/w/nvidia-smi"
: >"$T/w/UTC"
echo unrelated >"$T/w/notes.txt"
(cd "$T/w" && "$J" import nvidia-smi gpu.csv --runs runs.csv --timezone UTC --set workload=llm \
    -o out.h5 --quiet >/dev/null 2>&1) # exit 1: the fixture's run "late" is outside the log
[ -f "$T/w/out.h5" ] || bad "the nvidia-smi import wrote no trace"
/usr/bin/python3 - "$T/w/out.h5" <<'PY' || bad "the import's inputs are not the log and RUNS.csv"
import json, sys, h5py
p = json.loads(h5py.File(sys.argv[1], "r").attrs["provenance"])
got = sorted(i["path"] for i in p["inputs"])
assert got == ["gpu.csv", "runs.csv"], got
PY
# import --each: each trace lists its own log, not the ones read before it
cp "$T/w/gpu.csv" "$T/w/gpu2.csv"
(cd "$T/w" && "$J" import nvidia-smi gpu.csv gpu2.csv --each -o "$T/each" --timezone UTC \
    --set workload=llm --set model=m --set task=t --set precision=bf16 --set max_batch_size=1 \
    --set gpu_model=H100 --quiet >/dev/null 2>&1)
/usr/bin/python3 - "$T/each" <<'PY' || bad "import --each: a trace's inputs are not its own log"
import json, sys, h5py
for name, want in (("gpu.h5", ["gpu.csv"]), ("gpu2.h5", ["gpu2.csv"])):
    p = json.loads(h5py.File(sys.argv[1] + "/" + name, "r").attrs["provenance"])
    got = [i["path"] for i in p["inputs"]]
    assert got == want, (name, got)
PY
# summarize on "." hashes the trace it read, not the whole working folder
(cd "$T/w" && "$J" summarize --json . >"$T/w.json" 2>/dev/null)
jq -e '[.provenance.inputs[].path] == ["./out.h5"]' "$T/w.json" >/dev/null ||
    bad "summarize . lists more than the trace: $(jq -c '[.provenance.inputs[].path]' "$T/w.json")"
[ $fail = 0 ] && echo "ok: provenance deterministic under SOURCE_DATE_EPOCH, inputs' SHA-256 = sha256sum, outputs not inputs"
exit $fail
