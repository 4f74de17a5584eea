#!/bin/sh
# mpi_test.sh JOULES SOURCE_DIR WORK — the same commands under mpirun give
# the single-process output byte for byte (docs/scaling.md): every command
# that reads a study, at 2 and 3 ranks (3 > the files of a folder, so a
# file is cut into parts across ranks), with --workers inside the ranks,
# and with a broken file among the inputs (its error printed once, by rank
# 0, the others still summarised; the exit code the same).
set -u
joules=${1:?usage: mpi_test.sh JOULES SOURCE_DIR WORK}; src=${2:?}; work=${3:?}
command -v mpirun >/dev/null 2>&1 || { echo "SKIP: mpirun is missing (sh .ci/install-deps installs openmpi-bin)"; exit 77; }
# CI runs as root; Open MPI refuses that unless told
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# no network interfaces to probe in a sandbox: shared memory and loopback
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
# shared memory on one host, without the probe of a UCX PML that cannot be
# selected here (~0.22 s a rank)
export OMPI_MCA_pml=ob1
export OMPI_MCA_rmaps_base_oversubscribe=1
# the documents' provenance block (docs/accounting.md) holds the time: fixed
export SOURCE_DATE_EPOCH=1
rm -rf "$work"; mkdir -p "$work/in"
cd "$src" || exit 1
cp traces/h100/*.h5 traces/h200/*.h5 "$work/in/"
# a broken file among the good ones: a trace cut in half
head -c 4000 traces/h100/h100-qwen3-8b-shape-chat.h5 >"$work/in/broken.h5"
fail=0; n=0
# (rank 0's progress lines, "joules CMD: [T s] D/N files summarised on R
# ranks", are MPI's own: a long load prints them; checked below)
msgs() { grep '^joules' "$1" | grep -Ev '^joules [a-z]+: \[[0-9.]+ s\] [0-9]+/[0-9]+ files summarised on' |
    sed -E 's/ in [0-9.]+ s\b/ in T s/g'; }
check() { # name, ranks, joules arguments...
    name=$1; ranks=$2; shift 2
    "$joules" "$@" >"$work/$name.one.out" 2>"$work/$name.one.err"; rc1=$?
    mpirun -n "$ranks" "$joules" "$@" >"$work/$name.mpi.out" 2>"$work/$name.mpi.err"; rc2=$?
    # joules' messages (not the launcher's own lines), times left out
    msgs "$work/$name.one.err" >"$work/$name.one.err2"
    msgs "$work/$name.mpi.err" >"$work/$name.mpi.err2"
    n=$((n + 1))
    if [ $rc1 != $rc2 ]; then
        echo "FAIL: $name: exit $rc1 alone, $rc2 under mpirun -n $ranks"; cat "$work/$name.mpi.err"; fail=1
    elif ! cmp -s "$work/$name.one.out" "$work/$name.mpi.out"; then
        echo "FAIL: $name: output differs under mpirun -n $ranks"
        diff "$work/$name.one.out" "$work/$name.mpi.out" | head -10; fail=1
    elif ! cmp -s "$work/$name.one.err2" "$work/$name.mpi.err2"; then
        echo "FAIL: $name: messages differ under mpirun -n $ranks"
        diff "$work/$name.one.err2" "$work/$name.mpi.err2" | head -10; fail=1
    else
        echo "ok: $name (-n $ranks, exit $rc1, $(wc -c <"$work/$name.one.out") bytes)"
    fi
}
in=$work/in
check summarize-json 2 summarize --json "$in"
check summarize-json-3 3 summarize --json "$in"
check summarize-w2 2 summarize --json --workers 2 "$in"
check summarize-table 3 summarize "$in"
check summarize-one-file 3 summarize --jsonl "$in/h100-qwen3-8b-shape-chat.h5"
check check 2 check "$in"
check frontier 2 frontier --json "$in"
check pick 3 pick --json --slo 'median_itl<=20ms' "$in"
check compare 2 compare --json --by gpu_model --baseline H100 --slo 'median_itl<=20ms' "$in"
check capacity 2 capacity --json --power-budget 1e6 --slo 'median_itl<=20ms' "$in"
check fit 2 fit --json "$in"
check diagnose 3 diagnose --json "$in"
check help 2 summarize --help
# the static byte-balanced shares (JOULES_MPI_STATIC=1) give the same output too
JOULES_MPI_STATIC=1 check static-summarize 3 summarize --json --workers 2 "$in"
JOULES_MPI_STATIC=1 check static-frontier 2 frontier --json "$in"
# units on demand: a study of many files (the bundled traces four times
# over, 16 files and the broken one) at 4 ranks, each rank with 2 workers:
# the same bytes as one process, and every unit claimed by exactly one rank
# (JOULES_MPI_TIMES: each rank's count; the units are the 17 files, none
# above 1/8 of the bytes, so none is cut)
mkdir -p "$work/many"
for k in 1 2 3 4; do for f in "$in"/*.h5; do
    case $f in *broken.h5) continue ;; esac
    # copies, not links: one file reached by two names is read once
    # (docs/security.md, "Folder walks")
    cp "$f" "$work/many/$k-$(basename "$f")"
done; done
cp "$in/broken.h5" "$work/many/"
check many-summarize 4 summarize --json --workers 2 "$work/many"
check many-frontier 3 frontier --json "$work/many"
JOULES_MPI_TIMES=1 mpirun -n 4 -x JOULES_MPI_TIMES "$joules" summarize --json "$work/many" >/dev/null 2>"$work/times.err"
units=$(sed -n 's/^joules-mpi-times: rank [0-9]* of 4: .* units \([0-9]*\)$/\1/p' "$work/times.err" | awk '{s += $1; n++} END {print n " " s}')
n=$((n + 1))
nfiles=$(ls "$work/many" | wc -l)
if [ "$units" = "4 $nfiles" ]; then
    echo "ok: units on demand (4 ranks took $nfiles units in all: $(sed -n 's/.* units //p' "$work/times.err" | tr '\n' ' '))"
else
    echo "FAIL: units on demand: ranks and units claimed '$units', expected '4 $nfiles'"; cat "$work/times.err"; fail=1
fi
# the report: the same files (index.html, data/, figures) written by rank 0 alone
if command -v gnuplot >/dev/null 2>&1; then
    "$joules" report -o "$work/r1" "$in" >/dev/null 2>&1; rc1=$?
    mpirun -n 2 "$joules" report -o "$work/r2" "$in" >/dev/null 2>&1; rc2=$?
    # the documents' provenance names the output folder (-o r1, -o r2): left out
    for f in "$work"/r1/data/*.json "$work"/r2/data/*.json; do
        awk '/^  "provenance": \{$/ {s = 1; next} s && /^  \},?$/ {s = 0; next} !s' "$f" >"$f.np" && mv "$f.np" "$f"
    done
    n=$((n + 1))
    if [ $rc1 != $rc2 ] || ! diff -r "$work/r1" "$work/r2" >"$work/report.diff"; then
        echo "FAIL: report: exit $rc1 / $rc2 or files differ:"; head -10 "$work/report.diff"; fail=1
    else
        echo "ok: report (-n 2, exit $rc1, $(find "$work/r1" -type f | wc -l) files identical)"
    fi
fi
# rank 0's progress counts every rank's files: with a line at every new
# count (JOULES_MPI_PROGRESS=0), the last says all of them, the broken one too
files=$(ls "$in" | wc -l)
JOULES_MPI_PROGRESS=0 mpirun -n 3 -x JOULES_MPI_PROGRESS "$joules" summarize "$in" >/dev/null 2>"$work/progress.err"
last=$(grep -E '^joules summarize: \[[0-9.]+ s\] [0-9]+/[0-9]+ files summarised on 3 ranks$' "$work/progress.err" | tail -1)
n=$((n + 1))
case "$last" in
*"] $files/$files files summarised on 3 ranks") echo "ok: progress ($last)" ;;
*) echo "FAIL: progress: the last line is '$last', not $files/$files files on 3 ranks"; cat "$work/progress.err"; fail=1 ;;
esac
[ $fail -eq 0 ] && echo "mpi: $n commands byte-identical under mpirun"
exit $fail
