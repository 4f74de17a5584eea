#!/bin/sh
# joules card: the YAML front matter parses; the inference figures sit
# under their own key (joules_energy: every labelled configuration, its
# boundary, Wh per 1,000 queries, the marginal prefill share, stars, and
# gCO2eq per 1,000 queries = 1,000 x what joules emissions gives for the
# same run); the Hugging Face co2_eq_emissions key (training emissions)
# only with --training-type and a declared energy or emissions (1,200 kWh
# x 1.2 x 400 g/kWh = 576,000 g); the body names the marginal prefill share
# and the share of iterations holding prompt tokens for what they are; the
# configurations are joules label's; several models without --model is a
# usage error.
#   card.sh JOULES SOURCE_DIR SHARED_DIR
set -u
J=$1 SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$SRC" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
M=synthetic/Qwen3-8B-shape
"$J" card --model $M --slo 'median_itl<=50ms' --grid-intensity 400 --pue 1.2 --location Germany \
    -o "$T/card.md" traces/ || bad "card failed"
"$J" label --json --slo 'median_itl<=50ms' traces/ >"$T/l.json"
"$J" emissions --json --grid-intensity 400 --pue 1.2 --where model=$M --where gpu_model=H100 \
    --where max_batch_size=256 traces/ >"$T/e.json"
/usr/bin/python3 - "$T/card.md" "$T/l.json" "$T/e.json" <<'PY' || fail=1
import json, sys, yaml
text = open(sys.argv[1]).read()
assert text.startswith("---\n"), "no front matter"
front = yaml.safe_load(text.split("---\n")[1])
assert "co2_eq_emissions" not in front, "inference grams in the Hub's training key"
je = front["joules_energy"]
assert je["kind"] == "inference" and je["geographical_location"] == "Germany"
labels = [l for l in json.load(open(sys.argv[2]))["labels"] if l["model"] == "synthetic/Qwen3-8B-shape"]
confs = je["configurations"]
assert len(confs) == len(labels) == 2, (len(confs), len(labels))
e = json.load(open(sys.argv[3]))["runs"][0]
for c, l in zip(confs, labels):
    assert abs(c["wh_per_1000_queries"] - l["wh_per_1000"]) <= 1e-5 * l["wh_per_1000"]
    assert abs(c["gpu_wh_per_1000_queries"] - l["gpu_wh_per_1000"]) <= 1e-5 * l["gpu_wh_per_1000"]
    assert c["stars"] == l["stars"] and c["boundary"] == l["boundary"] == {"window": "run", "scope": "gpu"}
    assert c["prefill_marginal_energy_share"] is not None
    lo, hi = c["prefill_marginal_energy_share_interval"]
    assert lo <= c["prefill_marginal_energy_share"] <= hi
h100 = [c for c in confs if c["hardware"] == "1 x H100"][0]
want = e["g_co2eq_per_request"]["average"] * 1000
assert abs(h100["g_co2eq_per_1000_queries"] - want) <= 1e-5 * want, (h100, want)
for section in ("## Calibration and conditions", "## Carbon and facility", "## Provenance", "energy_counter",
                "prefill share (marginal, 95 % interval)",
                "energy share of iterations holding prompt tokens", "No training or fine-tuning"):
    assert section in text, f"no {section}"
assert "| prefill share |" not in text
print(f"card: {h100['g_co2eq_per_1000_queries']} g per 1,000 queries (inference, H100)")
PY
# what each configuration left out: the energy outside the steady state (= the label's), the scopes not measured
"$J" card --model $M --window steady -o "$T/s.md" traces/ || bad "card --window steady failed"
"$J" label --json --window steady traces/ >"$T/ls.json"
for g in H100 H200; do
    wh=$(jq -r --arg g $g '.labels[] | select(.model == "synthetic/Qwen3-8B-shape" and .gpu_model == $g) | .left_out.outside_window_kwh * 1000' "$T/ls.json")
    want=$(printf '%.4g' "$wh")
    grep -q "^- chat on 1 x $g: $want Wh outside the steady state (.* % of the run's); not measured: host (CPU, DRAM) and node (AC at the wall) power\.$" "$T/s.md" ||
        bad "card: $g's left-out line (want $want Wh): $(grep "^- chat on 1 x $g" "$T/s.md")"
done
grep -q '^- chat on 1 x H100: nothing outside the window (the whole run); not measured' "$T/card.md" || bad "card: whole run's left-out line"
# declared fine-tuning: co2_eq_emissions with training_type
"$J" card --model $M --grid-intensity 400 --pue 1.2 --training-type fine-tuning --training-energy-kwh 1200 \
    --training-hardware "8 x H100" -o "$T/t.md" traces/ || bad "card with training failed"
/usr/bin/python3 - "$T/t.md" <<'PY' || fail=1
import sys, yaml
front = yaml.safe_load(open(sys.argv[1]).read().split("---\n")[1])
co2 = front["co2_eq_emissions"]
assert co2["training_type"] == "fine-tuning" and co2["hardware_used"] == "8 x H100", co2
assert abs(co2["emissions"] - 1200 * 1.2 * 400) < 1e-6, co2
assert "declared by the card's author" in co2["source"]
PY
"$J" card --model $M --training-type fine-tuning traces/ >/dev/null 2>&1
[ $? = 2 ] || bad "--training-type without energy not refused"
"$J" card --model $M --training-energy-kwh 5 traces/ >/dev/null 2>&1
[ $? = 2 ] || bad "--training-energy-kwh without --training-type not refused"
"$J" card traces/ >/dev/null 2>"$T/err"
[ $? = 2 ] && grep -q 'several models' "$T/err" || bad "several models: $(cat "$T/err")"
[ $fail = 0 ] && echo "ok: inference under joules_energy (= emissions' and label's figures), co2_eq_emissions only for declared training, what each row left out, prefill shares named"
exit $fail
