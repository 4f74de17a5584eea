#!/bin/sh
# tests/perf/mpi_scaling.sh — joules under MPI on one machine (docs/scaling.md).
#
#   sh tests/perf/mpi_scaling.sh
#
# Builds a Release tree with -DJOULES_MPI=ON, generates the study set of
# bench.sh (2,000 runs tiled from the real H100 LLM runs, Zstandard; quick:
# 200), and times `joules summarize --json` interleaved (A B C A B C ...):
# one process, 1 rank, 2 ranks, 2 ranks x 2 workers. Prints the median wall
# times, the speed-up of 2 ranks over 1, the efficiency, bytes decoded per
# second per rank, rank 0's serial share (the exchange it waits for is not
# serial; decoding the others' summaries and everything after is), each
# rank's peak memory, and checks the targets of docs/scaling.md.
# Exit 1 when a target is missed. Not a ctest: wall-time ratios belong here.
#
# Environment: JOULES_BENCH_DIR (default /tmp/joules-bench), JOULES_BENCH_SCALE
# (full | quick), JOULES_BENCH_REPEAT (default 5; quick 3), JOULES_BENCH_JOBS,
# JOULES_MPI_BUILD (the Release -DJOULES_MPI=ON tree; default $DIR/build-mpi),
# JOULES_MPI_RANKS (the rank counts timed, default "1 2"; the device machine:
# "1 2 4 8 16"), JOULES_MPI_NO_BUILD=1 (use the tree as it is).
# Units are handed out on demand (docs/scaling.md); the row r2s times 2
# ranks with the static byte-balanced shares of session 10
# (JOULES_MPI_STATIC=1) in the same rounds.
#
# JOULES_MPI_SET=fleet times the fleet set instead (docs/scaling.md, "Fleet"):
# tests/perf/gen_fleet.py writes JOULES_FLEET_GPUS GPUs (default 1000; quick
# 128) x JOULES_FLEET_HOURS hours (default 24; quick 2) as hourly
# query_range answers per node, `joules import prometheus --each` makes one
# trace per node per day (timed too: one process, then 2 ranks), and the
# traces are the study summarised as above.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DIR=${JOULES_BENCH_DIR:-/tmp/joules-bench}
SCALE=${JOULES_BENCH_SCALE:-full}
case "$SCALE" in
full) FILES=200; REPEAT=${JOULES_BENCH_REPEAT:-5} ;;
quick) FILES=20; REPEAT=${JOULES_BENCH_REPEAT:-3} ;;
*) echo "mpi_scaling: JOULES_BENCH_SCALE must be full or quick" >&2; exit 2 ;;
esac
BUILD=${JOULES_MPI_BUILD:-$DIR/build-mpi}
SET=$DIR/sets-$SCALE/study-zstd-mpi
KIND=${JOULES_MPI_SET:-study}
case "$KIND" in
study) ;;
fleet)
    [ "$SCALE" = quick ] && { gpus=128; hours=2; } || { gpus=1000; hours=24; }
    GPUS=${JOULES_FLEET_GPUS:-$gpus}; HOURS=${JOULES_FLEET_HOURS:-$hours}
    FLEET=$DIR/fleet-${GPUS}x${HOURS}h; SET=$FLEET/traces ;;
