#!/bin/sh
# joules verify re-runs only what it understands (docs/security.md,
# "verify"): a document's command is parsed with the command's own option
# table; every output in every spelling goes to the scratch folder, --force
# is never passed, and a command or option verify cannot confine (import
# --into, report --gnuplot, --allow-external-storage, verify itself, an
# unknown option) is refused with the reason, exit 3; the scratch folder is
# removed on every way out, an interrupt too.
#   verify_confine.sh JOULES SOURCE_DIR PYTHON HOLD_SHIM
set -u
J=$1 SRC=$2 PY=$3 SHIM=$4
T=$(mktemp -d)
trap 'chmod -R u+w "$T"; rm -rf "$T"' EXIT
cp -r "$SRC/traces" "$T/" && chmod -R u+w "$T/traces"
cd "$T" || exit 1
mkdir scratch
export TMPDIR="$T/scratch" # verify's scratch folders: none may stay
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# expect RC DOC PATTERN: verify DOC exits RC (within 120 s) and prints PATTERN
expect() {
    timeout 120 "$J" verify "$2" >out.txt 2>err.txt
    rc=$?
    [ "$rc" = "$1" ] || bad "verify $2 exited $rc, expected $1: $(cat out.txt err.txt | head -5)"
    if [ -n "${3:-}" ] && ! grep -q -- "$3" out.txt err.txt; then
        bad "verify $2: no '$3' in: $(head -5 out.txt err.txt)"
    fi
    [ -z "$(ls -A scratch)" ] || bad "verify $2 left its scratch folder: $(ls scratch)"
}
# craft DOC NEW JSON-ARRAY: a copy of DOC whose provenance names another command
craft() {
    "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); d["provenance"]["command"]=json.loads(sys.argv[3]); json.dump(d, open(sys.argv[2], "w"))' "$1" "$2" "$3"
}

# 1. --csv=FILE --force: the victim file is never written
echo precious >victim.csv
"$J" summarize --json --csv=victim.csv --force traces/ >d1.json || bad "summarize --csv= failed"
echo precious >victim.csv
expect 0 d1.json "reproduces"
[ "$(cat victim.csv)" = precious ] || bad "--csv=FILE --force: verify wrote the document's CSV"
# an abbreviation of --csv
"$J" summarize --json --cs victim2.csv traces/ >d1b.json || bad "summarize --cs failed"
rm -f victim2.csv
expect 0 d1b.json "reproduces"
[ -e victim2.csv ] && bad "--cs FILE (abbreviated): verify wrote it outside its scratch folder"

# 2. --output=DIR of label, -oDIR of report: not written again
"$J" label --json --output=labdir traces/ >d2.json || bad "label --output= failed"
rm -rf labdir
expect 0 d2.json "reproduces"
[ -e labdir ] && bad "label --output=DIR: verify wrote the labels outside its scratch folder"
"$J" report -orep --no-figures traces/ >/dev/null 2>&1 || bad "report -oDIR failed"
echo mine >rep/marker
expect 0 rep/data/summary.json "reproduces"
[ "$(cat rep/marker 2>/dev/null)" = mine ] || bad "report -oDIR: verify replaced the report folder"

# 3. import --runs-out FILE and -o FILE: neither written again
"$J" import nvidia-smi "$SRC/tests/golden/data/nvsmi-2gpu.csv" --runs auto --runs-out=found.csv \
    --auto-min-run 1 --timezone UTC --set workload=llm --set model=org/m --set task=chat --set precision=bfloat16 \
    --set max_batch_size=8 --power-lag off -o imp.h5 --json --quiet >d3.json ||
    bad "import --runs auto failed: $(head -3 d3.json)"
rm -f found.csv imp.h5
expect 0 d3.json "reproduces"
[ -e found.csv ] && bad "--runs-out=FILE: verify wrote it outside its scratch folder"
[ -e imp.h5 ] && bad "import -o FILE: verify wrote it outside its scratch folder"

