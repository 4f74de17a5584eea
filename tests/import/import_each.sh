#!/bin/sh
# import_each.sh JOULES SOURCE_DIR WORK — `joules import FORMAT --each -o DIR`:
# one trace per input named after it (a folder's name kept whole, a file's
# extension replaced), a failed input does not stop the others (exit 1),
# two inputs of one name are refused before anything is written (exit 2),
# an existing output is kept without --force; the folder reads as one study.
# Under an MPI build with mpirun present, the same with 3 ranks sharing the
# inputs gives the same files (their summaries compared byte for byte).
set -u
joules=${1:?usage: import_each.sh JOULES SOURCE_DIR WORK}; src=${2:?}; work=${3:?}
rm -rf "$work"; mkdir -p "$work/in/a" "$work/in/b.d"
cd "$src" || exit 1
log=tests/golden/data/nvsmi-2gpu.csv
runs=tests/golden/data/nvsmi-runs.csv
cp "$log" "$work/in/a/node1.csv"
cp "$log" "$work/in/node2.day1.csv"
cp "$log" "$work/in/b.d/node3.csv"
printf 'not,a,log\n1,2,3\n' >"$work/in/broken.csv"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
set -- --runs "$runs" --timezone UTC --set workload=llm --quiet
"$joules" import nvidia-smi "$work/in/a/node1.csv" "$work/in/node2.day1.csv" "$work/in/broken.csv" \
    --each -o "$work/out" "$@" >"$work/out.txt" 2>"$work/out.err"
rc=$?
[ $rc = 1 ] || bad "exit $rc with one broken input (expected 1)"
for f in node1.h5 node2.day1.h5; do [ -f "$work/out/$f" ] || bad "no $work/out/$f"; done
[ -e "$work/out/broken.h5" ] && bad "the broken input left broken.h5"
grep -q "broken.csv" "$work/out.err" || bad "the broken input's error does not name it: $(cat "$work/out.err")"
[ "$(grep -c '^imported ' "$work/out.txt")" = 2 ] || bad "not one 'imported' line per good input: $(cat "$work/out.txt")"
n=$("$joules" summarize --jsonl "$work/out" 2>/dev/null | wc -l)
[ "$n" = 4 ] || bad "the folder does not read as one study of 2 x 2 runs ($n runs)"
# an existing output is kept (exit 2 for it), the other inputs still done
"$joules" import nvidia-smi "$work/in/a/node1.csv" "$work/in/b.d/node3.csv" --each -o "$work/out" "$@" \
    >/dev/null 2>"$work/exists.err"
rc=$?
[ $rc = 1 ] || bad "exit $rc with one existing output (expected 1)"
grep -q "node1.h5 already exists" "$work/exists.err" || bad "no 'already exists': $(cat "$work/exists.err")"
[ -f "$work/out/node3.h5" ] || bad "node3.h5 not written beside the existing node1.h5"
# two inputs of one name: refused, nothing written
"$joules" import nvidia-smi "$work/in/a/node1.csv" "$work/in/a/node1.csv" --each -o "$work/dup" "$@" \
    >/dev/null 2>"$work/dup.err"
rc=$?
[ $rc = 2 ] || bad "exit $rc for two inputs of one name (expected 2)"
[ -n "$(ls "$work/dup" 2>/dev/null)" ] && bad "files written although the names collide"
# a folder's name is kept whole (no extension stripped)
cp -r tests/fixtures/mlenergy-benchmark "$work/in/bench.v1"
"$joules" import mlenergy-benchmark "$work/in/bench.v1/" --each -o "$work/fold" --quiet >/dev/null 2>&1
[ -f "$work/fold/bench.v1.h5" ] || bad "a folder bench.v1/ gave $(ls "$work/fold" 2>/dev/null), not bench.v1.h5"
if [ -n "${JOULES_TEST_MPI:-}" ] && command -v mpirun >/dev/null 2>&1; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
    export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
    for i in 1 2 3 4 5; do cp "$log" "$work/in/day$i.csv"; done
    # exit 1: the RUNS.csv's run "late" lies outside every log
    "$joules" import nvidia-smi "$work"/in/day*.csv --each -o "$work/seq" "$@" >/dev/null 2>&1
    [ $? -le 1 ] || bad "sequential --each failed"
    mpirun -n 3 "$joules" import nvidia-smi "$work"/in/day*.csv --each -o "$work/par" "$@" >/dev/null 2>&1
    [ $? -le 1 ] || bad "mpirun -n 3 --each failed"
    [ "$(ls "$work/seq")" = "$(ls "$work/par")" ] || bad "mpirun wrote other files: $(ls "$work/par")"
    # the figures compared, not the provenance block (the traces' hashes)
    noprov='/^  "provenance": \{$/ {s = 1; next} s && /^  \},?$/ {s = 0; next} !s'
    "$joules" summarize --json "$work/seq" 2>/dev/null | awk "$noprov" | sed "s#$work/seq#D#g" >"$work/seq.json"
    "$joules" summarize --json "$work/par" 2>/dev/null | awk "$noprov" | sed "s#$work/par#D#g" >"$work/par.json"
    cmp -s "$work/seq.json" "$work/par.json" || bad "mpirun's traces summarise differently"
    echo "ok: mpirun -n 3 --each: $(ls "$work/par" | wc -l) traces, the same as one process"
fi
[ $fail = 0 ] && echo "ok: import --each (one trace per input, failures isolated, names checked)"
exit $fail
