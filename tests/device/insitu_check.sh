#!/bin/sh
# ctest insitu_accuracy: re-derive the in-situ accuracy check of
# docs/attribute.md ("In-situ truth, measured") from tests/data/insitu:
# the truth from the recorded NVML counter (insitu_prepare.py), the
# isolated-loop calibration trace (insitu_trace), `joules attribute --by
# class` with and without --calibration on the profiled run, and the
# comparison (insitu_compare.py), which must match expected.json.
# usage: insitu_check.sh PYTHON JOULES INSITU_TRACE SOURCE_DIR
set -eu
py=$1 joules=$2 tool=$3 src=$4
data=$src/tests/data/insitu dev=$src/tests/device
if ! "$py" -c 'import json, gzip, csv' 2>/dev/null; then
    echo "SKIP: $py (Python 3 with its standard library) missing"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$py" "$dev/insitu_prepare.py" --out "$tmp" "$data/rec-a" "$data/rec-b"
"$tool" "$tmp/loops.txt" "$tmp/loops.h5"
"$joules" attribute "$data/profiled.h5" --class final_norm=norm --json >"$tmp/equal.json"
"$joules" attribute "$data/profiled.h5" --class final_norm=norm --calibration "$tmp/loops.h5" \
    --json >"$tmp/calibrated.json"
"$py" "$dev/insitu_compare.py" --truth "$tmp/truth.json" --equal "$tmp/equal.json" \
    --calibrated "$tmp/calibrated.json" --expect "$data/expected.json"
