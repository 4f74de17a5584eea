#!/bin/sh
# tests/perf/fleet_bench.sh — `joules import prometheus` of one fleet-wide
# hour against Python's json.load of the same file alone (docs/scaling.md,
# "Fleet"; issue 29's target: faster, in bounded memory).
#
#   sh tests/perf/fleet_bench.sh [JOULES]
#
# tests/perf/gen_fleet.py writes JOULES_FLEET_GPUS GPUs (default 1000) x 1
# hour at 1 s as one query_range answer (both DCGM metrics, every GPU);
# then, interleaved JOULES_BENCH_REPEAT times (default 3): json.load of the
# file (nothing else), and the import into a trace with --runs-by pod (parse,
# cut, write). Prints the median wall times, their ratio and each one's peak
# RSS (/usr/bin/time), with the load average: on a shared machine only the
# ratio means something. Exit 1 when joules is not faster or its memory is
# not below the file's size. JOULES: the program (default: the Release
# build of mpi_scaling.sh, $JOULES_BENCH_DIR/build-mpi/joules).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DIR=${JOULES_BENCH_DIR:-/tmp/joules-bench}
J=${1:-${JOULES_MPI_BUILD:-$DIR/build-mpi}/joules}
GPUS=${JOULES_FLEET_GPUS:-1000}
REPEAT=${JOULES_BENCH_REPEAT:-3}
PY=${JOULES_BENCH_PYTHON:-python3}
FLEET=$DIR/fleet-${GPUS}x1h-fleet
OUT=$DIR/fleet-out
say() { printf '%s\n' "fleet_bench: $*" >&2; }
[ -x "$J" ] || { say "no joules at $J (sh tests/perf/mpi_scaling.sh builds one, or give its path)"; exit 2; }
mkdir -p "$OUT"
if [ ! -f "$FLEET/.done" ]; then
    say "generating $FLEET ($GPUS GPUs x 1 h)"
    rm -rf "$FLEET"
    "$PY" "$ROOT/tests/perf/gen_fleet.py" -o "$FLEET" --gpus "$GPUS" --hours 1 --layout fleet
    touch "$FLEET/.done"
fi
F=$(ls "$FLEET"/fleet/*.json | head -1)
bytes=$(stat -c %s "$F")
rm -f "$OUT"/*.t
TIME="/usr/bin/time -f %e:%M"
for i in $(seq "$REPEAT"); do
    say "round $i of $REPEAT"
    $TIME "$PY" -c 'import json, sys; json.load(open(sys.argv[1]))' "$F" 2>"$OUT/py.err"
    tail -1 "$OUT/py.err" >>"$OUT/py.t"
    $TIME "$J" import prometheus "$F" --runs-by pod -o "$OUT/fleet.h5" --force --quiet \
        --set workload=llm --set model=org/m --set task=chat --set precision=bfloat16 \
        --set max_batch_size=64 2>"$OUT/j.err"
    tail -1 "$OUT/j.err" >>"$OUT/j.t"
done
med() { cut -d: -f"$2" "$OUT/$1.t" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
py=$(med py 1); j=$(med j 1); pyrss=$(med py 2); jrss=$(med j 2)
printf '\n## one fleet-wide hour: %s GPUs, %s bytes of query_range JSON, load %s\n\n' "$GPUS" "$bytes" \
    "$(cut -d' ' -f1 /proc/loadavg)"
printf '| | median wall (s) | peak RSS (MiB) |\n|---|---|---|\n'
printf '| python json.load alone | %.2f | %.0f |\n' "$py" "$(echo "$pyrss / 1024" | bc -l)"
printf '| joules import prometheus (to a trace) | %.2f | %.0f |\n' "$j" "$(echo "$jrss / 1024" | bc -l)"
printf '\n- json.load / joules: %.2fx; joules reads %.0f MB/s\n' "$(echo "$py / $j" | bc -l)" \
    "$(echo "$bytes / $j / 1000000" | bc -l)"
miss=0
[ "$(echo "$j < $py" | bc -l)" = 1 ] || { echo "- NOT met: faster than json.load"; miss=1; }
[ "$(echo "$jrss * 1024 < $bytes" | bc -l)" = 1 ] || { echo "- NOT met: memory below the file's size"; miss=1; }
exit $miss