# 4. import --into: refused, the trace unchanged
"$PY" - "$SRC" <<'EOF' || exit 1
import sys
sys.path.insert(0, sys.argv[1] + "/tests/malformed")
import tracegen as tg
tg.write_trace("t.h5", [("a", tg.llm_run, {"start_time_unix": 1795000000.0})])
open("profile.json", "wb").write(
    open(sys.argv[1] + "/tests/fuzz/corpus/import_kineto/seed1.json", "rb").read()[1:])
EOF
"$J" import kineto profile.json --into t.h5:a --json --quiet >d4.json || bad "import --into failed"
before=$(cksum <t.h5)
expect 3 d4.json "it changes a trace in place"
grep -q "^verdict: refused" out.txt || bad "import --into: verdict: $(tail -1 out.txt)"
[ "$(cksum <t.h5)" = "$before" ] || bad "import --into: verify changed the trace"

# 5. crafted commands, each refused with its reason (and nothing run)
"$J" summarize --json traces/ >base.json
craft base.json self.json '["joules", "verify", "self.json"]'
expect 3 self.json "which verify does not re-run"
cat >marker.gp <<EOF
#!/bin/sh
touch "$T/ran-it"
EOF
chmod +x marker.gp
craft base.json gp.json "[\"joules\", \"report\", \"--gnuplot=$T/marker.gp\", \"-o\", \"r2\", \"traces/\"]"
expect 3 gp.json "names a program for joules to run"
[ -e ran-it ] && bad "report --gnuplot PROG: verify ran the document's program"
craft base.json ext.json '["joules", "summarize", "--json", "--allow-external-storage", "traces/"]'
expect 3 ext.json "reads data a trace keeps in other files"
craft base.json unk.json '["joules", "summarize", "--json", "--bogus", "traces/"]'
expect 3 unk.json "unknown option '--bogus'"
craft base.json nocmd.json '["joules", "rm", "-rf", "traces"]'
expect 3 nocmd.json "'rm' is not a joules command"
[ -d traces ] || bad "a crafted command removed the traces"
craft base.json json.json '["joules", "summarize", "--json", "--json", "--force", "traces/"]'
expect 0 json.json "reproduces"
grep -q -- "--force" out.txt && bad "--force was passed to the re-run: $(head -1 out.txt)"
"$J" verify --json unk.json >v.json 2>/dev/null
"$PY" -c 'import json,sys; d=json.load(open("v.json")); sys.exit(0 if d["verdict"]=="refused" and "bogus" in d["refused"] else 1)' ||
    bad "verify --json of a refused document: $(head -c 300 v.json)"

# 6. interrupted while the command re-runs: the scratch folder removed
rm -f hold
JOULES_TEST_HOLD_OPEN="$T/hold" JOULES_TEST_HOLD_OPEN_NAME=/h200-qwen3-8b-shape-chat.h5 \
    LD_PRELOAD="$SHIM" ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}verify_asan_link_order=0" \
    "$J" verify base.json >/dev/null 2>err.txt &
pid=$!
n=0
while [ ! -e hold ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
if [ -e hold ]; then
    kill -s TERM $pid # the re-run is held in open() of an input
    wait $pid; rc=$?
    [ $rc -gt 128 ] || bad "SIGTERM: verify exited $rc, expected death by the signal"
    [ -z "$(ls -A scratch)" ] || bad "SIGTERM: the scratch folder stayed: $(ls scratch)"
else
    kill $pid 2>/dev/null
    wait $pid
    bad "the shim never held the re-run"
fi

# every option of every command has a role: a document joules wrote with
# any of its options can be verified (an option added without one is caught)
norole=$("$J" verify --options 2>&1 | grep "does not know")
[ -z "$norole" ] || bad "options without a role in verify: $norole"

[ $fail = 0 ] && echo "ok: outputs in every spelling confined, --force dropped; --into, --gnuplot, --allow-external-storage, verify, unknown options and commands refused (exit 3); scratch removed, also on SIGTERM"
exit $fail
