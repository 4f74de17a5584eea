#!/bin/sh
# The floor has one home for each shared helper (docs/architecture.md,
# "The floor"): order statistics in src/core/stats.c, hashing and the
# string map in src/core/hash.c, civil time and zones in
# src/core/civil_time.c, the CSV reader in src/core/csv.c, RUNS.csv in
# src/import/kit_runs.c. A private copy of any of them elsewhere in src/ or
# include/ fails here, with the file and line and the core call to use:
#  - a qsort comparator of doubles (a comparator of two const void * whose
#    body reads a const double *, no struct member): jl__cmp_double;
#  - a linear quantile ((n - 1) times q, or a number, over a count) or a
#    median of the two middle values: jl__quantile_sorted, jl__quantiles_d,
#    jl__median_d;
#  - FNV-1a's offset basis or prime (64- or 32-bit, decimal or hex):
#    jl__fnv1a, jl__strmap;
#  - days from a civil date (the 400-year era's 146097 days, the epoch's
#    719468), timegm, an ISO 8601 date scanned with sscanf or written with
#    strftime, or a function named for civil dates or ISO 8601:
#    core/civil_time.h;
#  - a CSV splitter (a function handling both '"' and ',' characters) but
#    the parsers of other text named below: core/csv.h;
#  - RUNS.csv read outside kit_runs.c (its header's "run", "start" and
#    "end" columns looked up): jl__imp_runs_read.
#   sh tests/style/check_floor.sh SOURCE_DIR
set -u
src=${1:?usage: check_floor.sh SOURCE_DIR}
cd "$src" || exit 1
files=$(find src include -name '*.c' -o -name '*.h' | grep -v '^src/core/' | LC_ALL=C sort)
[ -n "$files" ] || { echo "FAIL: no source files under $src/src"; exit 1; }
bad=0
report() { # what, the core call, then "file:line: text" lines on stdin
    what=$1; use=$2
    while IFS= read -r hit; do
        [ -n "$hit" ] || continue
        echo "FAIL: $hit"
        echo "      a private $what: use $use"
        bad=1
    done
}

# shellcheck disable=SC2086
# (report runs at the end of a pipeline, in a subshell: its findings are
# counted from the output, not from a variable it sets)
out=$({
    # comparators of doubles
    awk '/^static int [A-Za-z_0-9]+\(const void \*[A-Za-z_0-9]+, const void \*[A-Za-z_0-9]+\)/ {
             inf = 1; body = ""; start = FNR; next }
         inf { body = body "\n" $0
               if ($0 ~ /^}/) { inf = 0
                   if (body ~ /const double \*/ && body !~ /->/) print FILENAME ":" start ": comparator of doubles" } }' $files |
        report "qsort comparator of doubles" "jl__cmp_double (core/stats.h)"

    # linear quantiles and medians
    grep -nE '([a-z_]*q[a-z_0-9]*(\[[a-z]+\])?|[0-9]+\.[0-9]+) \* \(double\)\([a-z_.>-]+ - 1\)|\(double\)\([a-z_.>-]+ - 1\) \* ([a-z_]*q[a-z_0-9]*(\[[a-z]+\])?|[0-9]+\.[0-9]+)\b|0\.5 \* \([a-z_]+\[[^]]*/ *2' $files |
        report "linear quantile or median" "jl__quantile_sorted, jl__quantiles_d or jl__median_d (core/stats.h)"

    # FNV-1a
    grep -niE '1469598103934665603|14695981039346656037|cbf29ce484222325|1099511628211|100000001b3|2166136261|811c9dc5|16777619|01000193' $files |
        report "FNV-1a" "jl__fnv1a / jl__fnv1a_add or a jl__strmap (core/hash.h)"

    # civil time
    grep -nE '\b146097\b|\b719468\b|\btimegm *\(|sscanf *\(.*%[0-9]*4[diu][-/]%|strftime *\(.*%Y-%m-%dT%H|^[a-z][^;]*[a-z_]*(days_from_civil|civil_from_days|parse_civil|parse_iso|iso_?8601)[a-z_0-9]* *\(' $files |
        report "civil-time or ISO 8601 parser" "core/civil_time.h (jl__days_from_civil, jl__civil_parse, jl__zone_to_unix)"

    # CSV splitters: a function handling both '"' and ',' (but the JSON
    # and Prometheus text, which are other formats)
    awk 'BEGIN { sq = sprintf("%c", 39); quote = sq "\"" sq; comma = sq "," sq }
         /^[a-z].*\(/ && !/;$/ { fn = $0; start = FNR; body = ""; inf = 1; next }
         inf { body = body "\n" $0
               if ($0 ~ /^}/) { inf = 0
                   if (index(body, quote) && index(body, comma)) print FILENAME ":" start ": " fn } }' $files |
        grep -vE '^src/json/json_(stream|dups)\.c:|^src/json/json_dump\.c:[0-9]+: void jl__jw_key\(|^src/import/prometheus\.c:[0-9]+: static int parse_line\(|^src/import/prom_text\.c:[0-9]+: static int sample\(' |
        report "CSV splitter" "jl__csv_open_file / jl__csv_next (core/csv.h)"

    # RUNS.csv: its columns looked up by name outside kit_runs.c
    # (the trace layer's batches/ start column is a dataset, not RUNS.csv)
    grep -nE 'strcmp\([^)]*, "start"\)' $files | grep -vE '^src/import/kit_runs\.c:|^src/trace/trace_write\.c:[0-9]+: +if \(!strcmp\(names\[k\], "start"\)\)' |
        report "RUNS.csv reader" "jl__imp_runs_read (import/kit.h, kit_runs.c)"
})
[ -z "$out" ] || printf '%s\n' "$out"
case $out in *FAIL:*) bad=1 ;; esac
[ $bad -eq 0 ] || exit 1
echo "ok: $(printf '%s\n' $files | wc -l) files outside src/core hold no private order statistic, FNV-1a, civil time, CSV splitter or RUNS.csv reader"
