#!/bin/sh
# tests/perf/bench.sh — the joules benchmarks, one command (docs/performance.md).
#
#   sh tests/perf/bench.sh            (or: cmake --build BUILD --target bench)
#
# Builds a Release tree, generates the benchmark traces (once; kept between
# runs), then times every measurement REPEAT times, interleaved (A B C A B C
# ...) so that noise from other load hits all of them alike, takes the median
# and prints markdown tables of ratios measured in this one run, and peak
# memory (maximum resident set size from GNU time). CPU time (user + system,
# workers included) is recorded beside wall time: on a shared machine wall
# time also measures how much of the cores the run was given.
#
# The report ends with one table of every target: the ratio measured, its
# goal and the load average while it was measured. Exit status 1 when a
# target is missed (2 on a setup failure), so a regression shows. Nothing
# here runs under ctest: wall-time ratios belong to this script only.
#
# Environment:
#   JOULES_BENCH_DIR     scratch folder (default /tmp/joules-bench); traces,
#                        logs, results.tsv and the report go here
#   JOULES_BENCH_SCALE   full (default: study set of 2,000 runs, 10^7-sample
#                        runs, a 10 GB set for memory) or quick (small sizes,
#                        a few minutes, for checking the script)
#   JOULES_BENCH_REPEAT  repetitions per measurement (default 5; quick: 3)
#   JOULES_BENCH_BUILD   build folder (default $JOULES_BENCH_DIR/build)
#   JOULES_BENCH_JOBS    parallel build jobs (default 2)
#   JOULES_BENCH_PYTHON  Python with h5py + numpy (default /usr/bin/python3)
#   JOULES_MLENERGY      the ML.ENERGY data set (default ../shared/data/mlenergy-v3)
#   JOULES_BENCH_NVSMI_HOURS  hours of the generated nvidia-smi log (10 Hz, 8 GPUs;
#                        default full: 24, about 7 million rows and 1.4 GB; quick: 1)
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DIR=${JOULES_BENCH_DIR:-/tmp/joules-bench}
SCALE=${JOULES_BENCH_SCALE:-full}
case "$SCALE" in
full) REPEAT=${JOULES_BENCH_REPEAT:-5} ;;
quick) REPEAT=${JOULES_BENCH_REPEAT:-3} ;;
*) echo "bench: JOULES_BENCH_SCALE must be full or quick" >&2; exit 2 ;;
esac
BUILD=${JOULES_BENCH_BUILD:-$DIR/build}
JOBS=${JOULES_BENCH_JOBS:-2}
PY=${JOULES_BENCH_PYTHON:-/usr/bin/python3}
MLE=${JOULES_MLENERGY:-$ROOT/../shared/data/mlenergy-v3}
SETS=$DIR/sets-$SCALE
OUT=$DIR/out
RES=$DIR/results-$SCALE.tsv
mkdir -p "$DIR" "$SETS" "$OUT"
say() { printf '%s\n' "bench: $*" >&2; }

# ---------------------------------------------------------------- build
say "building Release in $BUILD"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DJOULES_BUILD_TESTS=ON > "$DIR/cmake.log" 2>&1 ||
    { cat "$DIR/cmake.log" >&2; exit 1; }
cmake --build "$BUILD" -j "$JOBS" --target joules_cli joules-perf-gen joules-perf-rawread joules-perf-h5zstd \
    > "$DIR/build.log" 2>&1 || { tail -40 "$DIR/build.log" >&2; exit 1; }
JOULES=$BUILD/joules
GEN=$BUILD/tests/perf/joules-perf-gen
RAW=$BUILD/tests/perf/joules-perf-rawread
REF=$ROOT/tests/reference/summary_ref.py
# h5py reads Zstandard through the bench's own decode-only filter plugin
# (tests/perf/perf_h5zstd_plugin.c), or hdf5plugin's where installed
H5PLUG=$BUILD/tests/perf/h5plugins${HDF5_PLUGIN_PATH:+:$HDF5_PLUGIN_PATH}
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "bench: needs GNU time at /usr/bin/time" >&2; exit 1; }