*) echo "mpi_scaling: JOULES_MPI_SET must be study or fleet" >&2; exit 2 ;;
esac
OUT=$DIR/mpi-out
mkdir -p "$DIR" "$OUT"
say() { printf '%s\n' "mpi_scaling: $*" >&2; }
command -v mpirun >/dev/null || { say "mpirun is missing (sh .ci/install-deps)"; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
# One host: ranks talk through shared memory (the vader BTL of the ob1
# PML). Left to itself, Open MPI 4.1 first tries the UCX PML, which cannot
# be selected on this machine, and falls back to ob1 after ~0.22 s of
# MPI_Init per rank, paid by every job whatever its size (docs/scaling.md,
# "Start-up"). JOULES_MPI_PML_DEFAULT=1 times that default instead.
[ -n "${JOULES_MPI_PML_DEFAULT:-}" ] || export OMPI_MCA_pml=ob1

if [ -z "${JOULES_MPI_NO_BUILD:-}" ]; then
    say "building Release with MPI in $BUILD"
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DJOULES_MPI=ON >"$DIR/mpi-cmake.log" 2>&1 ||
        { cat "$DIR/mpi-cmake.log" >&2; exit 2; }
    cmake --build "$BUILD" -j "${JOULES_BENCH_JOBS:-2}" --target joules_cli joules-perf-gen \
        >"$DIR/mpi-build.log" 2>&1 || { tail -30 "$DIR/mpi-build.log" >&2; exit 2; }
fi
J=$BUILD/joules
if [ "$KIND" = fleet ] && [ ! -f "$FLEET/.done" ]; then
    say "generating $FLEET ($GPUS GPUs x $HOURS h, node files)"
    rm -rf "$FLEET"
    python3 "$ROOT/tests/perf/gen_fleet.py" -o "$FLEET" --gpus "$GPUS" --hours "$HOURS" --layout nodes
    touch "$FLEET/.done"
fi
if [ "$KIND" = fleet ] && [ ! -f "$SET/.done" ]; then
    rm -rf "$SET" "$FLEET/each-1"
    SETS="--set workload=llm --set model=org/m --set task=chat --set precision=bfloat16 --set max_batch_size=64"
    inputs=$(du -sb "$FLEET/nodes" | cut -f1)
    t0=$(date +%s.%N)
    /usr/bin/time -f joules-rss-kib:%M "$J" import prometheus "$FLEET"/nodes/* --runs-by pod --each \
        -o "$FLEET/each-1" $SETS --quiet >/dev/null 2>"$OUT/each-1.err"
    t1=$(date +%s.%N)
    mpirun -n 2 /usr/bin/time -f joules-rss-kib:%M "$J" import prometheus "$FLEET"/nodes/* --runs-by pod \
        --each -o "$SET" $SETS --quiet >/dev/null 2>"$OUT/each-2.err"
    t2=$(date +%s.%N)
    # the same traces (their provenance's time aside): the same summaries
    "$J" summarize --jsonl "$FLEET/each-1" | sed "s|$FLEET/each-1|DIR|g" >"$OUT/each-1.jsonl"
    "$J" summarize --jsonl "$SET" | sed "s|$SET|DIR|g" >"$OUT/each-2.jsonl"
    cmp -s "$OUT/each-1.jsonl" "$OUT/each-2.jsonl" || { say "FAIL: the traces of 2 ranks differ"; exit 1; }
    rm -rf "$FLEET/each-1"
    e1=$(echo "$t1 - $t0" | bc -l); e2=$(echo "$t2 - $t1" | bc -l)
    printf '\n## import --each of %s node files (%s bytes of query_range JSON), load %s\n\n' \
        "$(ls "$FLEET/nodes" | wc -l)" "$inputs" "$(cut -d' ' -f1 /proc/loadavg)"
    printf -- '- one process: %.2f s (%.1f MB/s of JSON), peak RSS %s KiB\n' "$e1" "$(echo "$inputs / $e1 / 1000000" | bc -l)" \
        "$(grep -h joules-rss-kib "$OUT/each-1.err" | sed 's/.*://')"
    printf -- '- mpirun -n 2: %.2f s (%.2fx), peak RSS per rank %s KiB\n' "$e2" "$(echo "$e1 / $e2" | bc -l)" \
        "$(grep -h joules-rss-kib "$OUT/each-2.err" | sed 's/.*://' | sort -n | tail -1)"
    touch "$SET/.done"
fi
if [ "$KIND" = study ] && [ ! -f "$SET/.done" ]; then
    say "generating $SET ($FILES files x 10 runs)"
    rm -rf "$SET"
    "$BUILD/tests/perf/joules-perf-gen" tile --codec zstd --files $FILES --runs 10 \
        "$ROOT/traces/h100/h100-qwen3-8b-shape-chat.h5" "$ROOT/traces/h100/h100-qwen3-1.7b-shape-chat.h5" \
        -o "$SET" --prefix study-zstd
    touch "$SET/.done"
fi
bytes=$(du -sb "$SET" | cut -f1)

# one timed command: NAME CMD...; wall seconds appended to OUT/NAME.t,
# per-rank times (JOULES_MPI_TIMES) and peak RSS kept from the last run
timed() {
    name=$1; shift
    t0=$(date +%s.%N)
    JOULES_MPI_TIMES=1 "$@" >"$OUT/$name.json" 2>"$OUT/$name.err"
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc -l >>"$OUT/$name.t"
}
RANKS=${JOULES_MPI_RANKS:-1 2}
case " $RANKS " in *" 1 "*) ;; *) RANKS="1 $RANKS" ;; esac
rm -f "$OUT"/*.t
RSS="/usr/bin/time -f joules-rss-kib:%M"
NAMES=one
for r in $RANKS; do NAMES="$NAMES r$r"; done
case " $RANKS " in *" 2 "*) NAMES="$NAMES r2s r2w2" ;; esac
for i in $(seq "$REPEAT"); do
    say "round $i of $REPEAT"
    timed one $RSS "$J" summarize --json --workers 1 "$SET"
    for r in $RANKS; do
        timed "r$r" mpirun -n "$r" -x JOULES_MPI_TIMES $RSS "$J" summarize --json "$SET"
    done
    case " $RANKS " in *" 2 "*)
        JOULES_MPI_STATIC=1 timed r2s mpirun -n 2 -x JOULES_MPI_TIMES -x JOULES_MPI_STATIC $RSS "$J" summarize --json "$SET"
        timed r2w2 mpirun -n 2 -x JOULES_MPI_TIMES $RSS "$J" summarize --json --workers 2 "$SET" ;;
    esac
done
# the same document but for the provenance's command line and time
same() {
    python3 -c 'import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for d in (a, b):
    for k in ("command", "created"):
        d.get("provenance", {}).pop(k, None)
sys.exit(a != b)' "$1" "$2"
}
for n in $NAMES; do
    [ "$n" = one ] && continue
    same "$OUT/one.json" "$OUT/$n.json" || { say "FAIL: $n's output differs from one process"; exit 1; }
done
med() { sort -n "$OUT/$1.t" | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
r1=$(med r1)
cores=$(nproc)
printf '\n## joules under MPI: %s %s set, %s files, %s bytes, %s cores, load %s, pml %s\n\n' "$SCALE" "$KIND" "$(ls "$SET" | grep -c '\.h5$')" "$bytes" "$cores" "$(cut -d' ' -f1 /proc/loadavg)" "${OMPI_MCA_pml:-default}"
printf '| run | median wall (s) | vs 1 rank | serial share (rank 0 after the exchange / 1 rank) | Amdahl s from the speed-up | rank shares min-max (s) | units per rank min-max | peak RSS per rank max (MiB) |\n|---|---|---|---|---|---|---|---|\n'
for n in $NAMES; do
    t=$(med "$n")
    sp=$(echo "$r1 / $t" | bc -l)
    N=$(echo "$n" | sed -n 's/^r\([0-9]*\).*/\1/p')
    after=$(sed -n 's/.*rank 0 of [0-9]*: .*after \([0-9.]*\) s.*/\1/p' "$OUT/$n.err")
    shares=$(sed -n 's/.*rank [0-9]* of [0-9]*: share \([0-9.]*\) s.*/\1/p' "$OUT/$n.err" | sort -n | awk 'NR == 1 {a = $1} {b = $1} END {if (NR) printf "%.3f-%.3f", a, b; else printf "-"}')
    units=$(sed -n 's/.* units \([0-9]*\)$/\1/p' "$OUT/$n.err" | sort -n | awk 'NR == 1 {a = $1} {b = $1} END {if (NR) printf "%d-%d", a, b; else printf "-"}')
    rss=$(grep -h joules-rss-kib "$OUT/$n.err" | sed 's/.*://' | sort -n | tail -1)
    ser=-; am=-
    [ -n "$after" ] && ser=$(printf '%.2f %%' "$(echo "$after / $r1 * 100" | bc -l)")
    if [ -n "$N" ] && [ "$N" -gt 1 ]; then am=$(printf '%.4f' "$(echo "($N / $sp - 1) / ($N - 1)" | bc -l)"); fi
    printf '| %s | %.3f | %.2fx | %s | %s | %s | %s | %.1f |\n' "$n" "$t" "$sp" "$ser" "$am" "$shares" "$units" "$(echo "${rss:-0} / 1024" | bc -l)"
done
miss=0
target() { if [ "$(echo "$2" | bc -l)" = 1 ]; then echo "- met: $1"; else echo "- NOT met: $1"; miss=1; fi; }
echo
case " $RANKS " in *" 2 "*)
    r2=$(med r2)
    speed=$(echo "$r1 / $r2" | bc -l)
    after=$(sed -n 's/.*rank 0 of 2: .*after \([0-9.]*\) s.*/\1/p' "$OUT/r2.err")
    serial=$(echo "$after / $r1" | bc -l)
    rss=$(grep -h joules-rss-kib "$OUT/r2.err" | sed 's/.*://' | sort -n | tail -1)
    printf -- '- 2 ranks, per round (r1 / r2): %s\n' "$(paste "$OUT/r1.t" "$OUT/r2.t" | awk '{printf "%.2f ", $1 / $2}')"
    printf -- '- 2 ranks, static shares, per round (r1 / r2s): %s\n' "$(paste "$OUT/r1.t" "$OUT/r2s.t" | awk '{printf "%.2f ", $1 / $2}')"
    target "2 ranks >= 1.8x one rank ($(printf %.2f "$speed")x)" "$speed >= 1.8"
    target "rank 0's serial share <= 5 % ($(printf %.2f "$(echo "$serial * 100" | bc -l)") %)" "$serial <= 0.05"
    target "memory per rank < 64 MiB ($rss KiB)" "$rss < 65536" ;;
esac
exit $miss
