#!/bin/sh
# ctest insitu_accuracy: re-derive the in-situ accuracy check of
# docs/attribute.md ("In-situ truth, measured") from tests/data/insitu:
# the truth from the recorded NVML counter (insitu_prepare.py), the
# isolated-loop calibration traces (insitu_trace; busy time as recorded and
# from the loop's window), `joules attribute --by class` with and without
# --calibration on the profiled run, and the
# comparison (insitu_compare.py), which must match expected.json; the same
# for the other shapes (mixed/, cpu/: each its own recording, profiled.h5 and
# expected.json), and the truths and clocks of the clock check and of the
# follow-up runs (clocks/, mixed-rerun/, cpu-rerun/: expected.json).
# usage: insitu_check.sh PYTHON JOULES INSITU_TRACE SOURCE_DIR
# With JOULES_INSITU_WRITE=1 every expected.json is written instead of
# compared (after a change of method on purpose: then update docs/attribute.md).
set -eu
py=$1 joules=$2 tool=$3 src=$4
expect() { # EXPECTED.json: compare, or write it
    if [ "${JOULES_INSITU_WRITE:-}" = 1 ]; then echo "--json $1"; else echo "--expect $1"; fi
}
data=$src/tests/data/insitu dev=$src/tests/device
if ! "$py" -c 'import json, gzip, csv' 2>/dev/null; then
    echo "SKIP: $py (Python 3 with its standard library) missing"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$py" "$dev/insitu_prepare.py" --out "$tmp" "$data/rec-a" "$data/rec-b"
"$tool" "$tmp/loops.txt" "$tmp/loops.h5"
"$tool" "$tmp/loops-window.txt" "$tmp/loops-window.h5"
# `joules attribute` of $d/profiled.h5, d set for each shape
att() { "$joules" attribute "$d/profiled.h5" --class final_norm=norm --json "$@"; }
d=$data
att >"$tmp/equal.json"
att --calibration "$tmp/loops.h5" >"$tmp/calibrated.json"
att --calibration "$tmp/loops-window.h5" >"$tmp/calibrated-window.json"
"$py" "$dev/insitu_compare.py" --truth "$tmp/truth.json" --attribution equal="$tmp/equal.json" \
    --attribution calibrated="$tmp/calibrated.json" \
    --attribution calibrated_window="$tmp/calibrated-window.json" $(expect "$data/expected.json")
for shape in mixed cpu; do
    d=$data/$shape p=$tmp/$shape
    mkdir "$p"
    "$py" "$dev/insitu_prepare.py" --out "$p" "$d"
    "$tool" "$p/loops.txt" "$p/loops.h5"
    "$tool" "$p/loops-window.txt" "$p/loops-window.h5"
    att >"$p/equal.json"
    att --calibration "$p/loops.h5" >"$p/calibrated.json"
    att --calibration "$p/loops-window.h5" >"$p/calibrated-window.json"
    "$py" "$dev/insitu_compare.py" --truth "$p/truth.json" --attribution equal="$p/equal.json" \
        --attribution calibrated="$p/calibrated.json" \
        --attribution calibrated_window="$p/calibrated-window.json" $(expect "$d/expected.json")
done
# the H200 recordings (issue 39, tests/device/insitu_h200.sh): the loops back to
# back (busy as recorded, and from CUDA events around the loop) and, for the
# mixed shape, duty-cycled below the power cap; profiled.h5 holds gpu/ (the
# SM clock at every poll), so the weights are moved to the window's clocks;
# and the decode shape below the cap (64 sequences, long contexts; 12 repeated
# pairs, tests/data/insitu/README.md), where the at-cap check shows the
# identity failing because the card is not capped; and the GPU-bound decode shape
# below the cap (h200-fresh: 128 sequences, long contexts, each GEMM class doubled
# on a copy of its weights, o_proj and qkv also on the same weights: o_proj_l2,
# qkv_l2 in truth.json), and the long mixed shape with the same doubling (h200-longfresh:
# 320 sequences and a 256-token prompt chunk every second step, at the cap)
for shape in h200-mixed h200-cpu h200-decode h200-fresh h200-longfresh; do
    d=$data/$shape p=$tmp/$shape
    mkdir "$p"
    "$py" "$dev/insitu_prepare.py" --out "$p" "$d"
    set -- --attribution equal="$p/equal.json"
    att >"$p/equal.json"
    for loops in loops loops-loop loops-duty; do
        [ -f "$p/$loops.txt" ] || continue
        "$tool" "$p/$loops.txt" "$p/$loops.h5"
        att --calibration "$p/$loops.h5" >"$p/$loops.json"
        case $loops in
        loops) name=calibrated ;;
        loops-loop) name=calibrated_loop ;;
        *) name=calibrated_duty ;;
        esac
        set -- "$@" --attribution "$name=$p/$loops.json"
    done
    # the at-cap check: on the loop at the cap (h200-mixed), and below it (h200-decode)
    cap=""
    [ "$shape" != h200-cpu ] && cap="--at-cap $p/equal.json"
    "$py" "$dev/insitu_compare.py" --truth "$p/truth.json" "$@" $cap $(expect "$d/expected.json")
done
# the H200 long-context mixed shape (tests/device/insitu_long.sh, two calls on one
# warm machine): the profile, loops and 8 repeats in h200-long, 17 more repeats in
# h200-long-truth; each class's truth pools its 25 paired differences; the at-cap
# check (docs/attribute.md) uses the time each doubling adds, also in truth.json
d=$data/h200-long p=$tmp/h200-long
mkdir "$p"
"$py" "$dev/insitu_prepare.py" --out "$p" "$d" "$data/h200-long-truth"
set -- --attribution equal="$p/equal.json"
att >"$p/equal.json"
for loops in loops loops-loop; do
    "$tool" "$p/$loops.txt" "$p/$loops.h5"
    att --calibration "$p/$loops.h5" >"$p/$loops.json"
done
att --calibration "$p/loops.h5" --clock-correction off >"$p/loops-off.json"
att --calibration "$p/loops.h5" --clock-correction busy >"$p/loops-busy.json"
"$py" "$dev/insitu_compare.py" --truth "$p/truth.json" "$@" \
    --attribution calibrated="$p/loops.json" --attribution calibrated_loop="$p/loops-loop.json" \
    --attribution clock_off="$p/loops-off.json" --attribution clock_busy="$p/loops-busy.json" \
    --at-cap "$p/equal.json" $(expect "$d/expected.json")
for rec in clocks mixed-rerun cpu-rerun; do
    mkdir "$tmp/$rec"
    "$py" "$dev/insitu_prepare.py" --out "$tmp/$rec" "$data/$rec"
    "$py" "$dev/insitu_compare.py" --truth "$tmp/$rec/truth.json" $(expect "$data/$rec/expected.json")
done
