#!/bin/sh
# joules label: the stars follow the rule (5 in the lowest fifth of the
# task's range over the labels given ... 1 in the highest) on the bundled
# traces and, when ../shared has it, on the ML.ENERGY v3 data; each label is
# the least energy per request of its (model, task, GPU, count) among the
# runs meeting the SLO; the SVGs parse as XML and carry the figure and the
# provenance hash; rendered in headless Chromium when it is installed.
#   label.sh JOULES SOURCE_DIR SHARED_DIR
set -u
J=$1 SRC=$2 SHARED=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$SRC" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
rule() { # the stars of every label recomputed from the labels themselves
    jq -e '.labels as $l | [$l[] | . as $x | ([$l[] | select(.task == $x.task) | .gpu_wh_per_1000]) as $r
        | ($r | min) as $lo | ($r | max) as $hi
        | (if $hi > $lo then 5 - ([4, ((($x.gpu_wh_per_1000 - $lo) / ($hi - $lo)) * 5 | floor)] | min) else 5 end) as $want
        | ($x.stars == $want and $x.stars_relative_to.min_wh == $lo and $x.stars_relative_to.max_wh == $hi
           and $x.stars_relative_to.labels == ($r | length))] | all' "$1" >/dev/null
}
"$J" label --slo 'median_itl<=50ms' -o "$T/lab" traces/ >"$T/table" || bad "label failed"
rule "$T/lab/labels.json" || bad "bundled: stars do not follow the rule"
[ "$(jq '.labels | length' "$T/lab/labels.json")" = 3 ] || bad "bundled: expected 3 labels"
# the least energy per request meeting the SLO, per (model, task, GPU, count)
"$J" summarize --json --where model=synthetic/Qwen3-8B-shape --where gpu_model=H100 traces/ |
    jq '[.runs[] | select(.median_itl_s <= 0.05) | .energy_per_request_j] | min * 1000 / 3600' >"$T/want"
jq '.labels[] | select(.model == "synthetic/Qwen3-8B-shape" and .gpu_model == "H100") | .gpu_wh_per_1000' \
    "$T/lab/labels.json" >"$T/got"
python3 -c "import sys; a, b = float(open(sys.argv[1]).read()), float(open(sys.argv[2]).read()); sys.exit(abs(a - b) > 1e-9 * b)" \
    "$T/want" "$T/got" || bad "label figure $(cat "$T/got") != least energy meeting the SLO $(cat "$T/want")"
# the label's own re-derivation: joules verify labels.json (as the label says)
"$J" verify "$T/lab/labels.json" >"$T/v" || bad "verify labels.json: $(cat "$T/v")"
hash=$(jq -r .provenance_sha256 "$T/lab/labels.json")
for f in "$T"/lab/*.svg; do
    python3 -c "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])" "$f" || bad "$f is not XML"
    grep -q "$(echo "$hash" | cut -c1-32)" "$f" || bad "$f lacks the provenance hash"
    grep -q 'GPU energy per 1,000 queries' "$f" || bad "$f lacks its figure"
done
if command -v chromium >/dev/null 2>&1; then
    f=$(ls "$T"/lab/*.svg | head -1)
    timeout 60 chromium --headless --no-sandbox --disable-gpu --window-size=400,560 \
        --screenshot="$T/l.png" "file://$f" >/dev/null 2>&1
    [ "$(wc -c <"$T/l.png" 2>/dev/null || echo 0)" -gt 10000 ] || bad "the label did not render"
else
    echo "note: chromium not installed: the label not rendered"
fi
if [ -d "$SHARED/data/mlenergy-v3" ]; then
    "$J" import mlenergy "$SHARED/data/mlenergy-v3" -o "$T/m.h5" --quiet >/dev/null || bad "import failed"
    "$J" label --json "$T/m.h5" >"$T/ml.json" || bad "ML.ENERGY labels failed"
    rule "$T/ml.json" || bad "ML.ENERGY: stars do not follow the rule"
    echo "ML.ENERGY: $(jq '.labels | length' "$T/ml.json") labels, stars $(jq -c '[.labels[].stars] | group_by(.) | map({(.[0] | tostring): length}) | add' "$T/ml.json")"
fi
[ $fail = 0 ] && echo "ok: stars by the rule, least energy meeting the SLO, SVG with hash, rendered"
exit $fail
