#!/bin/sh
# tests/perf/floor.sh — each rank against the decode floor (docs/performance.md,
# "The decode floor per rank"): CPU time (perf stat task-clock, children
# included) of the decode floor (joules-perf-rawread --decode) and of one or
# more joules binaries running `summarize --json --workers 1`, in ROUNDS
# interleaved rounds (floor, A, B, ... then again), so load from elsewhere
# falls on all of them alike. Prints per set the median CPU of each, the
# ratio of the medians and the median of the per-round ratios.
#
#   sh tests/perf/floor.sh RAWREAD SETS_DIR JOULES [JOULES...]
#
# SETS_DIR holds one folder per set (e.g. study-zstd, long1-zstd: what
# bench.sh's generator writes). Environment: ROUNDS (default 5), SETS (the
# folders to time, default every folder of SETS_DIR), ARGS (default
# "summarize --json --workers 1").
set -eu
[ $# -ge 3 ] || { echo "usage: floor.sh RAWREAD SETS_DIR JOULES [JOULES...]" >&2; exit 2; }
RAW=$1
DIR=$2
shift 2
ROUNDS=${ROUNDS:-5}
ARGS=${ARGS:-summarize --json --workers 1}
SETS=${SETS:-$(cd "$DIR" && ls -d */ | tr -d /)}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export SOURCE_DATE_EPOCH=1

cpu_ms() { # command... -> CPU ms of it and its children
    if command -v perf >/dev/null 2>&1; then
        perf stat -x, -e task-clock -o "$TMP/ps" "$@" >/dev/null 2>"$TMP/err" || { cat "$TMP/err" >&2; return 1; }
        awk -F, '/task-clock/ {printf "%.3f\n", $1}' "$TMP/ps"
    else
        /usr/bin/time -f '%U %S' -o "$TMP/ps" "$@" >/dev/null 2>"$TMP/err" || { cat "$TMP/err" >&2; return 1; }
        awk '{printf "%.3f\n", ($1 + $2) * 1000}' "$TMP/ps"
    fi
}

median() { sort -g | awk '{a[NR] = $1} END {if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for set in $SETS; do
    : >"$TMP/floor"
    i=0
    for j in "$@"; do : >"$TMP/b$i"; : >"$TMP/r$i"; i=$((i + 1)); done
    r=0
    while [ $r -lt "$ROUNDS" ]; do
        f=$(cpu_ms "$RAW" --decode "$DIR/$set")
        echo "$f" >>"$TMP/floor"
        i=0
        for j in "$@"; do
            # shellcheck disable=SC2086
            t=$(cpu_ms "$j" $ARGS "$DIR/$set")
            echo "$t" >>"$TMP/b$i"
            echo "$t $f" | awk '{printf "%.4f\n", $1 / $2}' >>"$TMP/r$i"
            i=$((i + 1))
        done
        r=$((r + 1))
    done
    fm=$(median <"$TMP/floor")
    printf '%s: floor %.1f ms' "$set" "$fm"
    i=0
    for j in "$@"; do
        m=$(median <"$TMP/b$i")
        pr=$(median <"$TMP/r$i")
        printf ' | %s %.1f ms %.2fx (%.2fx)' "$(basename "$j")" "$m" "$(echo "$m $fm" | awk '{print $1 / $2}')" "$pr"
        i=$((i + 1))
    done
    printf '\n'
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