# ---------------------------------------------------------------- traces
# gen NAME ARGS...: generate a set once (a .done file holds the arguments).
gen() {
    name=$1
    shift
    if [ -f "$SETS/$name/.done" ] && [ "$(cat "$SETS/$name/.done")" = "$*" ]; then
        return 0
    fi
    say "generating $name"
    rm -rf "${SETS:?}/$name"
    t0=$(date +%s)
    "$GEN" "$@" -o "$SETS/$name" --prefix "$name"
    printf '%s' "$*" > "$SETS/$name/.done"
    say "  $name: $(($(date +%s) - t0)) s"
}

H100_LLM="$ROOT/traces/h100/h100-qwen3-8b-shape-chat.h5 $ROOT/traces/h100/h100-qwen3-1.7b-shape-chat.h5"
if [ "$SCALE" = full ]; then
    STUDY_FILES=200 LONG_FILES=4 LONG_REQ=100000 HUGE_GB=10
else
    STUDY_FILES=20 LONG_FILES=2 LONG_REQ=10000 HUGE_GB=1
fi
# small: ~10 MB decoded, 16 runs of 8 GPUs
gen small-gzip synth --codec gzip --files 4 --runs 4 --gpus 8 --requests 500 --seed 11
# study: 2,000 runs (quick: 200) tiled from the real H100 LLM runs, 10 a file
# shellcheck disable=SC2086
gen study-gzip tile --codec gzip --files $STUDY_FILES --runs 10 $H100_LLM
# shellcheck disable=SC2086
gen study-zstd tile --codec zstd --files $STUDY_FILES --runs 10 $H100_LLM
# long: one run a file, 8 GPUs, 10^5 requests, ~10^7 ITL samples
gen long-gzip synth --codec gzip --files $LONG_FILES --runs 1 --gpus 8 --requests $LONG_REQ \
    --mean-output 83 --seed 7
gen long-zstd synth --codec zstd --files $LONG_FILES --runs 1 --gpus 8 --requests $LONG_REQ \
    --mean-output 83 --seed 7

