#!/bin/sh
# joules label: the stars follow the AI Energy Score's rule (5 in the
# lowest fifth of the range over the labels of the same task, GPU model,
# size class and boundary ... 1 in the highest) on the bundled traces and,
# when ../shared has it, on the ML.ENERGY v3 data; the size class follows
# total_params (A <= 20 B, B <= 66 B, C larger; text generation only); each
# label is the least whole-run energy per request of its (model, task, GPU,
# count) among the runs meeting the SLO (the steady state with --window
# steady); a diffusion run under an ITL SLO is left out and counted; the
# SVGs parse as XML and carry the figure, its boundary and the provenance
# hash; rendered in headless Chromium when it is installed.
#   label.sh JOULES SOURCE_DIR SHARED_DIR
set -u
J=$1 SRC=$2 SHARED=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$SRC" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
rule() { # the stars of every label recomputed from the labels themselves
    jq -e '.labels as $l | [$l[] | . as $x
        | ([$l[] | select(.task == $x.task and .gpu_model == $x.gpu_model and .size_class == $x.size_class
                          and .boundary == $x.boundary) | .wh_per_1000]) as $r
        | ($r | min) as $lo | ($r | max) as $hi
        | (if ($r | length) < 2 then null elif $hi > $lo then 5 - ([4, ((($x.wh_per_1000 - $lo) / ($hi - $lo)) * 5 | floor)] | min) else 5 end) as $want
        | ($x.stars == $want and $x.stars_relative_to.min_wh == $lo and $x.stars_relative_to.max_wh == $hi
           and $x.stars_relative_to.labels == ($r | length))] | all' "$1" >/dev/null
}
classes() { # the size class of every label from its run's total_params
    jq -e --slurpfile s "$2" '[.labels[] | . as $x | ($s[0].runs[] | select(.file == $x.file and .run == $x.run)) as $r
        | (if ($r.workload == "llm" or $r.workload == "mllm") | not then null
           elif $r.total_params == null then "?" elif $r.total_params <= 20e9 then "A"
           elif $r.total_params <= 66e9 then "B" else "C" end) as $want
        | $x.size_class == $want] | all' "$1" >/dev/null
}
"$J" label --slo 'median_itl<=50ms' -o "$T/lab" traces/ >"$T/table" || bad "label failed"
rule "$T/lab/labels.json" || bad "bundled: stars do not follow the rule"
[ "$(jq '.labels | length' "$T/lab/labels.json")" = 3 ] || bad "bundled: expected 3 labels"
"$J" summarize --json traces/ >"$T/s.json"
classes "$T/lab/labels.json" "$T/s.json" || bad "bundled: size classes do not follow total_params"
# the diffusion runs: no ITL SLO applies to them, left out and counted
[ "$(jq .skipped_no_slo "$T/lab/labels.json")" = 6 ] || bad "diffusion runs not counted as left out"
grep -q '^left out: 6 runs of a workload no --slo applies to' "$T/table" || bad "no left-out line: $(cat "$T/table")"
"$J" label --json --slo 'median_itl<=50ms' --slo 'batch_latency<=30s' traces/ >"$T/both.json"
[ "$(jq '[.labels[] | select(.workload == "diffusion")] | length' "$T/both.json")" = 1 ] ||
    bad "diffusion not labelled from its own SLO"
# the least energy per request meeting the SLO, per (model, task, GPU, count):
# the whole run by default, the steady state with --window steady
for w in run steady; do
    key=$([ $w = run ] && echo run_energy_per_request_j || echo energy_per_request_j)
    "$J" label --json --slo 'median_itl<=50ms' --window $w traces/ >"$T/l$w.json"
    jq --arg k "$key" '[.runs[] | select(.model == "synthetic/Qwen3-8B-shape" and .gpu_model == "H100"
        and .median_itl_s <= 0.05) | .[$k]] | min * 1000 / 3600' "$T/s.json" >"$T/want"
    jq '.labels[] | select(.model == "synthetic/Qwen3-8B-shape" and .gpu_model == "H100") | .wh_per_1000' \
        "$T/l$w.json" >"$T/got"
    python3 -c "import sys; a, b = float(open(sys.argv[1]).read()), float(open(sys.argv[2]).read()); sys.exit(abs(a - b) > 1e-9 * b)" \
        "$T/want" "$T/got" || bad "$w: label figure $(cat "$T/got") != least energy meeting the SLO $(cat "$T/want")"
    jq -e --arg w $w '[.labels[] | .boundary == {"window": $w, "scope": "gpu"}] | all' "$T/l$w.json" >/dev/null ||
        bad "$w: boundary not named"
    # what it left out: the label run's energy outside the window, no scope beyond the GPUs
    jq -e --slurpfile s "$T/s.json" '[.labels[] | . as $l | ($s[0].runs[] | select(.file == $l.file and .run == $l.run)) as $x
        | $l.left_out | ((.outside_window_kwh * 3.6e6 - ($x.run_energy_j - (if $l.boundary.window == "run" then $x.run_energy_j else $x.steady_energy_j end))) | fabs) < 1e-6 * $x.run_energy_j
          and .scopes_not_measured == ["host", "node"]] | all' "$T/l$w.json" >/dev/null ||
        bad "$w: left out: $(jq -c '[.labels[].left_out]' "$T/l$w.json")"
done
grep -q '^counted: the whole run (--window run) at each run.s widest measured scope (--scope auto); left out: 0 kWh outside the windows counted, 0 kWh measured at wider scopes than counted; not measured: host power in 3 of 3 labels. runs, node power in 3 of 3$' "$T/table" ||
    bad "no counted/left-out line: $(tail -2 "$T/table")"
# a scope not measured: an error naming the run and what it has, exit 3 (no label)
"$J" label --scope host traces/ >/dev/null 2>"$T/err"
rc=$?
[ $rc = 3 ] && grep -q 'b0256: no run/host .*energy: the run has steady/gpu, run/gpu' "$T/err" ||
    bad "--scope host: exit $rc: $(head -1 "$T/err")"
# the label's own re-derivation: joules verify labels.json (as the label says)
"$J" verify "$T/lab/labels.json" >"$T/v" || bad "verify labels.json: $(cat "$T/v")"
hash=$(jq -r .provenance_sha256 "$T/lab/labels.json")
for f in "$T"/lab/*.svg; do
    python3 -c "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])" "$f" || bad "$f is not XML"
    grep -q "$(echo "$hash" | cut -c1-32)" "$f" || bad "$f lacks the provenance hash"
    grep -q 'GPU energy per 1,000 \(queries\|images\), whole run' "$f" || bad "$f lacks its figure and boundary"
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
    "$J" summarize --json "$T/m.h5" >"$T/ms.json"
    classes "$T/ml.json" "$T/ms.json" || bad "ML.ENERGY: size classes do not follow total_params"
    echo "ML.ENERGY: classes $(jq -c '[.labels[].size_class] | group_by(.) | map({(.[0] // "none" | tostring): length}) | add' "$T/ml.json"), star groups $(jq '[.labels[] | [.task, .gpu_model, .size_class]] | unique | length' "$T/ml.json")"
    echo "ML.ENERGY: $(jq '.labels | length' "$T/ml.json") labels, stars $(jq -c '[.labels[].stars] | group_by(.) | map({(.[0] | tostring): length}) | add' "$T/ml.json")"
fi
[ $fail = 0 ] && echo "ok: stars by the rule within task, GPU, class and boundary, classes by total_params, whole-run least energy meeting the SLO, what it left out, diffusion left out under an ITL SLO, scope refused, SVG with hash, rendered"
exit $fail
