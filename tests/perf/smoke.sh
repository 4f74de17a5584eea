#!/bin/sh
# Quick check (ctest label perf) that the benchmark generator writes traces
# that read back: a tiny synthetic set and a tiny tiled set, in gzip and
# Zstandard, read with the raw-read baseline and, when the CLI can summarise,
# with `joules summarize`. Usage: smoke.sh GEN RAWREAD JOULES SOURCE_DIR WORKDIR
set -eu
GEN=$1 RAW=$2 JOULES=$3 SRC=$4 WORK=$5
rm -rf "$WORK"
mkdir -p "$WORK"
for codec in gzip zstd; do
    "$GEN" synth -o "$WORK/synth-$codec" --codec $codec --files 2 --runs 2 --gpus 2 \
        --requests 64 --mean-output 20 --max-batch 8 --chunk-kib 4
    "$GEN" tile -o "$WORK/tile-$codec" --codec $codec --files 1 --runs 3 --chunk-kib 16 \
        "$SRC"/traces/h100/h100-qwen3-1.7b-shape-chat.h5
    out=$("$RAW" --all "$WORK/synth-$codec")
    case "$out" in
    "files 2 runs 4 datasets 92 bytes "*) ;;
    *) echo "synth-$codec: unexpected raw read: $out" >&2; exit 1 ;;
    esac
    out=$("$RAW" "$WORK/tile-$codec")
    case "$out" in
    "files 1 runs 3 datasets 51 bytes "*) ;;
    *) echo "tile-$codec: unexpected raw read: $out" >&2; exit 1 ;;
    esac
done
# Same decoded bytes whatever the codec.
a=$("$RAW" --all "$WORK/synth-gzip") b=$("$RAW" --all "$WORK/synth-zstd")
[ "$a" = "$b" ] || { echo "gzip and zstd differ: $a / $b" >&2; exit 1; }
# The CLI summarises every run, identically with 1 and 2 workers.
"$JOULES" summarize --csv - --workers 1 "$WORK" > "$WORK/all1.csv"
"$JOULES" summarize --csv - --workers 2 "$WORK" > "$WORK/all2.csv"
cmp "$WORK/all1.csv" "$WORK/all2.csv"
rows=$(wc -l < "$WORK/all1.csv")
[ "$rows" -eq 15 ] || { echo "expected 14 runs + header, got $rows lines" >&2; exit 1; }
# And on the bundled real traces. The documents' provenance blocks differ
# (their command lines name --workers): the figures are compared.
summ() { # summarize --json ARGS... without the provenance block
    "$JOULES" summarize --json "$@" | awk '/^  "provenance": \{$/ {s = 1; next} s && /^  \},?$/ {s = 0; next} !s'
}
summ --workers 1 "$SRC/traces" > "$WORK/bundled1.json"
summ --workers 2 "$SRC/traces" > "$WORK/bundled2.json"
cmp "$WORK/bundled1.json" "$WORK/bundled2.json"
# One file shared by workers (split into parts of its runs): the same
# output as one process, for a generated file and a real one.
for f in "$WORK/tile-zstd" "$SRC/traces/h100/h100-qwen3-8b-shape-chat.h5"; do
    summ --workers 1 "$f" > "$WORK/one1.json"
    for w in 2 3; do
        summ --workers $w "$f" > "$WORK/one$w.json"
        cmp "$WORK/one1.json" "$WORK/one$w.json"
    done
done
echo "perf smoke: 1 passed, 0 failed"
