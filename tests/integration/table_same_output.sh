#!/bin/sh
# The summary table changes nothing a user sees: the ML.ENERGY data imported
# as one table (default) and as one group per run (--groups) give
# byte-identical outputs from every reading command (docs/trace-format.md
# "summary_table/"). Skips (77) without the data in shared/.
#   table_same_output.sh JOULES SHARED_DIR OUT_DIR
set -eu
J=$1 DATA=$2/data/mlenergy-v3 OUT=$3
[ -d "$DATA/models" ] || { echo "SKIP: $DATA not found"; exit 77; }
rm -rf "$OUT"
mkdir -p "$OUT/table" "$OUT/groups"
"$J" import mlenergy "$DATA" -o "$OUT/table/m.h5" --quiet > /dev/null
"$J" import mlenergy "$DATA" -o "$OUT/groups/m.h5" --quiet --groups > /dev/null
# the layouts really differ
h5ls "$OUT/table/m.h5/summary_table" > /dev/null 2>&1 || { echo "no /summary_table in the default import"; exit 1; }
if h5ls "$OUT/groups/m.h5/summary_table" > /dev/null 2>&1; then echo "--groups wrote a table"; exit 1; fi
fail=0
n=0
for cmd in "frontier --json" "frontier" "pick --json" "pick --json --where gpu_model=H100" \
    "compare --by gpu_model --baseline H100 --json" "summarize --json" "summarize --csv -" \
    "check --json" "pick --json --workers 2"; do
    n=$((n + 1))
    for d in table groups; do
        # shellcheck disable=SC2086
        (cd "$OUT/$d" && "$J" $cmd m.h5 > "out.$n" 2> "err.$n") || [ $? -eq 1 ]
        # the provenance blocks differ (the two files' hashes): the figures compared
        awk '/^  "provenance": \{$/ {s = 1; next} s && /^  \},?$/ {s = 0; next} !s' \
            "$OUT/$d/out.$n" > "$OUT/$d/np.$n" && mv "$OUT/$d/np.$n" "$OUT/$d/out.$n"
    done
    if ! cmp -s "$OUT/table/out.$n" "$OUT/groups/out.$n" || [ ! -s "$OUT/table/out.$n" ]; then
        echo "DIFFERENT or empty: joules $cmd"
        fail=1
    fi
done
[ $fail -eq 0 ] && echo "identical outputs from $n commands on the table and on per-run groups"
exit $fail