# decoded bytes of a set: all datasets / the datasets the summary needs
decoded() { "$RAW" ${2:-} "$SETS/$1" | awk '{print $NF}'; }
# huge: copies of the long-zstd files until HUGE_GB of decoded data, for
# the memory bound (copy-on-write clones where the file system has them;
# not hard links: a file reached by two names is read once,
# docs/security.md "Folder walks")
huge_need=$((HUGE_GB * 1000000000))
if [ ! -f "$SETS/huge/.done" ] || [ "$(cat "$SETS/huge/.done")" != "$HUGE_GB" ]; then
    say "copying huge ($HUGE_GB GB decoded)"
    rm -rf "$SETS/huge"
    mkdir -p "$SETS/huge"
    per=$(decoded long-zstd --all)
    copies=$(((huge_need + per - 1) / per))
    i=0
    while [ $i -lt "$copies" ]; do
        for f in "$SETS"/long-zstd/*.h5; do
            cp --reflink=auto "$f" "$SETS/huge/c$(printf %03d $i)-$(basename "$f")"
        done
        i=$((i + 1))
    done
    printf '%s' "$HUGE_GB" > "$SETS/huge/.done"
fi

# ---------------------------------------------------------------- timing
# measure SET LABEL CMD...: one timed run; wall seconds and max RSS (KiB) to
# results; stdout to $OUT/SET.LABEL.out
: > "$RES"
measure() {
    set_=$1 label=$2
    shift 2
    rc=0
    t0=$(date +%s%N)
    "$TIME" -f '%M %U %S' -o "$OUT/rss" "$@" > "$OUT/$set_.$label.out" 2> "$OUT/$set_.$label.err" || rc=$?
    t1=$(date +%s%N)
    # exit 1 = some runs failed, others summarised (docs/cli.md): still timed
    if [ $rc -gt 1 ]; then
        say "$set_ $label failed (exit $rc):"
        tail -5 "$OUT/$set_.$label.err" >&2
    fi
    # max RSS (KiB) of the process or its largest child; CPU = user + system
    # of the process and the children it waited for (the workers)
    rss=$(tail -1 "$OUT/rss" | awk '{print $1 + 0}')
    cpu=$(tail -1 "$OUT/rss" | awk '{printf "%.2f", $2 + $3}')
    load=$(cut -d' ' -f1 /proc/loadavg 2> /dev/null || echo -)
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$set_" "$label" "$(echo "$t0 $t1" | awk '{printf "%.4f", ($2-$1)/1e9}')" "${rss:-0}" "$rc" "$cpu" "$load" >> "$RES"
}

have_py() {
    "$PY" -c 'import h5py, numpy' 2> /dev/null
}
# Python reads Zstandard only with an HDF5 plugin for filter 32015
py_zstd() {
    HDF5_PLUGIN_PATH=$H5PLUG "$PY" -c 'import h5py, sys; sys.exit(not h5py.h5z.filter_avail(32015))' 2> /dev/null ||
        "$PY" -c 'import hdf5plugin' 2> /dev/null
}

SETS_TIMED="small-gzip study-gzip study-zstd long-gzip long-zstd"
for s in $SETS_TIMED; do
    printf '%s\t%s\t%s\t%s\n' "$s" size "$(decoded "$s")" "$(decoded "$s" --all)" >> "$RES"
    printf '%s\t%s\t%s\t%s\n' "$s" disk "$(du -sk "$SETS/$s" | cut -f1)" "$(find "$SETS/$s" -name '*.h5' | wc -l)" >> "$RES"
done

say "timing: $REPEAT rounds over $SETS_TIMED"
for s in $SETS_TIMED; do # warm the page cache
    "$RAW" --all "$SETS/$s" > /dev/null
done
r=0
while [ $r -lt "$REPEAT" ]; do
    r=$((r + 1))
    for s in $SETS_TIMED; do
        say "round $r/$REPEAT: $s"
        measure "$s" raw1 "$RAW" "$SETS/$s"
        measure "$s" dec1 "$RAW" --decode "$SETS/$s"
        measure "$s" rawh1 "$RAW" --hdf5 "$SETS/$s"
        measure "$s" rawall1 "$RAW" --all "$SETS/$s"
        measure "$s" j1 "$JOULES" summarize --json --workers 1 "$SETS/$s"
        measure "$s" raw2 "$RAW" --workers 2 "$SETS/$s"
        measure "$s" j2 "$JOULES" summarize --json --workers 2 "$SETS/$s"
        case "$s" in
        *zstd) py_zstd || continue ;;
        esac
        if have_py; then
            # shellcheck disable=SC2046
            measure "$s" py env HDF5_PLUGIN_PATH="$H5PLUG" "$PY" "$REF" $(find "$SETS/$s" -name '*.h5' | sort)
        fi
    done
done

# Agreement: joules with 2 workers must print what it prints with 1, and
# the reference's figures must agree to 1e-6 relative (so it is equal work).
# The document's provenance block (the command line, the time) is left out
# of the comparison: it differs by construction.
noprov() {
    awk '/^  "provenance": \{$/ { skip = 1; next } skip && /^  \},?$/ { skip = 0; next } !skip' "$1"
}
for s in $SETS_TIMED; do
    noprov "$OUT/$s.j1.out" > "$OUT/$s.j1.noprov"
    noprov "$OUT/$s.j2.out" > "$OUT/$s.j2.noprov"
    if cmp -s "$OUT/$s.j1.noprov" "$OUT/$s.j2.noprov"; then same=identical; else same=DIFFERENT; fi
    printf '%s\t%s\t%s\n' "$s" workers_output "$same" >> "$RES"
    if [ -s "$OUT/$s.py.out" ]; then
        agree=$("$PY" "$ROOT/tests/perf/agree.py" --rtol 1e-6 "$OUT/$s.j1.out" "$OUT/$s.py.out" 2>&1 | tail -1)
        printf '%s\t%s\t%s\n' "$s" agree "$agree" >> "$RES"
    fi
done

# Memory against input size: one run each, 1 and 2 workers, the huge set too.
say "memory: huge set ($HUGE_GB GB decoded)"
printf '%s\t%s\t%s\t%s\n' huge size "$(decoded huge)" "$(decoded huge --all)" >> "$RES"
measure huge j1 "$JOULES" summarize --json --workers 1 "$SETS/huge"
measure huge j2 "$JOULES" summarize --json --workers 2 "$SETS/huge"
measure huge raw1 "$RAW" "$SETS/huge"

# ML.ENERGY: Python's json.load of the same model files (the yardstick of
# issue 15), import + frontier + pick + compare + fit, interleaved round by
# round, then report once. Each step runs when its command exists; the
# command lines can be overridden.
if [ -d "$MLE" ]; then
    M=$OUT/mlenergy
    rm -rf "$M"
    mkdir -p "$M"
    IMPORT_CMD=${JOULES_BENCH_IMPORT:-"$JOULES import mlenergy $MLE -o $M/mlenergy.h5 --quiet"}
    FRONTIER_CMD=${JOULES_BENCH_FRONTIER:-"$JOULES frontier --json $M/mlenergy.h5"}
    PICK_CMD=${JOULES_BENCH_PICK:-"$JOULES pick --json $M/mlenergy.h5"}
    COMPARE_CMD=${JOULES_BENCH_COMPARE:-"$JOULES compare --by gpu_model --baseline H100 --json $M/mlenergy.h5"}
    FIT_CMD=${JOULES_BENCH_FIT:-"$JOULES fit --json $M/mlenergy.h5"}
    REPORT_CMD=${JOULES_BENCH_REPORT:-"$JOULES report -o $M/report $M/mlenergy.h5"}
    # *_w2: the reading commands again with --workers 2 (the file's runs
    # split between two processes; docs/performance.md "Scaling")
    STEPS="json_load import frontier pick compare frontier_w2 pick_w2 compare_w2 fit"
    for step in $STEPS report; do
        [ "$step" = json_load ] && continue
        if ! "$JOULES" "${step%_w2}" --help > /dev/null 2>&1; then
            printf '%s\t%s\t%s\n' mlenergy "$step" "not yet available" >> "$RES"
            STEPS=$(echo " $STEPS " | sed "s/ $step / /")
        fi
    done
    step_cmd() {
        case $1 in
        import) cmd=$IMPORT_CMD ;;
        frontier) cmd=$FRONTIER_CMD ;; pick) cmd=$PICK_CMD ;; compare) cmd=$COMPARE_CMD ;;
        frontier_w2) cmd="$FRONTIER_CMD --workers 2" ;; pick_w2) cmd="$PICK_CMD --workers 2" ;;
        compare_w2) cmd="$COMPARE_CMD --workers 2" ;; fit) cmd=$FIT_CMD ;; report) cmd=$REPORT_CMD ;;
        esac
    }
    "$PY" -c 'import json' # warm
    i=0
    while [ $i -lt "$REPEAT" ]; do
        i=$((i + 1))
        say "ML.ENERGY round $i/$REPEAT"
        for step in $STEPS; do
            step_cmd "$step"
            [ "$step" = import ] && rm -f "$M/mlenergy.h5"
            if [ "$step" = json_load ]; then
                # shellcheck disable=SC2086
                measure mlenergy json_load $PY -c 'import json, sys; [json.load(open(f)) for f in sys.argv[1:]]' "$MLE"/models/*.json
                continue
            fi
            # shellcheck disable=SC2086
            measure mlenergy "$step" $cmd
        done
    done
    # the report against the same report without drawing (target: <= 3x,
    # docs/report.md "Speed and weight"), interleaved, REPEAT rounds; then
    # its weight: the page and the directory
    if echo " $STEPS " | grep -q ' import ' && "$JOULES" report --help > /dev/null 2>&1; then
        i=0
        while [ $i -lt "$REPEAT" ]; do
            i=$((i + 1))
            rm -rf "$M/report"
            # shellcheck disable=SC2086
            measure mlenergy report_nofig $REPORT_CMD --no-figures
            rm -rf "$M/report"
            # shellcheck disable=SC2086
            measure mlenergy report $REPORT_CMD
        done
        if [ -f "$M/report/index.html" ]; then
            printf '%s\t%s\t%s\n' mlenergy report_index_bytes "$(wc -c < "$M/report/index.html" | tr -d ' ')" >> "$RES"
            printf '%s\t%s\t%s\n' mlenergy report_files "$(find "$M/report" -type f | wc -l | tr -d ' ')" >> "$RES"
        fi
    fi
fi

# nvidia-smi import: a generated log of 8 GPUs at 10 Hz (made-up numbers),
# `joules import nvidia-smi` (every number parsed, the trace written) against
# pandas.read_csv of the same file on one core (fields split only; values
# with units stay strings). The pandas figure is read_csv alone.
if [ "$SCALE" = full ]; then NV_HOURS=${JOULES_BENCH_NVSMI_HOURS:-24}; else NV_HOURS=${JOULES_BENCH_NVSMI_HOURS:-1}; fi
NV=$SETS/nvsmi-${NV_HOURS}h.csv
if [ ! -f "$NV" ]; then
    say "generating an nvidia-smi log ($NV_HOURS h, 8 GPUs, 10 Hz)"
    "$PY" "$ROOT/tests/perf/gen_nvsmi.py" "$NV.tmp" --gpus 8 --hours "$NV_HOURS" && mv "$NV.tmp" "$NV"
fi
printf '%s\t%s\t%s\t%s\n' nvsmi size "$(wc -c < "$NV")" "$(($(wc -l < "$NV") - 1))" >> "$RES"
cat "$NV" > /dev/null # page cache
i=0
while [ $i -lt "$REPEAT" ]; do
    i=$((i + 1))
    measure nvsmi import "$JOULES" import nvidia-smi "$NV" --timezone UTC --set workload=llm --set model=m --set task=t --set precision=bf16 --set max_batch_size=8 --quiet --force -o "$OUT/nvsmi.h5"
    if "$PY" -c 'import pandas' 2> /dev/null; then
        measure nvsmi pandas taskset -c 0 "$PY" "$ROOT/tests/perf/pandas_csv.py" "$NV"
        # read_csv alone (wall and CPU), as the script printed it
        awk '{print $6, $9}' "$OUT/nvsmi.pandas.out" | while read -r w c; do
            printf '%s\t%s\t%s\t%s\n' nvsmi pandas_read_csv "$w" "$c" >> "$RES"
        done
    fi
done

# ML.ENERGY Benchmark import at scale: one generated results.json of
# JOULES_BENCH_RESULTS_MB (default 100; quick: 20) against Python's json.load
# of the same file (docs/import.md "Why a streaming parser of our own").
MB=${JOULES_BENCH_RESULTS_MB:-100}
[ "$SCALE" = quick ] && MB=${JOULES_BENCH_RESULTS_MB:-20}
MBR=$SETS/mlebench-$MB/run/llm/chat/org/Big-70B/H100/num_gpus+8+max_num_seqs+256
if [ ! -f "$MBR/results.json" ]; then
    say "generating a $MB MB results.json"
    "$PY" "$ROOT/tests/perf/gen_mlenergy_results.py" "$MBR" "$MB" >&2
fi
printf '%s\t%s\t%s\n' mlebench size "$(wc -c < "$MBR/results.json")" >> "$RES"
printf '%s\t%s\t%s\n' mlebench load "$(cut -d' ' -f1-3 /proc/loadavg)" >> "$RES"
cat "$MBR/results.json" > /dev/null
r=0
while [ $r -lt "$REPEAT" ]; do
    r=$((r + 1))
    rm -f "$OUT/mlebench.h5"
    measure mlebench import "$JOULES" import mlenergy-benchmark "$SETS/mlebench-$MB" -o "$OUT/mlebench.h5" --quiet --force
    measure mlebench pyjson "$PY" -c 'import json, sys; json.load(open(sys.argv[1]))' "$MBR/results.json"
done


# The report: tables, then one table of every target with its ratio, the
# goal and the load average; exit status 1 when a target is missed.
rc=0
"$PY" "$ROOT/tests/perf/report.py" --repeat "$REPEAT" --scale "$SCALE" --out "$OUT" "$RES" \
    > "$DIR/report-$SCALE.md" || rc=$?
cat "$DIR/report-$SCALE.md"
exit $rc
